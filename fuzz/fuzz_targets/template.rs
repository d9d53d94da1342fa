//! Site-level template extraction over a small in-memory site made from the input.
//!
//! Input: a control byte, then up to four pages separated by `templex_fuzz::PAGE_SEPARATOR`
//! (variations of the first page fill up a one-page input). Page k is
//! `https://fuzz.example/k.html`, page 0 is the key page. Control byte: bits 0-2 the method
//! (HybEx, the default, on half the values; then TemEx, SITELEVEL, table chunks, PAGELEVEL,
//! main content); bit 3: append a menu linking every page to the others (so that the
//! sibling search finds a complete subdigraph and the mapping runs even when the fuzzer's
//! links lead nowhere); bit 4: no PAGELEVEL fallback; bit 5: the pages declare windows-1252
//! as transport charset.
#![no_main]

use libfuzzer_sys::fuzz_target;
use templex::Method;
use templex::extract::ContentConfig;
use templex::output::{annotated_html, template_html, template_report};
use templex::source::MemorySource;
use templex::template::{TemplateConfig, extract_template};
use url::Url;

const METHODS: [Method; 8] = [
    Method::HybEx,
    Method::HybEx,
    Method::HybEx,
    Method::TemEx,
    Method::SiteLevel,
    Method::TableChunk,
    Method::PageLevel,
    Method::MainContent,
];

fuzz_target!(|data: &[u8]| {
    let (control, rest) = templex_fuzz::control(data);
    let pages = templex_fuzz::split_pages(rest, 3, 4);
    let urls: Vec<Url> = (0..pages.len())
        .map(|k| Url::parse(&format!("https://fuzz.example/{k}.html")).unwrap())
        .collect();
    let mut source = MemorySource::new();
    for (k, page) in pages.into_iter().enumerate() {
        let mut body = page;
        if control & 8 != 0 {
            body.extend_from_slice(b"<nav>");
            for (j, u) in urls.iter().enumerate() {
                if j != k {
                    body.extend_from_slice(format!("<a href=\"{u}\">page {j}</a>").as_bytes());
                }
            }
            body.extend_from_slice(b"</nav>");
        }
        if control & 32 != 0 {
            source.insert_with_charset(&urls[k], body, "windows-1252");
        } else {
            source.insert(&urls[k], body);
        }
    }
    let method = METHODS[(control & 7) as usize];
    let config = TemplateConfig {
        fallback: control & 16 == 0,
        ..TemplateConfig::for_method(method)
    };
    let Ok(result) = extract_template(&source, &urls[0], &config) else {
        return;
    };
    let _ = template_report(&result);
    let _ = annotated_html(&result.doc, &result.template);
    let _ = template_html(&result.doc, &result.template, &result.key_url);
    let content = result.content(&ContentConfig::default());
    let _ = content.text();
    let _ = content.markdown();
});
