//! `templex content`: many inputs in one process, every input accounted for.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::{example_site, ok, templex};

#[test]
fn jsonl_reports_every_input_including_errors() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("page.html.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(
        std::fs::read(example_site().join("news/new-greenhouse.html"))
            .unwrap()
            .as_slice(),
    )
    .unwrap();
    enc.finish().unwrap();
    let out = templex()
        .args(["content", "--format", "jsonl"])
        .arg(example_site().join("garden/compost-guide.html"))
        .arg(&gz)
        .arg("/no/such/file.html")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "an input failed: exit 1");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "one line per input");
    assert!(
        lines[0]["text"]
            .as_str()
            .unwrap()
            .contains("Building a hot heap")
    );
    assert_eq!(lines[0]["method"], "maincontent");
    assert!(lines[0]["timings"]["total_ms"].as_f64().is_some());
    assert!(
        lines[1]["text"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("greenhouse")
    );
    assert_eq!(lines[2]["input"], "/no/such/file.html");
    assert!(lines[2]["error"].is_string());
}

#[test]
fn site_aware_content_drops_the_template() {
    let page = example_site().join("news/spring-planting.html");
    let out = templex()
        .args(["content", "--format", "json", "--site"])
        .arg(example_site())
        .arg(&page)
        .output()
        .unwrap();
    let out = ok(out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rec = &v[0];
    assert_eq!(rec["method"], "hybex", "{rec}");
    let text = rec["text"].as_str().unwrap();
    assert!(
        !text.contains("Upcoming events"),
        "sidebar is template: {text}"
    );
    assert!(text.len() > 500, "{text}");
}

/// Site-aware content is the page's main content: the section menu, the breadcrumbs, the
/// printer-friendly link and the table of contents stay out (the page minus its template
/// keeps them all).
#[test]
fn site_aware_content_is_the_main_content() {
    for page in [
        "garden/compost-guide.html",
        "news/spring-planting.html",
        "about/volunteers.html",
    ] {
        let out = ok(templex()
            .args(["content", "--format", "jsonl", "--site"])
            .arg(example_site())
            .arg("--url-prefix=https://www.riverbend-garden.example/")
            .arg(example_site().join(page))
            .output()
            .unwrap());
        let rec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rec["method"], "hybex", "{page}: {rec}");
        let text = rec["text"].as_str().unwrap();
        assert!(text.len() > 300, "{page}: {text}");
        for chrome in [
            "Garden overview",
            "Allotment plots",
            "Printer-friendly version",
            "On this page",
            "Upcoming events",
        ] {
            assert!(!text.contains(chrome), "{page}: {chrome:?} in {text}");
        }
        assert!(
            !text.lines().any(|l| l.trim() == "Home"),
            "{page}: breadcrumbs in {text}"
        );
    }
}

#[test]
fn stdin_and_markdown() {
    let mut child = templex()
        .args(["content", "--format", "markdown", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let html = std::fs::read(example_site().join("garden/compost-guide.html")).unwrap();
    child.stdin.take().unwrap().write_all(&html).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("## "), "{md}");
    assert!(md.contains("```"), "{md}");
}

/// `--spread` takes a share of 0 or more; anything else is a usage error naming it.
#[test]
fn spread_must_be_a_share() {
    let page = example_site().join("garden/compost-guide.html");
    for bad in ["-1", "nan", "inf", "many"] {
        let out = templex()
            .args(["content", "--spread", bad])
            .arg(&page)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--spread {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("spread must be"), "--spread {bad}: {err}");
    }
    let out = ok(templex()
        .args(["content", "--spread", "0"])
        .arg(&page)
        .output()
        .unwrap());
    assert!(String::from_utf8_lossy(&out.stdout).contains("hot heap"));
}

/// `--time-limit` bounds a page's whole site-aware extraction: past it the page is an error
/// record naming the limit (`content`) or a clear error (`template`); within it, the output is
/// what it is without one.
#[test]
fn site_aware_extraction_within_a_time_limit() {
    let page = example_site().join("news/spring-planting.html");
    let content = |extra: &[&str]| {
        templex()
            .args(["content", "--format", "jsonl", "--site"])
            .arg(example_site())
            .args(extra)
            .arg(&page)
            .output()
            .unwrap()
    };
    let out = content(&["--time-limit", "0"]);
    assert_eq!(out.status.code(), Some(1), "the page failed: exit 1");
    let rec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = rec["error"].as_str().unwrap();
    assert!(error.contains("the call's time limit"), "{error}");

    let plain = ok(content(&[])).stdout;
    let within = ok(content(&["--time-limit", "600"])).stdout;
    let text = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap()["text"].clone();
    assert_eq!(text(&within), text(&plain));

    let out = templex()
        .args(["template", "--time-limit", "0", "--site"])
        .arg(example_site())
        .arg(&page)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the call's time limit"), "{stderr}");

    for bad in ["-1", "nan", "soon"] {
        let out = templex()
            .arg("template")
            .arg(format!("--time-limit={bad}"))
            .arg(&page)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}: a usage error");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--time-limit"), "{bad}: {stderr}");
    }
}

/// `--page-url` and `--page-urls` give saved pages the addresses they were fetched from:
/// the records carry them, a thread's address makes the page read as a thread, and a bad
/// list or a `--page-url` for many inputs is refused with the reason.
#[test]
fn saved_pages_take_their_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let posts: String = (0..4)
        .map(|n| {
            format!(
                "<article class=post><p>Post {n}: the router drops the line every night at \
                 nine, and the provider says the line is fine.</p></article>"
            )
        })
        .collect();
    let quoting = "<article class=post><blockquote><p>It drops at nine.</p>\
         <div class=expand><a role=button>Click to expand...</a></div></blockquote>\
         <p>Same here since May, and the provider says the line is fine, though the logs \
         show it drops at nine every night and comes back a minute later.</p></article>";
    let page = dir.path().join("thread.html");
    std::fs::write(
        &page,
        format!("<html><body><div id=t>{quoting}{posts}</div></body></html>"),
    )
    .unwrap();
    let other = dir.path().join("other.html");
    std::fs::write(
        &other,
        "<html><body><p>Just one paragraph of text here.</p></body></html>",
    )
    .unwrap();
    let thread = "https://forum.example/threads/router-drops.115684/";
    let run = |extra: &[&str]| {
        let out = templex()
            .args(["content", "--format", "jsonl"])
            .args(extra)
            .arg(&page)
            .output()
            .unwrap();
        let line: serde_json::Value =
            serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
        line
    };
    let plain = run(&[]);
    assert!(plain["url"].is_null(), "{plain}");
    assert!(
        plain["text"].as_str().unwrap().contains("Click to expand"),
        "{plain}"
    );
    let one = run(&["--page-url", thread]);
    assert_eq!(one["url"], thread);
    // Read as a thread, a post's control is no content.
    assert!(one["text"].as_str().unwrap().contains("Post 3:"), "{one}");
    assert!(
        !one["text"].as_str().unwrap().contains("Click to expand"),
        "{one}"
    );
    let list = dir.path().join("urls.tsv");
    std::fs::write(&list, format!("{}\t{thread}\n", page.display())).unwrap();
    let listed = run(&["--page-urls", list.to_str().unwrap()]);
    assert_eq!(listed["url"], thread);
    std::fs::write(&list, "no tab here\n").unwrap();
    let bad = templex()
        .args(["content", "--page-urls", list.to_str().unwrap()])
        .arg(&page)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected PATH<TAB>URL"));
    let many = templex()
        .args(["content", "--page-url", thread])
        .arg(&page)
        .arg(&other)
        .output()
        .unwrap();
    assert!(!many.status.success());
    assert!(String::from_utf8_lossy(&many.stderr).contains("--page-urls for many"));
}
