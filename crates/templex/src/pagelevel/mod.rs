//! Page-level template detection (the page-level isotonic-smoothing paper): one page, no
//! site. A classifier scores every block-level node's templateness from features computable
//! without rendering ([`features`]); the scores are smoothed by regularized tree isotonic
//! regression ([`isotonic`]), which also segments the page; nodes whose smoothed score reaches
//! the threshold are template.
//!
//! The classifier is trained on labels that SITELEVEL derives automatically from whole sites
//! ([`crate::template::sitelevel::labels`], `templex train`); the trained model ships with
//! templex ([`Model::builtin`]).
//!
//! The content model ([`trees`]) scores the same features with boosted trees trained on a
//! page-level benchmark's gold text ([`training`], `templex train --content-out`);
//! page-level content calls chrome what both call template.
//!
//! This is the detector; PAGELEVEL as a template method is `crate::template::pagelevel`.

pub(crate) mod features;
pub(crate) mod isotonic;
pub(crate) mod model;
mod parallel;
pub(crate) mod training;
pub(crate) mod trees;

use std::time::{Duration, Instant};

use serde::Serialize;
use url::Url;

use crate::dom::{Document, NodeId, deadline};
use crate::extract::Content;

pub use features::{FEATURE_NAMES, NO_ROW, node_features};
pub use model::{Model, ModelError, TrainConfig, TrainingInfo, TrainingSet, train};
pub use training::{GoldPage, content_samples, gold_samples, read_gold_pages};
pub use trees::{Forest, ForestConfig, ForestMemo, train_forest};

/// Settings of [`detect`].
#[derive(Debug, Clone)]
pub struct PageLevelConfig {
    /// Smooth the classifier scores (the paper's PAGELEVEL Smooth); off gives PAGELEVEL
    /// Basic.
    pub smooth: bool,
    /// The constant c of the subtree-size penalty γ_i = c · N / N_i.
    pub penalty: f64,
    /// A node whose (smoothed) score reaches this is template.
    pub threshold: f64,
    /// How layout containers above the content are labelled (see [`Wrappers`]).
    pub wrappers: Wrappers,
    /// Most levels the smoothing solves over ([`SmoothOptions::max_levels`](crate::isotonic::SmoothOptions::max_levels)):
    /// its time grows linearly with them. Exact up to 256 distinct scores by default.
    pub levels: usize,
}

/// Layout containers: elements that hold the content without being part of it (`div#page`,
/// `div.container`, `main`). Monotone smoothing calls them content (they contain content);
/// the site-level methods and the gold standard call them template (they are on every page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wrappers {
    /// Leave them as smoothed.
    Keep,
    /// Text-less elements with at least one template child.
    Mixed,
    /// From `<body>` down, text-less content elements with exactly one content child.
    Chain,
    /// The ancestors of the page-level main-content detector's container.
    Ancestors,
}

impl Default for PageLevelConfig {
    fn default() -> Self {
        PageLevelConfig {
            smooth: true,
            penalty: 0.1,
            threshold: 0.3,
            wrappers: Wrappers::Mixed,
            levels: isotonic::DEFAULT_MAX_LEVELS,
        }
    }
}

/// A segment of the smoothed page: a subtree whose nodes share one smoothed score (nested
/// segments carve out their own parts).
#[derive(Debug, Clone, Serialize)]
pub struct Segment {
    /// The segment's root element.
    #[serde(skip)]
    pub root: NodeId,
    /// Its absolute DOM path.
    pub dom_path: String,
    /// The smoothed templateness score.
    pub score: f64,
    /// Whether the segment is template (score ≥ threshold).
    pub template: bool,
    /// Classified nodes in the segment (not in nested segments).
    pub nodes: usize,
    /// The first words of its text.
    pub text: String,
}

/// The result of [`detect`].
#[derive(Debug, Clone)]
pub struct PageLevelResult {
    /// Classifier score per node id (hidden nodes carry their classified ancestor's).
    pub scores: Vec<f64>,
    /// Smoothed score per node id (equal to `scores` without smoothing).
    pub smoothed: Vec<f64>,
    /// Per node id: whether the node is template.
    pub template: Vec<bool>,
    /// Segments in document order (every classified node is its own segment without
    /// smoothing).
    pub segments: Vec<Segment>,
    /// Time spent on features, classification and smoothing.
    pub timings: PageLevelTimings,
}

/// Time per phase of [`detect`].
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct PageLevelTimings {
    /// Feature extraction (the page-level content detector included).
    pub features: Duration,
    /// Classification.
    pub classify: Duration,
    /// Isotonic smoothing.
    pub smooth: Duration,
}

/// The classified nodes as a pre-order tree for smoothing: node ids, parent positions,
/// weights (1 + hidden elements rolled into the node) and subtree sizes.
struct SmoothTree {
    /// The classified nodes (and `<body>` first), in document order.
    ids: Vec<NodeId>,
    /// Position of each one's nearest classified ancestor.
    parent: Vec<Option<u32>>,
    weight: Vec<f64>,
    /// Nodes of each one's subtree in this tree, itself included: positions `k..k + size[k]`.
    size: Vec<u32>,
}

fn smooth_tree(doc: &Document, classified: &[bool], body: NodeId) -> (SmoothTree, Vec<u32>) {
    let n = doc.len();
    // owner[i] = position of the nearest classified ancestor-or-self of node i.
    let mut owner = vec![u32::MAX; n];
    let mut t = SmoothTree {
        ids: Vec::new(),
        parent: Vec::new(),
        weight: Vec::new(),
        size: Vec::new(),
    };
    for i in doc.subtree(body) {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        let up = if id == body {
            u32::MAX
        } else {
            doc.parent(id).map_or(u32::MAX, |p| owner[p.index()])
        };
        if classified[id.index()] || id == body {
            let pos = t.ids.len() as u32;
            t.ids.push(id);
            t.parent.push((up != u32::MAX).then_some(up));
            t.weight.push(1.0);
            t.size.push(1);
            owner[id.index()] = pos;
        } else {
            owner[id.index()] = up;
            if doc.element(id).is_some() && up != u32::MAX {
                t.weight[up as usize] += 1.0;
            }
        }
    }
    for k in (1..t.ids.len()).rev() {
        if let Some(p) = t.parent[k] {
            t.size[p as usize] += t.size[k];
        }
    }
    (t, owner)
}

/// Detect the template of one page with `model`.
pub fn detect(
    doc: &Document,
    page_url: Option<&Url>,
    model: &Model,
    config: &PageLevelConfig,
) -> PageLevelResult {
    detect_with(doc, page_url, model, config, None)
}

/// [`detect`] given the page's main content under the default settings, when the caller
/// has it ([`features::node_features_with`]).
pub(crate) fn detect_with(
    doc: &Document,
    page_url: Option<&Url>,
    model: &Model,
    config: &PageLevelConfig,
    content: Option<&Content>,
) -> PageLevelResult {
    detect_by(
        doc,
        page_url,
        &|fx, id| model.score(fx, id),
        config,
        content,
    )
}

/// [`detect_with`] with any scorer.
fn detect_by(
    doc: &Document,
    page_url: Option<&Url>,
    score: &dyn Fn(&features::NodeFeatures, NodeId) -> f64,
    config: &PageLevelConfig,
    content: Option<&Content>,
) -> PageLevelResult {
    let t0 = Instant::now();
    let fx = features::node_features_with(doc, page_url, content);
    let mut result = detect_from(doc, &fx, score, config, true);
    result.timings.features = t0
        .elapsed()
        .saturating_sub(result.timings.classify + result.timings.smooth);
    result
}

/// Classification and smoothing of a page whose features are `fx`, nodes scored by `score`;
/// the segments (DOM paths and text snippets, for reports) only `with_segments`.
pub(crate) fn detect_from(
    doc: &Document,
    fx: &features::NodeFeatures,
    score: &dyn Fn(&features::NodeFeatures, NodeId) -> f64,
    config: &PageLevelConfig,
    with_segments: bool,
) -> PageLevelResult {
    let n = doc.len();
    let mut result = PageLevelResult {
        scores: vec![0.0; n],
        smoothed: vec![0.0; n],
        template: vec![false; n],
        segments: Vec::new(),
        timings: PageLevelTimings::default(),
    };
    let Some(body) = doc.body() else {
        return result;
    };
    let t1 = Instant::now();
    let (tree, owner) = smooth_tree(doc, &fx.classified, body);
    let mut x: Vec<f64> = Vec::with_capacity(tree.ids.len());
    for (k, id) in tree.ids.iter().enumerate() {
        if deadline::due(k) {
            break;
        }
        x.push(score(fx, *id));
    }
    if deadline::passed() {
        // The page is out of time and this result is not used.
        return result;
    }
    result.timings.classify = t1.elapsed();
    let t2 = Instant::now();
    let (y, roots) = if config.smooth && !tree.ids.is_empty() {
        let total = tree.ids.len() as f64;
        let penalty: Vec<f64> = tree
            .size
            .iter()
            .map(|s| config.penalty * total / f64::from(*s))
            .collect();
        match isotonic::smooth(
            &tree.parent,
            &x,
            &tree.weight,
            &penalty,
            &isotonic::SmoothOptions {
                max_levels: config.levels,
            },
        ) {
            Ok(s) => (s.y, s.segment_roots),
            Err(e) => {
                tracing::warn!("isotonic smoothing failed, using raw scores: {e}");
                (x.clone(), (0..tree.ids.len() as u32).collect())
            }
        }
    } else {
        (x.clone(), (0..tree.ids.len() as u32).collect())
    };
    result.timings.smooth = t2.elapsed();
    // Decide on the classified nodes, then let every hidden node follow its owner.
    let m = tree.ids.len();
    let mut tpl: Vec<bool> = y.iter().map(|v| *v >= config.threshold).collect();
    if m > 0 {
        tpl[0] = false; // <body> holds the page
    }
    let own_text = |id: NodeId| {
        doc.children(id)
            .any(|c| doc.text(c).is_some_and(|t| !t.trim().is_empty()))
    };
    // The smoothing tree is in document order with subtree sizes: a node's children are the
    // next node and each one past the subtree of the one before, within its own subtree.
    let size = &tree.size;
    let children = |k: usize| {
        let end = k + size[k] as usize;
        std::iter::successors(Some(k + 1).filter(|c| *c < end), move |c| {
            Some(c + size[*c] as usize).filter(|n| *n < end)
        })
    };
    match config.wrappers {
        Wrappers::Keep => {}
        Wrappers::Mixed => {
            // Children before parents, so that nested wrappers follow.
            for k in (1..m).rev() {
                if !tpl[k] && children(k).any(|c| tpl[c]) && !own_text(tree.ids[k]) {
                    tpl[k] = true;
                }
            }
        }
        Wrappers::Chain => {
            let mut k = 0usize;
            loop {
                let mut content = children(k).filter(|c| !tpl[*c]);
                let (Some(only), None) = (content.next(), content.next()) else {
                    break;
                };
                if own_text(tree.ids[k]) {
                    break;
                }
                if k != 0 {
                    tpl[k] = true;
                }
                k = only;
            }
        }
        Wrappers::Ancestors => {
            if let Some(root) = fx.content_root {
                let mut k = owner[root.index()];
                while k != u32::MAX && k != 0 {
                    tpl[k as usize] = true;
                    k = tree.parent[k as usize].unwrap_or(u32::MAX);
                }
            }
        }
    }
    for i in doc.subtree(body) {
        if deadline::due(i as usize) {
            break;
        }
        let o = owner[i as usize];
        if o != u32::MAX {
            result.scores[i as usize] = x[o as usize];
            result.smoothed[i as usize] = y[o as usize];
            // Text-less nodes straight under <body> (scripts, spacers, empty shells) are
            // outside every content block.
            result.template[i as usize] = tpl[o as usize] || o == 0;
        }
    }
    result.template[body.index()] = false;
    if !with_segments {
        return result;
    }
    let mut in_segment = vec![0usize; roots.len()];
    let mut seg_of = vec![0usize; tree.ids.len()];
    let mut root_pos: Vec<usize> = vec![usize::MAX; tree.ids.len()];
    for (k, r) in roots.iter().enumerate() {
        root_pos[*r as usize] = k;
    }
    for k in 0..tree.ids.len() {
        seg_of[k] = if root_pos[k] != usize::MAX {
            root_pos[k]
        } else {
            tree.parent[k].map_or(0, |p| seg_of[p as usize])
        };
        if let Some(c) = in_segment.get_mut(seg_of[k]) {
            *c += 1;
        }
    }
    result.segments = roots
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let id = tree.ids[*r as usize];
            Segment {
                root: id,
                dom_path: doc.dom_path(id),
                score: y[*r as usize],
                template: y[*r as usize] >= config.threshold,
                nodes: in_segment[k],
                text: snippet(doc, id, 12),
            }
        })
        .collect();
    result
}

fn snippet(doc: &Document, id: NodeId, words: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for d in doc.subtree(id) {
        if deadline::due(d as usize) {
            break;
        }
        if let Some(t) = doc.text(NodeId(d)) {
            for w in t.split_whitespace() {
                if count == words {
                    out.push('…');
                    return out;
                }
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(w);
                count += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    /// The template verdicts of `detect_from` under `wrappers`, for the elements named by
    /// id, when elements whose id starts with `t` score 1 and the others 0 (no smoothing).
    fn wrapped(wrappers: Wrappers, ids: &[&str]) -> Vec<bool> {
        // The template child of `wrap` comes after its content sibling, and `main` holds a
        // grandchild of `wrap`: reading only first children, or grandchildren as children,
        // changes the answer.
        let doc = parse_str(
            r#"<body><div id="page"><div id="wrap"><div id="main"><p id="prose">Content words here.</p></div><div id="tnav">Menu one two</div></div><div id="tfoot">Footer words</div></div></body>"#,
        );
        let fx = features::node_features(&doc, None);
        let score = |_: &features::NodeFeatures, id: NodeId| {
            let named = doc.element(id).and_then(|e| e.id());
            f64::from(u8::from(named.is_some_and(|i| i.starts_with('t'))))
        };
        let config = PageLevelConfig {
            smooth: false,
            wrappers,
            ..PageLevelConfig::default()
        };
        let r = detect_from(&doc, &fx, &score, &config, false);
        ids.iter()
            .map(|want| {
                let id = doc
                    .elements()
                    .find(|e| doc.element(*e).and_then(|el| el.id()) == Some(*want))
                    .expect("element of the page");
                r.template[id.index()]
            })
            .collect()
    }

    #[test]
    fn wrappers_follow_their_children() {
        let ids = ["page", "wrap", "main", "prose", "tnav", "tfoot"];
        assert_eq!(
            wrapped(Wrappers::Keep, &ids),
            [false, false, false, false, true, true]
        );
        // Text-less elements with a template child.
        assert_eq!(
            wrapped(Wrappers::Mixed, &ids),
            [true, true, false, false, true, true]
        );
        // From <body> down while there is exactly one content child and no own text.
        assert_eq!(
            wrapped(Wrappers::Chain, &ids),
            [true, true, true, false, true, true]
        );
    }
}
