//! Node-equality relations for the exact top-down mapping (TemEx Definition 3.2 leaves the
//! relation open). Text nodes are equal when their normalized text is; the relations below
//! decide for elements.

use serde::Serialize;

use super::index::{Kind, MapIndex, jaccard};
use crate::dom::NodeId;

/// A node-equality relation between nodes of two indexed documents.
pub trait NodeEquality: Sync {
    /// Whether element `x` of `a` and element `y` of `b` are "equal".
    fn equal_elements(&self, a: &MapIndex<'_>, x: NodeId, b: &MapIndex<'_>, y: NodeId) -> bool;

    /// Whether two nodes are equal: same kind, then text by content, elements by
    /// [`equal_elements`](Self::equal_elements).
    fn equal(&self, a: &MapIndex<'_>, x: NodeId, b: &MapIndex<'_>, y: NodeId) -> bool {
        match (a.kind(x), b.kind(y)) {
            (Kind::Root, Kind::Root) => true,
            (Kind::Text, Kind::Text) => a.key(x) == b.key(y),
            (Kind::Element, Kind::Element) => self.equal_elements(a, x, b, y),
            _ => false,
        }
    }
}

/// Weights of the [`Equality::Weighted`] similarity (they sum to 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    /// Same id attribute (or both without).
    pub id: f64,
    /// Jaccard of class sets.
    pub class: f64,
    /// Jaccard of the other attribute names.
    pub attrs: f64,
    /// min/max ratio of significant child counts.
    pub children: f64,
    /// Closeness of the positions among siblings.
    pub position: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            id: 0.3,
            class: 0.3,
            attrs: 0.15,
            children: 0.1,
            position: 0.15,
        }
    }
}

/// The built-in equality relations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Equality {
    /// Same tag name.
    Label,
    /// Same tag name, id attribute and class set.
    #[default]
    LabelIdClass,
    /// Same tag name and a weighted similarity (id, classes, attributes, child count,
    /// position) of at least `threshold`.
    Weighted {
        /// Minimum similarity in [0, 1].
        threshold: f64,
        /// Feature weights.
        weights: Weights,
    },
}

impl Equality {
    /// The weighted relation with default weights.
    pub fn weighted(threshold: f64) -> Self {
        Equality::Weighted {
            threshold,
            weights: Weights::default(),
        }
    }

    /// Short name for reports.
    pub fn name(&self) -> String {
        match self {
            Equality::Label => "label".into(),
            Equality::LabelIdClass => "label-id-class".into(),
            Equality::Weighted { threshold, .. } => format!("weighted@{threshold}"),
        }
    }
}

/// Weighted similarity of two elements with the same tag, in [0, 1] (0 for different tags).
pub(crate) fn similarity(
    w: &Weights,
    a: &MapIndex<'_>,
    x: NodeId,
    b: &MapIndex<'_>,
    y: NodeId,
) -> f64 {
    if a.key(x) != b.key(y) {
        return 0.0;
    }
    let id = f64::from(u8::from(a.id_hash(x) == b.id_hash(y)));
    let class = jaccard(a.classes(x), b.classes(y));
    let attrs = jaccard(a.attr_names(x), b.attr_names(y));
    let (ca, cb) = (a.children(x).len(), b.children(y).len());
    let children = if ca.max(cb) == 0 {
        1.0
    } else {
        ca.min(cb) as f64 / ca.max(cb) as f64
    };
    let (pa, pb) = (a.position(x), b.position(y));
    let position = 1.0 / (1.0 + f64::from(pa.abs_diff(pb)));
    w.id * id + w.class * class + w.attrs * attrs + w.children * children + w.position * position
}

impl NodeEquality for Equality {
    fn equal_elements(&self, a: &MapIndex<'_>, x: NodeId, b: &MapIndex<'_>, y: NodeId) -> bool {
        match self {
            Equality::Label => a.key(x) == b.key(y),
            Equality::LabelIdClass => a.label(x) == b.label(y),
            Equality::Weighted { threshold, weights } => {
                similarity(weights, a, x, b, y) >= *threshold
            }
        }
    }
}
