//! Learning the template chunks of a cluster, and the learned model.

use serde::{Deserialize, Serialize};

#[cfg(any(test, feature = "batch"))]
use super::chunking::{Chunk, page_chunks};
use super::chunking::{Chunking, KEY_SCHEME, page_keys, page_mask_chunks};
#[cfg(any(test, feature = "batch"))]
use super::mask::template_share;
use super::mask::{MaskRules, chunk_mask};
use crate::dom::Document;
use crate::template::frequency::{DocFrequencies, df_threshold};

/// Settings of `learn`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TableChunkConfig {
    /// Chunking and keys.
    pub chunking: Chunking,
    /// How chunk verdicts become a node mask.
    pub rules: MaskRules,
    /// A chunk on at least this fraction of the learned pages is template. The paper uses a
    /// fixed count chosen per collection; a fraction transfers across cluster sizes.
    /// 0.7 does best on the dev gold (BENCHMARKS.md, "Table chunks").
    pub fraction: f64,
    /// A chunk must be on at least this many pages, whatever the fraction says: with a
    /// couple of pages a single page would otherwise make its own text template.
    pub min_pages: usize,
}

impl Default for TableChunkConfig {
    fn default() -> Self {
        TableChunkConfig {
            chunking: Chunking::default(),
            rules: MaskRules::default(),
            fraction: 0.7,
            min_pages: 2,
        }
    }
}

/// Streams a cluster's pages into chunk document frequencies (pass 1), for callers that
/// see pages one at a time (a crawl, batch mode); [`learn`] is the one-call form.
#[derive(Debug, Clone)]
pub(crate) struct TableChunkLearner {
    config: TableChunkConfig,
    df: DocFrequencies,
}

impl TableChunkLearner {
    /// No pages yet.
    pub(crate) fn new(config: TableChunkConfig) -> Self {
        TableChunkLearner {
            config,
            df: DocFrequencies::new(),
        }
    }

    /// Count one page: each of its chunk keys once, however often it occurs.
    pub(crate) fn add(&mut self, doc: &Document) {
        self.add_keys(&page_keys(doc, &self.config.chunking));
    }

    /// Count one page given its [`page_keys`] (batch runs keep only the keys of sampled
    /// pages, not the pages).
    pub(crate) fn add_keys(&mut self, keys: &[u64]) {
        self.df.add_hashes(keys);
    }

    /// The learned template: the chunks at or above the threshold.
    pub(crate) fn model(&self) -> TableChunkModel {
        let pages = self.df.pages();
        let threshold = df_threshold(pages, self.config.fraction, self.config.min_pages);
        TableChunkModel {
            scheme: KEY_SCHEME,
            chunking: self.config.chunking,
            rules: self.config.rules,
            pages,
            fraction: self.config.fraction,
            threshold,
            chunks: self.df.frequent(threshold),
        }
    }
}

/// Learn the template chunks of a cluster of pages of one template (pass 1).
pub(crate) fn learn<'a>(
    pages: impl IntoIterator<Item = &'a Document>,
    config: &TableChunkConfig,
) -> TableChunkModel {
    let mut learner = TableChunkLearner::new(*config);
    for doc in pages {
        learner.add(doc);
    }
    learner.model()
}

/// A learned template: the keys of the cluster's template chunks with their document
/// frequencies, and the chunking that made them. Self-contained and compact (12 bytes per
/// template chunk, no text), for storing in a template store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Public through the template store's rows (`batch`); the crate's own otherwise.
#[cfg_attr(not(feature = "batch"), allow(unreachable_pub))]
pub struct TableChunkModel {
    /// [`KEY_SCHEME`] of the keys; a model of another scheme marks nothing.
    pub scheme: u32,
    /// How pages are chunked and chunks keyed.
    pub chunking: Chunking,
    /// How chunk verdicts become a node mask.
    pub rules: MaskRules,
    /// Pages learned from.
    pub pages: usize,
    /// The threshold fraction learned with.
    pub fraction: f64,
    /// The document frequency a chunk needed to be template.
    pub threshold: u32,
    /// Template chunk keys, sorted, each with its document frequency.
    pub chunks: Vec<(u64, u32)>,
}

#[cfg_attr(not(feature = "batch"), allow(unreachable_pub))]
impl TableChunkModel {
    /// Number of template chunks.
    #[cfg(any(test, feature = "batch"))]
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether the model knows no template chunk (too few pages, or nothing recurs).
    #[cfg(any(test, feature = "batch"))]
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The document frequency of a template chunk key; `None` if it is not template.
    #[cfg(any(test, feature = "batch"))]
    pub fn df(&self, key: u64) -> Option<u32> {
        if self.scheme != KEY_SCHEME {
            return None;
        }
        self.chunks
            .binary_search_by_key(&key, |c| c.0)
            .ok()
            .map(|i| self.chunks[i].1)
    }

    /// Whether a chunk key is template.
    #[cfg(any(test, feature = "batch"))]
    pub fn is_template(&self, key: u64) -> bool {
        self.df(key).is_some()
    }

    /// The page's chunks, each with whether it is template (pass 2).
    #[cfg(any(test, feature = "batch"))]
    pub fn classify(&self, doc: &Document) -> Vec<(Chunk, bool)> {
        let chunks = page_chunks(doc, &self.chunking);
        let template = self.template_flags(chunks.iter().map(|c| c.key));
        chunks.into_iter().zip(template).collect()
    }

    /// [`Self::is_template`] of every key, by one merge of the sorted keys with the sorted
    /// template chunks: a page of a million chunks against a model of as many (a dense page
    /// whose every chunk recurs) would miss the caches at most steps of a million binary
    /// searches.
    fn template_flags(&self, keys: impl Iterator<Item = u64>) -> Vec<bool> {
        let mut order: Vec<(u64, usize)> = keys.enumerate().map(|(i, k)| (k, i)).collect();
        let mut flags = vec![false; order.len()];
        if self.scheme != KEY_SCHEME || self.chunks.is_empty() {
            return flags;
        }
        order.sort_unstable();
        let mut model = self.chunks.iter().map(|c| c.0).peekable();
        for (key, i) in order {
            while model.next_if(|m| *m < key).is_some() {}
            flags[i] = model.peek() == Some(&key);
        }
        flags
    }

    /// Per node id of `doc`: whether the node is template. A text node or image is template
    /// when its chunk is; an element when every chunk in its subtree is template and it has
    /// at least one. Nodes without chunk text (scripts, spacers, empty elements,
    /// uninformative images) follow their parent, and those directly under `<body>` are
    /// template: outside every chunk, they are layout, as in the site-level methods. The
    /// document, `<html>`, `<body>` and everything outside the body are never template, and
    /// nothing is when none of the page's chunks is. The model's [`MaskRules`] refine this (on by default): letter-less chunks are no
    /// evidence, and layout wrappers with a template child are template.
    pub fn template_mask(&self, doc: &Document) -> Vec<bool> {
        let (chunks, nodes) = page_mask_chunks(doc, &self.chunking);
        let template = self.template_flags(chunks.iter().map(|c| c.key));
        chunk_mask(doc, &chunks, &template, &nodes, &self.rules)
    }

    /// The share of the page's chunk text (in characters) that is template: the paper's
    /// template fraction of one page. 0 for a page without text.
    #[cfg(any(test, feature = "batch"))]
    pub fn template_share(&self, doc: &Document) -> f64 {
        template_share(&self.classify(doc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn threshold_is_a_fraction_with_a_floor() {
        let pages: Vec<Document> = (0..10)
            .map(|i| {
                parse_str(&format!(
                    "<body><p>everywhere</p>{}<p>page {i}</p></body>",
                    if i < 4 { "<p>four</p>" } else { "" }
                ))
            })
            .collect();
        let config = TableChunkConfig {
            fraction: 0.5,
            ..TableChunkConfig::default()
        };
        let m = learn(&pages, &config);
        assert_eq!((m.pages, m.threshold, m.len()), (10, 5, 1));
        let m = learn(
            &pages,
            &TableChunkConfig {
                fraction: 0.3,
                ..config
            },
        );
        assert_eq!((m.threshold, m.len()), (3, 2));
        // One page: the floor of 2 keeps its own text from being template.
        let m = learn(&pages[..1], &config);
        assert_eq!((m.threshold, m.len()), (2, 0));
        assert!(m.template_mask(&pages[0]).iter().all(|t| !t));
        assert!(m.chunks.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn merged_lookup_is_the_binary_search() {
        let mut state = 3u64;
        let mut rnd = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 40
        };
        let mut chunks: Vec<(u64, u32)> = (0..500).map(|_| (rnd() % 2000, 3)).collect();
        chunks.sort_unstable();
        chunks.dedup_by_key(|c| c.0);
        let mut m = learn(std::iter::empty(), &TableChunkConfig::default());
        m.chunks = chunks;
        // Repeated keys, keys below, between and above the model's, in any order.
        let keys: Vec<u64> = (0..3000)
            .map(|_| rnd() % 2100)
            .chain([0, u64::MAX])
            .collect();
        let want: Vec<bool> = keys.iter().map(|k| m.is_template(*k)).collect();
        assert!(want.iter().any(|t| *t) && want.iter().any(|t| !*t));
        assert_eq!(m.template_flags(keys.iter().copied()), want);
        m.scheme += 1;
        assert!(!m.template_flags(keys.iter().copied()).iter().any(|t| *t));
    }

    #[test]
    fn foreign_scheme_marks_nothing() {
        let pages: Vec<Document> = (0..3).map(|_| parse_str("<p>same</p>")).collect();
        let mut m = learn(&pages, &TableChunkConfig::default());
        assert!(m.template_mask(&pages[0]).iter().any(|t| *t));
        m.scheme += 1;
        assert!(m.template_mask(&pages[0]).iter().all(|t| !t));
    }
}
