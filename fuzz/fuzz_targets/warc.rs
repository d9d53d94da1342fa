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

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use libfuzzer_sys::fuzz_target;
use templex::source::warc::read_warc_pages;
use templex::source::{PageSource, WarcSource};

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// The pieces of `data` starting at each `WARC/1.` (the first piece from the start).
fn records(data: &[u8]) -> Vec<&[u8]> {
    let mut starts: Vec<usize> = data
        .windows(7)
        .enumerate()
        .filter(|(i, w)| *i > 0 && *w == b"WARC/1.")
        .map(|(i, _)| i)
        .collect();
    starts.insert(0, 0);
    starts.push(data.len());
    starts.windows(2).map(|w| &data[w[0]..w[1]]).collect()
}

fuzz_target!(|data: &[u8]| {
    let (control, rest) = templex_fuzz::control(data);
    let file = match control % 3 {
        0 => rest.to_vec(),
        1 => gzip(rest),
        _ => records(rest).into_iter().flat_map(gzip).collect(),
    };
    let path = templex_fuzz::scratch_path("in.warc");
    std::fs::write(&path, &file).unwrap();
    if let Ok(source) = WarcSource::open(&path) {
        let urls: Vec<url::Url> = source.urls().cloned().collect();
        for url in &urls {
            let _ = source.resolves(url);
            let _ = source.canonical_url(url);
            if let Ok(page) = source.load(url) {
                std::hint::black_box(page.body.len());
            }
        }
        let _ = (source.len(), source.redirects(), source.problems());
        let _ = source.bodies_in_memory();
    }
    if let Ok(pages) = read_warc_pages(&path) {
        for page in pages {
            if let Ok(page) = page {
                std::hint::black_box(page.body.len());
            }
        }
    }
});
