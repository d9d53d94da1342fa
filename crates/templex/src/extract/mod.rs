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
//!
//! The phases, in order, each in its file: [`blocks`] (the page's text blocks),
//! [`aggregates`] (summed up the tree), [`container`] (the best candidate, tightened,
//! widened, grown; lists of records), [`prune`](mod@prune) (what inside it is not content),
//! [`quotes`] (quotations and copies that repeat it, over the content's [`lines`], which
//! also drop the lines of machine identifiers). Below them, [`verdicts`] (what an element is by
//! its tag and names), [`names`] (class and id hints) and [`declared`] (what the page says
//! it is); beside them, [`spread`] (the view of a page that spreads its content), [`render`]
//! (text, Markdown and HTML) and [`metadata`].

mod aggregates;
mod blocks;
mod config;
mod container;
mod declared;
mod description;
mod labels;
mod lines;
mod metadata;
mod names;
mod prune;
mod quotes;
mod render;
mod spread;
#[cfg(test)]
mod tests;
mod thread;
mod verdicts;

pub(crate) use blocks::Block;
pub(crate) use lines::{
    Lines, drop_copyright_lines, drop_identifier_lines, drop_post_chrome, drop_post_slots,
};
pub use metadata::Metadata;
pub(crate) use metadata::{page_metadata, url_date};
pub(crate) use names::NameHints;
#[cfg(test)]
pub(crate) use names::name_hint;
pub(crate) use quotes::{drop_repeated_copies, drop_repeated_quotes};
pub use render::content_text;
pub(crate) use render::{content_html, content_markdown};

pub(crate) use config::Content;
pub use config::ContentConfig;
#[cfg(feature = "batch")]
pub(crate) use declared::document_url;
pub(crate) use declared::{
    declares_article, declares_discussion, declares_product, page_title, product_description,
};
pub(crate) use description::show_declared_description;
pub(crate) use labels::drop_control_labels;
pub use spread::non_template_mask;
#[cfg(feature = "batch")]
pub(crate) use spread::visible_descendants;
pub(crate) use spread::{
    Rest, drop_beyond_main, drop_dismissible_notices, drop_fine_print, drop_hidden_link_lists,
    drop_link_carousels, drop_never_content, drop_noscript_notices, drop_popovers,
    drop_product_asides, drop_screen_reader_text, kept_words, show_closed, spread_content,
};
pub(crate) use thread::{drop_folded_boxes, drop_guest_prompts, drop_user_cards};

use aggregates::Aggregates;
use container::{
    choose, grow_to_article, grow_to_flow, grow_to_main, is_listing, lift_records,
    move_to_article_body, records, tighten, widen,
};
pub(crate) use prune::{DATED_WORDS, has_kept_text, is_menu, opens_with_date};
use prune::{drop_orphan_headings, prune};

use crate::dom::{Document, NodeId, deadline};

/// Where a page's main content is: its root, the parts of it that hold prose, and the
/// container of its records when it is a listing.
struct Container {
    root: NodeId,
    parts: Vec<NodeId>,
    records: Option<NodeId>,
    /// On a page read with its comments (a thread) that is no listing, the container of the
    /// page's records: its posts.
    posts: Option<NodeId>,
}

/// The container phases of [`page_content`]: the best candidate, tightened, widened, grown
/// to its article and main element, lifted to its records on a listing.
fn container(
    doc: &Document,
    body: NodeId,
    agg: &Aggregates,
    config: &ContentConfig,
) -> Option<Container> {
    let (best, candidates) = choose(doc, body, agg)?;
    let root = tighten(doc, best, &candidates, agg, config);
    let (root, parts) = widen(doc, body, root, agg, config);
    let (root, parts) = grow_to_flow(doc, body, root, parts, agg);
    let (root, parts) = grow_to_article(doc, body, root, parts, agg);
    let (root, parts) = grow_to_main(doc, body, root, parts, agg);
    let (root, parts) = move_to_article_body(doc, body, root, parts, agg);
    let list = records(doc, body, agg);
    tracing::debug!(
        container = %doc.dom_path(root),
        records = ?list.map(|l| (doc.dom_path(l.container), l.words)),
        "page content"
    );
    // The figures the listing rules weigh (`is_listing`), for tuning them.
    if let Some(l) = list {
        tracing::debug!(
            list_words = l.words,
            root_words = agg.words[root.index()],
            root_link_words = agg.link_words[root.index()],
            root_prose = agg.prose[root.index()],
            root_punct = agg.punct[root.index()],
            list_in_root = doc.contains(root, l.container),
            root_in_list = doc.contains(l.container, root),
            "listing figures"
        );
    }
    let (root, parts, records, posts) = match list {
        Some(list) if is_listing(doc, root, list, agg, declares_article(doc)) => {
            let root = if doc.contains(root, list.container) {
                root
            } else {
                lift_records(doc, body, list.container, agg)
            };
            (root, vec![root], Some(list.container), None)
        }
        _ => (
            root,
            parts,
            None,
            list.filter(|_| config.comments).map(|l| l.container),
        ),
    };
    tracing::debug!(root = %doc.dom_path(root), listing = records.is_some(), "content root");
    Some(Container {
        root,
        parts,
        records,
        posts,
    })
}

/// The root of [`page_content`], without deciding what inside it is content (the pruning):
/// for callers that only place the region.
pub(crate) fn content_root(doc: &Document, config: &ContentConfig) -> Option<NodeId> {
    let body = doc.body()?;
    let agg = Aggregates::measure(doc, body, config);
    container(doc, body, &agg, config).map(|c| c.root)
}

/// The content of a page found inside `root`, an element the caller knows holds it (a
/// site's content slot): [`page_content`]'s pruning with `root` as the container.
pub(crate) fn page_content_at(doc: &Document, config: &ContentConfig, root: NodeId) -> Content {
    let Some(body) = doc.body() else {
        return Content {
            root: None,
            keep: vec![false; doc.len()],
        };
    };
    let agg = Aggregates::measure(doc, body, config);
    Content {
        root: Some(root),
        keep: keep_inside(doc, root, &agg, config, true),
    }
}

/// The content of a page whose main content came out empty although the page shows text:
/// the container's text without the filters that read short text as boilerplate (labels,
/// datelines, captions, the headline). A page whose only text is short — a lone paragraph,
/// a notice, a heading and a line — keeps it. `None` when the page has no such text either.
///
/// Only outputs take it: the page-level features and HybEx's region read [`page_content`],
/// on which the shipped models were trained.
pub(crate) fn short_page_content(doc: &Document, config: &ContentConfig) -> Option<Content> {
    let body = doc.body()?;
    let agg = Aggregates::measure(doc, body, config);
    let Container { root, .. } = container(doc, body, &agg, config)?;
    let keep = keep_inside(doc, root, &agg, config, false);
    has_kept_text(doc, root, &keep).then_some(Content {
        root: Some(root),
        keep,
    })
}

/// The keep mask of the container `root` taken whole as one part: pruned ([`prune`], `sure`
/// as there), then without headings left alone.
fn keep_inside(
    doc: &Document,
    root: NodeId,
    agg: &Aggregates,
    config: &ContentConfig,
    sure: bool,
) -> Vec<bool> {
    let title = page_title(doc);
    let mut keep = prune(
        doc,
        root,
        &[root],
        None,
        None,
        agg,
        config,
        title.as_deref(),
        sure,
    );
    drop_orphan_headings(doc, root, None, &mut keep, &agg.words);
    keep
}

/// Detect the main content of a page, in phases: the text blocks are summed up the tree,
/// the best candidate container is chosen, tightened to the deepest element that holds
/// nearly all of it, widened by sibling containers with prose and grown to its `<article>`;
/// then what is boilerplate inside it is pruned, and so are headings left without a section.
pub fn page_content(doc: &Document, config: &ContentConfig) -> Content {
    page_content_and_blocks(doc, config).0
}

/// [`page_content`], the text blocks of `<body>` it weighed
/// ([`segment_blocks`](blocks::segment_blocks)) and the nodes no view of the content holds,
/// one flag per node: its filler elements ([`filler_mask`](aggregates::filler_mask)) and
/// sign-in boxes ([`mark_sign_in_boxes`](verdicts::mark_sign_in_boxes)), for callers that
/// weigh them again (the choice of a page-level view).
pub(crate) fn page_content_and_blocks(
    doc: &Document,
    config: &ContentConfig,
) -> (Content, Vec<Block>, Vec<bool>) {
    // The title tells the headline, which goes to the title rather than the text.
    let title = page_title(doc);
    let nothing = || Content {
        root: None,
        keep: vec![false; doc.len()],
    };
    let none = || vec![false; doc.len()];
    let Some(body) = doc.body() else {
        return (nothing(), Vec::new(), none());
    };
    let mut agg = Aggregates::measure(doc, body, config);
    if deadline::passed() {
        return (nothing(), Vec::new(), none());
    }
    let Some(Container {
        root,
        parts,
        records,
        posts,
    }) = container(doc, body, &agg, config)
    else {
        tracing::debug!("no text outside boilerplate");
        return (
            nothing(),
            std::mem::take(&mut agg.segments),
            std::mem::take(&mut agg.filler),
        );
    };
    if deadline::passed() {
        return (nothing(), Vec::new(), none());
    }
    let mut keep = prune(
        doc,
        root,
        &parts,
        records,
        posts,
        &agg,
        config,
        title.as_deref(),
        true,
    );
    drop_orphan_headings(doc, root, records, &mut keep, &agg.words);
    let content = Content {
        root: Some(root),
        keep,
    };
    (content, agg.segments, agg.filler)
}
