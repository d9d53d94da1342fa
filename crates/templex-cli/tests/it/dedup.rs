//! `templex dedup`: clusters on a hand-made set, bad and truncated lines, fingerprints from
//! `templex content` and from extraction.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{example_site, ok, templex};

/// `n` words, deterministic and (nearly) all different, from `seed`.
fn text(seed: u64, n: usize) -> Vec<String> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("w{:x}", x >> 40)
        })
        .collect()
}

fn edit(words: &[String], at: &[usize]) -> String {
    let mut w = words.to_vec();
    for &i in at {
        w[i] = format!("changed{i}");
    }
    w.join(" ")
}

fn run(path: &Path, extra: &[&str]) -> (Vec<Value>, String, Option<i32>) {
    let out = templex()
        .arg("dedup")
        .arg(path)
        .args(extra)
        .output()
        .unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

fn write_lines(dir: &Path, lines: &[Value]) -> std::path::PathBuf {
    let p = dir.join("in.jsonl");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn clusters_of_a_hand_made_set_are_exactly_right() {
    let (a, b, c) = (text(1, 300), text(2, 300), text(3, 200));
    let half: Vec<String> = a[..150].iter().cloned().chain(text(4, 150)).collect();
    let records = [
        json!({"url": "a", "text": a.join(" ")}),
        json!({"url": "b", "text": b.join(" ")}),
        // The same words: case, punctuation and spacing differ.
        json!({"url": "a-exact", "text": format!("{}!", a.join(",  ").to_uppercase())}),
        json!({"url": "c", "text": c.join(" ")}),
        // Two words changed: Jaccard 286/306 of the shingles.
        json!({"url": "a-near", "text": edit(&a, &[40, 200])}),
        json!({"url": "half-a", "text": half.join(" ")}),
        json!({"url": "failed", "error": "not_html"}),
        json!({"url": "c-near", "text": edit(&c, &[100])}),
        json!({"url": "empty", "text": " -- "}),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (out, stderr, code) = run(&write_lines(dir.path(), &records), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(out.len(), records.len());
    let get = |url: &str| out.iter().find(|r| r["url"] == url).unwrap();
    // (record, cluster, size)
    for (url, cluster, size) in [
        ("a", 0, 3),
        ("b", 1, 1),
        ("a-exact", 0, 3),
        ("c", 3, 2),
        ("a-near", 0, 3),
        ("half-a", 5, 1),
        ("c-near", 3, 2),
    ] {
        let r = get(url);
        assert_eq!(r["cluster"], cluster, "{url}: {r}");
        assert_eq!(r["size"], size, "{url}: {r}");
    }
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r["id"], i);
    }
    assert_eq!(get("a-exact")["exact"], true);
    assert_eq!(get("a-exact")["similarity"], 1.0);
    assert_eq!(get("a-near").get("exact"), None);
    let s = get("a-near")["similarity"].as_f64().unwrap();
    assert!((0.85..1.0).contains(&s), "{s}");
    assert_eq!(get("c-near")["nearest"], 3);
    assert_eq!(get("failed")["skipped"], "no content: not_html");
    assert_eq!(get("failed").get("cluster"), None);
    assert_eq!(get("empty")["skipped"], "no words");
    assert!(
        stderr.contains("2 clusters of near duplicates hold 5 records"),
        "{stderr}"
    );

    // A stricter threshold keeps the exact copy and drops the near one.
    let (strict, _, _) = run(&dir.path().join("in.jsonl"), &["--threshold", "0.99"]);
    assert_eq!(strict[4]["cluster"], 4);
    assert_eq!(strict[2]["cluster"], 0);

    // --duplicates-only: the five records with a duplicate.
    let (dups, _, _) = run(&dir.path().join("in.jsonl"), &["--duplicates-only"]);
    let urls: Vec<&str> = dups.iter().map(|r| r["url"].as_str().unwrap()).collect();
    assert_eq!(urls, ["a", "a-exact", "c", "a-near", "c-near"]);
}

#[test]
fn bad_and_truncated_lines_are_reported_and_lose_no_record() {
    let a = text(9, 120).join(" ");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("in.jsonl");
    let mut body = Vec::new();
    body.extend_from_slice(format!("{}\n", json!({"url": "a", "text": a})).as_bytes());
    body.extend_from_slice(b"this is not json\n");
    body.extend_from_slice(b"\n");
    body.extend_from_slice(b"{\"url\": \"bytes\", \"text\": \"\xff\xfe\"}\n");
    body.extend_from_slice(b"[1, 2]\n");
    // A fingerprint that is garbage: recomputed from the text.
    body.extend_from_slice(
        format!(
            "{}\n",
            json!({"url": "a-again", "text": a, "fingerprint": {"minhash": "x"}})
        )
        .as_bytes(),
    );
    body.extend_from_slice(format!("{}\n", json!({"url": "b", "text": "other words"})).as_bytes());
    body.extend_from_slice(b"{\"url\": \"cut\", \"text\": \"half a li");
    std::fs::write(&p, &body).unwrap();
    let (out, stderr, code) = run(&p, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    let summary: Vec<(Value, Value)> = out
        .iter()
        .map(|r| (r["url"].clone(), r["input"].clone()))
        .collect();
    let name = p.display().to_string();
    let at = |n: usize| json!(format!("{name}:{n}"));
    assert_eq!(
        summary,
        [
            (json!("a"), Value::Null),
            (Value::Null, at(2)),
            (Value::Null, at(4)),
            (Value::Null, at(5)),
            (json!("a-again"), Value::Null),
            (json!("b"), Value::Null),
            (Value::Null, at(8)),
        ]
    );
    assert!(
        out[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid JSON line")
    );
    assert!(out[2]["error"].as_str().unwrap().contains("not UTF-8"));
    assert!(
        out[6]["error"]
            .as_str()
            .unwrap()
            .starts_with("truncated line")
    );
    // The records around the bad lines are clustered as if those were not there.
    assert_eq!(out[4]["cluster"], 0);
    assert_eq!(out[0]["size"], 2);
    assert_eq!(out[5]["size"], 1);
    assert!(stderr.contains("4 bad lines"), "{stderr}");
    assert!(stderr.contains("bad input line"), "{stderr}");
}

/// `templex content --format jsonl` with `extra` on the example site: its output and records.
fn content_jsonl(extra: &[&str]) -> (String, Vec<Value>) {
    let out = ok(templex()
        .args(["content", "--format", "jsonl"])
        .args(extra)
        .arg(example_site())
        .output()
        .unwrap());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let recs = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (stdout, recs)
}

#[test]
fn content_records_carry_fingerprints_only_when_asked() {
    // By default no record carries one (1.6 KB of JSON each that only dedup reads)...
    let (plain, recs) = content_jsonl(&[]);
    assert!(recs.len() > 5);
    assert!(recs.iter().all(|r| r.get("fingerprint").is_none()));
    assert!(!plain.contains("minhash"));
    // ...nor with the former opt-out, still accepted.
    for extra in [
        &["--no-fingerprint"][..],
        &["--fingerprint", "--no-fingerprint"],
    ] {
        let (_, opted_out) = content_jsonl(extra);
        assert_eq!(opted_out.len(), recs.len());
        assert!(opted_out.iter().all(|r| r.get("fingerprint").is_none()));
    }
    let json = ok(templex()
        .args(["content", "--format", "json"])
        .arg(example_site())
        .output()
        .unwrap());
    assert!(
        !String::from_utf8(json.stdout)
            .unwrap()
            .contains("fingerprint")
    );

    // --fingerprint: every record has one, of the settings given.
    let (with, recs) = content_jsonl(&["--fingerprint"]);
    for r in &recs {
        let fp = &r["fingerprint"];
        assert_eq!(fp["scheme"], 1, "{r}");
        assert_eq!(fp["minhash"].as_array().unwrap().len(), 128);
        assert_eq!(fp["content_hash"].as_str().unwrap().len(), 16);
    }
    let (_, small) = content_jsonl(&["--fingerprint", "--minhash", "16"]);
    assert!(
        small
            .iter()
            .all(|r| r["fingerprint"]["minhash"].as_array().unwrap().len() == 16)
    );
    let json = ok(templex()
        .args(["content", "--format", "json", "--fingerprint"])
        .arg(example_site())
        .output()
        .unwrap());
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(
        json.as_array()
            .unwrap()
            .iter()
            .all(|r| r["fingerprint"]["minhash"].is_array())
    );
    // Text output never has them.
    let text = ok(templex()
        .args(["content", "--fingerprint"])
        .arg(example_site())
        .output()
        .unwrap())
    .stdout;
    assert!(!String::from_utf8(text).unwrap().contains("minhash"));

    // Two copies of the records: every record is an exact duplicate of its copy, whether
    // dedup reads the fingerprints or computes them from the text.
    let dir = tempfile::tempdir().unwrap();
    let n = recs.len();
    let dedup_twice = |name: &str, records: &str, extra: &[&str]| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("{records}{records}")).unwrap();
        let (dd, stderr, code) = run(&p, extra);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(dd.len(), 2 * n);
        for (i, r) in dd.iter().enumerate() {
            assert_eq!(r["cluster"], i % n, "{r}");
            assert_eq!(r["exact"], true, "{r}");
        }
        (dd, stderr)
    };
    let (from_fingerprints, stderr) = dedup_twice("with.jsonl", &with, &[]);
    assert!(stderr.contains("0 fingerprints computed here"), "{stderr}");
    let (from_text, stderr) = dedup_twice("plain.jsonl", &plain, &[]);
    assert!(
        stderr.contains(&format!("{} fingerprints computed here", 2 * n)),
        "{stderr}"
    );
    assert_eq!(from_text, from_fingerprints);
    // Other settings: fingerprints recomputed from the text.
    let (_, stderr) = dedup_twice("with.jsonl", &with, &["--minhash", "64"]);
    assert!(
        stderr.contains(&format!("{} fingerprints computed here", 2 * n)),
        "{stderr}"
    );
}

#[test]
fn pages_are_extracted_as_batch_does() {
    let (out, stderr, code) = run(&example_site(), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(out.len(), 13, "{stderr}");
    assert!(
        out.iter()
            .all(|r| r["url"].as_str().is_some() && r["size"].is_number())
    );
    // The same mirror twice: every page has its exact copy in the other half.
    let site = example_site();
    let out = ok(templex()
        .arg("dedup")
        .arg(&site)
        .arg(&site)
        .output()
        .unwrap());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 26);
    assert!(lines.iter().all(|r| r["size"] == 2 && r["exact"] == true));
}

#[test]
fn batch_records_carry_fingerprints_unless_told_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, extra: &[&str]| -> Vec<Value> {
        let out = dir.path().join(out);
        ok(templex()
            .arg("batch")
            .arg(example_site())
            .arg("--out")
            .arg(&out)
            .arg("--store")
            .arg(dir.path().join("t.sqlite"))
            .args(extra)
            .output()
            .unwrap());
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let with = run("with.jsonl", &[]);
    assert!(!with.is_empty());
    for r in &with {
        assert_eq!(
            r["fingerprint"]["minhash"].as_array().unwrap().len(),
            128,
            "{r}"
        );
    }
    let small = run("small.jsonl", &["--minhash", "16", "--shingle", "3"]);
    assert!(small.iter().all(
        |r| r["fingerprint"]["minhash"].as_array().unwrap().len() == 16
            && r["fingerprint"]["shingle"] == 3
    ));
    // The content hash does not depend on the MinHash settings.
    for (a, b) in with.iter().zip(&small) {
        assert_eq!(
            a["fingerprint"]["content_hash"],
            b["fingerprint"]["content_hash"]
        );
    }
    let without = run("without.jsonl", &["--no-fingerprint"]);
    assert_eq!(without.len(), with.len());
    assert!(without.iter().all(|r| r.get("fingerprint").is_none()));
}
