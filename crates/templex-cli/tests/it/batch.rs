//! End-to-end tests of `templex warc`, `templex batch` (including a run killed midway and
//! resumed) and `templex store`.

use crate::common;

use common::{example_site, ok, templex};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn warc(dir: &Path, copies: usize) -> PathBuf {
    let path = dir.join(format!("x{copies}.warc.gz"));
    ok(templex()
        .arg("warc")
        .arg(example_site())
        .args(["--url-prefix", "www.riverbend-garden.example", "--copies"])
        .arg(copies.to_string())
        .arg("--out")
        .arg(&path)
        .output()
        .unwrap());
    path
}

/// `templex batch WARC --out OUT --store STORE`, more arguments to add.
fn batch(warc: &Path, out: &Path, store: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = templex();
    c.arg("batch")
        .arg(warc)
        .arg("--out")
        .arg(out)
        .arg("--store")
        .arg(store);
    c
}

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|c| **c == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn batch_store_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let w = warc(dir.path(), 2);
    let out = dir.path().join("o.jsonl");
    let store = dir.path().join("t.sqlite");
    ok(batch(&w, &out, &store).output().unwrap());
    assert_eq!(lines(&out), 26);
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    for key in [
        "seq",
        "input",
        "url",
        "site",
        "method",
        "text",
        "template_share",
    ] {
        assert!(first.get(key).is_some(), "{key} missing in {first}");
    }
    // An existing output is not overwritten silently.
    let again = batch(&w, &out, &store).output().unwrap();
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("--resume") && err.trim().lines().count() == 1,
        "{err}"
    );
    // The store lists both sites' templates, shows one, and prunes on request.
    let list = ok(templex()
        .args(["store", "list", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap());
    let rows: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert!(rows.len() >= 2);
    assert!(
        rows.iter()
            .all(|r| r["method"] == "tablechunk" && r["version"] == 1)
    );
    let show = ok(templex()
        .args(["store", "show", "riverbend-garden-copy1.example", "--store"])
        .arg(&store)
        .output()
        .unwrap());
    let shown: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert!(shown[0]["model"]["template_chunks"].as_u64().unwrap() > 10);
    let dry = ok(templex()
        .args([
            "store",
            "prune",
            "--site",
            "riverbend-garden.example",
            "--dry-run",
            "--store",
        ])
        .arg(&store)
        .output()
        .unwrap());
    assert!(String::from_utf8_lossy(&dry.stdout).contains("would remove"));
    let none = templex()
        .args(["store", "prune", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(
        !none.status.success(),
        "prune without a selection is refused"
    );
    ok(templex()
        .args([
            "store",
            "prune",
            "--site",
            "riverbend-garden.example",
            "--store",
        ])
        .arg(&store)
        .output()
        .unwrap());
    let list = ok(templex()
        .args(["store", "list", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap());
    let after: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(after.as_array().unwrap().len(), rows.len() - 1);
    // A missing store is one clear error.
    let missing = templex()
        .args(["store", "list", "--store"])
        .arg(dir.path().join("nope.sqlite"))
        .output()
        .unwrap();
    assert!(!missing.status.success());
}

/// A store of another hash scheme (every store made before schemes were recorded) is
/// refused with the fix named, until `templex store prune --stale` clears it.
#[test]
fn stores_of_another_hash_scheme_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let w = warc(dir.path(), 1);
    let store = dir.path().join("t.sqlite");
    ok(batch(&w, &dir.path().join("a.jsonl"), &store)
        .output()
        .unwrap());
    rusqlite::Connection::open(&store)
        .unwrap()
        .execute("DELETE FROM meta WHERE key = 'hash_scheme'", [])
        .unwrap();
    let refused = batch(&w, &dir.path().join("b.jsonl"), &store)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("templex store prune --stale"), "{err}");
    let list = templex()
        .args(["store", "list", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(!list.status.success());
    let dry = ok(templex()
        .args(["store", "prune", "--stale", "--dry-run", "--store"])
        .arg(&store)
        .output()
        .unwrap());
    assert!(String::from_utf8_lossy(&dry.stdout).contains("would remove"));
    ok(templex()
        .args(["store", "prune", "--stale", "--store"])
        .arg(&store)
        .output()
        .unwrap());
    // Cleared: the sites are learned again, with the same output as on a new store.
    let out = dir.path().join("c.jsonl");
    ok(batch(&w, &out, &store).output().unwrap());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(dir.path().join("a.jsonl")).unwrap()
    );
}

/// Kill a running batch (SIGKILL, no chance to clean up) and resume it: the output must be
/// byte-identical to an uninterrupted run's.
#[test]
fn killed_and_resumed_equals_uninterrupted() {
    let dir = tempfile::tempdir().unwrap();
    let w = warc(dir.path(), 40);
    let whole = dir.path().join("whole.jsonl");
    ok(batch(&w, &whole, dir.path().join("whole.sqlite"))
        .output()
        .unwrap());
    let expected = std::fs::read(&whole).unwrap();
    assert_eq!(lines(&whole), 520);

    let out = dir.path().join("cut.jsonl");
    let store = dir.path().join("cut.sqlite");
    let mut child = batch(&w, &out, &store)
        .args(["--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until some records are out, then kill.
    let t0 = Instant::now();
    while lines(&out) < 20 && t0.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    let written = lines(&out);
    if written >= 520 {
        eprintln!(
            "NOTICE: the run finished before it could be killed; resume checked on a full output"
        );
    }
    let resumed = ok(batch(&w, &out, &store).arg("--resume").output().unwrap());
    let err = String::from_utf8_lossy(&resumed.stderr);
    if written > 0 && written < 520 {
        assert!(err.contains("resumed"), "{err}");
    }
    assert_eq!(std::fs::read(&out).unwrap(), expected);
}

/// `--markdown` adds each page's content as Markdown beside the same text.
#[test]
fn batch_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let w = warc(dir.path(), 1);
    let read = |p: &Path| -> Vec<serde_json::Value> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let plain = dir.path().join("plain.jsonl");
    ok(batch(&w, &plain, dir.path().join("a.sqlite"))
        .output()
        .unwrap());
    let md = dir.path().join("md.jsonl");
    ok(batch(&w, &md, dir.path().join("b.sqlite"))
        .arg("--markdown")
        .output()
        .unwrap());
    let (plain, md) = (read(&plain), read(&md));
    assert_eq!(plain.len(), md.len());
    for (p, m) in plain.iter().zip(&md) {
        assert!(p.get("markdown").is_none());
        assert_eq!(p["text"], m["text"]);
        assert_eq!(p["cluster"], m["cluster"]);
        assert!(
            m["markdown"].as_str().is_some_and(|s| !s.trim().is_empty()),
            "{m}"
        );
    }
    assert!(
        md.iter().any(|m| {
            let md = m["markdown"].as_str().unwrap();
            md.starts_with("# ") || md.contains("\n# ") || md.contains("\n- ")
        }),
        "headings and lists are marked up"
    );
}

/// `--rest` adds the page minus its template beside the main content: it holds what the
/// main content leaves out (section menus, breadcrumbs), never less than the content.
#[test]
fn batch_rest() {
    let dir = tempfile::tempdir().unwrap();
    let w = warc(dir.path(), 1);
    let out = dir.path().join("rest.jsonl");
    ok(batch(&w, &out, dir.path().join("a.sqlite"))
        .arg("--rest")
        .output()
        .unwrap());
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let templated: Vec<&serde_json::Value> =
        recs.iter().filter(|r| r["cluster"].is_string()).collect();
    assert!(templated.len() >= 10, "{recs:?}");
    for r in &templated {
        let (text, rest) = (r["text"].as_str().unwrap(), r["rest"].as_str().unwrap());
        assert!(rest.len() >= text.len(), "{r}");
    }
    let guide = templated
        .iter()
        .find(|r| r["url"].as_str().unwrap().ends_with("compost-guide.html"))
        .unwrap();
    let (text, rest) = (
        guide["text"].as_str().unwrap(),
        guide["rest"].as_str().unwrap(),
    );
    assert!(text.contains("Building a hot heap"), "{text}");
    assert!(rest.contains("Building a hot heap"), "{rest}");
    for chrome in [
        "Allotment plots",
        "Printer-friendly version",
        "On this page",
    ] {
        assert!(rest.contains(chrome), "{chrome:?} not in {rest}");
        assert!(!text.contains(chrome), "{chrome:?} in {text}");
    }
    // Pages of no template have no rest.
    for r in recs.iter().filter(|r| !r["cluster"].is_string()) {
        assert!(r.get("rest").is_none(), "{r}");
    }
}
