//! Plain text of a page (or of the part a filter keeps), with line breaks where blocks end.

use markup5ever::local_name;

use crate::dom::{Document, LocalName, NodeData, NodeId};

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

fn is_hidden(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("head")
            | local_name!("iframe")
            | local_name!("object")
            | local_name!("svg")
    )
}

/// Block-level tags: their boundaries become line breaks.
pub fn is_block(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("br")
            | local_name!("dd")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("dt")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("form")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("header")
            | local_name!("hr")
            | local_name!("li")
            | local_name!("main")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("p")
            | local_name!("pre")
            | local_name!("section")
            | local_name!("summary")
            | local_name!("table")
            | local_name!("td")
            | local_name!("th")
            | local_name!("tr")
            | local_name!("ul")
            | local_name!("caption")
            | local_name!("tbody")
            | local_name!("thead")
            | local_name!("tfoot")
    )
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
    let range = doc.subtree(root);
    let mut i = range.start;
    while i < range.end {
        while open_blocks.last().is_some_and(|&end| end <= i) {
            open_blocks.pop();
            flush(&mut line, &mut out);
        }
        let id = NodeId(i);
        match &doc.node(id).data {
            NodeData::Element(e) => {
                if is_hidden(&e.name.local) {
                    i = doc.node(id).end.0;
                    continue;
                }
                if is_block(&e.name.local) {
                    flush(&mut line, &mut out);
                    open_blocks.push(doc.node(id).end.0);
                }
            }
            NodeData::Text(r) if keep(id) => line.push_str(&doc.text_buffer()[r.clone()]),
            _ => {}
        }
        i += 1;
    }
    flush(&mut line, &mut out);
    while out.ends_with('\n') {
        out.pop();
    }
    out
}
