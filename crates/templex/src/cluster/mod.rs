//! Grouping a site's pages by template: hosts often serve several (a forum beside a static
//! site, a shop beside a blog), and every site-level method must learn each one from its own
//! pages.
//!
//! A page's **template fingerprint** is the set of its layout paths: for every element in the
//! top levels of `<body>`, the chain of labels (tag, plus id and classes without digits, so
//! that `postid-123` or `menu-item-45` do not make every page unique) from `<body>` down to
//! it. Pages of one template share most of these paths whatever their content; pages of
//! another template share few. Clustering is online leader clustering on the Jaccard
//! similarity of fingerprints, so a crawl can be clustered as it streams by.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::dom::{Document, Element, NodeId};
use crate::stable_hash::{Encoder, hash_set};

/// How deep below `<body>` fingerprints look: the layout lives in the top levels; deeper
/// levels are content and would make pages of one template look different.
pub(crate) const FINGERPRINT_DEPTH: u32 = 8;

/// The template fingerprint of a page: sorted, distinct layout-path hashes (stable hashes,
/// the store's hash scheme, [`HASH_SCHEME`](crate::stable_hash::HASH_SCHEME): the template store keeps
/// them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Fingerprint(pub Vec<u64>);

impl Fingerprint {
    /// The fingerprint of a page.
    pub fn of(doc: &Document) -> Fingerprint {
        let Some(body) = doc.body() else {
            return Fingerprint::default();
        };
        let base = doc.node(body).depth;
        let mut path = vec![0u64; doc.len()];
        let mut out = Vec::new();
        let mut enc = Encoder::new();
        let range = doc.subtree(body);
        let mut i = range.start + 1;
        while i < range.end {
            let id = NodeId(i);
            let node = doc.node(id);
            if node.depth - base > FINGERPRINT_DEPTH {
                i = node.end.0;
                continue;
            }
            if let Some(e) = doc.element(id) {
                let parent = doc.parent(id).map_or(0, |p| path[p.index()]);
                path[id.index()] = label_path(&mut enc, parent, e);
                out.push(path[id.index()]);
            }
            i += 1;
        }
        out.sort_unstable();
        out.dedup();
        Fingerprint(out)
    }

    /// Number of distinct paths.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the page has no layout paths (no body, or an empty one).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Jaccard similarity of two fingerprints (1 for two empty ones).
    pub fn jaccard(&self, other: &Fingerprint) -> f64 {
        let (a, b) = (&self.0, &other.0);
        if a.is_empty() && b.is_empty() {
            return 1.0;
        }
        let (mut i, mut j, mut common) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    common += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        common as f64 / (a.len() + b.len() - common) as f64
    }
}

/// The stable hash of the label path of element `e` whose parent's label path hashes to
/// `parent` (0 for a child of `<body>`): its tag, and its id and classes without digits, so
/// that `postid-123` or `menu-item-45` do not make every page unique. Template fingerprints
/// are sets of these; content slots ([`crate::sitecontent`]) are one of them.
pub(crate) fn label_path(enc: &mut Encoder, parent: u64, e: &Element) -> u64 {
    enc.start()
        .u64(parent)
        .u64(hash_set(e.classes().filter(|c| !has_digit(c))))
        .str(&e.name.local)
        .last_str(e.id().filter(|v| !has_digit(v)).unwrap_or(""))
        .finish()
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

/// Settings of `Clusterer`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClusterConfig {
    /// A page joins the most similar cluster when its fingerprint's Jaccard similarity with
    /// the cluster's core reaches this.
    pub similarity: f64,
    /// A path belongs to a cluster's core when at least this share of its pages have it.
    pub core_share: f64,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            similarity: 0.3,
            core_share: 0.5,
        }
    }
}

/// One template cluster: its pages' path counts and its core fingerprint.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Cluster {
    /// Pages assigned.
    pub pages: usize,
    /// The core: paths on at least `core_share` of the pages (the leader's paths at first).
    pub core: Fingerprint,
    counts: FxHashMap<u64, u32>,
    /// A cluster known from before (a stored template): its core does not move.
    frozen: bool,
}

impl Cluster {
    fn add(&mut self, fp: &Fingerprint, core_share: f64) {
        self.pages += 1;
        if self.frozen {
            return;
        }
        for h in &fp.0 {
            *self.counts.entry(*h).or_insert(0) += 1;
        }
        // Cores settle quickly: recomputed on every page of a small cluster, then on powers
        // of two, and frozen after 1024 pages, when the path counts are dropped (a crawl's
        // clusters must not grow with its size).
        if self.pages > 1024 {
            self.frozen = true;
            self.counts = FxHashMap::default();
            return;
        }
        if self.pages <= 8 || self.pages.is_power_of_two() {
            let need = (core_share * self.pages as f64).ceil().max(1.0) as u32;
            let mut core: Vec<u64> = self
                .counts
                .iter()
                .filter(|(_, c)| **c >= need)
                .map(|(h, _)| *h)
                .collect();
            core.sort_unstable();
            self.core = Fingerprint(core);
        }
    }
}

/// Online leader clustering of pages by template fingerprint.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Clusterer {
    config: ClusterConfig,
    clusters: Vec<Cluster>,
}

impl Clusterer {
    /// An empty clustering.
    pub(crate) fn new(config: ClusterConfig) -> Self {
        Clusterer {
            config,
            clusters: Vec::new(),
        }
    }

    /// The cluster a fingerprint would join (the most similar one at or above the
    /// similarity threshold), without adding it.
    pub(crate) fn nearest(&self, fp: &Fingerprint) -> Option<(usize, f64)> {
        self.clusters
            .iter()
            .enumerate()
            .map(|(k, c)| (k, c.core.jaccard(fp)))
            .filter(|(_, s)| *s >= self.config.similarity)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    }

    /// Assign a page to its cluster (a new one if none is similar enough); returns the
    /// cluster index.
    pub(crate) fn add(&mut self, fp: &Fingerprint) -> usize {
        let k = match self.nearest(fp) {
            Some((k, _)) => k,
            None => {
                self.clusters.push(Cluster::default());
                self.clusters.len() - 1
            }
        };
        self.clusters[k].add(fp, self.config.core_share);
        k
    }

    /// Add a cluster known from before (e.g. a stored template) with a fixed core; returns
    /// its index. Pages join it like any other cluster, but its core stays as given.
    #[cfg(feature = "batch")]
    pub(crate) fn add_known(&mut self, core: Fingerprint) -> usize {
        self.clusters.push(Cluster {
            pages: 0,
            core,
            counts: FxHashMap::default(),
            frozen: true,
        });
        self.clusters.len() - 1
    }

    /// The clusters, in creation order.
    #[cfg(feature = "batch")]
    pub(crate) fn clusters(&self) -> &[Cluster] {
        &self.clusters
    }
}

/// Cluster a batch of fingerprints; returns the cluster index of each.
pub fn cluster(fingerprints: &[Fingerprint], config: ClusterConfig) -> Vec<usize> {
    let mut c = Clusterer::new(config);
    fingerprints.iter().map(|f| c.add(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    fn blog(i: usize) -> Document {
        parse_str(&format!(
            "<body class='postid-{i}'><div id=page><header><nav class=menu><ul><li class='menu-item-{i}'><a>Home</a></li></ul></nav></header>\
             <main><article><h1>Post {i}</h1><p>text {i}</p>{}</article></main><aside class=sidebar><ul><li>a</li></ul></aside><footer>c</footer></div></body>",
            "<p>more</p>".repeat(i % 4)
        ))
    }

    fn forum(i: usize) -> Document {
        parse_str(&format!(
            "<body><table class=forumline><tr><td class=row1><span class=gen>Topic {i}</span></td></tr></table><div class=copyright>phpBB</div></body>"
        ))
    }

    #[test]
    fn fingerprints_ignore_ids_with_digits_and_content_depth() {
        let a = Fingerprint::of(&blog(1));
        let b = Fingerprint::of(&blog(2));
        assert!(a.jaccard(&b) > 0.8, "{}", a.jaccard(&b));
        assert!(a.jaccard(&Fingerprint::of(&forum(1))) < 0.2);
        assert_eq!(Fingerprint::default().jaccard(&Fingerprint::default()), 1.0);
        assert!(Fingerprint::of(&parse_str("")).is_empty());
    }

    #[test]
    fn two_templates_make_two_clusters() {
        let mut fps = Vec::new();
        for i in 0..10 {
            fps.push(Fingerprint::of(&blog(i)));
            fps.push(Fingerprint::of(&forum(i)));
        }
        let ids = cluster(&fps, ClusterConfig::default());
        assert!(ids.iter().step_by(2).all(|k| *k == ids[0]));
        assert!(ids.iter().skip(1).step_by(2).all(|k| *k == ids[1]));
        assert_ne!(ids[0], ids[1]);
    }

    #[test]
    fn deep_pages_do_not_overflow() {
        let deep = format!("{}x{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
        let fp = Fingerprint::of(&parse_str(&deep));
        assert_eq!(fp.len(), FINGERPRINT_DEPTH as usize);
    }
}
