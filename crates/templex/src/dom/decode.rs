//! Byte-to-text decoding: BOM, then the transport charset, then a `<meta charset>` prescan,
//! then a statistical detector (chardetng).
//!
//! Declarations on the web are often wrong, so a declared encoding is checked against the
//! bytes: UTF-8 declared over bytes that are not UTF-8 falls through to the detector (unless
//! only a few sequences are malformed among many valid ones: a cut character), and any
//! legacy encoding (windows-125x, GB2312/GBK, Big5, Shift_JIS, EUC-KR…) declared over bytes
//! that are valid multi-byte UTF-8 is taken as UTF-8: valid UTF-8 sequences almost never
//! occur by chance in legacy text, single-byte or multi-byte (a GBK or Shift_JIS lead byte is
//! followed by bytes UTF-8 does not allow there), while CMS templates that declare `gb2312`
//! over UTF-8 output are common.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use serde::Serialize;

/// How many bytes the `<meta>` prescan looks at. The WHATWG algorithm says 1024; real pages
/// often put long scripts first, so templex looks further, as browsers effectively do when
/// they reparse.
const PRESCAN_LIMIT: usize = 4096;

/// Where the chosen encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EncodingSource {
    /// A byte order mark.
    Bom,
    /// The transport layer (HTTP `Content-Type`, WARC record header).
    Transport,
    /// A `<meta charset>` or `<meta http-equiv=content-type>` declaration.
    Meta,
    /// The chardetng detector (nothing declared, or the declaration was contradicted).
    Detected,
}

/// The result of decoding a page.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The decoded text (malformed sequences replaced by U+FFFD).
    pub text: Cow<'a, str>,
    /// The encoding used.
    pub encoding: &'static Encoding,
    /// Why that encoding was used.
    pub source: EncodingSource,
}

/// Decode `bytes` to text following the order described in the module docs.
pub fn decode<'a>(bytes: &'a [u8], transport_charset: Option<&str>) -> Decoded<'a> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return Decoded {
            text,
            encoding: enc,
            source: EncodingSource::Bom,
        };
    }
    let declared = transport_charset
        .and_then(|c| Encoding::for_label(c.trim().as_bytes()))
        .map(|e| (e, EncodingSource::Transport))
        .or_else(|| prescan_meta_charset(bytes).map(|e| (e, EncodingSource::Meta)));
    if let Some((enc, source)) = declared {
        let enc = html_compatible(enc);
        if enc == UTF_8 {
            if let Some(text) = mostly_utf8(bytes) {
                return Decoded {
                    text,
                    encoding: UTF_8,
                    source,
                };
            }
            // Declared UTF-8, but it is not: the detector knows better.
        } else if let Some(text) = mostly_utf8(bytes).filter(|_| !bytes.is_ascii()) {
            return Decoded {
                text,
                encoding: UTF_8,
                source: EncodingSource::Detected,
            };
        } else {
            let (text, _) = enc.decode_without_bom_handling(bytes);
            return Decoded {
                text,
                encoding: enc,
                source,
            };
        }
    }
    if let Some(text) = mostly_utf8(bytes) {
        // Pure ASCII or (nearly) valid UTF-8: nothing to detect.
        return Decoded {
            text,
            encoding: UTF_8,
            source: EncodingSource::Detected,
        };
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let enc = html_compatible(detector.guess(None, chardetng::Utf8Detection::Allow));
    let (text, _) = enc.decode_without_bom_handling(bytes);
    Decoded {
        text,
        encoding: enc,
        source: EncodingSource::Detected,
    }
}

/// The WHATWG rules map some labels to other encodings when they come from HTML
/// (UTF-16 declared inside an ASCII-compatible byte stream is a lie; x-user-defined is 1252).
fn html_compatible(enc: &'static Encoding) -> &'static Encoding {
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        UTF_8
    } else if enc == encoding_rs::X_USER_DEFINED || enc == encoding_rs::REPLACEMENT {
        WINDOWS_1252
    } else {
        enc
    }
}

/// UTF-8, but for a few malformed sequences: a server that cut a string in the middle of
/// a character, a snippet pasted in another charset. Each malformed sequence must come with
/// at least [`UTF8_PER_ERROR`] valid multi-byte characters. Legacy text makes valid
/// multi-byte UTF-8 by chance rarely: never in the single-byte charsets' letters, and in
/// GBK on about one character in ten (a GBK page in trafilatura-eval has 0.28 valid per
/// malformed), while UTF-8 pages with a cut character have 25 to 500 (ibid.).
///
/// The text (malformed sequences replaced by U+FFFD), or `None` when the bytes are not UTF-8.
fn mostly_utf8(bytes: &[u8]) -> Option<Cow<'_, str>> {
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        return Some(Cow::Borrowed(s));
    }
    let (mut valid, mut malformed) = (0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        valid += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        malformed += usize::from(!chunk.invalid().is_empty());
    }
    (valid >= UTF8_PER_ERROR * malformed).then(|| String::from_utf8_lossy(bytes))
}

/// Valid multi-byte characters per malformed sequence for text to be read as UTF-8
/// ([`mostly_utf8`]): between GBK's 0.28 and the cut pages' 25 and up.
const UTF8_PER_ERROR: usize = 8;

/// A prescan for `<meta charset=…>` and `<meta http-equiv="content-type" content="…charset=…">`
/// in the first bytes of a document, skipping comments, in the spirit of the WHATWG
/// "prescan a byte stream to determine its encoding" algorithm.
pub(crate) fn prescan_meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let b = &bytes[..bytes.len().min(PRESCAN_LIMIT)];
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"<!--") {
            i = find(b, i + 4, b"-->").map_or(b.len(), |p| p + 3);
            continue;
        }
        if b[i] == b'<' && b.len() > i + 5 && b[i + 1..i + 5].eq_ignore_ascii_case(b"meta") {
            let after = b[i + 5];
            if after.is_ascii_whitespace() || after == b'/' {
                let (attrs, next) = parse_attributes(b, i + 5);
                if let Some(enc) = meta_encoding(&attrs) {
                    return Some(enc);
                }
                i = next;
                continue;
            }
        }
        if b[i] == b'<'
            && b.get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'/')
        {
            // Skip other tags, with their attributes, so that `charset=` inside them is ignored.
            let start = if b[i + 1] == b'/' { i + 2 } else { i + 1 };
            let mut j = start;
            while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' {
                j += 1;
            }
            let (_, next) = parse_attributes(b, j);
            i = next;
            continue;
        }
        if b[i] == b'<' && matches!(b.get(i + 1), Some(b'!' | b'?')) {
            i = find(b, i, b">").map_or(b.len(), |p| p + 1);
            continue;
        }
        i += 1;
    }
    None
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// A lower-cased attribute name and its raw value.
type RawAttr = (Vec<u8>, Vec<u8>);

/// Parse attributes from `i` up to the closing `>`; returns them (lower-cased names) and the
/// position after the tag.
fn parse_attributes(b: &[u8], mut i: usize) -> (Vec<RawAttr>, usize) {
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() {
            return (attrs, i);
        }
        if b[i] == b'>' {
            return (attrs, i + 1);
        }
        let name_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = b[name_start..i].to_ascii_lowercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = Vec::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                i += 1;
                let vs = i;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
                value = b[vs..i].to_vec();
                i = (i + 1).min(b.len());
            } else {
                let vs = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                    i += 1;
                }
                value = b[vs..i].to_vec();
            }
        }
        if name.is_empty() {
            i += 1;
        } else {
            attrs.push((name, value));
        }
    }
}

fn meta_encoding(attrs: &[RawAttr]) -> Option<&'static Encoding> {
    let get = |n: &[u8]| {
        attrs
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.as_slice())
    };
    if let Some(cs) = get(b"charset") {
        return Encoding::for_label(trim_ascii(cs));
    }
    let is_content_type =
        get(b"http-equiv").is_some_and(|v| trim_ascii(v).eq_ignore_ascii_case(b"content-type"));
    if is_content_type {
        return get(b"content").and_then(charset_from_content);
    }
    None
}

/// Extract `charset=…` from a `content` attribute value.
fn charset_from_content(content: &[u8]) -> Option<&'static Encoding> {
    let lower = content.to_ascii_lowercase();
    let pos = find(&lower, 0, b"charset")?;
    let mut i = pos + 7;
    while i < content.len() && content[i].is_ascii_whitespace() {
        i += 1;
    }
    if content.get(i) != Some(&b'=') {
        return None;
    }
    i += 1;
    while i < content.len() && content[i].is_ascii_whitespace() {
        i += 1;
    }
    let rest = &content[i..];
    let value = match rest.first() {
        Some(q @ (b'"' | b'\'')) => {
            let inner = &rest[1..];
            &inner[..inner.iter().position(|c| c == q)?]
        }
        _ => {
            let end = rest
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b';')
                .unwrap_or(rest.len());
            &rest[..end]
        }
    };
    Encoding::for_label(value)
}

fn trim_ascii(v: &[u8]) -> &[u8] {
    v.trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins_over_everything() {
        let mut b = vec![0xEF, 0xBB, 0xBF];
        b.extend_from_slice("<meta charset=windows-1252>é".as_bytes());
        let d = decode(&b, Some("iso-8859-1"));
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.source, EncodingSource::Bom);
        assert!(d.text.ends_with('é'));
    }

    #[test]
    fn transport_then_meta() {
        let b = b"<meta charset=\"windows-1252\"><p>caf\xe9</p>";
        let d = decode(b, None);
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.source, EncodingSource::Meta);
        assert!(d.text.contains("café"));
        let d = decode(b, Some("ISO-8859-1"));
        assert_eq!(d.source, EncodingSource::Transport);
    }

    #[test]
    fn http_equiv_content_type() {
        let b =
            b"<html><head><META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Shift_JIS'>";
        assert_eq!(prescan_meta_charset(b), Some(encoding_rs::SHIFT_JIS));
    }

    #[test]
    fn meta_in_comment_or_attribute_ignored() {
        let b = b"<!-- <meta charset=koi8-r> --><div title='charset=koi8-r'></div>";
        assert_eq!(prescan_meta_charset(b), None);
    }

    #[test]
    fn wrong_utf8_declaration_is_detected() {
        let b = b"<meta charset=utf-8><p>Stra\xdfe und Gr\xfc\xdfe aus K\xf6ln, sch\xf6ne Gr\xfc\xdfe</p>";
        let d = decode(b, None);
        assert_ne!(d.encoding, UTF_8);
        assert!(d.text.contains("Straße"));
    }

    #[test]
    fn utf8_under_legacy_declaration() {
        let b = "<meta charset=iso-8859-1><p>café Zoë</p>".as_bytes();
        let d = decode(b, None);
        assert_eq!(d.encoding, UTF_8);
        assert!(d.text.contains("café Zoë"));
    }

    /// A UTF-8 page with a character cut in two (a server that truncated a teaser by bytes)
    /// is still UTF-8: one U+FFFD, not mojibake all over; under any declaration or none.
    #[test]
    fn utf8_with_a_cut_character_stays_utf8() {
        let text = "Kolejne organizacje sprzeciwiają się atakom. Specjalną uchwałę przyjęło \
                    Stowarzyszenie na Rzecz Zrównoważonego Rozwoju Polski.";
        for head in ["<meta charset=utf-8>", "<meta charset=windows-1250>", ""] {
            let mut b = format!("{head}<p>{text}</p><p>papieros").into_bytes();
            b.push(0xc3);
            b.extend_from_slice(b"...</p>");
            let d = decode(&b, None);
            assert_eq!(d.encoding, UTF_8, "{head}");
            assert!(d.text.contains(text), "{head}: {}", d.text);
            assert!(d.text.contains("papieros\u{fffd}..."), "{head}");
        }
    }

    /// GBK text makes valid two-byte UTF-8 by chance now and then: still GBK.
    #[test]
    fn gbk_with_chance_utf8_pairs_is_gbk() {
        let text = "<p>新华网北京电 国务院总理温家宝主持召开国务院常务会议，研究部署进一步做好节能减排工作。\
                    会议指出，今年以来各地区各部门认真贯彻落实中央的决策部署。</p>";
        let (bytes, _, _) = encoding_rs::GBK.encode(text);
        assert!(std::str::from_utf8(&bytes).is_err());
        for declared in [Some("utf-8"), Some("gbk"), None] {
            let d = decode(&bytes, declared);
            assert_ne!(d.encoding, UTF_8, "{declared:?}");
            assert!(d.text.contains("温家宝"), "{declared:?}");
        }
    }

    #[test]
    fn undeclared_shift_jis_detected() {
        let (bytes, _, _) = encoding_rs::SHIFT_JIS
            .encode("<p>日本語のテキストです。これはテストのページです。</p>");
        let d = decode(&bytes, None);
        assert_eq!(d.encoding, encoding_rs::SHIFT_JIS);
        assert!(d.text.contains("日本語"));
    }
}
