//! The index: [`WarcSource`], a WARC file as a page source with random access by URL.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use url::{Position, Url};

use super::gzip::open_stream;
use super::payload::{Kind, classify, page_body, target_uri};
use super::records::RecordReader;
use super::{MAX_BLOCK, MAX_REDIRECTS, invalid_data};
use crate::source::{LoadCounter, LoadError, LoadStats, Page, PageSource};

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
