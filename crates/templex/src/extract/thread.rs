//! What frames a thread's posts, beside the lines [`super::lines`] drops: the posters' cards
//! and the prompts to guests. Only for pages that declare a discussion.

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
        inside[id.index()] = above
            || doc
                .tag(id)
                .is_some_and(|t| *t == local_name!("dl") || super::lines::is_code(t));
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
    let mut marked = vec![false; doc.len()];
    for (id, shape) in &cards {
        marked[id.index()] = counts
            .get(shape.as_str())
            .is_some_and(|&n| n >= CARD_REPEATS);
    }
    super::spread::drop_marked(doc, root, content, &marked);
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

/// Words up to which a box around a link to sign in or register is a prompt to guests
/// ("You must log in to answer this question.", "Create an account or sign in to comment").
const PROMPT_WORDS: usize = 40;

/// Words from which a part of a box beside a guest prompt is a sentence of the page's own
/// (a short post), which the prompt's box stops below.
const PROMPT_SENTENCE: usize = 10;

/// Levels a prompt's box climbs at most from its link, through wrappers without words.
const PROMPT_LEVELS: usize = 12;

/// Drops from `content` a thread's prompts to guests: around each kept link or form whose
/// address signs in or registers ([`signs_in`]) or starts a thread of one's own
/// ([`starts_thread`]: Stack Exchange's "Start asking to get answers… Ask question"), the
/// largest box of up to [`PROMPT_WORDS`]
/// kept words with no part of [`PROMPT_SENTENCE`] words or more beside it. Forums ask guests
/// to join below every thread, and Stack Exchange under each question and answer; threads'
/// golds leave it out. The address, not the words, tells
/// the prompt, in any language; a post that mentions registering without linking to it
/// stays.
pub(crate) fn drop_guest_prompts(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    let address = |id: NodeId| {
        doc.element(id).and_then(|e| {
            if e.is(&local_name!("a")) {
                e.attr("href")
            } else if e.is(&local_name!("form")) {
                e.attr("action")
            } else {
                None
            }
        })
    };
    let prompts: Vec<NodeId> = doc
        .descendants(root)
        .filter(|&id| {
            content.is_content(id) && address(id).is_some_and(|a| signs_in(a) || starts_thread(a))
        })
        .collect();
    if prompts.is_empty() {
        return;
    }
    // Kept words under each node, and each node's children of a sentence's words or more,
    // children first: a climb then asks each level in constant time.
    let mut words = vec![0usize; doc.len()];
    let mut sentences = vec![0u32; doc.len()];
    for id in doc.subtree(root).rev().map(NodeId) {
        if deadline::due(id.index()) {
            return;
        }
        if content.is_content(id) {
            words[id.index()] += super::blocks::node_words(doc, id);
        }
        if id != root
            && let Some(p) = doc.parent(id)
        {
            words[p.index()] += words[id.index()];
            sentences[p.index()] += u32::from(words[id.index()] >= PROMPT_SENTENCE);
        }
    }
    let mut marked = vec![false; doc.len()];
    for link in prompts {
        let mut top = link;
        for _ in 0..PROMPT_LEVELS {
            let Some(p) = doc.parent(top).filter(|&p| p != root) else {
                break;
            };
            // A sentence beside the prompt is the box's own text: a short post that
            // carries an advertisement's "Members don't see this ad" stays.
            let own = u32::from(words[top.index()] >= PROMPT_SENTENCE);
            let beside = sentences[p.index()] > own;
            if marked[p.index()] || words[p.index()] > PROMPT_WORDS || beside {
                break;
            }
            top = p;
        }
        if words[top.index()] <= PROMPT_WORDS {
            marked[top.index()] = true;
        }
    }
    super::spread::drop_marked(doc, root, content, &marked);
}

/// Whether an address signs in or registers: a word of its path or query (split at
/// anything not a letter or digit) is `login`, `signin`, `signup`, `register`,
/// `registration`, or `sign` followed by `in` or `up`, or `log` by `in` (ASCII case ignored).
/// The host is left out: a site's `login.example.com` serves its other pages too.
pub(crate) fn signs_in(href: &str) -> bool {
    any_word_pair(path_and_query(href), |is, after| {
        is("login")
            || is("signin")
            || is("signup")
            || is("register")
            || is("registration")
            || ((is("in") || is("up")) && after("sign"))
            || (is("in") && after("log"))
    })
}

/// Whether `test` holds for a word of `rest` (split at anything not a letter or digit),
/// asked as `is(word)` and `after(previous word)`, both ignoring ASCII case.
fn any_word_pair(
    rest: &str,
    test: impl Fn(&dyn Fn(&str) -> bool, &dyn Fn(&str) -> bool) -> bool,
) -> bool {
    let mut previous = "";
    for word in rest
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let is = |w: &str| word.eq_ignore_ascii_case(w);
        let after = |w: &str| previous.eq_ignore_ascii_case(w);
        if test(&is, &after) {
            return true;
        }
        previous = word;
    }
    false
}

/// Whether an address starts a thread or asks a question: a path segment `ask`
/// (`/questions/ask`), or a word of its path or query `newtopic`, `newthread` or
/// `newquestion`, `new` followed by `topic`, `thread`, `question` or `discussion`, or
/// `post` by `thread` (ASCII case ignored; the host left out, as by [`signs_in`]). Replying
/// is left out: XenForo quotes a post through `…/reply?quote=…` under every post, short
/// ones too.
pub(crate) fn starts_thread(href: &str) -> bool {
    let rest = path_and_query(href);
    let path = rest.split(['?', '#']).next().unwrap_or("");
    if path.split('/').any(|s| s.eq_ignore_ascii_case("ask")) {
        return true;
    }
    any_word_pair(rest, |is, after| {
        is("newtopic")
            || is("newthread")
            || is("newquestion")
            || ((is("topic") || is("thread") || is("question") || is("discussion")) && after("new"))
            || (is("thread") && after("post"))
    })
}

/// An address after its scheme and host, if it has them.
fn path_and_query(href: &str) -> &str {
    let href = href.trim();
    match href.find("//") {
        Some(i)
            if href[..i]
                .bytes()
                .all(|b| b.is_ascii_alphabetic() || b == b':') =>
        {
            let after = &href[i + 2..];
            after.find('/').map_or("", |j| &after[j..])
        }
        _ => href,
    }
}

/// Classes whose style sheet hides an element at every width until a script shows it, on a
/// thread's page: Invision's `ipsHide` (each post's "share this post" box) and Material
/// UI's `MuiCollapse-hidden` (a folded list of related threads). Elsewhere a folded panel
/// may be the page's own text (an article's collapsed section, which its gold keeps).
const THREAD_HIDDEN_CLASSES: &[&str] = &["ipsHide", "MuiCollapse-hidden"];

/// Drops from `content` the elements of a thread's page that carry a class of
/// [`THREAD_HIDDEN_CLASSES`] (the whole name).
pub(crate) fn drop_folded_boxes(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    let mut marked = vec![false; doc.len()];
    let mut any = false;
    for id in doc.subtree(root).map(NodeId) {
        if deadline::due(id.index()) {
            return;
        }
        if content.is_content(id)
            && doc
                .element(id)
                .is_some_and(|e| e.classes().any(|c| THREAD_HIDDEN_CLASSES.contains(&c)))
        {
            marked[id.index()] = true;
            any = true;
        }
    }
    if any {
        super::spread::drop_marked(doc, root, content, &marked);
    }
}

#[cfg(test)]
mod tests {
    use super::{signs_in, starts_thread};

    #[test]
    fn addresses_that_start_a_thread() {
        for yes in [
            "/questions/ask",
            "https://superuser.com/questions/ask?tags=windows",
            "/forums/general.2/post-thread",
            "/posting.php?mode=newtopic&f=3",
            "/new-topic",
            "/c/help/new-discussion",
        ] {
            assert!(starts_thread(yes), "{yes}");
        }
        for no in [
            "/ask-the-expert/12",
            "https://ask.example.com/threads/1",
            "/threads/what-is-new.12/reply?quote=3",
            "/blog/new-year-thread-ideas",
            "#",
            "",
        ] {
            assert!(!starts_thread(no), "{no}");
        }
    }

    #[test]
    fn addresses_that_sign_in_or_register() {
        for yes in [
            "/login",
            "/login/register",
            "https://forum.example/users/signup?ssrc=anon_ask",
            "/index.php?action=login",
            "ucp.php?mode=register",
            "/account/sign-in?return=/t/1",
            "/Log_In",
            "https://example.com/registration/",
        ] {
            assert!(signs_in(yes), "{yes}");
        }
        for no in [
            "https://login.example.com/threads/1",
            "/threads/how-to-sign-a-pdf.12/",
            "/blog/logistics",
            "/signature-in-outlook",
            "#",
            "",
        ] {
            assert!(!signs_in(no), "{no}");
        }
    }
}
