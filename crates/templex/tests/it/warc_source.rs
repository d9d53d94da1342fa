//! WARC page source: round trips through the writer, damaged files, redirects, filtering.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use templex::sources::{WarcSource, WarcWriter, read_warc_pages, write_mirror_to_warc};
use templex::{LoadError, PageSource};
use url::Url;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

/// A test page: URI, body, charset.
type Spec<'a> = (&'a str, Vec<u8>, Option<&'a str>);

fn sample_pages() -> Vec<Spec<'static>> {
    vec![
        (
            "https://example.org/",
            b"<html><body>home</body></html>".to_vec(),
            None,
        ),
        (
            "https://example.org/caf\u{e9}.html",
            b"<html><body>caf\xe9 cr\xe8me</body></html>".to_vec(),
            Some("windows-1252"),
        ),
        (
            "https://example.org/dir/",
            "<html><body>dir \u{2713}</body></html>".as_bytes().to_vec(),
            Some("utf-8"),
        ),
    ]
}

/// Each record written by its own writer, so the caller knows where every record starts;
/// concatenated they form a normal (per-record gzip) WARC.
fn record_bytes(gzip: bool, write: impl FnOnce(&mut WarcWriter<Vec<u8>>)) -> Vec<u8> {
    let mut w = WarcWriter::new(Vec::new(), gzip);
    write(&mut w);
    w.finish().unwrap()
}

fn numbered_records(gzip: bool, n: usize) -> Vec<Vec<u8>> {
    (1..=n)
        .map(|i| {
            record_bytes(gzip, |w| {
                let body = format!("<html><body>page {i} {}</body></html>", "x".repeat(400));
                w.write_response(
                    &format!("https://example.org/p{i}.html"),
                    body.as_bytes(),
                    None,
                )
                .unwrap()
            })
        })
        .collect()
}

fn numbered_body(i: usize) -> Vec<u8> {
    format!("<html><body>page {i} {}</body></html>", "x".repeat(400)).into_bytes()
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Counts WARN events, to check that damage is reported rather than silently dropped.
struct WarnCounter(Arc<AtomicUsize>);

impl tracing::Subscriber for WarnCounter {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if *event.metadata().level() == tracing::Level::WARN {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Open `path`, returning the source and the number of warnings logged meanwhile.
fn open_counting_warnings(path: &Path) -> (WarcSource, usize) {
    let count = Arc::new(AtomicUsize::new(0));
    let source = tracing::subscriber::with_default(WarnCounter(count.clone()), || {
        WarcSource::open(path).expect("damaged WARC must still open")
    });
    (source, count.load(Ordering::SeqCst))
}

fn assert_loads(source: &WarcSource, i: usize) {
    let u = url(&format!("https://example.org/p{i}.html"));
    let page = source
        .load(&u)
        .unwrap_or_else(|e| panic!("record {i} should load: {e}"));
    assert_eq!(page.body, numbered_body(i), "record {i}");
}

#[test]
fn round_trip_plain_and_gzip() {
    let dir = tempfile::tempdir().unwrap();
    for gzip in [false, true] {
        // The name says .warc for both: gzip must be detected from the bytes.
        let path = dir.path().join(format!("site-{gzip}.warc"));
        let mut w = WarcWriter::create(&path, gzip).unwrap();
        w.write_warcinfo(&[("operator", "test")]).unwrap();
        for (uri, body, charset) in sample_pages() {
            w.write_response(uri, &body, charset).unwrap();
        }
        w.finish().unwrap();

        let source = WarcSource::open(&path).unwrap();
        assert_eq!(source.is_gzip(), gzip);
        assert_eq!(source.len(), 3);
        assert_eq!(source.problems(), 0);
        assert_eq!(source.bodies_in_memory(), 0, "per-record gzip is seekable");
        let urls: Vec<String> = source.urls().map(|u| u.to_string()).collect();
        assert_eq!(
            urls,
            [
                "https://example.org/",
                "https://example.org/caf%C3%A9.html",
                "https://example.org/dir/"
            ]
        );
        for (uri, body, charset) in sample_pages() {
            let u = url(uri);
            assert!(source.resolves(&u));
            let page = source.load(&u).unwrap();
            assert_eq!(page.body, body, "{uri} gzip={gzip}");
            assert_eq!(page.charset.as_deref(), charset, "{uri}");
            assert_eq!(page.content_type.as_deref(), Some("text/html"));
            assert_eq!(page.final_url, u);
        }
        // windows-1252 really reaches the decoder.
        let cafe = source.load(&url("https://example.org/café.html")).unwrap();
        let doc = cafe.parse();
        assert!(
            doc.text_content(templex::NodeId::ROOT)
                .contains("café crème")
        );

        // Lookup tolerates scheme, trailing slash and fragment differences.
        let alt = source.load(&url("http://example.org/dir#top")).unwrap();
        assert_eq!(alt.final_url.as_str(), "https://example.org/dir/");
        assert_eq!(
            source
                .canonical_url(&url("http://example.org/dir"))
                .as_str(),
            "https://example.org/dir/"
        );
        assert!(!source.resolves(&url("https://example.org/nope.html")));
        assert!(matches!(
            source.load(&url("https://example.org/nope.html")),
            Err(LoadError::NotFound(_))
        ));
        let stats = source.stats();
        assert_eq!((stats.attempts, stats.loaded), (6, 5));

        // The streaming reader sees the same pages.
        let streamed: Vec<_> = read_warc_pages(&path)
            .unwrap()
            .map(|p| p.unwrap())
            .collect();
        assert_eq!(streamed.len(), 3);
        for (page, (_, body, charset)) in streamed.iter().zip(sample_pages()) {
            assert_eq!(page.body, body);
            assert_eq!(page.charset.as_deref(), charset);
        }
    }
}

#[test]
fn single_gzip_stream_falls_back_to_memory() {
    let dir = tempfile::tempdir().unwrap();
    let plain: Vec<u8> = numbered_records(false, 4).concat();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let path = write_file(dir.path(), "one-member.warc.gz", &gz.finish().unwrap());
    let source = WarcSource::open(&path).unwrap();
    assert_eq!(source.len(), 4);
    // The first record starts the only member and stays seekable; the others are in memory.
    assert_eq!(source.bodies_in_memory(), 3);
    for i in 1..=4 {
        assert_loads(&source, i);
    }
}

#[test]
fn truncated_gzip_keeps_complete_records() {
    let dir = tempfile::tempdir().unwrap();
    let records = numbered_records(true, 5);
    let start4: usize = records[..3].iter().map(Vec::len).sum();
    let whole = records.concat();
    // Cut in the middle of record 4's deflate data, and inside its gzip header.
    for (name, cut) in [
        ("mid-member.warc.gz", start4 + records[3].len() / 2),
        ("mid-header.warc.gz", start4 + 5),
    ] {
        let path = write_file(dir.path(), name, &whole[..cut]);
        let (source, warnings) = open_counting_warnings(&path);
        assert!(warnings > 0, "{name}: truncation must be logged");
        assert!(source.problems() > 0, "{name}");
        assert_eq!(source.len(), 3, "{name}");
        for i in 1..=3 {
            assert_loads(&source, i);
        }
        assert!(matches!(
            source.load(&url("https://example.org/p4.html")),
            Err(LoadError::NotFound(_))
        ));
        let streamed = read_warc_pages(&path)
            .unwrap()
            .filter(Result::is_ok)
            .count();
        assert_eq!(streamed, 3, "{name}");
    }
}

#[test]
fn corrupt_gzip_member_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = numbered_records(true, 5);
    let mid = records[2].len() / 2;
    for b in &mut records[2][mid..mid + 16] {
        *b ^= 0x5a;
    }
    let path = write_file(dir.path(), "corrupt.warc.gz", &records.concat());
    let (source, warnings) = open_counting_warnings(&path);
    assert!(warnings > 0);
    assert_eq!(source.len(), 4);
    for i in [1, 2, 4, 5] {
        assert_loads(&source, i);
    }
    assert!(!source.resolves(&url("https://example.org/p3.html")));
}

#[test]
fn damaged_records_in_plain_warc_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let r = numbered_records(false, 6);
    let body = |rec: &[u8]| -> usize {
        // Content-Length of a record written by WarcWriter.
        let text = String::from_utf8_lossy(rec);
        let line = text
            .lines()
            .find(|l| l.starts_with("Content-Length: "))
            .unwrap();
        line["Content-Length: ".len()..].trim().parse().unwrap()
    };
    let with_length = |rec: &[u8], len: usize| -> Vec<u8> {
        String::from_utf8_lossy(rec)
            .replacen(
                &format!("Content-Length: {}\r\n\r\n", body(rec)),
                &format!("Content-Length: {len}\r\n\r\n"),
                1,
            )
            .into_bytes()
    };
    let mut file = Vec::new();
    file.extend_from_slice(&r[0]);
    // Garbage between records.
    file.extend_from_slice(b"\x00\xff\xfe garbage \r\nnot a WARC line\r\n\x01\x02");
    file.extend_from_slice(&r[1]);
    // A record whose Content-Length is too small, then one whose Content-Length is too large
    // (it would swallow the next record).
    file.extend_from_slice(&with_length(&r[2], body(&r[2]) - 40));
    file.extend_from_slice(&r[3]);
    file.extend_from_slice(&with_length(&r[4], body(&r[4]) + 60));
    file.extend_from_slice(&r[5]);
    // A header that never ends, at the end of the file.
    file.extend_from_slice(b"WARC/1.1\r\nWARC-Type: response\r\nContent-Le");
    let path = write_file(dir.path(), "damaged.warc", &file);

    let (source, warnings) = open_counting_warnings(&path);
    assert!(warnings >= 3, "got {warnings} warnings");
    for i in [1, 2, 4, 6] {
        assert_loads(&source, i);
    }
    for i in [3, 5] {
        assert!(!source.resolves(&url(&format!("https://example.org/p{i}.html"))));
    }
    assert_eq!(source.len(), 4);
}

#[test]
fn truncated_plain_warc() {
    let dir = tempfile::tempdir().unwrap();
    let whole = numbered_records(false, 3).concat();
    let path = write_file(dir.path(), "cut.warc", &whole[..whole.len() - 100]);
    let (source, warnings) = open_counting_warnings(&path);
    assert!(warnings > 0);
    assert_eq!(source.len(), 2);
    assert_loads(&source, 1);
    assert_loads(&source, 2);
}

#[test]
fn redirects_are_followed_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    for gzip in [false, true] {
        let path = dir.path().join(format!("redirects-{gzip}.warc.gz"));
        let mut w = WarcWriter::create(&path, gzip).unwrap();
        w.write_http_response("https://example.org/old", 301, &[("Location", "/new")], b"")
            .unwrap();
        w.write_response("https://example.org/new", b"<p>new</p>", Some("utf-8"))
            .unwrap();
        w.write_http_response("https://example.org/a", 302, &[("Location", "b")], b"")
            .unwrap();
        w.write_http_response("https://example.org/b", 302, &[("Location", "a")], b"")
            .unwrap();
        for i in 0..12 {
            let target = format!("https://example.org/chain{}", i + 1);
            w.write_http_response(
                &format!("https://example.org/chain{i}"),
                307,
                &[("Location", &target)],
                b"",
            )
            .unwrap();
        }
        w.write_response("https://example.org/chain12", b"<p>end</p>", None)
            .unwrap();
        w.write_http_response(
            "https://example.org/gone",
            301,
            &[("Location", "https://elsewhere.example/")],
            b"",
        )
        .unwrap();
        w.finish().unwrap();

        let source = WarcSource::open(&path).unwrap();
        assert_eq!(source.len(), 2);
        assert_eq!(source.redirects(), 16);

        let old = url("https://example.org/old");
        assert!(source.resolves(&old));
        assert_eq!(source.stats().attempts, 0, "resolves does not count");
        let page = source.load(&old).unwrap();
        assert_eq!(page.url, old);
        assert_eq!(page.final_url.as_str(), "https://example.org/new");
        assert_eq!(page.body, b"<p>new</p>");
        assert_eq!(page.charset.as_deref(), Some("utf-8"));

        // Ten hops are followed, eleven are not.
        assert!(source.load(&url("https://example.org/chain2")).is_ok());
        assert!(matches!(
            source.load(&url("https://example.org/chain1")),
            Err(LoadError::TooManyRedirects(_))
        ));
        assert!(matches!(
            source.load(&url("https://example.org/a")),
            Err(LoadError::TooManyRedirects(_))
        ));
        assert!(!source.resolves(&url("https://example.org/b")));
        assert!(matches!(
            source.load(&url("https://example.org/gone")),
            Err(LoadError::NotFound(_))
        ));
        assert_eq!(source.stats().attempts, 5);
        assert_eq!(source.stats().loaded, 2);
        // Streaming yields pages only.
        assert_eq!(read_warc_pages(&path).unwrap().count(), 2);
    }
}

#[test]
fn filters_records_and_decodes_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.warc");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"<html>compressed and chunked</html>")
        .unwrap();
    let compressed = gz.finish().unwrap();
    let mut chunked = Vec::new();
    for part in compressed.chunks(10) {
        chunked.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        chunked.extend_from_slice(part);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");

    let mut w = WarcWriter::create(&path, false).unwrap();
    w.write_http_response(
        "https://example.org/logo.png",
        200,
        &[("Content-Type", "image/png")],
        b"\x89PNG\r\n\x1a\n\0\0\0",
    )
    .unwrap();
    w.write_http_response(
        "https://example.org/missing",
        404,
        &[("Content-Type", "text/html")],
        b"<p>not found</p>",
    )
    .unwrap();
    w.write_record(
        "request",
        Some("https://example.org/req"),
        "application/http; msgtype=request",
        b"GET /req HTTP/1.1\r\n\r\n",
    )
    .unwrap();
    w.write_record(
        "response",
        Some("dns:example.org"),
        "text/dns",
        b"example.org. 300 IN A 192.0.2.1",
    )
    .unwrap();
    w.write_http_response(
        "<https://example.org/encoded>",
        200,
        &[
            ("Content-Type", "text/html; charset=iso-8859-1"),
            ("Transfer-Encoding", "chunked"),
            ("Content-Encoding", "gzip"),
        ],
        &chunked,
    )
    .unwrap();
    // Stored already decoded, header kept: must come through unchanged.
    w.write_http_response(
        "https://example.org/predecoded",
        200,
        &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
        b"<html>plain</html>",
    )
    .unwrap();
    w.write_resource(
        "https://example.org/res.html",
        "text/html",
        b"<p>resource</p>",
    )
    .unwrap();
    w.write_resource("https://example.org/res.png", "image/png", b"\x89PNG")
        .unwrap();
    w.write_response("https://example.org/dup", b"<p>first</p>", None)
        .unwrap();
    w.write_response("https://example.org/dup", b"<p>second</p>", None)
        .unwrap();
    w.finish().unwrap();

    let source = WarcSource::open(&path).unwrap();
    let urls: Vec<&str> = source.urls().map(Url::as_str).collect();
    assert_eq!(
        urls,
        [
            "https://example.org/encoded",
            "https://example.org/predecoded",
            "https://example.org/res.html",
            "https://example.org/dup"
        ]
    );
    assert!(!source.resolves(&url("https://example.org/logo.png")));
    assert!(!source.resolves(&url("https://example.org/missing")));
    let enc = source.load(&url("https://example.org/encoded")).unwrap();
    assert_eq!(enc.body, b"<html>compressed and chunked</html>");
    assert_eq!(enc.charset.as_deref(), Some("iso-8859-1"));
    let pre = source.load(&url("https://example.org/predecoded")).unwrap();
    assert_eq!(pre.body, b"<html>plain</html>");
    let res = source.load(&url("https://example.org/res.html")).unwrap();
    assert_eq!(res.body, b"<p>resource</p>");
    let dup = source.load(&url("https://example.org/dup")).unwrap();
    assert_eq!(dup.body, b"<p>first</p>");
}

#[test]
fn missing_empty_and_odd_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.warc.gz");
    match WarcSource::open(&missing) {
        Err(e @ LoadError::Io { .. }) => assert!(e.to_string().contains("nope.warc.gz"), "{e}"),
        other => panic!("expected an I/O error, got {other:?}"),
    }
    assert!(matches!(
        read_warc_pages(&missing),
        Err(LoadError::Io { .. })
    ));
    assert!(matches!(
        WarcSource::open(dir.path()),
        Err(LoadError::Io { .. })
    ));

    let empty = write_file(dir.path(), "empty.warc", b"");
    let source = WarcSource::open(&empty).unwrap();
    assert!(source.is_empty());
    assert_eq!(source.problems(), 0);
    assert!(matches!(
        source.load(&url("https://example.org/")),
        Err(LoadError::NotFound(_))
    ));
    assert_eq!(read_warc_pages(&empty).unwrap().count(), 0);

    // Pure garbage, including bytes that look like a gzip magic.
    let junk = write_file(
        dir.path(),
        "junk.warc.gz",
        b"\x1f\x8b\x08garbage\x1f\x8b\x00\x00",
    );
    let (source, warnings) = open_counting_warnings(&junk);
    assert!(source.is_empty());
    assert!(warnings > 0);
    let junk = write_file(dir.path(), "junk.warc", &[0xffu8; 3000]);
    assert!(WarcSource::open(&junk).unwrap().is_empty());
}

#[test]
fn mirror_directory_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("sub dir")).unwrap();
    std::fs::write(site.join("index.html"), "<p>home</p>").unwrap();
    std::fs::write(site.join("sub dir/page.htm"), "<p>sub</p>").unwrap();
    std::fs::write(site.join("index.html@p=12.html"), "<p>query</p>").unwrap();
    std::fs::write(site.join("style.css"), "p{}").unwrap();
    let out = dir.path().join("site.warc.gz");
    assert_eq!(
        write_mirror_to_warc(&site, "example.org/blog/", &out, true).unwrap(),
        3
    );
    let source = WarcSource::open(&out).unwrap();
    assert_eq!(source.len(), 3);
    let sub = source
        .load(&url("https://example.org/blog/sub%20dir/page.htm"))
        .unwrap();
    assert_eq!(sub.body, b"<p>sub</p>");
    assert!(source.resolves(&url("https://example.org/blog/index.html@p=12.html")));

    let out = dir.path().join("site-http.warc");
    write_mirror_to_warc(&site, "http://example.org", &out, false).unwrap();
    let source = WarcSource::open(&out).unwrap();
    let home = source.load(&url("http://example.org/index.html")).unwrap();
    assert_eq!(home.final_url.scheme(), "http");
}

#[test]
fn shared_site_mirror_as_warc() {
    let Some(data) = common::data_dir() else {
        return;
    };
    let site = data.join("sites/firelab-uoft");
    if !site.is_dir() {
        eprintln!(
            "NOTICE: skipping: shared data not found ({})",
            site.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = common::html_files(&site);
    assert!(!files.is_empty());
    for gzip in [true, false] {
        let out = dir.path().join(format!("firelab-{gzip}.warc.gz"));
        let n = write_mirror_to_warc(&site, "firelab.example/uoft", &out, gzip).unwrap();
        assert_eq!(n, files.len());
        let source = WarcSource::open(&out).unwrap();
        assert_eq!(source.len(), files.len());
        assert_eq!(source.problems(), 0);
        for file in &files {
            let rel = file.strip_prefix(&site).unwrap();
            let mut u = url("https://firelab.example/uoft/");
            u.path_segments_mut()
                .unwrap()
                .pop_if_empty()
                .extend(rel.iter().map(|s| s.to_str().unwrap()));
            let page = source
                .load(&u)
                .unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
            assert_eq!(page.body, std::fs::read(file).unwrap(), "{}", rel.display());
        }
        assert_eq!(source.stats().loaded, files.len());
        assert_eq!(read_warc_pages(&out).unwrap().count(), files.len());
    }
}
