//! Writing WARC files: [`WarcWriter`], and site mirrors written as WARCs.

use std::fmt;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

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
    fn warc_date_shape() {
        let d = warc_date_now();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.ends_with('Z') && d.as_bytes()[10] == b'T');
    }
}
