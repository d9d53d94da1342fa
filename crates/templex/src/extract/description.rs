//! A product's declared description, shown where the views left it out.
//!
//! A shop states its product's description in the page's JSON-LD
//! ([`product_description`](super::declared::product_description)), and shows it in a part
//! the views leave out: a slide-in sheet built as a dialog inside an `<aside>` (gymshark), a
//! "product details" box named like a modal (IKEA). The page's own word on what its content
//! is outranks what its markup suggests.

use markup5ever::local_name;
use rustc_hash::FxHashSet;

use super::config::Content;
use super::verdicts::is_control;
use crate::dom::{Document, NodeData, NodeId, deadline};

/// Words from which a declared description is the product's text, not a tagline.
pub(crate) const DESCRIPTION_WORDS: usize = 20;

/// Share of the description's words an element holds to be where the page shows it.
const SHOWN_SHARE: f64 = 0.8;

/// Times the description's words up to which the part around it is its box (the
/// description with its details, measurements and care), not a column of the page.
const BOX_TIMES: usize = 4;

/// `content` with the part of the page that shows the product's declared `description`,
/// when the views left it out: the smallest element holding [`SHOWN_SHARE`] of the
/// description's words in text that is mostly the description's, grown to the outermost
/// element around it that holds no kept text, no form field and at most [`BOX_TIMES`] the
/// description's words. Its controls (a close button) stay out; the content's root grows to
/// hold it. Nothing changes when the content already shows the description, or when no
/// part of the page shows it.
pub(crate) fn show_declared_description(doc: &Document, content: &mut Content, description: &str) {
    let (Some(root), Some(body)) = (content.root, doc.body()) else {
        return;
    };
    let wanted: Vec<String> = tokens(description).collect();
    let n = wanted.len();
    if n < DESCRIPTION_WORDS {
        return;
    }
    let wanted: FxHashSet<&str> = wanted.iter().map(String::as_str).collect();
    let len = doc.len();
    let mut visible = vec![false; len];
    for id in doc.visible(body) {
        visible[id.index()] = true;
    }
    // Summed children first: words, words of text that is mostly the description's, the
    // same kept, and form fields.
    let mut words = vec![0usize; len];
    let mut matched = vec![0usize; len];
    let mut kept_matched = vec![0usize; len];
    let mut kept = vec![0usize; len];
    let mut fields = vec![false; len];
    for id in doc.subtree(body).rev().map(NodeId) {
        if deadline::due(id.index()) {
            return;
        }
        let i = id.index();
        if !visible[i] {
            continue;
        }
        match &doc.node(id).data {
            NodeData::Text(r) => {
                let text = &doc.text_buffer()[r.clone()];
                let (w, m) = tokens(text).fold((0, 0), |(w, m), t| {
                    (w + 1, m + usize::from(wanted.contains(t.as_str())))
                });
                words[i] = w;
                matched[i] = if 2 * m >= w { m } else { 0 };
                if content.keep[i] {
                    kept[i] = w;
                    kept_matched[i] = matched[i];
                }
            }
            NodeData::Element(e) => {
                fields[i] |= matches!(
                    e.name.local,
                    local_name!("input") | local_name!("select") | local_name!("textarea")
                );
            }
            _ => {}
        }
        if id == body {
            break;
        }
        if let Some(p) = doc.parent(id) {
            let p = p.index();
            words[p] += words[i];
            matched[p] += matched[i];
            kept_matched[p] += kept_matched[i];
            kept[p] += kept[i];
            fields[p] |= fields[i];
        }
    }
    let shows = |id: NodeId| matched[id.index()] as f64 >= SHOWN_SHARE * n as f64;
    // The smallest elements that show it; the content shows it when it keeps one of them.
    let smallest: Vec<NodeId> = doc
        .subtree(body)
        .map(NodeId)
        .filter(|&id| {
            doc.element(id).is_some() && shows(id) && !doc.element_children(id).any(shows)
        })
        .collect();
    if smallest
        .iter()
        .any(|id| 2 * kept_matched[id.index()] >= matched[id.index()])
    {
        return;
    }
    let Some(&shown) = smallest
        .iter()
        .find(|id| words[id.index()] <= BOX_TIMES * n && !fields[id.index()])
    else {
        return;
    };
    let mut part = shown;
    while let Some(p) = doc.parent(part).filter(|&p| {
        p != body && kept[p.index()] == 0 && !fields[p.index()] && words[p.index()] <= BOX_TIMES * n
    }) {
        part = p;
    }
    tracing::debug!(part = %doc.dom_path(part), words = words[part.index()], "declared description shown");
    let mut ids = doc.subtree(part);
    while let Some(d) = ids.next().map(NodeId) {
        // A control inside (a close button), unless it holds the description (the sheet
        // is a dialog).
        if d != part && is_control(doc, d) && !doc.contains(d, shown) {
            ids = doc.subtree(d).end..ids.end;
            continue;
        }
        content.keep[d.index()] = true;
    }
    // The root grows to hold the part; the elements between them open the way to it.
    let mut top = root;
    while !doc.contains(top, part) {
        match doc.parent(top) {
            Some(p) => top = p,
            None => return,
        }
    }
    let mut up = doc.parent(part);
    while let Some(a) = up.filter(|a| doc.contains(top, *a)) {
        content.keep[a.index()] = true;
        up = doc.parent(a);
    }
    content.root = Some(top);
}

/// The lower-cased words of `text`: runs of letters and digits.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
}
