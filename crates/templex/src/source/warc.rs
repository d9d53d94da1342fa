//! WARC files (ISO 28500, WARC/1.0 and 1.1; `.warc` or `.warc.gz`) as a page source, a
//! streaming reader for batch work, and a small WARC writer.
//!
//! # Why a hand-written reader
//!
//! The `warc` crate (0.4) was evaluated and not used: after a malformed or mis-sized record
//! its iterators return an error and leave the stream at an arbitrary position (no resync),
//! it reports no offsets (so no random access), it decodes `.warc.gz` as one stream (so a
//! corrupt member ends the file), its `from_path` even creates missing files, and it pulls in
//! chrono, nom 7 and uuid 0.8. A WARC record is a version line, `Name: value` header lines,
//! a blank line, `Content-Length` bytes of block and `\r\n\r\n`; a reader for that, which
//! skips damaged records and resynchronises on the next `WARC/1.` line, is small.
//!
//! # Index and memory
//!
//! [`WarcSource::open`] reads the file once and keeps, per page, only where its record is:
//! the block's byte range for plain files, the offset of the gzip member the record starts
//! in for `.warc.gz` (the normal layout compresses each record as its own member, so a load
//! seeks there and inflates one record). When a record does not start a member (a file
//! compressed as one big stream), seeking is impossible and that page's decoded body is kept
//! in memory instead.
//!
//! Damaged input never aborts: truncated records, garbage between records, wrong
//! `Content-Length`s and corrupt gzip members are skipped with a `tracing` warning, and
//! reading continues at the next gzip member / next `WARC/1.` line.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flate2::bufread::GzDecoder;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use url::{Position, Url};

use super::{
    LoadCounter, LoadError, LoadStats, Page, PageSource, is_html_media_type, parse_content_type,
};

/// Longest header line read as one line; longer "lines" are garbage.
const MAX_LINE: usize = 64 * 1024;
/// Largest WARC header block; beyond this the record is considered corrupt.
const MAX_HEADER_BYTES: usize = 1024 * 1024;
/// Blocks up to this size are read whole (transiently); larger records are not pages.
const MAX_BLOCK: u64 = 64 * 1024 * 1024;
/// How much of an oversized block is read to classify it.
const BLOCK_PREFIX: u64 = 64 * 1024;
/// Cap on a body after content decoding, against decompression bombs.
const MAX_DECODED: u64 = 256 * 1024 * 1024;
/// Redirect hops followed inside the WARC.
const MAX_REDIRECTS: usize = 10;
/// Decompressed-output buffer of the gzip member reader.
const GZ_BUF: usize = 64 * 1024;

/// A WARC file indexed by target URI: HTML `response` (2xx) and `resource` records are
/// pages, 3xx responses are redirects followed on load.
pub struct WarcSource {
    path: PathBuf,
    gzip: bool,
    entries: Vec<Entry>,
    exact: HashMap<String, usize>,
    loose: HashMap<String, usize>,
    pages: Vec<usize>,
    problems: usize,
    counter: LoadCounter,
}

impl fmt::Debug for WarcSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarcSource")
            .field("path", &self.path)
            .field("gzip", &self.gzip)
            .field("pages", &self.pages.len())
            .field("records", &self.entries.len())
            .field("problems", &self.problems)
            .finish()
    }
}

struct Entry {
    url: Url,
    kind: EntryKind,
}

enum EntryKind {
    Page(PageRef),
    Redirect(Url),
}

struct PageRef {
    loc: Loc,
    /// Whether the block is an HTTP message (a `response`) rather than the body itself.
    http: bool,
    media: String,
    charset: Option<String>,
}

enum Loc {
    /// Block byte range in an uncompressed file.
    Plain { offset: u64, len: u64 },
    /// Compressed offset of the gzip member the record starts in.
    Gz { member: u64 },
    /// Decoded body, for records that cannot be reached by seeking.
    Memory(Arc<[u8]>),
}

impl WarcSource {
    /// Index the WARC at `path` (`.warc` or `.warc.gz`, detected by content). A missing or
    /// unreadable file is [`LoadError::Io`]; damaged records are skipped with a warning.
    pub fn open(path: impl AsRef<Path>) -> Result<WarcSource, LoadError> {
        let path = path.as_ref();
        let io_err = |source| LoadError::Io {
            path: path.display().to_string(),
            source,
        };
        let label: Arc<str> = path.display().to_string().into();
        let (stream, gzip) = open_stream(path, 0, label.clone()).map_err(io_err)?;
        let mut reader = RecordReader::new(stream, label.clone());
        let mut source = WarcSource {
            path: path.to_path_buf(),
            gzip,
            entries: Vec::new(),
            exact: HashMap::new(),
            loose: HashMap::new(),
            pages: Vec::new(),
            problems: 0,
            counter: LoadCounter::default(),
        };
        while let Some((head, block)) = reader.next_record().map_err(io_err)? {
            let Some(rec) = classify(&head, &block) else {
                continue;
            };
            let kind = match rec.kind {
                Kind::Redirect(target) => EntryKind::Redirect(target),
                Kind::Page {
                    media,
                    charset,
                    http,
                } => {
                    if head.content_length > MAX_BLOCK {
                        reader.problem(format_args!(
                            "record at offset {} for {} is larger than {MAX_BLOCK} bytes; skipped",
                            head.offset, rec.url
                        ));
                        continue;
                    }
                    let loc = match (gzip, head.member) {
                        (false, _) => Loc::Plain {
                            offset: block.offset,
                            len: head.content_length,
                        },
                        (true, Some(member)) => Loc::Gz { member },
                        // Not at a member start: the only way back to it is re-inflating
                        // from an earlier member, so keep the body instead.
                        (true, None) => Loc::Memory(page_body(&block.data, http, &rec.url).into()),
                    };
                    EntryKind::Page(PageRef {
                        loc,
                        http,
                        media,
                        charset,
                    })
                }
            };
            source.insert(rec.url, kind);
        }
        source.problems = reader.problems();
        Ok(source)
    }

    /// The indexed page URLs (not redirects), in file order.
    pub fn urls(&self) -> impl Iterator<Item = &Url> + '_ {
        self.pages.iter().map(|&i| &self.entries[i].url)
    }

    /// Number of indexed pages.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether no page was indexed.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Number of indexed redirects.
    pub fn redirects(&self) -> usize {
        self.entries.len() - self.pages.len()
    }

    /// Damaged spots (truncated or corrupt records, garbage, broken gzip members) skipped
    /// while indexing; each was logged as a warning.
    pub fn problems(&self) -> usize {
        self.problems
    }

    /// Pages whose bodies are held in memory because their records cannot be reached by
    /// seeking (a `.warc.gz` not compressed per record).
    pub fn bodies_in_memory(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EntryKind::Page(PageRef {
                        loc: Loc::Memory(_),
                        ..
                    })
                )
            })
            .count()
    }

    /// The WARC file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.gzip
    }

    fn insert(&mut self, url: Url, kind: EntryKind) {
        let key = url.as_str().to_string();
        if let Some(&i) = self.exact.get(&key) {
            // First record wins, except that content beats a redirect: a crawler that was
            // redirected (often to set a cookie) and then fetched the page holds both.
            if matches!(self.entries[i].kind, EntryKind::Redirect(_))
                && matches!(kind, EntryKind::Page(_))
            {
                self.entries[i].kind = kind;
                self.pages.push(i);
            } else {
                tracing::debug!(%url, "duplicate WARC record; keeping the first");
            }
            return;
        }
        let i = self.entries.len();
        if let Some(l) = loose_key(&url) {
            self.loose.entry(l).or_insert(i);
        }
        self.exact.insert(key, i);
        if matches!(kind, EntryKind::Page(_)) {
            self.pages.push(i);
        }
        self.entries.push(Entry { url, kind });
    }

    /// Entry for `url`: exact match, then ignoring http/https, then ignoring a trailing slash.
    fn find(&self, url: &Url) -> Option<usize> {
        let mut u = url.clone();
        u.set_fragment(None);
        if let Some(&i) = self.exact.get(u.as_str()) {
            return Some(i);
        }
        if let Some(&i) = loose_key(&u).and_then(|k| self.loose.get(&k)) {
            return Some(i);
        }
        let t = toggle_trailing_slash(&u)?;
        self.exact
            .get(t.as_str())
            .or_else(|| loose_key(&t).and_then(|k| self.loose.get(&k)))
            .copied()
    }

    /// The page entry `url` leads to after redirects.
    fn resolve(&self, url: &Url) -> Result<usize, LoadError> {
        let mut i = self
            .find(url)
            .ok_or_else(|| LoadError::NotFound(url.to_string()))?;
        let mut seen = Vec::new();
        loop {
            match &self.entries[i].kind {
                EntryKind::Page(_) => return Ok(i),
                EntryKind::Redirect(target) => {
                    if seen.len() >= MAX_REDIRECTS || seen.contains(&i) {
                        return Err(LoadError::TooManyRedirects(url.to_string()));
                    }
                    seen.push(i);
                    i = self.find(target).ok_or_else(|| {
                        LoadError::NotFound(format!(
                            "{url} (redirects to {target}, which is not in the WARC)"
                        ))
                    })?;
                }
            }
        }
    }

    fn read_page(&self, requested: &Url, i: usize) -> Result<Page, LoadError> {
        let entry = &self.entries[i];
        let EntryKind::Page(p) = &entry.kind else {
            return Err(LoadError::NotFound(requested.to_string()));
        };
        let io_err = |source| LoadError::Io {
            path: self.path.display().to_string(),
            source,
        };
        let body = match &p.loc {
            Loc::Memory(body) => body.to_vec(),
            Loc::Plain { offset, len } => {
                let mut file = File::open(&self.path).map_err(io_err)?;
                file.seek(SeekFrom::Start(*offset)).map_err(io_err)?;
                let mut block = Vec::new();
                file.take(*len).read_to_end(&mut block).map_err(io_err)?;
                if block.len() as u64 != *len {
                    return Err(io_err(invalid_data(format!(
                        "record for {} at offset {offset} is cut short (file changed?)",
                        entry.url
                    ))));
                }
                page_body(&block, p.http, &entry.url)
            }
            Loc::Gz { member } => {
                let label: Arc<str> = self.path.display().to_string().into();
                let (stream, _) =
                    open_stream(&self.path, *member, label.clone()).map_err(io_err)?;
                let mut reader = RecordReader::new(stream, label);
                let found = reader.next_record().map_err(io_err)?;
                let block = found
                    .filter(|(head, _)| target_uri(head).as_ref() == Some(&entry.url))
                    .map(|(_, block)| block)
                    .ok_or_else(|| {
                        io_err(invalid_data(format!(
                            "no readable record for {} at gzip member {member} (file changed?)",
                            entry.url
                        )))
                    })?;
                page_body(&block.data, p.http, &entry.url)
            }
        };
        Ok(Page {
            url: requested.clone(),
            final_url: entry.url.clone(),
            body,
            charset: p.charset.clone(),
            content_type: (!p.media.is_empty()).then(|| p.media.clone()),
        })
    }
}

impl PageSource for WarcSource {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        let result = self.resolve(url).and_then(|i| self.read_page(url, i));
        self.counter.record(&result);
        result
    }

    fn resolves(&self, url: &Url) -> bool {
        self.resolve(url).is_ok()
    }

    fn stats(&self) -> LoadStats {
        self.counter.stats()
    }

    fn page_urls(&self) -> Option<Vec<Url>> {
        Some(self.urls().cloned().collect())
    }

    /// The record URI the page is stored under (after redirects), so that `http`/`https`
    /// and trailing-slash variants of one page are one page.
    fn canonical_url(&self, url: &Url) -> Url {
        match self.resolve(url) {
            Ok(i) => self.entries[i].url.clone(),
            Err(_) => {
                let mut u = url.clone();
                u.set_fragment(None);
                u
            }
        }
    }
}

/// Key ignoring the scheme, for http/https URLs only.
fn loose_key(url: &Url) -> Option<String> {
    matches!(url.scheme(), "http" | "https").then(|| url[Position::BeforeUsername..].to_string())
}

fn toggle_trailing_slash(url: &Url) -> Option<Url> {
    let path = url.path();
    if path == "/" || path.is_empty() || url.cannot_be_a_base() {
        return None;
    }
    let mut t = url.clone();
    match path.strip_suffix('/') {
        Some(stripped) => {
            let stripped = stripped.to_string();
            t.set_path(&stripped);
        }
        None => {
            let added = format!("{path}/");
            t.set_path(&added);
        }
    }
    Some(t)
}

// ---------------------------------------------------------------------------------------
// Streaming iteration
// ---------------------------------------------------------------------------------------

/// Read every HTML page of a WARC in file order without indexing or holding more than one
/// record in memory, for crawl-scale batch processing.
///
/// Yields what [`WarcSource`] would index as pages (2xx HTML responses, HTML resources),
/// with decoded bodies; redirects are not followed and duplicate URIs are not removed (that
/// would need memory proportional to the file). Damaged records are skipped with a warning;
/// an `Err` item is a real I/O error, after which the iterator ends.
pub fn read_warc_pages(path: impl AsRef<Path>) -> Result<WarcPages, LoadError> {
    let path = path.as_ref();
    let label: Arc<str> = path.display().to_string().into();
    let (stream, _) = open_stream(path, 0, label.clone()).map_err(|source| LoadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Ok(WarcPages {
        reader: RecordReader::new(stream, label),
        path: path.display().to_string(),
        done: false,
    })
}

/// Iterator returned by [`read_warc_pages`].
pub struct WarcPages {
    reader: RecordReader,
    path: String,
    done: bool,
}

impl fmt::Debug for WarcPages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarcPages")
            .field("path", &self.path)
            .field("offset", &self.reader.pos)
            .finish()
    }
}

impl WarcPages {
    /// Damaged spots skipped so far (each logged as a warning).
    pub fn problems(&self) -> usize {
        self.reader.problems()
    }
}

impl Iterator for WarcPages {
    type Item = Result<Page, LoadError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let (head, block) = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(source) => {
                    self.done = true;
                    return Some(Err(LoadError::Io {
                        path: self.path.clone(),
                        source,
                    }));
                }
            };
            let Some(rec) = classify(&head, &block) else {
                continue;
            };
            let Kind::Page {
                media,
                charset,
                http,
            } = rec.kind
            else {
                continue;
            };
            if !block.complete {
                self.reader.problem(format_args!(
                    "record at offset {} for {} is larger than {MAX_BLOCK} bytes; skipped",
                    head.offset, rec.url
                ));
                continue;
            }
            let body = page_body(&block.data, http, &rec.url);
            return Some(Ok(Page {
                final_url: rec.url.clone(),
                url: rec.url,
                body,
                charset,
                content_type: (!media.is_empty()).then_some(media),
            }));
        }
        self.done = true;
        None
    }
}

// ---------------------------------------------------------------------------------------
// Record classification and HTTP payloads
// ---------------------------------------------------------------------------------------

struct Classified {
    url: Url,
    kind: Kind,
}

enum Kind {
    Page {
        media: String,
        charset: Option<String>,
        http: bool,
    },
    Redirect(Url),
}

/// The record's `WARC-Target-URI`, without the `<>` some writers add and without fragment.
fn target_uri(head: &RecordHead) -> Option<Url> {
    let raw = head.field("WARC-Target-URI")?.trim();
    let raw = raw.strip_prefix('<').unwrap_or(raw);
    let raw = raw.strip_suffix('>').unwrap_or(raw);
    let mut url = Url::parse(raw.trim()).ok()?;
    url.set_fragment(None);
    Some(url)
}

/// What a record means for page loading, if anything.
fn classify(head: &RecordHead, block: &Block) -> Option<Classified> {
    let warc_type = head.field("WARC-Type")?.trim().to_ascii_lowercase();
    if warc_type != "response" && warc_type != "resource" {
        return None;
    }
    let Some(url) = target_uri(head) else {
        tracing::debug!(
            offset = head.offset,
            "WARC record without a usable target URI"
        );
        return None;
    };
    if warc_type == "resource" {
        let (media, charset) = parse_content_type(head.field("Content-Type").unwrap_or(""));
        return matches!(media.as_str(), "text/html" | "application/xhtml+xml").then_some(
            Classified {
                url,
                kind: Kind::Page {
                    media,
                    charset,
                    http: false,
                },
            },
        );
    }
    // Not HTTP (dns:, ftp: and similar responses): not a page.
    let http = parse_http_head(&block.data)?;
    let kind = match http.status {
        200..=299 => {
            let (media, charset) = parse_content_type(http.header("Content-Type").unwrap_or(""));
            if !is_html_media_type(&media) {
                return None;
            }
            // No Content-Type at all: refuse obvious binaries rather than trust the default.
            let body = &block.data[http.body_start.min(block.data.len())..];
            if media.is_empty()
                && http.header("Content-Encoding").is_none()
                && body.iter().take(1024).any(|&b| b == 0)
            {
                return None;
            }
            Kind::Page {
                media,
                charset,
                http: true,
            }
        }
        301 | 302 | 303 | 307 | 308 => {
            let location = http.header("Location")?.trim();
            let mut target = url.join(location).ok()?;
            target.set_fragment(None);
            Kind::Redirect(target)
        }
        _ => return None,
    };
    Some(Classified { url, kind })
}

struct HttpHead {
    status: u16,
    headers: Vec<(String, String)>,
    body_start: usize,
}

impl HttpHead {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Comma-separated tokens of every `name` header, lower-cased.
    fn tokens(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .flat_map(|(_, v)| v.split(','))
            .map(|t| t.trim().to_ascii_lowercase())
            .filter(|t| !t.is_empty())
            .collect()
    }
}

/// Lenient HTTP response head parser: real WARCs hold whatever servers sent.
fn parse_http_head(block: &[u8]) -> Option<HttpHead> {
    if !block.starts_with(b"HTTP/") {
        return None;
    }
    let crlf = find(block, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = find(block, b"\n\n").map(|i| (i, i + 2));
    let (head_end, body_start) = match (crlf, lf) {
        (Some(a), Some(b)) => {
            if a.0 <= b.0 {
                a
            } else {
                b
            }
        }
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => (block.len(), block.len()),
    };
    let text = String::from_utf8_lossy(&block[..head_end]);
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let status_line = lines.next()?;
    let status = status_line
        .split_ascii_whitespace()
        .nth(1)?
        .get(..3)?
        .parse::<u16>()
        .ok()?;
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Some(HttpHead {
        status,
        headers,
        body_start,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The page body of a record block: the block itself for resources, the decoded HTTP body
/// for responses.
fn page_body(block: &[u8], http: bool, url: &Url) -> Vec<u8> {
    if !http {
        return block.to_vec();
    }
    let Some(head) = parse_http_head(block) else {
        return block.to_vec();
    };
    decode_body(&head, &block[head.body_start.min(block.len())..], url)
}

/// Undo `Transfer-Encoding: chunked` and `Content-Encoding`. What cannot be decoded is kept
/// as it is (with a warning): the charset detector copes better with odd bytes than a
/// caller copes with a missing page.
fn decode_body(head: &HttpHead, body: &[u8], url: &Url) -> Vec<u8> {
    let mut out = body.to_vec();
    if head
        .tokens("Transfer-Encoding")
        .iter()
        .any(|t| t == "chunked")
    {
        match dechunk(&out) {
            Ok(d) => out = d,
            Err((partial, why)) if !partial.is_empty() => {
                tracing::warn!(%url, "chunked body {why}; using the {} bytes decoded", partial.len());
                out = partial;
            }
            // Many WARC writers store the de-chunked body but keep the header.
            Err((_, why)) => tracing::debug!(%url, "body is not chunked ({why}); kept as is"),
        }
    }
    for enc in head.tokens("Content-Encoding").iter().rev() {
        match decode_content(enc, &out) {
            Ok(Some(d)) => out = d,
            Ok(None) => {}
            Err((partial, why)) if !partial.is_empty() => {
                tracing::warn!(%url, "{enc} body {why}; using the {} bytes decoded", partial.len());
                out = partial;
                break;
            }
            Err((_, why)) => {
                tracing::warn!(%url, "cannot decode {enc} body ({why}); kept undecoded");
                break;
            }
        }
    }
    out
}

type Partial = (Vec<u8>, String);

fn dechunk(data: &[u8]) -> Result<Vec<u8>, Partial> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    loop {
        let Some(nl) = data[i..].iter().position(|&b| b == b'\n') else {
            return Err((out, "ends without the final chunk".into()));
        };
        let line = String::from_utf8_lossy(&data[i..i + nl]);
        let size_text = line.split(';').next().unwrap_or("").trim();
        let Ok(size) = u64::from_str_radix(size_text, 16) else {
            return Err((out, format!("has a bad chunk size {size_text:?}")));
        };
        i += nl + 1;
        if size == 0 {
            return Ok(out);
        }
        let rest = (data.len() - i) as u64;
        if size > rest {
            out.extend_from_slice(&data[i..]);
            return Err((out, "is truncated".into()));
        }
        let size = size as usize;
        out.extend_from_slice(&data[i..i + size]);
        i += size;
        if data[i..].starts_with(b"\r\n") {
            i += 2;
        } else if data[i..].starts_with(b"\n") {
            i += 1;
        }
        if i >= data.len() {
            return Err((out, "ends without the final chunk".into()));
        }
    }
}

/// Decode one content coding. `Ok(None)`: nothing to do (identity, or the body is plainly
/// already decoded, as many WARC writers store it).
fn decode_content(enc: &str, data: &[u8]) -> Result<Option<Vec<u8>>, Partial> {
    if matches!(enc, "identity" | "none") || data.is_empty() {
        return Ok(None);
    }
    let first = data.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'<') {
        return Ok(None);
    }
    let mut out = Vec::new();
    let result = match enc {
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(data)
            .take(MAX_DECODED)
            .read_to_end(&mut out),
        "deflate" => {
            // "deflate" is zlib-wrapped by the standard and raw in practice; try both.
            let zlib = data.len() >= 2
                && data[0] & 0x0f == 8
                && (u16::from(data[0]) << 8 | u16::from(data[1])) % 31 == 0;
            if zlib {
                flate2::read::ZlibDecoder::new(data)
                    .take(MAX_DECODED)
                    .read_to_end(&mut out)
            } else {
                flate2::read::DeflateDecoder::new(data)
                    .take(MAX_DECODED)
                    .read_to_end(&mut out)
            }
        }
        "br" => brotli_decompressor::Decompressor::new(data, 4096)
            .take(MAX_DECODED)
            .read_to_end(&mut out),
        other => return Err((Vec::new(), format!("unsupported coding {other:?}"))),
    };
    match result {
        Ok(_) if out.len() as u64 >= MAX_DECODED => {
            Err((out, format!("decodes to more than {MAX_DECODED} bytes")))
        }
        Ok(_) => Ok(Some(out)),
        Err(e) => Err((out, e.to_string())),
    }
}

fn invalid_data(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

// ---------------------------------------------------------------------------------------
// Byte streams: plain files and gzip members
// ---------------------------------------------------------------------------------------

/// Open `path` at `offset`, detecting gzip by its magic bytes (not the file name).
fn open_stream(path: &Path, offset: u64, label: Arc<str>) -> io::Result<(Stream, bool)> {
    let mut file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a WARC file",
        ));
    }
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let gzip = {
        let buf = reader.fill_buf()?;
        buf.len() >= 2 && buf[..2] == [0x1f, 0x8b]
    };
    let stream = if gzip {
        Stream::Gz(Box::new(GzMembers::new(
            Counted {
                inner: reader,
                pos: offset,
            },
            label,
        )))
    } else {
        Stream::Plain(reader)
    };
    Ok((stream, gzip))
}

/// The decompressed bytes of a WARC file.
enum Stream {
    Plain(BufReader<File>),
    Gz(Box<GzMembers<BufReader<File>>>),
}

impl Stream {
    /// Compressed offset of the gzip member whose output starts exactly at `pos`.
    fn member_for(&mut self, pos: u64) -> Option<u64> {
        match self {
            Stream::Plain(_) => None,
            Stream::Gz(g) => g.member_for(pos),
        }
    }

    fn problems(&self) -> usize {
        match self {
            Stream::Plain(_) => 0,
            Stream::Gz(g) => g.problems,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let data = self.fill_buf()?;
            let n = data.len().min(buf.len());
            buf[..n].copy_from_slice(&data[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Stream {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Stream::Plain(r) => r.fill_buf(),
            Stream::Gz(g) => g.fill_buf(),
        }
    }

    fn consume(&mut self, amt: usize) {
        match self {
            Stream::Plain(r) => r.consume(amt),
            Stream::Gz(g) => g.consume(amt),
        }
    }
}

/// A buffered, seekable reader that knows its position.
struct Counted<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead + Seek> Counted<R> {
    fn seek_to(&mut self, pos: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(pos))?;
        self.pos = pos;
        Ok(())
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.pos += amt as u64;
    }
}

enum MemberState<R> {
    Between(Counted<R>),
    // Boxed: the inflate state is large and the state moves on every read.
    Member(Box<GzDecoder<Counted<R>>>),
    Poisoned,
}

/// Concatenated gzip members inflated one at a time (what `MultiGzDecoder` does), but
/// remembering where each member starts, both compressed and decompressed, so records can be
/// indexed by member; and, unlike `MultiGzDecoder`, surviving a corrupt member by skipping to
/// the next gzip magic after the broken member's start.
struct GzMembers<R> {
    state: MemberState<R>,
    /// Compressed offset of the current member.
    member_start: u64,
    /// Member start not yet known to be a real member (it has produced no output yet).
    pending: Option<(u64, u64)>,
    /// (decompressed offset, compressed offset) of recent member starts.
    boundaries: VecDeque<(u64, u64)>,
    buf: Vec<u8>,
    lo: usize,
    hi: usize,
    /// Decompressed offset of `buf[hi]`.
    out_pos: u64,
    /// Inside a damaged stretch (already warned about).
    scanning: bool,
    label: Arc<str>,
    problems: usize,
}

impl<R: BufRead + Seek> GzMembers<R> {
    fn new(inner: Counted<R>, label: Arc<str>) -> Self {
        GzMembers {
            member_start: inner.pos,
            state: MemberState::Between(inner),
            pending: None,
            boundaries: VecDeque::new(),
            buf: vec![0; GZ_BUF],
            lo: 0,
            hi: 0,
            out_pos: 0,
            scanning: false,
            label,
            problems: 0,
        }
    }

    fn member_for(&mut self, pos: u64) -> Option<u64> {
        while self.boundaries.front().is_some_and(|&(d, _)| d < pos) {
            self.boundaries.pop_front();
        }
        self.boundaries
            .iter()
            .take_while(|&&(d, _)| d == pos)
            .last()
            .map(|&(_, c)| c)
    }

    fn commit_member(&mut self) {
        if let Some(b) = self.pending.take() {
            self.boundaries.push_back(b);
        }
        self.scanning = false;
    }

    /// Skip to the next `1f 8b`. Returns whether one was found and whether non-padding bytes
    /// were skipped on the way.
    fn seek_magic(r: &mut Counted<R>) -> io::Result<(bool, bool)> {
        let mut junk = false;
        loop {
            let data = r.fill_buf()?;
            if data.is_empty() {
                return Ok((false, junk));
            }
            let mut from = 0;
            let found = loop {
                match data[from..].iter().position(|&b| b == 0x1f) {
                    None => break None,
                    // A 0x1f at the buffer end is taken as a candidate; the decoder decides.
                    Some(j) if from + j + 1 == data.len() || data[from + j + 1] == 0x8b => {
                        break Some(from + j);
                    }
                    Some(j) => from += j + 1,
                }
            };
            let n = found.unwrap_or(data.len());
            junk |= data[..n]
                .iter()
                .any(|&b| b != 0 && !b.is_ascii_whitespace());
            r.consume(n);
            if found.is_some() {
                return Ok((true, junk));
            }
        }
    }
}

impl<R: BufRead + Seek> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let data = self.fill_buf()?;
            let n = data.len().min(buf.len());
            buf[..n].copy_from_slice(&data[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead + Seek> BufRead for GzMembers<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.lo >= self.hi {
            match std::mem::replace(&mut self.state, MemberState::Poisoned) {
                MemberState::Poisoned => return Ok(&[]),
                MemberState::Between(mut r) => {
                    let at = r.pos;
                    let found = Self::seek_magic(&mut r);
                    let skipped = r.pos - at;
                    match found {
                        Err(e) => {
                            self.state = MemberState::Between(r);
                            return Err(e);
                        }
                        Ok((found, junk)) => {
                            if junk && !self.scanning {
                                tracing::warn!(
                                    file = %self.label,
                                    "skipped {skipped} bytes of non-gzip data at offset {at}"
                                );
                                self.problems += 1;
                            }
                            if !found {
                                self.state = MemberState::Between(r);
                                return Ok(&[]);
                            }
                            self.member_start = r.pos;
                            self.pending = Some((self.out_pos, r.pos));
                            self.state = MemberState::Member(Box::new(GzDecoder::new(r)));
                        }
                    }
                }
                MemberState::Member(mut d) => match d.read(&mut self.buf) {
                    Ok(0) => {
                        self.commit_member();
                        self.state = MemberState::Between((*d).into_inner());
                    }
                    Ok(n) => {
                        self.commit_member();
                        self.lo = 0;
                        self.hi = n;
                        self.out_pos += n as u64;
                        self.state = MemberState::Member(d);
                    }
                    Err(e) => {
                        self.pending = None;
                        let start = self.member_start;
                        if !self.scanning {
                            tracing::warn!(
                                file = %self.label,
                                "gzip member at offset {start} is truncated or corrupt ({e}); \
                                 skipping to the next member"
                            );
                            self.problems += 1;
                        }
                        self.scanning = true;
                        let mut r = d.into_inner();
                        let seek = r.seek_to(start + 1);
                        self.state = MemberState::Between(r);
                        seek?;
                        return Err(invalid_data(format!(
                            "corrupt gzip member at offset {start}: {e}"
                        )));
                    }
                },
            }
        }
        Ok(&self.buf[self.lo..self.hi])
    }

    fn consume(&mut self, amt: usize) {
        self.lo = (self.lo + amt).min(self.hi);
    }
}

// ---------------------------------------------------------------------------------------
// WARC records
// ---------------------------------------------------------------------------------------

struct RecordHead {
    /// Decompressed offset of the version line.
    offset: u64,
    /// Compressed offset of the gzip member the record starts, when it starts one.
    member: Option<u64>,
    fields: Vec<(String, String)>,
    content_length: u64,
}

impl RecordHead {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Block {
    /// Decompressed offset of the block.
    offset: u64,
    /// The block, or its first [`BLOCK_PREFIX`] bytes when larger than [`MAX_BLOCK`].
    data: Vec<u8>,
    /// Whether `data` is the whole block.
    complete: bool,
}

enum BlockOutcome {
    Read(Block),
    /// The record was damaged and dropped; reading goes on.
    Dropped,
    /// The file ends inside the block.
    Eof,
}

/// Splits a decompressed WARC stream into records, skipping damage. Bytes can be pushed back
/// so that a block found to be mis-sized is searched for the next record.
struct RecordReader {
    inner: Stream,
    /// Decompressed offset of the next byte.
    pos: u64,
    pushback: Vec<u8>,
    pb: usize,
    resyncing: bool,
    label: Arc<str>,
    problems: usize,
}

/// Errors that mean "damaged data" rather than "the disk failed".
fn is_corrupt(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::UnexpectedEof
    )
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

fn is_version_line(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    t.len() <= 16
        && t.strip_prefix(b"WARC/")
            .is_some_and(|v| !v.is_empty() && v.iter().all(|b| b.is_ascii_digit() || *b == b'.'))
}

impl RecordReader {
    fn new(inner: Stream, label: Arc<str>) -> Self {
        RecordReader {
            inner,
            pos: 0,
            pushback: Vec::new(),
            pb: 0,
            resyncing: false,
            label,
            problems: 0,
        }
    }

    fn problems(&self) -> usize {
        self.problems + self.inner.problems()
    }

    fn problem(&mut self, msg: fmt::Arguments<'_>) {
        tracing::warn!(file = %self.label, "{msg}");
        self.problems += 1;
    }

    fn unread(&mut self, bytes: &[u8]) {
        let mut v = bytes.to_vec();
        v.extend_from_slice(&self.pushback[self.pb..]);
        self.pushback = v;
        self.pb = 0;
        self.pos -= bytes.len() as u64;
    }

    /// One line through `\n`, at most `cap` bytes. `Ok(false)` at end of input.
    fn read_line(&mut self, line: &mut Vec<u8>, cap: usize) -> io::Result<bool> {
        line.clear();
        loop {
            let data = self.fill_buf()?;
            if data.is_empty() {
                return Ok(!line.is_empty());
            }
            let room = cap - line.len();
            let (n, done) = match data.iter().take(room).position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => {
                    let n = data.len().min(room);
                    (n, n == room)
                }
            };
            line.extend_from_slice(&data[..n]);
            self.consume(n);
            if done {
                return Ok(true);
            }
        }
    }

    /// The next intact record with its block. `Ok(None)` at the end of the input; `Err`
    /// only for I/O failures (damage is skipped).
    fn next_record(&mut self) -> io::Result<Option<(RecordHead, Block)>> {
        loop {
            let Some(head) = self.next_head()? else {
                return Ok(None);
            };
            match self.read_block(&head)? {
                BlockOutcome::Read(block) => return Ok(Some((head, block))),
                BlockOutcome::Dropped => continue,
                BlockOutcome::Eof => return Ok(None),
            }
        }
    }

    fn next_head(&mut self) -> io::Result<Option<RecordHead>> {
        let mut line = Vec::new();
        'record: loop {
            let start = self.pos;
            match self.read_line(&mut line, MAX_LINE) {
                Ok(false) => return Ok(None),
                Ok(true) => {}
                Err(e) if is_corrupt(&e) => {
                    self.resyncing = true;
                    continue;
                }
                Err(e) => return Err(e),
            }
            if is_blank(&line) {
                continue;
            }
            if !is_version_line(&line) {
                if !self.resyncing {
                    self.problem(format_args!(
                        "unexpected data at offset {start}; skipping to the next WARC record"
                    ));
                    self.resyncing = true;
                }
                // Garbage without a final line break runs into the next version line.
                if let Some(k) = find(&line, b"WARC/1.").filter(|&k| is_version_line(&line[k..])) {
                    let rest = line[k..].to_vec();
                    self.unread(&rest);
                }
                continue;
            }
            self.resyncing = false;
            let member = self.inner.member_for(start);
            let mut fields: Vec<(String, String)> = Vec::new();
            let mut header_bytes = line.len();
            loop {
                let line_start = self.pos;
                match self.read_line(&mut line, MAX_LINE) {
                    Ok(false) => {
                        self.problem(format_args!(
                            "WARC record at offset {start} is truncated inside its header"
                        ));
                        return Ok(None);
                    }
                    Ok(true) => {}
                    Err(e) if is_corrupt(&e) => {
                        self.problem(format_args!(
                            "WARC record at offset {start} is damaged inside its header; skipped"
                        ));
                        self.resyncing = true;
                        continue 'record;
                    }
                    Err(e) => return Err(e),
                }
                header_bytes += line.len();
                if is_blank(&line) {
                    break;
                }
                if is_version_line(&line) {
                    self.problem(format_args!(
                        "WARC record at offset {start} has an unterminated header; \
                         a new record starts at {line_start}"
                    ));
                    let l = std::mem::take(&mut line);
                    self.unread(&l);
                    continue 'record;
                }
                let text = String::from_utf8_lossy(&line);
                let malformed = header_bytes > MAX_HEADER_BYTES || !line.ends_with(b"\n");
                if !malformed && text.starts_with([' ', '\t']) {
                    if let Some(last) = fields.last_mut() {
                        last.1.push(' ');
                        last.1.push_str(text.trim());
                        continue;
                    }
                }
                match text.split_once(':') {
                    Some((name, value)) if !malformed && !name.trim().is_empty() => {
                        fields.push((name.trim().to_string(), value.trim().to_string()));
                    }
                    _ => {
                        self.problem(format_args!(
                            "WARC record at offset {start} has a malformed header line at \
                             offset {line_start}; skipped"
                        ));
                        self.resyncing = true;
                        continue 'record;
                    }
                }
            }
            let content_length = fields
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
                .and_then(|(_, v)| v.trim().parse::<u64>().ok());
            let Some(content_length) = content_length else {
                self.problem(format_args!(
                    "WARC record at offset {start} has no valid Content-Length; skipped"
                ));
                self.resyncing = true;
                continue;
            };
            return Ok(Some(RecordHead {
                offset: start,
                member,
                fields,
                content_length,
            }));
        }
    }

    fn read_block(&mut self, head: &RecordHead) -> io::Result<BlockOutcome> {
        let offset = self.pos;
        let len = head.content_length;
        let keep = if len <= MAX_BLOCK { len } else { BLOCK_PREFIX };
        let mut data = Vec::with_capacity(keep.min(1 << 20) as usize);
        let mut result = self.by_ref().take(keep).read_to_end(&mut data).map(|_| ());
        let mut got = data.len() as u64;
        if result.is_ok() && got == keep && len > keep {
            result = io::copy(&mut self.by_ref().take(len - keep), &mut io::sink())
                .map(|skipped| got += skipped);
        }
        let what = || {
            head.field("WARC-Target-URI")
                .map(|u| format!(" ({u})"))
                .unwrap_or_default()
        };
        match result {
            Err(e) if is_corrupt(&e) => {
                let what = what();
                self.problem(format_args!(
                    "WARC record at offset {}{what} is damaged; skipped",
                    head.offset
                ));
                self.resyncing = true;
                return Ok(BlockOutcome::Dropped);
            }
            Err(e) => return Err(e),
            Ok(()) if got < len => {
                let what = what();
                self.problem(format_args!(
                    "WARC record at offset {}{what} is truncated: {got} of {len} block bytes; \
                     skipped",
                    head.offset
                ));
                // A Content-Length far too large looks the same as a truncated file: search
                // what was read for further records before giving up.
                if data.len() as u64 == got {
                    self.unread(&data);
                    self.resyncing = true;
                    return Ok(BlockOutcome::Dropped);
                }
                return Ok(BlockOutcome::Eof);
            }
            Ok(()) => {}
        }
        // The block must be followed by CRLF CRLF and then the next record or the end. If
        // it is not, Content-Length is wrong: drop the record and look for the next one
        // inside what was taken as its block.
        let mut tail = Vec::new();
        let aligned = loop {
            let data = match self.fill_buf() {
                Ok(d) => d,
                Err(e) if is_corrupt(&e) => {
                    self.resyncing = true;
                    break true;
                }
                Err(e) => return Err(e),
            };
            match data.first() {
                None | Some(b'W') => break true,
                _ if tail.len() >= 4 => break true,
                Some(&b @ (b'\r' | b'\n')) => {
                    tail.push(b);
                    self.consume(1);
                }
                Some(_) => break false,
            }
        };
        let complete = data.len() as u64 == len;
        if !aligned {
            let what = what();
            self.problem(format_args!(
                "WARC record at offset {}{what} does not end where its Content-Length says; \
                 skipped",
                head.offset
            ));
            if complete {
                data.extend_from_slice(&tail);
                self.unread(&data);
            }
            self.resyncing = true;
            return Ok(BlockOutcome::Dropped);
        }
        Ok(BlockOutcome::Read(Block {
            offset,
            data,
            complete,
        }))
    }
}

impl Read for RecordReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let data = self.fill_buf()?;
            let n = data.len().min(buf.len());
            buf[..n].copy_from_slice(&data[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for RecordReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pb < self.pushback.len() {
            Ok(&self.pushback[self.pb..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, amt: usize) {
        if self.pb < self.pushback.len() {
            self.pb = (self.pb + amt).min(self.pushback.len());
            if self.pb == self.pushback.len() {
                self.pushback.clear();
                self.pb = 0;
            }
        } else {
            self.inner.consume(amt);
        }
        self.pos += amt as u64;
    }
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

/// Writes WARC/1.1 records; with gzip, each record is its own gzip member (the standard
/// `.warc.gz` layout that allows seeking to a record).
pub struct WarcWriter<W: Write> {
    out: W,
    gzip: bool,
    records: u64,
    seed: u64,
}

impl<W: Write> fmt::Debug for WarcWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarcWriter")
            .field("gzip", &self.gzip)
            .field("records", &self.records)
            .finish()
    }
}

impl WarcWriter<BufWriter<File>> {
    /// Create (or truncate) the file at `path`.
    pub fn create(path: impl AsRef<Path>, gzip: bool) -> io::Result<Self> {
        Ok(Self::new(BufWriter::new(File::create(path)?), gzip))
    }
}

impl<W: Write> WarcWriter<W> {
    /// A writer onto `out`, gzip-compressing each record when `gzip` is set.
    pub fn new(out: W, gzip: bool) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        WarcWriter {
            out,
            gzip,
            records: 0,
            seed: nanos ^ (u64::from(std::process::id()) << 32),
        }
    }

    /// Number of records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Write a `warcinfo` record with `software` and `format` plus the given fields.
    pub fn write_warcinfo(&mut self, fields: &[(&str, &str)]) -> io::Result<()> {
        let mut block = String::from("software: templex\r\nformat: WARC File Format 1.1\r\n");
        for (name, value) in fields {
            check_header(name, value)?;
            block.push_str(&format!("{name}: {value}\r\n"));
        }
        self.write_record(
            "warcinfo",
            None,
            "application/warc-fields",
            block.as_bytes(),
        )
    }

    /// Write a `response` record for a `200 OK` HTML page, with `text/html` and, if given,
    /// `; charset=…` as its Content-Type.
    pub fn write_response(
        &mut self,
        uri: &str,
        body: &[u8],
        charset: Option<&str>,
    ) -> io::Result<()> {
        let content_type = match charset {
            Some(c) => format!("text/html; charset={c}"),
            None => "text/html".to_string(),
        };
        self.write_http_response(uri, 200, &[("Content-Type", &content_type)], body)
    }

    /// Write a `response` record with an arbitrary status and headers (redirects, images,
    /// chunked or compressed bodies in tests). `Content-Length` is added unless given; the
    /// body is written as is.
    pub fn write_http_response(
        &mut self,
        uri: &str,
        status: u16,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status));
        for (name, value) in headers {
            check_header(name, value)?;
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
            && !headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("Transfer-Encoding"))
        {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        let mut block = head.into_bytes();
        block.extend_from_slice(body);
        self.write_record(
            "response",
            Some(uri),
            "application/http; msgtype=response",
            &block,
        )
    }

    /// Write a `resource` record: the block is the document itself.
    pub fn write_resource(&mut self, uri: &str, content_type: &str, body: &[u8]) -> io::Result<()> {
        self.write_record("resource", Some(uri), content_type, body)
    }

    /// Write one record of any type with the given block.
    pub fn write_record(
        &mut self,
        warc_type: &str,
        target_uri: Option<&str>,
        content_type: &str,
        block: &[u8],
    ) -> io::Result<()> {
        check_header("WARC-Type", warc_type)?;
        check_header("Content-Type", content_type)?;
        let mut head = String::from("WARC/1.1\r\n");
        head.push_str(&format!("WARC-Type: {warc_type}\r\n"));
        head.push_str(&format!(
            "WARC-Record-ID: <urn:uuid:{}>\r\n",
            self.record_id(warc_type, target_uri.unwrap_or(""))
        ));
        head.push_str(&format!("WARC-Date: {}\r\n", warc_date_now()));
        if let Some(uri) = target_uri {
            check_header("WARC-Target-URI", uri)?;
            head.push_str(&format!("WARC-Target-URI: {uri}\r\n"));
        }
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
        head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
        if self.gzip {
            let mut gz =
                flate2::write::GzEncoder::new(&mut self.out, flate2::Compression::default());
            gz.write_all(head.as_bytes())?;
            gz.write_all(block)?;
            gz.write_all(b"\r\n\r\n")?;
            gz.finish()?;
        } else {
            self.out.write_all(head.as_bytes())?;
            self.out.write_all(block)?;
            self.out.write_all(b"\r\n\r\n")?;
        }
        self.records += 1;
        Ok(())
    }

    /// Flush and return the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// A UUID-shaped id from a hash; unique enough for record ids without a uuid crate.
    fn record_id(&self, warc_type: &str, uri: &str) -> String {
        let hash = |salt: u64| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (salt, self.seed, self.records, warc_type, uri).hash(&mut h);
            h.finish()
        };
        let (a, b) = (hash(1), hash(2));
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0x0fff,
            (b >> 48) & 0x3fff | 0x8000,
            b & 0xffff_ffff_ffff
        )
    }
}

fn check_header(name: &str, value: &str) -> io::Result<()> {
    if name.contains(['\r', '\n', ':']) || value.contains(['\r', '\n']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("line break in WARC/HTTP header {name:?}"),
        ));
    }
    Ok(())
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

/// Now as a WARC-Date (`YYYY-MM-DDThh:mm:ssZ`, UTC), without a date crate.
fn warc_date_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Characters escaped in a path segment built from a file name.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Write every HTML file of a site mirror (names ending in `.html`/`.htm`, or wget's
/// `….html@query` names) under `dir` as a `response` record with URI
/// `https://{url_prefix}/{relative path}` (`url_prefix` may be `host`, `host/sub`, or carry
/// its own scheme). A `warcinfo` record comes first. Returns the number of pages written.
pub fn write_mirror_to_warc(
    dir: impl AsRef<Path>,
    url_prefix: &str,
    out_path: impl AsRef<Path>,
    gzip: bool,
) -> io::Result<usize> {
    let mut writer = WarcWriter::create(out_path, gzip)?;
    let prefix = url_prefix.trim().trim_end_matches('/');
    writer.write_warcinfo(&[("description", &format!("site mirror written as {prefix}/"))])?;
    let n = append_mirror(&mut writer, dir, url_prefix)?;
    writer.finish()?;
    Ok(n)
}

/// Append every HTML file of a site mirror to an open WARC writer, as
/// [`write_mirror_to_warc`] does (no `warcinfo` record); for WARCs of several sites.
/// Returns the number of pages written.
pub fn append_mirror<W: Write>(
    writer: &mut WarcWriter<W>,
    dir: impl AsRef<Path>,
    url_prefix: &str,
) -> io::Result<usize> {
    let dir = dir.as_ref();
    let prefix = url_prefix.trim().trim_end_matches('/');
    let base = if prefix.contains("://") {
        prefix.to_string()
    } else {
        format!("https://{prefix}")
    };
    let mut files = Vec::new();
    collect_html_files(dir, &mut Vec::new(), &mut files)?;
    files.sort();
    for segments in &files {
        let rel: PathBuf = segments.iter().collect();
        let body = std::fs::read(dir.join(&rel))?;
        let path = segments
            .iter()
            .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
            .collect::<Vec<_>>()
            .join("/");
        writer.write_response(&format!("{base}/{path}"), &body, None)?;
    }
    Ok(files.len())
}

/// Relative paths (as UTF-8 segments) of the HTML files below `dir`. Symlinked directories
/// are not followed (no cycles); names that are not UTF-8 cannot become URLs and are skipped.
fn collect_html_files(
    dir: &Path,
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            tracing::warn!(path = %entry.path().display(), "non-UTF-8 file name skipped");
            continue;
        };
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            prefix.push(name);
            collect_html_files(&entry.path(), prefix, out)?;
            prefix.pop();
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let html = lower.ends_with(".html")
            || lower.ends_with(".htm")
            || lower.contains(".html@")
            || lower.contains(".htm@");
        if html && entry.path().is_file() {
            let mut segments = prefix.clone();
            segments.push(name);
            out.push(segments);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunks() {
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n").ok(),
            Some(b"abcde".to_vec())
        );
        assert!(dechunk(b"<html>").is_err());
        let (partial, _) = dechunk(b"3\r\nabc\r\n5\r\nde").unwrap_err();
        assert_eq!(partial, b"abcde");
    }

    #[test]
    fn http_head_is_lenient() {
        let block = b"HTTP/1.0 301 Moved\nLocation: /x\n  y\n\nbody";
        let h = parse_http_head(block).unwrap();
        assert_eq!(h.status, 301);
        assert_eq!(h.header("location"), Some("/x y"));
        assert_eq!(&block[h.body_start..], b"body");
        assert!(parse_http_head(b"garbage").is_none());
    }

    #[test]
    fn version_lines() {
        assert!(is_version_line(b"WARC/1.0\r\n"));
        assert!(is_version_line(b"WARC/1.1\n"));
        assert!(!is_version_line(b"WARC/1.1 and more\r\n"));
        assert!(!is_version_line(b"WARC-Type: response\r\n"));
    }

    #[test]
    fn warc_date_shape() {
        let d = warc_date_now();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.ends_with('Z') && d.as_bytes()[10] == b'T');
    }
}
