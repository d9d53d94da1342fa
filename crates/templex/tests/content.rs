//! Page-level content extraction: structure kept, boilerplate dropped, and an AEB floor.

mod common;

use std::collections::HashMap;
use std::io::Read;

use templex::dom::parse_str;
use templex::extract::{ContentConfig, content_markdown, content_text, page_content};

const ARTICLE: &str = r#"<!doctype html><html><head><title>Growing garlic | Garden Blog</title></head><body>
<header><a href="/">Garden Blog</a><nav><ul><li><a href="/a">Home</a></li><li><a href="/b">Archive</a></li><li><a href="/c">About us</a></li></ul></nav></header>
<div class="layout">
 <main><article class="post">
  <h1>Growing garlic</h1>
  <p>Garlic is one of the easiest crops to grow, and autumn is the time to plant it. Separate the bulb into cloves, keeping the papery skins on, and push each one into loose soil.</p>
  <h2>What you need</h2>
  <ul><li>A sunny bed with well-drained soil</li><li>Firm, healthy bulbs from a garden centre</li><li>A handful of compost per metre</li></ul>
  <p>Plant the cloves fifteen centimetres apart, pointed end up, with the tip just below the surface. Water them in if the soil is dry, then leave them alone.</p>
  <table><tr><th>Variety</th><th>Planting</th></tr><tr><td>Solent Wight</td><td>October</td></tr><tr><td>Early Purple</td><td>November</td></tr></table>
  <pre><code>spacing = 15 cm
depth = 2 cm</code></pre>
  <figure><img src="g.jpg" alt="garlic"><figcaption>Garlic drying on the bench in July.</figcaption></figure>
  <p>Harvest when the lower leaves turn yellow, usually in early summer. Dry the bulbs in an airy place for two weeks before storing them.</p>
  <div class="share-buttons"><a href="/s1">Share</a> <a href="/s2">Tweet</a></div>
 </article>
 <section id="comments"><h3>3 comments</h3><p>Great post, thanks for sharing all of this, I will try it this autumn in my own garden.</p></section>
 </main>
 <aside class="sidebar"><h3>Recent posts</h3><ul><li><a href="/p1">Tomatoes in pots</a></li><li><a href="/p2">Pruning apple trees in winter</a></li></ul></aside>
</div>
<footer><p>Copyright 2024 Garden Blog. All rights reserved.</p><a href="/privacy">Privacy</a></footer>
</body></html>"#;

#[test]
fn article_keeps_structure_and_drops_boilerplate() {
    let doc = parse_str(ARTICLE);
    let c = page_content(&doc, &ContentConfig::default());
    let root = c.root.expect("content found");
    let text = content_text(&doc, root, &|id| c.is_content(id));
    for want in [
        "Garlic is one of the easiest",
        "What you need",
        "A sunny bed",
        "Solent Wight",
        "spacing = 15 cm",
        "Harvest when",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    for unwanted in [
        "Archive",
        "Recent posts",
        "Copyright",
        "Great post",
        "Tweet",
        "drying on the bench",
    ] {
        assert!(
            !text.contains(unwanted),
            "unexpected {unwanted:?} in:\n{text}"
        );
    }
    assert_eq!(c.title.as_deref(), Some("Growing garlic | Garden Blog"));
}

#[test]
fn markdown_keeps_headings_lists_tables_code_and_captions() {
    let doc = parse_str(ARTICLE);
    let config = ContentConfig {
        drop_captions: false,
        ..ContentConfig::default()
    };
    let c = page_content(&doc, &config);
    let md = content_markdown(&doc, c.root.unwrap(), &|id| c.is_content(id));
    assert!(md.contains("## What you need"), "{md}");
    assert!(md.contains("- A sunny bed with well-drained soil"), "{md}");
    assert!(md.contains("| Variety | Planting |"), "{md}");
    assert!(
        md.contains("```\nspacing = 15 cm\ndepth = 2 cm\n```"),
        "{md}"
    );
    assert!(md.contains("Garlic drying on the bench in July."), "{md}");
}

#[test]
fn comments_on_request() {
    let doc = parse_str(ARTICLE);
    let config = ContentConfig {
        comments: true,
        ..ContentConfig::default()
    };
    let c = page_content(&doc, &config);
    let root = c.root.unwrap();
    // The comment section is a sibling of the article: with comments on, it may join.
    let text = content_text(&doc, root, &|id| c.is_content(id));
    assert!(text.contains("Garlic is one of the easiest"));
}

#[test]
fn hostile_pages_do_not_panic() {
    for html in [
        "",
        "<p>",
        "<body><nav><a>x</a></nav>",
        &"<div>".repeat(50_000),
        "\u{0}\u{1}<<<>>>",
    ] {
        let doc = parse_str(html);
        let c = page_content(&doc, &ContentConfig::default());
        if let Some(root) = c.root {
            let _ = content_text(&doc, root, &|id| c.is_content(id));
            let _ = content_markdown(&doc, root, &|id| c.is_content(id));
        }
    }
}

fn shingles(text: &str) -> HashMap<Vec<String>, usize> {
    let toks: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let mut out = HashMap::new();
    if toks.len() < 4 {
        if !toks.is_empty() {
            *out.entry(toks).or_insert(0) += 1;
        }
        return out;
    }
    for w in toks.windows(4) {
        *out.entry(w.to_vec()).or_insert(0) += 1;
    }
    out
}

/// The scrapinghub AEB metric (see ../shared/data/README.md) on all 181 pages; measured
/// 0.963 (BENCHMARKS.md).
#[test]
fn aeb_floor() {
    let Some(data) = common::data_dir() else {
        return;
    };
    let dir = data.join("pagelevel/scrapinghub-aeb");
    let gt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("ground-truth.json")).unwrap()).unwrap();
    let (mut ps, mut rs) = (Vec::new(), Vec::new());
    for (id, v) in gt.as_object().unwrap() {
        let raw = std::fs::read(dir.join(format!("html/{id}.html.gz"))).unwrap();
        let mut bytes = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut bytes)
            .unwrap();
        let doc = templex::dom::parse_bytes(&bytes, None);
        let c = page_content(&doc, &ContentConfig::default());
        let text = c.root.map_or(String::new(), |r| {
            content_text(&doc, r, &|n| c.is_content(n))
        });
        let (g, p) = (
            shingles(v["articleBody"].as_str().unwrap()),
            shingles(&text),
        );
        let tp: usize = p
            .iter()
            .map(|(k, n)| (*n).min(g.get(k).copied().unwrap_or(0)))
            .sum();
        let fp = p.values().sum::<usize>() - tp;
        let fn_ = g.values().sum::<usize>() - tp;
        if tp + fp + fn_ == 0 {
            continue;
        }
        let perfect = fp == 0 && fn_ == 0;
        if tp + fp > 0 {
            ps.push(if perfect {
                1.0
            } else {
                tp as f64 / (tp + fp) as f64
            });
        }
        if tp + fn_ > 0 {
            rs.push(if perfect {
                1.0
            } else {
                tp as f64 / (tp + fn_) as f64
            });
        }
    }
    let p = ps.iter().sum::<f64>() / ps.len() as f64;
    let r = rs.iter().sum::<f64>() / rs.len() as f64;
    let f1 = 2.0 * p * r / (p + r);
    eprintln!("AEB P={p:.3} R={r:.3} F1={f1:.3}");
    assert!(f1 >= 0.955, "AEB F1 {f1}");
}
