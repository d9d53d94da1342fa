//! Parsing arbitrary bytes: the three parsers (full, lean, text-only), serialization,
//! signatures, the visible-text walk, and the binary sniffer. Input: a control byte (the
//! transport charset, see `templex_fuzz::charset`), then the page bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use templex::dom::{self, Document, NodeId};

fn exercise(doc: &Document) -> String {
    let html = doc.to_html();
    let sigs = doc.signatures();
    std::hint::black_box(&sigs);
    let _ = doc.visible_text(NodeId::ROOT);
    let _ = doc.title();
    if let Some(body) = doc.body() {
        let _ = doc.dom_path(body);
    }
    html
}

fuzz_target!(|data: &[u8]| {
    let (control, body) = templex_fuzz::control(data);
    let charset = templex_fuzz::charset(control);
    let _ = dom::not_html(body);
    let html = exercise(&dom::parse_bytes(body, charset));
    exercise(&dom::parse_bytes_lean(body, charset));
    exercise(&dom::parse_bytes_text(body, charset));
    // What the full parser serializes must parse again.
    std::hint::black_box(dom::parse_str(&html).len());
});
