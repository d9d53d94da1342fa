//! Regression tests for what the fuzz targets (`fuzz/`, cargo-fuzz) found: each minimized
//! input replayed through the targets' own harness (`fuzz/src/lib.rs`, included below), so a
//! file from `fuzz/artifacts/<target>/` replays here byte for byte.
//!
//! A test of a finding that is not fixed yet is marked `#[ignore = "fuzz finding: …"]`, so
//! that the suite stays green; `cargo test --test it fuzz_regressions -- --ignored` runs them.

use std::path::PathBuf;

#[path = "../../../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod harness;

use harness::{
    PAGE_SEPARATOR, run_batch as replay_batch, run_content as replay_content,
    run_parse as replay_parse, run_template as replay_template, run_warc as replay_warc,
};

/// A reproducer under `tests/fuzz/`.
#[allow(dead_code)]
fn input(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---- the harness mirror itself ----

/// Every replay runs on small inputs of each shape, so the mirror of the harnesses stays
/// compiled and working even while no finding is open.
#[test]
fn replays_run_on_small_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let page = b"<html><head><title>T</title></head><body><nav><a href=/1.html>one</a></nav>\
        <main><h1>Head</h1><p>Some words of content here.</p></main></body></html>";
    for c in [0u8, 8, 16 + 2, 32 + 5] {
        let mut data = vec![c];
        data.extend_from_slice(page);
        replay_parse(&data);
        replay_content(&data);
        replay_template(&data);
        replay_warc(&data, dir.path());
        let out = replay_batch(&data, dir.path());
        if c & 1 == 0 {
            assert_eq!(out.len(), 1, "one page, one record");
        }
    }
    replay_parse(b"");
    replay_content(b"");
    replay_template(b"");
    replay_warc(b"", dir.path());
    replay_batch(b"", dir.path());
}

// ---- findings ----

// Finding 1 (found by `template` and by `batch`): `tablechunk::image_name_words` tests for a
// `data:` URI with `src[..5]`, which panics when byte 5 of the image `src` (or of an ALT
// text that looks like a file name) falls inside a multi-byte character. Any page with such
// an image kills the table chunk method: `extract_template` with `Method::TableChunk`, and
// batch mode, whose default method it is (rayon re-raises the panic of the worker: the
// whole run stops). The tokenizer makes such bytes out of anything: a NUL in an attribute
// becomes U+FFFD (3 bytes), windows-1252 bytes 0x80-0x9F become 2- and 3-byte characters.

// The finding's unit tests, on `image_name_words` and `informative_alt` themselves, are in
// `src/template/tablechunk/text.rs`.

#[test]
fn finding_1_template_minimized() {
    // fuzz/artifacts/template, minimized by `cargo fuzz tmin` to 15 bytes. Control byte
    // 0x0d: table chunks, with the harness's menu; `src` ".\0\0l" parses to
    // ".\u{fffd}\u{fffd}l", whose byte 5 is inside the second U+FFFD.
    replay_template(b"\x0d<img src=\".\x00\x00l");
}

#[test]
fn finding_1_batch_minimized() {
    // fuzz/artifacts/batch, minimized by `cargo fuzz tmin` to 16 bytes. Control byte 0x20:
    // one page written with the WarcWriter, `charset=windows-1252`, table chunks (batch's
    // default); `src` "h\x95\x8f" decodes to "h\u{2022}\u{8f}", byte 5 inside U+008F.
    let dir = tempfile::tempdir().unwrap();
    let out = replay_batch(b" <img src=\"h\x95\x8f\">", dir.path());
    assert_eq!(out.len(), 1);
}

/// Finding 1 on a whole page in a small site, not only on a minimized input: every page of
/// the site has the image, and batch mode learns table chunks from four of them.
#[test]
fn finding_1_batch_site() {
    let page: &[u8] =
        b"<html><body><p>Some text</p><img src=\"abcd\xc3\xa9.gif\"><p>More text</p></body></html>";
    let mut data = vec![0];
    for k in 0..4 {
        if k > 0 {
            data.extend_from_slice(PAGE_SEPARATOR);
        }
        data.extend_from_slice(page);
    }
    let dir = tempfile::tempdir().unwrap();
    let out = replay_batch(&data, dir.path());
    assert_eq!(out.len(), 4);
}
