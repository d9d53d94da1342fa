//! The evaluator on the shared gold standard (skipped with a notice when the data is absent).

use crate::common;

use std::time::{Duration, Instant};

use templex::PageSource;
use templex::eval::Selector;
use templex::eval::{EvalReport, Prediction, evaluate, load_gold};
use templex::sources::MirrorSource;
use url::Url;

/// A detector that marks every node template, timing itself.
fn all_template(source: &MirrorSource, url: &Url) -> Result<Prediction, String> {
    let t = Instant::now();
    let page = source.load(url).map_err(|e| e.to_string())?;
    let doc = page.parse();
    let template = vec![true; doc.len()];
    Ok(Prediction {
        doc,
        template,
        pages_loaded: source.stats().attempts,
        time: t.elapsed(),
        notes: Vec::new(),
        stop: None,
        siblings: None,
    })
}

fn run_all_template() -> Option<EvalReport> {
    let data = common::data_dir()?;
    Some(evaluate(&data, &data.join("gold"), &all_template).unwrap())
}

/// The README's calibration point: marking every body element template scores macro
/// template F1 0.610 and content F1 0 on the dev gold. Matching it validates the scoring unit
/// (body descendants, body excluded), the gold selectors, and the averaging.
#[test]
fn all_template_matches_readme_figure() {
    let Some(report) = run_all_template() else {
        return;
    };
    eprintln!("{report}");
    let m = report.macro_avg;
    eprintln!(
        "all-template: macro template P {:.5} R {:.5} F1 {:.5}, content F1 {:.5}",
        m.template.precision, m.template.recall, m.template.f1, m.content.f1
    );
    assert_eq!(m.pages, 32);
    assert_eq!(m.errors, 0, "{report}");
    assert!(
        (m.template.f1 - 0.610).abs() < 0.0015,
        "macro template F1 {}",
        m.template.f1
    );
    assert_eq!(m.template.recall, 1.0);
    assert_eq!(m.content.f1, 0.0);
    assert_eq!(m.content.precision, 0.0);
    assert_eq!((m.mean_loads, m.median_loads), (1.0, 1.0));
    for r in &report.rows {
        assert!(r.body_elements > 0, "{} {}", r.site, r.page);
        assert_eq!(r.predicted_template, r.body_elements);
        assert!(
            r.gold_template < r.body_elements,
            "{} {}: no gold content",
            r.site,
            r.page
        );
        assert!(r.time_ms.is_some_and(|t| t >= 0.0));
    }
}

/// Every gold selector parses, and each matches at least one element of its key page (a
/// selector matching nothing would silently shrink the gold content).
#[test]
fn gold_selectors_parse_and_match() {
    let Some(data) = common::data_dir() else {
        return;
    };
    let sites = load_gold(&data.join("gold")).unwrap();
    assert_eq!(sites.len(), 8);
    let mut unmatched = Vec::new();
    for site in &sites {
        let source = site.mirror(&data).unwrap();
        for key in &site.key_pages {
            let url = key.url(&source).unwrap();
            let doc = source.load(&url).unwrap().parse();
            for css in &key.content {
                let sel = Selector::parse(css).unwrap_or_else(|e| panic!("{}: {e}", site.site));
                if sel.select(&doc).is_empty() {
                    unmatched.push(format!("{} {}: {css}", site.site, key.page));
                }
            }
        }
    }
    assert!(
        unmatched.is_empty(),
        "selectors matching nothing: {unmatched:#?}"
    );
}

/// The JSON report round-trips and has one row per key page.
#[test]
fn report_json_shape() {
    let Some(report) = run_all_template() else {
        return;
    };
    let json = serde_json::to_string(&report).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 32);
    assert!(v["macro"]["template"]["f1"].as_f64().unwrap() > 0.5);
    let back: EvalReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back.rows.len(), report.rows.len());
    assert!(report.macro_avg.median_ms < Duration::from_secs(10).as_secs_f64() * 1000.0);
}
