//! End-to-end tests of `templex template --method pagelevel|sitelevel` and `templex train`.

use crate::common;

use common::{data_dir, example_site, ok, templex};

#[test]
fn segments_of_one_page_without_a_site() {
    // A lone file, no --site: page-level needs nothing else.
    let page = example_site().join("news/harvest-festival.html");
    let out = templex()
        .args(["template", "--method", "pagelevel", "--format", "segments"])
        .arg(&page)
        .output()
        .unwrap();
    let out = ok(out);
    let segs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let segs = segs.as_array().unwrap();
    assert!(segs.len() >= 3, "{segs:?}");
    assert_eq!(segs[0]["dom_path"], "/html[1]/body[1]");
    for s in segs {
        let score = s["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert!(s["template"].is_boolean());
        assert!(s["nodes"].as_u64().unwrap() >= 1);
    }
    // Annotated output marks the menu and keeps the article unmarked.
    let out = templex()
        .args(["template", "--method", "pagelevel", "--format", "annotated"])
        .arg(&page)
        .output()
        .unwrap();
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.contains("template_node"));
    // Segments need a page-level result.
    let out = templex()
        .args([
            "template",
            "--method",
            "temex",
            "--no-fallback",
            "--format",
            "segments",
        ])
        .arg(example_site().join("garden/plots.html"))
        .args(["--site"])
        .arg(example_site())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn sitelevel_json_reports_the_sample() {
    let site = example_site();
    let out = templex()
        .args([
            "template",
            "--method",
            "sitelevel",
            "--site-pages",
            "8",
            "--format",
            "json",
        ])
        .arg("--site")
        .arg(&site)
        .arg(site.join("about/contact.html"))
        .output()
        .unwrap();
    let out = ok(out);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["method"], "sitelevel");
    assert!(r["pages_loaded"].as_u64().unwrap() <= 9);
    assert!(r["template_elements"].as_u64().unwrap() > 10);
}

#[test]
fn train_writes_a_model_the_other_commands_accept() {
    let Some(data) = data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    let out = templex()
        .args([
            "train",
            "--sites",
            "firelab-uoft,snappy-docs",
            "--label-pages",
            "15",
        ])
        .args(["--sample-pages", "5", "--out"])
        .arg(&model)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    ok(out);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(
        json["training"]["sites"],
        serde_json::json!(["firelab-uoft", "snappy-docs"])
    );
    let out = templex()
        .args([
            "template",
            "--method",
            "pagelevel",
            "--format",
            "json",
            "--model",
        ])
        .arg(&model)
        .arg(example_site().join("index.html"))
        .output()
        .unwrap();
    ok(out);
    // A site that is not in sites.json is one clear error.
    let out = templex()
        .args(["train", "--sites", "no-such-site", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-site"));
}

/// `templex train OUT_FLAG FILE` on the data (`None` without it): the model it writes.
fn train_fresh(out_flag: &str) -> Option<serde_json::Value> {
    let data = data_dir()?;
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    let out = templex()
        .args(["train", out_flag])
        .arg(&model)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    ok(out);
    Some(serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap())
}

/// The shipped model is what `templex train` builds from the dev sites, nothing else.
#[test]
fn shipped_model_is_reproducible() {
    let Some(fresh) = train_fresh("--out") else {
        return;
    };
    let shipped: serde_json::Value =
        serde_json::from_str(include_str!("../../../templex/src/pagelevel/model.json")).unwrap();
    assert_eq!(fresh["features"], shipped["features"]);
    assert_eq!(fresh["training"]["sites"], shipped["training"]["sites"]);
    let (a, b) = (
        fresh["buckets"].as_array().unwrap(),
        shipped["buckets"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x["samples"], y["samples"]);
        for (u, v) in x["weights"]
            .as_array()
            .unwrap()
            .iter()
            .zip(y["weights"].as_array().unwrap())
        {
            let (u, v) = (u.as_f64().unwrap(), v.as_f64().unwrap());
            assert!((u - v).abs() < 1e-6, "{u} vs {v}");
        }
    }
}

/// The shipped content model is what `templex train --content-out` builds from WCXB dev's
/// gold, nothing else.
#[test]
fn shipped_content_model_is_reproducible() {
    let Some(fresh) = train_fresh("--content-out") else {
        return;
    };
    let shipped: serde_json::Value = serde_json::from_str(include_str!(
        "../../../templex/src/pagelevel/content_model.json"
    ))
    .unwrap();
    assert_eq!(fresh["features"], shipped["features"]);
    assert_eq!(fresh["notes"], shipped["notes"]);
    let (a, b) = (
        fresh["trees"].as_array().unwrap(),
        shipped["trees"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x["feature"], y["feature"]);
        for (u, v) in x["value"]
            .as_array()
            .unwrap()
            .iter()
            .zip(y["value"].as_array().unwrap())
        {
            let (u, v) = (u.as_f64().unwrap(), v.as_f64().unwrap());
            assert!((u - v).abs() < 1e-6, "{u} vs {v}");
        }
    }
}
