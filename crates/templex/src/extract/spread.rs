//! The spread view: the content of a page that spreads it over the whole page (a listing's
//! cards, a thread's posts, a service page's sections) is what the page-level template
//! detectors leave, minus what is never content; and the site-aware content's keep mask.

use markup5ever::local_name;

use super::aggregates::MAJORITY;
use super::blocks::{Block, BlockKind};
use super::config::Content;
use super::verdicts::{chrome_by_tag, hidden_at_every_width, is_control, is_declared_main};
use crate::dom::{Document, NodeId, deadline};

/// The descendants of `root` that a reader sees ([`Document::visible_descendants`]).
pub(crate) fn visible_descendants(
    doc: &Document,
    root: NodeId,
) -> impl Iterator<Item = NodeId> + '_ {
    doc.visible_descendants(root)
}

/// The content of a page that spreads it over the whole page (a listing's cards, a
/// thread's posts, a service page's sections): what `template` (the page-level template
/// detector's verdict) leaves, minus what is never content — chrome by its tag (`<nav>`,
/// `<aside>`, `<footer>`), controls, forms beside the content. With `comments`,
/// comment-named elements stay (on such a page they are the posts), and `template` does
/// not reach inside comment sections: a thread's replies carry per-post chrome (vote
/// counts, user names, reply and flag links) that makes the detectors call whole replies
/// chrome (a section inside a region `template` claims stays out with it). Hidden elements
/// always stay (tabs and accordions: a product's details, a service page's answers, which
/// a reader opens), but for pictures drawn in markup that screen readers skip
/// ([`is_decoration`]). The filters [`page_content`](super::page_content) applies inside its
/// container (labels, link clusters, date lines) do not: a listing's prices, links and
/// dates are its records.
///
/// `page_words` is the page's visible words ([`kept_words`] of all of `<body>`); without
/// `comments`, comment sections ([`is_comment_section`](super::verdicts::is_comment_section))
/// are left out: beside an article of its own they are reader comments.
pub(crate) fn spread_content(
    doc: &Document,
    template: &[bool],
    page_words: usize,
    comments: bool,
) -> Content {
    let mut keep = vec![false; doc.len()];
    let Some(body) = doc.body() else {
        return Content { root: None, keep };
    };
    let allowed = non_template_mask(doc, template);
    let chrome_tag = chrome_by_tag(doc, body);
    let excluded = excluded_below(doc, body, |id| {
        is_decoration(doc, id)
            || is_control(doc, id)
            || hidden_at_every_width(doc, id)
            || chrome_tag[id.index()]
            || is_side_form(doc, id, page_words)
            || (!comments && super::verdicts::is_comment_section(doc, id))
    });
    // Inside a comment section, with `comments` (its posts are the content).
    let mut posts = vec![false; doc.len()];
    for id in doc.subtree(body).map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        posts[i] = comments
            && (doc.parent(id).is_some_and(|p| posts[p.index()])
                || super::verdicts::is_comment_section(doc, id));
        keep[i] = (allowed[i] || posts[i])
            && !excluded[i]
            && (id == body || doc.parent(id).is_some_and(|p| keep[p.index()]));
    }
    Content {
        root: Some(body),
        keep,
    }
}

/// A picture drawn in markup that screen readers skip: a `<figure>`, or an element whose
/// role is `img` or `presentation`, marked `aria-hidden="true"` (a payment form mocked up
/// in HTML, "Card number 1234…"). Shown, not hidden: no tab a reader opens.
fn is_decoration(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.attr("aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            && (e.name.local == local_name!("figure")
                || e.attr("role").is_some_and(|r| {
                    let r = r.trim();
                    r.eq_ignore_ascii_case("img")
                        || r.eq_ignore_ascii_case("presentation")
                        || r.eq_ignore_ascii_case("none")
                }))
    })
}

/// The spread view without what it keeps outside the main element the page declares
/// around its container `root` (`<main>`, `role="main"`: the outermost such ancestor below
/// `<body>`), unless that reads as sections of prose ([`Rest::is_sections`]: a shop's
/// buying guide after its `<main>`). A page that marks its main part says what lies beyond
/// it is not: a promotion bar above the header, streamed segments at the end of the body
/// whose places are in the shop's carousels.
pub(crate) fn drop_beyond_main(
    doc: &Document,
    spread: &mut Content,
    root: NodeId,
    blocks: &[Block],
) {
    let Some(body) = doc.body() else { return };
    let Some(main) = std::iter::once(root)
        .chain(doc.ancestors(root))
        .take_while(|a| *a != body)
        .filter(|a| is_declared_main(doc, *a))
        .last()
    else {
        return;
    };
    let (start, end) = (main.index(), doc.node(main).end.index());
    // Ids run in document order: before the main element is what ends before it (its
    // ancestors hold it, and stay), after it what starts past its end.
    let beyond = |id: NodeId| {
        let i = id.index();
        (i < start && doc.node(id).end.index() <= start) || i >= end
    };
    let rest = Rest::of(
        blocks
            .iter()
            .filter(|b| spread.is_content(b.owner) && beyond(b.owner)),
    );
    if rest.words == 0 || rest.is_sections(true) {
        return;
    }
    for id in doc.ids().filter(|id| beyond(*id)) {
        if let Some(keep) = spread.keep.get_mut(id.index()) {
            *keep = false;
        }
    }
}

/// The spread view without what is no page's content by its name
/// ([`never_content`](super::names::never_content): related links, cookie and newsletter
/// boxes, share bars), unless such an element holds most of the page's words.
pub(crate) fn drop_never_content(doc: &Document, spread: &mut Content, page_words: usize) {
    drop_named(doc, spread, || page_words, super::names::never_content);
}

/// `content` without text that only screen readers announce
/// ([`screen_reader_only`](super::names::screen_reader_only)): a product card's "Add to
/// cart" and "Rating: 4.6 out of 5", a slider's "Image 1 of 5", an icon's name. Either view
/// keeps it otherwise: the spread view keeps what is hidden (a reader opens tabs and
/// accordions), and a container need not name it. Inside a table's cell it stays.
pub(crate) fn drop_screen_reader_text(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    // Inside a table's cell, such text is the cell's value shown as an icon (a comparison
    // table's ✓ read "Yes"): a reader reads it off the icon.
    let mut in_cell = vec![false; doc.len()];
    let dropped = excluded_below(doc, root, |id| {
        let cell = doc.parent(id).is_some_and(|p| in_cell[p.index()])
            || doc
                .tag(id)
                .is_some_and(|t| matches!(*t, local_name!("td") | local_name!("th")));
        in_cell[id.index()] = cell;
        !cell && content.is_content(id) && super::names::screen_reader_only(doc, id)
    });
    for (keep, dropped) in content.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// `content` without the popovers below its root: elements with HTML's `popover`
/// attribute, which a browser leaves out of the page until a control opens them (an app's
/// "View in the app" card, a menu, a tooltip). Neither view asks: the container weighs
/// what it holds, the spread view keeps what scripts hide.
pub(crate) fn drop_popovers(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    let is_popover = |id: NodeId| {
        doc.element(id)
            .is_some_and(|e| e.attr_local(&local_name!("popover")).is_some())
    };
    let dropped = excluded_below(doc, root, |id| {
        id != root && content.is_content(id) && is_popover(id)
    });
    for (keep, dropped) in content.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// `content` without the carousels of links it shows (WAI-ARIA's pattern: an element whose
/// `aria-roledescription` is `carousel`, half or more of its words in links, or most of its
/// [`TEASER_SLIDES`] or more slides teasers — a link and at most a card's words): slides of
/// teasers leading to other pages ("Featured insights", "Latest", a blog's posts each with
/// its "Read blog"), unless one holds half the page's words. A carousel of prose (a service
/// page's testimonials) stays.
pub(crate) fn drop_link_carousels(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    let is_carousel = |id: NodeId| {
        doc.element(id).is_some_and(|e| {
            e.attr("aria-roledescription")
                .is_some_and(|r| r.trim().eq_ignore_ascii_case("carousel"))
        })
    };
    // Most pages show none: words are counted only on a page that does.
    if !doc
        .subtree(root)
        .map(NodeId)
        .any(|id| content.is_content(id) && is_carousel(id))
    {
        return;
    }
    let page_words = doc.body().map_or(0, |b| kept_words(doc, b, |_| true));
    let (words, link_words) = visible_words(doc, root);
    let is_slide = |id: NodeId| {
        doc.element(id).is_some_and(|e| {
            e.attr("aria-roledescription")
                .is_some_and(|r| r.trim().eq_ignore_ascii_case("slide"))
        })
    };
    // Slides under each element, and of them teasers: a teaser's title and a few words
    // with a link to another page ("Read blog"), whatever share of the words their links
    // hold. Summed children first: one pass, however deeply carousels nest.
    let mut slides = vec![(0usize, 0usize); doc.len()];
    for id in doc.subtree(root).rev().map(NodeId) {
        if is_slide(id) {
            let (w, l) = (words[id.index()], link_words[id.index()]);
            let s = &mut slides[id.index()];
            s.0 += 1;
            s.1 += usize::from(l > 0 && w <= super::prune::CARD_WORDS as usize);
        }
        if let Some(p) = doc.parent(id).filter(|_| id != root) {
            let (n, t) = slides[id.index()];
            slides[p.index()].0 += n;
            slides[p.index()].1 += t;
        }
    }
    let teaser_slides = |id: NodeId| {
        let (n, t) = slides[id.index()];
        n >= TEASER_SLIDES && 2 * t > n
    };
    let dropped = excluded_below(doc, root, |id| {
        let (w, l) = (words[id.index()], link_words[id.index()]);
        content.is_content(id)
            && is_carousel(id)
            && w > 0
            && (2 * l >= w || teaser_slides(id))
            && (w as f64) < MAJORITY * page_words as f64
    });
    for (keep, dropped) in content.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// The spread view without the hidden elements it keeps ([`is_out_of_sight`]) whose words
/// are half or more in links, unless one holds half the page's words: a menu's drop-downs,
/// a header's mega-menu, a list of filters that scripts open — navigation, not a tab or an
/// accordion of the page's own text, which the view keeps for a reader to open.
///
/// [`is_out_of_sight`]: super::verdicts::is_out_of_sight
pub(crate) fn drop_hidden_link_lists(doc: &Document, spread: &mut Content, page_words: usize) {
    let Some(root) = spread.root else { return };
    // Words are counted only on a page whose view keeps something out of sight.
    if !doc
        .subtree(root)
        .map(NodeId)
        .any(|id| spread.is_content(id) && super::verdicts::is_out_of_sight(doc, id))
    {
        return;
    }
    let (words, link_words) = visible_words(doc, root);
    let dropped = excluded_below(doc, root, |id| {
        let (w, l) = (words[id.index()], link_words[id.index()]);
        spread.is_content(id)
            && w > 0
            && 2 * l >= w
            && (w as f64) < MAJORITY * page_words as f64
            && super::verdicts::is_out_of_sight(doc, id)
    });
    for (keep, dropped) in spread.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// The slides from which a carousel whose slides are mostly teasers is one of links
/// ([`drop_link_carousels`]).
const TEASER_SLIDES: usize = 3;

/// `content` without the notices a page shows readers who run no scripts: a `<noscript>`
/// that names JavaScript in under [`NOSCRIPT_NOTICE_WORDS`] words ("JavaScript is disabled.
/// For a better experience, please enable JavaScript", "You need to enable JavaScript to run
/// this app", Disqus's "Please enable JavaScript to view the comments"). The page is read as
/// a browser without scripts reads it, so that a crawler view held in `<noscript>` (a forum
/// app's posts) is content; a reader whose scripts run sees the app, never the notice.
pub(crate) fn drop_noscript_notices(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    let dropped = excluded_below(doc, root, |id| {
        doc.tag(id).is_some_and(|t| *t == local_name!("noscript"))
            && content.is_content(id)
            && is_script_notice(doc, id)
    });
    for (keep, dropped) in content.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// `content` without the site's notices a reader can dismiss: around each kept link or
/// button whose class or id names a dismissal (`notice-dismiss`, `iCardDismiss`), or box
/// that names itself dismissible (`alert-dismissible`), the element itself or its nearest
/// of [`NOTICE_LEVELS`] ancestors with [`NOTICE_MIN_WORDS`] visible words or more, if it
/// holds at most [`NOTICE_MAX_WORDS`] kept ones. A
/// forum's "Scam alert" and meetup banners, a guest's call to register, an app's install
/// prompt: what a reader closes is the site speaking, not the page. Names, not addresses
/// or text: a link to a court's "Stip to Dismiss" filing is content.
pub(crate) fn drop_dismissible_notices(doc: &Document, content: &mut Content) {
    let Some(root) = content.root else { return };
    // The box itself (`alert-dismissible`), or its close control: a link or a button
    // (eBay names a hidden token `csrf-ajax-dismiss-exp`).
    let dismisses = |id: NodeId| {
        doc.element(id).is_some_and(|e| {
            let named = |w: &str| {
                ["class", "id"].iter().any(|a| {
                    e.attr(a)
                        .is_some_and(|v| super::verdicts::contains_ignore_case(v, w))
                })
            };
            let control = e.is(&local_name!("a"))
                || e.is(&local_name!("button"))
                || e.attr("role")
                    .is_some_and(|r| r.eq_ignore_ascii_case("button"));
            (control && named("dismiss")) || named("dismissible")
        })
    };
    let marks: Vec<NodeId> = doc
        .descendants(root)
        .filter(|&id| content.is_content(id) && dismisses(id))
        .collect();
    if marks.is_empty() {
        return;
    }
    let (words, _) = visible_words(doc, root);
    let (kept, _) = visible_kept_words(doc, root, |d| content.is_content(d));
    let mut boxes = vec![false; doc.len()];
    for mark in marks {
        let found = std::iter::once(mark)
            .chain(doc.ancestors(mark).take_while(|&a| a != root))
            .take(NOTICE_LEVELS + 1)
            .find(|&a| words[a.index()] >= NOTICE_MIN_WORDS);
        if let Some(b) =
            found.filter(|&b| (NOTICE_MIN_WORDS..=NOTICE_MAX_WORDS).contains(&kept[b.index()]))
        {
            boxes[b.index()] = true;
        }
    }
    drop_marked(doc, root, content, &boxes);
}

/// `content` without the marked elements' subtrees (one pass, however many marks nest).
pub(super) fn drop_marked(doc: &Document, root: NodeId, content: &mut Content, marked: &[bool]) {
    let dropped = excluded_below(doc, root, |id| marked[id.index()]);
    for (keep, dropped) in content.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// Ancestors of a dismissal's control among which its notice is looked for.
const NOTICE_LEVELS: usize = 4;

/// Words from which an element around a dismissal's control is its notice (the control's
/// own "Dismiss notice" is fewer).
const NOTICE_MIN_WORDS: usize = 8;

/// Words up to which a dismissible box is a notice, not a part of the page a script folds.
const NOTICE_MAX_WORDS: usize = 300;

/// The words under which a `<noscript>` naming JavaScript is a notice: the notices of the
/// four sets hold 3 to 95 words, a crawler view a thread's posts.
const NOSCRIPT_NOTICE_WORDS: usize = 100;

/// The nodes a `<noscript>` notice holds at most: its text is read only when the element is
/// that small, so nested `<noscript>`s (a hostile page's) cost no more than a walk each.
const NOSCRIPT_NOTICE_NODES: usize = 256;

/// Whether the text under `id` names JavaScript in under [`NOSCRIPT_NOTICE_WORDS`] words.
fn is_script_notice(doc: &Document, id: NodeId) -> bool {
    if doc.subtree_size(id) > NOSCRIPT_NOTICE_NODES {
        return false;
    }
    let text = doc.visible_text(id);
    super::blocks::text_words(&text) < NOSCRIPT_NOTICE_WORDS
        && super::verdicts::contains_ignore_case(&text, "javascript")
}

/// The content of a page that declares itself a product without what is no product's
/// content by its name ([`product_aside`](super::names::product_aside): its reviews, the
/// other products' carousels), as an article's comments and related stories are not the
/// article's; unless such an element holds most of the page's words.
pub(crate) fn drop_product_asides(
    doc: &Document,
    content: &mut Content,
    page_words: impl FnOnce() -> usize,
) {
    drop_named(doc, content, page_words, super::names::product_aside);
}

/// `content` without the page's fine print by its name
/// ([`fine_print`](super::names::fine_print): disclaimers, legal notes), unless such an
/// element holds most of the page's words.
pub(crate) fn drop_fine_print(
    doc: &Document,
    content: &mut Content,
    page_words: impl FnOnce() -> usize,
) {
    drop_named(doc, content, page_words, super::names::fine_print);
}

/// The words of a question that a hidden answer follows ([`show_closed`]).
const QUESTION_WORDS: usize = 30;

/// The words from which a hidden element after a question is its answer.
const ANSWER_WORDS: usize = 5;

/// `content` with what it hides that a reader opens, among its closed elements — hidden
/// ones ([`is_hidden`]) left out just below what it keeps, under half their words in
/// links: the panels a control on the page names (an accordion's or a tab's panel, whose
/// `id` an `aria-controls` names), and with `answers`, the answers under its questions (a
/// closed element of [`ANSWER_WORDS`] or more words, no control or form, right after a kept
/// element of at most [`QUESTION_WORDS`] words that ends in a question mark). The
/// container, which leaves hidden elements out, would keep the questions without their
/// answers. Panels a control names that stand deeper, below wrappers the container left
/// out, show too (`show_panels_between`). The ids the page's controls name are gathered once;
/// on most pages no control names one and nothing is closed, and nothing more is looked at.
///
/// [`is_hidden`]: super::verdicts::is_hidden
pub(crate) fn show_closed(doc: &Document, content: &mut Content, answers: bool) {
    let Some(root) = content.root else { return };
    let closed: Vec<NodeId> = doc
        .subtree(root)
        .map(NodeId)
        .take_while(|id| !deadline::due(id.index()))
        .filter(|id| {
            !content.is_content(*id)
                && doc.parent(*id).is_some_and(|p| content.is_content(p))
                && super::verdicts::is_hidden(doc, *id)
        })
        .collect();
    let mut counts: Option<(Vec<usize>, Vec<usize>)> = None;
    // The ids the page's controls name (most pages name none).
    let controlled: rustc_hash::FxHashSet<&str> = doc
        .elements()
        .filter_map(|id| doc.element(id)?.attr("aria-controls"))
        .flat_map(str::split_ascii_whitespace)
        .collect();
    show_panels_between(doc, content, root, &controlled, &mut counts);
    if closed.is_empty() {
        return;
    }
    // Panels: only on a page whose controls name one of them.
    let panels: Vec<(NodeId, &str)> = closed
        .iter()
        .filter_map(|id| Some((*id, doc.element(*id)?.attr("id")?)))
        .collect();
    if panels.iter().any(|(_, i)| controlled.contains(i)) {
        let (words, link_words) = counts.get_or_insert_with(|| visible_words(doc, root));
        let shown: Vec<NodeId> = panels
            .into_iter()
            .filter(|(id, i)| {
                let (w, l) = (words[id.index()], link_words[id.index()]);
                w > 0 && 2 * l < w && controlled.contains(i)
            })
            .map(|(id, _)| id)
            .collect();
        show(content, doc, &shown);
    }
    if !answers {
        return;
    }
    let (words, link_words) = counts.get_or_insert_with(|| visible_words(doc, root));
    let question = |q: NodeId| {
        content.is_content(q)
            && (1..=QUESTION_WORDS).contains(&words[q.index()])
            && doc.visible_text(q).trim_end().ends_with(['?', '？', '؟'])
    };
    // The element before each closed one: each parent's children are walked once.
    let mut before: rustc_hash::FxHashMap<NodeId, NodeId> = rustc_hash::FxHashMap::default();
    let mut walked: rustc_hash::FxHashSet<NodeId> = rustc_hash::FxHashSet::default();
    for p in closed.iter().filter_map(|c| doc.parent(*c)) {
        if walked.insert(p) {
            let children: Vec<NodeId> = doc.element_children(p).collect();
            before.extend(children.windows(2).map(|w| (w[1], w[0])));
        }
    }
    let shown: Vec<NodeId> = closed
        .iter()
        .copied()
        .filter(|c| {
            let (w, l) = (words[c.index()], link_words[c.index()]);
            w >= ANSWER_WORDS
                && 2 * l < w
                && !is_control(doc, *c)
                && doc.tag(*c).is_none_or(|t| *t != local_name!("form"))
                && before.get(c).copied().is_some_and(question)
        })
        .collect();
    show(content, doc, &shown);
}

/// Words from which a closed panel set among the content's text is a part of it.
const PANEL_WORDS: usize = 20;

/// `content` with the closed panels a control names ([`show_closed`]) that stand inside the
/// root between kept text but below wrappers the container left out: an accordion's steps,
/// whose wrappers hold no visible prose and so joined no part (energysage's install guide).
/// A panel of [`PANEL_WORDS`] or more words, under half in links, shows with the wrappers
/// that lead to it, not their other children (the accordion's header links).
fn show_panels_between(
    doc: &Document,
    content: &mut Content,
    root: NodeId,
    controlled: &rustc_hash::FxHashSet<&str>,
    counts: &mut Option<(Vec<usize>, Vec<usize>)>,
) {
    if controlled.is_empty() {
        return;
    }
    let kept_text = |id: &NodeId| content.is_content(*id) && doc.text(*id).is_some();
    let (Some(first), Some(last)) = (
        doc.subtree(root).map(NodeId).find(kept_text),
        doc.subtree(root).rev().map(NodeId).find(kept_text),
    ) else {
        return;
    };
    let mut shown = Vec::new();
    let mut ids = doc.subtree(root);
    while let Some(id) = ids.next().map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        if content.is_content(id)
            || doc.parent(id).is_none_or(|p| content.is_content(p))
            || !doc
                .element(id)
                .and_then(|e| e.attr("id"))
                .is_some_and(|i| controlled.contains(i))
        {
            continue;
        }
        let end = doc.subtree(id).end;
        if first.0 < id.0 && last.0 >= end && super::verdicts::is_hidden(doc, id) {
            let (words, link_words) = counts.get_or_insert_with(|| visible_words(doc, root));
            let (w, l) = (words[id.index()], link_words[id.index()]);
            if w >= PANEL_WORDS && 2 * l < w {
                shown.push(id);
                ids = end..ids.end;
            }
        }
    }
    for &panel in &shown {
        let mut up = doc.parent(panel);
        while let Some(a) = up.filter(|a| !content.is_content(*a) && doc.contains(root, *a)) {
            content.keep[a.index()] = true;
            up = doc.parent(a);
        }
    }
    show(content, doc, &shown);
}

/// `content` keeping the subtrees of `shown`.
fn show(content: &mut Content, doc: &Document, shown: &[NodeId]) {
    for c in shown {
        for d in doc.subtree(*c) {
            if let Some(k) = content.keep.get_mut(d as usize) {
                *k = true;
            }
        }
    }
}

/// `content` without the elements below its root that `named` picks and their subtrees,
/// but for those holding [`MAJORITY`] of the page's `page_words` (a wrapper so named).
fn drop_named(
    doc: &Document,
    content: &mut Content,
    page_words: impl FnOnce() -> usize,
    named: fn(&Document, NodeId) -> bool,
) {
    let Some(root) = content.root else { return };
    // Most pages name none: words are counted only on a page that does.
    if !doc
        .subtree(root)
        .map(NodeId)
        .any(|id| content.keep[id.index()] && named(doc, id))
    {
        return;
    }
    let page_words = page_words();
    let (words, _) = visible_words(doc, root);
    let dropped = excluded_below(doc, root, |id| {
        content.keep[id.index()]
            && (words[id.index()] as f64) < MAJORITY * page_words as f64
            && named(doc, id)
    });
    for (keep, dropped) in content.keep.iter_mut().zip(dropped) {
        *keep &= !dropped;
    }
}

/// Visible words under each element of `root`'s subtree, and of them those inside links,
/// summed children first: one pass, however deep the page.
fn visible_words(doc: &Document, root: NodeId) -> (Vec<usize>, Vec<usize>) {
    visible_kept_words(doc, root, |_| true)
}

/// [`visible_words`] of the text nodes `keep` keeps.
fn visible_kept_words(
    doc: &Document,
    root: NodeId,
    keep: impl Fn(NodeId) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let mut words = vec![0usize; doc.len()];
    let mut link_words = vec![0usize; doc.len()];
    let mut visible = vec![false; doc.len()];
    let mut in_link = vec![false; doc.len()];
    // Document order: a parent before its children.
    for id in visible_descendants(doc, root) {
        let i = id.index();
        visible[i] = true;
        in_link[i] = doc.tag(id).is_some_and(|t| *t == local_name!("a"))
            || doc.parent(id).is_some_and(|p| in_link[p.index()]);
        if doc.text(id).is_some() && keep(id) {
            words[i] = super::blocks::node_words(doc, id);
            if in_link[i] {
                link_words[i] = words[i];
            }
        }
    }
    for id in doc.subtree(root).rev().map(NodeId) {
        if let Some(p) = doc.parent(id).filter(|_| visible[id.index()] && id != root) {
            words[p.index()] += words[id.index()];
            link_words[p.index()] += link_words[id.index()];
        }
    }
    (words, link_words)
}

/// The nodes below `body` that `excluded` says are out, with their subtrees, in one pass in
/// document order (a parent before its children), however deep the page.
fn excluded_below(
    doc: &Document,
    body: NodeId,
    mut excluded: impl FnMut(NodeId) -> bool,
) -> Vec<bool> {
    let mut out = vec![false; doc.len()];
    for id in doc.subtree(body).map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        out[id.index()] =
            id != body && (doc.parent(id).is_some_and(|p| out[p.index()]) || excluded(id));
    }
    out
}

/// What the spread view adds to the container, in the terms of [`Rest::is_sections`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rest {
    /// Headings.
    pub headings: u32,
    /// Words.
    pub words: u32,
    /// Words inside links.
    pub link_words: u32,
}

impl Rest {
    /// The sums over `blocks`.
    pub(crate) fn of<'a>(blocks: impl Iterator<Item = &'a Block>) -> Rest {
        blocks.fold(Rest::default(), |r, b| Rest {
            headings: r.headings + u32::from(b.kind == BlockKind::Heading),
            words: r.words + b.words,
            link_words: r.link_words + b.link_words,
        })
    }

    /// Whether the rest reads as sections of prose: at least [`SECTION_HEADINGS`] headings,
    /// and (with `links`) under [`SECTION_LINKS`] of its words in links. A service page's
    /// features, pricing and answers read so; a thread's replies (no headings) and an
    /// article's related stories (links) do not.
    pub(crate) fn is_sections(&self, links: bool) -> bool {
        self.headings >= SECTION_HEADINGS
            && (!links || f64::from(self.link_words) < SECTION_LINKS * f64::from(self.words))
    }
}

/// Headings that make the rest of a page sections ([`Rest::is_sections`]).
pub(super) const SECTION_HEADINGS: u32 = 3;

/// The share of the rest's words in links under which it is prose ([`Rest::is_sections`]).
pub(super) const SECTION_LINKS: f64 = 0.1;

/// A form beside the content (search, comment, sign-up): one that holds less than half the
/// page's words and no `<article>`. Forums wrap a thread in a moderation `<form>`: that one
/// stays, by its words or, however short the thread, by its posts' `<article>`s.
pub(super) fn is_side_form(doc: &Document, id: NodeId, page_words: usize) -> bool {
    doc.tag(id).is_some_and(|t| *t == local_name!("form"))
        && !doc.subtree(id).any(|d| {
            doc.tag(NodeId(d))
                .is_some_and(|t| *t == local_name!("article"))
        })
        && (kept_words(doc, id, |_| true) as f64) < MAJORITY * page_words as f64
}

/// Words of the visible text under `root` of the nodes that `keep` keeps.
pub(crate) fn kept_words(doc: &Document, root: NodeId, keep: impl Fn(NodeId) -> bool) -> usize {
    visible_descendants(doc, root)
        .filter(|id| keep(*id))
        .map(|id| super::blocks::node_words(doc, id))
        .sum()
}

/// The keep mask of site-aware content: nodes the template does not claim, plus the
/// template elements that lead to them (so that renderers can walk down to the content).
pub fn non_template_mask(doc: &Document, template: &[bool]) -> Vec<bool> {
    let mut keep: Vec<bool> = (0..doc.len())
        .map(|i| !template.get(i).copied().unwrap_or(false))
        .collect();
    // Children before parents: a parent leading to kept content is walked through.
    for id in doc.ids().rev() {
        if deadline::due(id.index()) {
            break;
        }
        if keep[id.index()] {
            if let Some(p) = doc.parent(id) {
                if doc.element(id).is_some() || doc.text(id).is_some_and(|t| !t.trim().is_empty()) {
                    keep[p.index()] = true;
                }
            }
        }
    }
    keep
}
