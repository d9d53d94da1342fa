//! Regularized tree isotonic regression: the smoothing step of page-level template detection
//! (Section 4 of the page-level paper, "Isotonic smoothing", Problem 2).
//!
//! A classifier scores every DOM node with its "templateness" `x_i`. Smoothing replaces the
//! scores by `y` that never decrease from a parent to its children (`y_parent(i) <= y_i`) and
//! that split the tree into few *segments*: a node is a segment root when it is the tree's root
//! or its `y` differs from its parent's. With per-node weights `w_i >= 0` and penalties
//! `γ_i >= 0`, [`smooth`] finds `y` minimizing
//!
//! ```text
//! cost(y) = Σ_i γ_i · [i is a segment root] + Σ_i w_i · |x_i − y_i|
//! ```
//!
//! By the paper's Lemma 3 some optimum only uses values of `x`, so the paper's dynamic
//! program (BUILDERROR) tabulates, for every node `i` and every candidate value `v_j` of its
//! parent, the optimal cost `err(i, j)` of `i`'s subtree: either `i` continues its parent's
//! segment (`y_i = v_j`, no penalty) or starts a new one at some `v_k >= v_j` and pays `γ_i`.
//! ISOTONESMOOTH then walks down from the root, reading off each node's best choice.
//!
//! # Cost
//!
//! With `m` candidate values (at most [`SmoothOptions::max_levels`]) the paper's
//! `O(n² log n)` time and `O(n²)` memory drop to:
//!
//! * **time `O(n_inner·m + n log n)`**: per inner node one pass builds its error array, one
//!   backward pass takes suffix minima (the "new segment at any `v_k >= v_j`" choice) and
//!   decides, one pass adds it into the parent's sum. A leaf's error, as a function of its
//!   parent's level, is piecewise linear in three pieces: it goes into difference arrays in
//!   `O(log m)` (two binary searches), which one pass per parent adds into the parent's
//!   sum. Sorting the scores is the `n log n`.
//! * **memory `n_inner·m` bytes** (twice that when `m > 256`) for the decision table — per
//!   non-root inner node and parent level, the level the node takes, as a `u8`/`u16`; leaves
//!   (most of a DOM) need no row, their decision is recomputed — plus `O(n)` words for the
//!   tree and the answer, plus `O(m·log n)` floats of error arrays. Nodes are processed
//!   children first with each node's largest child first, so an ancestor holds a pending
//!   partial sum only while we are inside one of its *smaller* children's subtrees: at most
//!   `log2 n + 1` error arrays are alive at any time, whatever the tree's shape (a
//!   100,000-deep chain keeps one, so does a star).
//!
//! A 20,000-node DOM-like tree at `m = 256` smooths in about 6 ms with under 2 MB of scratch
//! (`cargo bench -p templex --bench isotonic`; BENCHMARKS.md, "Tree isotonic smoothing"). Nothing recurses.
//!
//! # Quantization
//!
//! With more distinct scores than `max_levels`, `y` is restricted to `max_levels` evenly
//! spaced levels over `[min x, max x]` (spacing `δ`) and the problem is solved exactly among
//! such `y`, still measuring `|x_i − y_i|` against the original scores. Rounding an
//! optimal `y*` (whose values lie in `[min x, max x]` by Lemma 3) to its nearest level keeps
//! it monotone, never adds a segment root and moves each `y_i` by at most `δ/2`, so the
//! result costs at most `Σ_i w_i · δ/2` more than the true optimum; that bound is reported as
//! [`Smoothing::max_excess`]. (Quantizing `x` itself and solving on the quantized scores would
//! only guarantee twice that.)

use std::fmt;

use crate::dom::deadline;

/// Default [`SmoothOptions::max_levels`]: one-byte decisions, and a quantization step of
/// 1/255 of the score range, far below a classifier's resolution.
pub(crate) const DEFAULT_MAX_LEVELS: usize = 256;

/// Largest accepted [`SmoothOptions::max_levels`]: decisions are stored as `u16`.
pub(crate) const MAX_LEVELS_LIMIT: usize = 1 << 16;

/// Settings of [`smooth`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmoothOptions {
    /// Most candidate values the solver considers, between 2 and `MAX_LEVELS_LIMIT`. When
    /// the scores have at most this many distinct values the result is exactly optimal;
    /// otherwise `y` is restricted to this many evenly spaced levels (see the module docs for
    /// the error bound). Time and memory grow linearly with it.
    pub max_levels: usize,
}

impl Default for SmoothOptions {
    fn default() -> Self {
        SmoothOptions {
            max_levels: DEFAULT_MAX_LEVELS,
        }
    }
}

/// The result of [`smooth`].
#[derive(Debug, Clone, PartialEq)]
pub struct Smoothing {
    /// Smoothed score of every node; `y[parent] <= y[child]` throughout.
    pub y: Vec<f64>,
    /// The segment roots in document (index) order: node 0 first, then every node whose `y`
    /// differs from its parent's. Empty only for an empty tree.
    pub segment_roots: Vec<u32>,
    /// The objective `cost` of `y`.
    pub cost: f64,
    /// Number of distinct values in `y`.
    pub levels: usize,
    /// Upper bound on `cost` minus the optimal cost: `0.0` when solved exactly, otherwise
    /// `Σ w_i · δ/2` for the quantization step `δ`.
    pub max_excess: f64,
}

/// Invalid input to [`smooth`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IsotonicError {
    /// A per-node slice does not have one entry per node.
    #[error("{what} has {found} entries, expected {expected} (one per node)")]
    LengthMismatch {
        /// Which argument.
        what: &'static str,
        /// The number of nodes (`parent.len()`).
        expected: usize,
        /// Its length.
        found: usize,
    },
    /// Node 0 has a parent.
    #[error("node 0 must be the root, but its parent is {parent}")]
    RootHasParent {
        /// The parent given for node 0.
        parent: u32,
    },
    /// A node other than node 0 has no parent.
    #[error("node {node} has no parent; only node 0 may be the root")]
    ExtraRoot {
        /// The node.
        node: usize,
    },
    /// A node's parent does not come before it, so the ids are not in pre-order.
    #[error("node {node} has parent {parent}, which does not precede it")]
    ParentNotBefore {
        /// The node.
        node: usize,
        /// Its parent.
        parent: u32,
    },
    /// A score, weight, penalty or smoothed value is NaN or infinite.
    #[error("{what}[{node}] = {value} is not finite")]
    NotFinite {
        /// Which argument.
        what: &'static str,
        /// The node.
        node: usize,
        /// The offending value.
        value: f64,
    },
    /// A weight or penalty is negative.
    #[error("{what}[{node}] = {value} is negative")]
    Negative {
        /// Which argument.
        what: &'static str,
        /// The node.
        node: usize,
        /// The offending value.
        value: f64,
    },
    /// [`SmoothOptions::max_levels`] is out of range.
    #[error("max_levels = {0} must be between 2 and {MAX_LEVELS_LIMIT}")]
    MaxLevels(usize),
    /// More nodes than `u32` ids can name.
    #[error("{0} nodes, more than u32 ids can name")]
    TooManyNodes(usize),
    /// The decision table could not be allocated.
    #[error("cannot allocate {bytes} bytes for the decision table")]
    OutOfMemory {
        /// Bytes requested (saturated at `usize::MAX`).
        bytes: usize,
    },
}

/// Smooths the scores `x` of a tree by regularized tree isotonic regression (module docs).
///
/// * `parent[i]` is node `i`'s parent: `None` for node 0, the root, and `Some(p)` with
///   `p < i` for every other node. Pre-order ids, as [`crate::dom::Document`] assigns them,
///   satisfy this; the solver needs nothing else (subtrees need not be contiguous).
/// * `x[i]`: the classifier score, typically in `[0, 1]`; any finite value works.
/// * `weight[i] >= 0` multiplies node `i`'s distance term (the paper gives a node with `k`
///   hidden small children weight `k + 1`).
/// * `penalty[i] >= 0` is `γ_i`, paid when `i` is a segment root (always for the root). The
///   paper's subtree-size penalty is `c · n / n_i`.
///
/// Among equally good choices a node continues its parent's segment rather than start one,
/// and otherwise takes the lowest value. An empty tree gives an empty result.
///
/// # Errors
/// [`IsotonicError`] for mismatched lengths, a parent that does not precede its child,
/// non-finite values, negative weights or penalties, `max_levels` out of range, or a decision
/// table too large to allocate.
///
/// # Example
/// ```
/// use templex::isotonic::{SmoothOptions, smooth};
///
/// // A root scored 0.2 (weight 2) with two children: the first, below it, is raised to 0.2;
/// // the second child's 0.9 is worth its own segment.
/// let parent = [None, Some(0), Some(0)];
/// let (x, w, g) = ([0.2, 0.1, 0.9], [2.0, 1.0, 1.0], [0.1; 3]);
/// let s = smooth(&parent, &x, &w, &g, &SmoothOptions::default()).unwrap();
/// assert_eq!(s.y, [0.2, 0.2, 0.9]);
/// assert_eq!(s.segment_roots, [0, 2]);
/// assert!((s.cost - 0.3).abs() < 1e-12); // two penalties plus |0.1 − 0.2|
/// ```
pub fn smooth(
    parent: &[Option<u32>],
    x: &[f64],
    weight: &[f64],
    penalty: &[f64],
    opts: &SmoothOptions,
) -> Result<Smoothing, IsotonicError> {
    validate(parent, x, weight, penalty)?;
    if !(2..=MAX_LEVELS_LIMIT).contains(&opts.max_levels) {
        return Err(IsotonicError::MaxLevels(opts.max_levels));
    }
    let n = parent.len();
    if n == 0 {
        return Ok(Smoothing {
            y: Vec::new(),
            segment_roots: Vec::new(),
            cost: 0.0,
            levels: 0,
            max_excess: 0.0,
        });
    }

    let (values, step) = candidate_levels(x, opts.max_levels);
    let max_excess = if step > 0.0 {
        weight.iter().sum::<f64>() * step / 2.0
    } else {
        0.0
    };
    let solved = if values.len() <= 1 << 8 {
        solve::<u8>(parent, x, weight, penalty, &values)?
    } else {
        solve::<u16>(parent, x, weight, penalty, &values)?
    };

    let idx = solved.level;
    let mut used = vec![false; values.len()];
    let mut segment_roots = Vec::new();
    for (i, &l) in idx.iter().enumerate() {
        used[l as usize] = true;
        if parent[i].is_none_or(|p| idx[p as usize] != l) {
            segment_roots.push(i as u32);
        }
    }
    let y: Vec<f64> = idx.iter().map(|&l| values[l as usize]).collect();
    let cost = objective(parent, x, weight, penalty, &y);
    Ok(Smoothing {
        y,
        segment_roots,
        cost,
        levels: used.iter().filter(|&&u| u).count(),
        max_excess,
    })
}

/// The objective of Problem 2 for a candidate `y`: `Σ γ_i` over segment roots plus
/// `Σ w_i · |x_i − y_i|`. Returns `f64::INFINITY` when `y` breaks monotonicity
/// (`y[child] < y[parent]`). Arguments as in [`smooth`].
///
/// # Errors
/// The same validation as [`smooth`], plus `y`'s length and finiteness.
#[cfg(test)]
pub(crate) fn cost(
    parent: &[Option<u32>],
    x: &[f64],
    weight: &[f64],
    penalty: &[f64],
    y: &[f64],
) -> Result<f64, IsotonicError> {
    validate(parent, x, weight, penalty)?;
    check_len("y", parent.len(), y.len())?;
    check_finite("y", y)?;
    Ok(objective(parent, x, weight, penalty, y))
}

/// [`cost`] on validated input.
fn objective(parent: &[Option<u32>], x: &[f64], weight: &[f64], penalty: &[f64], y: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..parent.len() {
        // Zero weight must not meet an overflowed distance (0 · ∞ is NaN).
        if weight[i] != 0.0 {
            total += weight[i] * (x[i] - y[i]).abs();
        }
        match parent[i] {
            None => total += penalty[i],
            Some(p) => {
                let yp = y[p as usize];
                if y[i] < yp {
                    return f64::INFINITY;
                }
                if y[i] != yp {
                    total += penalty[i];
                }
            }
        }
    }
    total
}

fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), IsotonicError> {
    if expected == found {
        Ok(())
    } else {
        Err(IsotonicError::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

fn check_finite(what: &'static str, v: &[f64]) -> Result<(), IsotonicError> {
    match v.iter().position(|f| !f.is_finite()) {
        None => Ok(()),
        Some(node) => Err(IsotonicError::NotFinite {
            what,
            node,
            value: v[node],
        }),
    }
}

fn check_nonnegative(what: &'static str, v: &[f64]) -> Result<(), IsotonicError> {
    check_finite(what, v)?;
    match v.iter().position(|&f| f < 0.0) {
        None => Ok(()),
        Some(node) => Err(IsotonicError::Negative {
            what,
            node,
            value: v[node],
        }),
    }
}

fn validate(
    parent: &[Option<u32>],
    x: &[f64],
    weight: &[f64],
    penalty: &[f64],
) -> Result<(), IsotonicError> {
    let n = parent.len();
    if u32::try_from(n).is_err() {
        return Err(IsotonicError::TooManyNodes(n));
    }
    check_len("x", n, x.len())?;
    check_len("weight", n, weight.len())?;
    check_len("penalty", n, penalty.len())?;
    for (i, &p) in parent.iter().enumerate() {
        match (i, p) {
            (0, Some(parent)) => return Err(IsotonicError::RootHasParent { parent }),
            (0, None) => {}
            (node, None) => return Err(IsotonicError::ExtraRoot { node }),
            (node, Some(parent)) if parent as usize >= node => {
                return Err(IsotonicError::ParentNotBefore { node, parent });
            }
            _ => {}
        }
    }
    check_finite("x", x)?;
    check_nonnegative("weight", weight)?;
    check_nonnegative("penalty", penalty)
}

/// The sorted candidate values for `y`, and the quantization step (0 when exact).
fn candidate_levels(x: &[f64], max_levels: usize) -> (Vec<f64>, f64) {
    // The distinct scores, gathered until there are too many: a dense page has tens of
    // thousands of scores and sorting them all was a fiftieth of its page-level work. Bit
    // patterns tell -0.0 and 0.0 apart, which `==` merges below: one more than `max_levels`
    // patterns can still be `max_levels` values.
    let mut seen = rustc_hash::FxHashSet::default();
    for v in x {
        if seen.insert(v.to_bits()) && seen.len() > max_levels + 1 {
            break;
        }
    }
    let mut v: Vec<f64> = seen.into_iter().map(f64::from_bits).collect();
    v.sort_unstable_by(f64::total_cmp);
    // `==` also merges -0.0 and 0.0, which total_cmp keeps adjacent.
    v.dedup();
    if v.len() <= max_levels {
        return (v, 0.0);
    }
    // The ends as the sorted, merged scores have them (of -0.0 and 0.0, the first).
    let lo = x.iter().copied().min_by(f64::total_cmp).unwrap_or(0.0);
    let hi = match x.iter().copied().max_by(f64::total_cmp) {
        Some(h) if h == 0.0 && x.iter().any(|v| v.is_sign_negative() && *v == 0.0) => -0.0,
        h => h.unwrap_or(0.0),
    };
    v.clear();
    let span = (max_levels - 1) as f64;
    v.extend((0..max_levels).map(|k| lo + (hi - lo) * (k as f64 / span)));
    v[max_levels - 1] = hi;
    // Equal neighbouring levels (a range near the float resolution) would make the solver pay
    // γ for a "new" segment with the same value; the bound uses the widest gap actually left.
    v.dedup();
    let step = v.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    (v, step)
}

/// A level index as stored in the decision table: one byte when there are at most 256 levels.
trait Level: Copy + Default {
    fn from_index(i: usize) -> Self;
    fn index(self) -> usize;
}

impl Level for u8 {
    #[inline]
    fn from_index(i: usize) -> Self {
        debug_assert!(i <= u8::MAX as usize);
        i as u8
    }
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

impl Level for u16 {
    #[inline]
    fn from_index(i: usize) -> Self {
        debug_assert!(i <= u16::MAX as usize);
        i as u16
    }
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// What [`solve`] found.
struct Solved {
    /// Index into the candidate values of every node's `y`.
    level: Vec<u32>,
    /// The optimal cost as the dynamic program summed it.
    #[cfg_attr(not(test), allow(dead_code))]
    cost: f64,
    /// Most error arrays alive at once (the memory guarantee, checked by tests).
    #[cfg_attr(not(test), allow(dead_code))]
    peak_arrays: usize,
}

/// BUILDERROR and ISOTONESMOOTH over the sorted, distinct candidate `values`.
fn solve<T: Level>(
    parent: &[Option<u32>],
    x: &[f64],
    weight: &[f64],
    penalty: &[f64],
    values: &[f64],
) -> Result<Solved, IsotonicError> {
    let n = parent.len();
    let m = values.len();
    let order = heavy_first_preorder(parent);

    // Decision rows exist for non-root inner nodes only: a leaf's decision has a closed form
    // (`Leaf`), and leaves are most of a DOM. `row[i]` numbers node i's row, or is NO_ROW.
    const NO_ROW: u32 = u32::MAX;
    let mut row = vec![NO_ROW; n];
    for p in parent.iter().flatten() {
        row[*p as usize] = 0;
    }
    let mut rows = 0u32;
    for r in row.iter_mut().skip(1).filter(|r| **r == 0) {
        *r = rows;
        rows += 1;
    }
    // Row r holds, for each level j of the parent, the level the node takes: j itself means
    // it continues the parent's segment.
    let len = (rows as usize).saturating_mul(m);
    let bytes = len.saturating_mul(size_of::<T>());
    let mut choice: Vec<T> = Vec::new();
    choice
        .try_reserve_exact(len)
        .map_err(|_| IsotonicError::OutOfMemory { bytes })?;
    choice.resize(len, T::default());

    // Partial sums Σ err(child, ·) of nodes with some but not all children done; owners are
    // nested ancestors of the current node, so the one to extend is always on top. The
    // leaves' part of the top one is in `leaves` until it leaves the top.
    let mut pending: Vec<(u32, Vec<f64>)> = Vec::new();
    let mut leaves = LeafSums::new(values);
    let mut spare: Vec<Vec<f64>> = Vec::new();
    let mut peak_arrays = 0;
    let mut root = (0usize, 0.0f64);
    let zeroed = |spare: &mut Vec<Vec<f64>>| match spare.pop() {
        Some(mut e) => {
            e.fill(0.0);
            e
        }
        None => vec![0.0; m],
    };

    // Reversed, the heavy-first pre-order is a post-order visiting each node's largest child
    // first.
    for (step, &u) in order.iter().rev().enumerate() {
        // Past the page's deadline the result is not used (the page times out); the
        // decisions left at level 0 still reconstruct.
        if deadline::due(step) {
            break;
        }
        let i = u as usize;
        let (xi, wi, gi) = (x[i], weight[i], penalty[i]);

        if let (Some(p), NO_ROW) = (parent[i], row[i]) {
            // A leaf adds err(i, ·) to its parent's sum, through `leaves`.
            let leaf = Leaf::new(xi, wi, gi, values);
            if pending.last().is_none_or(|&(owner, _)| owner != p) {
                if let Some((_, sum)) = pending.last_mut() {
                    leaves.drain_into(sum);
                }
                let e = zeroed(&mut spare);
                pending.push((p, e));
                peak_arrays = peak_arrays.max(pending.len());
            }
            leaf.add_to(&mut leaves);
            continue;
        }

        let popped = match pending.last() {
            Some(&(owner, _)) if owner == u => pending.pop(),
            _ => None,
        };
        let mut err = match popped {
            Some((_, mut e)) => {
                leaves.drain_into(&mut e);
                e
            }
            None => zeroed(&mut spare),
        };
        peak_arrays = peak_arrays.max(pending.len() + 1);

        // err'(k): the subtree's cost when y_i = values[k], before any penalty for i.
        if wi != 0.0 {
            for (e, &v) in err.iter_mut().zip(values) {
                *e += wi * (xi - v).abs();
            }
        }

        let Some(p) = parent[i] else {
            // The root always starts a segment, at its best level (lowest on ties).
            let (best, at) = err
                .iter()
                .enumerate()
                .fold(
                    (f64::INFINITY, 0),
                    |(b, a), (k, &e)| if e < b { (e, k) } else { (b, a) },
                );
            root = (at, gi + best);
            spare.push(err);
            continue;
        };

        // Backwards, `best` is min_{k >= j} err'(k) at `at`: a new segment's best level at or
        // above the parent's. err(i, j) overwrites err'(j), which later j no longer read.
        // Selects rather than branches: the decisions are data-dependent coin flips.
        let r = row[i] as usize;
        let decisions = &mut choice[r * m..(r + 1) * m];
        let (mut best, mut at) = (f64::INFINITY, m - 1);
        for (j, (e, d)) in err.iter_mut().zip(decisions.iter_mut()).enumerate().rev() {
            let stay = *e;
            // `at` prefers the lowest index on ties; `best` as a plain `<` select compiles to
            // `minsd`, the shortest dependency chain through the loop.
            at = if stay <= best { j } else { at };
            best = if stay < best { stay } else { best };
            let fresh = gi + best;
            let keep = stay <= fresh;
            *d = T::from_index(if keep { j } else { at });
            *e = if keep { stay } else { fresh };
        }

        match pending.last_mut() {
            Some((owner, sum)) if *owner == p => {
                for (s, e) in sum.iter_mut().zip(&err) {
                    *s += e;
                }
                spare.push(err);
            }
            Some((_, sum)) => {
                // Another node's sum leaves the top: its leaves go into it first.
                leaves.drain_into(sum);
                pending.push((p, err));
            }
            None => pending.push((p, err)),
        }
    }
    drop(spare);
    drop(order);

    // ISOTONESMOOTH: parents precede children, so one forward pass reads every decision.
    let mut level = vec![0u32; n];
    level[0] = root.0 as u32;
    for i in 1..n {
        if deadline::due(i) {
            break;
        }
        let from = parent[i].map_or(0, |p| level[p as usize]) as usize;
        level[i] = match row[i] {
            NO_ROW => Leaf::new(x[i], weight[i], penalty[i], values).decide(from, values),
            r => choice[r as usize * m + from].index(),
        } as u32;
    }
    Ok(Solved {
        level,
        cost: root.1,
        peak_arrays,
    })
}

/// A leaf's err(i, ·) in closed form. Its err'(k) = w·|x − v_k| falls, then rises with k, so
/// a new segment's best level at or above any parent level `j <= q` is the lowest minimizer
/// `q`, and above `q` continuing is never worse. The dynamic program would decide the same;
/// this skips the suffix scan and the stored row, and reconstruction recomputes it exactly.
struct Leaf {
    x: f64,
    w: f64,
    /// Lowest index of min_k err'(k).
    q: usize,
    /// The first level at or above `x` (levels below it have err'(k) = w·(x − v_k), those
    /// from it on w·(v_k − x)).
    h: usize,
    /// γ + min_k err'(k): the cost of starting a segment at `q`.
    fresh: f64,
}

impl Leaf {
    fn new(x: f64, w: f64, gamma: f64, values: &[f64]) -> Self {
        let e = |k: usize| w * (x - values[k]).abs();
        let h = values.partition_point(|&v| v < x);
        let q = if w == 0.0 {
            0
        } else {
            // Rounding keeps err' monotone on each side of x, so the minimum is at one of the
            // two levels around x, and equal values (ties after rounding) sit just below it.
            let mut q = if h == values.len() || (h > 0 && e(h - 1) <= e(h)) {
                h - 1
            } else {
                h
            };
            while q > 0 && e(q - 1) == e(q) {
                q -= 1;
            }
            q
        };
        let fresh = gamma + if w == 0.0 { 0.0 } else { e(q) };
        Leaf { x, w, q, h, fresh }
    }

    #[inline]
    fn err_prime(&self, v: f64) -> f64 {
        if self.w == 0.0 {
            0.0
        } else {
            self.w * (self.x - v).abs()
        }
    }

    /// Adds err(leaf, ·) to `sums`. As a function of the parent's level j it is piecewise
    /// linear in v_j with three pieces: γ + err'(q) (a new segment) below the first level
    /// whose err' is no more than that, then w·(x − v_j), then from `h` on w·(v_j − x). So a
    /// leaf costs a few additions to difference arrays rather than a row of every level: a
    /// dense page has tens of thousands of leaves, and a row of up to 256 levels each was a
    /// tenth of its page-level work.
    fn add_to(&self, sums: &mut LeafSums) {
        let (x, w, fresh) = (self.x, self.w, self.fresh);
        if w == 0.0 {
            // err' is 0 everywhere and `fresh` is not negative: err(leaf, ·) is 0.
            return;
        }
        // err' does not rise up to `q`: the levels where a new segment is cheaper come first.
        let c = sums.values[..=self.q].partition_point(|&v| w * (x - v).abs() > fresh);
        let h = self.h.max(c);
        let (konst, slope) = (&mut sums.konst, &mut sums.slope);
        konst[0] += fresh;
        konst[c] += w * x - fresh;
        slope[c] -= w;
        konst[h] -= 2.0 * w * x;
        slope[h] += 2.0 * w;
        sums.any = true;
    }

    /// The leaf's level when its parent is at level `j`.
    fn decide(&self, j: usize, values: &[f64]) -> usize {
        if j <= self.q && self.err_prime(values[j]) > self.fresh {
            self.q
        } else {
            j
        }
    }
}

/// The leaves' part of a node's Σ err(child, ·), as difference arrays of the constant and the
/// slope of a piecewise-linear function of the level's value (see [`Leaf::add_to`]).
struct LeafSums<'v> {
    values: &'v [f64],
    konst: Vec<f64>,
    slope: Vec<f64>,
    /// Some leaf was added since the last [`LeafSums::drain_into`].
    any: bool,
}

impl<'v> LeafSums<'v> {
    fn new(values: &'v [f64]) -> Self {
        let m = values.len();
        LeafSums {
            values,
            konst: vec![0.0; m + 1],
            slope: vec![0.0; m + 1],
            any: false,
        }
    }

    /// `sum[k] +=` the leaves' err at level k, and starts over empty.
    fn drain_into(&mut self, sum: &mut [f64]) {
        if !std::mem::replace(&mut self.any, false) {
            return;
        }
        let (mut c, mut s) = (0.0, 0.0);
        for (((e, &v), k), d) in sum
            .iter_mut()
            .zip(self.values)
            .zip(&mut self.konst)
            .zip(&mut self.slope)
        {
            c += std::mem::take(k);
            s += std::mem::take(d);
            *e += c + s * v;
        }
        let m = self.values.len();
        self.konst[m] = 0.0;
        self.slope[m] = 0.0;
    }
}

/// A pre-order of the tree that visits each node's largest child (by subtree size) last.
/// Reversed it is a post-order with the largest child first, which bounds the pending partial
/// sums in [`solve`] by the number of light edges on a root path, at most `log2 n`.
fn heavy_first_preorder(parent: &[Option<u32>]) -> Vec<u32> {
    let n = parent.len();
    let mut size = vec![1u32; n];
    for i in (1..n).rev() {
        if let Some(p) = parent[i] {
            size[p as usize] += size[i];
        }
    }
    // Children lists in CSR form: `start[u]..start[u + 1]` indexes `kids`.
    let mut start = vec![0u32; n + 1];
    for p in parent.iter().flatten() {
        start[*p as usize + 1] += 1;
    }
    for u in 0..n {
        start[u + 1] += start[u];
    }
    let mut fill = start.clone();
    let mut kids = vec![0u32; n.saturating_sub(1)];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            let slot = &mut fill[*p as usize];
            kids[*slot as usize] = i as u32;
            *slot += 1;
        }
    }
    drop(fill);

    let mut order = Vec::with_capacity(n);
    let mut stack = vec![0u32];
    while let Some(u) = stack.pop() {
        order.push(u);
        let children = &kids[start[u as usize] as usize..start[u as usize + 1] as usize];
        if let Some(&heavy) = children.iter().max_by_key(|&&c| size[c as usize]) {
            stack.push(heavy);
            stack.extend(children.iter().copied().filter(|&c| c != heavy));
        }
    }
    order
}

impl fmt::Display for Smoothing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} nodes, {} segments, {} levels, cost {:.6}",
            self.y.len(),
            self.segment_roots.len(),
            self.levels,
            self.cost
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> Vec<Option<u32>> {
        (0..n)
            .map(|i| if i == 0 { None } else { Some(i as u32 - 1) })
            .collect()
    }

    /// A reproducible draw below `k` (xorshift64).
    fn xorshift(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |k| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        }
    }

    fn run(parent: &[Option<u32>], x: &[f64], w: &[f64], g: &[f64], m: usize) -> Solved {
        let (values, _) = candidate_levels(x, m);
        solve::<u16>(parent, x, w, g, &values).unwrap()
    }

    #[test]
    fn dp_cost_matches_objective_of_its_answer() {
        let parent = [None, Some(0), Some(1), Some(1), Some(0), Some(4)];
        let x = [0.3, 0.1, 0.8, 0.5, 0.9, 0.2];
        let w = [1.0, 2.0, 1.0, 0.5, 1.0, 3.0];
        let g = [0.05, 0.2, 0.1, 0.3, 0.01, 0.4];
        let s = run(&parent, &x, &w, &g, 256);
        let (values, _) = candidate_levels(&x, 256);
        let y: Vec<f64> = s.level.iter().map(|&l| values[l as usize]).collect();
        let c = objective(&parent, &x, &w, &g, &y);
        assert!((c - s.cost).abs() < 1e-12, "{c} vs {}", s.cost);
    }

    #[test]
    fn dp_cost_matches_objective_on_large_random_trees() {
        // The table walk must land on exactly the solution whose cost the DP summed.
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        for (n, m) in [(2000, 256), (3000, 20), (500, 1000)] {
            let parent: Vec<Option<u32>> = (0..n)
                .map(|i| (i > 0).then(|| (i - 1 - next(i.min(8))) as u32))
                .collect();
            let x: Vec<f64> = (0..n).map(|_| next(500) as f64 / 499.0).collect();
            let w: Vec<f64> = (0..n).map(|_| next(4) as f64).collect();
            let g: Vec<f64> = (0..n).map(|_| next(100) as f64 / 200.0).collect();
            let (values, _) = candidate_levels(&x, m);
            let s = solve::<u16>(&parent, &x, &w, &g, &values).unwrap();
            let y: Vec<f64> = s.level.iter().map(|&l| values[l as usize]).collect();
            let c = objective(&parent, &x, &w, &g, &y);
            assert!((c - s.cost).abs() <= 1e-9 * c, "{c} vs {}", s.cost);
        }
    }

    #[test]
    fn chain_keeps_one_array_alive() {
        let n = 1000;
        let x: Vec<f64> = (0..n).map(|i| (i % 17) as f64 / 16.0).collect();
        let s = run(&chain(n), &x, &vec![1.0; n], &vec![0.1; n], 256);
        assert_eq!(s.peak_arrays, 1);
    }

    #[test]
    fn star_keeps_one_array_alive() {
        let n = 1000;
        let parent: Vec<Option<u32>> = (0..n).map(|i| (i > 0).then_some(0)).collect();
        let x: Vec<f64> = (0..n).map(|i| (i % 13) as f64 / 12.0).collect();
        let s = run(&parent, &x, &vec![1.0; n], &vec![0.1; n], 256);
        assert_eq!(s.peak_arrays, 1);
    }

    /// Leaves are summed in closed form (`Leaf::add_to`): on wide stars, with weights of 0,
    /// scores beyond the levels (quantized) and ties, the optimum is the one a row of every
    /// level per leaf gives. For a star it is exact by hand: with the root at level j, each
    /// leaf continues (err'(j)) or starts a segment at some k >= j (γ + err'(k)).
    #[test]
    fn wide_stars_match_the_level_by_level_sum() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        for (n, m, distinct) in [(400, 256, 40), (300, 16, 300), (200, 256, 3)] {
            let parent: Vec<Option<u32>> = (0..n).map(|i| (i > 0).then_some(0)).collect();
            let x: Vec<f64> = (0..n)
                .map(|_| next(distinct) as f64 / (distinct - 1) as f64)
                .collect();
            let w: Vec<f64> = (0..n).map(|_| next(5) as f64 * 0.75).collect();
            let g: Vec<f64> = (0..n).map(|_| next(40) as f64 / 50.0).collect();
            let (values, _) = candidate_levels(&x, m);
            let s = solve::<u16>(&parent, &x, &w, &g, &values).unwrap();
            let e = |i: usize, k: usize| w[i] * (x[i] - values[k]).abs();
            let by_hand = (0..values.len())
                .map(|j| {
                    let leaves: f64 = (1..n)
                        .map(|i| {
                            (j..values.len())
                                .map(|k| if k == j { e(i, j) } else { g[i] + e(i, k) })
                                .fold(f64::INFINITY, f64::min)
                        })
                        .sum();
                    g[0] + e(0, j) + leaves
                })
                .fold(f64::INFINITY, f64::min);
            assert!(
                (s.cost - by_hand).abs() <= 1e-9 * (1.0 + by_hand),
                "{} vs {by_hand} (n {n}, m {m})",
                s.cost
            );
            let y: Vec<f64> = s.level.iter().map(|&l| values[l as usize]).collect();
            let c = objective(&parent, &x, &w, &g, &y);
            assert!((c - s.cost).abs() <= 1e-9 * (1.0 + c), "{c} vs {}", s.cost);
        }
    }

    #[test]
    fn caterpillar_with_late_leaves_stays_logarithmic() {
        // Each spine node's first child continues the spine and its second child is a leaf:
        // in plain reverse pre-order every spine node would hold a pending sum at the bottom.
        let spine = 5000;
        let mut parent = vec![None];
        let mut ends = Vec::new();
        for _ in 1..spine {
            let p = parent.len() - 1;
            parent.push(Some(p as u32));
            ends.push(p as u32);
        }
        for p in ends.into_iter().rev() {
            parent.push(Some(p));
        }
        // Leaves appended after the spine keep parents before children.
        let n = parent.len();
        let x: Vec<f64> = (0..n).map(|i| (i % 7) as f64 / 6.0).collect();
        let s = run(&parent, &x, &vec![1.0; n], &vec![0.1; n], 256);
        assert!(s.peak_arrays <= 2, "{}", s.peak_arrays);

        // A complete binary tree is the worst case for heavy-first: log2 n pending sums.
        let n = (1 << 12) - 1;
        let parent: Vec<Option<u32>> = (0..n)
            .map(|i| (i > 0).then(|| ((i - 1) / 2) as u32))
            .collect();
        let x: Vec<f64> = (0..n).map(|i| (i % 5) as f64 / 4.0).collect();
        let s = run(&parent, &x, &vec![1.0; n], &vec![0.1; n], 256);
        assert!(s.peak_arrays <= 12 + 1, "{}", s.peak_arrays);
    }

    /// The levels are those of sorting and merging every score, bit for bit, ±0 included.
    #[test]
    fn levels_are_those_of_sorting_every_score() {
        let sorted = |x: &[f64], max: usize| {
            let mut v = x.to_vec();
            v.sort_unstable_by(f64::total_cmp);
            v.dedup();
            if v.len() <= max {
                return v;
            }
            let (lo, hi) = (v[0], v[v.len() - 1]);
            let span = (max - 1) as f64;
            let mut g: Vec<f64> = (0..max)
                .map(|k| lo + (hi - lo) * (k as f64 / span))
                .collect();
            g[max - 1] = hi;
            g.dedup();
            g
        };
        let mut next = xorshift(0x51_7CC1_B727_220Au64);
        for (n, distinct, max) in [(1000, 5, 4), (1000, 300, 256), (500, 257, 256), (50, 40, 8)] {
            for signed in [false, true] {
                let mut x: Vec<f64> = (0..n)
                    .map(|_| match next(distinct) {
                        k if signed => -(k as f64 / distinct as f64),
                        k => k as f64 / distinct as f64,
                    })
                    .collect();
                if signed {
                    // The top score is 0, as both 0.0 and -0.0.
                    x[n / 3] = -0.0;
                    x[n / 2] = 0.0;
                }
                let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&candidate_levels(&x, max).0), bits(&sorted(&x, max)));
            }
        }
    }

    #[test]
    fn quantized_levels_are_evenly_spaced_and_span_the_scores() {
        let x: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.7919).sin()).collect();
        let (v, step) = candidate_levels(&x, 64);
        assert_eq!(v.len(), 64);
        let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((v[0], v[63]), (lo, hi));
        assert!((step - (hi - lo) / 63.0).abs() < 1e-12);
        let (v, step) = candidate_levels(&[0.5, 0.25, 0.5, -0.0, 0.0], 64);
        assert_eq!(v, [0.0, 0.25, 0.5]);
        assert_eq!(step, 0.0);
    }
}

#[cfg(test)]
mod brute_force;
