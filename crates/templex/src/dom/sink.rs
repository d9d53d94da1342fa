//! html5ever tree sink that builds the arena [`Document`].
//!
//! The tree builder moves nodes around while it parses (foster parenting, the adoption
//! agency, `<template>` contents), so the sink first builds a linked temporary tree, then
//! [`finish`](TreeSink::finish) renumbers it in document order into the final arena.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};
use markup5ever::{local_name, ns};

use super::decode::EncodingSource;
use super::tree::{Attr, Document, Element, Node, NodeData, NodeId};

const NONE: u32 = u32::MAX;

/// Handle to a temporary node. Elements carry their name so that
/// [`TreeSink::elem_name`] can lend it without borrowing the arena.
#[derive(Clone)]
pub(crate) struct Handle {
    id: u32,
    name: Option<Rc<QualName>>,
}

enum TmpData {
    Document,
    Doctype {
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    },
    Element {
        name: Rc<QualName>,
        attrs: Vec<Attribute>,
        template_contents: u32,
    },
    /// The content fragment of a `<template>`; its children end up under the template.
    Fragment,
    Text(StrTendril),
    Comment(StrTendril),
    Pi {
        target: StrTendril,
        data: StrTendril,
    },
}

struct TmpNode {
    data: TmpData,
    parent: u32,
    first_child: u32,
    last_child: u32,
    prev: u32,
    next: u32,
}

impl TmpNode {
    fn new(data: TmpData) -> Self {
        TmpNode {
            data,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            prev: NONE,
            next: NONE,
        }
    }
}

/// Why a parse stopped before the end of the page (see [`super::parse_page`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The node budget ran out.
    Nodes,
    /// The time budget ran out.
    Time,
}

pub(crate) struct Sink {
    nodes: RefCell<Vec<TmpNode>>,
    max_nodes: usize,
    /// When the parse must stop (checked by the tokenizer's emitter).
    pub(crate) deadline: Option<std::time::Instant>,
    /// Set when a budget ran out: the tokenizer's emitter then sends nothing more.
    pub(crate) stop: Cell<Option<Stop>>,
    /// An element to insert where the tree builder puts its next comment (see
    /// [`Sink::insert_flat`]).
    flat: RefCell<Option<(QualName, Vec<Attribute>)>>,
    quirks: Cell<QuirksMode>,
    /// Lent by `elem_name` for non-element handles, which html5ever never asks about.
    dummy_name: QualName,
    /// One shared name per distinct element name (a page has a few dozen).
    names: RefCell<rustc_hash::FxHashMap<QualName, Rc<QualName>>>,
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            nodes: RefCell::new(vec![TmpNode::new(TmpData::Document)]),
            flat: RefCell::new(None),
            max_nodes: usize::MAX,
            deadline: None,
            stop: Cell::new(None),
            quirks: Cell::new(QuirksMode::NoQuirks),
            dummy_name: QualName::new(None, ns!(html), local_name!("")),
            names: RefCell::default(),
        }
    }
}

impl Sink {
    /// A sink sized for `len` bytes of markup: pages have one node per 20–40 bytes, and
    /// growing the temporary tree by doubling copies it over and over. Capped (about 5 MB of
    /// nodes), so that a huge page of few nodes does not reserve room for millions.
    pub(crate) fn for_input(len: usize) -> Self {
        let sink = Sink::default();
        sink.nodes.borrow_mut().reserve((len / 24).min(1 << 16));
        sink
    }

    /// Make the next comment the tree builder creates this element instead: the tree builder
    /// puts a comment where the next node goes (the current node, or a foster parent), and
    /// never opens it, so an element that must not deepen the stack is inserted through a
    /// comment. Returns whether the element was inserted.
    pub(crate) fn insert_flat(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        send_comment: impl FnOnce(),
    ) -> bool {
        self.flat.replace(Some((name, attrs)));
        send_comment();
        self.flat.take().is_none()
    }

    /// The same sink, stopping at `budget`'s node and time limits (the clock started at
    /// `start`).
    pub(crate) fn with_budget(mut self, budget: &super::Budget, start: std::time::Instant) -> Self {
        self.max_nodes = budget.max_nodes;
        self.deadline = budget.deadline(start);
        self
    }

    /// The page's shared copy of `name`: a lookup instead of an allocation per element
    /// (cachegrind: 2.6 % fewer instructions to parse WCXB pages, 6 % on the adoption
    /// agency's clones).
    fn shared_name(&self, name: QualName) -> Rc<QualName> {
        self.names
            .borrow_mut()
            .entry(name)
            .or_insert_with_key(|n| Rc::new(n.clone()))
            .clone()
    }

    fn new_node(&self, data: TmpData) -> u32 {
        let mut nodes = self.nodes.borrow_mut();
        // The tree builder needs a handle either way; the emitter sends nothing more.
        if nodes.len() >= self.max_nodes {
            self.stop.set(Some(Stop::Nodes));
        }
        nodes.push(TmpNode::new(data));
        (nodes.len() - 1) as u32
    }

    fn detach(nodes: &mut [TmpNode], id: u32) {
        let (parent, prev, next) = {
            let n = &nodes[id as usize];
            (n.parent, n.prev, n.next)
        };
        if parent == NONE {
            return;
        }
        if prev != NONE {
            nodes[prev as usize].next = next;
        } else {
            nodes[parent as usize].first_child = next;
        }
        if next != NONE {
            nodes[next as usize].prev = prev;
        } else {
            nodes[parent as usize].last_child = prev;
        }
        let n = &mut nodes[id as usize];
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    fn append_child(nodes: &mut [TmpNode], parent: u32, child: u32) {
        Self::detach(nodes, child);
        let last = nodes[parent as usize].last_child;
        {
            let c = &mut nodes[child as usize];
            c.parent = parent;
            c.prev = last;
        }
        if last != NONE {
            nodes[last as usize].next = child;
        } else {
            nodes[parent as usize].first_child = child;
        }
        nodes[parent as usize].last_child = child;
    }

    fn insert_before(nodes: &mut [TmpNode], sibling: u32, child: u32) {
        Self::detach(nodes, child);
        let parent = nodes[sibling as usize].parent;
        if parent == NONE {
            return;
        }
        let prev = nodes[sibling as usize].prev;
        {
            let c = &mut nodes[child as usize];
            c.parent = parent;
            c.prev = prev;
            c.next = sibling;
        }
        nodes[sibling as usize].prev = child;
        if prev != NONE {
            nodes[prev as usize].next = child;
        } else {
            nodes[parent as usize].first_child = child;
        }
    }

    /// Append text to the text node at `id` if it is one.
    fn try_merge_text(nodes: &mut [TmpNode], id: u32, text: &StrTendril) -> bool {
        if id == NONE {
            return false;
        }
        if let TmpData::Text(t) = &mut nodes[id as usize].data {
            t.push_tendril(text);
            true
        } else {
            false
        }
    }
}

impl TreeSink for Sink {
    type Handle = Handle;
    type Output = Document;
    type ElemName<'a> = &'a QualName;

    fn finish(self) -> Document {
        build_document(self.nodes.into_inner())
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        Handle { id: 0, name: None }
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> &'a QualName {
        target.name.as_deref().unwrap_or(&self.dummy_name)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        let template_contents = if flags.template {
            self.new_node(TmpData::Fragment)
        } else {
            NONE
        };
        let name = self.shared_name(name);
        let id = self.new_node(TmpData::Element {
            name: name.clone(),
            attrs,
            template_contents,
        });
        Handle {
            id,
            name: Some(name),
        }
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        if let Some((name, attrs)) = self.flat.take() {
            let name = self.shared_name(name);
            let id = self.new_node(TmpData::Element {
                name: name.clone(),
                attrs,
                template_contents: NONE,
            });
            return Handle {
                id,
                name: Some(name),
            };
        }
        Handle {
            id: self.new_node(TmpData::Comment(text)),
            name: None,
        }
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        Handle {
            id: self.new_node(TmpData::Pi { target, data }),
            name: None,
        }
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        let mut nodes = self.nodes.borrow_mut();
        match child {
            NodeOrText::AppendNode(h) => Self::append_child(&mut nodes, parent.id, h.id),
            NodeOrText::AppendText(text) => {
                let last = nodes[parent.id as usize].last_child;
                if !Self::try_merge_text(&mut nodes, last, &text) {
                    nodes.push(TmpNode::new(TmpData::Text(text)));
                    let id = (nodes.len() - 1) as u32;
                    Self::append_child(&mut nodes, parent.id, id);
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let has_parent = self.nodes.borrow()[element.id as usize].parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        let id = self.new_node(TmpData::Doctype {
            name,
            public_id,
            system_id,
        });
        Self::append_child(&mut self.nodes.borrow_mut(), 0, id);
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        let nodes = self.nodes.borrow();
        let id = match &nodes[target.id as usize].data {
            TmpData::Element {
                template_contents, ..
            } if *template_contents != NONE => *template_contents,
            // Not a template: html5ever never asks, but answer with the node itself.
            _ => target.id,
        };
        Handle { id, name: None }
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x.id == y.id
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.quirks.set(mode);
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        let mut nodes = self.nodes.borrow_mut();
        match new_node {
            NodeOrText::AppendNode(h) => Self::insert_before(&mut nodes, sibling.id, h.id),
            NodeOrText::AppendText(text) => {
                let prev = nodes[sibling.id as usize].prev;
                if !Self::try_merge_text(&mut nodes, prev, &text) {
                    nodes.push(TmpNode::new(TmpData::Text(text)));
                    let id = (nodes.len() - 1) as u32;
                    Self::insert_before(&mut nodes, sibling.id, id);
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        if let TmpData::Element {
            attrs: existing, ..
        } = &mut nodes[target.id as usize].data
        {
            for a in attrs {
                if !existing.iter().any(|e| e.name == a.name) {
                    existing.push(a);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &Handle) {
        Self::detach(&mut self.nodes.borrow_mut(), target.id);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let mut nodes = self.nodes.borrow_mut();
        let mut child = nodes[node.id as usize].first_child;
        while child != NONE {
            let next = nodes[child as usize].next;
            Self::append_child(&mut nodes, new_parent.id, child);
            child = next;
        }
    }
}

/// Renumber the temporary tree in document order.
fn build_document(mut tmp: Vec<TmpNode>) -> Document {
    let mut nodes: Vec<Node> = Vec::with_capacity(tmp.len());
    // All text goes into one buffer: sized once, not grown by doubling.
    let text_len = tmp
        .iter()
        .map(|n| match &n.data {
            TmpData::Text(t) | TmpData::Comment(t) => t.len(),
            _ => 0,
        })
        .sum();
    let mut text = String::with_capacity(text_len);
    // (temporary id, new parent id, depth)
    let mut stack: Vec<(u32, u32, u32)> = vec![(0, NONE, 0)];
    let mut children: Vec<u32> = Vec::new();
    while let Some((tid, parent, depth)) = stack.pop() {
        let new_id = nodes.len() as u32;
        let data = match std::mem::replace(&mut tmp[tid as usize].data, TmpData::Fragment) {
            TmpData::Document => NodeData::Document,
            TmpData::Doctype {
                name,
                public_id,
                system_id,
            } => NodeData::Doctype {
                name: name.as_ref().into(),
                public_id: public_id.as_ref().into(),
                system_id: system_id.as_ref().into(),
            },
            TmpData::Element {
                name,
                attrs,
                template_contents,
            } => {
                if template_contents != NONE {
                    // Template contents are rendered as the template's children.
                    let mut c = tmp[template_contents as usize].first_child;
                    while c != NONE {
                        let next = tmp[c as usize].next;
                        Sink::append_child(&mut tmp, tid, c);
                        c = next;
                    }
                }
                NodeData::Element(Element {
                    name: Rc::try_unwrap(name).unwrap_or_else(|rc| (*rc).clone()),
                    attrs: attrs
                        .into_iter()
                        .map(|a| Attr {
                            name: a.name,
                            value: a.value.as_ref().into(),
                        })
                        .collect(),
                })
            }
            TmpData::Text(t) => {
                let start = text.len();
                text.push_str(&t);
                NodeData::Text(start..text.len())
            }
            TmpData::Comment(t) => {
                let start = text.len();
                text.push_str(&t);
                NodeData::Comment(start..text.len())
            }
            TmpData::Pi { target, data } => NodeData::ProcessingInstruction {
                target: target.as_ref().into(),
                data: data.as_ref().into(),
            },
            TmpData::Fragment => continue,
        };
        nodes.push(Node {
            parent: (parent != NONE).then_some(NodeId(parent)),
            end: NodeId(new_id + 1),
            depth,
            data,
        });
        children.clear();
        let mut c = tmp[tid as usize].last_child;
        while c != NONE {
            children.push(c);
            c = tmp[c as usize].prev;
        }
        // Pushed last-first so that the first child pops first.
        stack.extend(children.iter().map(|&c| (c, new_id, depth + 1)));
    }
    // Children have larger ids than their parent: a reverse scan propagates subtree ends.
    for i in (1..nodes.len()).rev() {
        if let Some(p) = nodes[i].parent {
            let end = nodes[i].end;
            let pe = &mut nodes[p.index()].end;
            if end > *pe {
                *pe = end;
            }
        }
    }
    Document {
        nodes,
        text,
        encoding: encoding_rs::UTF_8,
        encoding_source: EncodingSource::Detected,
        noscript_shown: false,
        json_ld: Vec::new(),
    }
}
