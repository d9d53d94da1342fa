//! `templex eval` on the shared gold standard (skipped with a notice when the data is absent).

use crate::common;

use common::{data_dir, templex};

use std::path::PathBuf;

#[test]
fn eval_writes_one_row_per_key_page() {
    let Some(data) = data_dir() else {
        return;
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("templex-eval-report.json");
    let _ = std::fs::remove_file(&out);
    let run = templex()
        .arg("eval")
        .arg("--gold")
        .arg(data.join("gold"))
        .arg("--json")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 32);
    for r in rows {
        for class in ["template", "content"] {
            let f1 = r[class]["f1"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&f1), "{r}");
        }
        assert!(r["site"].is_string() && r["page"].is_string() && r["kind"].is_string());
    }
    assert_eq!(json["macro"]["pages"], 32);
    // The text table: header, 32 rows, macro and median rows.
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.starts_with("site "), "{stdout}");
    assert!(stdout.contains("macro (32 pages"), "{stdout}");
}

#[test]
fn eval_without_gold_is_a_one_line_error() {
    let run = templex()
        .args(["eval", "--gold", "/nonexistent/templex-gold"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("gold"), "{stderr}");
}
