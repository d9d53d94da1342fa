//! The labels of a page's controls: what a reader clicks, not what they read. A grid's
//! cards each carry "Quick view" and "Add to cart"; a thread's posts "Click to expand…",
//! "Share" and "#1". `<button>`s are left out wherever the content is found
//! ([`is_control`](super::verdicts::is_control)); links and spans that scripts make into
//! buttons are not, and their labels stay in the content until this pass.

use markup5ever::local_name;
use rustc_hash::FxHashMap;

use super::config::Content;
use crate::dom::{Document, NodeId, deadline};

/// Words up to which a control's text is a label ("Quick view", "View options", "Add to
/// cart").
const LABEL_WORDS: usize = 6;

/// Times a label must recur among the content's controls for it to leave any page: once
/// per card of a grid, and a grid shows several. A control that stands alone ("Read the
/// report") may be the page's own call to act.
const LABEL_REPEATS: usize = 5;

/// Words up to which a control's label leaves a thread however often it appears: posts
/// carry their own ("Click to expand…", "Share", "#1", "1 reply"), and a thread's text is
/// its posts' prose.
const THREAD_LABEL_WORDS: usize = 4;

/// Drops from `content` the labels of controls ([`acts_as_button`]) of up to
/// [`LABEL_WORDS`] words that recur [`LABEL_REPEATS`] times or more (the same words, any
/// case), and on a thread (`thread`) every such label of up to [`THREAD_LABEL_WORDS`]
/// words. Only kept, visible text counts, and only the outermost control of a nest.
pub(crate) fn drop_control_labels(doc: &Document, content: &mut Content, thread: bool) {
    let Some(root) = content.root else { return };
    let mut labels: Vec<(NodeId, String, usize)> = Vec::new();
    let mut texts = vec![0u8; doc.len()];
    let mut ids = doc.subtree(root);
    while let Some(id) = ids.next().map(NodeId) {
        if deadline::due(id.index()) {
            return;
        }
        if !content.is_content(id)
            || !acts_as_button(doc, id)
            || doc
                .parent(id)
                .is_some_and(|p| holds_text(doc, p, &mut texts))
        {
            continue;
        }
        // A control's contents are its label: nothing below is looked at again.
        ids = doc.subtree(id).end..ids.end;
        if let Some((label, words)) = label(doc, content, id) {
            labels.push((id, label, words));
        }
    }
    if labels.is_empty() {
        return;
    }
    let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
    for (_, label, _) in &labels {
        *counts.entry(label.as_str()).or_default() += 1;
    }
    let mut marked = vec![false; doc.len()];
    for (id, label, words) in &labels {
        marked[id.index()] = (thread && *words <= THREAD_LABEL_WORDS)
            || counts
                .get(label.as_str())
                .is_some_and(|&n| n >= LABEL_REPEATS);
    }
    super::spread::drop_marked(doc, root, content, &marked);
}

/// The kept, visible words under `control`, lower-cased and joined by single spaces, and
/// their count; `None` when there are none or more than [`LABEL_WORDS`].
fn label(doc: &Document, content: &Content, control: NodeId) -> Option<(String, usize)> {
    let mut label = String::new();
    let mut words = 0;
    for id in super::spread::visible_descendants(doc, control) {
        if !content.is_content(id) {
            continue;
        }
        let Some(text) = doc.text(id) else { continue };
        words += super::blocks::node_words(doc, id);
        if words > LABEL_WORDS {
            return None;
        }
        for w in text.split_whitespace() {
            if !label.is_empty() {
                label.push(' ');
            }
            label.extend(w.chars().flat_map(char::to_lowercase));
        }
    }
    (words > 0).then_some((label, words))
}

/// Whether `parent` has a child that is text with a visible character: a control among
/// such text stands in running text (MediaWiki writes a page's links to itself as `<a>`s
/// without `href`, in the middle of its sentences), and its words are the sentence's.
/// Each parent is asked once (`memo`: 0 not yet, 1 no, 2 yes), so that 100,000 sibling
/// controls cost one walk of their parent.
fn holds_text(doc: &Document, parent: NodeId, memo: &mut [u8]) -> bool {
    let Some(m) = memo.get_mut(parent.index()) else {
        return false;
    };
    if *m == 0 {
        let text = doc
            .children(parent)
            .filter_map(|c| doc.text(c))
            .any(|t| !t.trim().is_empty());
        *m = if text { 2 } else { 1 };
    }
    *m == 2
}

/// Whether an element acts as a button though it is none: an `<a>` that leads nowhere (no
/// `href`, and no `name` or `id` that would make it a target), an element whose role is
/// `button`, or one whose class names a button (`btn`, `button`, `add-to-cart-button`:
/// a word between hyphens).
pub(super) fn acts_as_button(doc: &Document, id: NodeId) -> bool {
    let Some(e) = doc.element(id) else {
        return false;
    };
    if e.is(&local_name!("a")) && ["href", "name", "id"].iter().all(|a| e.attr(a).is_none()) {
        return true;
    }
    if e.attr_local(&local_name!("role"))
        .is_some_and(|r| r.trim().eq_ignore_ascii_case("button"))
    {
        return true;
    }
    e.attr_local(&local_name!("class")).is_some_and(|c| {
        c.split_ascii_whitespace()
            .flat_map(|n| n.split('-'))
            .any(|w| w.eq_ignore_ascii_case("btn") || w.eq_ignore_ascii_case("button"))
    })
}

#[cfg(test)]
mod tests {
    use super::acts_as_button;
    use crate::dom::parse_str;

    #[test]
    fn elements_that_act_as_buttons() {
        let doc = parse_str(
            "<a id=t1>Toggle</a><a href=/x>Link</a><a name=n>Target</a>\
             <span role=Button>Share</span><a class='btn btn-primary' href=/y>Go</a>\
             <div class='add-to-cart-button'>Add</div><div class='buttons'>Row</div>\
             <a>Click to expand</a>",
        );
        let by_text = |t: &str| {
            doc.elements()
                .find(|&id| doc.text_content(id) == t)
                .unwrap_or_else(|| panic!("{t}"))
        };
        for yes in ["Share", "Go", "Add", "Click to expand"] {
            assert!(acts_as_button(&doc, by_text(yes)), "{yes}");
        }
        for no in ["Toggle", "Link", "Target", "Row"] {
            assert!(!acts_as_button(&doc, by_text(no)), "{no}");
        }
    }
}
