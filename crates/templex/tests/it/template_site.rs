//! Site-level template extraction: regression floors on the dev gold, and behaviour on the
//! bundled example site (which needs no shared data).

use crate::common;

use std::path::PathBuf;

use templex::eval::select;
use templex::sources::MirrorSource;
use templex::{NodeId, PageSource, TemplateConfig, extract_template};

fn example() -> MirrorSource {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site");
    MirrorSource::new(dir, &["https://www.riverbend-garden.example/"]).unwrap()
}

fn all_template(r: &templex::TemplateResult, css: &str) -> bool {
    let ids = select(&r.doc, css).unwrap();
    assert!(!ids.is_empty(), "{css} matches nothing");
    ids.iter().all(|id| {
        r.doc
            .subtree(*id)
            .all(|n| r.doc.element(NodeId(n)).is_none() || r.is_template(NodeId(n)))
    })
}

fn none_template(r: &templex::TemplateResult, css: &str) -> bool {
    let ids = select(&r.doc, css).unwrap();
    assert!(!ids.is_empty(), "{css} matches nothing");
    ids.iter()
        .all(|id| r.doc.subtree(*id).all(|n| !r.is_template(NodeId(n))))
}

#[test]
fn example_site_template_is_the_chrome() {
    let source = example();
    let url = source.base_url().join("news/spring-planting.html").unwrap();
    let r = extract_template(&source, &url, &TemplateConfig::default()).unwrap();
    assert_eq!(r.cs_pages.len(), 3, "{:?} {:?}", r.cs_pages, r.notes);
    assert!(r.loads.attempts <= 6, "loads {}", r.loads.attempts);
    for css in [
        "#masthead",
        "#main-menu",
        "body > div > footer",
        "#sidebar h2",
    ] {
        assert!(all_template(&r, css), "{css} should be template");
    }
    for css in ["main article p", "main h1"] {
        assert!(none_template(&r, css), "{css} should be content");
    }
}

#[test]
fn page_without_template_and_siblings_of_other_templates() {
    let source = example();
    // The print page links back to the guide only: no CS, a clear note, nothing template.
    let url = source
        .base_url()
        .join("print/garden-guide-print.html")
        .unwrap();
    let mut no_fallback = TemplateConfig::default();
    no_fallback.mapping.fallback = false;
    let r = extract_template(&source, &url, &no_fallback).unwrap();
    assert!(
        r.template.iter().all(|t| !t),
        "no template without siblings"
    );
    assert!(!r.notes.is_empty());
    assert!(!r.fallback);
    // By default PAGELEVEL steps in, and says so.
    let r = extract_template(&source, &url, &TemplateConfig::default()).unwrap();
    assert!(r.fallback);
    assert_eq!(r.method, templex::Method::PageLevel);
    assert!(r.notes.iter().any(|n| n.contains("PAGELEVEL")));
    // The compost guide links the print page; it must not join (or empty) the template.
    let url = source.base_url().join("garden/compost-guide.html").unwrap();
    let r = extract_template(&source, &url, &TemplateConfig::default()).unwrap();
    assert!(!r.cs_pages.iter().any(|u| u.path().contains("print")));
    assert!(all_template(&r, "#main-menu"));
}

#[test]
fn key_page_that_fails_to_load_is_an_error() {
    let source = example();
    let url = source.base_url().join("nope.html").unwrap();
    assert!(extract_template(&source, &url, &TemplateConfig::default()).is_err());
    assert_eq!(source.stats().attempts, 1);
}

/// Floors on the whole dev gold with the default settings (HybEx; measured: template F1
/// 0.980, content F1 0.978, 4.28 loads per key page, none at the load cap; see
/// BENCHMARKS.md, "Template detection on the dev gold").
#[test]
fn dev_gold_floors() {
    dev_gold_floors_for(TemplateConfig::default(), 0.95);
}

/// TemEx with the PAGELEVEL prior (measured: template F1 0.954, content F1 0.961). The
/// prior costs dostips.com's doc page some template F1 (0.81): PAGELEVEL takes its post
/// tables for chrome.
#[test]
fn dev_gold_floors_temex() {
    dev_gold_floors_for(TemplateConfig::temex(), 0.8);
}

fn dev_gold_floors_for(config: TemplateConfig, dostips_doc_floor: f64) {
    let Some(report) = common::eval_dev_gold(&config) else {
        return;
    };
    let m = &report.macro_avg;
    assert_eq!(m.pages, 32);
    assert_eq!(m.errors, 0);
    assert!(m.template.f1 >= 0.94, "template F1 {}", m.template.f1);
    assert!(m.content.f1 >= 0.95, "content F1 {}", m.content.f1);
    assert!(m.mean_loads <= 4.5, "loads {}", m.mean_loads);
    assert_eq!(m.load_cap, 0, "key pages at the load cap");
    for row in &report.rows {
        assert!(
            row.template.f1 >= 0.5,
            "{} {}: template F1 {}",
            row.site,
            row.page,
            row.template.f1
        );
        assert!(
            row.content.f1 >= 0.5,
            "{} {}: content F1 {}",
            row.site,
            row.page,
            row.content.f1
        );
    }
    // A few key pages of different kinds, each with its own floor.
    for (site, page, floor) in [
        ("whizzy.org", "category/linux/index.html", 0.95),
        (
            "drupalcamptoronto2008",
            "content/theming-fundamentals/index.html",
            0.8,
        ),
        ("abc-lang.com", "index.html", 0.95),
        ("compphys-uio", "index.html", 0.95),
        (
            "dostips.com",
            "DtTipsStringManipulation.html",
            dostips_doc_floor,
        ),
    ] {
        let row = report
            .rows
            .iter()
            .find(|r| r.site == site && r.page == page)
            .unwrap();
        assert!(
            row.template.f1 >= floor && row.content.f1 >= floor,
            "{site} {page}: template F1 {} content F1 {}",
            row.template.f1,
            row.content.f1
        );
    }
}

/// A host with two templates: the main site's menu pages (home, about, contact) and a forum
/// whose threads carry a sidebar of their own. A thread links to the main menu, to its
/// forum's index and to two other threads; the threads do not link to each other, so there
/// is no 3-CS of forum pages. The main site's pages must be refused, the other threads
/// chosen as pages of the key page's own kind (and the report must say so), and the
/// thread sidebar must come out as template.
fn two_template_site() -> templex::sources::MemorySource {
    use url::Url;
    let mut source = templex::sources::MemorySource::new();
    let u = |p: &str| Url::parse(&format!("https://two.example/{p}")).unwrap();
    let main_menu = r#"<ul id=menu><li><a href="/index.html">Home</a></li><li><a href="/about.html">About</a></li><li><a href="/contact.html">Contact</a></li><li><a href="/forum/index.html">Forum</a></li></ul>"#;
    let main_page = |title: &str, body: &str| {
        format!(
            r#"<html><head><title>{title}</title></head><body><header class=site><h1 class=brand>Two Example</h1>{main_menu}</header><section class=hero><div class=banner><p>{body}</p></div></section><table class=layout><tr><td class=col><p>{body} once more.</p><p>And again, {body}.</p></td></tr></table><footer class=site-footer><p>Main site footer</p></footer></body></html>"#
        )
    };
    for (p, t) in [
        ("index.html", "Welcome home"),
        ("about.html", "All about us"),
        ("contact.html", "Write to us"),
    ] {
        source.insert(&u(p), main_page(t, t));
    }
    let forum_top = r#"<div id=wrap><div class=forum-head><a class=logo href="/index.html">Two Example</a><div class=forum-nav><a href="/forum/index.html">Board index</a> <a href="/about.html">About</a></div></div>"#;
    let thread = |n: u32, others: &[u32]| {
        let related: String = others
            .iter()
            .map(|o| format!(r#"<li><a href="/forum/thread{o}.html">Thread number {o}</a></li>"#))
            .collect();
        format!(
            r#"<html><head><title>Thread {n}</title></head><body>{forum_top}<div class=page-body><h2 class=topic>Topic {n}: question {n}</h2><div class=post><p>Post text of thread {n}, which differs.</p><p>A reply in thread {n}.</p></div></div><aside class=thread-side><h3>Thread tools</h3><ul><li>Subscribe to this topic</li><li>Print view</li></ul><h3>Related threads</h3><ul class=related>{related}</ul></aside><div class=forum-foot><p>Powered by the board</p></div></div></body></html>"#
        )
    };
    source.insert(&u("forum/thread1.html"), thread(1, &[2, 3]));
    source.insert(&u("forum/thread2.html"), thread(2, &[]));
    source.insert(&u("forum/thread3.html"), thread(3, &[]));
    source.insert(
        &u("forum/index.html"),
        format!(
            r#"<html><head><title>Board index</title></head><body>{forum_top}<div class=page-body><h2 class=topic>All forums</h2><ul class=topics><li><a href="/forum/thread1.html">Thread 1</a></li><li><a href="/forum/thread2.html">Thread 2</a></li><li><a href="/forum/thread3.html">Thread 3</a></li></ul></div><div class=forum-foot><p>Powered by the board</p></div></div></body></html>"#
        ),
    );
    source
}

#[test]
fn host_with_two_templates_takes_the_key_pages_own_kind() {
    let source = two_template_site();
    let url = url::Url::parse("https://two.example/forum/thread1.html").unwrap();
    let r = extract_template(&source, &url, &TemplateConfig::default()).unwrap();
    let paths: Vec<&str> = r.cs_pages.iter().map(|u| u.path()).collect();
    assert!(
        !paths.iter().any(|p| !p.starts_with("/forum/")),
        "main-site pages are of another template: {paths:?} {:?}",
        r.notes
    );
    assert!(paths.contains(&"/forum/thread2.html") && paths.contains(&"/forum/thread3.html"));
    assert_eq!(
        r.siblings,
        templex::sibling_search::SiblingRule::OwnKind,
        "{:?}",
        r.notes
    );
    assert_eq!(r.stop, templex::sibling_search::StopReason::Exhausted);
    assert!(r.loads.attempts <= 7, "loads {}", r.loads.attempts);
    for css in ["div.forum-head", "aside.thread-side h3", "div.forum-foot"] {
        assert!(
            all_template(&r, css),
            "{css} should be template: {:?}",
            r.notes
        );
    }
    assert!(none_template(&r, "div.post p"), "posts are content");
    let report = templex::render::template_report(&r);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["siblings"], "own_kind");
}
