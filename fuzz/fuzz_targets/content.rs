//! Page-level main content of arbitrary bytes, rendered as text, Markdown and HTML. Input: a
//! control byte (bits 0-2: transport charset; bit 3: keep comments; bit 4: no captions
//! dropped, no labels dropped), then the page bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    templex_fuzz::run_content(data);
});
