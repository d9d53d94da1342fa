//! What an element is by its tag, attributes and names, whatever its text: chrome by its
//! tag, controls and dialogs, hidden parts, declared main content, comment sections,
//! captions, table parts, link clusters.

use markup5ever::{local_name, ns};

use crate::dom::{Document, NodeId};

/// Elements that are usually chrome by their tag.
fn is_boilerplate_tag(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        matches!(
            e.name.local,
            local_name!("nav") | local_name!("aside") | local_name!("footer") | local_name!("menu")
        )
    })
}

/// Elements chrome by their tag ([`is_boilerplate_tag`]) under `body`, but for those that
/// hold the page's declared main content (`<main>`, `role="main"`, schema.org's
/// `itemprop="articleBody"`): some sites lay the whole page out in an `<aside>` or a
/// `<footer>` (rnz.de's article sits in `aside.nfy-pa-direct-content`), and what the page
/// declares its body outweighs what its wrapper's tag suggests.
pub(super) fn chrome_by_tag(doc: &Document, body: NodeId) -> Vec<bool> {
    let mut holds_body = vec![false; doc.len()];
    let mut chrome = vec![false; doc.len()];
    // Reversed document order: every element after its descendants.
    for id in doc.subtree(body).rev().map(NodeId) {
        let i = id.index();
        holds_body[i] |= is_declared_main(doc, id) || declares_article_body(doc, id);
        chrome[i] = !holds_body[i] && is_boilerplate_tag(doc, id);
        if holds_body[i] {
            if let Some(p) = doc.parent(id) {
                holds_body[p.index()] = true;
            }
        }
    }
    chrome
}

/// `itemprop="articleBody"` (schema.org): the element a page declares its article's text.
pub(super) fn declares_article_body(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.attr_local(&local_name!("itemprop")).is_some_and(|v| {
            v.split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case("articleBody"))
        })
    })
}

/// `<main>`, `<article>` and `role="main"`: elements that declare themselves main content.
pub(super) fn is_main_element(doc: &Document, id: NodeId) -> bool {
    is_declared_main(doc, id) || doc.tag(id).is_some_and(|t| *t == local_name!("article"))
}

/// `<main>` and `role="main"`: the page's declared main element.
pub(super) fn is_declared_main(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.name.local == local_name!("main")
            || e.attr_local(&local_name!("role"))
                .is_some_and(|r| r.eq_ignore_ascii_case("main"))
    })
}

/// Form controls and dialogs (`<dialog>`, ARIA's `dialog` and `alertdialog` roles: modal
/// boxes of consent, sign-in or ad disclosures): never part of the content.
pub(super) fn is_control(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        matches!(
            e.name.local,
            local_name!("button") | local_name!("select") | local_name!("dialog")
        ) || e.attr_local(&local_name!("role")).is_some_and(|r| {
            r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog")
        })
    })
}

/// Whether a CSS framework's classes hide an element at every screen width: Elementor's
/// `elementor-hidden-desktop`, `-tablet` and `-mobile` together, Bootstrap 3's `hidden-xs`,
/// `-sm`, `-md` and `-lg`, Bulma's `is-hidden-mobile` and `is-hidden-tablet`. A page
/// builder leaves sections so when an editor retires them: no reader sees them and no
/// script shows them (a school's retired course descriptions). One width's class is a
/// layout's choice, and the other layout's copy is the same text: not these.
pub(super) fn hidden_at_every_width(doc: &Document, id: NodeId) -> bool {
    let Some(class) = doc.element(id).and_then(|e| e.attr("class")) else {
        return false;
    };
    // Most classes name no hiding: split only those that do (every element asks: the
    // searcher is built once).
    static HIDDEN: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("hidden"));
    if HIDDEN.find(class.as_bytes()).is_none() {
        return false;
    }
    let has = |name: &str| class.split_ascii_whitespace().any(|c| c == name);
    let all = |names: &[&str]| names.iter().all(|n| has(n));
    all(&[
        "elementor-hidden-desktop",
        "elementor-hidden-tablet",
        "elementor-hidden-mobile",
    ]) || all(&["hidden-xs", "hidden-sm", "hidden-md", "hidden-lg"])
        || all(&["is-hidden-mobile", "is-hidden-tablet"])
}

/// Elements hidden until something shows them: `hidden`, `aria-hidden`, `display:none`,
/// `visibility:hidden`.
pub(super) fn is_hidden(doc: &Document, id: NodeId) -> bool {
    hidden_by(doc, id, true)
}

/// Elements that a reader does not see until something shows them: [`is_hidden`] but for
/// `aria-hidden`, which hides from screen readers what the eye sees (a card's second link
/// to its story, around the teaser's text).
pub(super) fn is_out_of_sight(doc: &Document, id: NodeId) -> bool {
    hidden_by(doc, id, false)
}

/// Whether `id` is hidden by the `hidden` attribute or its style, or (with `aria`) by
/// `aria-hidden`.
fn hidden_by(doc: &Document, id: NodeId, aria: bool) -> bool {
    // One look at each attribute: every element of every page asks.
    doc.element(id).is_some_and(|e| {
        e.attrs.iter().any(|a| {
            a.name.ns == ns!()
                && match a.name.local {
                    local_name!("hidden") => !is_streamed_segment(e),
                    local_name!("aria-hidden") => aria && a.value.eq_ignore_ascii_case("true"),
                    local_name!("style") => {
                        style_has(&a.value, b"display:none")
                            || style_has(&a.value, b"visibility:hidden")
                    }
                    _ => false,
                }
        })
    })
}

/// Whether a hidden element is a segment that React's streaming server rendering sends
/// after the shell (`<div hidden id="S:2e">`): a script moves it into the page as soon as
/// it arrives, so a reader sees it (Next.js pages stream a product's details, a post's
/// body so).
pub(super) fn is_streamed_segment(e: &crate::dom::Element) -> bool {
    e.attr("id")
        .and_then(|id| id.strip_prefix("S:"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Whether a `style` attribute contains `pat` (ASCII, lower case, no spaces), ignoring case
/// and the spaces CSS allows around the colon; no allocation.
pub(super) fn style_has(style: &str, pat: &[u8]) -> bool {
    let b = style.as_bytes();
    let Some(&first) = pat.first() else {
        return true;
    };
    // A match starts at the pattern's first letter (spaces are skipped only after it):
    // memchr finds the places to try, which keeps long inline styles cheap.
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), b).any(|start| {
        let mut i = start;
        for &p in pat {
            while i < b.len() && b[i].is_ascii_whitespace() && p != b' ' {
                i += 1;
            }
            if i >= b.len() || !b[i].eq_ignore_ascii_case(&p) {
                return false;
            }
            i += 1;
        }
        true
    })
}

/// Rows and cells: a data table links its entries (product names, sources) without being
/// a menu; the table as a whole can still be a link cluster.
pub(super) fn is_table_part(doc: &Document, id: NodeId) -> bool {
    doc.tag(id).is_some_and(|t| {
        matches!(
            *t,
            local_name!("tr") | local_name!("td") | local_name!("th")
        )
    })
}

/// A caption or photo credit.
pub(super) fn is_caption(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.is(&local_name!("figcaption"))
            || e.classes()
                .any(|c| contains_ignore_case(c, "caption") || contains_ignore_case(c, "credit"))
    })
}

/// Mostly links: a menu, a tag list, a "related posts" box.
pub(super) fn is_link_cluster(words: u32, link_words: u32) -> bool {
    link_words * 2 > words && words >= 2
}

/// A section of comments by its id or class, named in English or in the page's language
/// ([`COMMENT_STEMS`], [`COMMENT_CLASSES`]).
pub(super) fn is_comment_section(doc: &Document, id: NodeId) -> bool {
    // (Most elements have no attribute: asked of every node, the names are not split.)
    doc.element(id).is_some_and(|e| {
        !e.attrs.is_empty()
            && (e.id().is_some_and(names_comments)
                || e.classes().any(|c| {
                    COMMENT_CLASSES.iter().any(|n| c.eq_ignore_ascii_case(n))
                        || c.get(..9)
                            .is_some_and(|p| p.eq_ignore_ascii_case("comments-"))
                }))
    })
}

/// Whether an id holds one of [`COMMENT_STEMS`], ignoring ASCII case: one pass over it,
/// a stem tried only where its first letter stands (every element with an id asks).
fn names_comments(id: &str) -> bool {
    let b = id.as_bytes();
    (0..b.len()).any(|i| {
        let first = b[i].to_ascii_lowercase();
        COMMENT_STEMS.iter().any(|w| {
            w.as_bytes()[0] == first
                && b.get(i..i + w.len())
                    .is_some_and(|s| s.eq_ignore_ascii_case(w.as_bytes()))
        })
    })
}

/// What an id naming a comment section holds, in the languages sites name them in:
/// English, Polish and Czech (`lista-komentarzy`), German, Scandinavian and transliterated
/// Russian (`kommentarii`), transliterated Greek (`sxolia`, σχόλια) and Chinese pinyin
/// (`pinglun`, 评论). English alone left daniel-dev's Polish reader comments in the article
/// (gazetawroclawska.pl, kurierlubelski.pl). Not Spanish and Portuguese `comentario`: a
/// shop's reviews tab bears it (WooCommerce), and no page of the benchmarks gained by it
/// (BENCHMARKS.md, "Main content: tried and dropped").
const COMMENT_STEMS: &[&str] = &["comment", "koment", "komment", "sxoli", "pinglun"];

/// Whole class names of a comment section: a class is a word of a name more often than an
/// id is, so the list is of whole names, not stems.
const COMMENT_CLASSES: &[&str] = &[
    "comments",
    "comment-list",
    "commentlist",
    "comment-respond",
    "commentaires",
    "komentarze",
    "kommentare",
    "kommentarer",
    "sxolia",
    "pinglun",
];

/// `haystack` contains the ASCII `needle`, ignoring ASCII case; no allocation.
pub(super) fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Mark the sign-in boxes of a page in `mask`, subtrees whole: around each password field
/// (one shown, not an autofill trap), its form, or the hidden element (a dialog a button
/// opens) that holds it. No page's content asks for a password: what such a box holds (its
/// labels, a registration's terms) is the site's, however much of it there is. A password
/// field in neither is left alone: the page's layout gives no edge to the box.
pub(super) fn mark_sign_in_boxes(doc: &Document, mask: &mut [bool]) {
    let Some(body) = doc.body() else {
        return;
    };
    let end = doc.subtree(body).end;
    let mut i = body.0 + 1;
    while i < end {
        let id = NodeId(i);
        i += 1;
        let password = doc.element(id).is_some_and(|e| {
            e.is(&local_name!("input"))
                && e.attr("type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("password"))
        });
        // A hidden field is a trap for browsers' autofill, not a box to sign in with.
        if !password || is_hidden(doc, id) || mask.get(id.index()).copied().unwrap_or(true) {
            continue;
        }
        let boxed = doc
            .ancestors(id)
            .take_while(|a| *a != body)
            .find(|a| doc.tag(*a).is_some_and(|t| *t == local_name!("form")) || is_hidden(doc, *a));
        if let Some(b) = boxed {
            for n in doc.subtree(b) {
                if let Some(m) = mask.get_mut(n as usize) {
                    *m = true;
                }
            }
        }
    }
}
