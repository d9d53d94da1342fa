//! What inside the container is not content: link clusters, teasers, boilerplate names,
//! forms, labels, date lines, captions, the headline; and headings left without a section.

use markup5ever::local_name;

use super::aggregates::{Aggregates, MAJORITY};
use super::config::ContentConfig;
use super::names::names_replies;
use super::verdicts::{is_caption, is_link_cluster, is_table_part};
use crate::dom::tags::{heading_level, is_block, is_heading, is_list_item, is_media};
use crate::dom::{Document, NodeData, NodeId, deadline};
use crate::links::{Site, registrable_domain};

/// The keep mask of the container `root`: its nodes minus excluded and boilerplate-like
/// parts (link clusters, teasers, boilerplate names, forms, labels, date lines, captions,
/// the headline); `parts` are kept whole. Inside a listing's `records` links and cards
/// stay, and a record's title beside its picture is no caption; inside a thread's `posts`
/// cards stay.
///
/// With `sure` false, without the filters of labels, datelines, captions and the headline
/// either: the last resort of a page whose only text is short
/// ([`short_page_content`](super::short_page_content)).
#[allow(clippy::too_many_arguments)]
pub(super) fn prune(
    doc: &Document,
    root: NodeId,
    parts: &[NodeId],
    records: Option<NodeId>,
    posts: Option<NodeId>,
    agg: &Aggregates,
    config: &ContentConfig,
    title: Option<&str>,
    sure: bool,
) -> Vec<bool> {
    let is_headline = headline(doc, title, config);
    let mut cards = teasers(doc, root, agg);
    // On a listing page the records are the content: their links and cards stay.
    let in_records = |id: NodeId| records.is_some_and(|r| doc.contains(r, id));
    if records.is_some() {
        cards.iter_mut().for_each(|c| *c = false);
    }
    // A thread's posts are no teasers: forum software heads each with its poster's linked
    // name (XenForo's `<h3><a class=username>`).
    if let Some(p) = posts {
        for i in doc.subtree(p) {
            cards[i as usize] = false;
        }
    }
    let replies = thread_replies(doc, root, agg, config);
    let in_replies = |id: NodeId| replies.iter().any(|&r| doc.contains(r, id));
    for &r in &replies {
        for i in doc.subtree(r) {
            cards[i as usize] = false;
        }
    }
    let is_part = |id: NodeId| parts.contains(&id);
    // Inside a quote (an embedded tweet's attribution line keeps its date).
    let mut quoted = vec![false; doc.len()];
    for id in doc.subtree(root).map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        quoted[id.index()] = doc.parent(id).is_some_and(|p| quoted[p.index()])
            || doc.tag(id).is_some_and(|t| *t == local_name!("blockquote"));
    }
    // Link clusters, teasers, boilerplate-named parts and forms go, unless they hold most
    // of the content's prose: then they are wrappers that name or link badly.
    let is_noise = |id: NodeId| {
        let i = id.index();
        ((is_link_cluster(agg.words[i], agg.link_words[i])
            && !is_table_part(doc, id)
            && !in_records(id))
            || cards[i]
            || (agg.hints[i] < 0 && !(in_replies(id) && names_replies(doc, id)))
            || doc.tag(id).is_some_and(|t| *t == local_name!("form")))
            && (agg.mass[i] <= 0.0 || agg.prose[i] < MAJORITY * agg.prose[root.index()])
    };
    let mut keep = vec![false; doc.len()];
    // The structural filters (link clusters, teasers, boilerplate names, forms) may not
    // empty the content: when they would, the container is all the page has — a link-heavy
    // post, a page of dialogs — and only the sure filters apply.
    let mut structural = sure;
    loop {
        for id in doc.subtree(root).map(NodeId) {
            if deadline::due(id.index()) {
                break;
            }
            let i = id.index();
            if agg.excluded[i] && !is_part(id) {
                continue;
            }
            let parent_ok = id == root
                || is_part(id)
                || (doc
                    .parent(id)
                    .is_some_and(|p| keep[p.index()] && (p != root || parts == [root])));
            if !parent_ok {
                continue;
            }
            // Inline captions and credits (`<span class="caption">` inside a paragraph) have
            // no block of their own: they go by their name alone.
            let inline_caption = sure
                && config.drop_captions
                && agg.words[i] == 0
                && id != root
                && is_caption(doc, id);
            let drop = inline_caption
                || (!is_part(id)
                    && id != root
                    && doc.element(id).is_some()
                    && agg.words[i] > 0
                    && ((structural && is_noise(id))
                        || (sure
                            && ((config.drop_labels
                                && (is_label(doc, id, agg.words[i], agg.punct[i])
                                    || (!quoted[i] && is_dateline(doc, id, agg.words[i]))))
                                || (config.drop_captions
                                    && (is_caption(doc, id)
                                        || (is_beside_image(doc, id, &agg.words, &agg.media)
                                            // A record's title beside its picture (on
                                            // a thread, a poster's name by the avatar).
                                            && !(in_records(id)
                                                && !config.comments
                                                && holds_heading(doc, id)))))
                                || is_headline(id)))));
            keep[i] = !drop
                && !matches!(
                    doc.node(id).data,
                    NodeData::Comment(_) | NodeData::ProcessingInstruction(_)
                );
        }
        if !structural || agg.words[root.index()] == 0 || has_kept_text(doc, root, &keep) {
            break;
        }
        structural = false;
        keep.iter_mut().for_each(|k| *k = false);
    }
    keep
}

/// The replies of a thread read with its comments: the outermost parts of `root` named for
/// comments ([`names_replies`]) that hold a third or more of its prose. Forum software names
/// its replies so (Vanilla's `CommentsWrap` of `ItemComment`s); a comment box or a post's
/// few remarks (Stack Exchange's comments under an answer) hold less. Inside them, names
/// of comments are no boilerplate and cards are posts.
fn thread_replies(
    doc: &Document,
    root: NodeId,
    agg: &Aggregates,
    config: &ContentConfig,
) -> Vec<NodeId> {
    let mut found = Vec::new();
    let root_prose = agg.prose[root.index()];
    if !config.comments || root_prose <= 0.0 {
        return found;
    }
    let mut skip_to = 0;
    for id in doc.subtree(root).map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        if id.0 < skip_to || id == root || agg.hints[i] >= 0 {
            continue;
        }
        if agg.prose[i] >= REPLIES_SHARE * root_prose && names_replies(doc, id) {
            found.push(id);
            skip_to = doc.subtree(id).end;
        }
    }
    found
}

/// Share of a thread's prose that a part named for comments holds when it is the replies.
const REPLIES_SHARE: f64 = 1.0 / 3.0;

/// Whether an element is the headline, reported as the title: keeping it in the text would
/// repeat it. Sites word `<title>`, `og:title` and the `<h1>` a little differently ("Hunter
/// in Beijing diagnosed…" over "Hunter diagnosed… Beijing local"): most words shared
/// ([`HEADLINE_OVERLAP`]) is enough.
pub(super) fn headline<'d>(
    doc: &'d Document,
    title: Option<&str>,
    config: &ContentConfig,
) -> impl Fn(NodeId) -> bool + 'd {
    let titled: Vec<String> = [title.map(str::to_string), doc.title()]
        .into_iter()
        .flatten()
        .flat_map(|t| title_words(&t))
        .collect();
    let drop_headline = config.drop_headline;
    move |id: NodeId| {
        drop_headline
            && doc.element(id).is_some_and(|e| e.is(&local_name!("h1")))
            && doc.subtree_size(id) <= SMALL_SUBTREE
            && {
                let h = title_words(&doc.visible_text(id));
                let shared = h.iter().filter(|w| titled.contains(w)).count();
                !h.is_empty() && shared as f64 >= HEADLINE_OVERLAP * h.len() as f64
            }
    }
}

/// The teaser cards inside `root` ([`teaser_cards`]), none on a listing page: there the
/// teasers are the content.
pub(super) fn teasers(doc: &Document, root: NodeId, agg: &Aggregates) -> Vec<bool> {
    let mut cards = teaser_cards(doc, root, &agg.words, &agg.link_words);
    let card_prose: f64 = doc
        .subtree(root)
        .map(NodeId)
        .filter(|c| cards[c.index()] && !doc.parent(*c).is_some_and(|p| cards[p.index()]))
        .map(|c| agg.prose[c.index()])
        .sum();
    if card_prose >= LISTING * agg.prose[root.index()] {
        cards.iter_mut().for_each(|c| *c = false);
    }
    cards
}

/// Blocks of at most this many words with a date in them are publication metadata.
pub(super) const DATELINE_WORDS: u32 = 16;

/// Date lines and headlines are small elements: at most this many nodes.
pub(super) const SMALL_SUBTREE: usize = 64;

/// Text beside an image of at most this many words is its caption.
pub(super) const CAPTION_WORDS: u32 = 40;

/// Teaser cards holding at least this share of the content's prose make a listing page,
/// whose teasers are its content.
pub(super) const LISTING: f64 = 0.8;

/// An `<h1>` sharing at least this share of its words with the page title is the headline.
pub(super) const HEADLINE_OVERLAP: f64 = 0.6;

/// A teaser card (title, excerpt, byline) has at most this many words.
pub(super) const CARD_WORDS: u32 = 80;

/// Headings of at most this many words are dropped when their section is empty.
pub(super) const ORPHAN_HEADING_WORDS: u32 = 8;

/// Teaser cards inside `root`: a heading that is a link is the title of another page, and
/// the largest card-sized element around it that holds no other such title, and no heading
/// that links nowhere before it, is that page's teaser (title, excerpt, author, date).
pub(super) fn teaser_cards(
    doc: &Document,
    root: NodeId,
    words: &[u32],
    link_words: &[u32],
) -> Vec<bool> {
    let range = doc.subtree(root);
    let len = (range.end - range.start) as usize;
    let at = |id: NodeId| (id.0 - range.start) as usize;
    let linked = |id: NodeId| {
        doc.tag(id).is_some_and(is_heading)
            && words[id.index()] > 0
            && link_words[id.index()] == words[id.index()]
            && !links_are_buttons(doc, id)
    };
    let names = named_sites(doc, range.clone().map(NodeId).filter(|id| linked(*id)));
    // A heading that links nowhere titles a section: above a linked title, the section is
    // no card of it (a column's heading over its list and one linked name).
    let plain = |id: NodeId| {
        doc.tag(id).is_some_and(is_heading) && words[id.index()] > 0 && link_words[id.index()] == 0
    };
    // Linked headings per element of the subtree, children before parents.
    let mut titles = vec![0u32; len];
    // The first unlinked heading per element of the subtree (`u32::MAX`: none).
    let mut others = vec![u32::MAX; len];
    for id in range.clone().rev().map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        if linked(id) {
            titles[at(id)] += 1;
        }
        if plain(id) {
            others[at(id)] = id.0;
        }
        if id != root {
            if let Some(p) = doc.parent(id) {
                titles[at(p)] += titles[at(id)];
                others[at(p)] = others[at(p)].min(others[at(id)]);
            }
        }
    }
    let mut cards = vec![false; doc.len()];
    for id in range.clone().map(NodeId).filter(|id| linked(*id)) {
        if deadline::due(id.index()) {
            break;
        }
        let mut card = id;
        let mut article = false;
        while let Some(p) = doc.parent(card).filter(|p| {
            // The container itself may be the linked heading: never leave the subtree.
            *p != root
                && doc.contains(root, *p)
                && titles[at(*p)] == 1
                && others[at(*p)] > id.0
                && words[p.index()] <= CARD_WORDS
        }) {
            card = p;
            article |= doc.tag(p).is_some_and(|t| *t == local_name!("article"));
        }
        // An item naming its own site is no teaser, unless it is an article of its own (an
        // aggregator's story cards lead to other sites too).
        if article || names.binary_search(&id).is_err() {
            cards[card.index()] = true;
        }
    }
    cards
}

/// Whether the links under a heading all act as buttons (`role="button"`: an accordion's
/// question, a tab's title): they open the page's own text, not another page. Looks at
/// [`SMALL_SUBTREE`] nodes at most.
fn links_are_buttons(doc: &Document, heading: NodeId) -> bool {
    let mut links = doc
        .subtree(heading)
        .take(SMALL_SUBTREE)
        .map(NodeId)
        .filter_map(|d| doc.element(d))
        .filter(|e| e.name.local == local_name!("a"))
        .peekable();
    links.peek().is_some()
        && links.all(|e| {
            e.attr("role")
                .is_some_and(|r| r.trim().eq_ignore_ascii_case("button"))
        })
}

/// The linked headings among `headings` that name other sites, one each: a list article's
/// brands, shops or tools, each heading leading to its own site. A teaser's title leads to
/// another page of the page's own site (a site it names for itself:
/// [`document_url`](super::declared::document_url));
/// headings leading to one other site (its reviews on a rating site) or a lone one (a link's
/// preview) are still cards.
fn named_sites(doc: &Document, headings: impl Iterator<Item = NodeId>) -> Vec<NodeId> {
    // Only an absolute address leads to another site.
    let absolute: Vec<(&str, NodeId)> = headings
        .filter_map(|h| {
            let href = doc.descendants(h).find_map(|a| {
                doc.element(a)
                    .filter(|e| e.is(&local_name!("a")))?
                    .attr("href")
            })?;
            let href = href.trim();
            let lower = href.get(..8).unwrap_or(href).to_ascii_lowercase();
            (lower.starts_with("http://") || lower.starts_with("https://")).then_some((href, h))
        })
        .collect();
    // Most pages have fewer headings linked by absolute address: none is parsed, and the
    // page's own address is not looked for.
    if absolute.len() < NAMED_SITES {
        return Vec::new();
    }
    let Some(site) = super::declared::document_url(doc).map(|u| Site::of(&u)) else {
        return Vec::new();
    };
    let mut off: Vec<(String, NodeId)> = absolute
        .into_iter()
        .filter_map(|(href, h)| {
            let u = url::Url::parse(href).ok().filter(|u| !site.contains(u))?;
            Some((registrable_domain(&u)?, h))
        })
        .collect();
    off.sort();
    let mut named: Vec<NodeId> = off
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|g| g.len() == 1)
        .map(|g| g[0].1)
        .collect();
    if named.len() < NAMED_SITES {
        named.clear();
    }
    named.sort();
    named
}

/// Headings naming as many other sites, one each, make a list of them ([`named_sites`]).
const NAMED_SITES: usize = 3;

/// Drop headings whose section lost all its text: the "Related articles" or "More on this
/// topic" over a teaser list that was dropped, a heading left over at the end. An image
/// or a video is a section's content too. A heading inside a listing's `records` is a
/// record's title and needs no text after it (a shop's tile: its name over a price that
/// only screen readers are spared).
pub(super) fn drop_orphan_headings(
    doc: &Document,
    root: NodeId,
    records: Option<NodeId>,
    keep: &mut [bool],
    words: &[u32],
) {
    let in_records = |id: NodeId| records.is_some_and(|r| doc.contains(r, id));
    let end = doc.node(root).end.0;
    // Without a kept heading there is nothing to decide (a page of bare blocks).
    if !(root.0..end).any(|i| keep[i as usize] && doc.tag(NodeId(i)).is_some_and(is_heading)) {
        return;
    }
    // Nodes whose text counts for their section: visible (no reader sees the text of
    // scripts and styles), and not inside a heading (a heading's own text is not its
    // section's).
    let mut counts = vec![false; (end - root.0) as usize];
    let mut heading_end = 0;
    for id in doc.visible(root) {
        if deadline::due(id.index()) {
            break;
        }
        if id.0 < heading_end {
            continue;
        }
        if keep[id.index()] && doc.tag(id).is_some_and(is_heading) {
            heading_end = doc.node(id).end.0;
        }
        counts[(id.0 - root.0) as usize] = true;
    }
    // Scan backwards: `text_after` tells whether kept text follows before the next heading
    // of each level, so every heading is decided in one pass.
    let mut text_after = [false; 7];
    let mut i = end;
    while i > root.0 {
        i -= 1;
        let id = NodeId(i);
        if !keep[id.index()] {
            continue;
        }
        if let Some(level) = doc.tag(id).and_then(heading_level) {
            let level = usize::from(level);
            // Long "headings" are lead paragraphs in heading markup.
            if !text_after[level] && words[id.index()] <= ORPHAN_HEADING_WORDS && !in_records(id) {
                keep[id.index()] = false;
            }
            // Sections of this level and deeper end here; a heading itself is content for
            // the sections of the levels above it.
            let kept = keep[id.index()];
            for (l, t) in text_after.iter_mut().enumerate() {
                if l >= level {
                    *t = false;
                }
                if l < level && kept {
                    *t = true;
                }
            }
        } else if counts[(i - root.0) as usize]
            && (doc.text(id).is_some_and(|t| !t.trim().is_empty())
                || doc.tag(id).is_some_and(is_media))
        {
            text_after = [true; 7];
        }
    }
}

/// A stand-alone short label: a block-level element of at most three words and no
/// sentence punctuation, not a heading, list item, table cell or code.
pub(super) fn is_label(doc: &Document, id: NodeId, words: u32, punct: u32) -> bool {
    words <= 3 && punct == 0 && is_free_block(doc, id)
}

/// A block-level element that is not a heading or part of a list (a list item's own
/// paragraph included), table or code block: where stand-alone labels and date lines live.
pub(super) fn is_free_block(doc: &Document, id: NodeId) -> bool {
    let in_item = || {
        doc.parent(id)
            .and_then(|p| doc.tag(p))
            .is_some_and(is_list_item)
    };
    doc.element(id).is_some_and(|e| {
        let tag = &e.name.local;
        is_block(tag)
            && !is_heading(tag)
            && !is_list_item(tag)
            // A list item's paragraph is the item's text (`<li><p>SSO groups</p></li>`).
            && (*tag != local_name!("p") || !in_item())
            && !matches!(
                *tag,
                local_name!("td")
                    | local_name!("th")
                    | local_name!("tr")
                    | local_name!("table")
                    | local_name!("pre")
                    | local_name!("ul")
                    | local_name!("ol")
                    | local_name!("dl")
                    | local_name!("tbody")
                    | local_name!("thead")
            )
    })
}

/// A date or copyright line: a short block with a date or a time in it and no sentence end
/// ("15. Mai 2019, 05:28 Uhr", "By Jane Doe, Feb 8, 2020", "Publikacja: 04.05.2021"), or
/// with a `©` — publication metadata, told by digits and signs in any language.
pub(super) fn is_dateline(doc: &Document, id: NodeId, words: u32) -> bool {
    // List items carry dates as data (a timeline) unless there is little else to them
    // (`<li>18 Nov 2019, 19:09</li>` in a meta list).
    let fits = if is_free_block(doc, id) {
        words <= DATELINE_WORDS
    } else {
        words <= DATELINE_WORDS / 2 && doc.tag(id).is_some_and(is_list_item)
    };
    // A date line is a small element: a deep wrapper around one is not one itself (and
    // reading its text at every level of a deep nest would take quadratic time).
    if words == 0 || !fits || doc.subtree_size(id) > SMALL_SUBTREE {
        return false;
    }
    let text = doc.visible_text(id);
    let text = text.trim_end();
    text.contains('©') || (!text.ends_with(['.', '!', '?', '。', '！', '？']) && has_date(text))
}

/// Whether `text` holds a year (1900–2099 standing alone), a numeric date (`4.5.21`,
/// `04/21/2022`) or a clock time (`5:28`).
pub(super) fn has_date(text: &str) -> bool {
    date_in(text, true)
}

/// Whether `text` holds a clock time or a numeric date (`04.05.2021`, `03/01/2012`), the
/// stamp of a story's dateline; a year alone is not one ([`has_date`]).
fn has_stamp(text: &str) -> bool {
    date_in(text, false)
}

/// [`has_date`], a year alone counting with `years`.
fn date_in(text: &str, years: bool) -> bool {
    let b = text.as_bytes();
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - start)
    };
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let (end, len) = digits(i);
        i = end;
        let joined = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
        let alone = (start == 0 || !joined(b[start - 1])) && (end == b.len() || !joined(b[end]));
        let run = &b[start..end];
        if years && len == 4 && alone && (run.starts_with(b"19") || run.starts_with(b"20")) {
            return true;
        }
        if len > 2 || end + 1 >= b.len() {
            continue;
        }
        // A clock time `5:28`, or a numeric date with two separators `04.05.2021`.
        let sep = b[end];
        let (e2, l2) = digits(end + 1);
        if sep == b':' && l2 == 2 {
            return true;
        }
        if matches!(sep, b'.' | b'/') && (1..=2).contains(&l2) && e2 < b.len() && b[e2] == sep {
            let (_, l3) = digits(e2 + 1);
            if l3 == 2 || l3 == 4 {
                return true;
            }
        }
    }
    false
}

/// Whether `id` is a heading or holds one (a record's title, however it is wrapped).
fn holds_heading(doc: &Document, id: NodeId) -> bool {
    doc.subtree(id)
        .take(SMALL_SUBTREE)
        .any(|d| doc.tag(NodeId(d)).is_some_and(is_heading))
}

/// Captions and credits are short text set beside an image in a wrapper of their own
/// (`<div><img><div>Photo: …</div></div>`), whatever their class names say.
pub(super) fn is_beside_image(doc: &Document, id: NodeId, words: &[u32], media: &[bool]) -> bool {
    let w = words[id.index()];
    if w == 0 || w > CAPTION_WORDS || media[id.index()] {
        return false;
    }
    let Some(parent) = doc.parent(id) else {
        return false;
    };
    words[parent.index()] == w
        && doc
            .element_children(parent)
            .any(|c| c != id && (media[c.index()] || doc.tag(c).is_some_and(is_media)))
}

/// Whether a story's dateline stands by `root`'s opening: a short text (at most
/// [`DATELINE_WORDS`] words, outside headings) with a clock time or a numeric date
/// ([`has_stamp`]) among its first [`DATED_WORDS`] words or as many words before it. News
/// sites stamp each story so ("17.01.2012 18:16"); a listing's intro carries no stamp.
pub(crate) fn opens_with_date(doc: &Document, root: NodeId) -> bool {
    let stamp = |id: NodeId, t: &str| {
        let words = super::blocks::text_words(t);
        let dated = words <= DATELINE_WORDS as usize
            && has_stamp(t)
            && !doc
                .ancestors(id)
                .take(SMALL_SUBTREE)
                .any(|a| doc.tag(a).is_some_and(is_heading));
        (dated, words)
    };
    // The container's first words, then the words before it.
    let (mut inside, mut before) = (0usize, 0usize);
    for i in doc.subtree(root) {
        if inside > DATED_WORDS || deadline::due(i as usize) {
            break;
        }
        if let Some(t) = doc.text(NodeId(i)) {
            let (dated, words) = stamp(NodeId(i), t);
            if dated {
                return true;
            }
            inside += words;
        }
    }
    let mut i = root.0;
    while i > 0 && before <= DATED_WORDS {
        i -= 1;
        if let Some(t) = doc.text(NodeId(i)) {
            let (dated, words) = stamp(NodeId(i), t);
            if dated {
                return true;
            }
            before += words;
        }
    }
    false
}

/// Words around a container's opening where its dateline stands ([`opens_with_date`]).
pub(crate) const DATED_WORDS: usize = 30;

/// Whether any visible text under `root` is kept (a kept node's text under kept elements).
pub(crate) fn has_kept_text(doc: &Document, root: NodeId, keep: &[bool]) -> bool {
    let mut walk = doc.visible(root);
    while let Some(id) = walk.next() {
        // The root is walked into whatever its own mark: views mark it or not.
        if !keep.get(id.index()).copied().unwrap_or(false) && id != root {
            walk.skip_subtree(id);
        } else if doc.text(id).is_some_and(|t| !t.trim().is_empty()) {
            return true;
        }
    }
    false
}

/// Whether what `keep` keeps under `root` (the root walked into whatever its own mark, as
/// [`has_kept_text`] does) is some text, all of it inside links (`<a href>`), under `max`
/// words: a menu. The walk stops at the first word outside a link, which on most pages is
/// among the first.
pub(crate) fn is_menu(doc: &Document, root: NodeId, keep: &[bool], max: usize) -> bool {
    let mut words = 0;
    // The end of the outermost open link, in document order.
    let mut link_end = 0;
    let mut walk = doc.visible(root);
    while let Some(id) = walk.next() {
        if !keep.get(id.index()).copied().unwrap_or(false) && id != root {
            walk.skip_subtree(id);
            continue;
        }
        if id.0 >= link_end
            && doc
                .element(id)
                .is_some_and(|e| e.is(&local_name!("a")) && e.attr("href").is_some())
        {
            link_end = doc.subtree(id).end;
        }
        if let Some(t) = doc.text(id) {
            let n = super::blocks::text_words(t);
            if n > 0 && id.0 >= link_end {
                return false;
            }
            words += n;
            if words >= max {
                return false;
            }
        }
    }
    words > 0
}

/// Lower-cased alphanumeric words of a title.
pub(super) fn title_words(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}
