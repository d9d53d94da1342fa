//! Chunking: boundaries, keys, and cutting a page into keyed text chunks.

use markup5ever::local_name;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::text::{has_visible_text, image_text, normalize_into};
use crate::dom::tags::{is_block, is_invisible};
use crate::dom::{Document, LocalName, NodeData, NodeId, deadline};
use crate::stable_hash::{Encoder, hash_str};

/// Version of the chunk key computation. Stored in every
/// [`TableChunkModel`](super::TableChunkModel): keys are hashes, and a model whose keys were
/// computed differently must not be applied (it would silently match nothing, or the wrong
/// chunks). 2: keys are stable hashes of explicit bytes (the store's
/// hash scheme, [`HASH_SCHEME`](crate::stable_hash::HASH_SCHEME)).
pub(crate) const KEY_SCHEME: u32 = 2;

/// Which elements end one text chunk and start the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Boundaries {
    /// The paper's table nodes: `table`, `tr`, `td`, `th`, `thead`, `tbody`, `tfoot`,
    /// `caption`. A page without tables is one chunk, unique to the page.
    Table,
    /// Every block-level element (`crate::dom::tags::is_block`: the table nodes, `div`, `p`,
    /// `li`, headings, `br`, …). The default: most pages lay out with `div`s and lists, and
    /// on the dev gold block chunks score far better (BENCHMARKS.md, "Table chunks").
    #[default]
    Block,
}

impl Boundaries {
    /// Whether an element with this tag is a chunk boundary.
    pub fn is_boundary(self, tag: &LocalName) -> bool {
        match self {
            Boundaries::Table => is_table_node(tag),
            Boundaries::Block => is_block(tag),
        }
    }
}

/// The paper's "table nodes".
pub(crate) fn is_table_node(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("table")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("caption")
    )
}

/// What identifies a chunk across pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKeys {
    /// The text alone, as in the paper: equal text anywhere on a page is the same chunk.
    Text,
    /// The text and its occurrence index among equal texts of the page (first "Home",
    /// second "Home", …).
    TextOccurrence,
    /// The text and the tag path of the chunk's block (`html/body/div/ul/li`, tags only:
    /// ids and classes vary between pages of one template, e.g. the current menu item's).
    TextPath,
    /// The text, the block's tag path, and the occurrence index among chunks of the page
    /// with the same text and path. The default: the path separates a content "Home" from
    /// the menu's wherever their blocks differ, and the occurrence index separates them
    /// where they do not (the menu cell and the content cell of a layout table share a tag
    /// path, and the menu comes first); a navigation bar repeated at the bottom of the page
    /// gets keys of its own, which recur like the top bar's. The limit: a coincidental
    /// chunk *before* a same-path template chunk takes the template chunk's key on that
    /// page (a menu cell to the right of the content cell), and the two swap verdicts there.
    #[default]
    TextPathOccurrence,
}

/// How pages are cut into chunks and chunks keyed: part of a learned model, since the same
/// chunking must be applied to the pages the model is used on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunking {
    /// Chunk boundaries.
    pub boundaries: Boundaries,
    /// Chunk keys.
    pub keys: ChunkKeys,
    /// Informative image ALT text and file names are chunk text (`image_text`).
    pub images: bool,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            boundaries: Boundaries::default(),
            keys: ChunkKeys::default(),
            images: true,
        }
    }
}

/// A text chunk of a page.
#[cfg(any(test, feature = "batch"))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The normalized text (whitespace collapsed, image words included).
    pub text: String,
    /// The key the model knows the chunk by ([`ChunkKeys`]).
    pub key: u64,
    /// The innermost boundary element holding the chunk (the body when none does).
    pub block: NodeId,
    /// The text nodes and images whose text makes up the chunk, in document order.
    pub nodes: Vec<NodeId>,
}

#[cfg(any(test, feature = "batch"))]
impl Chunk {
    /// Whether the text has a letter (any script): chunks without one are numbers, dates,
    /// separators ([`MaskRules::letterless_neutral`](super::MaskRules::letterless_neutral)).
    pub fn has_letter(&self) -> bool {
        has_letter(&self.text)
    }
}

/// Cut a page into text chunks, in document order (see the [module docs](super)). Iterative:
/// arbitrarily deep pages are fine.
#[cfg(any(test, feature = "batch"))]
pub(crate) fn page_chunks(doc: &Document, chunking: &Chunking) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    walk_chunks(doc, chunking, |text, key, block, nodes| {
        chunks.push(Chunk {
            text: text.to_owned(),
            key,
            block,
            nodes: std::mem::take(nodes),
        });
    });
    chunks
}

/// What the node mask needs of a chunk ([`page_mask_chunks`]).
pub(crate) struct MaskChunk {
    /// The chunk's key.
    pub(crate) key: u64,
    /// [`Chunk::has_letter`].
    pub(crate) letter: bool,
    /// Its nodes: a range of the page's node list.
    pub(crate) nodes: std::ops::Range<usize>,
}

/// The chunks of a page as the node mask reads them, and the node list their ranges index:
/// no text and no node list kept per chunk, so a page of many chunks costs no allocation
/// per chunk.
pub(crate) fn page_mask_chunks(
    doc: &Document,
    chunking: &Chunking,
) -> (Vec<MaskChunk>, Vec<NodeId>) {
    let (mut chunks, mut all) = (Vec::new(), Vec::new());
    walk_chunks(doc, chunking, |text, key, _, nodes| {
        let start = all.len();
        all.extend_from_slice(nodes);
        chunks.push(MaskChunk {
            key,
            letter: has_letter(text),
            nodes: start..all.len(),
        });
    });
    (chunks, all)
}

/// Whether `text` has a letter, in any script.
fn has_letter(text: &str) -> bool {
    text.chars().any(char::is_alphabetic)
}

/// The chunk keys of a page: all a learner needs of it (no chunk's text or nodes kept, so a
/// page of many chunks costs no allocation per chunk).
pub(crate) fn page_keys(doc: &Document, chunking: &Chunking) -> Vec<u64> {
    let mut keys = Vec::new();
    walk_chunks(doc, chunking, |_, key, _, _| keys.push(key));
    keys
}

/// The walk behind [`page_chunks`]: `chunk` gets each chunk's normalized text, key,
/// block and nodes (which it may take; they are cleared after).
fn walk_chunks(
    doc: &Document,
    chunking: &Chunking,
    mut chunk: impl FnMut(&str, u64, NodeId, &mut Vec<NodeId>),
) {
    let root = doc.body().unwrap_or(NodeId::ROOT);
    let n = doc.len();
    // Tag path per element: the chain of tag names from the root. Ids and classes are left
    // out (the current menu item's class, `postid-…` differ between pages of a template).
    let mut path = vec![0u64; n];
    let mut enc = Encoder::new();
    // Siblings mostly share their tag: the last element's path is kept.
    let mut last: Option<(u64, &LocalName, u64)> = None;
    for id in doc.ids() {
        if deadline::due(id.index()) {
            break;
        }
        if let Some(e) = doc.element(id) {
            let parent = doc.parent(id).map_or(0, |p| path[p.index()]);
            path[id.index()] = match last {
                Some((p, name, h)) if p == parent && *name == e.name.local => h,
                _ => {
                    let h = enc.start().u64(parent).last_str(&e.name.local).finish();
                    last = Some((parent, &e.name.local, h));
                    h
                }
            };
        }
    }
    let mut occurrences: FxHashMap<(u64, u64), u32> = FxHashMap::default();
    let mut raw = String::new();
    let mut text = String::new();
    let (mut last_text, mut last_hash) = (String::new(), None);
    let mut nodes: Vec<NodeId> = Vec::new();
    // Open boundary elements (id, subtree end); the root is the outermost block.
    let mut open: Vec<(NodeId, u32)> = vec![(root, doc.node(root).end.0)];
    // Ends of block-level elements that are not boundaries (a `div` under table
    // boundaries): they break words, not chunks.
    let mut soft: Vec<u32> = Vec::new();
    let mut flush = |raw: &mut String, nodes: &mut Vec<NodeId>, block: NodeId| {
        if nodes.is_empty() {
            raw.clear();
            return;
        }
        normalize_into(raw, &mut text);
        raw.clear();
        if text.is_empty() {
            nodes.clear();
            return;
        }
        // Dense pages repeat a chunk's text (a word per cell or item): its hash is kept.
        let text_hash = match last_hash {
            Some(h) if last_text == text => h,
            _ => {
                let h = hash_str(&text);
                last_text.clone_from(&text);
                last_hash = Some(h);
                h
            }
        };
        let block_path = match chunking.keys {
            ChunkKeys::TextPath | ChunkKeys::TextPathOccurrence => path[block.index()],
            ChunkKeys::Text | ChunkKeys::TextOccurrence => 0,
        };
        let occurrence = match chunking.keys {
            ChunkKeys::TextOccurrence | ChunkKeys::TextPathOccurrence => {
                let k = occurrences.entry((text_hash, block_path)).or_insert(0);
                *k += 1;
                *k - 1
            }
            ChunkKeys::Text | ChunkKeys::TextPath => 0,
        };
        let key = enc
            .start()
            .u32(KEY_SCHEME)
            .u64(text_hash)
            .u64(block_path)
            .u32(occurrence)
            .finish();
        chunk(&text, key, block, nodes);
        nodes.clear();
    };
    let range = doc.subtree(root);
    let mut i = range.start + 1;
    while i < range.end {
        while soft.last().is_some_and(|&end| end <= i) {
            soft.pop();
            raw.push(' ');
        }
        while open.len() > 1 && open.last().is_some_and(|&(_, end)| end <= i) {
            let (block, _) = open.pop().unwrap_or((root, 0));
            flush(&mut raw, &mut nodes, block);
        }
        let id = NodeId(i);
        match &doc.node(id).data {
            NodeData::Element(e) => {
                if is_invisible(&e.name.local) {
                    i = doc.node(id).end.0;
                    continue;
                }
                if chunking.boundaries.is_boundary(&e.name.local) {
                    let block = open.last().map_or(root, |o| o.0);
                    flush(&mut raw, &mut nodes, block);
                    open.push((id, doc.node(id).end.0));
                } else if is_block(&e.name.local) {
                    raw.push(' ');
                    soft.push(doc.node(id).end.0);
                } else if chunking.images {
                    if let Some(t) = image_text(e) {
                        raw.push(' ');
                        raw.push_str(&t);
                        raw.push(' ');
                        nodes.push(id);
                    }
                }
            }
            NodeData::Text(r) => {
                let t = &doc.text_buffer()[r.clone()];
                if has_visible_text(t) {
                    raw.push_str(t);
                    nodes.push(id);
                } else {
                    // Keep word separation, but a blank node is not part of a chunk.
                    raw.push(' ');
                }
            }
            _ => {}
        }
        i += 1;
    }
    while let Some((block, _)) = open.pop() {
        flush(&mut raw, &mut nodes, block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    fn texts(doc: &Document, chunking: &Chunking) -> Vec<String> {
        page_chunks(doc, chunking)
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn table_boundaries_cut_at_table_nodes_only() {
        let doc = parse_str(
            "<body>top <div>a</div><table><tr><td>x <b>y</b><div>z</div></td><td>w</td></tr></table>end</body>",
        );
        let table = Chunking {
            boundaries: Boundaries::Table,
            ..Chunking::default()
        };
        assert_eq!(texts(&doc, &table), ["top a", "x y z", "w", "end"]);
        let block = Chunking::default();
        assert_eq!(texts(&doc, &block), ["top", "a", "x y", "z", "w", "end"]);
    }

    #[test]
    fn invisible_text_is_not_text() {
        let doc = parse_str(
            "<body><p>a<script>var x = 1;</script>b<style>p{}</style><noscript>n</noscript></p></body>",
        );
        assert_eq!(texts(&doc, &Chunking::default()), ["ab"]);
    }

    #[test]
    fn images_join_their_chunk() {
        let doc = parse_str(
            "<body><p>Go <img src='/i/home-button.gif'> now <img src=spacer.gif alt=''><img alt='Contact us' src=contact.png></p></body>",
        );
        let chunks = page_chunks(&doc, &Chunking::default());
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "Go home button now Contact us");
        // Two text nodes and the two informative images; the spacer is not part of it.
        assert_eq!(chunks[0].nodes.len(), 4);
        let no_images = Chunking {
            images: false,
            ..Chunking::default()
        };
        assert_eq!(texts(&doc, &no_images), ["Go now"]);
        // A page of images only still has chunks.
        let doc = parse_str("<body><a href=/><img src=/logo/riverbend-logo.png></a></body>");
        assert_eq!(texts(&doc, &Chunking::default()), ["riverbend logo"]);
    }

    #[test]
    fn keys_per_scheme() {
        let doc = parse_str("<body><ul><li>Home</li></ul><p>Home</p><ul><li>Home</li></ul></body>");
        let keys = |k| {
            page_chunks(
                &doc,
                &Chunking {
                    keys: k,
                    ..Chunking::default()
                },
            )
            .into_iter()
            .map(|c| c.key)
            .collect::<Vec<_>>()
        };
        let t = keys(ChunkKeys::Text);
        assert!(t[0] == t[1] && t[1] == t[2]);
        let o = keys(ChunkKeys::TextOccurrence);
        assert!(o[0] != o[1] && o[1] != o[2] && o[0] != o[2]);
        let p = keys(ChunkKeys::TextPath);
        assert!(p[0] != p[1] && p[0] == p[2]);
        let po = keys(ChunkKeys::TextPathOccurrence);
        assert!(po[0] != po[1] && po[0] != po[2] && po[1] != po[2]);
        // The same page gives the same keys.
        assert_eq!(po, keys(ChunkKeys::TextPathOccurrence));
    }
}
