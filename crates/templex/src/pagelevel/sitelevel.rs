//! SITELEVEL(θ) (page-level paper, §3 and §5.1): over a set of pages of one site, a node
//! whose hash — its tag path plus its whole subtree's labels and text — occurs on at least a
//! θ fraction of the pages is template; so is every element with more than 85 % of its HTML
//! inside such nodes.
//!
//! The frequent hashes are the learned template of a page cluster: [`SiteLevel::model`] keeps
//! only them, so that applying a learned template to a new page is one hashing pass.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::dom::html_lengths;
use crate::dom::{Document, NodeData, deadline};
use crate::stable_hash::hash_pair;

/// Settings of SITELEVEL.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SiteLevelConfig {
    /// A node hash occurring on at least this fraction of the pages is template (the paper's
    /// θ; it used 10 % over whole sites; over pages of one template cluster 70 % does best on
    /// the dev gold, BENCHMARKS.md).
    pub theta: f64,
    /// An element with more than this share of its HTML inside template nodes is template
    /// too (the paper's 85 %).
    pub cover: f64,
    /// A hash must occur on at least this many pages, whatever θ says: with two pages and
    /// θ = 0.1 a single page would otherwise make everything template.
    pub min_pages: usize,
}

impl Default for SiteLevelConfig {
    fn default() -> Self {
        SiteLevelConfig {
            theta: 0.7,
            cover: 0.85,
            min_pages: 2,
        }
    }
}

/// Hash of every node: its tag path from the root and its subtree (labels, trimmed text,
/// ordered children). Equal hashes mean "the same fragment at the same place". Stable
/// hashes (the store's hash scheme, [`HASH_SCHEME`](crate::HASH_SCHEME)): learned SITELEVEL
/// templates are stored as these.
pub(crate) fn node_hashes(doc: &Document) -> Vec<u64> {
    let sig = doc.signatures();
    sig.path
        .iter()
        .zip(&sig.subtree)
        .map(|(p, s)| hash_pair(*p, *s))
        .collect()
}

/// Document frequencies of node hashes over a set of pages (SITELEVEL's first pass).
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteLevel {
    pages: usize,
    /// Per hash: on how many pages it occurs, and the last page (numbered from 1) that
    /// counted it, so that a page counts each hash once without a set of its own.
    df: FxHashMap<u64, (u32, u32)>,
}

impl SiteLevel {
    /// An empty page set.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Count the distinct node hashes of one page.
    pub(crate) fn add(&mut self, doc: &Document) {
        self.add_hashes(&node_hashes(doc));
    }

    /// Count a page given its [`node_hashes`] (when the caller needs them anyway).
    pub(crate) fn add_hashes(&mut self, hashes: &[u64]) {
        self.pages += 1;
        let page = u32::try_from(self.pages).unwrap_or(u32::MAX);
        for &h in hashes {
            let (count, last) = self.df.entry(h).or_insert((0, 0));
            if *last != page {
                *last = page;
                *count += 1;
            }
        }
    }

    /// Pages counted.
    pub(crate) fn pages(&self) -> usize {
        self.pages
    }

    /// On how many pages a hash occurs.
    pub(crate) fn frequency(&self, hash: u64) -> u32 {
        self.df.get(&hash).map_or(0, |e| e.0)
    }

    /// The smallest page count that makes a hash template under `config`.
    pub(crate) fn threshold(&self, config: &SiteLevelConfig) -> u32 {
        df_threshold(self.pages, config.theta, config.min_pages)
    }

    /// The hashes occurring on at least `min_df` pages with their document frequencies,
    /// sorted by hash (ready for binary search and for storage).
    pub(crate) fn frequent(&self, min_df: u32) -> Vec<(u64, u32)> {
        let mut out: Vec<(u64, u32)> = self
            .df
            .iter()
            .filter(|(_, (df, _))| *df >= min_df)
            .map(|(h, (df, _))| (*h, *df))
            .collect();
        out.sort_unstable();
        out
    }

    /// The learned template: the frequent hashes only, ready to apply to any page.
    pub(crate) fn model(&self, config: &SiteLevelConfig) -> SiteLevelModel {
        let t = self.threshold(config);
        SiteLevelModel {
            pages: self.pages,
            cover: config.cover,
            hashes: self.frequent(t).into_iter().map(|(h, _)| h).collect(),
        }
    }

    /// Template mask of a page under `config` (the page may or may not have been counted).
    pub(crate) fn template_mask(&self, doc: &Document, config: &SiteLevelConfig) -> Vec<bool> {
        let t = self.threshold(config);
        let hashes = node_hashes(doc);
        let frequent: Vec<bool> = hashes.iter().map(|h| self.frequency(*h) >= t).collect();
        cover_rule(doc, &frequent, config.cover)
    }
}

/// The smallest document frequency that counts as "recurring" on `pages` pages: a `fraction`
/// of them (rounded up, at least 1), and never fewer than `min_pages` — with two pages and a
/// low fraction a single page would otherwise make everything template. A fraction rather
/// than a fixed count, because the same count means "nearly all" on a small cluster and
/// "a few" on a large one.
pub(crate) fn df_threshold(pages: usize, fraction: f64, min_pages: usize) -> u32 {
    let fraction = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let by_fraction = (fraction * pages as f64 - 1e-9).ceil().max(1.0) as u32;
    by_fraction.max(min_pages.min(u32::MAX as usize) as u32)
}

/// A learned SITELEVEL template: the set of frequent node hashes of a page cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiteLevelModel {
    /// Pages the template was learned from.
    pub pages: usize,
    /// The 85 % rule's share.
    pub cover: f64,
    /// Frequent node hashes, sorted (binary search).
    pub hashes: Vec<u64>,
}

impl SiteLevelModel {
    /// Template mask of a page: nodes whose hash is frequent, plus the 85 % rule.
    pub fn template_mask(&self, doc: &Document) -> Vec<bool> {
        let frequent: Vec<bool> = node_hashes(doc)
            .iter()
            .map(|h| self.hashes.binary_search(h).is_ok())
            .collect();
        cover_rule(doc, &frequent, self.cover)
    }

    /// Share of the page's nodes the template knows: how well a page fits this template.
    pub fn fit(&self, doc: &Document) -> f64 {
        let hashes = node_hashes(doc);
        if hashes.is_empty() {
            return 0.0;
        }
        let known = hashes
            .iter()
            .filter(|h| self.hashes.binary_search(h).is_ok())
            .count();
        known as f64 / hashes.len() as f64
    }
}

/// Frequent nodes and everything inside them are template; an element whose HTML is more
/// than `cover` inside frequent subtrees is template too. The document node, `<html>` and
/// `<body>` are never template (they hold the whole page).
pub(crate) fn cover_rule(doc: &Document, frequent: &[bool], cover: f64) -> Vec<bool> {
    let n = doc.len();
    let len = html_lengths(doc);
    // Covered HTML of a subtree: all of it under a frequent node, else the children's.
    let mut covered = vec![0u64; n];
    let mut inside = vec![false; n];
    for id in doc.ids() {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        inside[i] = frequent[i] || doc.parent(id).is_some_and(|p| inside[p.index()]);
    }
    for id in doc.ids().rev() {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        if frequent[i] {
            covered[i] = len[i];
        }
        if let Some(p) = doc.parent(id) {
            if !frequent[p.index()] {
                covered[p.index()] += covered[i];
            }
        }
    }
    let mut template = vec![false; n];
    for id in doc.ids() {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        // The document, <html> and <body> hold the whole page: never template themselves.
        let top = matches!(doc.node(id).data, NodeData::Document)
            || Some(id) == doc.html()
            || Some(id) == doc.body();
        template[i] = !top
            && (inside[i] || (len[i] > 0 && covered[i] as f64 > cover * len[i] as f64))
            && !matches!(doc.node(id).data, NodeData::Doctype(_));
    }
    // An element the 85 % rule marks keeps its uncovered parts (the < 15 %) as they are:
    // the rule labels the container, not the content it tolerates.
    template
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    fn page(body: &str) -> Document {
        parse_str(&format!(
            "<html><head><title>t</title></head><body><nav><a href=/a>A</a><a href=/b>B</a></nav>{body}<footer>(c) 2024 Example</footer></body></html>"
        ))
    }

    #[test]
    fn repeated_fragments_are_template() {
        let pages = [
            page("<div id=main><p>First article text.</p></div>"),
            page("<div id=main><p>Second one, different.</p></div>"),
            page("<div id=main><p>Third page.</p></div>"),
        ];
        let mut s = SiteLevel::new();
        for p in &pages {
            s.add(p);
        }
        let cfg = SiteLevelConfig {
            theta: 0.5,
            ..Default::default()
        };
        let doc = &pages[0];
        let mask = s.template_mask(doc, &cfg);
        let by_tag = |t: &str| {
            doc.elements()
                .find(|e| doc.tag(*e).is_some_and(|x| &**x == t))
                .unwrap()
        };
        assert!(mask[by_tag("nav").index()]);
        assert!(mask[by_tag("footer").index()]);
        assert!(!mask[by_tag("p").index()]);
        assert!(!mask[by_tag("div").index()]);
        assert!(!mask[doc.body().unwrap().index()]);
        // The learned model gives the same mask.
        assert_eq!(s.model(&cfg).template_mask(doc), mask);
    }

    #[test]
    fn cover_rule_marks_mostly_template_wrappers() {
        let long = "x".repeat(400);
        let pages: Vec<Document> = (0..3)
            .map(|i| {
                parse_str(&format!(
                    "<body><div id=side><ul><li>{long}</li></ul><span>{i}</span></div><p>{i} body</p></body>"
                ))
            })
            .collect();
        let mut s = SiteLevel::new();
        pages.iter().for_each(|p| s.add(p));
        let cfg = SiteLevelConfig {
            theta: 1.0,
            ..Default::default()
        };
        let doc = &pages[1];
        let mask = s.template_mask(doc, &cfg);
        let side = doc
            .elements()
            .find(|e| doc.element(*e).unwrap().id() == Some("side"))
            .unwrap();
        // The wrapper differs per page (its span), but 85 %+ of it is the repeated list.
        assert!(mask[side.index()]);
        let p = doc
            .elements()
            .find(|e| doc.tag(*e).is_some_and(|t| &**t == "p"))
            .unwrap();
        assert!(!mask[p.index()]);
    }

    #[test]
    fn thresholds() {
        let mut s = SiteLevel::new();
        for _ in 0..10 {
            s.add_hashes(&[1, 2]);
        }
        let cfg = SiteLevelConfig {
            theta: 0.1,
            ..SiteLevelConfig::default()
        };
        assert_eq!(s.threshold(&cfg), 2);
        let cfg = SiteLevelConfig { theta: 0.35, ..cfg };
        assert_eq!(s.threshold(&cfg), 4);
        assert_eq!(s.frequency(1), 10);
        assert_eq!(s.frequency(3), 0);
    }
}
