//! What frames a thread's posts, beside the repeated lines [`super::lines`] drops: the
//! posters' cards. Only for pages that declare a discussion.

use markup5ever::local_name;
use rustc_hash::FxHashMap;

use super::config::Content;
use crate::dom::{Document, NodeId, deadline};

/// Words up to which a term or a value of a `<dl>` can be a poster card's ("Joined", "Posts:
/// 710", "Kent (South East, UK)").
const CARD_WORDS: usize = 5;

/// Times a card's shape must recur: once per post, and a thread shows several.
const CARD_REPEATS: usize = 3;

/// Drops from `content` the posters' cards that forums build as description lists: a
/// `<dl>` whose terms and values are all short (up to [`CARD_WORDS`] words) and whose shape
/// — its class and its terms' texts, in order — recurs in [`CARD_REPEATS`] or more `<dl>`s
/// of the content. XenForo, FluxBB and phpBB frame every post with one ("Joined", "Messages",
/// "Location" and their values, often under icon-only terms); the repeated-lines rule drops
/// the terms, which recur word for word, but not the values, which vary (a count, a date, a
/// town). A `<dl>` inside code stays, and so does one whose shape stands alone (a post's own
/// glossary).
pub(crate) fn drop_user_cards(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    let is_dl = |id: NodeId| {
        doc.element(id)
            .is_some_and(|e| e.is(&local_name!("dl")) && content.is_content(id))
    };
    // Most threads show none: nothing more is looked at on them.
    if !doc.subtree(root).map(NodeId).any(is_dl) {
        return;
    }
    // Inside code, or inside another `<dl>` (whose card it would be part of): the `<dl>`s
    // looked at hold disjoint subtrees, so the walk stays linear on a deep page.
    let mut inside = vec![false; doc.len()];
    let mut cards: Vec<(NodeId, String)> = Vec::new();
    for id in doc.subtree(root).map(NodeId) {
        if deadline::due(id.index()) {
            return;
        }
        let above = doc.parent(id).is_some_and(|p| inside[p.index()]);
        let tag = doc.tag(id);
        inside[id.index()] = above
            || tag.is_some_and(|t| {
                matches!(
                    *t,
                    local_name!("pre")
                        | local_name!("code")
                        | local_name!("samp")
                        | local_name!("dl")
                )
            });
        if !above
            && is_dl(id)
            && let Some(shape) = card_shape(doc, id)
        {
            cards.push((id, shape));
        }
    }
    let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
    for (_, shape) in &cards {
        *counts.entry(shape.as_str()).or_default() += 1;
    }
    for (id, shape) in &cards {
        if counts
            .get(shape.as_str())
            .is_some_and(|&n| n >= CARD_REPEATS)
        {
            for d in doc.subtree(*id) {
                if let Some(k) = content.keep.get_mut(d as usize) {
                    *k = false;
                }
            }
        }
    }
}

/// A `<dl>`'s shape if it can be a poster's card: its class and its terms' texts, in order;
/// `None` unless it has a value and every term and value is short. Terms and values are its
/// children, or its `<div>` children's (HTML lets a `<div>` group a term with its value).
fn card_shape(doc: &Document, dl: NodeId) -> Option<String> {
    let mut shape = doc
        .element(dl)
        .and_then(|e| e.attr("class"))
        .unwrap_or("")
        .split_ascii_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut values = 0;
    let items = doc.children(dl).flat_map(|c| {
        let group = doc.element(c).is_some_and(|e| e.is(&local_name!("div")));
        let (own, grouped) = if group {
            (None, Some(c))
        } else {
            (Some(c), None)
        };
        own.into_iter()
            .chain(grouped.into_iter().flat_map(|g| doc.children(g)))
    });
    for item in items {
        let term = match doc.tag(item) {
            Some(t) if *t == local_name!("dt") => true,
            Some(t) if *t == local_name!("dd") => false,
            _ => continue,
        };
        let words: usize = doc
            .subtree(item)
            .map(|d| super::blocks::node_words(doc, NodeId(d)))
            .sum();
        if words > CARD_WORDS {
            return None;
        }
        if term {
            shape.push('\u{1f}');
            for t in doc.subtree(item).filter_map(|d| doc.text(NodeId(d))) {
                for w in t.split_whitespace() {
                    shape.push(' ');
                    shape.push_str(w);
                }
            }
        } else {
            values += 1;
        }
    }
    (values > 0).then_some(shape)
}
