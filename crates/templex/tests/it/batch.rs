//! Batch mode: WARC in, templates learned once per site and cluster, content out; the
//! template store; resuming an interrupted run.

use crate::common;

use std::path::{Path, PathBuf};

use templex::Method;
use templex::batch::{BatchConfig, BatchInput, OutRecord, OutputFile, TemplateStore, run};
use templex::sources::{WarcWriter, append_mirror};

fn example_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

/// The example site three times under different hosts, plus a damaged record at the end.
fn example_warc(dir: &Path, copies: usize, damaged: bool) -> PathBuf {
    let path = dir.join("example.warc.gz");
    let mut w = WarcWriter::create(&path, true).unwrap();
    w.write_warcinfo(&[("description", "test")]).unwrap();
    for k in 0..copies {
        let host = format!("www.riverbend-garden{k}.example");
        append_mirror(&mut w, example_dir(), &host).unwrap();
    }
    w.finish().unwrap();
    if damaged {
        // A truncated record: a gzip member cut in the middle.
        let mut extra = Vec::new();
        {
            let mut t = WarcWriter::new(&mut extra, true);
            t.write_response("https://cut.example/x.html", &vec![b'a'; 5000], None)
                .unwrap();
            t.finish().unwrap();
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(&extra[..extra.len() / 2]);
        std::fs::write(&path, bytes).unwrap();
    }
    path
}

fn read_out(path: &Path) -> Vec<OutRecord> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn batch(
    inputs: &[BatchInput],
    config: &BatchConfig,
    store: &Path,
    out: &Path,
) -> templex::batch::Summary {
    let mut store = TemplateStore::open(store).unwrap();
    let mut out = OutputFile::create(out).unwrap();
    run(inputs, config, &mut store, &mut out, &|_| {}).unwrap()
}

/// Run `method` over `inputs` with default settings, into files named after the method in
/// `dir`: the summary and the output records.
fn batch_method(
    inputs: &[BatchInput],
    method: Method,
    dir: &Path,
) -> (templex::batch::Summary, Vec<OutRecord>) {
    let config = BatchConfig {
        method,
        ..BatchConfig::default()
    };
    let out = dir.join(format!("{}.jsonl", method.name()));
    let store = dir.join(format!("{}.sqlite", method.name()));
    let s = batch(inputs, &config, &store, &out);
    (s, read_out(&out))
}

#[test]
fn warc_in_content_out_every_record_accounted() {
    let dir = tempfile::tempdir().unwrap();
    let warc = example_warc(dir.path(), 3, true);
    let inputs = [
        BatchInput::Warc(warc),
        BatchInput::File(dir.path().join("missing.html")),
    ];
    for method in [Method::TableChunk, Method::SiteLevel, Method::HybEx] {
        let (s, recs) = batch_method(&inputs, method, dir.path());
        // 13 pages × 3 sites, the damaged spots the reader skipped (one or more for the cut
        // record), the missing file.
        let damaged = recs
            .iter()
            .filter(|r| r.input.contains("damaged spot"))
            .count();
        assert!(damaged >= 1);
        assert_eq!(recs.len(), 39 + damaged + 1, "{method:?}");
        assert_eq!(s.records as usize, recs.len());
        assert!(recs.iter().enumerate().all(|(i, r)| r.seq == i as u64));
        assert_eq!(
            recs.iter().filter(|r| r.error.is_some()).count(),
            damaged + 1
        );
        assert!(
            recs.iter()
                .any(|r| r.input.ends_with("missing.html") && r.error.is_some())
        );
        assert_eq!(s.sites, 3);
        assert!(s.learned >= 3, "{s:?}");
        let guide = recs
            .iter()
            .find(|r| {
                r.url.as_deref()
                    == Some("https://www.riverbend-garden1.example/garden/compost-guide.html")
            })
            .unwrap();
        assert_eq!(guide.method, Some(method));
        assert_eq!(guide.site.as_deref(), Some("riverbend-garden1.example"));
        let text = guide.text.as_deref().unwrap();
        assert!(text.contains("compost"), "{text}");
        // The main menu and the footer are template.
        assert!(!text.contains("Volunteer with us"), "{method:?}: {text}");
        assert!(guide.template_share.unwrap() > 0.1);
        // The print page has a template of its own, too small to learn: page-level.
        let print = recs
            .iter()
            .find(|r| r.url.as_deref().is_some_and(|u| u.contains("print")))
            .unwrap();
        assert_eq!(print.method, Some(Method::MainContent));
    }
}

#[test]
fn second_run_reuses_stored_templates() {
    let dir = tempfile::tempdir().unwrap();
    let warc = example_warc(dir.path(), 2, false);
    let store = dir.path().join("t.sqlite");
    let config = BatchConfig::default();
    let first = batch(
        &[BatchInput::Warc(warc.clone())],
        &config,
        &store,
        &dir.path().join("1.jsonl"),
    );
    assert!(first.learned >= 2);
    // New pages of known sites (here: the same mirror read as a directory under one of the
    // hosts) are matched to the stored templates, nothing is learned again.
    let mirror = BatchInput::Mirror {
        dir: example_dir(),
        prefixes: vec!["www.riverbend-garden0.example".into()],
    };
    let second = batch(
        std::slice::from_ref(&mirror),
        &config,
        &store,
        &dir.path().join("2.jsonl"),
    );
    assert_eq!(second.learned, 0, "{second:?}");
    assert!(second.reused >= 1);
    let recs = read_out(&dir.path().join("2.jsonl"));
    assert!(recs.iter().filter(|r| r.cluster.is_some()).count() >= 10);
    // --relearn makes a new version of the site.
    let relearn = BatchConfig {
        relearn: true,
        ..config
    };
    let third = batch(&[mirror], &relearn, &store, &dir.path().join("3.jsonl"));
    assert!(third.learned >= 1);
    let s = TemplateStore::open(&store).unwrap();
    let t = s.site_templates("riverbend-garden0.example").unwrap();
    assert!(t.iter().all(|t| t.version == 2));
}

#[test]
fn resumed_run_equals_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let warc = example_warc(dir.path(), 4, true);
    let inputs = [BatchInput::Warc(warc)];
    let config = BatchConfig {
        chunk: 7,
        ..BatchConfig::default()
    };
    let whole = dir.path().join("whole.jsonl");
    batch(&inputs, &config, &dir.path().join("whole.sqlite"), &whole);
    let expected = std::fs::read(&whole).unwrap();
    // Interrupted after 20 records, in the middle of a line.
    let store = dir.path().join("cut.sqlite");
    let cut = dir.path().join("cut.jsonl");
    batch(&inputs, &config, &store, &cut);
    let lines: Vec<&[u8]> = expected.split_inclusive(|b| *b == b'\n').collect();
    let mut partial: Vec<u8> = lines[..20].concat();
    partial.extend_from_slice(&lines[20][..lines[20].len() / 2]);
    std::fs::write(&cut, &partial).unwrap();
    let mut s = TemplateStore::open(&store).unwrap();
    let mut out = OutputFile::resume(&cut).unwrap();
    assert_eq!(out.next_seq(), 20);
    let summary = run(&inputs, &config, &mut s, &mut out, &|_| {}).unwrap();
    drop(out);
    assert!(summary.resumed);
    assert_eq!(summary.written as usize, lines.len() - 20);
    assert_eq!(std::fs::read(&cut).unwrap(), expected);
    // Interrupted while learning (nothing written, nothing stored): a fresh start, same
    // output.
    let store = dir.path().join("early.sqlite");
    let early = dir.path().join("early.jsonl");
    std::fs::write(&early, b"").unwrap();
    let mut s = TemplateStore::open(&store).unwrap();
    let mut out = OutputFile::resume(&early).unwrap();
    let summary = run(&inputs, &config, &mut s, &mut out, &|_| {}).unwrap();
    drop(out);
    assert!(!summary.resumed);
    assert_eq!(std::fs::read(&early).unwrap(), expected);
}

/// Run `config` over `inputs` once per (threads, chunk size), each in a pool of its own and
/// with a fresh store: the output files' bytes and the summaries.
fn outputs_by_threads_and_chunks(
    inputs: &[BatchInput],
    config: &BatchConfig,
    dir: &Path,
    runs: &[(usize, usize)],
) -> Vec<(Vec<u8>, templex::batch::Summary)> {
    runs.iter()
        .map(|&(threads, chunk)| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let out = dir.join(format!("{threads}-{chunk}.jsonl"));
            let store = dir.join(format!("{threads}-{chunk}.sqlite"));
            let config = BatchConfig {
                chunk,
                ..config.clone()
            };
            let s = pool.install(|| batch(inputs, &config, &store, &out));
            (std::fs::read(&out).unwrap(), s)
        })
        .collect()
}

#[test]
fn output_does_not_depend_on_threads_or_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let warc = example_warc(dir.path(), 2, false);
    let inputs = [BatchInput::Warc(warc)];
    let outs = outputs_by_threads_and_chunks(
        &inputs,
        &BatchConfig::default(),
        dir.path(),
        &[(1, 1), (2, 5), (4, 256)],
    );
    assert_eq!(outs[0].0, outs[1].0);
    assert_eq!(outs[0].0, outs[2].0);
}

#[test]
fn tiny_sample_memory_degrades_to_page_level_not_to_failure() {
    let dir = tempfile::tempdir().unwrap();
    let warc = example_warc(dir.path(), 3, false);
    let config = BatchConfig {
        sample_memory: 1,
        ..BatchConfig::default()
    };
    let out = dir.path().join("o.jsonl");
    let s = batch(
        &[BatchInput::Warc(warc)],
        &config,
        &dir.path().join("t.sqlite"),
        &out,
    );
    assert!(s.evicted > 0);
    let recs = read_out(&out);
    assert_eq!(recs.len(), 39);
    assert!(recs.iter().all(|r| r.error.is_none() && r.text.is_some()));
}

/// Batch content of the dev gold key pages is as good as `templex content --site` (measured
/// with the AEB metric by bench/batch/run.py: 0.997 vs 0.996); here: the key pages get a
/// learned template, not the page-level fallback.
#[test]
fn dev_mirrors_key_pages_get_learned_templates() {
    let Some(data) = common::data_dir() else {
        return;
    };
    let sites = templex::eval::load_gold(&data.join("gold")).unwrap();
    let inputs: Vec<BatchInput> = sites
        .iter()
        .map(|s| BatchInput::Mirror {
            dir: s.mirror_dir(&data),
            prefixes: s.url_prefixes.clone(),
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.jsonl");
    let s = batch(
        &inputs,
        &BatchConfig::default(),
        &dir.path().join("t.sqlite"),
        &out,
    );
    assert_eq!(s.errors, 0);
    let recs = read_out(&out);
    let mut with_template = 0;
    for site in &sites {
        for key in &site.key_pages {
            let path = site.mirror_dir(&data).join(&key.page);
            let path = path.canonicalize().unwrap();
            let r = recs
                .iter()
                .find(|r| Path::new(&r.input).canonicalize().ok().as_deref() == Some(&*path))
                .unwrap_or_else(|| panic!("no record for {}", path.display()));
            if r.cluster.is_some() {
                with_template += 1;
            }
        }
    }
    assert!(with_template >= 30, "{with_template} of 32 key pages");
}

#[test]
fn resuming_with_changed_inputs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let warc = example_warc(dir.path(), 1, false);
    let out = dir.path().join("o.jsonl");
    let store = dir.path().join("t.sqlite");
    batch(
        &[BatchInput::Warc(warc)],
        &BatchConfig::default(),
        &store,
        &out,
    );
    // Same output and store, other settings: the existing records came from another run.
    let mut s = TemplateStore::open(&store).unwrap();
    let mut o = OutputFile::resume(&out).unwrap();
    let other = BatchConfig {
        sample_pages: 7,
        ..BatchConfig::default()
    };
    let warc = dir.path().join("example.warc.gz");
    let err = run(&[BatchInput::Warc(warc)], &other, &mut s, &mut o, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("cannot resume"), "{err}");
}

/// Loose files have no URL: their `<link rel=canonical>` names the site, which is known only
/// once they are parsed. They learn and apply the same templates as the same pages with
/// URLs (in a WARC).
#[test]
fn loose_files_find_their_site_by_canonical_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = example_dir();
    let mut files = Vec::new();
    for rel in [
        "index.html",
        "about/contact.html",
        "about/index.html",
        "about/volunteers.html",
        "garden/calendar.html",
        "garden/compost-guide.html",
        "garden/index.html",
        "garden/plots.html",
        "news/harvest-festival.html",
        "news/index.html",
        "news/new-greenhouse.html",
    ] {
        let html = std::fs::read_to_string(root.join(rel)).unwrap();
        let link =
            format!("<head><link rel=\"canonical\" href=\"https://www.riverbend.example/{rel}\">");
        assert!(html.contains("<head>"), "{rel}");
        let path = dir.path().join(rel.replace('/', "-"));
        std::fs::write(&path, html.replacen("<head>", &link, 1)).unwrap();
        files.push(BatchInput::File(path));
    }
    for method in [Method::TableChunk, Method::HybEx] {
        let (s, recs) = batch_method(&files, method, dir.path());
        assert_eq!(s.sites, 1, "{s:?}");
        assert!(s.learned >= 1, "{s:?}");
        assert_eq!(recs.len(), files.len());
        assert!(
            recs.iter()
                .all(|r| r.site.as_deref() == Some("riverbend.example"))
        );
        let guide = recs
            .iter()
            .find(|r| r.input.ends_with("garden-compost-guide.html"))
            .unwrap();
        assert_eq!(guide.method, Some(method), "{guide:?}");
        let text = guide.text.as_deref().unwrap();
        assert!(text.contains("compost"), "{text}");
        assert!(!text.contains("Volunteer with us"), "{method:?}: {text}");
    }
}

/// Words for page text that differs from page to page.
const WORDS: &[&str] = &[
    "river", "stone", "meadow", "lantern", "copper", "harbor", "willow", "ember", "glacier",
    "orchard", "falcon", "saffron", "quarry", "velvet", "thistle", "canyon", "marble", "juniper",
    "tundra", "cobalt", "prairie", "anchor", "bramble", "cinder",
];

/// A page of a synthetic site: layout `a` (header, menu, article, footer), `b` (a forum
/// table with its own menu and footer) or `c` (see below); page `i` has text of its own.
fn synthetic_page(host: &str, layout: char, i: usize) -> String {
    let text: Vec<&str> = (0..40)
        .map(|k| WORDS[(i * 7 + k * (i % 5 + 1)) % WORDS.len()])
        .collect();
    let text = format!("Item {i} {host} {}", text.join(" "));
    match layout {
        'a' => format!(
            "<html><head><title>{host} page {i}</title></head><body>\
             <div id=\"hdr\"><a href=\"/\">Home of {host}</a> <a href=\"/about\">About the people behind {host}</a></div>\
             <ul class=\"menu\"><li><a href=\"/news\">News and announcements</a></li><li><a href=\"/shop\">Shop for seeds</a></li></ul>\
             <div id=\"main\"><h1>Article number {i}</h1><p>{text}</p></div>\
             <div id=\"foot\"><p>Copyright {host}, all rights reserved, write to us</p></div></body></html>"
        ),
        // The forum inside the site's header, menu and footer: nearer to `b`, yet near
        // enough to `a` to match its template when `b` has none.
        'c' => format!(
            "<html><head><title>Forum topic {i}</title></head><body>\
             <div id=\"hdr\"><a href=\"/\">Home of {host}</a></div>\
             <ul class=\"menu\"><li><a href=\"/news\">News and announcements</a></li></ul>\
             <table class=\"forum\"><tr><td class=\"side\"><p>Forum index and rules of conduct</p><p>Members online now</p></td>\
             <td class=\"posts\"><div class=\"post\"><span class=\"author\">poster{i}</span><p>{text}</p></div></td></tr></table>\
             <section class=\"fbar\"><em>Powered by a forum engine nobody remembers</em></section>\
             <div id=\"foot\"><p>Copyright {host}, all rights reserved, write to us</p></div></body></html>"
        ),
        _ => format!(
            "<html><head><title>Forum topic {i}</title></head><body>\
             <table class=\"forum\"><tr><td class=\"side\"><p>Forum index and rules of conduct</p><p>Members online now</p></td>\
             <td class=\"posts\"><div class=\"post\"><span class=\"author\">poster{i}</span><p>{text}</p></div></td></tr></table>\
             <section class=\"fbar\"><em>Powered by a forum engine nobody remembers</em></section></body></html>"
        ),
    }
}

/// A WARC of synthetic pages, as (host, layout, page number) in order.
fn synthetic_warc(path: &Path, pages: &[(String, char, usize)]) {
    let mut w = WarcWriter::create(path, true).unwrap();
    for (host, layout, i) in pages {
        let url = format!("https://{host}/{layout}/{i}.html");
        w.write_response(&url, synthetic_page(host, *layout, *i).as_bytes(), None)
            .unwrap();
    }
    w.finish().unwrap();
}

/// Site `a.example`: 12 pages of one layout, then (after 300 pages of other sites) 12 of
/// another layout; the filler sites have 10 pages each.
fn two_layouts() -> Vec<(String, char, usize)> {
    let mut pages: Vec<(String, char, usize)> =
        (0..12).map(|i| ("a.example".to_string(), 'a', i)).collect();
    for k in 0..30 {
        pages.extend((0..10).map(|i| (format!("f{k}.example"), 'a', i)));
    }
    pages.extend((0..12).map(|i| ("a.example".to_string(), 'b', i)));
    pages
}

#[test]
fn later_rounds_learn_templates_the_first_pages_did_not_show() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("s.warc.gz");
    synthetic_warc(&warc, &two_layouts());
    let out = dir.path().join("o.jsonl");
    let s = batch(
        &[BatchInput::Warc(warc)],
        &BatchConfig::default(),
        &dir.path().join("t.sqlite"),
        &out,
    );
    assert_eq!(s.sites, 31);
    // One template per filler site, two for a.example.
    assert_eq!(s.learned, 32, "{s:?}");
    let recs = read_out(&out);
    assert_eq!(recs.len(), 324);
    assert!(recs.iter().enumerate().all(|(i, r)| r.seq == i as u64));
    let forum: Vec<&OutRecord> = recs
        .iter()
        .filter(|r| r.url.as_deref().is_some_and(|u| u.contains("a.example/b/")))
        .collect();
    assert_eq!(forum.len(), 12);
    for r in forum {
        assert_eq!(r.method, Some(Method::TableChunk), "{r:?}");
        assert_eq!(r.cluster.as_deref(), Some("a.example#1"));
        let text = r.text.as_deref().unwrap();
        assert!(text.contains("Item"), "{text}");
        assert!(!text.contains("Forum index and rules"), "{text}");
        assert!(!text.contains("Powered by"), "{text}");
    }
    let first = recs.iter().find(|r| r.seq == 3).unwrap();
    assert_eq!(first.cluster.as_deref(), Some("a.example#0"));
    assert!(!first.text.as_deref().unwrap().contains("Copyright"));
}

/// A site whose pages come one in 20 records over a crawl of other sites: each round ends
/// by the window with a few pages, too few for a template; kept for the next rounds, they
/// add up until one learns, and the later pages get the template.
#[test]
fn thinly_spread_sites_learn_across_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("s.warc.gz");
    let mut pages = Vec::new();
    for i in 0..24 {
        pages.push(("thin.example".to_string(), 'a', i));
        pages.extend((0..19).map(|k| (format!("f{}.example", i * 19 + k), 'b', k)));
    }
    synthetic_warc(&warc, &pages);
    let out = dir.path().join("o.jsonl");
    let config = BatchConfig {
        window: 60,
        min_pages: 8,
        ..BatchConfig::default()
    };
    let s = batch(
        &[BatchInput::Warc(warc)],
        &config,
        &dir.path().join("t.sqlite"),
        &out,
    );
    assert!(s.too_small > 0, "{s:?}");
    let thin: Vec<OutRecord> = read_out(&out)
        .into_iter()
        .filter(|r| r.site.as_deref() == Some("thin.example"))
        .collect();
    assert_eq!(thin.len(), 24);
    // The first rounds (3 pages each) learn nothing.
    assert_eq!(thin[0].method, Some(Method::MainContent));
    let templated = thin
        .iter()
        .filter(|r| r.method == Some(Method::TableChunk))
        .count();
    assert!(templated >= 10, "{templated} of 24 pages with a template");
    assert_eq!(thin[23].method, Some(Method::TableChunk));
    assert!(
        !thin[23]
            .text
            .as_deref()
            .unwrap()
            .contains("About the people behind")
    );
}

/// Rounds ended by the window and by the memory budget, sites learned in several rounds:
/// the output is the same whatever the thread count and chunk size, and a run interrupted
/// anywhere resumes to the same output.
#[test]
fn multi_round_output_is_deterministic_and_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("s.warc.gz");
    let mut pages = two_layouts();
    // Interleave a second two-layout site through the fillers.
    let mut mixed = Vec::new();
    for (n, p) in pages.drain(..).enumerate() {
        mixed.push(p);
        if n % 9 == 0 {
            let layout = if n < 160 { 'a' } else { 'b' };
            mixed.push(("mix.example".to_string(), layout, n));
        }
    }
    synthetic_warc(&warc, &mixed);
    let inputs = [BatchInput::Warc(warc)];
    let config = BatchConfig {
        window: 50,
        sample_memory: 30_000,
        ..BatchConfig::default()
    };
    let outs =
        outputs_by_threads_and_chunks(&inputs, &config, dir.path(), &[(1, 1), (2, 7), (4, 256)]);
    assert!(outs.iter().all(|(_, s)| s.evicted > 0), "{:?}", outs[0].1);
    assert_eq!(outs[0].0, outs[1].0);
    assert_eq!(outs[0].0, outs[2].0);
    // With room for 2 sites in memory, idle sites leave and come back from the store.
    let parked = BatchConfig {
        site_cache: 2,
        ..config.clone()
    };
    let few_dir = dir.path().join("few");
    std::fs::create_dir(&few_dir).unwrap();
    let few = outputs_by_threads_and_chunks(&inputs, &parked, &few_dir, &[(2, 5)]);
    assert_eq!(outs[0].0, few[0].0);
    let expected = &outs[0].0;
    let lines: Vec<&[u8]> = expected.split_inclusive(|b| *b == b'\n').collect();
    let config = BatchConfig { chunk: 7, ..config };
    for cut in [1, 40, 133, lines.len() - 1] {
        // A complete run's store, its output cut after `cut` records.
        let store = dir.path().join(format!("cut{cut}.sqlite"));
        let out = dir.path().join(format!("cut{cut}.jsonl"));
        let whole = batch(&inputs, &config, &store, &out);
        std::fs::write(&out, lines[..cut].concat()).unwrap();
        let mut s = TemplateStore::open(&store).unwrap();
        let mut o = OutputFile::resume(&out).unwrap();
        let resumed = run(&inputs, &config, &mut s, &mut o, &|_| {}).unwrap();
        drop(o);
        assert!(resumed.resumed);
        assert_eq!(resumed.learned, 0, "templates are not stored twice");
        assert_eq!(resumed.written as usize, lines.len() - cut);
        assert_eq!(&std::fs::read(&out).unwrap(), expected, "cut after {cut}");
        assert_eq!(
            s.list(None).unwrap().len(),
            whole.learned,
            "cut after {cut}"
        );
    }
}

/// Pages applied in parallel with the templates their site had when their chunk started
/// are matched again when the site learns a nearer template before their turn: the output
/// is the one of processing each record in turn.
#[test]
fn a_template_learned_within_a_chunk_applies_to_the_rest_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("s.warc.gz");
    let s = |layout, i| ("s.example".to_string(), layout, i);
    let filler =
        |from: usize, n: usize| (from..from + n).map(|k| (format!("f{k}.example"), 'b', k));
    let mut pages: Vec<(String, char, usize)> = (0..12).map(|i| s('a', i)).collect();
    pages.extend(filler(0, 20));
    // The forum's round starts at record 32 and ends with record 52 (the window).
    pages.extend((0..12).map(|i| s('b', i)));
    pages.extend(filler(20, 8));
    pages.extend((0..6).map(|i| s('c', i)));
    synthetic_warc(&warc, &pages);
    let inputs = [BatchInput::Warc(warc)];
    let mut outs = Vec::new();
    // Chunks of 40: the one from record 40 starts with the site's first template only.
    for chunk in [1, 40] {
        let config = BatchConfig {
            window: 20,
            chunk,
            ..BatchConfig::default()
        };
        let out = dir.path().join(format!("{chunk}.jsonl"));
        batch(
            &inputs,
            &config,
            &dir.path().join(format!("{chunk}.sqlite")),
            &out,
        );
        let recs = read_out(&out);
        let clusters: Vec<Option<String>> =
            recs[52..58].iter().map(|r| r.cluster.clone()).collect();
        // Record 52 comes before the forum's template; the next ones after it.
        assert_eq!(clusters[0].as_deref(), Some("s.example#0"), "chunk {chunk}");
        for c in &clusters[1..] {
            assert_eq!(
                c.as_deref(),
                Some("s.example#1"),
                "chunk {chunk}: {clusters:?}"
            );
        }
        outs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outs[0], outs[1]);
}
