//! Per-document data that makes node comparisons cheap during mapping: hashed labels,
//! class and attribute-name sets, normalized text hashes and the "significant" children
//! (elements and non-blank text) that alignments run over.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use crate::dom::tags::is_code;
use crate::dom::{Document, NodeData, NodeId, deadline};

/// What a node is, for mapping purposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Comments, doctypes, blank text: ignored by mappings.
    Ignored,
    /// An element.
    Element,
    /// A text node with visible characters.
    Text,
    /// The document node.
    Root,
}

/// Mapping index of one document.
#[derive(Debug)]
pub struct MapIndex<'d> {
    /// The indexed document.
    pub doc: &'d Document,
    kind: Vec<Kind>,
    /// Hash of the tag name (elements) or of the normalized text (text nodes).
    key: Vec<u64>,
    /// Hash of tag + id + class set.
    label: Vec<u64>,
    /// Hash of the whole subtree (labels and text).
    subtree: Vec<u64>,
    id_hash: Vec<u64>,
    /// Offsets into `sets` for class hashes then attribute-name hashes of each element.
    set_off: Vec<(u32, u32, u32)>,
    sets: Vec<u64>,
    child_off: Vec<(u32, u32)>,
    children: Vec<NodeId>,
    /// Position among the parent's significant children.
    position: Vec<u32>,
}

impl<'d> MapIndex<'d> {
    /// Build the index in two linear passes.
    pub fn new(doc: &'d Document) -> Self {
        let n = doc.len();
        let (label, subtree) = doc.labels_and_subtrees();
        let mut kind = vec![Kind::Ignored; n];
        let mut key = vec![0u64; n];
        let mut id_hash = vec![0u64; n];
        let mut set_off = vec![(0u32, 0u32, 0u32); n];
        let mut sets = Vec::new();
        for id in doc.ids() {
            if deadline::due(id.index()) {
                break;
            }
            let i = id.index();
            match &doc.node(id).data {
                NodeData::Document => kind[i] = Kind::Root,
                NodeData::Element(e) => {
                    kind[i] = Kind::Element;
                    key[i] = FxBuildHasher.hash_one(&e.name.local);
                    let start = sets.len() as u32;
                    if e.attrs.is_empty() {
                        // No id, no classes, no other attributes (most nodes of dense pages).
                        set_off[i] = (start, start, start);
                        continue;
                    }
                    id_hash[i] = e.id().map_or(0, |s| FxBuildHasher.hash_one(s));
                    sets.extend(e.classes().map(|c| FxBuildHasher.hash_one(c)));
                    sets[start as usize..].sort_unstable();
                    let mid = sets.len() as u32;
                    sets.extend(
                        e.attrs
                            .iter()
                            .filter(|a| !matches!(&*a.name.local, "id" | "class"))
                            .map(|a| FxBuildHasher.hash_one(&*a.name.local)),
                    );
                    sets[mid as usize..].sort_unstable();
                    set_off[i] = (start, mid, sets.len() as u32);
                }
                NodeData::Text(r) => {
                    let t = &doc.text_buffer()[r.clone()];
                    if !t.trim().is_empty() {
                        kind[i] = Kind::Text;
                        key[i] = text_hash(t);
                    }
                }
                _ => {}
            }
        }
        let mut child_off = vec![(0u32, 0u32); n];
        let mut children = Vec::with_capacity(n);
        let mut position = vec![0u32; n];
        for id in doc.ids() {
            if deadline::due(id.index()) {
                break;
            }
            let start = children.len() as u32;
            for c in doc.children(id) {
                if matches!(kind[c.index()], Kind::Element | Kind::Text) {
                    position[c.index()] = children.len() as u32 - start;
                    children.push(c);
                }
            }
            child_off[id.index()] = (start, children.len() as u32);
        }
        MapIndex {
            doc,
            kind,
            key,
            label,
            subtree,
            id_hash,
            set_off,
            sets,
            child_off,
            children,
            position,
        }
    }

    /// The node's mapping kind.
    #[inline]
    pub fn kind(&self, id: NodeId) -> Kind {
        self.kind[id.index()]
    }

    /// Whether the node is text a reader sees: visible text, not the source of a script,
    /// style or template. Only such text is evidence for or against a template.
    pub fn is_shown_text(&self, id: NodeId) -> bool {
        self.kind(id) == Kind::Text
            && !self
                .doc
                .parent(id)
                .and_then(|p| self.doc.tag(p))
                .is_some_and(is_code)
    }

    /// Tag hash (elements) or normalized-text hash (text).
    #[inline]
    pub fn key(&self, id: NodeId) -> u64 {
        self.key[id.index()]
    }

    /// Tag + id + class-set hash.
    #[inline]
    pub fn label(&self, id: NodeId) -> u64 {
        self.label[id.index()]
    }

    /// Hash of the whole subtree: equal for identical subtrees (labels and text).
    #[inline]
    pub fn subtree_hash(&self, id: NodeId) -> u64 {
        self.subtree[id.index()]
    }

    /// Hash of the id attribute (0 when none).
    #[inline]
    pub fn id_hash(&self, id: NodeId) -> u64 {
        self.id_hash[id.index()]
    }

    /// Sorted class-name hashes.
    #[inline]
    pub fn classes(&self, id: NodeId) -> &[u64] {
        let (s, m, _) = self.set_off[id.index()];
        &self.sets[s as usize..m as usize]
    }

    /// Sorted hashes of attribute names other than id and class.
    #[inline]
    pub fn attr_names(&self, id: NodeId) -> &[u64] {
        let (_, m, e) = self.set_off[id.index()];
        &self.sets[m as usize..e as usize]
    }

    /// Significant children (elements and visible text) in order.
    #[inline]
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        let (s, e) = self.child_off[id.index()];
        &self.children[s as usize..e as usize]
    }

    /// Position among the parent's significant children.
    #[inline]
    pub fn position(&self, id: NodeId) -> u32 {
        self.position[id.index()]
    }
}

/// Hash of whitespace-normalized text, so that re-indentation does not matter.
pub(crate) fn text_hash(t: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = FxBuildHasher.build_hasher();
    for w in t.split_whitespace() {
        h.write(w.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

/// Jaccard index of two sorted hash lists (1 when both are empty).
pub(crate) fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}
