//! Rendering the kept nodes of a page as text, Markdown or HTML.

use markup5ever::local_name;

use crate::dom::tags::{heading_level, is_block};
use crate::dom::{
    Document, NodeData, NodeId, SerializeHook, collapse_whitespace, is_invisible_format,
};

/// Plain text of the kept nodes: one line per block, whitespace collapsed within lines.
pub fn content_text(doc: &Document, root: NodeId, keep: &dyn Fn(NodeId) -> bool) -> String {
    let mut out = String::new();
    let mut line = String::new();
    walk(doc, root, keep, &mut |ev| match ev {
        Event::Text(t) => push_shown(&mut line, t),
        Event::Break | Event::Open(..) | Event::Close(..) => {
            let t = collapse_whitespace(&line);
            if !t.is_empty() {
                out.push_str(&t);
                out.push('\n');
            }
            line.clear();
        }
    });
    let t = collapse_whitespace(&line);
    if !t.is_empty() {
        out.push_str(&t);
    }
    while out.ends_with('\n') {
        out.pop();
    }
    nfc(out)
}

/// `text` in Unicode's composed form (NFC): pages write the same letter composed or
/// decomposed (Bengali, Vietnamese, a Mac's accents), and readers, indexes and
/// deduplication compare the composed one.
fn nfc(text: String) -> String {
    match icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(composed) => composed,
    }
}

/// Append `t` without its [invisible formatting](is_invisible_format).
fn push_shown(out: &mut String, t: &str) {
    if t.contains(is_invisible_format) {
        out.extend(t.chars().filter(|c| !is_invisible_format(*c)));
    } else {
        out.push_str(t);
    }
}

enum Event<'a> {
    Text(&'a str),
    /// A block boundary (block element opening or closing, `<br>`).
    Break,
    /// A block element opens: its id.
    Open(NodeId),
    /// A block element closes.
    Close(NodeId),
}

/// Walk the kept part of `root`'s subtree in document order, iteratively.
fn walk<'d>(
    doc: &'d Document,
    root: NodeId,
    keep: &dyn Fn(NodeId) -> bool,
    f: &mut dyn FnMut(Event<'d>),
) {
    let mut open: Vec<(NodeId, u32)> = Vec::new();
    let mut nodes = doc.visible(root);
    while let Some(id) = nodes.next() {
        while open.last().is_some_and(|&(_, end)| end <= id.0) {
            if let Some((id, _)) = open.pop() {
                f(Event::Close(id));
            }
        }
        if !keep(id) {
            nodes.skip_subtree(id);
            continue;
        }
        match &doc.node(id).data {
            NodeData::Element(e) => {
                if e.is(&local_name!("br")) {
                    f(Event::Break);
                } else if is_block(&e.name.local) {
                    f(Event::Open(id));
                    open.push((id, doc.node(id).end.0));
                }
            }
            NodeData::Text(r) => f(Event::Text(&doc.text_buffer()[r.clone()])),
            _ => {}
        }
    }
    while let Some((id, _)) = open.pop() {
        f(Event::Close(id));
    }
}

/// Markdown of the kept nodes: headings, lists, block quotes, code blocks and tables keep
/// their structure.
pub(crate) fn content_markdown(
    doc: &Document,
    root: NodeId,
    keep: &dyn Fn(NodeId) -> bool,
) -> String {
    let mut out = String::new();
    let mut line = String::new();
    let mut prefix = String::new();
    let mut in_pre = 0usize;
    let mut row: Vec<String> = Vec::new();
    let mut rows_done = 0usize;
    let tag = |id: NodeId| doc.tag(id).map(|t| t.to_string()).unwrap_or_default();
    let flush = |line: &mut String, prefix: &str, out: &mut String| {
        let t = collapse_whitespace(line);
        if !t.is_empty() {
            out.push_str(prefix);
            out.push_str(&t);
            out.push_str("\n\n");
        }
        line.clear();
    };
    walk(doc, root, keep, &mut |ev| match ev {
        Event::Text(t) => {
            if in_pre > 0 {
                push_shown(&mut out, t);
            } else {
                push_shown(&mut line, t);
            }
        }
        Event::Break => {
            if in_pre == 0 {
                flush(&mut line, &prefix, &mut out);
            }
        }
        Event::Open(id) => {
            let t = tag(id);
            if in_pre == 0 && !matches!(t.as_str(), "td" | "th") {
                flush(&mut line, &prefix, &mut out);
            }
            if let Some(level) = doc.tag(id).and_then(heading_level) {
                prefix = format!("{} ", "#".repeat(usize::from(level)));
            }
            match t.as_str() {
                "li" => {
                    let ordered = doc
                        .parent(id)
                        .and_then(|p| doc.tag(p))
                        .is_some_and(|p| &**p == "ol");
                    prefix = if ordered { "1. ".into() } else { "- ".into() };
                }
                "blockquote" => prefix = "> ".into(),
                "pre" => {
                    in_pre += 1;
                    out.push_str("```\n");
                }
                "td" | "th" => line.clear(),
                "table" => rows_done = 0,
                _ => {}
            }
        }
        Event::Close(id) => {
            let t = tag(id);
            match t.as_str() {
                "pre" => {
                    in_pre = in_pre.saturating_sub(1);
                    if !out.ends_with('\n') {
                        out.push('\n');
                    }
                    out.push_str("```\n\n");
                }
                "td" | "th" => {
                    row.push(collapse_whitespace(&line).replace('|', "\\|"));
                    line.clear();
                }
                "tr" => {
                    if !row.is_empty() {
                        out.push_str("| ");
                        out.push_str(&row.join(" | "));
                        out.push_str(" |\n");
                        if rows_done == 0 {
                            out.push('|');
                            out.push_str(&" --- |".repeat(row.len()));
                            out.push('\n');
                        }
                        rows_done += 1;
                        row.clear();
                    }
                }
                "table" => out.push('\n'),
                _ => {
                    if in_pre == 0 {
                        flush(&mut line, &prefix, &mut out);
                        prefix.clear();
                    }
                }
            }
        }
    });
    flush(&mut line, &prefix, &mut out);
    out.truncate(out.trim_end().len());
    nfc(out)
}

struct KeepOnly<'a> {
    keep: &'a dyn Fn(NodeId) -> bool,
}

impl SerializeHook for KeepOnly<'_> {
    fn keep(&self, _doc: &Document, id: NodeId) -> bool {
        (self.keep)(id)
    }
}

/// HTML of the kept nodes under `root` (the container element included).
pub(crate) fn content_html(doc: &Document, root: NodeId, keep: &dyn Fn(NodeId) -> bool) -> String {
    let mut out = String::new();
    doc.write_html(root, &KeepOnly { keep }, &mut out);
    out
}
