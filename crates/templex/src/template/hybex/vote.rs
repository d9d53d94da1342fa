//! The vote: which nodes of a page are template, from its mappings onto pages that share its
//! template. Written once, used by both forms of TemEx and HybEx: the interactive one
//! ([`super::mapped`]: siblings found by the CS search) and batch's HybEx model
//! ([`super::model`]: a cluster's reference pages).

use serde::Serialize;
use url::Url;

use super::protect::{
    Protection, all_text_everywhere, narrow_region, protect_content_root, protected_in_region,
};
use crate::dom::{Document, Element, NodeId, deadline, local_name};
use crate::extract::{ContentConfig, content_root, page_content};
use crate::mapping::{MapIndex, Mapping};
use crate::template::{Method, TemplateConfig};

/// How a mapped node becomes template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateRule {
    /// TemEx as published: every mapped node is template.
    Mapped,
    /// Mapped and backed by mapped text: a mapped element is template only if the mapping
    /// also matched text under it, or if it holds no text and its parent is template.
    #[default]
    TextEvidence,
}

/// The vote: the template of the page indexed by `index` from its mappings onto pages that
/// passed the guard (at least one). A node is mapped when `config.mapping.votes` of them map it
/// (all by default), then [`TemplateRule`] decides; with `config.mapping.prior`, a node one vote
/// short is template when PAGELEVEL says so. HybEx then takes the page-level main content
/// out of the template, as the paper removes it before mapping: its text is no evidence
/// (the vote is taken again without it) and the region is content, but for what the
/// page-level step's finer views of it do not call content ([`protected_in_region`]: a
/// forum's jump box inside the container of its thread); when that region holds
/// most of the template, HybEx votes again as TemEx does (the note says so); a region
/// whose text every compared page has is no main content, and nothing is taken out.
#[cfg(any(test, feature = "batch"))]
pub(crate) fn vote(
    index: &MapIndex<'_>,
    mappings: &[&Mapping],
    config: &TemplateConfig,
    url: Option<&Url>,
) -> (Vec<bool>, Option<String>) {
    vote_with(index, mappings, &[], config, url)
}

/// [`vote`], with the compared pages' documents (`others[j]` is the target of
/// `mappings[j]`), from which HybEx's region is narrowed to the content slot they agree on
/// ([`narrow_region`]). Batch's HybEx model votes without them (no page-level detection of
/// its reference pages for every page it applies to).
pub(crate) fn vote_with(
    index: &MapIndex<'_>,
    mappings: &[&Mapping],
    others: &[&Document],
    config: &TemplateConfig,
    url: Option<&Url>,
) -> (Vec<bool>, Option<String>) {
    let doc = index.doc;
    let needed = config
        .mapping
        .votes
        .unwrap_or(mappings.len())
        .clamp(1, mappings.len());
    let found =
        (config.method == Method::HybEx).then(|| page_content(doc, &ContentConfig::default()));
    let content = found.as_ref().and_then(|c| c.root);
    // Past the deadline nothing of the vote is used: the caller gives a timeout.
    let late = || (vec![false; doc.len()], None);
    if deadline::passed() {
        return late();
    }
    // PAGELEVEL's verdicts, asked for at most once; its features include the page's content,
    // found above for HybEx.
    let page_level = || {
        if deadline::passed() {
            return vec![false; doc.len()];
        }
        crate::pagelevel::detect_with(doc, url, config.model(), &config.pagelevel, found.as_ref())
            .template
    };
    let pl = std::cell::OnceCell::new();
    let ballot = Ballot::new(index, mappings, config.mapping.rule);
    // The vote; text inside `removed` is no evidence either way.
    let run = |removed: Option<NodeId>| {
        let mut template = decide(index, &ballot, needed, removed);
        if config.mapping.prior && needed > 1 {
            // PAGELEVEL breaks ties: a node one vote short is template when the page-level
            // detector says so.
            let short = decide(index, &ballot, needed - 1, removed);
            let pl: &Vec<bool> = pl.get_or_init(page_level);
            for i in 0..template.len() {
                template[i] |= short[i] && pl[i];
            }
        }
        template
    };
    let mut template = run(None);
    let mut note = None;
    if deadline::passed() {
        return late();
    }
    if config.method == Method::HybEx {
        // A region all of whose text every compared page has too is not the page's own
        // content: the page-level detector missed it (a page of images and a header
        // bar), and there is no region to protect.
        let content = content.filter(|r| !all_text_everywhere(index, mappings, *r));
        // The compared pages share the key page's template, hence its content slot: where
        // their own regions sit deeper, the key page's region took shared wrappers with it.
        let content = content.map(|r| {
            narrow_region(doc, r, mappings, |j| {
                others
                    .get(j)
                    .filter(|_| !deadline::passed())
                    .and_then(|d| content_root(d, &ContentConfig::default()))
            })
        });
        // The vote with the region's text as evidence, for the parts of the region that
        // the page-level step itself does not call content.
        let voted = template.clone();
        match protect_content_root(doc, content, &mut template) {
            Protection::Implausible => {
                // Without the page-level step, HybEx's relaxed vote would let content shared by
                // two siblings pass as template: vote as TemEx does.
                note = Some(
                    "page-level content region holds most of the template: ignored, all CS pages must agree"
                        .into(),
                );
                template = decide(index, &ballot, mappings.len(), None);
            }
            Protection::Applied => {
                // HybEx removes the main content before it maps the page: the text of that
                // region is no evidence either way, and the wrappers around it are text-less
                // layout containers (template when their parent is). Vote again so. Inside
                // the region, what the page-level step's finer views do not call content goes
                // by the first vote ([`protected_in_region`]).
                template = run(content);
                if let (Some(root), Some(found)) = (content, &found) {
                    let chrome = || -> &[bool] { pl.get_or_init(page_level) };
                    let own = |id: NodeId| {
                        index.is_shown_text(id) && !mappings.iter().any(|m| m.is_mapped(id))
                    };
                    let protected =
                        protected_in_region(doc, root, &found.keep, own, &voted, chrome);
                    for i in doc.subtree(root) {
                        if deadline::due(i as usize) {
                            break;
                        }
                        let i = i as usize;
                        template[i] = voted[i] && !protected[i];
                    }
                }
            }
            Protection::NoContent => {}
        }
    }
    (template, note)
}

/// What every vote on one page reads, whatever the votes needed and the region taken out:
/// computed once, as HybEx votes up to four times.
pub(super) struct Ballot {
    /// The rule the votes go by.
    rule: TemplateRule,
    /// Per node, how many mappings map it; under [`TemplateRule::TextEvidence`], none for a
    /// link to a neighbour in a series and its subtree ([`is_sequence_link`]).
    votes: Vec<u16>,
    /// Per node, what it shows without the votes.
    seen: Vec<Seen>,
}

/// What a node shows a reader, for [`decide`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Text, code aside: evidence for or against its ancestors.
    Text,
    /// An element that shows something without text ([`shows_without_text`]).
    Shown,
    /// Anything else.
    Nothing,
}

impl Ballot {
    /// Count the votes of `mappings` on the page indexed by `index`.
    pub(super) fn new(index: &MapIndex<'_>, mappings: &[&Mapping], rule: TemplateRule) -> Self {
        use crate::mapping::index::Kind;
        let doc = index.doc;
        let n = doc.len();
        let mut votes = vec![0u16; n];
        for m in mappings {
            for (i, v) in votes.iter_mut().enumerate() {
                *v = v.saturating_add(u16::from(m.is_mapped(NodeId(i as u32))));
            }
        }
        let mut seen = vec![Seen::Nothing; n];
        if rule == TemplateRule::Mapped {
            return Ballot { rule, votes, seen };
        }
        let mut id = 0u32;
        while (id as usize) < n {
            if is_sequence_link(doc, NodeId(id)) {
                let range = doc.subtree(NodeId(id));
                votes[range.start as usize..range.end as usize].fill(0);
                id = range.end;
            } else {
                id += 1;
            }
        }
        for (i, s) in seen.iter_mut().enumerate() {
            let id = NodeId(i as u32);
            *s = match index.kind(id) {
                Kind::Text if index.is_shown_text(id) => Seen::Text,
                Kind::Element if doc.element(id).is_some_and(shows_without_text) => Seen::Shown,
                _ => Seen::Nothing,
            };
        }
        Ballot { rule, votes, seen }
    }
}

/// Combine the CS mappings ([`Ballot`]) into the template: the votes `needed`, then the rule.
/// Text inside `removed` (HybEx's page-level main content) is no evidence either way.
///
/// Beyond TemEx's "mapped is template", [`TemplateRule::TextEvidence`] reads what the
/// mapping cannot see:
/// * a mapped element is template only when mapped text backs it, or when it holds no text
///   and its parent is template (`div.entry-content` on every article, with other text,
///   stays content); the text of scripts and styles is code, not text, and is no evidence;
/// * a link to the previous or next page of a series (`rel="prev"`/`"next"`, HTML's link
///   types) points elsewhere from every page, whatever its label: not template;
/// * a list hanging off a template list item is a submenu: menus expand the current page's
///   branch (a documentation sidebar, a CMS menu's current section), which no other page
///   has, so it is mapped nowhere, yet it is the menu's;
/// * an element that shows nothing (no text, no image or control) among template siblings
///   is layout — spacers, clearing divs, cards a script fills — even unmapped; between
///   content (a rule, a named anchor) it stays with the content it separates.
pub(super) fn decide(
    index: &MapIndex<'_>,
    ballot: &Ballot,
    needed: usize,
    removed: Option<NodeId>,
) -> Vec<bool> {
    use crate::mapping::index::Kind;
    let doc = index.doc;
    let n = doc.len();
    let needed = u16::try_from(needed).unwrap_or(u16::MAX);
    let mapped: Vec<bool> = ballot.votes.iter().map(|v| *v >= needed).collect();
    if ballot.rule == TemplateRule::Mapped {
        return mapped;
    }
    let removed = removed.map(|r| doc.subtree(r));
    // Bottom-up: does the subtree hold text, does it hold template text, does it show
    // anything at all (text, images, controls)?
    let mut has_text = vec![false; n];
    let mut has_tpl_text = vec![false; n];
    let mut shows = vec![false; n];
    for id in doc.ids().rev() {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        match ballot.seen[i] {
            Seen::Text => {
                let gone = removed.as_ref().is_some_and(|r| r.contains(&id.0));
                shows[i] = true;
                has_text[i] = !gone;
                has_tpl_text[i] = !gone && mapped[i];
            }
            Seen::Shown => shows[i] = true,
            Seen::Nothing => {}
        }
        if let Some(p) = doc.parent(id) {
            has_text[p.index()] |= has_text[i];
            has_tpl_text[p.index()] |= has_tpl_text[i];
            shows[p.index()] |= shows[i];
        }
    }
    // Top-down: textless elements follow their parent; submenus follow their item.
    let mut template = vec![false; n];
    let mut submenu = vec![false; n];
    for id in doc.ids() {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        let parent = doc.parent(id);
        let parent_tpl = parent.is_none_or(|p| template[p.index()]);
        template[i] = mapped[i]
            && match index.kind(id) {
                Kind::Text => true,
                _ => has_tpl_text[i] || (!has_text[i] && parent_tpl),
            };
        if let Some(p) = parent {
            submenu[i] = submenu[p.index()]
                || (!mapped[i]
                    && template[p.index()]
                    && is_list(doc, id)
                    && doc.tag(p).is_some_and(|t| *t == local_name!("li")));
            template[i] |= submenu[i];
        }
    }
    layout_fillers(doc, index, &shows, &mut template);
    template
}

/// Children that show nothing, among template siblings of a template element, become
/// template (see [`decide`]); in document order, so their own children follow.
pub(super) fn layout_fillers(
    doc: &Document,
    index: &MapIndex<'_>,
    shows: &[bool],
    template: &mut [bool],
) {
    use crate::mapping::index::Kind;
    let mut kids = Vec::new();
    for id in doc.ids() {
        if deadline::due(id.index()) {
            break;
        }
        if !template[id.index()] || (index.kind(id) != Kind::Element && id != NodeId::ROOT) {
            continue;
        }
        kids.clear();
        kids.extend(
            doc.children(id)
                .filter(|c| matches!(index.kind(*c), Kind::Element | Kind::Text)),
        );
        // Whether the nearest child before that shows something is template (or absent).
        let mut left = true;
        for (k, c) in kids.iter().enumerate() {
            let ci = c.index();
            if shows[ci] {
                left = template[ci];
                continue;
            }
            if template[ci] || !left {
                continue;
            }
            let right = kids[k + 1..]
                .iter()
                .find(|d| shows[d.index()])
                .is_none_or(|d| template[d.index()]);
            template[ci] = right;
        }
    }
}

pub(super) fn is_list(doc: &Document, id: NodeId) -> bool {
    doc.tag(id)
        .is_some_and(|t| matches!(*t, local_name!("ul") | local_name!("ol")))
}

/// Elements that show something without text: images, media, embedded documents, canvases
/// and the form controls a reader uses (a hidden input shows nothing).
pub(super) fn shows_without_text(e: &Element) -> bool {
    match *e.tag() {
        local_name!("img")
        | local_name!("picture")
        | local_name!("video")
        | local_name!("audio")
        | local_name!("iframe")
        | local_name!("object")
        | local_name!("embed")
        | local_name!("svg")
        | local_name!("canvas")
        | local_name!("select")
        | local_name!("textarea")
        | local_name!("button") => true,
        local_name!("input") => !e
            .attr("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("hidden")),
        _ => false,
    }
}

/// `<a rel="prev">`, `<a rel="next">`: HTML's link types for a page's neighbours in a series.
pub(super) fn is_sequence_link(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.is(&local_name!("a"))
            && e.attr("rel").is_some_and(|r| {
                r.split_ascii_whitespace().any(|t| {
                    ["prev", "previous", "next"]
                        .iter()
                        .any(|k| t.eq_ignore_ascii_case(k))
                })
            })
    })
}
