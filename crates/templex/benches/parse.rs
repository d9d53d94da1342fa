//! Parse throughput of the templex arena DOM (html5gum's tokenizer, html5ever's tree builder)
//! against the arena built through html5ever's own tokenizer and against html5ever +
//! markup5ever_rcdom, on every page of the shared site mirrors, in the same run.
//!
//! `cargo bench -p templex --bench parse` (set TEMPLEX_DATA if the data is not at
//! `../shared/data`). Both builders parse the same decoded text, so the figure compares tree
//! construction; decoding (templex's charset pipeline) and the lean and text-only parses
//! (rates over the same full HTML size) are reported on their own lines.

use std::time::{Duration, Instant};

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::RcDom;

#[path = "../tests/common/mod.rs"]
mod common;

use common::{data_dir, html_files};

fn best_of<F: FnMut()>(rounds: usize, mut f: F) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    // `cargo test --benches` runs this with --bench absent; keep that cheap.
    let quick = !std::env::args().any(|a| a == "--bench");
    let Some(data) = data_dir() else {
        eprintln!("NOTICE: skipping parse benchmark: shared data not found (set TEMPLEX_DATA)");
        return;
    };
    let files = html_files(&data.join("sites"));
    let raw: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    let texts: Vec<String> = raw
        .iter()
        .map(|b| templex::html::decode(b, None).text.into_owned())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mb = bytes as f64 / 1e6;
    let rounds = if quick { 1 } else { 5 };
    println!(
        "{} pages, {:.1} MB of HTML, best of {rounds} rounds",
        texts.len(),
        mb
    );

    let mut sink = 0usize;
    let arena = best_of(rounds, || {
        for t in &texts {
            sink += templex::html::parse_str(t).len();
        }
    });
    let html5ever_tokenizer = best_of(rounds, || {
        for t in &texts {
            sink += templex::html::parse_str_html5ever(t).len();
        }
    });
    let rcdom = best_of(rounds, || {
        for t in &texts {
            let dom =
                html5ever::parse_document(RcDom::default(), Default::default()).one(t.as_str());
            sink += dom.document.children.borrow().len();
        }
    });
    let decode_parse = best_of(rounds, || {
        for b in &raw {
            sink += templex::html::parse_bytes(b, None).len();
        }
    });
    let lean = best_of(rounds, || {
        for b in &raw {
            sink += templex::html::parse_bytes_lean(b, None).len();
        }
    });
    let text = best_of(rounds, || {
        for b in &raw {
            sink += templex::html::parse_bytes_text(b, None).len();
        }
    });
    // What the tokenizer still reads once scripts, styles, SVG and comments are cut.
    let lean_mb = texts
        .iter()
        .map(|t| templex::html::strip_raw_text(t).len())
        .sum::<usize>() as f64
        / 1e6;
    println!("{lean_mb:.1} MB of it left by the lean scanner");
    println!("{:<40} {:>9} {:>10}", "builder", "time", "MB/s");
    for (name, d) in [
        ("templex arena (parse_str)", arena),
        ("arena, html5ever's tokenizer", html5ever_tokenizer),
        ("html5ever + markup5ever_rcdom", rcdom),
        ("templex decode + parse (parse_bytes)", decode_parse),
        ("lean decode + parse (parse_bytes_lean)", lean),
        ("text decode + parse (parse_bytes_text)", text),
    ] {
        let secs = d.as_secs_f64();
        println!("{name:<40} {:>8.0}ms {:>10.1}", secs * 1e3, mb / secs);
    }
    println!(
        "arena / rcdom time ratio: {:.2}",
        arena.as_secs_f64() / rcdom.as_secs_f64()
    );
    std::hint::black_box(sink);
}
