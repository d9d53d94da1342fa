//! End-to-end tests of the `templex` binary on the bundled example site.

use crate::common;

use common::{example_site, ok, templex};

#[test]
fn links_json_on_example_site() {
    let site = example_site();
    let out = templex()
        .args([
            "links",
            "--format",
            "json",
            "--url-prefix",
            "https://www.riverbend-garden.example/",
        ])
        .arg("--site")
        .arg(&site)
        .arg(site.join("news/spring-planting.html"))
        .output()
        .unwrap();
    let out = ok(out);
    let links: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let links = links.as_array().unwrap();
    assert!(
        links.len() >= 8,
        "menu, sub-menu, sidebar and footer links: {links:?}"
    );
    for l in links {
        assert!(
            l["url"]
                .as_str()
                .unwrap()
                .starts_with("https://www.riverbend-garden.example/")
        );
        assert_eq!(l["resolves"], serde_json::Value::Bool(true), "{l}");
        assert!(
            l["dom_path"]
                .as_str()
                .unwrap()
                .starts_with("/html[1]/body[1]/")
        );
    }
    // The main menu comes first and links the three sections.
    let urls: Vec<&str> = links.iter().map(|l| l["url"].as_str().unwrap()).collect();
    for section in ["news/index.html", "garden/index.html", "about/index.html"] {
        assert!(
            urls.iter().any(|u| u.ends_with(section)),
            "{section} missing from {urls:?}"
        );
    }
}

#[test]
fn errors_are_one_line_and_nonzero() {
    let out = templex()
        .args(["links", "/definitely/not/here.html"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.starts_with("templex: error:"), "{err}");

    let site = example_site();
    let out = templex()
        .arg("links")
        .arg("--site")
        .arg(&site)
        .arg("/etc/hostname")
        .output()
        .unwrap();
    assert!(!out.status.success());

    // Loopback is refused without --allow-private, before any connection is attempted.
    let out = templex()
        .args(["links", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("allow-private"), "{err}");
}

#[test]
fn help_lists_subcommands() {
    let out = templex().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("links"));
}

/// `--method tablechunk` with every output format, and its options.
#[test]
fn template_tablechunk_in_every_format() {
    let site = example_site();
    let run = |format: &str, extra: &[&str]| {
        let out = templex()
            .args([
                "template",
                "--method",
                "tablechunk",
                "--url-prefix",
                "https://www.riverbend-garden.example/",
                "--format",
                format,
            ])
            .args(extra)
            .arg("--site")
            .arg(&site)
            .arg(site.join("news/spring-planting.html"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&run("json", &[])).unwrap();
    assert_eq!(json["method"], "tablechunk");
    assert!(json["pages_loaded"].as_u64().unwrap() >= 5, "{json}");
    let paths = json["template_paths"].as_array().unwrap();
    assert!(
        paths
            .iter()
            .any(|p| p.as_str().unwrap().contains("/header[1]"))
    );
    let annotated = run("annotated", &[]);
    assert!(annotated.contains("template_node"));
    let template = run("template", &[]);
    assert!(template.contains("main-menu") && !template.contains("entry-title"));
    let text = run("text", &[]);
    assert!(text.contains("Forty pairs of hands"));
    assert!(!text.contains("Growing food and neighbours"), "{text}");
    // The paper's settings are accepted (and find nothing on a div-layout site).
    let paper = run(
        "json",
        &[
            "--chunk-boundaries",
            "table",
            "--chunk-keys",
            "text",
            "--chunk-fraction",
            "0.5",
            "--site-pages",
            "5",
            "--chunk-no-wrappers",
            "--chunk-letterless-evidence",
            "--chunk-image-evidence",
            "--no-image-text",
        ],
    );
    let paper: serde_json::Value = serde_json::from_str(&paper).unwrap();
    assert!(paper["template_paths"].as_array().unwrap().is_empty());
}

/// Run `cmd` with its stdout piped, read one line, close the pipe, and check that the run
/// ends with exit code 0 and nothing on stderr; returns the line read.
fn one_line_then_closed_pipe(mut cmd: std::process::Command) -> String {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe closes.
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{cmd:?}: {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    first
}

/// `templex content dir/ | head -1`: the reader leaving early is no error, in every format
/// (serde_json's errors hid the closed pipe of json and jsonl).
#[test]
fn content_into_a_closed_pipe_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    // Far more output than a pipe buffers, so that the writer meets the closed pipe.
    let para = "A sentence of prose that goes on for a while, with words. ".repeat(40);
    for i in 0..300 {
        let html = format!("<html><body><article><p>{i} {para}</p></article></body></html>");
        std::fs::write(dir.path().join(format!("p{i:03}.html")), html).unwrap();
    }
    for (format, starts) in [
        ("text", "0 A sentence"),
        ("markdown", "0 A sentence"),
        ("html", "<"),
        ("json", "[{"),
        ("jsonl", "{"),
    ] {
        let mut cmd = templex();
        cmd.args(["content", "--format", format]).arg(dir.path());
        let first = one_line_then_closed_pipe(cmd);
        assert!(first.starts_with(starts), "{format}: {first}");
    }
}

/// `templex dedup records.jsonl | head -1`, the same.
#[test]
fn dedup_into_a_closed_pipe_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("records.jsonl");
    // Some 50 bytes a line out: 4,000 lines are three pipe buffers and more.
    let lines: String = (0..4000)
        .map(|i| {
            format!(
                "{}\n",
                serde_json::json!({"text": format!("record {i} alone")})
            )
        })
        .collect();
    std::fs::write(&p, lines).unwrap();
    let mut cmd = templex();
    cmd.arg("dedup").arg(&p);
    let first = one_line_then_closed_pipe(cmd);
    assert!(first.starts_with(r#"{"id":0,"#), "{first}");
}

/// A reader gone before the one line is written (`templex store prune --stale | true`): the
/// line was `println!`, which panicked as an internal error.
#[test]
fn short_output_into_a_closed_pipe_exits_zero() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t.sqlite");
    ok(templex()
        .arg("batch")
        .arg(example_site())
        .arg("--out")
        .arg(dir.path().join("out.jsonl"))
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap());
    let mut child = templex()
        .args(["store", "prune", "--stale", "--dry-run", "--store"])
        .arg(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closed long before the child, still starting, writes.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
