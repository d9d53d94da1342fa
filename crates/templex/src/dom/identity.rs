//! Node identity: absolute position paths and cheap structural signatures.

use std::hash::{BuildHasher, Hash, Hasher};

use rustc_hash::FxBuildHasher;

use super::tree::{Document, NodeData, NodeId};

impl Document {
    /// 1-based position of element `id` among its parent's element children with the same
    /// tag, as in XPath (`div[3]`).
    pub fn same_tag_position(&self, id: NodeId) -> usize {
        let (Some(parent), Some(e)) = (self.parent(id), self.element(id)) else {
            return 1;
        };
        1 + self
            .children(parent)
            .take_while(|c| *c != id)
            .filter(|c| self.element(*c).is_some_and(|o| o.name == e.name))
            .count()
    }

    /// Absolute position path of an element, e.g. `/html[1]/body[1]/div[3]`.
    ///
    /// Non-element nodes get the path of their parent element.
    pub fn dom_path(&self, id: NodeId) -> String {
        let mut steps: Vec<NodeId> = std::iter::once(id)
            .chain(self.ancestors(id))
            .filter(|n| self.element(*n).is_some())
            .collect();
        steps.reverse();
        let mut out = String::new();
        for s in steps {
            let tag = self.tag(s).map_or("", |t| t);
            out.push('/');
            out.push_str(tag);
            out.push('[');
            out.push_str(&self.same_tag_position(s).to_string());
            out.push(']');
        }
        out
    }

    /// Compute [`Signatures`] for every node in one linear pass (plus one reverse pass).
    pub fn signatures(&self) -> Signatures {
        let n = self.len();
        let mut label = vec![0u64; n];
        let mut path = vec![0u64; n];
        let mut subtree = vec![0u64; n];
        for id in self.ids() {
            let i = id.index();
            label[i] = self.label_hash(id);
            let parent_path = self.parent(id).map_or(0, |p| path[p.index()]);
            path[i] = hash_pair(parent_path, self.tag_hash(id));
        }
        // Reverse document order visits children before parents.
        for id in self.ids().rev() {
            let mut h = FxBuildHasher.build_hasher();
            label[id.index()].hash(&mut h);
            if let NodeData::Text(r) = &self.node(id).data {
                self.text[r.clone()].trim().hash(&mut h);
            }
            for c in self.children(id) {
                subtree[c.index()].hash(&mut h);
            }
            subtree[id.index()] = h.finish();
        }
        Signatures {
            label,
            path,
            subtree,
        }
    }

    fn tag_hash(&self, id: NodeId) -> u64 {
        let mut h = FxBuildHasher.build_hasher();
        match &self.node(id).data {
            NodeData::Element(e) => {
                0u8.hash(&mut h);
                e.name.local.hash(&mut h);
            }
            other => std::mem::discriminant(other).hash(&mut h),
        }
        h.finish()
    }

    /// Hash of the node's label: tag, id attribute and (order-insensitive) classes.
    fn label_hash(&self, id: NodeId) -> u64 {
        let Some(e) = self.element(id) else {
            return self.tag_hash(id);
        };
        let mut h = FxBuildHasher.build_hasher();
        e.name.local.hash(&mut h);
        e.id().hash(&mut h);
        // XOR-combine so that class order does not matter.
        let classes = e
            .classes()
            .fold(0u64, |acc, c| acc ^ FxBuildHasher.hash_one(c));
        classes.hash(&mut h);
        h.finish()
    }
}

fn hash_pair(a: u64, b: u64) -> u64 {
    FxBuildHasher.hash_one((a, b))
}

/// Per-node structural hashes, indexed by node id.
#[derive(Debug, Clone)]
pub struct Signatures {
    /// Tag + id attribute + class set: equal labels mean "same kind of node".
    pub label: Vec<u64>,
    /// The chain of tag names from the root: equal for nodes at the same tag path.
    pub path: Vec<u64>,
    /// Label, trimmed text and ordered child subtree hashes: equal for identical subtrees.
    pub subtree: Vec<u64>,
}
