//! Applying: how chunk verdicts become a node mask.

use serde::{Deserialize, Serialize};

#[cfg(any(test, feature = "batch"))]
use super::chunking::Chunk;
use super::chunking::MaskChunk;
use super::text::has_visible_text;
use crate::dom::{Document, NodeId};

/// How chunk verdicts become a node mask, beyond "an element is template when all its
/// chunks are". Stored in the model, so that a stored template is applied as it was
/// measured. All rules are on by default; off, they give the plain rule (BENCHMARKS.md
/// measures each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaskRules {
    /// Chunks without a letter (line numbers, dates, prices, pagination "1 2 3 »",
    /// separators "|", "© 2024") are no evidence either way: they recur inside content as
    /// much as in the template (every code listing of a site numbers its lines "1.", "2.",
    /// …), so their nodes follow their surroundings like text-less nodes.
    pub letterless_neutral: bool,
    /// Layout wrappers are template: an element without text of its own that holds content
    /// and at least one template child (`div#page` around header, menu, columns and footer;
    /// a columns row around the sidebar and the main column). The gold standard and the
    /// mapping methods call such wrappers template; the plain rule cannot, since they also
    /// hold content. The same rule as PAGELEVEL's default ([`crate::pagelevel::Wrappers`]).
    pub wrappers: bool,
    /// A chunk made of image text only (ALT text, file names, no text nodes) is evidence
    /// when it is template, and neutral when it is not. Image-only navigation bars (the
    /// paper's case) are found, while images that change from page to page inside the
    /// template — rotating sponsor logos, banners, ads, random header photos — no longer
    /// make their template block content; an image inside content is surrounded by
    /// content text anyway.
    pub image_chunks_template_only: bool,
}

impl Default for MaskRules {
    fn default() -> Self {
        MaskRules {
            letterless_neutral: true,
            wrappers: true,
            image_chunks_template_only: true,
        }
    }
}

/// The template share of classified chunks (see
/// [`TableChunkModel::template_share`](super::TableChunkModel::template_share)).
#[cfg(any(test, feature = "batch"))]
pub(crate) fn template_share(chunks: &[(Chunk, bool)]) -> f64 {
    let (mut tpl, mut all) = (0usize, 0usize);
    for (c, t) in chunks {
        let n = c.text.chars().count();
        all += n;
        if *t {
            tpl += n;
        }
    }
    if all == 0 {
        0.0
    } else {
        tpl as f64 / all as f64
    }
}

/// The node mask of a page's chunks under `rules`, `verdicts[i]` saying whether chunk i is
/// template and `nodes` holding their node ranges (see
/// [`TableChunkModel::template_mask`](super::TableChunkModel::template_mask)).
pub(crate) fn chunk_mask(
    doc: &Document,
    chunks: &[MaskChunk],
    verdicts: &[bool],
    nodes: &[NodeId],
    rules: &MaskRules,
) -> Vec<bool> {
    let n = doc.len();
    if !verdicts.iter().any(|t| *t) {
        // No template chunk, no evidence: not even the scripts under <body> are template
        // (a page of another template, a model learned from too few pages).
        return vec![false; n];
    }
    // Per node: holds evidence (chunk text), and all of it template (bottom-up).
    let mut has_chunk = vec![false; n];
    let mut all_template = vec![true; n];
    for (c, t) in chunks.iter().zip(verdicts) {
        let c_nodes = nodes.get(c.nodes.clone()).unwrap_or_default();
        if rules.letterless_neutral && !c.letter {
            continue;
        }
        if rules.image_chunks_template_only && !*t && c_nodes.iter().all(|n| doc.text(*n).is_none())
        {
            continue;
        }
        for id in c_nodes {
            if let Some(i) = has_chunk.get_mut(id.index()) {
                *i = true;
                all_template[id.index()] &= *t;
            }
        }
    }
    let root = doc.body().unwrap_or(NodeId::ROOT);
    let scope = doc.subtree(root);
    for i in scope.clone().rev() {
        let id = NodeId(i);
        if id == root {
            break;
        }
        if let Some(p) = doc.parent(id) {
            has_chunk[p.index()] |= has_chunk[id.index()];
            all_template[p.index()] &= all_template[id.index()];
        }
    }
    let inner = scope.start + 1..scope.end;
    let mut template = vec![false; n];
    for i in inner.clone() {
        template[i as usize] = has_chunk[i as usize] && all_template[i as usize];
    }
    if rules.wrappers {
        // Children before parents, so that nested wrappers follow their template child.
        for i in inner.clone().rev() {
            let id = NodeId(i);
            if template[i as usize] || !has_chunk[i as usize] || doc.element(id).is_none() {
                continue;
            }
            let own_text = doc
                .children(id)
                .any(|c| doc.text(c).is_some_and(has_visible_text));
            if !own_text
                && doc
                    .element_children(id)
                    .any(|c| has_chunk[c.index()] && template[c.index()])
            {
                template[i as usize] = true;
            }
        }
    }
    // Parents before children: nodes without evidence follow their parent; under the
    // body they are layout (scripts, spacers, empty shells outside every content block).
    for i in inner {
        let id = NodeId(i);
        if !has_chunk[i as usize] {
            template[i as usize] = doc
                .parent(id)
                .is_none_or(|p| p == root || template[p.index()]);
        }
    }
    if let Some(html) = doc.html() {
        template[html.index()] = false;
    }
    template
}

// CSS selectors come with the `eval` feature.
#[cfg(all(test, feature = "eval"))]
mod tests {
    use super::*;
    use crate::dom::parse_str;
    use crate::template::tablechunk::{TableChunkConfig, learn};

    #[test]
    fn textless_elements_follow_their_parent() {
        let pages: Vec<Document> = (0..3)
            .map(|i| {
                parse_str(&format!(
                    "<body><script>x</script><div id=nav><a href=/>Home</a><span class=sep></span><br></div>\
                     <div id=main><p>Post {i}</p><img src=spacer.gif><div class=clear></div></div></body>"
                ))
            })
            .collect();
        let m = learn(&pages, &TableChunkConfig::default());
        let doc = &pages[1];
        let mask = m.template_mask(doc);
        let find = |css: &str| crate::dom::select(doc, css).unwrap()[0];
        for tpl in ["script", "#nav", "#nav a", ".sep", "#nav br"] {
            assert!(mask[find(tpl).index()], "{tpl}");
        }
        for content in ["#main", "#main p", "#main img", ".clear"] {
            assert!(!mask[find(content).index()], "{content}");
        }
        assert!(!mask[doc.body().unwrap().index()]);
        assert!(!mask[doc.html().unwrap().index()]);
        assert!((m.template_share(doc) - 4.0 / 10.0).abs() < 1e-9);
    }
}
