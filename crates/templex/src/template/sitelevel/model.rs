//! SITELEVEL's learned template, as batch mode keeps it per template cluster: the frequent
//! node hashes only, so that applying it to a new page is one hashing pass.

use serde::{Deserialize, Serialize};

use super::{SiteLevel, SiteLevelConfig, cover_rule, node_hashes};
use crate::dom::Document;

impl SiteLevel {
    /// The learned template: the frequent hashes only, ready to apply to any page.
    pub(crate) fn model(&self, config: &SiteLevelConfig) -> SiteLevelModel {
        let t = self.threshold(config);
        SiteLevelModel {
            pages: self.pages(),
            cover: config.cover,
            hashes: self.freq.frequent(t).into_iter().map(|(h, _)| h).collect(),
        }
    }
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
