//! The arena DOM: every node of a page in one `Vec`, numbered in document order.
//!
//! Because ids follow document order, the subtree of node `n` is the contiguous id range
//! `n..end(n)`, children are found by hopping from `n + 1` over subtree ends, and a reverse
//! scan over ids visits children before parents. Every traversal is a loop over ids; nothing
//! recurses, so arbitrarily deep pages are safe.

use std::ops::Range;

use encoding_rs::Encoding;
use markup5ever::{LocalName, QualName, local_name, ns};

use super::decode::EncodingSource;

/// Index of a node in its [`Document`]. Ids are in document order (pre-order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The document node, always id 0.
    pub const ROOT: NodeId = NodeId(0);

    /// The id as a `usize`, for indexing per-node vectors.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One attribute of an element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    /// Qualified name (almost always in the null namespace).
    pub name: QualName,
    /// The attribute value, entities decoded.
    pub value: Box<str>,
}

/// An element: its name and attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Qualified name (namespace distinguishes HTML, SVG and MathML).
    pub name: QualName,
    /// Attributes in source order.
    pub attrs: Vec<Attr>,
}

impl Element {
    /// The local tag name, e.g. `div`.
    #[inline]
    pub fn tag(&self) -> &LocalName {
        &self.name.local
    }

    /// Whether this is an HTML element with the given local name.
    #[inline]
    pub fn is(&self, tag: &LocalName) -> bool {
        self.name.ns == ns!(html) && &self.name.local == tag
    }

    /// [`Element::attr`] by interned name (`local_name!("role")`): one integer comparison
    /// per attribute instead of a string comparison, for the verdicts asked of every
    /// element of a page.
    #[inline]
    pub(crate) fn attr_local(&self, name: &LocalName) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && a.name.local == *name)
            .map(|a| &*a.value)
    }

    /// The value of the attribute named `name` (null namespace).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && &*a.name.local == name)
            .map(|a| &*a.value)
    }

    /// The `id` attribute, if present and non-empty.
    pub fn id(&self) -> Option<&str> {
        self.attr("id").map(str::trim).filter(|s| !s.is_empty())
    }

    /// The class names, split on ASCII whitespace as the DOM does.
    pub fn classes(&self) -> impl Iterator<Item = &str> + '_ {
        self.attr("class")
            .unwrap_or("")
            .split(|c: char| c.is_ascii_whitespace())
            .filter(|s| !s.is_empty())
    }
}

/// What a node is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeData {
    /// The document node (id 0).
    Document,
    /// `<!DOCTYPE …>`.
    Doctype(Box<Doctype>),
    /// An element.
    Element(Element),
    /// A text node; the range indexes [`Document::text_buffer`].
    Text(Range<usize>),
    /// A comment; the range indexes [`Document::text_buffer`].
    Comment(Range<usize>),
    /// A processing instruction (only from foreign content).
    ProcessingInstruction(Box<ProcessingInstruction>),
}

/// A doctype's fields. Boxed in [`NodeData`]: a page has one, and unboxed they would make
/// every node of every page a word larger (a node is one cache line, 64 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doctype {
    /// The doctype name, usually `html`.
    pub name: Box<str>,
    /// Public identifier.
    pub public_id: Box<str>,
    /// System identifier.
    pub system_id: Box<str>,
}

/// A processing instruction's fields (boxed in [`NodeData`], as [`Doctype`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessingInstruction {
    /// The target.
    pub target: Box<str>,
    /// The data.
    pub data: Box<str>,
}

/// A node: its data plus tree links derived from document order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Parent id; `None` only for the document node.
    pub parent: Option<NodeId>,
    /// One past the last id of this node's subtree.
    pub end: NodeId,
    /// Distance from the document node (which has depth 0).
    pub depth: u32,
    /// What the node is.
    pub data: NodeData,
}

/// A parsed page.
#[derive(Debug, Clone)]
pub struct Document {
    pub(crate) nodes: Vec<Node>,
    /// The `<meta>` elements, in document order: what a page declares about itself is read
    /// from them, without a walk over every node.
    pub(crate) metas: Vec<NodeId>,
    pub(crate) text: String,
    pub(crate) encoding: &'static Encoding,
    pub(crate) encoding_source: EncodingSource,
    /// Parsed as a browser without scripts reads a page: `<noscript>` holds markup, shown.
    pub(crate) noscript_shown: bool,
    /// The page's JSON-LD scripts: those a lean parse cut from the tree, or, after a full
    /// parse (which keeps them in it), read from the tree when first asked for — once, however
    /// often the page's declarations are read.
    pub(crate) json_ld: std::sync::OnceLock<Vec<String>>,
    /// Each text node's words as page-level extraction counts them, counted when first
    /// asked for: several of its steps weigh the same text (`extract::blocks::node_words`).
    pub(crate) text_words: WordCache,
}

/// Per-node counts filled in when first asked for (see `Document::text_words`); a clone
/// starts empty.
#[derive(Debug, Default)]
pub(crate) struct WordCache(pub(crate) std::sync::OnceLock<Box<[std::sync::atomic::AtomicU32]>>);

impl Clone for WordCache {
    fn clone(&self) -> Self {
        WordCache::default()
    }
}

impl Document {
    /// Number of nodes, the document node included.
    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the document holds only the document node.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The node with id `id`.
    ///
    /// # Panics
    /// If `id` does not belong to this document.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// All nodes, indexed by id.
    #[inline]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// All node ids in document order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The buffer that text and comment ranges index.
    #[inline]
    pub fn text_buffer(&self) -> &str {
        &self.text
    }

    /// The encoding the bytes were decoded with.
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// Where that encoding came from.
    pub fn encoding_source(&self) -> EncodingSource {
        self.encoding_source
    }

    /// The element data of `id`, if it is an element.
    #[inline]
    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id.index()].data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The local tag name of `id`, if it is an element.
    #[inline]
    pub fn tag(&self, id: NodeId) -> Option<&LocalName> {
        self.element(id).map(Element::tag)
    }

    /// The text of a text node (`None` for other nodes).
    #[inline]
    pub fn text(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[id.index()].data {
            NodeData::Text(r) => Some(&self.text[r.clone()]),
            _ => None,
        }
    }

    /// The text of a comment node.
    pub fn comment(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[id.index()].data {
            NodeData::Comment(r) => Some(&self.text[r.clone()]),
            _ => None,
        }
    }

    /// Parent of `id`.
    #[inline]
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].parent
    }

    /// The ids of `id`'s subtree (itself included), as a contiguous range.
    #[inline]
    pub fn subtree(&self, id: NodeId) -> Range<u32> {
        id.0..self.nodes[id.index()].end.0
    }

    /// Number of nodes in `id`'s subtree, itself included.
    #[inline]
    pub fn subtree_size(&self, id: NodeId) -> usize {
        (self.nodes[id.index()].end.0 - id.0) as usize
    }

    /// Whether `ancestor` is `node` or one of its ancestors.
    #[inline]
    pub fn contains(&self, ancestor: NodeId, node: NodeId) -> bool {
        ancestor <= node && node < self.nodes[ancestor.index()].end
    }

    /// Children of `id` in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            doc: self,
            next: id.0 + 1,
            end: self.nodes[id.index()].end.0,
        }
    }

    /// Element children of `id` in order.
    pub fn element_children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(id).filter(|c| self.element(*c).is_some())
    }

    /// The next sibling of `id`.
    pub fn next_sibling(&self, id: NodeId) -> Option<NodeId> {
        let parent = self.parent(id)?;
        let next = self.nodes[id.index()].end;
        (next < self.nodes[parent.index()].end).then_some(next)
    }

    /// Ancestors of `id`, nearest first, excluding `id` itself.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.parent(id), |p| self.parent(*p))
    }

    /// Descendants of `id` (excluding itself) in document order.
    pub fn descendants(&self, id: NodeId) -> impl Iterator<Item = NodeId> + use<> {
        (id.0 + 1..self.nodes[id.index()].end.0).map(NodeId)
    }

    /// The first element with the given HTML tag name, in document order.
    pub fn find_element(&self, tag: &LocalName) -> Option<NodeId> {
        self.ids()
            .find(|id| self.element(*id).is_some_and(|e| e.is(tag)))
    }

    /// The `<html>` element.
    pub fn html(&self) -> Option<NodeId> {
        self.element_children(NodeId::ROOT).next()
    }

    /// The `<body>` element (or a top-level `<frameset>`).
    pub fn body(&self) -> Option<NodeId> {
        let html = self.html()?;
        self.element_children(html).find(|c| {
            self.element(*c)
                .is_some_and(|e| e.is(&local_name!("body")) || e.is(&local_name!("frameset")))
        })
    }

    /// The `<head>` element.
    pub fn head(&self) -> Option<NodeId> {
        let html = self.html()?;
        self.element_children(html)
            .find(|c| self.element(*c).is_some_and(|e| e.is(&local_name!("head"))))
    }

    /// The document title (text of the first `<title>`), whitespace-collapsed.
    pub fn title(&self) -> Option<String> {
        let t = self.find_element(&local_name!("title"))?;
        let s = collapse_whitespace(&self.text_content(t));
        (!s.is_empty()).then_some(s)
    }

    /// Concatenated text of all text nodes in `id`'s subtree.
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        for n in self.subtree(id) {
            if let NodeData::Text(r) = &self.nodes[n as usize].data {
                out.push_str(&self.text[r.clone()]);
            }
        }
        out
    }

    /// The `<meta>` elements (HTML namespace), in document order.
    pub fn metas(&self) -> &[NodeId] {
        &self.metas
    }

    /// Element ids in document order.
    pub fn elements(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ids().filter(|id| self.element(*id).is_some())
    }
}

/// Iterator over the children of a node.
#[derive(Debug, Clone)]
pub struct Children<'a> {
    doc: &'a Document,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = NodeId(self.next);
        self.next = self.doc.nodes[id.index()].end.0;
        Some(id)
    }
}

/// Characters that only tell a browser where it may break or join a line (soft hyphens,
/// word joiners, zero-width no-break spaces): a reader copying the text does not get them,
/// and they would split the words a search for the text looks for
/// ("Mit\u{ad}tel\u{ad}al\u{ad}ter").
pub(crate) fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{2060}' | '\u{feff}')
}

/// Han, kana and hangul: scripts written without spaces, where every character counts as
/// a word. Not the marks the kana blocks hold: the katakana middle dot `・` (U+30FB), which
/// Chinese and Japanese pages set before every item of a link list as a bullet, the double
/// hyphen `゠` and the voicing marks.
#[inline]
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3041..=0x3098 | 0x309d..=0x309f | 0x30a1..=0x30fa | 0x30fc..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff)
}

/// [`char::is_alphanumeric`], answered without its table lookup for the letters of the
/// scripts most pages are written in (Latin, Greek, Cyrillic, CJK ideographs, hangul):
/// counting words is a hot loop, and the lookup was 4 % of extracting a page in Chinese or
/// Russian.
#[inline]
pub(crate) fn is_word_char(c: char) -> bool {
    match c as u32 {
        0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a => true,
        0..=0x7f => false,
        0xc0..=0xd6
        | 0xd8..=0xf6
        | 0xf8..=0x24f
        | 0x388..=0x38a
        | 0x38c
        | 0x38e..=0x3a1
        | 0x3a3..=0x3ce
        | 0x400..=0x481
        | 0x48a..=0x52f
        | 0x4e00..=0x9fff
        | 0xac00..=0xd7a3 => true,
        _ => c.is_alphanumeric(),
    }
}

/// Collapse runs of whitespace to one space and trim.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}
