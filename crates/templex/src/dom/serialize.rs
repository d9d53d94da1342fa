//! HTML serialization of the arena DOM, following the WHATWG "serializing HTML fragments"
//! algorithm, iteratively.
//!
//! A [`SerializeHook`] lets outputs drop subtrees or rewrite attributes on the way out
//! (annotated pages, reusable templates) without copying the tree.

use std::borrow::Cow;

use markup5ever::{local_name, ns};

use super::deadline;
use super::tags::{is_raw_text, is_void};
use super::tree::{Attr, Document, NodeData, NodeId};

/// Customizes serialization: which nodes are written and with which attributes.
pub trait SerializeHook {
    /// Whether to write `id` and its subtree.
    fn keep(&self, _doc: &Document, _id: NodeId) -> bool {
        true
    }

    /// The attributes to write for element `id`.
    fn attrs<'a>(&self, _doc: &'a Document, _id: NodeId, attrs: &'a [Attr]) -> Cow<'a, [Attr]> {
        Cow::Borrowed(attrs)
    }
}

/// The hook that changes nothing.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Verbatim;

impl SerializeHook for Verbatim {}

impl Document {
    /// Serialize the whole document.
    pub fn to_html(&self) -> String {
        let mut out = String::with_capacity(self.text.len() * 2);
        self.write_html(NodeId::ROOT, &Verbatim, &mut out);
        out
    }

    /// Serialize `root` (itself included unless it is the document node) through `hook`.
    pub fn write_html(&self, root: NodeId, hook: &dyn SerializeHook, out: &mut String) {
        let mut open: Vec<NodeId> = Vec::new();
        let range = self.subtree(root);
        let mut i = range.start;
        while i < range.end {
            let id = NodeId(i);
            while let Some(&top) = open.last() {
                if self.node(top).end > id {
                    break;
                }
                self.close_tag(top, out);
                open.pop();
            }
            if !hook.keep(self, id) {
                i = self.node(id).end.0;
                continue;
            }
            match &self.node(id).data {
                NodeData::Document => {}
                NodeData::Doctype(d) => {
                    out.push_str("<!DOCTYPE ");
                    out.push_str(&d.name);
                    out.push('>');
                }
                NodeData::Element(e) => {
                    out.push('<');
                    out.push_str(&e.name.local);
                    for a in hook.attrs(self, id, &e.attrs).iter() {
                        out.push(' ');
                        push_attr_name(a, out);
                        out.push_str("=\"");
                        escape(&a.value, true, out);
                        out.push('"');
                    }
                    out.push('>');
                    let html = e.name.ns == ns!(html);
                    if html && is_void(&e.name.local) {
                        // Void elements never have children from the parser; skip any.
                        i = self.node(id).end.0;
                        continue;
                    }
                    if html
                        && matches!(
                            e.name.local,
                            local_name!("pre") | local_name!("textarea") | local_name!("listing")
                        )
                        && self
                            .children(id)
                            .next()
                            .and_then(|c| self.text(c))
                            .is_some_and(|t| t.starts_with('\n'))
                    {
                        // The parser drops one leading newline; keep the real one.
                        out.push('\n');
                    }
                    open.push(id);
                }
                NodeData::Text(r) => {
                    let t = &self.text[r.clone()];
                    let raw = self
                        .parent(id)
                        .and_then(|p| self.element(p))
                        .is_some_and(|p| {
                            p.name.ns == ns!(html)
                                && is_raw_text(&p.name.local)
                                && !(self.noscript_shown && p.name.local == local_name!("noscript"))
                        });
                    if raw {
                        out.push_str(t);
                    } else {
                        escape(t, false, out);
                    }
                }
                NodeData::Comment(r) => {
                    out.push_str("<!--");
                    out.push_str(&self.text[r.clone()]);
                    out.push_str("-->");
                }
                NodeData::ProcessingInstruction(pi) => {
                    out.push_str("<?");
                    out.push_str(&pi.target);
                    out.push(' ');
                    out.push_str(&pi.data);
                    out.push('>');
                }
            }
            i += 1;
        }
        while let Some(top) = open.pop() {
            self.close_tag(top, out);
        }
    }

    fn close_tag(&self, id: NodeId, out: &mut String) {
        if let Some(e) = self.element(id) {
            out.push_str("</");
            out.push_str(&e.name.local);
            out.push('>');
        }
    }
}

fn push_attr_name(a: &Attr, out: &mut String) {
    let prefix = match a.name.ns {
        ns!() => "",
        ns!(xml) => "xml:",
        ns!(xmlns) if &*a.name.local != "xmlns" => "xmlns:",
        ns!(xlink) => "xlink:",
        _ => a.name.prefix.as_deref().map_or("", |_| ""),
    };
    out.push_str(prefix);
    out.push_str(&a.name.local);
}

fn escape(s: &str, attr: bool, out: &mut String) {
    let mut last = 0;
    for (i, c) in s.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '\u{a0}' => "&nbsp;",
            '"' if attr => "&quot;",
            '<' if !attr => "&lt;",
            '>' if !attr => "&gt;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + c.len_utf8();
    }
    out.push_str(&s[last..]);
}

/// Approximate serialized HTML length of every node's subtree (tags, attributes, text,
/// comments), computed bottom-up in one pass: the measure of the 85 % rule.
pub(crate) fn html_lengths(doc: &Document) -> Vec<u64> {
    let mut len = vec![0u64; doc.len()];
    for id in doc.ids().rev() {
        if deadline::due(id.index()) {
            break;
        }
        let own = match &doc.node(id).data {
            NodeData::Element(e) => {
                let tag = e.name.local.len() as u64;
                let attrs: u64 = e
                    .attrs
                    .iter()
                    .map(|a| 4 + a.name.local.len() as u64 + a.value.len() as u64)
                    .sum();
                let end = if is_void(&e.name.local) { 0 } else { 3 + tag };
                2 + tag + attrs + end
            }
            NodeData::Text(r) => (r.end - r.start) as u64,
            NodeData::Comment(r) => 7 + (r.end - r.start) as u64,
            _ => 0,
        };
        len[id.index()] += own;
        if let Some(p) = doc.parent(id) {
            len[p.index()] += len[id.index()];
        }
    }
    len
}
