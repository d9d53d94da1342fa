//! Page-level main content of arbitrary bytes, rendered as text, Markdown and HTML. Input: a
//! control byte (bits 0-2: transport charset; bit 3: keep comments; bit 4: no captions
//! dropped, no labels dropped), then the page bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use templex::extract::ContentConfig;
use templex::{PageHints, extract_page};

fuzz_target!(|data: &[u8]| {
    let (control, body) = templex_fuzz::control(data);
    let hints = PageHints {
        url: Some(url::Url::parse("https://fuzz.example/dir/page.html").unwrap()),
        charset: templex_fuzz::charset(control).map(str::to_string),
    };
    let config = ContentConfig {
        comments: control & 8 != 0,
        drop_captions: control & 16 == 0,
        drop_labels: control & 16 == 0,
        ..ContentConfig::default()
    };
    // Budgets and refusals (not HTML) are answers too; only panics and hangs are findings.
    let Ok(page) = extract_page(body, &hints, &config, &templex::Budget::default()) else {
        return;
    };
    let _ = page.text();
    let _ = page.markdown();
    let _ = page.html();
    let _ = page.title();
});
