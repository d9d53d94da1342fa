//! Page-level main-content detection, in the spirit of ConEx (as summarized in HybEx).
//!
//! One page, no site. Every text block (the inline run between block-level boundaries) gets
//! per-block features — words, link density, sentence punctuation, tag kind — and every
//! element gets the aggregate of its subtree: net content mass (prose words count for, link
//! text and navigation-like blocks against), text-to-markup ratio and class/id hints.
//! Standardized over the page's candidate elements, these place each candidate as a point;
//! the main content is the far outlier on the "content" side of the centroid (most net prose,
//! least link text), tightened to the smallest element that still holds nearly all of that
//! mass. Inside it, blocks that are navigation, sharing, related-links or comment widgets are
//! dropped, while headings, lists, tables, code blocks and captions are kept.

mod blocks;
mod metadata;
mod names;
mod quotes;
mod render;
#[cfg(test)]
mod tests;

pub(crate) use blocks::{Block, BlockKind, segment_blocks};
pub use metadata::Metadata;
pub(crate) use metadata::{page_metadata, url_date};
pub(crate) use names::name_hint;
pub(crate) use quotes::drop_repeated_quotes;
pub use render::content_text;
pub(crate) use render::{content_html, content_markdown};

use names::NameHints;

use markup5ever::{LocalName, local_name};
use serde::Serialize;

use crate::dom::tags::{heading_level, is_block, is_heading, is_list_item, is_media};
use crate::dom::{Document, NodeData, NodeId};

/// The descendants of `root` that a reader sees ([`Document::visible_descendants`]).
pub(crate) fn visible_descendants(
    doc: &Document,
    root: NodeId,
) -> impl Iterator<Item = NodeId> + '_ {
    doc.visible_descendants(root)
}

/// Settings of [`page_content`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentConfig {
    /// Keep user comments (dropped by default).
    pub comments: bool,
    /// A candidate container is tightened to the smallest element keeping at least this share
    /// of the best candidate's net content mass.
    pub tighten: f64,
    /// Drop stand-alone short labels ("Advertisement", "SUBSCRIBE", "Like this:").
    pub drop_labels: bool,
    /// Drop image captions and credits. On by default for plain text, where both AEB and
    /// trafilatura-eval count them as noise (BENCHMARKS.md); Markdown and HTML output keep
    /// figures with their captions.
    pub drop_captions: bool,
    /// Siblings of the main container with at least this share of its net mass join it
    /// (0 disables).
    pub expand: f64,
    /// Leave the headline (an `<h1>` repeating the page title) out of the text: it is the
    /// `title`.
    pub drop_headline: bool,
    /// A page whose main container holds less than this share of the words that the
    /// page-level detectors leave is a page that spreads its content (listings, threads,
    /// service pages): all of those words are its content (0 disables; a container beside
    /// sections of prose gives way at a larger share, as long as this is not 0). 0.4 was
    /// chosen with that rule by cross-validation by domain on WCXB dev, and keeps
    /// trafilatura-eval's articles at their figure (BENCHMARKS.md).
    pub spread: f64,
}

impl Default for ContentConfig {
    fn default() -> Self {
        ContentConfig {
            comments: false,
            tighten: 0.85,
            drop_labels: true,
            drop_captions: true,
            drop_headline: true,
            expand: 0.2,
            spread: 0.4,
        }
    }
}

impl ContentConfig {
    /// `share` checked as a [`spread`](Self::spread) share (finite, 0 or more): the one rule
    /// the CLI, the server and the Python package apply to what a user gives.
    pub fn spread_share(share: f64) -> Result<f64, String> {
        if share >= 0.0 && share.is_finite() {
            Ok(share)
        } else {
            Err(format!("spread must be a share of 0 or more, not {share}"))
        }
    }
}

/// The detected main content of a page.
#[derive(Debug, Clone)]
pub struct Content {
    /// The main-content container (`None` when the page has no text).
    pub root: Option<NodeId>,
    /// Per node id: whether the node belongs to the content (kept for output).
    pub keep: Vec<bool>,
}

impl Content {
    /// Whether node `id` is content.
    pub fn is_content(&self, id: NodeId) -> bool {
        self.keep.get(id.index()).copied().unwrap_or(false)
    }
}

/// Tightening keeps at least this share of the container's prose: lead paragraphs outside
/// the inner wrapper are content.
const TIGHTEN_PROSE: f64 = 0.95;

/// Weight of the net mass of candidates inside boilerplate-named regions: a short article
/// still beats a long cookie notice or sidebar text.
const NEGATIVE_WEIGHT: f64 = 0.25;

/// Share of the content's prose above which a boilerplate-named element inside it is taken
/// for a misnamed content wrapper rather than a widget.
const MAJORITY: f64 = 0.5;

/// How many ancestors up the main container may grow by absorbing prose siblings.
const EXPAND_LEVELS: usize = 2;

/// Elements that are usually chrome by their tag.
fn is_boilerplate_tag(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        matches!(
            e.name.local,
            local_name!("nav") | local_name!("aside") | local_name!("footer") | local_name!("menu")
        )
    })
}

/// `<main>`, `<article>` and `role="main"`: elements that declare themselves main content.
fn is_main_element(doc: &Document, id: NodeId) -> bool {
    is_declared_main(doc, id) || doc.tag(id).is_some_and(|t| *t == local_name!("article"))
}

/// `<main>` and `role="main"`: the page's declared main element.
fn is_declared_main(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.name.local == local_name!("main")
            || e.attr("role")
                .is_some_and(|r| r.eq_ignore_ascii_case("main"))
    })
}

/// Form controls and dialogs (`<dialog>`, ARIA's `dialog` and `alertdialog` roles: modal
/// boxes of consent, sign-in or ad disclosures): never part of the content.
fn is_control(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        matches!(
            e.name.local,
            local_name!("button") | local_name!("select") | local_name!("dialog")
        ) || e.attr("role").is_some_and(|r| {
            r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog")
        })
    })
}

/// Elements hidden until something shows them: `hidden`, `aria-hidden`, `display:none`,
/// `visibility:hidden`.
fn is_hidden(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.attr("hidden").is_some()
            || e.attr("aria-hidden")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
            || e.attr("style").is_some_and(|s| {
                style_has(s, b"display:none") || style_has(s, b"visibility:hidden")
            })
    })
}

/// Which elements under `body` are hidden ([`is_hidden`], each looked at once), with the
/// words of `body` outside hidden elements (what a reader without scripts sees) and inside
/// them.
fn hidden_elements(doc: &Document, body: NodeId, words: &[u32]) -> (Vec<bool>, u32, u32) {
    let mut flags = vec![false; doc.len()];
    let mut hidden = 0;
    let mut inside_to = 0;
    for id in doc.descendants(body) {
        if is_hidden(doc, id) {
            flags[id.index()] = true;
            // Words of the outermost hidden elements only: nested ones are counted there.
            if id.0 >= inside_to {
                hidden += words[id.index()];
                inside_to = doc.subtree(id).end;
            }
        }
    }
    (flags, words[body.index()].saturating_sub(hidden), hidden)
}

/// Whether a `style` attribute contains `pat` (ASCII, lower case, no spaces), ignoring case
/// and the spaces CSS allows around the colon; no allocation.
fn style_has(style: &str, pat: &[u8]) -> bool {
    let b = style.as_bytes();
    (0..b.len()).any(|start| {
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

/// Net content mass of a block: prose counts for, link text and short navigation-like
/// blocks against.
fn block_value(b: &Block) -> f64 {
    let w = b.words as f64;
    if w == 0.0 {
        return 0.0;
    }
    let ld = b.link_words as f64 / w;
    let prose = b.punctuation as f64 / w;
    match b.kind {
        BlockKind::Heading => 0.0,
        _ if ld > 0.5 => -w * ld,
        _ if b.words < 8 && prose == 0.0 => -0.5 * w * ld,
        _ => w * (1.0 - 2.0 * ld).max(-1.0) * (0.5 + prose.min(0.5)),
    }
}

/// Detect the main content of a page, in phases: the text blocks are summed up the tree,
/// the best candidate container is chosen, tightened to the deepest element that holds
/// nearly all of it, widened by sibling containers with prose and grown to its `<article>`;
/// then what is boilerplate inside it is pruned, and so are headings left without a section.
pub fn page_content(doc: &Document, config: &ContentConfig) -> Content {
    page_content_and_blocks(doc, config).0
}

/// [`page_content`] and the text blocks of `<body>` it weighed ([`segment_blocks`]), for
/// callers that weigh them again (the choice of a page-level view).
pub(crate) fn page_content_and_blocks(
    doc: &Document,
    config: &ContentConfig,
) -> (Content, Vec<Block>) {
    // The title tells the headline, which goes to the title rather than the text.
    let title = page_title(doc);
    let nothing = || Content {
        root: None,
        keep: vec![false; doc.len()],
    };
    let Some(body) = doc.body() else {
        return (nothing(), Vec::new());
    };
    let mut agg = Aggregates::measure(doc, body, config);
    let Some((best, candidates)) = choose(doc, body, &agg) else {
        tracing::debug!("no text outside boilerplate");
        return (nothing(), std::mem::take(&mut agg.segments));
    };
    let root = tighten(doc, best, &candidates, &agg, config);
    let (root, parts) = widen(doc, body, root, &agg, config);
    let (root, parts) = grow_to_article(doc, body, root, parts, &agg);
    let (root, parts) = grow_to_main(doc, body, root, parts, &agg);
    let list = records(doc, body, &agg);
    tracing::debug!(
        container = %doc.dom_path(root),
        records = ?list.map(|l| (doc.dom_path(l.container), l.words)),
        "page content"
    );
    let (root, parts, records) = match list {
        Some(list) if is_listing(doc, root, list, &agg, declares_article(doc)) => {
            let root = if doc.contains(root, list.container) {
                root
            } else {
                lift_records(doc, body, list.container, &agg)
            };
            (root, vec![root], Some(list.container))
        }
        _ => (root, parts, None),
    };
    tracing::debug!(root = %doc.dom_path(root), listing = records.is_some(), "content root");
    let mut keep = prune(doc, root, &parts, records, &agg, config, title.as_deref());
    drop_orphan_headings(doc, root, &mut keep, &agg.words);
    let content = Content {
        root: Some(root),
        keep,
    };
    (content, agg.segments)
}

/// The content of a page that spreads it over the whole page (a listing's cards, a
/// thread's posts, a service page's sections): what `template` (the page-level template
/// detector's verdict) leaves, minus what is never content — chrome by its tag (`<nav>`,
/// `<aside>`, `<footer>`), controls, forms beside the content. Comment-named elements stay
/// (on such a page they are the posts), and so do hidden ones (tabs and accordions: a
/// product's details, a service page's answers, which a reader opens). The filters
/// [`page_content`] applies inside its container (labels, link clusters, date lines) do
/// not: a listing's prices, links and dates are its records.
///
/// `page_words` is the page's visible words ([`kept_words`] of all of `<body>`).
pub(crate) fn spread_content(doc: &Document, template: &[bool], page_words: usize) -> Content {
    let mut keep = vec![false; doc.len()];
    let Some(body) = doc.body() else {
        return Content { root: None, keep };
    };
    let allowed = non_template_mask(doc, template);
    let mut excluded = vec![false; doc.len()];
    for id in doc.subtree(body).map(NodeId) {
        let i = id.index();
        excluded[i] = id != body
            && (doc.parent(id).is_some_and(|p| excluded[p.index()])
                || is_control(doc, id)
                || is_boilerplate_tag(doc, id)
                || is_side_form(doc, id, page_words));
        keep[i] = allowed[i]
            && !excluded[i]
            && (id == body || doc.parent(id).is_some_and(|p| keep[p.index()]));
    }
    Content {
        root: Some(body),
        keep,
    }
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
const SECTION_HEADINGS: u32 = 3;

/// The share of the rest's words in links under which it is prose ([`Rest::is_sections`]).
const SECTION_LINKS: f64 = 0.1;

/// A form beside the content (search, comment, sign-up): one that holds less than half the
/// page's words and no `<article>`. Forums wrap a thread in a moderation `<form>`: that one
/// stays, by its words or, however short the thread, by its posts' `<article>`s.
fn is_side_form(doc: &Document, id: NodeId, page_words: usize) -> bool {
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
        .filter_map(|id| doc.text(id))
        .map(|t| t.split_whitespace().count())
        .sum()
}

/// Per node, the aggregates of its subtree's text blocks and the verdicts on its tag and
/// names: what every phase of [`page_content`] weighs elements by.
struct Aggregates {
    /// Net mass: the values of the blocks ([`block_value`]), excluded subtrees counting
    /// against every container that includes them.
    mass: Vec<f64>,
    /// Prose: the positive part of the block values, outside excluded subtrees.
    prose: Vec<f64>,
    /// Words of the text.
    words: Vec<u32>,
    /// Words inside links.
    link_words: Vec<u32>,
    /// Sentence punctuation marks.
    punct: Vec<u32>,
    /// Text blocks.
    blocks: Vec<u32>,
    /// Links (`<a href>`).
    links: Vec<u32>,
    /// Whether the subtree shows an image or a video.
    media: Vec<bool>,
    /// Boilerplate (hidden, chrome by its tag, comments) and inside it: cannot hold the
    /// main content.
    excluded: Vec<bool>,
    /// Class/id hint ([`name_hint`]) of elements with text; 0 for the others.
    hints: Vec<i8>,
    /// Inside a boilerplate-named region (up to an `<article>` or `<main>`).
    negative: Vec<bool>,
    /// The text blocks of `<body>`, in document order.
    segments: Vec<Block>,
}

impl Aggregates {
    /// Segment `body` into text blocks and sum them up the tree.
    fn measure(doc: &Document, body: NodeId, config: &ContentConfig) -> Self {
        let n = doc.len();
        let blocks = segment_blocks(doc, body);
        let mut mass = vec![0.0f64; n];
        let mut words = vec![0u32; n];
        let mut link_words = vec![0u32; n];
        let mut punct = vec![0u32; n];
        let mut prose = vec![0.0f64; n];
        let mut block_count = vec![0u32; n];
        let mut links = vec![0u32; n];
        for b in &blocks {
            block_count[b.owner.index()] += 1;
            let v = block_value(b);
            mass[b.owner.index()] += v;
            prose[b.owner.index()] += v.max(0.0);
            words[b.owner.index()] += b.words;
            link_words[b.owner.index()] += b.link_words;
            punct[b.owner.index()] += b.punctuation;
        }
        let mut media = vec![false; n];
        for id in doc.subtree(body).rev().map(NodeId) {
            if id == body {
                break;
            }
            if let Some(p) = doc.parent(id) {
                media[p.index()] |= media[id.index()] || doc.tag(id).is_some_and(is_media);
                words[p.index()] += words[id.index()];
                link_words[p.index()] += link_words[id.index()];
                punct[p.index()] += punct[id.index()];
                block_count[p.index()] += block_count[id.index()];
                links[id.index()] += u32::from(
                    doc.element(id)
                        .is_some_and(|e| e.is(&local_name!("a")) && e.attr("href").is_some()),
                );
                links[p.index()] += links[id.index()];
            }
        }
        let mut excluded = vec![false; n];
        // Name hints scan class/id strings: computed once per element with text, used by
        // several phases.
        let mut hints = vec![0i8; n];
        // A candidate inside a boilerplate-named region (cookie banner, related box)
        // inherits its penalty.
        let mut negative = vec![false; n];
        let mut name_hints = NameHints::default();
        let (is_hidden_el, shown, hidden) = hidden_elements(doc, body, &words);
        for id in doc.descendants(body) {
            let parent = doc.parent(id);
            // A hidden element that outweighs all the page shows and holds most of what it
            // hides, mostly outside links (not a menu), is the content hidden until a script
            // shows it (lock-down and anti-flicker snippets, page loaders): a reader with
            // scripts sees it. Many hidden blocks (the steps of forms, tabs) are not that.
            let (w, l) = (words[id.index()], link_words[id.index()]);
            let revealed = w > shown && 2 * w > hidden && 2 * l < w;
            excluded[id.index()] = parent.is_some_and(|p| excluded[p.index()])
                || is_control(doc, id)
                || (is_hidden_el[id.index()] && !revealed)
                || is_boilerplate_tag(doc, id)
                || (!config.comments && is_comment_section(doc, id));
            // Elements without text are neither candidates nor dropped, and hold no
            // candidate whose penalty they could pass on: their names do not matter.
            if words[id.index()] > 0 {
                hints[id.index()] = name_hints.hint(doc, id);
            }
            // Layout wrappers are named after the sidebar or footer they sit next to
            // (`right-sidebar`, `above-footer`): an `<article>` or `<main>` inside starts
            // afresh.
            negative[id.index()] = hints[id.index()] < 0
                || (parent.is_some_and(|p| negative[p.index()]) && !is_main_element(doc, id));
        }
        for id in doc.subtree(body).rev().map(NodeId) {
            if id == body {
                break;
            }
            if let Some(p) = doc.parent(id) {
                if excluded[id.index()] {
                    mass[p.index()] -= words[id.index()] as f64 * 0.5;
                } else {
                    mass[p.index()] += mass[id.index()];
                    prose[p.index()] += prose[id.index()];
                }
            }
        }
        Aggregates {
            mass,
            prose,
            words,
            link_words,
            punct,
            blocks: block_count,
            links,
            media,
            excluded,
            hints,
            negative,
            segments: blocks,
        }
    }
}

/// The candidates — elements with text, not excluded, `body` first — and the best of them
/// by net mass, nudged by name hints. `None` when the page has no text.
///
/// Boilerplate-named regions (a sidebar, a cookie notice) hold the main content only when
/// nothing else has prose: a short article still beats a long cookie notice.
fn choose(doc: &Document, body: NodeId, agg: &Aggregates) -> Option<(NodeId, Vec<NodeId>)> {
    let score = |id: NodeId| {
        // Themes put page-type classes on <body> ("ArticlePage-body"): no hint there.
        let m = agg.mass[id.index()];
        if id == body {
            m
        } else if agg.negative[id.index()] {
            m * NEGATIVE_WEIGHT
        } else {
            m * (1.0 + 0.5 * f64::from(agg.hints[id.index()]))
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
    Some((best, candidates))
}

/// The deepest candidate inside `best` that still holds most of its mass
/// ([`ContentConfig::tighten`]) and nearly all of its prose ([`TIGHTEN_PROSE`]).
fn tighten(
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
fn widen(
    doc: &Document,
    body: NodeId,
    root: NodeId,
    agg: &Aggregates,
    config: &ContentConfig,
) -> (NodeId, Vec<NodeId>) {
    let mut parts = vec![root];
    let mut top = root;
    let mut base_mass = agg.mass[root.index()];
    for _ in 0..EXPAND_LEVELS {
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
                    && agg.mass[c.index()] >= threshold
                    && !is_link_cluster(agg.words[c.index()], agg.link_words[c.index()])
                    && agg.hints[c.index()] >= 0
            })
            .collect();
        if siblings.is_empty() {
            break;
        }
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
    }
    (top, parts)
}

/// A list of records: sibling elements of one kind (tag and class), each with text of its
/// own beside its links — search results, product cards, job rows, thread lists.
#[derive(Debug, Clone, Copy)]
struct Records {
    /// The parent of the records.
    container: NodeId,
    /// Words of the records.
    words: u32,
}

/// A list has at least this many records.
const MIN_RECORDS: usize = 5;

/// On a listing page the records hold at least this factor of the words of the prose
/// content found without them.
const RECORDS_OVER_PROSE: f64 = 3.0;

/// The largest list of records on the page outside boilerplate: the element with the most
/// words in at least [`MIN_RECORDS`] element children of one tag and first class, most of
/// which read as records ([`is_record`]; menus are lists of bare links).
fn records(doc: &Document, body: NodeId, agg: &Aggregates) -> Option<Records> {
    let mut best: Option<Records> = None;
    let mut groups: rustc_hash::FxHashMap<(&LocalName, &str), (usize, usize, u32)> =
        rustc_hash::FxHashMap::default();
    for id in std::iter::once(body).chain(doc.descendants(body)) {
        let i = id.index();
        if agg.excluded[i]
            || agg.negative[i]
            || doc.element(id).is_none()
            || agg.words[i] < best.map_or(1, |b| b.words)
        {
            continue;
        }
        groups.clear();
        for c in doc.element_children(id) {
            let ci = c.index();
            // A part named like chrome (`nav-breadcrumbs`, `footer-links`) is no record: layout
            // rows of one class hold the header, the breadcrumbs and the footer.
            if agg.excluded[ci] || agg.words[ci] == 0 || agg.negative[ci] {
                continue;
            }
            let Some(e) = doc.element(c) else { continue };
            if e.name.local == local_name!("p") || is_heading(&e.name.local) {
                continue;
            }
            // Records of one kind share their first class; the others mark states
            // (`featured`, `sold-out`).
            let kind = e.classes().next().unwrap_or("");
            let g = groups.entry((&e.name.local, kind)).or_insert((0, 0, 0));
            g.0 += 1;
            g.1 += usize::from(is_record(agg, c));
            g.2 += agg.words[ci];
        }
        for &(n, with_text, words) in groups.values() {
            if n >= MIN_RECORDS && with_text * 2 >= n && words > best.map_or(0, |b| b.words) {
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
/// the link, or its link is a card of several blocks (title, date, price). A menu item is
/// one link, or a heading over a list of links (a link per block).
fn is_record(agg: &Aggregates, id: NodeId) -> bool {
    let i = id.index();
    let (words, link_words) = (agg.words[i], agg.link_words[i]);
    link_words > 0
        && (link_words < words || (agg.blocks[i] >= 2 && 2 * agg.links[i] <= agg.blocks[i]))
}

/// Whether the page is a listing: the container is one card of the records, or (on a page
/// that does not declare itself an article) the records outweigh the prose content found
/// without them ([`RECORDS_OVER_PROSE`]), or they are inside it and hold most of its words.
fn is_listing(
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
        f64::from(list.words) >= RECORDS_OVER_PROSE * prose
    }
}

/// Whether the page says it is an article (`og:type` `article`): then lists beside the
/// prose are related stories, not the content.
pub(crate) fn declares_article(doc: &Document) -> bool {
    open_graph(doc, "og:type").is_some_and(|t| t.eq_ignore_ascii_case("article"))
}

/// The records' container grown to the wrappers that add a heading or an introduction to
/// it: ancestors whose words are at most [`RECORDS_GROWTH`] times the records'.
fn lift_records(doc: &Document, body: NodeId, container: NodeId, agg: &Aggregates) -> NodeId {
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

/// How much a listing's wrappers may add to its records' words.
const RECORDS_GROWTH: f64 = 1.25;

/// An `<article>` around the content declares its extent: its header (a lead, a subtitle)
/// and its own paragraphs belong to it, when it adds at most [`ARTICLE_GROWTH`] of prose;
/// what does not (bylines, share bars, teasers) [`prune`] drops.
fn grow_to_article(
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
/// is boilerplate, [`prune`] drops). Pages that declare an article keep the article: their
/// `<main>` holds related stories beside it.
fn grow_to_main(
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

/// How much more prose than the content found a declared main element must hold to be the
/// content ([`grow_to_main`]).
const MAIN_GROWTH: f64 = 2.0;

/// The keep mask of the container `root`: its nodes minus excluded and boilerplate-like
/// parts (link clusters, teasers, boilerplate names, forms, labels, date lines, captions,
/// the headline); `parts` are kept whole.
fn prune(
    doc: &Document,
    root: NodeId,
    parts: &[NodeId],
    records: Option<NodeId>,
    agg: &Aggregates,
    config: &ContentConfig,
    title: Option<&str>,
) -> Vec<bool> {
    let is_headline = headline(doc, title, config);
    let mut cards = teasers(doc, root, agg);
    // On a listing page the records are the content: their links and cards stay.
    let in_records = |id: NodeId| records.is_some_and(|r| doc.contains(r, id));
    if records.is_some() {
        cards.iter_mut().for_each(|c| *c = false);
    }
    let is_part = |id: NodeId| parts.contains(&id);
    // Inside a quote (an embedded tweet's attribution line keeps its date).
    let mut quoted = vec![false; doc.len()];
    for id in doc.subtree(root).map(NodeId) {
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
            || agg.hints[i] < 0
            || doc.tag(id).is_some_and(|t| *t == local_name!("form")))
            && (agg.mass[i] <= 0.0 || agg.prose[i] < MAJORITY * agg.prose[root.index()])
    };
    let mut keep = vec![false; doc.len()];
    // The structural filters (link clusters, teasers, boilerplate names, forms) may not
    // empty the content: when they would, the container is all the page has — a link-heavy
    // post, a page of dialogs — and only the sure filters apply.
    let mut structural = true;
    loop {
        for id in doc.subtree(root).map(NodeId) {
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
            let inline_caption =
                config.drop_captions && agg.words[i] == 0 && id != root && is_caption(doc, id);
            let drop = inline_caption
                || (!is_part(id)
                    && id != root
                    && doc.element(id).is_some()
                    && agg.words[i] > 0
                    && ((structural && is_noise(id))
                        || (config.drop_labels
                            && (is_label(doc, id, agg.words[i], agg.punct[i])
                                || (!quoted[i] && is_dateline(doc, id, agg.words[i]))))
                        || (config.drop_captions
                            && (is_caption(doc, id)
                                || is_beside_image(doc, id, &agg.words, &agg.media)))
                        || is_headline(id)));
            keep[i] = !drop
                && !matches!(
                    doc.node(id).data,
                    NodeData::Comment(_) | NodeData::ProcessingInstruction { .. }
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

/// Whether an element is the headline, reported as the title: keeping it in the text would
/// repeat it. Sites word `<title>`, `og:title` and the `<h1>` a little differently ("Hunter
/// in Beijing diagnosed…" over "Hunter diagnosed… Beijing local"): most words shared
/// ([`HEADLINE_OVERLAP`]) is enough.
fn headline<'d>(
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
fn teasers(doc: &Document, root: NodeId, agg: &Aggregates) -> Vec<bool> {
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
const DATELINE_WORDS: u32 = 16;

/// Date lines and headlines are small elements: at most this many nodes.
const SMALL_SUBTREE: usize = 64;

/// Text beside an image of at most this many words is its caption.
const CAPTION_WORDS: u32 = 40;

/// The content grows to its enclosing `<article>` when that adds at most this factor of
/// prose.
const ARTICLE_GROWTH: f64 = 1.5;

/// Teaser cards holding at least this share of the content's prose make a listing page,
/// whose teasers are its content.
const LISTING: f64 = 0.8;

/// An `<h1>` sharing at least this share of its words with the page title is the headline.
const HEADLINE_OVERLAP: f64 = 0.6;

/// A teaser card (title, excerpt, byline) has at most this many words.
const CARD_WORDS: u32 = 80;

/// Headings of at most this many words are dropped when their section is empty.
const ORPHAN_HEADING_WORDS: u32 = 8;

/// Teaser cards inside `root`: a heading that is a link is the title of another page, and
/// the largest card-sized element around it that holds no other such title is that page's
/// teaser (title, excerpt, author, date).
fn teaser_cards(doc: &Document, root: NodeId, words: &[u32], link_words: &[u32]) -> Vec<bool> {
    let range = doc.subtree(root);
    let len = (range.end - range.start) as usize;
    let at = |id: NodeId| (id.0 - range.start) as usize;
    let linked = |id: NodeId| {
        doc.tag(id).is_some_and(is_heading)
            && words[id.index()] > 0
            && link_words[id.index()] == words[id.index()]
    };
    // Linked headings per element of the subtree, children before parents.
    let mut titles = vec![0u32; len];
    for id in range.clone().rev().map(NodeId) {
        if linked(id) {
            titles[at(id)] += 1;
        }
        if id != root {
            if let Some(p) = doc.parent(id) {
                titles[at(p)] += titles[at(id)];
            }
        }
    }
    let mut cards = vec![false; doc.len()];
    for id in range.clone().map(NodeId).filter(|id| linked(*id)) {
        let mut card = id;
        while let Some(p) = doc.parent(card).filter(|p| {
            // The container itself may be the linked heading: never leave the subtree.
            *p != root
                && doc.contains(root, *p)
                && titles[at(*p)] == 1
                && words[p.index()] <= CARD_WORDS
        }) {
            card = p;
        }
        cards[card.index()] = true;
    }
    cards
}

/// Drop headings whose section lost all its text: the "Related articles" or "More on this
/// topic" over a teaser list that was dropped, a heading left over at the end. An image
/// or a video is a section's content too.
fn drop_orphan_headings(doc: &Document, root: NodeId, keep: &mut [bool], words: &[u32]) {
    let end = doc.node(root).end.0;
    // Nodes whose text counts for their section: visible (no reader sees the text of
    // scripts and styles), and not inside a heading (a heading's own text is not its
    // section's).
    let mut counts = vec![false; (end - root.0) as usize];
    let mut heading_end = 0;
    for id in doc.visible(root) {
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
            if !text_after[level] && words[id.index()] <= ORPHAN_HEADING_WORDS {
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
fn is_label(doc: &Document, id: NodeId, words: u32, punct: u32) -> bool {
    words <= 3 && punct == 0 && is_free_block(doc, id)
}

/// A block-level element that is not a heading or part of a list, table or code block:
/// where stand-alone labels and date lines live.
fn is_free_block(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        let tag = &e.name.local;
        is_block(tag)
            && !is_heading(tag)
            && !is_list_item(tag)
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
fn is_dateline(doc: &Document, id: NodeId, words: u32) -> bool {
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
fn has_date(text: &str) -> bool {
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
        if len == 4 && alone && (run.starts_with(b"19") || run.starts_with(b"20")) {
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

/// Rows and cells: a data table links its entries (product names, sources) without being
/// a menu; the table as a whole can still be a link cluster.
fn is_table_part(doc: &Document, id: NodeId) -> bool {
    doc.tag(id).is_some_and(|t| {
        matches!(
            *t,
            local_name!("tr") | local_name!("td") | local_name!("th")
        )
    })
}

/// Captions and credits are short text set beside an image in a wrapper of their own
/// (`<div><img><div>Photo: …</div></div>`), whatever their class names say.
fn is_beside_image(doc: &Document, id: NodeId, words: &[u32], media: &[bool]) -> bool {
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

/// A caption or photo credit.
fn is_caption(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.is(&local_name!("figcaption"))
            || e.classes()
                .any(|c| contains_ignore_case(c, "caption") || contains_ignore_case(c, "credit"))
    })
}

/// The keep mask of site-aware content: nodes the template does not claim, plus the
/// template elements that lead to them (so that renderers can walk down to the content).
pub fn non_template_mask(doc: &Document, template: &[bool]) -> Vec<bool> {
    let mut keep: Vec<bool> = (0..doc.len())
        .map(|i| !template.get(i).copied().unwrap_or(false))
        .collect();
    // Children before parents: a parent leading to kept content is walked through.
    for id in doc.ids().rev() {
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

/// Mostly links: a menu, a tag list, a "related posts" box.
fn is_link_cluster(words: u32, link_words: u32) -> bool {
    link_words * 2 > words && words >= 2
}

fn is_comment_section(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.id().is_some_and(|v| contains_ignore_case(v, "comment"))
            || e.classes().any(|c| {
                ["comments", "comment-list", "commentlist", "comment-respond"]
                    .iter()
                    .any(|n| c.eq_ignore_ascii_case(n))
                    || c.get(..9)
                        .is_some_and(|p| p.eq_ignore_ascii_case("comments-"))
            })
    })
}

/// `haystack` contains the ASCII `needle`, ignoring ASCII case; no allocation.
fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Whether any visible text under `root` is kept.
fn has_kept_text(doc: &Document, root: NodeId, keep: &[bool]) -> bool {
    let mut walk = doc.visible(root);
    while let Some(id) = walk.next() {
        if !keep[id.index()] {
            walk.skip_subtree(id);
        } else if doc.text(id).is_some_and(|t| !t.trim().is_empty()) {
            return true;
        }
    }
    false
}

/// Lower-cased alphanumeric words of a title.
fn title_words(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The `content` of the first `<meta property="og:…">` of that name.
fn open_graph(doc: &Document, property: &str) -> Option<String> {
    doc.elements().find_map(|e| {
        let el = doc.element(e)?;
        (el.is(&local_name!("meta")) && el.attr("property").is_some_and(|p| p == property))
            .then(|| el.attr("content").map(crate::dom::collapse_whitespace))
            .flatten()
            .filter(|t| !t.is_empty())
    })
}

/// `og:title`, else `<title>`, else the first `<h1>`.
pub(crate) fn page_title(doc: &Document) -> Option<String> {
    let og = open_graph(doc, "og:title");
    og.or_else(|| doc.title()).or_else(|| {
        let h1 = doc.find_element(&local_name!("h1"))?;
        let t = crate::dom::collapse_whitespace(&doc.visible_text(h1));
        (!t.is_empty()).then_some(t)
    })
}
