//! Regression tests for what the fuzz targets (`fuzz/`, cargo-fuzz) found: each minimized
//! input replayed through the same library calls as its target. The `replay_*` functions
//! mirror `fuzz/fuzz_targets/*.rs` and `fuzz/src/lib.rs` (control byte first, then the
//! data), so a file from `fuzz/artifacts/<target>/` replays here byte for byte.
//!
//! A test of a finding that is not fixed yet is `//! suite stays green; `cargo test --test fuzz_regressions -- --ignored` runs them.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use templex::Method;
use templex::batch::{BatchConfig, BatchInput, OutRecord, records, run_records};
use templex::dom::{self, Document, NodeId};
use templex::extract::ContentConfig;
use templex::output::{annotated_html, template_html, template_report};
use templex::source::warc::{WarcWriter, read_warc_pages};
use templex::source::{MemorySource, PageSource, WarcSource};
use templex::store::TemplateStore;
use templex::template::{TemplateConfig, extract_template};
use templex::{PageHints, extract_page};
use url::Url;

// ---- fuzz/src/lib.rs ----

const CHARSETS: [Option<&str>; 8] = [
    None,
    Some("utf-8"),
    Some("windows-1252"),
    Some("iso-8859-1"),
    Some("shift_jis"),
    Some("utf-16le"),
    Some("gb18030"),
    Some("x-no-such-charset"),
];

fn charset(control: u8) -> Option<&'static str> {
    CHARSETS[(control & 7) as usize]
}

fn control(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((c, rest)) => (*c, rest),
        None => (0, data),
    }
}

const PAGE_SEPARATOR: &[u8] = b"\0PAGE\0";

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn split_pages(data: &[u8], min: usize, max: usize) -> Vec<Vec<u8>> {
    let mut pages: Vec<Vec<u8>> = Vec::new();
    let mut rest = data;
    while pages.len() + 1 < max {
        match find(rest, PAGE_SEPARATOR) {
            Some(i) => {
                pages.push(rest[..i].to_vec());
                rest = &rest[i + PAGE_SEPARATOR.len()..];
            }
            None => break,
        }
    }
    pages.push(rest.to_vec());
    let key = pages[0].clone();
    let mut k = 0;
    while pages.len() < min {
        let q = key.len() / 4;
        let (a, b) = (k * q, (k + 1) * q);
        let mut v = key[..a].to_vec();
        v.extend_from_slice(&key[b..]);
        pages.push(v);
        k += 1;
    }
    pages
}

// ---- the targets ----

/// `fuzz/fuzz_targets/parse.rs`.
fn replay_parse(data: &[u8]) {
    fn exercise(doc: &Document) -> String {
        let html = doc.to_html();
        let _ = doc.signatures();
        let _ = doc.visible_text(NodeId::ROOT);
        let _ = doc.title();
        if let Some(body) = doc.body() {
            let _ = doc.dom_path(body);
        }
        html
    }
    let (control, body) = control(data);
    let charset = charset(control);
    let _ = dom::not_html(body);
    let html = exercise(&dom::parse_bytes(body, charset));
    exercise(&dom::parse_bytes_lean(body, charset));
    exercise(&dom::parse_bytes_text(body, charset));
    let _ = dom::parse_str(&html);
}

/// `fuzz/fuzz_targets/content.rs`.
fn replay_content(data: &[u8]) {
    let (control, body) = control(data);
    let hints = PageHints {
        url: Some(Url::parse("https://fuzz.example/dir/page.html").unwrap()),
        charset: charset(control).map(str::to_string),
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
}

/// `fuzz/fuzz_targets/template.rs`.
fn replay_template(data: &[u8]) {
    const METHODS: [Method; 8] = [
        Method::HybEx,
        Method::HybEx,
        Method::HybEx,
        Method::TemEx,
        Method::SiteLevel,
        Method::TableChunk,
        Method::PageLevel,
        Method::MainContent,
    ];
    let (control, rest) = control(data);
    let pages = split_pages(rest, 3, 4);
    let urls: Vec<Url> = (0..pages.len())
        .map(|k| Url::parse(&format!("https://fuzz.example/{k}.html")).unwrap())
        .collect();
    let mut source = MemorySource::new();
    for (k, page) in pages.into_iter().enumerate() {
        let mut body = page;
        if control & 8 != 0 {
            body.extend_from_slice(b"<nav>");
            for (j, u) in urls.iter().enumerate() {
                if j != k {
                    body.extend_from_slice(format!("<a href=\"{u}\">page {j}</a>").as_bytes());
                }
            }
            body.extend_from_slice(b"</nav>");
        }
        if control & 32 != 0 {
            source.insert_with_charset(&urls[k], body, "windows-1252");
        } else {
            source.insert(&urls[k], body);
        }
    }
    let config = TemplateConfig {
        fallback: control & 16 == 0,
        ..TemplateConfig::for_method(METHODS[(control & 7) as usize])
    };
    let Ok(result) = extract_template(&source, &urls[0], &config) else {
        return;
    };
    let _ = template_report(&result);
    let _ = annotated_html(&result.doc, &result.template);
    let _ = template_html(&result.doc, &result.template, &result.key_url);
    let content = result.content(&ContentConfig::default());
    let _ = content.text();
    let _ = content.markdown();
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// `fuzz/fuzz_targets/warc.rs`.
fn replay_warc(data: &[u8], dir: &Path) {
    fn pieces(data: &[u8]) -> Vec<&[u8]> {
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
    let (control, rest) = control(data);
    let file = match control % 3 {
        0 => rest.to_vec(),
        1 => gzip(rest),
        _ => pieces(rest).into_iter().flat_map(gzip).collect(),
    };
    let path = dir.join("in.warc");
    std::fs::write(&path, &file).unwrap();
    if let Ok(source) = WarcSource::open(&path) {
        let urls: Vec<Url> = source.urls().cloned().collect();
        for url in &urls {
            let _ = source.resolves(url);
            let _ = source.canonical_url(url);
            let _ = source.load(url);
        }
        let _ = (source.len(), source.redirects(), source.problems());
        let _ = source.bodies_in_memory();
    }
    if let Ok(pages) = read_warc_pages(&path) {
        for page in pages {
            let _ = page;
        }
    }
}

/// `fuzz/fuzz_targets/batch.rs`.
fn replay_batch(data: &[u8], dir: &Path) -> Vec<OutRecord> {
    const METHODS: [Method; 4] = [
        Method::TableChunk,
        Method::HybEx,
        Method::SiteLevel,
        Method::MainContent,
    ];
    let (control, rest) = control(data);
    let path = dir.join("batch.warc");
    if control & 1 != 0 {
        std::fs::write(&path, rest).unwrap();
    } else {
        let pages = split_pages(rest, 1, 6);
        let mut w = WarcWriter::create(&path, control & 2 != 0).unwrap();
        w.write_warcinfo(&[("description", "fuzz")]).unwrap();
        for (k, body) in pages.iter().enumerate() {
            let host = if control & 16 != 0 && k % 2 == 1 {
                "www.fuzz-b.example"
            } else {
                "www.fuzz-a.example"
            };
            let charset = (control & 32 != 0).then_some("windows-1252");
            w.write_response(&format!("https://{host}/p{k}.html"), body, charset)
                .unwrap();
        }
        w.finish().unwrap();
    }
    let config = BatchConfig {
        method: METHODS[((control >> 2) & 3) as usize],
        site_sample: 10,
        sample_pages: 4,
        min_pages: 2,
        window: 3,
        quiet: 3,
        chunk: 2,
        ..BatchConfig::default()
    };
    let mut store = TemplateStore::in_memory().unwrap();
    let mut sink: Vec<OutRecord> = Vec::new();
    let items = records(&[BatchInput::Warc(path)]);
    let _ = run_records(items, "fuzz", &config, &mut store, &mut sink, &|_| {});
    sink
}

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

#[test]
fn finding_1_image_name_words_non_ascii_src() {
    // "abcd" then 'é' at bytes 4..6: byte 5 is inside it.
    let _ = templex::tablechunk::image_name_words("abcd\u{e9}.gif");
}

#[test]
fn finding_1_informative_alt_file_name() {
    // An ALT text that looks like a file name goes through image_name_words too.
    let _ = templex::tablechunk::informative_alt("\u{e9}\u{e9}\u{e9}.png");
}

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
