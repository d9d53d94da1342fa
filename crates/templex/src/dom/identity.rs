//! Node identity: absolute position paths and cheap structural signatures.

use markup5ever::LocalName;

use super::tree::{Document, NodeData, NodeId};
use crate::stable_hash::{Encoder, hash_bytes, hash_pair, hash_set};

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

    /// Compute `Signatures` for every node in one linear pass (plus one reverse pass).
    ///
    /// The values are stable hashes (the store's hash scheme,
    /// [`HASH_SCHEME`](crate::stable_hash::HASH_SCHEME)): SITELEVEL's stored node hashes are made of them.
    pub fn signatures(&self) -> Signatures {
        let (label, path, subtree) = self.hashes(true);
        Signatures {
            label,
            path,
            subtree,
        }
    }

    /// The `label` and `subtree` of [`Self::signatures`], without the paths (the mappings
    /// do not read them: one hash and one array per node less).
    pub(crate) fn labels_and_subtrees(&self) -> (Vec<u64>, Vec<u64>) {
        let (label, _, subtree) = self.hashes(false);
        (label, subtree)
    }

    /// Labels, paths (empty unless `with_path`) and subtree hashes.
    fn hashes(&self, with_path: bool) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let n = self.len();
        let mut label = vec![0u64; n];
        let mut path = if with_path { vec![0u64; n] } else { Vec::new() };
        let mut subtree = vec![0u64; n];
        let mut enc = Encoder::new();
        let mut tags = TagHashes::new();
        // Other nodes than elements hash by their kind alone: once per kind, not per node.
        let kinds: [u64; KINDS] = std::array::from_fn(|k| hash_bytes(&[k as u8]));
        for id in self.ids() {
            let i = id.index();
            // The tag hash: kind, and tag name for elements.
            let tag = match &self.node(id).data {
                NodeData::Element(e) => {
                    let tag = tags.get(&e.name.local, &mut enc);
                    // The label: the tag hash alone for plain elements, else with the class
                    // set (any order) and then the id attribute as the last field.
                    let classes = hash_set(e.classes());
                    let own_id = e.id();
                    label[i] = if classes == 0 && own_id.is_none() {
                        tag
                    } else {
                        enc.start()
                            .u64(tag)
                            .u64(classes)
                            .last_str(own_id.unwrap_or(""))
                            .finish()
                    };
                    tag
                }
                other => {
                    label[i] = kinds[usize::from(node_kind(other))];
                    label[i]
                }
            };
            if with_path {
                let parent_path = self.parent(id).map_or(0, |p| path[p.index()]);
                path[i] = hash_pair(parent_path, tag);
            }
        }
        // Reverse document order visits children before parents: label, then the trimmed
        // text (text nodes have no children), or the children's subtree hashes.
        for id in self.ids().rev() {
            enc.start().u64(label[id.index()]);
            if let NodeData::Text(r) = &self.node(id).data {
                enc.last_str(self.text[r.clone()].trim());
            }
            for c in self.children(id) {
                enc.u64(subtree[c.index()]);
            }
            subtree[id.index()] = enc.finish();
        }
        (label, path, subtree)
    }
}

/// Tag hashes of the element names met so far (most pages use a few dozen tags): a small
/// direct-mapped cache in front of hashing the name's bytes, keyed by the atom itself.
struct TagHashes<'a> {
    slots: [Option<(&'a LocalName, u64)>; 64],
}

impl<'a> TagHashes<'a> {
    fn new() -> Self {
        TagHashes { slots: [None; 64] }
    }

    fn get(&mut self, name: &'a LocalName, enc: &mut Encoder) -> u64 {
        let slot = &mut self.slots[(name.get_hash() % 64) as usize];
        match slot {
            Some((n, h)) if *n == name => *h,
            _ => {
                let h = enc.start().u8(ELEMENT).last_str(name).finish();
                *slot = Some((name, h));
                h
            }
        }
    }
}

/// Node kinds in stable hashes.
const KINDS: usize = 6;

/// The kind byte of elements.
const ELEMENT: u8 = 2;

/// The kind byte of a node in its stable hashes.
fn node_kind(data: &NodeData) -> u8 {
    match data {
        NodeData::Document => 0,
        NodeData::Doctype(_) => 1,
        NodeData::Element(_) => ELEMENT,
        NodeData::Text(_) => 3,
        NodeData::Comment(_) => 4,
        NodeData::ProcessingInstruction(_) => 5,
    }
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
