//! What every phase of page-level content weighs elements by: the page's text blocks summed
//! up the tree ([`Aggregates`]), and the verdicts on each element's tag and names.

use markup5ever::local_name;

use super::blocks::{Block, BlockKind, segment_blocks};
use super::config::ContentConfig;
use super::names::{NameHints, components_hold_page};
use super::verdicts::{
    chrome_by_tag, hidden_at_every_width, is_comment_section, is_control, is_hidden,
    is_main_element, mark_sign_in_boxes,
};
use crate::dom::tags::is_media;
use crate::dom::{Document, NodeId, deadline};

/// Share of the content's prose above which a boilerplate-named element inside it is taken
/// for a misnamed content wrapper rather than a widget.
pub(super) const MAJORITY: f64 = 0.5;

/// Which elements under `body` are hidden ([`is_hidden`], each looked at once), with the
/// words of `body` outside hidden elements (what a reader without scripts sees) and inside
/// them.
pub(super) fn hidden_elements(
    doc: &Document,
    body: NodeId,
    words: &[u32],
) -> (Vec<bool>, u32, u32) {
    let mut flags = vec![false; doc.len()];
    let mut hidden = 0;
    let mut inside_to = 0;
    for id in doc.descendants(body) {
        if deadline::due(id.index()) {
            break;
        }
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

/// The words from which a block that repeats one word is filler, not text.
const FILLER_WORDS: u32 = 20;

/// Whether a block (of [`FILLER_WORDS`] or more, no punctuation, no link: [`filler_mask`]
/// asks) is one word repeated, its element's only text outside subtrees already found to be filler (`mask`): the
/// "word word word…" that scripts measure fonts or detect ad blockers with (techcrunch.com's
/// front page ends in 200 of them). The walk stops at the first other word, and skips what
/// `mask` holds: nested filler is read once, not once per level.
fn is_filler(doc: &Document, b: &Block, mask: &[bool]) -> bool {
    let mut first: Option<&str> = None;
    let mut n = 0u32;
    let mut walk = doc.visible(b.owner);
    while let Some(id) = walk.next() {
        if id != b.owner && mask[id.index()] {
            walk.skip_subtree(id);
            continue;
        }
        // Counted between spaces: a run of Han characters is many words but one token.
        for w in doc.text(id).unwrap_or_default().split_whitespace() {
            if *first.get_or_insert(w) != w {
                return false;
            }
            n += 1;
        }
    }
    n >= FILLER_WORDS
}

/// The nodes of the elements whose only text is filler ([`is_filler`]), with their
/// subtrees: no text a reader reads, so no view of the content holds or counts them. Each
/// element is looked at once, and each node marked once.
pub(crate) fn filler_mask(doc: &Document, blocks: &[Block]) -> Vec<bool> {
    let mut mask = vec![false; doc.len()];
    let mut checked = vec![false; doc.len()];
    for b in blocks {
        let o = b.owner.index();
        if b.words < FILLER_WORDS || b.punctuation > 0 || b.link_words > 0 || mask[o] || checked[o]
        {
            continue;
        }
        checked[o] = true;
        if is_filler(doc, b, &mask) {
            let range = doc.subtree(b.owner);
            let mut i = range.start;
            while i < range.end {
                // A marked node's subtree is marked.
                if mask[i as usize] {
                    i = doc.subtree(NodeId(i)).end;
                } else {
                    mask[i as usize] = true;
                    i += 1;
                }
            }
        }
    }
    mask
}

/// Net content mass of a block: prose counts for, link text and short navigation-like
/// blocks against.
pub(super) fn block_value(b: &Block) -> f64 {
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

/// Per node, the aggregates of its subtree's text blocks and the verdicts on its tag and
/// names: what every phase of [`page_content`](super::page_content) weighs elements by.
pub(super) struct Aggregates {
    /// Net mass: the values of the blocks ([`block_value`]), excluded subtrees counting
    /// against every container that includes them.
    pub(super) mass: Vec<f64>,
    /// Prose: the positive part of the block values, outside excluded subtrees.
    pub(super) prose: Vec<f64>,
    /// Words of the text.
    pub(super) words: Vec<u32>,
    /// Words inside links.
    pub(super) link_words: Vec<u32>,
    /// Words of headings outside links: a box's title over its list of links says nothing
    /// of an item ([`is_record`](super::container::is_record)).
    pub(super) heading_words: Vec<u32>,
    /// Sentence punctuation marks.
    pub(super) punct: Vec<u32>,
    /// Text blocks.
    pub(super) blocks: Vec<u32>,
    /// Links (`<a href>`).
    pub(super) links: Vec<u32>,
    /// Whether the subtree shows an image or a video.
    pub(super) media: Vec<bool>,
    /// Boilerplate (hidden, chrome by its tag, comments) and inside it: cannot hold the
    /// main content.
    pub(super) excluded: Vec<bool>,
    /// Class/id hint ([`NameHints::hint`](super::NameHints::hint)) of elements with text; 0 for the others.
    pub(super) hints: Vec<i8>,
    /// Inside a boilerplate-named region (up to an `<article>` or `<main>`).
    pub(super) negative: Vec<bool>,
    /// The net mass of the largest boilerplate-named region inside an element that is not
    /// one: what its own mass owes to the sidebar or legal notice it wraps. The largest, not
    /// the sum: a thread's many comment-named posts are its content.
    pub(super) negative_mass: Vec<f64>,
    /// The text blocks of `<body>`, in document order.
    pub(super) segments: Vec<Block>,
    /// The nodes no page-level view holds or counts: filler elements ([`filler_mask`]),
    /// which the aggregates leave out too, and sign-in boxes ([`mark_sign_in_boxes`]),
    /// which they count (the containers the models are trained on stay where they were) but
    /// never take for content hidden until a script shows it.
    pub(super) filler: Vec<bool>,
}

impl Aggregates {
    /// Segment `body` into text blocks and sum them up the tree.
    pub(super) fn measure(doc: &Document, body: NodeId, config: &ContentConfig) -> Self {
        let n = doc.len();
        let blocks = segment_blocks(doc, body);
        let mut filler = filler_mask(doc, &blocks);
        let mut sign_in = vec![false; n];
        mark_sign_in_boxes(doc, &mut sign_in);
        let mut mass = vec![0.0f64; n];
        let mut words = vec![0u32; n];
        let mut link_words = vec![0u32; n];
        let mut heading_words = vec![0u32; n];
        let mut punct = vec![0u32; n];
        let mut prose = vec![0.0f64; n];
        let mut block_count = vec![0u32; n];
        let mut links = vec![0u32; n];
        for b in blocks.iter().filter(|b| !filler[b.owner.index()]) {
            block_count[b.owner.index()] += 1;
            let v = block_value(b);
            mass[b.owner.index()] += v;
            prose[b.owner.index()] += v.max(0.0);
            words[b.owner.index()] += b.words;
            link_words[b.owner.index()] += b.link_words;
            if b.kind == BlockKind::Heading {
                heading_words[b.owner.index()] += b.words - b.link_words;
            }
            punct[b.owner.index()] += b.punctuation;
        }
        let mut media = vec![false; n];
        for id in doc.subtree(body).rev().map(NodeId) {
            if deadline::due(id.index()) {
                break;
            }
            if id == body {
                break;
            }
            if let Some(p) = doc.parent(id) {
                media[p.index()] |= media[id.index()] || doc.tag(id).is_some_and(is_media);
                words[p.index()] += words[id.index()];
                link_words[p.index()] += link_words[id.index()];
                heading_words[p.index()] += heading_words[id.index()];
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
        let mut name_hints = NameHints::for_builder_page(components_hold_page(
            doc,
            body,
            &words,
            &link_words,
            MAJORITY,
        ));
        let (is_hidden_el, shown, hidden) = hidden_elements(doc, body, &words);
        let chrome_tag = chrome_by_tag(doc, body);
        for id in doc.descendants(body) {
            if deadline::due(id.index()) {
                break;
            }
            let parent = doc.parent(id);
            // A hidden element that outweighs all the page shows and holds most of what it
            // hides, mostly outside links (not a menu), is the content hidden until a script
            // shows it (lock-down and anti-flicker snippets, page loaders): a reader with
            // scripts sees it. Many hidden blocks (the steps of forms, tabs) are not that.
            let (w, l) = (words[id.index()], link_words[id.index()]);
            let revealed = w > shown && 2 * w > hidden && 2 * l < w && !sign_in[id.index()];
            excluded[id.index()] = parent.is_some_and(|p| excluded[p.index()])
                || is_control(doc, id)
                || (is_hidden_el[id.index()] && !revealed)
                || chrome_tag[id.index()]
                || filler[id.index()]
                || (!config.comments && is_comment_section(doc, id))
                // (An element without text hides nothing: most elements, not asked.)
                || (w > 0 && hidden_at_every_width(doc, id));
            // Elements without text are neither candidates nor dropped, and hold no
            // candidate whose penalty they could pass on: their names do not matter.
            if words[id.index()] > 0 {
                hints[id.index()] = name_hints.hint(doc, id);
            }
            // Layout wrappers are named after the sidebar or footer they sit next to
            // (`right-sidebar`, `above-footer`): an `<article>` or `<main>` inside starts
            // afresh, and a wrapper that holds most of the page's words is no sidebar or
            // footer, whatever its name (thepointsguy.com wraps its whole page in
            // `div.above-footer`).
            let wrapper = f64::from(w) > MAJORITY * f64::from(words[body.index()]);
            negative[id.index()] = (hints[id.index()] < 0 && !wrapper)
                || (parent.is_some_and(|p| negative[p.index()]) && !is_main_element(doc, id));
        }
        let mut negative_mass = vec![0.0f64; n];
        for id in doc.subtree(body).rev().map(NodeId) {
            if deadline::due(id.index()) {
                break;
            }
            if id == body {
                break;
            }
            if let Some(p) = doc.parent(id) {
                if excluded[id.index()] {
                    mass[p.index()] -= words[id.index()] as f64 * 0.5;
                } else {
                    mass[p.index()] += mass[id.index()];
                    prose[p.index()] += prose[id.index()];
                    let inner = if negative[id.index()] && !negative[p.index()] {
                        mass[id.index()].max(0.0)
                    } else {
                        negative_mass[id.index()]
                    };
                    negative_mass[p.index()] = negative_mass[p.index()].max(inner);
                }
            }
        }
        for (f, b) in filler.iter_mut().zip(&sign_in) {
            *f |= b;
        }
        Aggregates {
            mass,
            prose,
            words,
            link_words,
            heading_words,
            punct,
            blocks: block_count,
            links,
            media,
            excluded,
            hints,
            negative,
            negative_mass,
            segments: blocks,
            filler,
        }
    }
}
