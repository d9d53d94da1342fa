//! Training data from a page-level benchmark's gold text: the content model's samples
//! ([`crate::train::content_samples`]). The classifier's own samples are SITELEVEL's labels
//! of whole sites (`crate::template::sitelevel::labels`).

use std::path::Path;

use url::Url;

use super::features::node_features;
use super::model::TrainingSet;
use super::parallel::map_in_order;
use crate::dom::Document;
use crate::stable_hash::hash_str;

/// A page of a page-level benchmark with its gold main content.
#[derive(Debug, Clone)]
pub struct GoldPage {
    /// The page's id in the benchmark.
    pub id: String,
    /// Its URL.
    pub url: Option<Url>,
    /// Its bytes.
    pub html: Vec<u8>,
    /// The gold main-content text.
    pub gold: String,
}

/// The pages of a benchmark laid out as WCXB's (`ground-truth/ID.json` with `url` and
/// `ground_truth.main_content`, `html/ID.html.gz`), in id order. Pages without their HTML
/// are skipped.
pub fn read_gold_pages(dir: &Path) -> std::io::Result<Vec<GoldPage>> {
    use std::io::Read;
    let mut pages = Vec::new();
    for e in std::fs::read_dir(dir.join("ground-truth"))? {
        let path = e?.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let g: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        let Ok(f) = std::fs::File::open(dir.join(format!("html/{id}.html.gz"))) else {
            continue;
        };
        let mut html = Vec::new();
        flate2::read::MultiGzDecoder::new(f).read_to_end(&mut html)?;
        pages.push(GoldPage {
            id,
            url: g["url"].as_str().and_then(|u| Url::parse(u).ok()),
            html,
            gold: g["ground_truth"]["main_content"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        });
    }
    pages.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(pages)
}

/// The samples of `pages`, each page parsed as page-level extraction parses it (lean), in
/// the pages' order; the pages are labelled on every core with the `parallel` feature.
pub fn content_samples<'a>(pages: impl IntoIterator<Item = &'a GoldPage>) -> TrainingSet {
    let pages: Vec<&GoldPage> = pages.into_iter().collect();
    let mut set = TrainingSet::default();
    for part in map_in_order(&pages, |p| {
        let budget = crate::dom::Budget::default();
        let start = std::time::Instant::now();
        crate::dom::parse_page(&p.html, None, crate::dom::ParseMode::Lean, &budget, start)
            .map(|doc| gold_samples(&doc, p.url.as_ref(), &p.gold))
            .unwrap_or_default()
    }) {
        set.extend(part);
    }
    set
}

/// The samples of one page labelled by its main-content gold text (a page-level benchmark's
/// ground truth): a classified node is template when fewer than half of its words are
/// gold words. A word is gold when one of the three word trigrams of the page's text that
/// hold it occurs in the gold text, so that a menu's common words do not count as content.
/// The weights sum to 1 per page.
pub fn gold_samples(doc: &Document, url: Option<&Url>, gold: &str) -> TrainingSet {
    let mut set = TrainingSet::default();
    let Some(body) = doc.body() else {
        return set;
    };
    let labels = gold_word_shares(doc, body, gold);
    let fx = node_features(doc, url);
    let nodes: Vec<usize> = (0..doc.len())
        .filter(|i| fx.classified[*i] && labels[*i].0 > 0)
        .collect();
    if nodes.is_empty() {
        return set;
    }
    let w = 1.0 / nodes.len() as f64;
    for i in nodes {
        let (words, gold_words) = labels[i];
        let id = crate::dom::NodeId(i as u32);
        set.push(fx.row(id), 2 * gold_words < words, w, fx.html_len[i]);
    }
    set
}

/// Lower-cased runs of alphanumerics (the page-level benchmarks' words).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Per node: its visible words and how many of them are gold words.
pub(crate) fn gold_word_shares(
    doc: &Document,
    body: crate::dom::NodeId,
    gold: &str,
) -> Vec<(u32, u32)> {
    use rustc_hash::FxHashSet;
    let key = |a: &str, b: &str, c: &str| hash_str(&format!("{a}\u{1}{b}\u{1}{c}"));
    let g: Vec<String> = words(gold).collect();
    let trigrams: FxHashSet<u64> = g.windows(3).map(|w| key(&w[0], &w[1], &w[2])).collect();
    // The page's visible words in order, with the text node holding each.
    let mut stream: Vec<(String, crate::dom::NodeId)> = Vec::new();
    for id in doc.visible(body) {
        if let Some(t) = doc.text(id) {
            stream.extend(words(t).map(|w| (w, id)));
        }
    }
    let n = stream.len();
    let hit: Vec<bool> = (0..n.saturating_sub(2))
        .map(|i| trigrams.contains(&key(&stream[i].0, &stream[i + 1].0, &stream[i + 2].0)))
        .collect();
    let mut out = vec![(0u32, 0u32); doc.len()];
    for (i, (_, id)) in stream.iter().enumerate() {
        let gold_word = (i.saturating_sub(2)..=i).any(|s| hit.get(s).copied().unwrap_or(false));
        let o = &mut out[id.index()];
        o.0 += 1;
        o.1 += u32::from(gold_word);
    }
    for id in doc.subtree(body).rev().map(crate::dom::NodeId) {
        if id == body {
            break;
        }
        if let Some(p) = doc.parent(id) {
            let (a, b) = out[id.index()];
            out[p.index()].0 += a;
            out[p.index()].1 += b;
        }
    }
    out
}
