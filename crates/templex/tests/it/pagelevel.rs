//! Page-level template detection (PAGELEVEL) and SITELEVEL: behaviour on the bundled example
//! site (no shared data needed), training end to end on a small mirror, and floors on the
//! dev gold.

use crate::common;

use std::path::PathBuf;

use templex::eval::select;
use templex::html::parse_str;
use templex::page_level::{PageLevelConfig, PageLevelModel as Model, detect_page_level as detect};
use templex::sources::MirrorSource;
use templex::train::{SiteTrainConfig, TrainConfig, TrainingInfo, site_samples, train};
use templex::{Method, NodeId, PageSource, TemplateConfig, extract_template};

fn example() -> MirrorSource {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site");
    MirrorSource::new(dir, &["https://www.riverbend-garden.example/"]).unwrap()
}

fn share_template(doc: &templex::Document, template: &[bool], css: &str) -> f64 {
    let ids = select(doc, css).unwrap();
    assert!(!ids.is_empty(), "{css} matches nothing");
    let elements: Vec<NodeId> = ids
        .iter()
        .flat_map(|id| doc.subtree(*id).map(NodeId))
        .filter(|n| doc.element(*n).is_some())
        .collect();
    elements.iter().filter(|e| template[e.index()]).count() as f64 / elements.len() as f64
}

#[test]
fn pagelevel_on_one_page_of_the_example_site() {
    let source = example();
    let url = source.base_url().join("news/spring-planting.html").unwrap();
    let config = TemplateConfig::pagelevel();
    let r = extract_template(&source, &url, &config).unwrap();
    assert_eq!(r.method, Method::PageLevel);
    assert_eq!(r.loads.attempts, 1, "page-level loads the key page only");
    assert!(share_template(&r.doc, &r.template, "#main-menu") > 0.9);
    assert!(share_template(&r.doc, &r.template, "body > div > footer") > 0.9);
    assert!(share_template(&r.doc, &r.template, "main article p") < 0.1);
    // Segments: document order, root first, scores in [0, 1], template ones present.
    assert!(!r.segments.is_empty());
    assert!(r.segments.iter().all(|s| (0.0..=1.0).contains(&s.score)));
    assert!(r.segments.windows(2).all(|w| w[0].root < w[1].root));
    assert!(r.segments.iter().any(|s| s.template));
    assert!(r.segments.iter().any(|s| !s.template));
}

#[test]
fn smoothing_makes_fewer_segments_than_nodes() {
    let source = example();
    let url = source.base_url().join("garden/compost-guide.html").unwrap();
    let doc = source.load(&url).unwrap().parse();
    let smooth = detect(
        &doc,
        Some(&url),
        Model::builtin(),
        &PageLevelConfig::default(),
    );
    let basic = detect(
        &doc,
        Some(&url),
        Model::builtin(),
        &PageLevelConfig {
            smooth: false,
            ..PageLevelConfig::default()
        },
    );
    assert!(smooth.segments.len() * 2 < basic.segments.len());
    // Monotone: a node's smoothed score is at least its parent's (classified nodes).
    for id in doc.elements() {
        if let Some(p) = doc.parent(id) {
            if doc.body().is_some_and(|b| doc.contains(b, p)) {
                assert!(smooth.smoothed[id.index()] + 1e-12 >= smooth.smoothed[p.index()]);
            }
        }
    }
}

#[test]
fn sitelevel_on_the_example_site() {
    let source = example();
    let url = source.base_url().join("garden/plots.html").unwrap();
    let r = extract_template(&source, &url, &TemplateConfig::sitelevel()).unwrap();
    assert_eq!(r.method, Method::SiteLevel);
    assert!(r.loads.attempts > 5);
    // Fragments identical on every page are template; the menu's items change with the
    // current section, so only most of the menu is.
    assert!(share_template(&r.doc, &r.template, "#masthead .site-branding") > 0.9);
    assert!(share_template(&r.doc, &r.template, "body > div > footer") > 0.9);
    assert!(share_template(&r.doc, &r.template, "#main-menu") > 0.5);
    assert!(share_template(&r.doc, &r.template, "main article p") < 0.1);
    // The print page has another template: it is left out of the sample, with a note.
    assert!(
        r.notes.iter().any(|n| n.contains("another template")),
        "{:?}",
        r.notes
    );
}

#[test]
fn hostile_pages_do_not_panic() {
    let model = Model::builtin();
    let deep = format!("{}x{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
    for html in [
        String::new(),
        "<html>".into(),
        "\u{0}\u{1}garbage<<<>>>".into(),
        deep,
        "<body>".to_string() + &"<p>a <a href=x>b</a></p>".repeat(20_000),
    ] {
        let doc = parse_str(&html);
        let r = detect(&doc, None, model, &PageLevelConfig::default());
        assert_eq!(r.template.len(), doc.len());
    }
}

#[test]
fn training_on_a_mirror_gives_a_usable_model() {
    let source = example();
    let s = site_samples("example", &source, &SiteTrainConfig::default());
    assert!(s.set.len() > 50, "{}", s.set.len());
    assert!(s.template_share > 0.2 && s.template_share < 0.95);
    let model = train(&s.set, &TrainConfig::default(), TrainingInfo::default()).unwrap();
    let back = Model::from_json(&model.to_json()).unwrap();
    let url = source.base_url().join("about/volunteers.html").unwrap();
    let doc = source.load(&url).unwrap().parse();
    let r = detect(&doc, Some(&url), &back, &PageLevelConfig::default());
    assert!(share_template(&doc, &r.template, "#main-menu") > 0.9);
}

/// The shipped model on the dev gold, one page at a time (measured: template F1 0.917,
/// content F1 0.897; leave-one-site-out of the previous model 0.900 / 0.874; BENCHMARKS.md,
/// "PAGELEVEL, one page at a time").
#[test]
fn dev_gold_floors_pagelevel() {
    let Some(report) = common::eval_dev_gold(&TemplateConfig::pagelevel()) else {
        return;
    };
    let m = &report.macro_avg;
    eprintln!("{report}");
    assert_eq!(m.errors, 0);
    assert_eq!(m.mean_loads, 1.0);
    assert!(m.template.f1 >= 0.85, "template F1 {}", m.template.f1);
    assert!(m.content.f1 >= 0.80, "content F1 {}", m.content.f1);
}

/// SITELEVEL over 50 same-template pages (measured: template F1 0.904, content F1 0.897).
#[test]
fn dev_gold_floors_sitelevel() {
    let Some(report) = common::eval_dev_gold(&TemplateConfig::sitelevel()) else {
        return;
    };
    let m = &report.macro_avg;
    assert_eq!(m.errors, 0);
    assert!(m.template.f1 >= 0.87, "template F1 {}", m.template.f1);
    assert!(m.content.f1 >= 0.85, "content F1 {}", m.content.f1);
}
