//! Record payloads: what a record means for page loading, and the page body of an HTTP
//! response (lenient head parsing, chunked transfer and content codings undone).

use std::io::Read;

use url::Url;

use super::records::{Block, RecordHead};
use super::{MAX_DECODED, find};
use crate::source::{is_html_media_type, parse_content_type};

pub(super) struct Classified {
    pub(super) url: Url,
    pub(super) kind: Kind,
}

pub(super) enum Kind {
    Page {
        media: String,
        charset: Option<String>,
        http: bool,
    },
    Redirect(Url),
}

/// The record's `WARC-Target-URI`, without the `<>` some writers add and without fragment.
pub(super) fn target_uri(head: &RecordHead) -> Option<Url> {
    let raw = head.field("WARC-Target-URI")?.trim();
    let raw = raw.strip_prefix('<').unwrap_or(raw);
    let raw = raw.strip_suffix('>').unwrap_or(raw);
    let mut url = Url::parse(raw.trim()).ok()?;
    url.set_fragment(None);
    Some(url)
}

/// What a record means for page loading, if anything.
pub(super) fn classify(head: &RecordHead, block: &Block) -> Option<Classified> {
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

/// The page body of a record block: the block itself for resources, the decoded HTTP body
/// for responses.
pub(super) fn page_body(block: &[u8], http: bool, url: &Url) -> Vec<u8> {
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
}
