//! Batch mode (`templex::batch::run_records`, in-memory template store and sink) over a
//! small WARC made from the input.
//!
//! Input: a control byte, then the data. Control byte: bit 0 set, the data are the WARC file
//! itself; clear, they are up to six pages separated by `templex_fuzz::PAGE_SEPARATOR`,
//! written with the library's `WarcWriter` as responses (bit 1: gzipped per record; bit 4:
//! the pages alternate between two hosts, else one; bit 5: a `windows-1252` charset in the
//! HTTP header). Bits 2-3: the method (table chunks, HybEx, SITELEVEL, main content).
//! Settings small enough that a few pages learn a template (min_pages 2) and that later
//! pages get it applied (window 3).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    templex_fuzz::run_batch(data, &templex_fuzz::scratch_dir());
});
