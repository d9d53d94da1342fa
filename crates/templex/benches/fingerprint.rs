//! What content fingerprints cost beside extraction: every page of the shared site mirrors
//! and of the WCXB dev pages through `extract_page` and its text, then the fingerprints of
//! that text (exact hash, SimHash, MinHash of 128 hashes over 5-word shingles), timed apart.
//!
//! `cargo bench -p templex --bench fingerprint` (set TEMPLEX_DATA if the data is not at
//! `../shared/data`).

use std::time::{Duration, Instant};

use templex::duplicates::{FingerprintConfig, Fingerprinter};
use templex::{Budget, ContentConfig, PageHints, extract_page};

#[path = "../tests/common/mod.rs"]
mod common;

use common::{data_dir, html_files};

fn main() {
    // `cargo test --benches` runs this with --bench absent; keep that cheap.
    let quick = !std::env::args().any(|a| a == "--bench");
    let Some(data) = data_dir() else {
        eprintln!(
            "NOTICE: skipping fingerprint benchmark: shared data not found (set TEMPLEX_DATA)"
        );
        return;
    };
    let mut pages: Vec<Vec<u8>> = html_files(&data.join("sites"))
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .collect();
    let wcxb = data.join("pagelevel/wcxb-dev/html");
    if let Ok(rd) = std::fs::read_dir(&wcxb) {
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            if let Ok(b) = templex::sources::read_page_file(&f, 64 << 20) {
                pages.push(b);
            }
        }
    }
    if quick {
        pages.truncate(50);
    }
    let rounds = if quick { 1 } else { 3 };
    let (config, budget, hints) = (
        ContentConfig::default(),
        Budget::default(),
        PageHints::default(),
    );
    let mut fp = Fingerprinter::new(FingerprintConfig::default());
    let (mut best_extract, mut best_fp) = (Duration::MAX, Duration::MAX);
    let (mut words, mut sink, mut refused, mut extracted_mb) = (0u64, 0u64, 0usize, 0.0);
    for _ in 0..rounds {
        let (mut extract, mut fingerprint) = (Duration::ZERO, Duration::ZERO);
        (words, refused, extracted_mb) = (0, 0, 0.0);
        for p in &pages {
            let t0 = Instant::now();
            let Ok(content) = extract_page(p, &hints, &config, &budget) else {
                refused += 1;
                continue;
            };
            extracted_mb += p.len() as f64 / 1e6;
            let text = content.text();
            let t1 = Instant::now();
            let f = fp.fingerprint(&text);
            let t2 = Instant::now();
            extract += t1 - t0;
            fingerprint += t2 - t1;
            words += f.words;
            sink ^= f.simhash;
        }
        best_extract = best_extract.min(extract);
        best_fp = best_fp.min(fingerprint);
    }
    let mb = pages.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    println!(
        "{} pages, {mb:.1} MB of HTML ({refused} pages refused: not HTML or over the budget; \
         {extracted_mb:.1} MB extracted), {words} content words; best of {rounds} rounds",
        pages.len()
    );
    println!(
        "extraction (parse, content, text): {:.0} ms ({:.2} ms/page)",
        best_extract.as_secs_f64() * 1e3,
        best_extract.as_secs_f64() * 1e3 / pages.len() as f64
    );
    println!(
        "fingerprints: {:.0} ms ({:.3} ms/page, {:.0} ns/word) = {:.1} % of extraction",
        best_fp.as_secs_f64() * 1e3,
        best_fp.as_secs_f64() * 1e3 / pages.len() as f64,
        best_fp.as_secs_f64() * 1e9 / words.max(1) as f64,
        100.0 * best_fp.as_secs_f64() / best_extract.as_secs_f64()
    );
    std::hint::black_box(sink);
}
