//! The content model: gradient-boosted regression trees (logistic loss, histogram splits)
//! over PAGELEVEL's node features, trained on a page-level benchmark's gold text
//! ([`super::training::gold_samples`]). Where the shipped PAGELEVEL model learned what
//! recurs across a site's pages, this one learned what readers of single pages call content:
//! a listing's cards, a service page's sections.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::features::{FEATURE_NAMES, N_FEATURES};
use super::model::{ModelError, TrainingSet, check_features};
use super::parallel::{map_in_order, threads};

/// The content model shipped with templex (`templex train --content-out`).
const BUILTIN: &str = include_str!("content_model.json");

/// Settings of [`train_forest`].
#[derive(Debug, Clone, PartialEq)]
pub struct ForestConfig {
    /// Boosting rounds (one tree each).
    pub rounds: usize,
    /// Depth of every tree.
    pub depth: usize,
    /// Shrinkage of every tree's leaves.
    pub learning_rate: f64,
    /// L2 penalty on the leaf values.
    pub lambda: f64,
}

impl Default for ForestConfig {
    fn default() -> Self {
        ForestConfig {
            rounds: 100,
            depth: 5,
            learning_rate: 0.1,
            lambda: 1.0,
        }
    }
}

/// One regression tree, as flat arrays: node `k` splits on `feature[k]` (left when the value
/// is at most `cut[k]`), or is a leaf (`feature[k] < 0`) worth `value[k]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Split feature per node; -1 for a leaf.
    pub feature: Vec<i32>,
    /// Split threshold per node.
    pub cut: Vec<f32>,
    /// Left child per node.
    pub left: Vec<u32>,
    /// Right child per node.
    pub right: Vec<u32>,
    /// Leaf value per node (log-odds, before the learning rate).
    pub value: Vec<f64>,
}

impl Tree {
    /// The tree's leaf value for `row`, walked on its own arrays: the reference the
    /// prediction's layout ([`Steps`]) is tested against.
    #[cfg(test)]
    fn leaf(&self, row: &[f32]) -> f64 {
        let mut k = 0usize;
        // A tree of depth d is walked in at most d steps; the bound guards a malformed file.
        for _ in 0..self.feature.len() {
            match usize::try_from(self.feature[k]) {
                Ok(f) => {
                    k = if row[f] <= self.cut[k] {
                        self.left[k]
                    } else {
                        self.right[k]
                    } as usize
                }
                Err(_) => return self.value[k],
            }
        }
        0.0
    }
}

/// A boosted forest scoring a node's templateness (probability that it is not content).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forest {
    /// Feature names, in the order the splits use; must equal this build's.
    pub features: Vec<String>,
    /// Log-odds before the first tree.
    pub base: f64,
    /// Shrinkage of every tree.
    pub learning_rate: f64,
    /// The trees. What the forest derives from them for predicting is built on first use,
    /// so a forest's trees are not changed once it has predicted.
    pub trees: Vec<Tree>,
    /// How it was trained.
    pub notes: Vec<String>,
    /// Every tree's cuts per feature, sorted (built on first use: [`Forest::memo`]).
    #[serde(skip)]
    cuts: OnceLock<Vec<Vec<f32>>>,
    /// The trees laid out for prediction (built on first use: [`Forest::predict`]).
    #[serde(skip)]
    steps: OnceLock<Steps>,
}

/// All trees of a forest in one array, a node in one place: a prediction walks a hundred
/// trees per node of a page, and the trees' parallel arrays cost a cache line per array and
/// step.
#[derive(Debug, Clone, PartialEq)]
struct Steps {
    nodes: Vec<Step>,
    /// Each tree's first node and node count.
    trees: Vec<(usize, usize)>,
    /// The same trees as complete trees of one depth, when they are shallow (trained trees
    /// are: depth 5).
    complete: Option<Complete>,
}

/// Trees padded to complete binary trees of depth `depth` (a leaf above that depth is
/// repeated down both sides), splits level by level: a walk is `depth` steps of
/// `k = 2k + 1 + (went right)`, without a branch to mispredict, and predicting took a tenth
/// of a page's extraction time where the page-level detectors run (most of daniel-dev's
/// pages).
#[derive(Debug, Clone, PartialEq)]
struct Complete {
    depth: u32,
    /// `2^depth - 1` splits per tree: (feature, cut).
    splits: Vec<(u32, f32)>,
    /// `2^depth` leaf values per tree.
    leaves: Vec<f64>,
}

/// The deepest trees laid out complete (`2^depth` leaves each).
const MAX_COMPLETE_DEPTH: u32 = 8;

impl Complete {
    fn of(trees: &[Tree]) -> Option<Complete> {
        let mut depth = 0;
        for t in trees {
            depth = depth.max(tree_depth(t)?);
        }
        if depth > MAX_COMPLETE_DEPTH {
            return None;
        }
        let inner = (1usize << depth) - 1;
        let mut c = Complete {
            depth,
            splits: Vec::with_capacity(trees.len() * inner),
            leaves: Vec::with_capacity(trees.len() * (inner + 1)),
        };
        for t in trees {
            let (s0, l0) = (c.splits.len(), c.leaves.len());
            c.splits.resize(s0 + inner, (0, f32::INFINITY));
            c.leaves.resize(l0 + inner + 1, 0.0);
            // (node of the tree, place in the complete tree, level), levels top down.
            let mut todo = vec![(0usize, 0usize, 0u32)];
            while let Some((k, at, level)) = todo.pop() {
                if level == depth {
                    c.leaves[l0 + at - inner] = t.value[k];
                    continue;
                }
                let (left, right) = match usize::try_from(t.feature[k]) {
                    Ok(f) => {
                        c.splits[s0 + at] = (f as u32, t.cut[k]);
                        (t.left[k] as usize, t.right[k] as usize)
                    }
                    // A leaf above the last level: the same leaf whichever way a row goes.
                    Err(_) => (k, k),
                };
                todo.push((left, 2 * at + 1, level + 1));
                todo.push((right, 2 * at + 2, level + 1));
            }
        }
        Some(c)
    }

    /// The sum of every tree's leaf value for `row`, in the trees' order.
    fn sum(&self, row: &[f32]) -> f64 {
        let inner = (1usize << self.depth) - 1;
        if inner == 0 {
            // Every tree a single leaf.
            return self.leaves.iter().sum();
        }
        let mut sum = 0.0;
        for (splits, leaves) in self
            .splits
            .chunks_exact(inner)
            .zip(self.leaves.chunks_exact(inner + 1))
        {
            let mut k = 0usize;
            for _ in 0..self.depth {
                let (f, cut) = splits[k];
                // Right unless at most the cut: NaN goes right, as in `Tree::leaf`.
                let at_most = matches!(
                    row[f as usize].partial_cmp(&cut),
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                );
                k = 2 * k + 1 + usize::from(!at_most);
            }
            sum += leaves[k - inner];
        }
        sum
    }

    /// [`Complete::sum`] of four rows of [`N_FEATURES`] values, one after the other.
    fn sum4(&self, rows: &[f32]) -> [f64; 4] {
        let inner = (1usize << self.depth) - 1;
        if inner == 0 {
            return [self.leaves.iter().sum(); 4];
        }
        let row: [&[f32]; 4] = std::array::from_fn(|j| &rows[j * N_FEATURES..(j + 1) * N_FEATURES]);
        let mut sum = [0.0; 4];
        for (splits, leaves) in self
            .splits
            .chunks_exact(inner)
            .zip(self.leaves.chunks_exact(inner + 1))
        {
            let mut k = [0usize; 4];
            for _ in 0..self.depth {
                for j in 0..4 {
                    let (f, cut) = splits[k[j]];
                    let at_most = matches!(
                        row[j][f as usize].partial_cmp(&cut),
                        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                    );
                    k[j] = 2 * k[j] + 1 + usize::from(!at_most);
                }
            }
            for j in 0..4 {
                sum[j] += leaves[k[j] - inner];
            }
        }
        sum
    }
}

/// The depth of a tree (its longest path in splits), or `None` when it is deeper than
/// [`MAX_COMPLETE_DEPTH`] or names a node or value it does not have. The walk stops at that
/// depth: a malformed file whose children share nodes (or loop) would otherwise be walked
/// once per path, exponentially many. Every node [`Complete::of`] reads is one checked here.
fn tree_depth(t: &Tree) -> Option<u32> {
    let mut deepest = 0;
    let mut todo = vec![(0usize, 0u32)];
    while let Some((k, d)) = todo.pop() {
        if d > MAX_COMPLETE_DEPTH {
            return None;
        }
        if *t.feature.get(k)? < 0 {
            t.value.get(k)?;
            deepest = deepest.max(d);
        } else {
            t.cut.get(k)?;
            todo.push((*t.left.get(k)? as usize, d + 1));
            todo.push((*t.right.get(k)? as usize, d + 1));
        }
    }
    Some(deepest)
}

/// A tree node: a split on `feature` (left when the value is at most `cut`), with its
/// children's places in [`Steps::nodes`], or a leaf ([`Step::LEAF`]) worth `value`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Step {
    feature: u32,
    cut: f32,
    left: u32,
    right: u32,
    value: f64,
}

impl Step {
    const LEAF: u32 = u32::MAX;
}

impl Steps {
    fn of(trees: &[Tree]) -> Steps {
        let mut nodes = Vec::with_capacity(trees.iter().map(|t| t.feature.len()).sum());
        let mut places = Vec::with_capacity(trees.len());
        for t in trees {
            let start = nodes.len();
            for k in 0..t.feature.len() {
                let at = |c: &[u32]| c.get(k).map_or(u32::MAX, |c| start as u32 + c);
                nodes.push(Step {
                    feature: u32::try_from(t.feature[k]).unwrap_or(Step::LEAF),
                    cut: t.cut.get(k).copied().unwrap_or(f32::NAN),
                    left: at(&t.left),
                    right: at(&t.right),
                    value: t.value.get(k).copied().unwrap_or(0.0),
                });
            }
            places.push((start, t.feature.len()));
        }
        Steps {
            nodes,
            trees: places,
            complete: Complete::of(trees),
        }
    }

    /// The leaf value of the tree at `start` of `len` nodes for `row` (as [`Tree::leaf`]).
    fn leaf(&self, (start, len): (usize, usize), row: &[f32]) -> f64 {
        let mut k = start;
        // A tree of depth d is walked in at most d steps; the bound guards a malformed file.
        for _ in 0..len {
            let Some(s) = self.nodes.get(k) else { break };
            if s.feature == Step::LEAF {
                return s.value;
            }
            k = if row[s.feature as usize] <= s.cut {
                s.left
            } else {
                s.right
            } as usize;
        }
        0.0
    }
}

impl Forest {
    /// The content model shipped with templex.
    pub fn builtin() -> &'static Forest {
        static FOREST: OnceLock<Forest> = OnceLock::new();
        FOREST.get_or_init(|| {
            // The shipped file is checked by tests; a broken one is a build defect.
            Forest::from_json(BUILTIN).expect("the built-in content model is valid")
        })
    }

    /// Parse and validate a forest.
    pub fn from_json(json: &str) -> Result<Forest, ModelError> {
        let f: Forest = serde_json::from_str(json)?;
        f.validate()?;
        Ok(f)
    }

    /// Serialize (compact: the trees are long).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string(self).unwrap_or_default();
        s.push('\n');
        s
    }

    fn validate(&self) -> Result<(), ModelError> {
        check_features(&self.features, "content model")?;
        for t in &self.trees {
            let n = t.feature.len();
            let children_ok = |c: &Vec<u32>| c.len() == n && c.iter().all(|k| (*k as usize) < n);
            if n == 0
                || t.cut.len() != n
                || t.value.len() != n
                || !children_ok(&t.left)
                || !children_ok(&t.right)
                || t.feature.iter().any(|f| *f >= N_FEATURES as i32)
                || t.value.iter().any(|v| !v.is_finite())
            {
                return Err(ModelError::Malformed("content model tree".into()));
            }
        }
        if !(self.base.is_finite() && self.learning_rate.is_finite()) {
            return Err(ModelError::Malformed("content model base".into()));
        }
        Ok(())
    }

    /// Templateness of one feature row.
    pub fn predict(&self, row: &[f32]) -> f64 {
        let steps = self.steps.get_or_init(|| Steps::of(&self.trees));
        let sum = match &steps.complete {
            Some(c) => c.sum(row),
            None => steps.trees.iter().map(|t| steps.leaf(*t, row)).sum::<f64>(),
        };
        self.probability(sum)
    }

    /// [`Forest::predict`] of every row of `rows` (one value per [feature](Forest::features)
    /// a row, the rows one after the other), the trees walked for four rows at once: four
    /// walks that do not wait on each other's loads. The same values as row by row.
    ///
    /// A page of alike rows (a hundred thousand cards) is keyed as [`Forest::memo`] does,
    /// each distinct row predicted once, for as long as the memo pays.
    pub fn predict_rows(&self, rows: &[f32]) -> Vec<f64> {
        let steps = self.steps.get_or_init(|| Steps::of(&self.trees));
        let mut out = Vec::with_capacity(rows.len() / N_FEATURES);
        let mut memo = self.memo();
        let mut rows = rows;
        while rows.len() >= N_FEATURES && memo.paying() {
            out.push(memo.predict(&rows[..N_FEATURES]));
            rows = &rows[N_FEATURES..];
        }
        let Some(c) = &steps.complete else {
            out.extend(rows.chunks_exact(N_FEATURES).map(|r| self.predict(r)));
            return out;
        };
        let mut fours = rows.chunks_exact(4 * N_FEATURES);
        for four in &mut fours {
            out.extend(c.sum4(four).map(|s| self.probability(s)));
        }
        for row in fours.remainder().chunks_exact(N_FEATURES) {
            out.push(self.probability(c.sum(row)));
        }
        out
    }

    /// The probability of the trees' summed leaves.
    fn probability(&self, sum: f64) -> f64 {
        let z = self.base + self.learning_rate * sum;
        1.0 / (1.0 + (-z).exp())
    }

    /// [`Forest::predict`] for many rows, each distinct set of decisions computed once: the
    /// nodes of a page are alike (a thousand cards, a menu's items), and dense pages are
    /// made of them.
    pub fn memo(&self) -> ForestMemo<'_> {
        let cuts = self.cuts.get_or_init(|| {
            let mut cuts = vec![Vec::new(); N_FEATURES];
            for t in &self.trees {
                for (f, c) in t.feature.iter().zip(&t.cut) {
                    if let Ok(f) = usize::try_from(*f) {
                        cuts[f].push(*c);
                    }
                }
            }
            for c in &mut cuts {
                c.sort_by(f32::total_cmp);
                c.dedup();
            }
            cuts
        });
        ForestMemo {
            forest: self,
            cuts,
            // A key per feature must fit a byte; a forest of more cuts is not memoized.
            usable: cuts.iter().all(|c| c.len() < usize::from(u8::MAX)),
            seen: FxHashMap::default(),
            calls: 0,
            hits: 0,
            last_row: [0.0; N_FEATURES],
            last_key: [0; N_FEATURES],
        }
    }
}

/// A [`Forest`]'s predictions, remembered by the decisions a row makes. A row goes right at
/// a split on feature `f` when its value is not at most the cut; over the sorted cuts of
/// `f` those are a prefix (all of them for NaN), so the number of cuts a row goes right at,
/// per feature, decides every split of every tree: rows with the same counts have the same
/// prediction, exactly.
pub struct ForestMemo<'a> {
    forest: &'a Forest,
    cuts: &'a [Vec<f32>],
    usable: bool,
    seen: FxHashMap<[u8; N_FEATURES], f64>,
    /// Rows keyed, and how many of them were seen before.
    calls: usize,
    hits: usize,
    /// The row keyed last and its key (meaningless before the first).
    last_row: [f32; N_FEATURES],
    last_key: [u8; N_FEATURES],
}

impl ForestMemo<'_> {
    /// Whether keying rows still pays: keying a row costs about a sixth of predicting it,
    /// so on pages of unlike nodes the memo stops once a first stretch of rows shows too
    /// few repeats (and then stays off).
    fn paying(&self) -> bool {
        self.usable && (self.calls < 64 || self.hits * 4 >= self.calls)
    }

    /// Templateness of one feature row (as [`Forest::predict`]).
    pub fn predict(&mut self, row: &[f32]) -> f64 {
        if !self.paying() || row.len() != N_FEATURES {
            return self.forest.predict(row);
        }
        self.calls += 1;
        // Alike rows share most values with the row before: those keep their count.
        let first = self.calls == 1;
        for (f, (cuts, v)) in self.cuts.iter().zip(row).enumerate() {
            if first || v.to_bits() != self.last_row[f].to_bits() {
                self.last_key[f] =
                    cuts.partition_point(|c| v.partial_cmp(c).is_none_or(|o| o.is_gt())) as u8;
                self.last_row[f] = *v;
            }
        }
        let key = self.last_key;
        match self.seen.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => {
                self.hits += 1;
                *e.get()
            }
            std::collections::hash_map::Entry::Vacant(e) => *e.insert(self.forest.predict(row)),
        }
    }
}

/// Bins per feature of the split search.
const BINS: usize = 64;

/// Train a forest on `set` (template = true), every sample weighted.
pub fn train_forest(set: &TrainingSet, config: &ForestConfig, notes: Vec<String>) -> Forest {
    let d = N_FEATURES;
    let n = set.len();
    let row = |i: usize| &set.rows[i * d..(i + 1) * d];
    let mut forest = Forest {
        features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
        base: 0.0,
        learning_rate: config.learning_rate,
        trees: Vec::new(),
        notes,
        cuts: OnceLock::new(),
        steps: OnceLock::new(),
    };
    if n == 0 {
        return forest;
    }
    // Quantile cuts per feature, from a sample of the rows.
    let stride = (n / 50_000).max(1);
    let cuts: Vec<Vec<f32>> = (0..d)
        .map(|f| {
            let mut v: Vec<f32> = (0..n).step_by(stride).map(|i| row(i)[f]).collect();
            v.sort_by(f32::total_cmp);
            let mut c: Vec<f32> = (1..BINS)
                .map(|k| v[(k * v.len() / BINS).min(v.len() - 1)])
                .collect();
            c.dedup();
            c
        })
        .collect();
    let bins: Vec<u8> = (0..n * d)
        .map(|j| cuts[j % d].partition_point(|c| *c < set.rows[j]) as u8)
        .collect();
    let wsum: f64 = set.weights.iter().sum();
    let scale = if wsum > 0.0 { n as f64 / wsum } else { 1.0 };
    let w: Vec<f64> = set.weights.iter().map(|x| x * scale).collect();
    let positive = (0..n).filter(|i| set.labels[*i]).map(|i| w[i]).sum::<f64>() / n as f64;
    let p0 = positive.clamp(1e-6, 1.0 - 1e-6);
    forest.base = (p0 / (1.0 - p0)).ln();
    let mut z = vec![forest.base; n];
    let (mut g, mut h) = (vec![0.0f64; n], vec![0.0f64; n]);
    for _ in 0..config.rounds {
        for i in 0..n {
            let p = 1.0 / (1.0 + (-z[i]).exp());
            let y = if set.labels[i] { 1.0 } else { 0.0 };
            g[i] = w[i] * (p - y);
            h[i] = w[i] * (p * (1.0 - p)).max(1e-9);
        }
        let (tree, leaf_of) = grow_tree(&bins, &cuts, &g, &h, config);
        for i in 0..n {
            z[i] += config.learning_rate * tree.value[leaf_of[i] as usize];
        }
        forest.trees.push(tree);
    }
    forest
}

/// The sums of the gradients and hessians of each open slot's samples per feature and bin,
/// at `[(slot * d + feature) * BINS + bin]`. The features are summed in `parts` groups, in
/// parallel (the training set of the content model has hundreds of thousands of rows); each
/// bin still sums its samples in their order, so the sums are the same whatever the parts.
fn histograms(
    bins: &[u8],
    d: usize,
    g: &[f64],
    h: &[f64],
    slots: usize,
    slot_of: &(impl Fn(usize) -> Option<usize> + Sync),
    parts: usize,
) -> Vec<[f64; 2]> {
    let n = g.len();
    let parts = parts.clamp(1, d.max(1));
    let ranges: Vec<std::ops::Range<usize>> = (0..parts)
        .map(|k| k * d / parts..(k + 1) * d / parts)
        .collect();
    // Features `fs` of every slot, at `[(slot * fs.len() + f) * BINS + bin]`.
    let sums = map_in_order(&ranges, |fs| {
        let w = fs.len();
        let mut out = vec![[0.0f64; 2]; slots * w * BINS];
        for i in 0..n {
            let Some(s) = slot_of(i) else {
                continue;
            };
            let base = s * w * BINS;
            for (f, b) in bins[i * d + fs.start..i * d + fs.end].iter().enumerate() {
                let e = &mut out[base + f * BINS + *b as usize];
                e[0] += g[i];
                e[1] += h[i];
            }
        }
        out
    });
    if parts == 1 {
        return sums.into_iter().next().unwrap_or_default();
    }
    let mut hist = vec![[0.0f64; 2]; slots * d * BINS];
    for (r, p) in ranges.iter().zip(&sums) {
        let w = r.len();
        for s in 0..slots {
            let to = (s * d + r.start) * BINS;
            hist[to..to + w * BINS].copy_from_slice(&p[s * w * BINS..(s + 1) * w * BINS]);
        }
    }
    hist
}

/// Grow one tree level by level on the gradients; returns it and each sample's leaf.
fn grow_tree(
    bins: &[u8],
    cuts: &[Vec<f32>],
    g: &[f64],
    h: &[f64],
    config: &ForestConfig,
) -> (Tree, Vec<u32>) {
    let d = cuts.len();
    let n = g.len();
    let min_h = 1.0;
    let lambda = config.lambda;
    let mut t = Tree {
        feature: vec![-1],
        cut: vec![0.0],
        left: vec![0],
        right: vec![0],
        value: vec![0.0],
    };
    let mut at = vec![0u32; n];
    // Groups of features summed in parallel: they pay for themselves on large sets only.
    let parts = if n < 50_000 { 1 } else { threads() };
    // Open nodes of the level, and each node's position among them.
    let mut open: Vec<u32> = vec![0];
    let mut slot: Vec<u32> = vec![0];
    for level in 0..=config.depth {
        if open.is_empty() {
            break;
        }
        let slot_of = |i: usize| match slot[at[i] as usize] {
            u32::MAX => None,
            s => Some(s as usize),
        };
        let mut tot = vec![[0.0f64; 2]; open.len()];
        for i in 0..n {
            if let Some(s) = slot_of(i) {
                tot[s][0] += g[i];
                tot[s][1] += h[i];
            }
        }
        let hist = histograms(bins, d, g, h, open.len(), &slot_of, parts);
        let mut next = Vec::new();
        let mut split: Vec<Option<(usize, usize)>> = vec![None; open.len()];
        for (s, &node) in open.iter().enumerate() {
            let (gt, ht) = (tot[s][0], tot[s][1]);
            let node = node as usize;
            t.value[node] = -gt / (ht + lambda);
            if level == config.depth || ht < 2.0 * min_h {
                continue;
            }
            let parent = gt * gt / (ht + lambda);
            let mut best = (1e-9f64, usize::MAX, 0usize);
            for (f, c) in cuts.iter().enumerate() {
                let (mut gl, mut hl) = (0.0, 0.0);
                for b in 0..c.len() {
                    let e = hist[s * d * BINS + f * BINS + b];
                    gl += e[0];
                    hl += e[1];
                    let (gr, hr) = (gt - gl, ht - hl);
                    if hl < min_h || hr < min_h {
                        continue;
                    }
                    let gain = gl * gl / (hl + lambda) + gr * gr / (hr + lambda) - parent;
                    if gain > best.0 {
                        best = (gain, f, b);
                    }
                }
            }
            if best.1 != usize::MAX {
                let l = t.feature.len() as u32;
                for _ in 0..2 {
                    t.feature.push(-1);
                    t.cut.push(0.0);
                    t.left.push(0);
                    t.right.push(0);
                    t.value.push(0.0);
                }
                t.feature[node] = best.1 as i32;
                t.cut[node] = cuts[best.1][best.2];
                t.left[node] = l;
                t.right[node] = l + 1;
                split[s] = Some((best.1, best.2));
                next.push(l);
                next.push(l + 1);
            }
        }
        for i in 0..n {
            let s = slot[at[i] as usize];
            if s == u32::MAX {
                continue;
            }
            if let Some((f, b)) = split[s as usize] {
                let node = at[i] as usize;
                at[i] = if (bins[i * d + f] as usize) <= b {
                    t.left[node]
                } else {
                    t.right[node]
                };
            }
        }
        slot = vec![u32::MAX; t.feature.len()];
        for (k, node) in next.iter().enumerate() {
            slot[*node as usize] = k as u32;
        }
        open = next;
    }
    (t, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_the_same_whatever_the_threads() {
        let (n, d, slots) = (3000, 7, 3);
        let mut state = 11u64;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        let bins: Vec<u8> = (0..n * d).map(|_| (rnd() % BINS as u64) as u8).collect();
        let g: Vec<f64> = (0..n).map(|_| rnd() as f64 / 1e9 - 1.0).collect();
        let h: Vec<f64> = (0..n).map(|_| rnd() as f64 / 1e9).collect();
        // Some samples are in closed slots.
        let slot: Vec<Option<usize>> = (0..n)
            .map(|_| Some((rnd() % 4) as usize).filter(|s| *s < slots))
            .collect();
        let slot_of = |i: usize| slot[i];
        let one = histograms(&bins, d, &g, &h, slots, &slot_of, 1);
        assert_eq!(one.len(), slots * d * BINS);
        let (s, f) = (1, 4);
        let want: [f64; 2] = (0..n)
            .filter(|i| slot[*i] == Some(s) && bins[i * d + f] == 5)
            .fold([0.0, 0.0], |a, i| [a[0] + g[i], a[1] + h[i]]);
        assert_eq!(one[(s * d + f) * BINS + 5], want);
        for parts in [2, 3, 7, 64] {
            let many = histograms(&bins, d, &g, &h, slots, &slot_of, parts);
            let same = one
                .iter()
                .zip(&many)
                .all(|(a, b)| a[0].to_bits() == b[0].to_bits() && a[1].to_bits() == b[1].to_bits());
            assert!(same, "{parts} parts");
        }
    }

    #[test]
    fn learns_an_interaction_and_round_trips() {
        // Template iff feature 2 is high XOR feature 5 is high: no linear model gets it.
        let mut set = TrainingSet::default();
        let mut state = 7u64;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as f32) / (1u64 << 31) as f32
        };
        for _ in 0..4000 {
            let mut row = vec![0f32; N_FEATURES];
            for v in row.iter_mut() {
                *v = rnd();
            }
            let label = (row[2] > 0.5) != (row[5] > 0.5);
            set.push(&row, label, 1.0, 100);
        }
        let f = train_forest(&set, &ForestConfig::default(), vec![]);
        let correct = (0..set.len())
            .filter(|i| {
                let row = &set.rows[i * N_FEATURES..(i + 1) * N_FEATURES];
                (f.predict(row) >= 0.5) == set.labels[*i]
            })
            .count();
        assert!(correct as f64 / set.len() as f64 > 0.95, "{correct}");
        // JSON keeps the trees (floats to within a unit in the last place).
        let back = Forest::from_json(&f.to_json()).unwrap();
        assert_eq!(back.trees.len(), f.trees.len());
        for i in 0..100 {
            let row = &set.rows[i * N_FEATURES..(i + 1) * N_FEATURES];
            assert!((back.predict(row) - f.predict(row)).abs() < 1e-9);
        }
        assert!(Forest::from_json("{}").is_err());
    }

    #[test]
    fn memo_and_layout_predict_exactly_what_the_trees_predict() {
        let f = Forest::builtin();
        let cuts: Vec<Vec<f32>> = {
            let m = f.memo();
            m.cuts.to_vec()
        };
        let mut state = 11u64;
        let mut rnd = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        // Values on, just below and just above every cut, far outside, NaN and infinities.
        let mut pick = |f: usize| -> f32 {
            let c = &cuts[f];
            if c.is_empty() || rnd() % 10 == 0 {
                return [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1e9, 1e9][rnd() % 5];
            }
            let v = c[rnd() % c.len()];
            match rnd() % 3 {
                0 => v,
                1 => f32::from_bits(v.to_bits().wrapping_sub(1)),
                _ => v + v.abs().max(1e-3) * 0.5,
            }
        };
        let mut rows: Vec<Vec<f32>> = (0..3000)
            .map(|_| (0..N_FEATURES).map(&mut pick).collect())
            .collect();
        // Rows alike but for one feature: below every cut then NaN, on a cut then just above.
        let alike = rows[0].clone();
        for (f, c) in cuts.iter().enumerate() {
            let mut with = |v: f32| {
                let mut r = alike.clone();
                r[f] = v;
                rows.push(r);
            };
            with(f32::NEG_INFINITY);
            with(f32::NAN);
            if let Some(c) = c.first() {
                with(*c);
                with(f32::from_bits(c.to_bits() + 1));
            }
        }
        // The prediction's layout walks every tree as its own arrays do.
        for row in &rows {
            let z = f.base + f.learning_rate * f.trees.iter().map(|t| t.leaf(row)).sum::<f64>();
            let walked = 1.0 / (1.0 + (-z).exp());
            assert_eq!(f.predict(row).to_bits(), walked.to_bits(), "{row:?}");
        }
        // All rows at once, four walks at a time, and rows short of four (the remainder).
        let flat: Vec<f32> = rows.iter().flatten().copied().collect();
        for take in [rows.len(), 3001, 3] {
            let many = f.predict_rows(&flat[..take * N_FEATURES]);
            assert_eq!(many.len(), take);
            for (row, p) in rows.iter().zip(&many) {
                assert_eq!(p.to_bits(), f.predict(row).to_bits(), "{row:?}");
            }
        }
        let mut memo = f.memo();
        // Every row twice in a row, the second time from the memo (half the rows repeat, so
        // the memo keeps keying them).
        for row in rows.iter().flat_map(|r| [r, r]) {
            assert_eq!(
                memo.predict(row).to_bits(),
                f.predict(row).to_bits(),
                "{row:?}"
            );
        }
        assert_eq!(
            (memo.calls, memo.hits >= rows.len()),
            (2 * rows.len(), true)
        );
        // Rows that differ only between cuts are one entry.
        let base: Vec<f32> = (0..N_FEATURES)
            .map(|f| cuts[f].first().map_or(0.0, |c| c + 1e-6))
            .collect();
        let mut memo = f.memo();
        for k in 0..1000 {
            let mut row = base.clone();
            row[0] = f32::from_bits(base[0].to_bits() + (k % 2));
            assert_eq!(memo.predict(&row).to_bits(), f.predict(&row).to_bits());
        }
        assert!(memo.seen.len() <= 2, "{}", memo.seen.len());
    }

    /// Trees of uneven depths (a lone leaf, a leaf above the last level) predict through the
    /// complete layout what their own arrays say.
    #[test]
    fn complete_layout_pads_short_branches() {
        let leaf = |v: f64| Tree {
            feature: vec![-1],
            cut: vec![0.0],
            left: vec![0],
            right: vec![0],
            value: vec![v],
        };
        // Split on feature 1 at 0.5: left a leaf, right a split on feature 2 at -1.
        let uneven = Tree {
            feature: vec![1, -1, 2, -1, -1],
            cut: vec![0.5, 0.0, -1.0, 0.0, 0.0],
            left: vec![1, 0, 3, 0, 0],
            right: vec![2, 0, 4, 0, 0],
            value: vec![0.0, 0.25, 0.0, -0.5, 2.0],
        };
        for trees in [
            vec![leaf(0.75)],
            vec![leaf(0.75), uneven.clone()],
            vec![uneven],
        ] {
            let c = Complete::of(&trees).unwrap();
            for v1 in [f32::NAN, -3.0, 0.5, 0.6] {
                for v2 in [f32::NAN, -2.0, -1.0, 7.0] {
                    let mut row = vec![0.0; N_FEATURES];
                    (row[1], row[2]) = (v1, v2);
                    let walked: f64 = trees.iter().map(|t| t.leaf(&row)).sum();
                    assert_eq!(c.sum(&row), walked, "{v1} {v2}");
                }
            }
        }
    }

    /// A malformed tree whose splits all lead to one node, 60 levels deep, is checked in a
    /// bounded walk and predicted through the plain layout; a tree naming a node it does
    /// not have is not laid out complete (and does not panic).
    #[test]
    fn complete_layout_refuses_deep_or_broken_trees() {
        let n = 61;
        let chain = Tree {
            feature: (0..n).map(|k| if k + 1 == n { -1 } else { 0 }).collect(),
            cut: vec![0.0; n],
            left: (0..n as u32).map(|k| (k + 1).min(n as u32 - 1)).collect(),
            right: (0..n as u32).map(|k| (k + 1).min(n as u32 - 1)).collect(),
            value: vec![1.5; n],
        };
        assert_eq!(Complete::of(std::slice::from_ref(&chain)), None);
        let steps = Steps::of(std::slice::from_ref(&chain));
        assert_eq!(steps.leaf(steps.trees[0], &[0.0; N_FEATURES]), 1.5);
        let broken = Tree {
            feature: vec![0],
            cut: vec![0.0],
            left: vec![7],
            right: vec![7],
            value: vec![0.0],
        };
        assert_eq!(Complete::of(&[broken]), None);
    }

    #[test]
    fn builtin_content_model_loads() {
        let f = Forest::builtin();
        assert_eq!(f.features.len(), N_FEATURES);
        assert!(!f.trees.is_empty());
    }
}
