//! The WARC readers on arbitrary files: the indexing source (`WarcSource::open`, then every
//! indexed page loaded, which seeks, inflates one gzip member and decodes the HTTP payload:
//! chunked, gzip, deflate, brotli) and the streaming reader (`read_warc_pages`).
//!
//! Input: a control byte, then the file. Control byte mod 3: 0, the bytes are the file as
//! they are; 1, they are gzipped as one stream (a `.warc.gz` not compressed per record,
//! whose bodies the index keeps in memory); 2, they are cut before every `WARC/1.` and each
//! piece gzipped as its own member (the normal per-record `.warc.gz`), so that the fuzzer
//! mutates plain WARC text and still reaches the gzip paths.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    templex_fuzz::run_warc(data, &templex_fuzz::scratch_dir());
});
