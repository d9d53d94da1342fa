//! Regularized tree isotonic regression against brute force,
//! by hand, on degenerate shapes and through quantization.

use super::{IsotonicError, SmoothOptions, Smoothing, cost, smooth};
use crate::test_support::rng::Rng;
use proptest::prelude::*;

/// A random tree with parents before children: either uniform random recursive (mostly not
/// pre-order, which the solver accepts) or a genuine pre-order built depth first.
fn random_tree(rng: &mut Rng, n: usize) -> Vec<Option<u32>> {
    let mut parent = vec![None];
    if rng.below(2) == 0 {
        parent.extend((1..n).map(|i| Some(rng.below(i) as u32)));
    } else {
        let mut path = vec![0u32];
        for i in 1..n {
            // Climb a random number of levels, then hang the new node under the path's end.
            let up = rng.below(path.len());
            path.truncate(path.len() - up);
            parent.push(Some(*path.last().unwrap()));
            path.push(i as u32);
        }
    }
    parent
}

/// Scores with many ties: multiples of 1/q, sometimes fully random.
fn random_scores(rng: &mut Rng, n: usize) -> Vec<f64> {
    if rng.below(5) == 0 {
        return (0..n).map(|_| rng.unit()).collect();
    }
    let q = 1 + rng.below(5);
    (0..n).map(|_| rng.below(q + 1) as f64 / q as f64).collect()
}

fn random_weights(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match rng.below(6) {
            0 => 0.0,
            1 => 1.0,
            2 => (1 + rng.below(4)) as f64,
            _ => rng.unit() * 3.0,
        })
        .collect()
}

fn random_penalties(rng: &mut Rng, n: usize) -> Vec<f64> {
    let scale = [0.0, 0.05, 0.3, 1.0, 100.0][rng.below(5)];
    (0..n)
        .map(|_| match rng.below(4) {
            0 => 0.0,
            _ => rng.unit() * scale,
        })
        .collect()
}

fn distinct(v: &[f64]) -> Vec<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// Minimum cost over every monotone `y` with values in `grid`, enumerated depth first over node
/// ids (each node ranges over the grid values at or above its parent's), with its own running
/// sum rather than the crate's `cost`.
fn brute_force(
    parent: &[Option<u32>],
    x: &[f64],
    w: &[f64],
    g: &[f64],
    grid: &[f64],
) -> (f64, Vec<f64>) {
    let n = parent.len();
    let low = |c: &[usize], i: usize| parent[i].map_or(0, |p| c[p as usize]);
    let mut c = vec![0usize; n];
    let mut partial = vec![0.0; n + 1];
    let mut best = (f64::INFINITY, Vec::new());
    let mut i = 0;
    loop {
        if c[i] >= grid.len() {
            if i == 0 {
                return best;
            }
            i -= 1;
            c[i] += 1;
            continue;
        }
        let v = grid[c[i]];
        let root = parent[i].is_none_or(|p| grid[c[p as usize]] != v);
        partial[i + 1] = partial[i] + w[i] * (x[i] - v).abs() + if root { g[i] } else { 0.0 };
        if i + 1 == n {
            if partial[n] < best.0 {
                best = (partial[n], c.iter().map(|&k| grid[k]).collect());
            }
            c[i] += 1;
        } else {
            i += 1;
            c[i] = low(&c, i);
        }
    }
}

/// Everything a valid answer must satisfy, whatever the optimum.
fn check_consistent(parent: &[Option<u32>], x: &[f64], w: &[f64], g: &[f64], s: &Smoothing) {
    let n = parent.len();
    assert_eq!(s.y.len(), n);
    for (i, p) in parent.iter().enumerate().skip(1) {
        let p = p.unwrap() as usize;
        assert!(s.y[p] <= s.y[i], "monotonicity broken at {i}: {:?}", s.y);
    }
    let roots: Vec<u32> = (0..n)
        .filter(|&i| parent[i].is_none_or(|p| s.y[p as usize] != s.y[i]))
        .map(|i| i as u32)
        .collect();
    assert_eq!(s.segment_roots, roots);
    assert_eq!(s.levels, distinct(&s.y).len());
    let c = cost(parent, x, w, g, &s.y).unwrap();
    assert!(
        (c - s.cost).abs() <= 1e-9 * (1.0 + c.abs()),
        "{c} vs {}",
        s.cost
    );
}

fn check_against_brute_force(parent: &[Option<u32>], x: &[f64], w: &[f64], g: &[f64]) {
    let s = smooth(parent, x, w, g, &SmoothOptions::default()).unwrap();
    check_consistent(parent, x, w, g, &s);
    assert_eq!(s.max_excess, 0.0);
    let values = distinct(x);
    assert!(
        s.y.iter().all(|y| values.contains(y)),
        "y outside x: {:?}",
        s.y
    );
    let (best, arg) = brute_force(parent, x, w, g, &values);
    assert!(
        (s.cost - best).abs() <= 1e-9,
        "dp {} vs brute {best} ({arg:?} vs {:?}) for parent {parent:?} x {x:?} w {w:?} g {g:?}",
        s.cost,
        s.y
    );
}

#[test]
fn matches_brute_force_on_thousands_of_small_trees() {
    let mut rng = Rng(0x1507_011C);
    for _ in 0..4000 {
        let n = 1 + rng.below(8);
        let parent = random_tree(&mut rng, n);
        let x = random_scores(&mut rng, n);
        let w = random_weights(&mut rng, n);
        let g = random_penalties(&mut rng, n);
        check_against_brute_force(&parent, &x, &w, &g);
    }
}

#[test]
fn no_better_solution_off_the_scores() {
    // Lemma 3: values between, below or above the scores never beat the scores themselves.
    let mut rng = Rng(0x1E_33A3);
    for _ in 0..300 {
        let n = 1 + rng.below(6);
        let parent = random_tree(&mut rng, n);
        let x = random_scores(&mut rng, n);
        let w = random_weights(&mut rng, n);
        let g = random_penalties(&mut rng, n);
        let values = distinct(&x);
        let mut fine = values.clone();
        fine.extend(values.windows(2).map(|p| (p[0] + p[1]) / 2.0));
        fine.push(values[0] - 0.25);
        fine.push(values[values.len() - 1] + 0.25);
        let fine = distinct(&fine);
        let (on_scores, _) = brute_force(&parent, &x, &w, &g, &values);
        let (on_fine, _) = brute_force(&parent, &x, &w, &g, &fine);
        assert!(on_fine >= on_scores - 1e-9, "{on_fine} < {on_scores}");
        let s = smooth(&parent, &x, &w, &g, &SmoothOptions::default()).unwrap();
        assert!((s.cost - on_fine).abs() <= 1e-9);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn proptest_matches_brute_force(
        nodes in prop::collection::vec((any::<u32>(), 0u8..=6, 0u8..=6, 0u8..=10), 1..=7),
    ) {
        // Parent ids drawn below each node, scores in sixths (ties), weights in halves,
        // penalties in tenths.
        let parent: Vec<Option<u32>> = nodes
            .iter()
            .enumerate()
            .map(|(i, &(r, ..))| (i > 0).then(|| r % i as u32))
            .collect();
        let x: Vec<f64> = nodes.iter().map(|&(_, s, ..)| f64::from(s) / 6.0).collect();
        let w: Vec<f64> = nodes.iter().map(|&(_, _, w, _)| f64::from(w) / 2.0).collect();
        let g: Vec<f64> = nodes.iter().map(|&(.., g)| f64::from(g) / 10.0).collect();
        check_against_brute_force(&parent, &x, &w, &g);
    }

    #[test]
    fn proptest_quantized_is_feasible_and_within_bound(
        nodes in prop::collection::vec((any::<u32>(), 0.0f64..1.0, 0.0f64..2.0, 0.0f64..0.5), 1..=6),
        max_levels in 2usize..=5,
    ) {
        let parent: Vec<Option<u32>> = nodes
            .iter()
            .enumerate()
            .map(|(i, &(r, ..))| (i > 0).then(|| r % i as u32))
            .collect();
        let x: Vec<f64> = nodes.iter().map(|n| n.1).collect();
        let w: Vec<f64> = nodes.iter().map(|n| n.2).collect();
        let g: Vec<f64> = nodes.iter().map(|n| n.3).collect();
        check_quantized(&parent, &x, &w, &g, max_levels);
    }
}

/// The quantized solution is feasible, takes grid values, is optimal among grid-valued `y` and
/// within `max_excess` of the exact optimum.
fn check_quantized(parent: &[Option<u32>], x: &[f64], w: &[f64], g: &[f64], max_levels: usize) {
    let s = smooth(parent, x, w, g, &SmoothOptions { max_levels }).unwrap();
    check_consistent(parent, x, w, g, &s);
    let exact = smooth(parent, x, w, g, &SmoothOptions::default()).unwrap();
    let values = distinct(x);
    if values.len() <= max_levels {
        assert_eq!(s.max_excess, 0.0);
        assert!((s.cost - exact.cost).abs() <= 1e-9);
        return;
    }
    let (lo, hi) = (values[0], values[values.len() - 1]);
    let grid: Vec<f64> = (0..max_levels)
        .map(|k| lo + (hi - lo) * k as f64 / (max_levels - 1) as f64)
        .collect();
    for y in &s.y {
        assert!(
            grid.iter().any(|l| (l - y).abs() <= 1e-12),
            "{y} off the grid {grid:?}"
        );
    }
    let step = (hi - lo) / (max_levels - 1) as f64;
    let bound = w.iter().sum::<f64>() * step / 2.0;
    assert!((s.max_excess - bound).abs() <= 1e-9 * (1.0 + bound));
    assert!(s.cost >= exact.cost - 1e-9);
    assert!(
        s.cost <= exact.cost + s.max_excess + 1e-9,
        "{} > {} + {}",
        s.cost,
        exact.cost,
        s.max_excess
    );
    // Exact among grid-valued solutions: compare on the solver's own levels.
    let mut own_grid = distinct(&s.y);
    own_grid.extend(
        grid.iter()
            .filter(|l| !s.y.iter().any(|y| (y - *l).abs() <= 1e-12)),
    );
    let (on_grid, _) = brute_force(parent, x, w, g, &distinct(&own_grid));
    assert!(
        (s.cost - on_grid).abs() <= 1e-9,
        "{} vs grid optimum {on_grid}",
        s.cost
    );
}

#[test]
fn quantized_on_many_small_trees() {
    let mut rng = Rng(0x9_0A47);
    for _ in 0..1500 {
        let n = 1 + rng.below(7);
        let parent = random_tree(&mut rng, n);
        let x: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
        let w = random_weights(&mut rng, n);
        let g = random_penalties(&mut rng, n);
        check_quantized(&parent, &x, &w, &g, 2 + rng.below(4));
    }
}

fn opts() -> SmoothOptions {
    SmoothOptions::default()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

#[test]
fn single_node_pays_its_penalty_and_keeps_its_score() {
    let s = smooth(&[None], &[0.37], &[2.0], &[0.5], &opts()).unwrap();
    assert_eq!(s.y, [0.37]);
    assert_eq!(s.segment_roots, [0]);
    assert_eq!((s.cost, s.levels), (0.5, 1));
}

#[test]
fn empty_tree_gives_empty_result() {
    let s = smooth(&[], &[], &[], &[], &opts()).unwrap();
    assert!(s.y.is_empty() && s.segment_roots.is_empty());
    assert_eq!((s.cost, s.levels, s.max_excess), (0.0, 0, 0.0));
    assert_eq!(cost(&[], &[], &[], &[], &[]), Ok(0.0));
}

#[test]
fn zero_penalty_is_plain_tree_isotonic_regression() {
    // A root above both children: the L1 fit pulls the root down to its lower child's level,
    // the children keep their own scores (0.6 -> 0.4 costs 0.2, anything else costs more).
    let parent = [None, Some(0), Some(0)];
    let s = smooth(&parent, &[0.6, 0.4, 0.9], &[1.0; 3], &[0.0; 3], &opts()).unwrap();
    assert_eq!(s.y, [0.4, 0.4, 0.9]);
    assert!(close(s.cost, 0.2));
    // Already monotone scores stay as they are at zero cost.
    let parent = [None, Some(0), Some(1), Some(0)];
    let x = [0.1, 0.3, 0.7, 0.2];
    let s = smooth(&parent, &x, &[1.0; 4], &[0.0; 4], &opts()).unwrap();
    assert_eq!(s.y, x);
    assert_eq!(s.cost, 0.0);
    assert_eq!(s.segment_roots, [0, 1, 2, 3]);
    // A decreasing chain collapses to its median.
    let s = smooth(
        &[None, Some(0), Some(1)],
        &[0.9, 0.5, 0.2],
        &[1.0; 3],
        &[0.0; 3],
        &opts(),
    )
    .unwrap();
    assert_eq!(s.y, [0.5; 3]);
    assert!(close(s.cost, 0.7));
}

#[test]
fn huge_penalty_gives_one_segment_at_the_weighted_median() {
    // Weighted scores 0.1:1, 0.3:1, 0.7:2, 0.9:1 — the weighted median is 0.7.
    let parent = [None, Some(0), Some(0), Some(0)];
    let x = [0.1, 0.9, 0.7, 0.3];
    let w = [1.0, 1.0, 2.0, 1.0];
    let g = [0.25, 1e6, 1e6, 1e6];
    let s = smooth(&parent, &x, &w, &g, &opts()).unwrap();
    assert_eq!(s.y, [0.7; 4]);
    assert_eq!(s.segment_roots, [0]);
    assert!(close(s.cost, 0.25 + 0.6 + 0.2 + 0.4));
}

#[test]
fn high_leaf_starts_its_own_segment_only_when_worth_its_penalty() {
    let parent = [None, Some(0)];
    let x = [0.1, 0.9];
    // Joining the root's segment costs 0.8 wherever it sits in [0.1, 0.9]; a new one 0.5.
    let s = smooth(&parent, &x, &[1.0; 2], &[0.01, 0.5], &opts()).unwrap();
    assert_eq!(s.y, [0.1, 0.9]);
    assert_eq!(s.segment_roots, [0, 1]);
    assert!(close(s.cost, 0.51));
    // At 0.9 the penalty exceeds the gain; one segment at the lower score (ties go low).
    let s = smooth(&parent, &x, &[1.0; 2], &[0.01, 0.9], &opts()).unwrap();
    assert_eq!(s.segment_roots, [0]);
    assert_eq!(s.y, [0.1, 0.1]);
    assert!(close(s.cost, 0.81));
    // A heavier leaf drags the shared value to itself instead.
    let s = smooth(&parent, &x, &[1.0, 3.0], &[0.01, 0.9], &opts()).unwrap();
    assert_eq!(s.y, [0.9, 0.9]);
    assert!(close(s.cost, 0.81));
}

#[test]
fn low_leaf_cannot_escape_its_parent() {
    // A new segment may only go up, so a child below its parent is raised whatever γ.
    for gamma in [0.0, 0.1, 10.0] {
        let s = smooth(
            &[None, Some(0)],
            &[0.9, 0.1],
            &[2.0, 1.0],
            &[0.0, gamma],
            &opts(),
        )
        .unwrap();
        assert_eq!(s.y, [0.9, 0.9]);
        assert!(close(s.cost, 0.8));
    }
}

#[test]
fn weight_counts_hidden_children() {
    // The paper rolls k hidden children into their parent as weight k + 1: a node of weight 3
    // behaves like three copies of its score.
    let parent = [None, Some(0)];
    let s = smooth(&parent, &[0.2, 0.6], &[3.0, 1.0], &[0.0, 1.0], &opts()).unwrap();
    assert_eq!(s.y, [0.2, 0.2]);
    let s = smooth(&parent, &[0.2, 0.6], &[0.5, 1.0], &[0.0, 1.0], &opts()).unwrap();
    assert_eq!(s.y, [0.6, 0.6]);
    // Weight 0 leaves a node's score irrelevant.
    let s = smooth(&parent, &[0.2, 0.0], &[1.0, 0.0], &[0.0, 0.0], &opts()).unwrap();
    assert_eq!(s.y, [0.2, 0.2]);
    assert_eq!(s.cost, 0.0);
}

#[test]
fn nested_segments_on_a_page_like_tree() {
    // body(0) > header(1) > [nav(2)], main(3) > [article(4) > p(5), p(6)], footer(7)
    let parent = [
        None,
        Some(0),
        Some(1),
        Some(0),
        Some(3),
        Some(4),
        Some(4),
        Some(0),
    ];
    let x = [0.5, 0.9, 0.95, 0.1, 0.05, 0.0, 0.1, 0.9];
    let s = smooth(&parent, &x, &[1.0; 8], &[0.05; 8], &opts()).unwrap();
    check_consistent(&parent, &x, &[1.0; 8], &[0.05; 8], &s);
    // Content collapses to one low segment at the root; header and footer rise above it.
    assert_eq!(s.y[0], s.y[3]);
    assert!(s.y[1] >= 0.9 && s.y[7] >= 0.9);
    assert!(s.y[3] <= 0.1 && s.y[5] <= 0.1);
}

#[test]
fn deep_chain_of_100000_nodes_collapses_to_the_median() {
    // Scores falling along a chain can only be fit by one constant: their median.
    let n: usize = 100_000;
    let parent: Vec<Option<u32>> = (0..n).map(|i| i.checked_sub(1).map(|p| p as u32)).collect();
    let x: Vec<f64> = (0..n).map(|i| 1.0 - (i * 200 / n) as f64 / 200.0).collect();
    let s = smooth(&parent, &x, &vec![1.0; n], &vec![0.0; n], &opts()).unwrap();
    let mut sorted = x.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[n / 2];
    let expected: f64 = x.iter().map(|v| (v - median).abs()).sum();
    assert_eq!(s.segment_roots, [0]);
    assert!(
        (s.cost - expected).abs() <= 1e-9 * expected,
        "{} vs {expected}",
        s.cost
    );

    // Random scores (quantized: 100,000 distinct values) on the same chain.
    let mut rng = Rng(7);
    let x: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
    let g: Vec<f64> = (0..n).map(|i| 0.01 * n as f64 / (n - i) as f64).collect();
    let s = smooth(&parent, &x, &vec![1.0; n], &g, &opts()).unwrap();
    check_consistent(&parent, &x, &vec![1.0; n], &g, &s);
    assert!(s.max_excess > 0.0 && s.levels <= 256);
}

#[test]
fn star_of_100000_children_matches_closed_form() {
    // With the root at r each child either joins (w·|x − r|) or, when above, starts its own
    // segment (γ); below r it must join.
    let n = 100_001;
    let mut rng = Rng(11);
    let parent: Vec<Option<u32>> = (0..n).map(|i| (i > 0).then_some(0)).collect();
    let x: Vec<f64> = (0..n).map(|_| rng.below(21) as f64 / 20.0).collect();
    let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.unit()).collect();
    let g: Vec<f64> = (0..n).map(|_| rng.unit() * 0.3).collect();
    let s = smooth(&parent, &x, &w, &g, &opts()).unwrap();
    check_consistent(&parent, &x, &w, &g, &s);
    let best = distinct(&x)
        .into_iter()
        .map(|r| {
            g[0] + w[0] * (x[0] - r).abs()
                + (1..n)
                    .map(|c| {
                        let join = w[c] * (x[c] - r).abs();
                        if x[c] > r { join.min(g[c]) } else { join }
                    })
                    .sum::<f64>()
        })
        .fold(f64::INFINITY, f64::min);
    assert!((s.cost - best).abs() <= 1e-9 * best, "{} vs {best}", s.cost);
}

#[test]
fn dom_element_tree_smooths() {
    // How a caller feeds a templex page: element ids renumbered densely, parents mapped.
    let doc = crate::dom::parse_str(
        "<html><body><div id=nav><a>1</a><a>2</a></div><div id=main><p>text</p><p>more</p>\
         </div><div id=foot><a>x</a></div></body></html>",
    );
    let elements: Vec<_> = doc.elements().collect();
    let mut dense = vec![u32::MAX; doc.len()];
    for (k, id) in elements.iter().enumerate() {
        dense[id.index()] = k as u32;
    }
    let parent: Vec<Option<u32>> = elements
        .iter()
        .map(|&id| {
            doc.ancestors(id)
                .find_map(|a| Some(dense[a.index()]).filter(|&d| d != u32::MAX))
        })
        .collect();
    let n = parent.len();
    let x: Vec<f64> = elements
        .iter()
        .map(|&id| {
            // Each region's score holds for its whole subtree.
            let region = std::iter::once(id)
                .chain(doc.ancestors(id))
                .find_map(|a| doc.element(a).and_then(|e| e.id()));
            match region {
                Some("nav") | Some("foot") => 0.9,
                Some("main") => 0.1,
                _ => 0.5,
            }
        })
        .collect();
    let g: Vec<f64> = elements
        .iter()
        .map(|&id| 0.01 * n as f64 / doc.elements().filter(|&e| doc.contains(id, e)).count() as f64)
        .collect();
    let s = smooth(&parent, &x, &vec![1.0; n], &g, &opts()).unwrap();
    check_consistent(&parent, &x, &vec![1.0; n], &g, &s);
    // The template regions rise above whatever the rest settles on.
    let nav = elements
        .iter()
        .position(|&id| doc.element(id).and_then(|e| e.id()) == Some("nav"))
        .unwrap();
    assert!(s.segment_roots.contains(&(nav as u32)), "{s}");
    assert_eq!(s.y[nav], 0.9);
}

#[test]
fn invalid_input_is_an_error() {
    let p = [None, Some(0)];
    let ok = [0.5, 0.5];
    let e = |r: Result<Smoothing, IsotonicError>| r.unwrap_err();
    assert!(matches!(
        e(smooth(&p, &[0.5], &ok, &ok, &opts())),
        IsotonicError::LengthMismatch { what: "x", .. }
    ));
    assert!(matches!(
        e(smooth(&p, &ok, &ok, &[1.0], &opts())),
        IsotonicError::LengthMismatch {
            what: "penalty",
            ..
        }
    ));
    assert_eq!(
        e(smooth(&[Some(0)], &[0.5], &[1.0], &[1.0], &opts())),
        IsotonicError::RootHasParent { parent: 0 }
    );
    assert_eq!(
        e(smooth(&[None, None], &ok, &ok, &ok, &opts())),
        IsotonicError::ExtraRoot { node: 1 }
    );
    assert_eq!(
        e(smooth(&[None, Some(1)], &ok, &ok, &ok, &opts())),
        IsotonicError::ParentNotBefore { node: 1, parent: 1 }
    );
    assert_eq!(
        e(smooth(
            &[None, Some(0), Some(5)],
            &[0.5; 3],
            &[1.0; 3],
            &[1.0; 3],
            &opts()
        )),
        IsotonicError::ParentNotBefore { node: 2, parent: 5 }
    );
    assert!(matches!(
        e(smooth(&p, &[0.5, f64::NAN], &ok, &ok, &opts())),
        IsotonicError::NotFinite {
            what: "x",
            node: 1,
            ..
        }
    ));
    assert!(matches!(
        e(smooth(&p, &ok, &[1.0, f64::INFINITY], &ok, &opts())),
        IsotonicError::NotFinite { what: "weight", .. }
    ));
    assert!(matches!(
        e(smooth(&p, &ok, &ok, &[0.1, -0.1], &opts())),
        IsotonicError::Negative {
            what: "penalty",
            node: 1,
            ..
        }
    ));
    assert!(matches!(
        e(smooth(&p, &ok, &[-1.0, 1.0], &ok, &opts())),
        IsotonicError::Negative {
            what: "weight",
            node: 0,
            ..
        }
    ));
    for max_levels in [0, 1, (1 << 16) + 1] {
        assert_eq!(
            e(smooth(&p, &ok, &ok, &ok, &SmoothOptions { max_levels })),
            IsotonicError::MaxLevels(max_levels)
        );
    }
    assert!(matches!(
        cost(&p, &ok, &ok, &ok, &[0.5]),
        Err(IsotonicError::LengthMismatch { what: "y", .. })
    ));
    assert_eq!(cost(&p, &ok, &ok, &ok, &[0.6, 0.5]), Ok(f64::INFINITY));
}

#[test]
fn wide_levels_use_two_byte_decisions() {
    // 1,000 distinct scores at max_levels 4,096: exact, through the u16 decision table.
    let mut rng = Rng(3);
    let n = 1000;
    let parent = random_tree(&mut rng, n);
    let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let w = random_weights(&mut rng, n);
    let g: Vec<f64> = (0..n).map(|_| rng.unit() * 0.2).collect();
    let s = smooth(&parent, &x, &w, &g, &SmoothOptions { max_levels: 4096 }).unwrap();
    check_consistent(&parent, &x, &w, &g, &s);
    assert_eq!(s.max_excess, 0.0);
    // Fewer levels can only cost more, and no more than their bound.
    let q = smooth(&parent, &x, &w, &g, &SmoothOptions { max_levels: 64 }).unwrap();
    assert!(q.cost >= s.cost - 1e-9 && q.cost <= s.cost + q.max_excess + 1e-9);
}
