//! Parsing arbitrary bytes: the three parsers (full, lean, text-only), serialization,
//! signatures, the visible-text walk, and the binary sniffer. Input: a control byte (the
//! transport charset, see `templex_fuzz::charset`), then the page bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    templex_fuzz::run_parse(data);
});
