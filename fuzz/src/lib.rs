//! The fuzz targets' harness: how each target turns its input into library calls (a
//! control byte first, then pages split on [`PAGE_SEPARATOR`]). The targets in
//! `fuzz_targets/` call it, and `crates/templex/tests/fuzz_regressions.rs` includes this
//! file, so a minimized input replays there exactly as here.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use templex::batch::{BatchConfig, BatchInput, OutRecord, TemplateStore, records, run_records};
use templex::render::{annotated_html, template_html, template_report};
use templex::sources::{MemorySource, WarcSource, WarcWriter, read_warc_pages};
use templex::{
    ContentConfig, Document, Method, NodeId, PageHints, PageSource, TemplateConfig, extract_page,
    extract_template,
};
use url::Url;

/// Transport charsets a target may pass along with the bytes (the HTTP `Content-Type`
/// charset): none, the common ones, a multi-byte and a UTF-16 one, and junk.
pub const CHARSETS: [Option<&str>; 8] = [
    None,
    Some("utf-8"),
    Some("windows-1252"),
    Some("iso-8859-1"),
    Some("shift_jis"),
    Some("utf-16le"),
    Some("gb18030"),
    Some("x-no-such-charset"),
];

/// The transport charset a control byte selects.
pub fn charset(control: u8) -> Option<&'static str> {
    CHARSETS[(control & 7) as usize]
}

/// Splits the first byte off as the control byte (0 for empty input).
pub fn control(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((c, rest)) => (*c, rest),
        None => (0, data),
    }
}

/// Separator between the pages of one input (`template`, `batch`).
pub const PAGE_SEPARATOR: &[u8] = b"\0PAGE\0";

/// The pages of an input: the parts between separators, at most `max`; when there are
/// fewer than `min`, variations of the first page fill up (the page with its k-th quarter
/// cut out), so that a one-page input still makes a small site.
pub fn split_pages(data: &[u8], min: usize, max: usize) -> Vec<Vec<u8>> {
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

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A scratch directory of this process (in `/dev/shm` when there is one), for the readers
/// that take a path.
pub fn scratch_dir() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("templex-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The `parse` target.
pub fn run_parse(data: &[u8]) {
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
    let _ = templex::html::not_html(body);
    let html = exercise(&templex::html::parse_bytes(body, charset));
    exercise(&templex::html::parse_bytes_lean(body, charset));
    exercise(&templex::html::parse_bytes_text(body, charset));
    let _ = templex::html::parse_str(&html);
}

/// The `content` target.
pub fn run_content(data: &[u8]) {
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

/// The `template` target.
pub fn run_template(data: &[u8]) {
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
    let mut config = TemplateConfig::for_method(METHODS[(control & 7) as usize]);
    config.mapping.fallback = control & 16 == 0;
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

/// `data` as one gzip stream.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// The `warc` target.
pub fn run_warc(data: &[u8], dir: &Path) {
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

/// The `batch` target.
pub fn run_batch(data: &[u8], dir: &Path) -> Vec<OutRecord> {
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
