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

/// `templex content dir/ | head -1`: the reader leaving early is no error.
#[test]
fn content_into_a_closed_pipe_exits_zero() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    // Far more output than a pipe buffers, so that the writer meets the closed pipe.
    let para = "A sentence of prose that goes on for a while, with words. ".repeat(40);
    for i in 0..300 {
        let html = format!("<html><body><article><p>{i} {para}</p></article></body></html>");
        std::fs::write(dir.path().join(format!("p{i:03}.html")), html).unwrap();
    }
    let mut child = templex()
        .args(["content"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("0 A sentence"), "{first}");
    // The reader is dropped here: the pipe closes.
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
