//! Exact top-down mapping (TemEx Definitions 3.1–3.2, Algorithm 2's `ETDM`).
//!
//! Starting from the roots, the significant children of every mapped pair are aligned in
//! document order by a longest-common-subsequence under the equality relation, which gives
//! a one-to-one, order-preserving, top-down mapping where every pair is "equal". Pairs are
//! processed from an explicit stack, so depth is unbounded.
//!
//! The LCS is weighted: among alignments with equal pairs, one that pairs more similar nodes
//! (weighted similarity) and identical subtrees is preferred. Without this, a menu whose
//! "current item" class moves from page to page aligns every item with its neighbour (same
//! tag and class, different text), and an optional breadcrumb `div.container` steals the
//! partner of the `div.container.main` that follows it.

use super::equality::{NodeEquality, Weights, similarity};
use super::index::{Kind, MapIndex};
use crate::dom::{NodeId, deadline};

/// Above this many cells an alignment falls back from the quadratic LCS to a greedy
/// linear one, so that a node with thousands of children cannot blow up time or memory.
const LCS_CELL_LIMIT: usize = 1 << 20;

/// How far the greedy alignment looks ahead for a partner.
const GREEDY_WINDOW: usize = 32;

/// An ETDM from document `a` to document `b`: for each node of `a`, its partner in `b`.
#[derive(Debug, Clone)]
pub struct Mapping {
    /// Partner in `b` per node id of `a`.
    pub partner: Vec<Option<NodeId>>,
    /// Number of mapped pairs.
    pub pairs: usize,
}

impl Mapping {
    /// Whether node `x` of `a` is mapped.
    #[inline]
    pub fn is_mapped(&self, x: NodeId) -> bool {
        self.partner.get(x.index()).is_some_and(Option::is_some)
    }
}

/// Compute the exact top-down mapping from `a` to `b` under `eq`.
pub fn etdm(a: &MapIndex<'_>, b: &MapIndex<'_>, eq: &dyn NodeEquality) -> Mapping {
    let mut partner = vec![None; a.doc.len()];
    let mut pairs = 0;
    let mut stack = vec![(NodeId::ROOT, NodeId::ROOT)];
    let mut aligned = Vec::new();
    while let Some((x, y)) = stack.pop() {
        if deadline::due(pairs + 1) {
            break;
        }
        partner[x.index()] = Some(y);
        pairs += 1;
        aligned.clear();
        align(a, a.children(x), b, b.children(y), eq, &mut aligned);
        stack.extend(aligned.iter().rev().copied());
    }
    Mapping { partner, pairs }
}

/// Order-preserving one-to-one alignment of two child lists (LCS under `eq`).
fn align(
    a: &MapIndex<'_>,
    xs: &[NodeId],
    b: &MapIndex<'_>,
    ys: &[NodeId],
    eq: &dyn NodeEquality,
    out: &mut Vec<(NodeId, NodeId)>,
) {
    // Identical prefixes and suffixes are the common case in templates: strip them first.
    let same =
        |x: NodeId, y: NodeId| a.subtree_hash(x) == b.subtree_hash(y) && eq.equal(a, x, b, y);
    let mut pre = 0;
    while pre < xs.len() && pre < ys.len() && same(xs[pre], ys[pre]) {
        out.push((xs[pre], ys[pre]));
        pre += 1;
    }
    let (xs, ys) = (&xs[pre..], &ys[pre..]);
    let mut suf = 0;
    while suf < xs.len() && suf < ys.len() && same(xs[xs.len() - 1 - suf], ys[ys.len() - 1 - suf]) {
        suf += 1;
    }
    let (mx, my) = (&xs[..xs.len() - suf], &ys[..ys.len() - suf]);
    if !mx.is_empty() && !my.is_empty() {
        if (mx.len() + 1) * (my.len() + 1) <= LCS_CELL_LIMIT {
            lcs(a, mx, b, my, eq, out);
        } else {
            greedy(a, mx, b, my, eq, out);
        }
    }
    for k in 0..suf {
        out.push((xs[xs.len() - suf + k], ys[ys.len() - suf + k]));
    }
}

fn lcs(
    a: &MapIndex<'_>,
    xs: &[NodeId],
    b: &MapIndex<'_>,
    ys: &[NodeId],
    eq: &dyn NodeEquality,
    out: &mut Vec<(NodeId, NodeId)>,
) {
    let (n, m) = (xs.len(), ys.len());
    let w = m + 1;
    // table[i][j] = LCS length of xs[i..] and ys[j..]; filled backwards so the traceback
    // runs forwards and emits pairs in document order.
    let mut table = vec![0u32; (n + 1) * w];
    let mut weight = vec![0u16; n * m];
    for i in (0..n).rev() {
        // Only long child lists read the clock (`i + 1` is never 0): an alignment per node.
        if deadline::due(i + 1) {
            break;
        }
        for j in (0..m).rev() {
            let wt = pair_weight(a, xs[i], b, ys[j], eq);
            weight[i * m + j] = wt;
            let skip = table[(i + 1) * w + j].max(table[i * w + j + 1]);
            table[i * w + j] = if wt > 0 {
                skip.max(table[(i + 1) * w + j + 1] + u32::from(wt))
            } else {
                skip
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        let wt = weight[i * m + j];
        if wt > 0 && table[i * w + j] == table[(i + 1) * w + j + 1] + u32::from(wt) {
            out.push((xs[i], ys[j]));
            i += 1;
            j += 1;
        } else if table[(i + 1) * w + j] >= table[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// Alignment weight of a pair: 0 when not equal; otherwise 1000 plus up to 1000 for
/// similarity plus 1000 for identical subtrees. A pair is always worth more than any
/// similarity gain, so the alignment first maximizes pairs, then their quality.
fn pair_weight(
    a: &MapIndex<'_>,
    x: NodeId,
    b: &MapIndex<'_>,
    y: NodeId,
    eq: &dyn NodeEquality,
) -> u16 {
    if !eq.equal(a, x, b, y) {
        return 0;
    }
    let sim = if a.kind(x) == Kind::Element {
        similarity(&Weights::default(), a, x, b, y)
    } else {
        1.0
    };
    let identical = u16::from(a.subtree_hash(x) == b.subtree_hash(y));
    1000 + (sim.clamp(0.0, 1.0) * 999.0) as u16 + 1000 * identical
}

/// Linear-time alignment for huge child lists: match each item with the first equal item
/// within a window ahead.
fn greedy(
    a: &MapIndex<'_>,
    xs: &[NodeId],
    b: &MapIndex<'_>,
    ys: &[NodeId],
    eq: &dyn NodeEquality,
    out: &mut Vec<(NodeId, NodeId)>,
) {
    let (mut i, mut j) = (0, 0);
    while i < xs.len() && j < ys.len() {
        let window = j..ys.len().min(j + GREEDY_WINDOW);
        let identical = window.clone().find(|&k| {
            a.subtree_hash(xs[i]) == b.subtree_hash(ys[k]) && eq.equal(a, xs[i], b, ys[k])
        });
        if let Some(k) =
            identical.or_else(|| window.clone().find(|&k| eq.equal(a, xs[i], b, ys[k])))
        {
            out.push((xs[i], ys[k]));
            j = k + 1;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;
    use crate::mapping::Equality;

    fn mapped_tags(a: &str, b: &str, eq: Equality) -> Vec<String> {
        let (da, db) = (parse_str(a), parse_str(b));
        let (ia, ib) = (MapIndex::new(&da), MapIndex::new(&db));
        let m = etdm(&ia, &ib, &eq);
        da.ids()
            .filter(|id| m.is_mapped(*id))
            .filter_map(|id| {
                da.tag(id)
                    .map(|t| t.to_string())
                    .or_else(|| da.text(id).map(|t| format!("'{}'", t.trim())))
            })
            .collect()
    }

    #[test]
    fn top_down_and_ordered() {
        let a = "<div id=m><a>Home</a><a>News</a></div><div id=c><p>one</p></div>";
        let b = "<div id=m><a>Home</a><a>News</a></div><div id=c><p>two</p><p>x</p></div>";
        let tags = mapped_tags(a, b, Equality::LabelIdClass);
        assert_eq!(
            tags,
            [
                "html", "head", "body", "div", "a", "'Home'", "a", "'News'", "div", "p"
            ]
        );
    }

    #[test]
    fn exactness_cuts_subtrees() {
        // The wrappers differ in id: nothing below them maps.
        let a = "<div id=x><p>same</p></div>";
        let b = "<div id=y><p>same</p></div>";
        assert_eq!(
            mapped_tags(a, b, Equality::LabelIdClass),
            ["html", "head", "body"]
        );
        assert_eq!(
            mapped_tags(a, b, Equality::Label),
            ["html", "head", "body", "div", "p", "'same'"]
        );
    }

    #[test]
    fn alignment_is_lcs_not_greedy() {
        let a = "<ul><li class=a></li><li class=b></li><li class=c></li></ul>";
        let b = "<ul><li class=c></li><li class=a></li><li class=b></li></ul>";
        // LCS keeps a,b (2 pairs) rather than pairing c first.
        let tags = mapped_tags(a, b, Equality::LabelIdClass);
        assert_eq!(tags.iter().filter(|t| *t == "li").count(), 2);
    }

    #[test]
    fn moving_current_item_keeps_items_aligned() {
        let a = "<ul><li class=i><a>A</a></li><li class=i><a>B</a></li><li class=i><a>C</a></li><li class='i cur'><a>D</a></li></ul>";
        let b = "<ul><li class='i cur'><a>A</a></li><li class=i><a>B</a></li><li class=i><a>C</a></li><li class=i><a>D</a></li></ul>";
        let tags = mapped_tags(a, b, Equality::LabelIdClass);
        for t in ["'B'", "'C'"] {
            assert!(tags.iter().any(|x| x == t), "{t} not mapped: {tags:?}");
        }
    }

    #[test]
    fn one_to_one() {
        let a = "<p>x</p>";
        let b = "<p>x</p><p>x</p><p>x</p>";
        let (da, db) = (parse_str(a), parse_str(b));
        let (ia, ib) = (MapIndex::new(&da), MapIndex::new(&db));
        let m = etdm(&ia, &ib, &Equality::Label);
        let mut partners: Vec<_> = m.partner.iter().flatten().collect();
        let n = partners.len();
        partners.sort();
        partners.dedup();
        assert_eq!(partners.len(), n);
    }

    #[test]
    fn huge_child_lists_stay_bounded() {
        let mut a = String::from("<ul>");
        let mut b = String::from("<ul>");
        for i in 0..5000 {
            a.push_str(&format!("<li class=c{}>x</li>", i % 7));
            b.push_str(&format!("<li class=c{}>x</li>", (i + 3) % 7));
        }
        let (da, db) = (parse_str(&a), parse_str(&b));
        let (ia, ib) = (MapIndex::new(&da), MapIndex::new(&db));
        let t = std::time::Instant::now();
        let m = etdm(&ia, &ib, &Equality::LabelIdClass);
        assert!(m.pairs > 4000);
        assert!(t.elapsed().as_secs() < 5);
    }

    #[test]
    fn weighted_relation() {
        let a = "<div class='x y' data-a=1><p>t</p></div>";
        let b = "<div class='x z' data-a=2><p>t</p></div>";
        assert_eq!(mapped_tags(a, b, Equality::weighted(0.6)).len(), 6);
        assert_eq!(mapped_tags(a, b, Equality::weighted(0.95)).len(), 3);
    }
}
