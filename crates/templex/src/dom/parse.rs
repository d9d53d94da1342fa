//! Parsing entry points: bytes or text → [`Document`], through html5gum's tokenizer and
//! html5ever's tree builder (`tokenize.rs`) into the arena sink (`sink.rs`).

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{ParseOpts, parse_document};

use super::decode::decode;
use super::sink::Sink;
use super::tree::Document;

/// Parse a page from bytes: decode (see [`super::decode()`]), then parse as HTML.
///
/// Never fails: any byte sequence yields a document (possibly `<html><head></head><body>`).
pub fn parse_bytes(bytes: &[u8], transport_charset: Option<&str>) -> Document {
    let decoded = decode(bytes, transport_charset);
    let mut doc = parse_str(&decoded.text);
    doc.encoding = decoded.encoding;
    doc.encoding_source = decoded.source;
    doc
}

/// Parse a page that is already text.
///
/// html5gum tokenizes and html5ever builds the tree (see `dom/tokenize.rs`); the tree is
/// the one [`parse_str_html5ever`] builds, faster.
pub fn parse_str(html: &str) -> Document {
    super::tokenize::parse_document(Sink::for_input(html, usize::MAX), html, true).0
}

/// Parse a page that is already text with html5ever's own tokenizer: the reference
/// [`parse_str`] is tested against, about a third slower.
pub fn parse_str_html5ever(html: &str) -> Document {
    parse_document(Sink::default(), ParseOpts::default()).one(StrTendril::from_slice(html))
}
