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

fuzz_target!(|data: &[u8]| {
    templex_fuzz::run_template(data);
});
