//! The main container: the best candidate by net mass, tightened to the deepest element
//! that holds nearly all of it, widened by sibling containers with prose, grown to its
//! `<article>` or `<main>`; and the lists of records that make a page a listing.

use markup5ever::{LocalName, local_name};

use super::aggregates::{Aggregates, MAJORITY};
use super::config::ContentConfig;
use super::declared::declares_article;
use super::verdicts::{
    declares_article_body, is_declared_main, is_link_cluster, is_main_element, is_streamed_segment,
};
use crate::dom::tags::is_heading;
use crate::dom::{Document, NodeId, deadline};

/// Tightening keeps at least this share of the container's prose: lead paragraphs outside
/// the inner wrapper are content.
pub(super) const TIGHTEN_PROSE: f64 = 0.95;

/// Weight of the net mass of candidates inside boilerplate-named regions: a short article
/// still beats a long cookie notice or sidebar text.
pub(super) const NEGATIVE_WEIGHT: f64 = 0.25;

/// How many ancestors up the main container may grow by absorbing prose siblings.
pub(super) const EXPAND_LEVELS: usize = 2;

/// The candidates — elements with text, not excluded, `body` first — and the best of them
/// by net mass, nudged by name hints. `None` when the page has no text.
///
/// Boilerplate-named regions (a sidebar, a cookie notice) hold the main content only when
/// nothing else has prose: a short article still beats a long cookie notice.
pub(super) fn choose(
    doc: &Document,
    body: NodeId,
    agg: &Aggregates,
) -> Option<(NodeId, Vec<NodeId>)> {
    let score = |id: NodeId| {
        // Themes put page-type classes on <body> ("ArticlePage-body"): no hint there.
        let m = agg.mass[id.index()];
        if id == body {
            m
        } else if agg.negative[id.index()] {
            m * NEGATIVE_WEIGHT
        } else {
            // Not `body`: what a page holds besides its content is no evidence against it.
            discounted_mass(agg, id) * (1.0 + 0.5 * f64::from(agg.hints[id.index()]))
        }
    };
    let candidates: Vec<NodeId> = std::iter::once(body)
        .chain(doc.descendants(body))
        .filter(|id| {
            doc.element(*id).is_some() && !agg.excluded[id.index()] && agg.words[id.index()] > 0
        })
        .collect();
    let best = *candidates
        .iter()
        .max_by(|a, b| score(**a).total_cmp(&score(**b)).then(b.cmp(a)))?;
    if tracing::enabled!(tracing::Level::TRACE) {
        let mut top: Vec<NodeId> = candidates.clone();
        top.sort_by(|a, b| score(*b).total_cmp(&score(*a)));
        for id in top.into_iter().take(8) {
            let i = id.index();
            tracing::trace!(
                path = %doc.dom_path(id),
                score = score(id),
                mass = agg.mass[i],
                words = agg.words[i],
                hint = agg.hints[i],
                negative = agg.negative[i],
                "candidate"
            );
        }
    }
    Some((best, candidates))
}

/// The net mass of an element that is not boilerplate-named, with the largest such region
/// it wraps discounted as that region itself is ([`NEGATIVE_WEIGHT`]): a wrapper around a
/// site's terms or sidebar is not content because the terms are long.
fn discounted_mass(agg: &Aggregates, id: NodeId) -> f64 {
    agg.mass[id.index()] - (1.0 - NEGATIVE_WEIGHT) * agg.negative_mass[id.index()]
}

/// The deepest candidate inside `best` that still holds most of its mass
/// ([`ContentConfig::tighten`]) and nearly all of its prose ([`TIGHTEN_PROSE`]).
pub(super) fn tighten(
    doc: &Document,
    best: NodeId,
    candidates: &[NodeId],
    agg: &Aggregates,
    config: &ContentConfig,
) -> NodeId {
    let best_mass = agg.mass[best.index()];
    let best_prose = agg.prose[best.index()];
    let mut root = best;
    if best_mass > 0.0 {
        for &c in candidates.iter().filter(|c| doc.contains(best, **c)) {
            if agg.mass[c.index()] >= config.tighten * best_mass
                && agg.prose[c.index()] >= TIGHTEN_PROSE * best_prose
                && doc.node(c).depth > doc.node(root).depth
            {
                root = c;
            }
        }
    }
    root
}

/// Content split over sibling containers (a recipe's ingredients and steps, an article
/// body after a lead block): siblings with real prose mass ([`ContentConfig::expand`]) join
/// `root`, up to [`EXPAND_LEVELS`] ancestors up. The new container, and its parts: the
/// elements of it that are content whole.
pub(super) fn widen(
    doc: &Document,
    body: NodeId,
    root: NodeId,
    agg: &Aggregates,
    config: &ContentConfig,
) -> (NodeId, Vec<NodeId>) {
    let mut parts = vec![root];
    let mut top = root;
    let mut base_mass = agg.mass[root.index()];
    // Where the container stood before header levels were climbed past ([`thin_level`]):
    // they count only when siblings join above them.
    let mut before_thin: Option<(NodeId, Vec<NodeId>)> = None;
    let mut thin = 0;
    let mut levels = 0;
    while levels < EXPAND_LEVELS {
        if config.expand <= 0.0 || base_mass <= 0.0 {
            break;
        }
        // Wrappers that add no text of their own (a paragraph in its own `<div>`) are not a
        // level: the siblings worth looking at are those of the outermost wrapper.
        while let Some(parent) = doc.parent(top).filter(|p| {
            *p != body && parts == [top] && agg.words[p.index()] == agg.words[top.index()]
        }) {
            parts = vec![parent];
            top = parent;
        }
        let Some(parent) = doc
            .parent(top)
            .filter(|p| *p != body && doc.contains(body, *p))
        else {
            break;
        };
        let threshold = (config.expand * base_mass).max(10.0);
        let siblings: Vec<NodeId> = doc
            .element_children(parent)
            .filter(|c| {
                *c != top
                    && !agg.excluded[c.index()]
                    // As boilerplate-named siblings do not join, so their text does not
                    // carry the wrapper that holds them.
                    && agg.mass[c.index()] - agg.negative_mass[c.index()] >= threshold
                    && !is_link_cluster(agg.words[c.index()], agg.link_words[c.index()])
                    && agg.hints[c.index()] >= 0
            })
            .collect();
        if siblings.is_empty() {
            if thin < THIN_LEVELS && thin_level(doc, parent, top, agg) {
                before_thin.get_or_insert_with(|| (top, parts.clone()));
                thin += 1;
                top = parent;
                continue;
            }
            break;
        }
        levels += 1;
        // The previous top joins as a whole; so do the qualifying siblings.
        if top != root || parts.len() > 1 {
            parts.retain(|p| !doc.contains(top, *p) || *p == top);
            if !parts.contains(&top) {
                parts.push(top);
            }
        }
        base_mass += siblings.iter().map(|c| agg.mass[c.index()]).sum::<f64>();
        parts.extend(siblings);
        parts.sort();
        top = parent;
        before_thin = None;
    }
    // Header levels climbed past with nothing joined above them stay out.
    if let Some((t, p)) = before_thin {
        top = t;
        parts = p;
    }
    if top != root {
        join_the_flow(doc, top, &mut parts, agg);
    }
    (top, parts)
}

/// Header levels [`widen`] climbs past when nothing joins at them.
const THIN_LEVELS: usize = 3;

/// Whether `parent` adds to `top` only a header: up to [`HEADER_WORDS`] words of headings,
/// link clusters (breadcrumbs, a button), excluded or wordless elements, and no text of its
/// own. A category page heads its
/// intro with its title and breadcrumbs, a level or two below the section that holds the
/// rest of its text (fleetfeet's "Free Shipping & Returns"). The page's declared main
/// element and articles are whole: no climbing out of them or into them.
fn thin_level(doc: &Document, parent: NodeId, top: NodeId, agg: &Aggregates) -> bool {
    if is_main_element(doc, top) || is_main_element(doc, parent) {
        return false;
    }
    let mut header_words = 0;
    for c in doc.element_children(parent).filter(|c| *c != top) {
        let i = c.index();
        let header = agg.words[i] == 0
            || agg.excluded[i]
            || doc.tag(c).is_some_and(is_heading)
            || is_link_cluster(agg.words[i], agg.link_words[i]);
        if !header {
            return false;
        }
        header_words += agg.words[i];
    }
    header_words <= HEADER_WORDS
        && agg.words[parent.index()] == agg.words[top.index()] + header_words
}

/// Words up to which what a level adds is a header (a title, a breadcrumb trail, a button),
/// not a column of its own (a sidebar of teasers, a box of links).
const HEADER_WORDS: u32 = 16;

/// The paragraphs and headings of `top` between its first and last parts join them: a
/// story's sections are the content, and so is the short paragraph between two of them,
/// which weighs too little to join as a sibling of its own.
fn join_the_flow(doc: &Document, top: NodeId, parts: &mut Vec<NodeId>, agg: &Aggregates) {
    if parts.contains(&top) {
        return;
    }
    // The parts are in document order (`widen` sorts them) and inside `top`: a child of
    // `top` holds one when the first part at or after it starts inside its subtree. A
    // binary search, not a scan of the parts per child: a parent of 50,000 paragraphs may
    // have as many parts.
    let in_part = |c: NodeId| {
        let end = doc.subtree(c).end;
        let i = parts.partition_point(|p| p.0 < c.0);
        parts.get(i).is_some_and(|p| p.0 < end)
    };
    let children: Vec<NodeId> = doc.element_children(top).collect();
    let (Some(first), Some(last)) = (
        children.iter().position(|c| in_part(*c)),
        children.iter().rposition(|c| in_part(*c)),
    ) else {
        return;
    };
    let flow: Vec<NodeId> = children[first..=last]
        .iter()
        .copied()
        .filter(|c| {
            !in_part(*c)
                && doc
                    .tag(*c)
                    .is_some_and(|t| *t == local_name!("p") || is_heading(t))
                && !agg.excluded[c.index()]
                && agg.hints[c.index()] >= 0
                && agg.words[c.index()] > 0
                && !is_link_cluster(agg.words[c.index()], agg.link_words[c.index()])
        })
        .collect();
    if !flow.is_empty() {
        parts.extend(flow);
        parts.sort();
    }
}

/// A list of records: sibling elements of one kind (tag and class), each with text of its
/// own beside its links — search results, product cards, job rows, thread lists.
#[derive(Debug, Clone, Copy)]
pub(super) struct Records {
    /// The parent of the records.
    pub(super) container: NodeId,
    /// Words of the records.
    pub(super) words: u32,
}

/// A list has at least this many records.
pub(super) const MIN_RECORDS: usize = 5;

/// On a listing page the records hold at least this factor of the words of the prose
/// content found without them.
pub(super) const RECORDS_OVER_PROSE: f64 = 3.0;

/// The share of a kind's words above which its largest member is the page's content region
/// and the others its chrome: layout, not records (old news sites lay a page out in
/// class-less `<div>`s told apart by their ids). Chosen by 5-fold cross-validation by domain
/// on WCXB dev and daniel-dev together (every fold picks it; 0.6 to 0.8 score alike;
/// BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
pub(super) const LAYOUT_SHARE: f64 = 0.7;

/// The words of a container that is an article of its own whatever records the page lists
/// elsewhere (its related and latest stories), with under [`OWN_ARTICLE_LINKS`] of them in
/// links. Chosen with it by 5-fold cross-validation by domain on WCXB dev and daniel-dev
/// together (BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
pub(super) const OWN_ARTICLE_WORDS: u32 = 50;

/// The share of an article container's words in links under which it reads as its own text.
pub(super) const OWN_ARTICLE_LINKS: f64 = 0.3;

/// A kind of record, as [`records`] groups them: tag and first class.
type Kind<'a> = (&'a LocalName, &'a str);
/// A kind's tally under one parent: children, children that read as records, words, the
/// largest child's words.
type Tally = (usize, usize, u32, u32);

/// Add a run's tally to its kind's.
fn add<'a>(groups: &mut rustc_hash::FxHashMap<Kind<'a>, Tally>, run: Option<(Kind<'a>, Tally)>) {
    if let Some((key, (n, with_text, words, largest))) = run {
        let g = groups.entry(key).or_insert((0, 0, 0, 0));
        g.0 += n;
        g.1 += with_text;
        g.2 += words;
        g.3 = g.3.max(largest);
    }
}

/// The largest list of records on the page outside boilerplate: the element with the most
/// words in at least [`MIN_RECORDS`] element children of one tag and first class, most of
/// which read as records ([`is_record`]; menus are lists of bare links) and none of which
/// holds [`LAYOUT_SHARE`] of their words.
pub(super) fn records(doc: &Document, body: NodeId, agg: &Aggregates) -> Option<Records> {
    let mut best: Option<Records> = None;
    let mut groups: rustc_hash::FxHashMap<Kind, Tally> = rustc_hash::FxHashMap::default();
    for id in std::iter::once(body).chain(doc.descendants(body)) {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        if agg.excluded[i]
            || agg.negative[i]
            || doc.element(id).is_none()
            || agg.words[i] < best.map_or(1, |b| b.words)
        {
            continue;
        }
        groups.clear();
        // Records come in runs of one kind: a run is counted apart and added to its group
        // when the kind changes (a list of 100,000 items is one map update, not 100,000).
        let mut run: Option<(Kind, Tally)> = None;
        for c in doc.element_children(id) {
            let ci = c.index();
            // A part named like chrome (`nav-breadcrumbs`, `footer-links`) is no record: layout
            // rows of one class hold the header, the breadcrumbs and the footer.
            if agg.excluded[ci] || agg.words[ci] == 0 || agg.negative[ci] {
                continue;
            }
            let Some(e) = doc.element(c) else { continue };
            // Streamed segments sit side by side only in the source: a script moves each
            // to its place in the page.
            if e.name.local == local_name!("p")
                || is_heading(&e.name.local)
                || is_streamed_segment(e)
            {
                continue;
            }
            // Records of one kind share their first class; the others mark states
            // (`featured`, `sold-out`).
            let key = (&e.name.local, e.classes().next().unwrap_or(""));
            // (The same string is most often the same slice: no byte compare.)
            let same = |k: &Kind| k.0 == key.0 && (std::ptr::eq(k.1, key.1) || k.1 == key.1);
            if run.as_ref().is_some_and(|(k, _)| !same(k)) {
                add(&mut groups, run.take());
            }
            let g = &mut run.get_or_insert((key, (0, 0, 0, 0))).1;
            g.0 += 1;
            g.1 += usize::from(is_record(agg, c));
            g.2 += agg.words[ci];
            g.3 = g.3.max(agg.words[ci]);
        }
        add(&mut groups, run);
        for &(n, with_text, words, largest) in groups.values() {
            if n >= MIN_RECORDS
                && with_text * 2 >= n
                && f64::from(largest) < LAYOUT_SHARE * f64::from(words)
                && words > best.map_or(0, |b| b.words)
            {
                best = Some(Records {
                    container: id,
                    words,
                });
            }
        }
    }
    best
}

/// Whether `id` reads as a record: it links to its item and says something of it beside
/// the link (outside a heading: a box's title over its links, "Most read", says nothing of
/// any item), or its link is a card of several blocks (title, date, price). A menu item is
/// one link, or a heading over a list of links (a link per block).
pub(super) fn is_record(agg: &Aggregates, id: NodeId) -> bool {
    let i = id.index();
    let (words, link_words) = (agg.words[i], agg.link_words[i]);
    link_words > 0
        && (link_words + agg.heading_words[i] < words
            || (agg.blocks[i] >= 2 && 2 * agg.links[i] <= agg.blocks[i]))
}

/// Whether the page is a listing: the container is one card of the records, or (on a page
/// that does not declare itself an article) the records outweigh the prose content found
/// without them ([`RECORDS_OVER_PROSE`]) while it is not an article of its own
/// ([`OWN_ARTICLE_WORDS`]), or they are inside it and hold most of its words.
pub(super) fn is_listing(
    doc: &Document,
    root: NodeId,
    list: Records,
    agg: &Aggregates,
    article: bool,
) -> bool {
    let prose = agg.prose[root.index()].max(0.0);
    // A container that is one card of the records (a fifth of their words at most) is a
    // teaser: the page lists, whatever it declares.
    let one_card = root != list.container
        && doc.contains(list.container, root)
        && agg.words[root.index()] as usize * MIN_RECORDS <= list.words as usize;
    if one_card {
        true
    } else if article {
        false
    } else if doc.contains(root, list.container) {
        f64::from(list.words) >= MAJORITY * f64::from(agg.words[root.index()])
    } else {
        // Beside an article of its own, however short, records elsewhere are its related
        // and latest stories (news pages without `og:type` list several such columns).
        let (words, link_words) = (agg.words[root.index()], agg.link_words[root.index()]);
        let own_article = !doc.contains(list.container, root)
            && words >= OWN_ARTICLE_WORDS
            && f64::from(link_words) < OWN_ARTICLE_LINKS * f64::from(words);
        !own_article && f64::from(list.words) >= RECORDS_OVER_PROSE * prose
    }
}

/// The records' container grown to the wrappers that add a heading or an introduction to
/// it: ancestors whose words are at most [`RECORDS_GROWTH`] times the records'.
pub(super) fn lift_records(
    doc: &Document,
    body: NodeId,
    container: NodeId,
    agg: &Aggregates,
) -> NodeId {
    let mut top = container;
    while let Some(p) = doc.parent(top).filter(|p| {
        *p != body
            && !agg.negative[p.index()]
            && f64::from(agg.words[p.index()])
                <= RECORDS_GROWTH * f64::from(agg.words[container.index()])
    }) {
        top = p;
    }
    top
}

/// A box set into a flow of paragraphs (a fact box, a pull-out, an explainer in a news
/// story) is part of the story around it, not the story: the nearest of the content's
/// [`FLOW_LEVELS`] ancestors (not boilerplate-named, not excluded) whose own `<p>` children
/// hold at least [`FLOW_SHARE`] of the content's prose is the content.
pub(super) fn grow_to_flow(
    doc: &Document,
    body: NodeId,
    root: NodeId,
    parts: Vec<NodeId>,
    agg: &Aggregates,
) -> (NodeId, Vec<NodeId>) {
    let prose = agg.prose[root.index()].max(0.0);
    for a in doc
        .ancestors(root)
        .take_while(|a| *a != body)
        .take(FLOW_LEVELS)
    {
        if agg.excluded[a.index()] || agg.negative[a.index()] {
            break;
        }
        let own: f64 = doc
            .element_children(a)
            .filter(|c| {
                !doc.contains(*c, root)
                    && doc.tag(*c).is_some_and(|t| *t == local_name!("p"))
                    && !agg.excluded[c.index()]
            })
            .map(|c| agg.prose[c.index()].max(0.0))
            .sum();
        if own > 0.0 && own >= FLOW_SHARE * prose {
            tracing::debug!(flow = %doc.dom_path(a), own, prose, "content set in a flow of paragraphs");
            return (a, vec![a]);
        }
    }
    (root, parts)
}

/// How many ancestors up [`grow_to_flow`] looks for the paragraphs around the content.
const FLOW_LEVELS: usize = 3;

/// The share of the content's prose that the paragraphs around it must hold for it to be a
/// box set into them ([`grow_to_flow`]).
const FLOW_SHARE: f64 = 1.0;

/// How much a listing's wrappers may add to its records' words.
pub(super) const RECORDS_GROWTH: f64 = 1.25;

/// An `<article>` around the content declares its extent: its header (a lead, a subtitle)
/// and its own paragraphs belong to it, when it adds at most [`ARTICLE_GROWTH`] of prose;
/// what does not (bylines, share bars, teasers) [`prune`](super::prune::prune) drops.
pub(super) fn grow_to_article(
    doc: &Document,
    body: NodeId,
    root: NodeId,
    parts: Vec<NodeId>,
    agg: &Aggregates,
) -> (NodeId, Vec<NodeId>) {
    if let Some(article) = doc
        .ancestors(root)
        .take_while(|a| *a != body)
        .find(|a| doc.tag(*a).is_some_and(|t| *t == local_name!("article")))
    {
        if !agg.excluded[article.index()]
            && agg.prose[article.index()] <= ARTICLE_GROWTH * agg.prose[root.index()]
        {
            return (article, vec![article]);
        }
    }
    (root, parts)
}

/// A page that declares its main content (`<main>`, `role="main"`) and spreads it over
/// sibling sections (a service page's hero, features, pricing, FAQ) is content as a whole:
/// the best single section holds a fraction of it. When the declared element holds
/// [`MAIN_GROWTH`] times the prose of the content found, it becomes the content (what in it
/// is boilerplate, [`prune`](super::prune::prune) drops). Pages that declare an article keep
/// the article: their `<main>` holds related stories beside it.
pub(super) fn grow_to_main(
    doc: &Document,
    body: NodeId,
    root: NodeId,
    parts: Vec<NodeId>,
    agg: &Aggregates,
) -> (NodeId, Vec<NodeId>) {
    let main = doc
        .ancestors(root)
        .take_while(|a| *a != body)
        .find(|a| is_declared_main(doc, *a));
    match main {
        Some(main)
            if !agg.excluded[main.index()]
                && agg.prose[main.index()] >= MAIN_GROWTH * agg.prose[root.index()]
                && !declares_article(doc)
                && !doc
                    .ancestors(root)
                    .take_while(|a| *a != main)
                    .any(|a| doc.tag(a).is_some_and(|t| *t == local_name!("article"))) =>
        {
            (main, vec![main])
        }
        _ => (root, parts),
    }
}

/// The content moved to the article body the page declares (schema.org's
/// `itemprop="articleBody"`) when the container found lies outside it, or holds it and much
/// more besides: the comments and related stories a `role="main"` or a page wrapper also
/// holds (taz.de's reader comments, in its main element under a name that does not say
/// so, outweigh the article). Only when the page declares one such body of
/// [`OWN_ARTICLE_WORDS`] or more (and, around the container, [`MAIN_GROWTH`] times less
/// prose than it); the body then grows to its `<article>` as any container does
/// ([`grow_to_article`]). A container inside the body stays.
pub(super) fn move_to_article_body(
    doc: &Document,
    body: NodeId,
    root: NodeId,
    parts: Vec<NodeId>,
    agg: &Aggregates,
) -> (NodeId, Vec<NodeId>) {
    let mut declared = doc.descendants(body).filter(|d| {
        agg.words[d.index()] >= OWN_ARTICLE_WORDS
            && !agg.excluded[d.index()]
            && declares_article_body(doc, *d)
    });
    let article = match (declared.next(), declared.next()) {
        (Some(article), None) => article,
        _ => return (root, parts),
    };
    let moves = if doc.contains(article, root) {
        false
    } else if doc.contains(root, article) {
        agg.prose[root.index()] >= MAIN_GROWTH * agg.prose[article.index()]
    } else {
        true
    };
    if moves {
        grow_to_article(doc, body, article, vec![article], agg)
    } else {
        (root, parts)
    }
}

/// How much more prose than the content found a declared main element must hold to be the
/// content ([`grow_to_main`]).
pub(super) const MAIN_GROWTH: f64 = 2.0;

/// The content grows to its enclosing `<article>` when that adds at most this factor of
/// prose.
pub(super) const ARTICLE_GROWTH: f64 = 1.5;
