//! End-to-end tests of the `templex` binary on the bundled example site.

use std::path::PathBuf;
use std::process::Command;

fn templex() -> Command {
    Command::new(env!("CARGO_BIN_EXE_templex"))
}

fn example_site() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
