//! SITELEVEL(θ) (page-level paper, §3 and §5.1): over a set of pages of one site, a node
//! whose hash — its tag path plus its whole subtree's labels and text — occurs on at least a
//! θ fraction of the pages is template; so is every element with more than 85 % of its HTML
//! inside such nodes.
//!
//! Learn → model → mask:
//! * **learn**: [`SiteLevel`] counts the [`node_hashes`] of a set of pages (their document
//!   frequencies, [`super::frequency`]);
//! * **model**: the frequent hashes are the learned template of a page cluster:
//!   [`SiteLevel::model`] keeps only them ([`SiteLevelModel`], what batch mode stores), so
//!   that applying a learned template to a new page is one hashing pass;
//! * **mask**: [`SiteLevel::template_mask`], [`SiteLevelModel::template_mask`]: the frequent
//!   nodes, then the 85 % rule ([`cover_rule`]).
//!
//! From a key page ([`crate::extract_template`]), [`sitelevel_template`] learns from the key
//! page and a sample of its site ([`super::sample`]) and masks the key page. SITELEVEL also
//! labels the samples the page-level classifier is trained on ([`labels`]).

pub(crate) mod labels;
#[cfg(any(test, feature = "batch"))]
mod model;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use super::frequency::{DocFrequencies, df_threshold};
use super::sample::sample_template;
use super::{Method, TemplateConfig, TemplateResult};
use crate::dom::html_lengths;
use crate::dom::{Document, NodeData, deadline};
use crate::source::PageSource;
use crate::stable_hash::hash_pair;

#[cfg(feature = "batch")]
pub(crate) use model::SiteLevelModel;

/// Settings of SITELEVEL.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SiteLevelConfig {
    /// A node hash occurring on at least this fraction of the pages is template (the paper's
    /// θ; it used 10 % over whole sites; over pages of one template cluster 70 % does best on
    /// the dev gold, BENCHMARKS.md, "SITELEVEL: θ and pages sampled").
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
/// hashes (the store's hash scheme, [`HASH_SCHEME`](crate::stable_hash::HASH_SCHEME)): learned SITELEVEL
/// templates are stored as these.
pub(crate) fn node_hashes(doc: &Document) -> Vec<u64> {
    let sig = doc.signatures();
    sig.path
        .iter()
        .zip(&sig.subtree)
        .map(|(p, s)| hash_pair(*p, *s))
        .collect()
}

/// SITELEVEL's first pass: the document frequencies of node hashes over a set of pages.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteLevel {
    freq: DocFrequencies,
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
        self.freq.add_hashes(hashes);
    }

    /// Pages counted.
    pub(crate) fn pages(&self) -> usize {
        self.freq.pages()
    }

    /// On how many pages a hash occurs.
    pub(crate) fn frequency(&self, hash: u64) -> u32 {
        self.freq.frequency(hash)
    }

    /// The smallest page count that makes a hash template under `config`.
    pub(crate) fn threshold(&self, config: &SiteLevelConfig) -> u32 {
        df_threshold(self.pages(), config.theta, config.min_pages)
    }

    /// Template mask of a page under `config` (the page may or may not have been counted).
    pub(crate) fn template_mask(&self, doc: &Document, config: &SiteLevelConfig) -> Vec<bool> {
        let t = self.threshold(config);
        let hashes = node_hashes(doc);
        let frequent: Vec<bool> = hashes.iter().map(|h| self.frequency(*h) >= t).collect();
        cover_rule(doc, &frequent, config.cover)
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

/// SITELEVEL: hash the key page and a sample of its site's pages; recurring fragments are
/// template.
pub(super) fn sitelevel_template(
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    sample_template(
        Method::SiteLevel,
        source,
        key_url,
        doc,
        key_page,
        config,
        |doc, sample| {
            let mut freq = SiteLevel::new();
            freq.add(doc);
            for d in sample {
                freq.add(d);
            }
            (freq.template_mask(doc, &config.sitelevel), None)
        },
    )
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
