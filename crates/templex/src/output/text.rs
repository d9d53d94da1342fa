//! Plain text of a page (or of the part a filter keeps), with line breaks where blocks end.

use crate::dom::tags::{is_block, is_unrendered};
use crate::dom::{Document, NodeData, NodeId, deadline};

/// What [`visible_text`] includes.
#[derive(Debug, Clone, Copy)]
pub struct TextOptions {
    /// Start at `<body>` (else the whole document).
    pub body_only: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions { body_only: true }
    }
}

/// The visible text of the text nodes `keep` accepts, whitespace-collapsed within lines,
/// one line per block.
pub fn visible_text(doc: &Document, opts: TextOptions, keep: &dyn Fn(NodeId) -> bool) -> String {
    let root = if opts.body_only {
        doc.body().unwrap_or(NodeId::ROOT)
    } else {
        NodeId::ROOT
    };
    let mut out = String::new();
    let mut line = String::new();
    let flush = |line: &mut String, out: &mut String| {
        let t = crate::dom::collapse_whitespace(line);
        if !t.is_empty() {
            out.push_str(&t);
            out.push('\n');
        }
        line.clear();
    };
    // Block ends are recorded as pending ids: when the walk passes a block's subtree end,
    // the line is flushed.
    let mut open_blocks: Vec<u32> = Vec::new();
    for id in doc.visible(root).hiding(is_unrendered) {
        if deadline::due(id.index()) {
            break;
        }
        while open_blocks.last().is_some_and(|&end| end <= id.0) {
            open_blocks.pop();
            flush(&mut line, &mut out);
        }
        match &doc.node(id).data {
            NodeData::Element(e) if is_block(&e.name.local) => {
                flush(&mut line, &mut out);
                open_blocks.push(doc.node(id).end.0);
            }
            NodeData::Text(r) if keep(id) => line.push_str(&doc.text_buffer()[r.clone()]),
            _ => {}
        }
    }
    flush(&mut line, &mut out);
    while out.ends_with('\n') {
        out.pop();
    }
    out
}
