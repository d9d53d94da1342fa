//! TemEx and HybEx: the key page mapped onto pages that share its template, and the vote
//! that turns the mappings into a template. The guard and the vote are written once here and
//! used by both forms of the methods: the interactive one ([`mapping_template`]: siblings
//! found by the CS search) and batch's HybEx model ([`super::model`]: a cluster's reference
//! pages).

use std::time::{Duration, Instant};

use serde::Serialize;
use url::Url;

use super::{Method, TemplateConfig, TemplateResult, Timings};
use crate::cluster::{ClusterConfig, Fingerprint};
use crate::dom::{Document, Element, LocalName, NodeId, local_name};
use crate::extract::{ContentConfig, page_content};
use crate::mapping::{MapIndex, Mapping, etdm};
use rustc_hash::FxHashSet;

use crate::extract::page_title;
use crate::siblings::cs::{
    CsOutcome, LoadedPage, SiblingLoad, SiblingRule, StopReason, find_complete_subdigraph,
    load_sibling,
};
use crate::siblings::kind::own_kind;
use crate::source::{LoadStats, PageSource};

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

/// The template guard: a page is compared with the page whose template is sought only when
/// they share a template, so that pages of another template under the same host, or
/// redirect stubs, neither vote nor empty the template. Two measures, either suffices:
/// * the Dice coefficient of mapped `<body>` elements (at least `config.guard`): the
///   structures overlap, content included;
/// * the Jaccard similarity of their layout fingerprints ([`Fingerprint`]) reaching the
///   threshold at which batch mode puts pages in one template cluster
///   ([`ClusterConfig::similarity`]). Dice alone depends on the amount of content: a forum
///   listing of 1,700 elements and a forum page of 180 share a 140-element template, yet
///   score 0.15, and were refused; their layout paths agree whatever the content's size.
pub(crate) struct Guard<'a> {
    index: &'a MapIndex<'a>,
    body: usize,
    fingerprint: Fingerprint,
    config: &'a TemplateConfig,
}

/// What the guard learned about a page it let through.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    /// The mapping of the guarded page onto the other page.
    pub(crate) mapping: Mapping,
    /// Dice coefficient of mapped body elements.
    pub(crate) dice: f64,
}

impl<'a> Guard<'a> {
    /// The guard of the page indexed by `index`.
    pub(crate) fn new(index: &'a MapIndex<'a>, config: &'a TemplateConfig) -> Self {
        Guard {
            index,
            body: body_elements(index.doc),
            fingerprint: Fingerprint::of(index.doc),
            config,
        }
    }

    /// The mapping of the guarded page onto `other` and their similarities, if `other`
    /// passes.
    pub(crate) fn check(&self, other: &MapIndex<'_>) -> Option<Checked> {
        let m = etdm(self.index, other, &self.config.equality);
        let mapped = count_mapped_body(self.index.doc, &m);
        let dice = 2.0 * mapped as f64 / (self.body + body_elements(other.doc)).max(1) as f64;
        let layout = self.fingerprint.jaccard(&Fingerprint::of(other.doc));
        let pass = dice >= self.config.guard
            || (self.config.guard > 0.0 && layout >= ClusterConfig::default().similarity);
        tracing::debug!(dice, layout, pass, "template guard");
        pass.then_some(Checked { mapping: m, dice })
    }
}

/// The vote: the template of the page indexed by `index` from its mappings onto pages that
/// passed the guard (at least one). A node is mapped when `config.votes` of them map it
/// (all by default), then [`TemplateRule`] decides; with `config.prior`, a node one vote
/// short is template when PAGELEVEL says so. HybEx then takes the page-level main content
/// out of the template, as the paper removes it before mapping: its text is no evidence
/// (the vote is taken again without it) and the region is content, but for what the
/// page-level step's finer views of it do not call content ([`protected_in_region`]: a
/// forum's jump box inside the container of its thread); when that region holds
/// most of the template, HybEx votes again as TemEx does (the note says so); a region
/// whose text every compared page has is no main content, and nothing is taken out.
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
        .votes
        .unwrap_or(mappings.len())
        .clamp(1, mappings.len());
    let found =
        (config.method == Method::HybEx).then(|| page_content(doc, &ContentConfig::default()));
    let content = found.as_ref().and_then(|c| c.root);
    let pl = std::cell::OnceCell::new();
    // The vote; text inside `removed` is no evidence either way.
    let run = |removed: Option<NodeId>| {
        let mut template = decide(doc, index, mappings, needed, config.rule, removed);
        if config.prior && needed > 1 {
            // PAGELEVEL breaks ties: a node one vote short is template when the page-level
            // detector says so.
            let short = decide(doc, index, mappings, needed - 1, config.rule, removed);
            let pl: &Vec<bool> = pl.get_or_init(|| {
                crate::pagelevel::detect(doc, url, config.model(), &config.pagelevel).template
            });
            for i in 0..template.len() {
                template[i] |= short[i] && pl[i];
            }
        }
        template
    };
    let mut template = run(None);
    let mut note = None;
    if config.method == Method::HybEx {
        // A region all of whose text every compared page has too is not the page's own
        // content: the page-level detector missed it (a page of images and a header
        // bar), and there is no region to protect.
        let content = content.filter(|r| !all_text_everywhere(index, mappings, *r));
        // The compared pages share the key page's template, hence its content slot: where
        // their own regions sit deeper, the key page's region took shared wrappers with it.
        let content = content.map(|r| {
            let theirs: Vec<Option<NodeId>> = others
                .iter()
                .map(|d| page_content(d, &ContentConfig::default()).root)
                .collect();
            narrow_region(doc, r, mappings, &theirs)
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
                template = decide(doc, index, mappings, mappings.len(), config.rule, None);
            }
            Protection::Applied => {
                // HybEx removes the main content before it maps the page: the text of that
                // region is no evidence either way, and the wrappers around it are text-less
                // layout containers (template when their parent is). Vote again so. Inside
                // the region, what the page-level step's finer views do not call content goes
                // by the first vote ([`protected_in_region`]).
                template = run(content);
                if let (Some(root), Some(found)) = (content, &found) {
                    let chrome = || -> &[bool] {
                        pl.get_or_init(|| {
                            crate::pagelevel::detect(doc, url, config.model(), &config.pagelevel)
                                .template
                        })
                    };
                    let own = |id: NodeId| {
                        index.kind(id) == crate::mapping::index::Kind::Text
                            && !doc.parent(id).and_then(|p| doc.tag(p)).is_some_and(is_code)
                            && !mappings.iter().any(|m| m.is_mapped(id))
                    };
                    let protected =
                        protected_in_region(doc, root, &found.keep, own, &voted, chrome);
                    for i in doc.subtree(root) {
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

/// TemEx / HybEx: siblings in a complete subdigraph, mapped against the key page.
pub(super) fn mapping_template(
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    let page_url = key_url;

    let t1 = Instant::now();
    let key_index = MapIndex::new(&doc);
    let key_guard = Guard::new(&key_index, config);
    let guard = |other: &Document| key_guard.check(&MapIndex::new(other));
    let outcome = find_complete_subdigraph(source, &doc, page_url, &config.cs_config(), &guard);
    let own = own_kind_siblings(source, &doc, page_url, &outcome, config, &guard);
    let siblings = t1.elapsed();

    let t2 = Instant::now();
    let mut notes = Vec::new();
    let mut used: Vec<&LoadedPage<Checked>> = outcome.pages.iter().collect();
    let mut rule = SiblingRule::Cs;
    if used.len() < config.cs_size && (own.is_some() || !outcome.others.is_empty()) {
        // No n-CS on this site: the pages already loaded that passed the template guard
        // complete the set, so that one sibling's content cannot pass for template (no
        // extra loads). Least similar first: near-duplicates of the key page (the same
        // listing sorted differently, a search page showing the same topics) share its
        // content, and the guard already vouches for the template.
        // Pages of the key page's own kind come first (see [`own_kind_siblings`]).
        let own: Vec<&LoadedPage<Checked>> = own
            .as_ref()
            .map(|o| o.found.iter().copied().chain(&o.extra).collect())
            .unwrap_or_default();
        let mut others: Vec<_> = outcome
            .others
            .iter()
            .filter(|p| !own.iter().any(|o| o.url == p.url))
            .collect();
        others.sort_by(|a, b| a.data.dice.total_cmp(&b.data.dice));
        let before = used.len();
        used.extend(own.into_iter().take(config.cs_size - before));
        if used.len() > before {
            rule = SiblingRule::OwnKind;
        }
        let room = config.cs_size - used.len();
        used.extend(others.into_iter().take(room));
        notes.push(format!(
            "found a {}-CS (asked for {}); compared with {} pages",
            outcome.pages.len(),
            config.cs_size,
            used.len()
        ));
    }
    if used.is_empty() {
        rule = SiblingRule::None;
    } else if rule == SiblingRule::Cs && used.len() > outcome.pages.len() {
        rule = SiblingRule::CsTopUp;
    }
    let mappings: Vec<&Mapping> = used.iter().map(|p| &p.data.mapping).collect();
    let mut method = config.method;
    let mut segments = Vec::new();
    let template = if mappings.is_empty() {
        notes.push(match outcome.stop {
            StopReason::NoLinks => "key page has no usable same-site links".into(),
            _ => format!(
                "no sibling page shares the key page's template ({} loaded, {} refused by the guard, {} failed)",
                outcome.rejected.len() + outcome.others.len() + outcome.failed.len(),
                outcome.rejected.len(),
                outcome.failed.len()
            ),
        });
        if config.fallback {
            let r =
                crate::pagelevel::detect(&doc, Some(page_url), config.model(), &config.pagelevel);
            notes.push("page-level detection instead (PAGELEVEL fallback)".into());
            method = Method::PageLevel;
            segments = r.segments;
            r.template
        } else {
            notes.push("no template".into());
            vec![false; doc.len()]
        }
    } else {
        if mappings.len() < config.cs_size && outcome.others.is_empty() {
            notes.push(format!(
                "found a {}-CS (asked for {})",
                mappings.len(),
                config.cs_size
            ));
        }
        let docs: Vec<&Document> = used.iter().map(|p| &p.doc).collect();
        let (template, note) = vote_with(&key_index, &mappings, &docs, config, Some(page_url));
        notes.extend(note);
        template
    };
    let mapping = t2.elapsed();
    TemplateResult {
        fallback: method != config.method,
        method,
        segments,
        key_url: page_url.clone(),
        template,
        cs_pages: used.iter().map(|p| p.url.clone()).collect(),
        rejected: outcome.rejected,
        stop: outcome.stop,
        siblings: rule,
        loads: LoadStats::default(),
        timings: Timings {
            key_page,
            siblings,
            mapping,
            total: Duration::ZERO,
        },
        notes,
        doc,
    }
}

/// The own-kind rule ([`crate::siblings::kind`]) for a key page without an n-CS: pages of
/// its kind complete the comparison set before other loaded pages do — those already loaded,
/// then its own-kind links in document order (at most `cs_size` more loads). A thread
/// linking only to its forum's index, an article whose menu pages are of another template,
/// a forum listing among the board's other pages: the pages like it share the parts of its
/// template the menu pages lack. Pages titled as the key page are the same content (another
/// page of one listing, the page under another session id) and are not taken: their
/// shared content would pass for template.
fn own_kind_siblings<'o>(
    source: &dyn PageSource,
    doc: &Document,
    key_url: &Url,
    outcome: &'o CsOutcome<Checked>,
    config: &TemplateConfig,
    guard: &dyn Fn(&Document) -> Option<Checked>,
) -> Option<OwnKind<'o>> {
    if outcome.pages.len() >= config.cs_size {
        return None;
    }
    let needed = config.cs_size - outcome.pages.len();
    let links: Vec<&Url> = outcome.links.iter().collect();
    let flags = own_kind(key_url, &links);
    let own: FxHashSet<&Url> = links
        .iter()
        .zip(&flags)
        .filter(|(_, o)| **o)
        .map(|(u, _)| *u)
        .collect();
    if own.is_empty() {
        return None;
    }
    let title = page_title(doc);
    let other_content = |d: &Document| title.is_none() || page_title(d) != title;
    let loaded = || outcome.pages.iter().chain(&outcome.others);
    let found: Vec<&LoadedPage<Checked>> = loaded()
        .filter(|p| own.contains(&p.url) && other_content(&p.doc))
        .filter(|p| !outcome.pages.iter().any(|c| c.url == p.url))
        .collect();
    let tried: FxHashSet<&Url> = loaded()
        .map(|p| &p.url)
        .chain(&outcome.rejected)
        .chain(&outcome.failed)
        .collect();
    let mut extra = Vec::new();
    // At most `cs_size` more loads, whatever they give.
    let candidates = links
        .iter()
        .zip(&flags)
        .filter(|(u, o)| **o && !tried.contains(**u))
        .take(config.cs_size);
    for (url, _) in candidates {
        if found.len() + extra.len() >= needed {
            break;
        }
        if let SiblingLoad::Loaded(p) =
            load_sibling(source, (*url).clone(), &config.budget, guard, None)
        {
            if other_content(&p.doc) {
                extra.push(p);
            }
        }
    }
    (found.len() + extra.len() > 0).then_some(OwnKind { found, extra })
}

/// Pages of the key page's own kind that share its template.
struct OwnKind<'o> {
    /// Found among the pages the CS search loaded.
    found: Vec<&'o LoadedPage<Checked>>,
    /// Loaded for the rule.
    extra: Vec<LoadedPage<Checked>>,
}

/// What [`protect_main_content`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protection {
    /// The page-level main content was taken out of the template.
    Applied,
    /// The detector's region holds most of the template (a wrapper, the body): left alone.
    Implausible,
    /// The page has no text to detect content in.
    NoContent,
}

/// HybEx's page-level step: the main content the page-level detector finds is never
/// template — unless that region holds most of what the site-level method calls template,
/// in which case the page-level guess is the implausible one and nothing changes.
pub(crate) fn protect_main_content(doc: &Document, template: &mut [bool]) -> Protection {
    let content = page_content(doc, &ContentConfig::default());
    protect_content_root(doc, content.root, template)
}

/// [`protect_main_content`] with the page-level content root already found.
fn protect_content_root(doc: &Document, root: Option<NodeId>, template: &mut [bool]) -> Protection {
    let Some(root) = root else {
        return Protection::NoContent;
    };
    // Counted in elements (the scoring unit), scripts and styles left out: they show
    // nothing, and page builders put many inside the content region.
    let at = |i: u32| {
        template.get(i as usize).copied().unwrap_or(false)
            && doc.tag(NodeId(i)).is_some_and(|t| !is_code(t))
    };
    let tpl_total = (0..template.len() as u32).filter(|i| at(*i)).count();
    let tpl_inside = doc.subtree(root).filter(|i| at(*i)).count();
    if tpl_inside * 2 > tpl_total {
        return Protection::Implausible;
    }
    for i in doc.subtree(root) {
        if let Some(t) = template.get_mut(i as usize) {
            *t = false;
        }
    }
    Protection::Applied
}

/// Which nodes of HybEx's region `root` stay out of the template whatever the vote says
/// (`voted`: the vote with the region's text as evidence). The region is the page-level
/// container, coarser than the content: a forum's `#page-body` holds the thread and, after
/// it, the board's jump box. The page-level step has two finer views of the region, and a
/// node stays protected only when both call it content:
/// * the container's keep mask (`keep`): a top-level part of the region that holds nothing
///   the container keeps (a link cluster, a form, a boilerplate-named block its pruning
///   dropped whole) is not the page's content — unless it holds text of the page's own
///   (`own`: text no compared page has at its place, such as the page count of a listing's
///   pagination). Parts inside a kept part (a post's byline and tags inside its article)
///   belong to it and stay protected;
/// * the per-node page-level detector, PAGELEVEL (`chrome`, asked for only when the vote
///   calls some protected node template): a node it calls chrome is not protected.
///
/// What is not protected is template only when the vote says so: the site and the page
/// must both call a node of the region template.
fn protected_in_region<'c>(
    doc: &Document,
    root: NodeId,
    keep: &[bool],
    own: impl Fn(NodeId) -> bool,
    voted: &[bool],
    chrome: impl FnOnce() -> &'c [bool],
) -> Vec<bool> {
    let kept = |i: usize| keep.get(i).copied().unwrap_or(false);
    // Reverse document order meets children before their parents.
    let mut holds = vec![false; doc.len()];
    for id in doc.subtree(root).rev().map(NodeId) {
        let i = id.index();
        holds[i] |= kept(i) || own(id);
        if holds[i] && id != root {
            if let Some(p) = doc.parent(id) {
                holds[p.index()] = true;
            }
        }
    }
    // Document order: a node's top-level part is its parent's, or itself below the root.
    let mut protected = vec![false; doc.len()];
    for id in doc.subtree(root).map(NodeId) {
        protected[id.index()] = match doc.parent(id) {
            _ if id == root => true,
            Some(p) if p == root => holds[id.index()],
            Some(p) => protected[p.index()],
            None => true,
        };
    }
    let voted_inside = doc
        .subtree(root)
        .any(|i| protected[i as usize] && voted.get(i as usize).copied().unwrap_or(false));
    if voted_inside {
        let chrome = chrome();
        for i in doc.subtree(root) {
            let i = i as usize;
            protected[i] &= !chrome.get(i).copied().unwrap_or(false);
        }
    }
    protected
}

/// HybEx's region narrowed to the content slot the compared pages agree on: the node
/// strictly inside `root` that their own page-level regions (`theirs[j]`, of the target of
/// `mappings[j]`) map to. A page whose region maps outside `root` (its detector chose
/// something else) abstains; one that maps to `root` itself, or to another node, keeps
/// `root`; so does no page at all.
fn narrow_region(
    doc: &Document,
    root: NodeId,
    mappings: &[&Mapping],
    theirs: &[Option<NodeId>],
) -> NodeId {
    let mut agreed: Option<NodeId> = None;
    for (m, theirs) in mappings.iter().zip(theirs) {
        let Some(theirs) = *theirs else {
            continue;
        };
        let Some(k) = doc
            .subtree(root)
            .map(NodeId)
            .find(|k| m.partner.get(k.index()).copied().flatten() == Some(theirs))
        else {
            continue;
        };
        if k == root || agreed.is_some_and(|a| a != k) {
            return root;
        }
        agreed = Some(k);
    }
    agreed.unwrap_or(root)
}

/// Whether every text under `root` (code aside) is mapped in every page compared, and there
/// is some: a region with no text of its own is not the page's main content.
fn all_text_everywhere(index: &MapIndex<'_>, mappings: &[&Mapping], root: NodeId) -> bool {
    use crate::mapping::index::Kind;
    let doc = index.doc;
    let mut texts = doc.subtree(root).map(NodeId).filter(|id| {
        index.kind(*id) == Kind::Text
            && !doc
                .parent(*id)
                .and_then(|p| doc.tag(p))
                .is_some_and(is_code)
    });
    let mut any = false;
    let all = texts.all(|id| {
        any = true;
        mappings.iter().all(|m| m.is_mapped(id))
    });
    any && all
}

/// Element descendants of `<body>`: the scoring unit and the guard's size measure.
pub(crate) fn body_elements(doc: &Document) -> usize {
    doc.body().map_or(0, |b| {
        doc.descendants(b)
            .filter(|d| doc.element(*d).is_some())
            .count()
    })
}

fn count_mapped_body(doc: &Document, m: &Mapping) -> usize {
    doc.body().map_or(0, |b| {
        doc.descendants(b)
            .filter(|d| doc.element(*d).is_some() && m.is_mapped(*d))
            .count()
    })
}

/// Combine the CS mappings into the template: votes, then the rule. Text inside `removed`
/// (HybEx's page-level main content) is no evidence either way.
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
fn decide(
    doc: &Document,
    index: &MapIndex<'_>,
    mappings: &[&Mapping],
    needed: usize,
    rule: TemplateRule,
    removed: Option<NodeId>,
) -> Vec<bool> {
    use crate::mapping::index::Kind;
    let n = doc.len();
    let mut mapped: Vec<bool> = (0..n)
        .map(|i| {
            let id = NodeId(i as u32);
            mappings.iter().filter(|m| m.is_mapped(id)).count() >= needed
        })
        .collect();
    if rule == TemplateRule::Mapped {
        return mapped;
    }
    let mut id = 0u32;
    while (id as usize) < n {
        if is_sequence_link(doc, NodeId(id)) {
            let range = doc.subtree(NodeId(id));
            for j in range.clone() {
                mapped[j as usize] = false;
            }
            id = range.end;
        } else {
            id += 1;
        }
    }
    let removed = removed.map(|r| doc.subtree(r));
    // Bottom-up: does the subtree hold text, does it hold template text, does it show
    // anything at all (text, images, controls)?
    let mut has_text = vec![false; n];
    let mut has_tpl_text = vec![false; n];
    let mut shows = vec![false; n];
    for id in doc.ids().rev() {
        let i = id.index();
        match index.kind(id) {
            Kind::Text => {
                let code = doc.parent(id).and_then(|p| doc.tag(p)).is_some_and(is_code);
                let gone = removed.as_ref().is_some_and(|r| r.contains(&id.0));
                if !code {
                    shows[i] = true;
                    has_text[i] = !gone;
                    has_tpl_text[i] = !gone && mapped[i];
                }
            }
            Kind::Element => shows[i] |= doc.element(id).is_some_and(shows_without_text),
            _ => {}
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
fn layout_fillers(doc: &Document, index: &MapIndex<'_>, shows: &[bool], template: &mut [bool]) {
    use crate::mapping::index::Kind;
    let mut kids = Vec::new();
    for id in doc.ids() {
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

/// Elements whose text is code, not anything a reader reads.
fn is_code(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("script") | local_name!("style") | local_name!("template")
    )
}

fn is_list(doc: &Document, id: NodeId) -> bool {
    doc.tag(id)
        .is_some_and(|t| matches!(*t, local_name!("ul") | local_name!("ol")))
}

/// Elements that show something without text: images, media, embedded documents, canvases
/// and the form controls a reader uses (a hidden input shows nothing).
fn shows_without_text(e: &Element) -> bool {
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
fn is_sequence_link(doc: &Document, id: NodeId) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    /// The key page's template against `others`, each page a `<body>`'s inner HTML.
    fn template_of(config: &TemplateConfig, key: &str, others: &[&str]) -> (Document, Vec<bool>) {
        let page = |b: &str| {
            parse_str(&format!(
                "<html><head><title>t</title></head><body>{b}</body></html>"
            ))
        };
        let doc = page(key);
        let docs: Vec<Document> = others.iter().map(|b| page(b)).collect();
        let index = MapIndex::new(&doc);
        let indexes: Vec<MapIndex<'_>> = docs.iter().map(MapIndex::new).collect();
        let maps: Vec<Mapping> = indexes
            .iter()
            .map(|o| etdm(&index, o, &config.equality))
            .collect();
        let refs: Vec<&Mapping> = maps.iter().collect();
        let (template, _) = vote(&index, &refs, config, None);
        (doc, template)
    }

    fn by_id(doc: &Document, id: &str) -> NodeId {
        doc.ids()
            .find(|n| doc.element(*n).is_some_and(|e| e.id() == Some(id)))
            .unwrap_or_else(|| panic!("no #{id}"))
    }

    fn temex() -> TemplateConfig {
        TemplateConfig {
            prior: false,
            ..TemplateConfig::temex()
        }
    }

    const NAV: &str = r#"<div id="nav"><a href="/">Home</a> <a href="/about">About us</a></div>"#;

    /// A forum page: the page-level container is the board's body, which holds the thread
    /// and, after it, the board's jump box, a cluster of links every page shares.
    fn board_page(n: u32) -> String {
        let posts: String = (1..=3)
            .map(|p| {
                format!(
                    r#"<div class="post" id="post{p}"><p>Reply {p} to thread {n}: the batch file reads each line of the input, splits it at the commas and writes the third field, which is what the question in thread {n} asked for. It works on every version since Windows XP, as far as I can tell.</p></div>"#
                )
            })
            .collect();
        format!(
            r#"{NAV}<ul id="boards">{boards}</ul><div id="page-body"><h2 id="title">Thread {n}</h2><div class="post" id="pinned"><p>Please read the rules of the board before you post: one question per thread, show the code you tried, and say which version of Windows runs it.</p></div>{posts}<div id="jump"><a href="/f/1">General discussion</a> <a href="/f/2">Announcements</a> <a href="/f/3">Help and support</a> <a href="/f/4">Batch scripts</a></div></div><div id="foot">Footer line</div>"#,
            boards = (1..=8)
                .map(|b| format!(r#"<li><a href="/f/{b}">Board number {b}</a></li>"#))
                .collect::<String>()
        )
    }

    #[test]
    fn parts_of_the_region_the_page_level_step_drops_are_voted() {
        let config = TemplateConfig::hybex();
        let (doc, t) = template_of(&config, &board_page(1), &[&board_page(2), &board_page(3)]);
        let c = page_content(&doc, &ContentConfig::default());
        let region = c.root.expect("a container");
        let jump = by_id(&doc, "jump");
        assert!(
            doc.subtree(region).any(|i| i == jump.0) && !c.is_content(jump),
            "the container holds the jump box and drops it: {}",
            doc.dom_path(region)
        );
        for id in ["nav", "boards", "foot", "jump"] {
            assert!(t[by_id(&doc, id).index()], "#{id} is template");
        }
        for id in ["title", "post1", "post3"] {
            assert!(!t[by_id(&doc, id).index()], "#{id} is content");
        }
    }

    #[test]
    fn the_region_is_protected_where_both_page_level_views_call_it_content() {
        let doc = parse_str(
            r#"<body><div id="r"><div id="kept"><p id="p">Text</p><div id="box">Jump</div></div><div id="dropped">Links</div><div id="pager"><a id="page">Page</a><a id="last">7</a></div></div></body>"#,
        );
        let root = by_id(&doc, "r");
        // The container keeps itself, the first part and its paragraph.
        let mut keep = vec![false; doc.len()];
        keep[root.index()] = true;
        keep[by_id(&doc, "kept").index()] = true;
        for i in doc.subtree(by_id(&doc, "p")) {
            keep[i as usize] = true;
        }
        // Text that no compared page has: the pager's page count.
        let last = by_id(&doc, "last");
        let own = |id: NodeId| doc.parent(id) == Some(last);
        let mut chrome = vec![false; doc.len()];
        for i in doc.subtree(by_id(&doc, "box")) {
            chrome[i as usize] = true;
        }
        let is = |p: &[bool], id: &str| p[by_id(&doc, id).index()];
        // Nothing protected is voted template: PAGELEVEL is not asked.
        let voted = vec![false; doc.len()];
        let p = protected_in_region(&doc, root, &keep, own, &voted, || panic!("not asked"));
        assert!(is(&p, "r") && is(&p, "p") && is(&p, "box"));
        assert!(!is(&p, "dropped"), "a part the container drops whole");
        assert!(
            is(&p, "pager") && is(&p, "page"),
            "a dropped part with text of its own"
        );
        let voted = vec![true; doc.len()];
        let p = protected_in_region(&doc, root, &keep, own, &voted, || &chrome[..]);
        assert!(is(&p, "r") && is(&p, "kept") && is(&p, "p"));
        assert!(!is(&p, "box"), "what PAGELEVEL calls chrome");
        assert!(!is(&p, "dropped") && is(&p, "pager"));
    }

    #[test]
    fn script_and_style_text_is_no_evidence() {
        let body = |n: u32| {
            format!(
                r#"{NAV}<div id="w"><style id="s">.p{n} {{ color: red }}</style><script id="j">var page = {n};</script></div><p id="c">Text number {n}</p>"#
            )
        };
        let (doc, t) = template_of(&temex(), &body(1), &[&body(2), &body(3)]);
        for id in ["nav", "w", "s", "j"] {
            assert!(t[by_id(&doc, id).index()], "#{id} is template");
        }
        assert!(!t[by_id(&doc, "c").index()]);
    }

    #[test]
    fn links_to_the_previous_and_next_page_are_content() {
        let body = |n: u32| {
            format!(
                r#"{NAV}<p>Text number {n}</p><div id="pager"><a id="prev" rel="prev" href="/{}">Previous</a> <a id="next" rel="next" href="/{}">Next</a></div>"#,
                n - 1,
                n + 1
            )
        };
        let (doc, t) = template_of(&temex(), &body(2), &[&body(5), &body(8)]);
        assert!(t[by_id(&doc, "nav").index()]);
        for id in ["pager", "prev", "next"] {
            assert!(!t[by_id(&doc, id).index()], "#{id} is content");
        }
    }

    #[test]
    fn a_submenu_under_a_template_item_is_template() {
        // Each page expands its own entry of the menu, as documentation sidebars do.
        let menu = |current: usize| {
            let items: String = (0..3)
                .map(|i| {
                    let sub = if i == current {
                        format!(
                            r##"<ul id="sub"><li id="sub-item"><a href="#s{i}">Section {i}</a></li></ul>"##
                        )
                    } else {
                        String::new()
                    };
                    format!(r#"<li><a href="/p{i}">Page {i}</a>{sub}</li>"#)
                })
                .collect();
            format!(
                r#"<ul id="menu">{items}</ul><div><ul id="list"><li>Point {current}</li></ul></div>"#
            )
        };
        let (doc, t) = template_of(&temex(), &menu(0), &[&menu(1), &menu(2)]);
        for id in ["menu", "sub", "sub-item"] {
            assert!(t[by_id(&doc, id).index()], "#{id} is template");
        }
        assert!(
            !t[by_id(&doc, "list").index()],
            "a content list stays content"
        );
    }

    #[test]
    fn what_shows_nothing_among_template_is_template_between_content_not() {
        let key = format!(
            r#"{NAV}<h2 id="h">A heading</h2><hr id="rule"><p>Key text</p><div id="cards"><div id="card1"></div><div id="card2"><span id="inner"></span></div></div><div id="foot">Footer line</div>"#
        );
        let other = |n: u32| {
            format!(
                r#"{NAV}<h2>Heading {n}</h2><p>Other text {n}</p><div id="cards"></div><div id="foot">Footer line</div>"#
            )
        };
        let (doc, t) = template_of(&temex(), &key, &[&other(1), &other(2)]);
        for id in ["cards", "card1", "card2", "inner"] {
            assert!(t[by_id(&doc, id).index()], "#{id} is template");
        }
        assert!(
            !t[by_id(&doc, "rule").index()],
            "a rule between content is content"
        );
        assert!(!t[by_id(&doc, "h").index()]);
    }

    #[test]
    fn text_of_the_removed_main_content_is_no_evidence() {
        // HybEx removes the page-level main content before the vote: the wrappers around it
        // hold no other text, so they are layout.
        let article = |n: u32| {
            format!(
                r#"{NAV}<div id="wrap"><div id="inner"><main id="main"><article id="art"><h1>Article {n}</h1><p>Text of article {n}.</p></article></main></div><ul id="share"><li><a href="/share">Share</a></li></ul></div><div id="foot">Footer line</div>"#
            )
        };
        let page = |b: &str| parse_str(&format!("<body>{b}</body>"));
        let doc = page(&article(1));
        let docs = [page(&article(2)), page(&article(3))];
        let config = temex();
        let index = MapIndex::new(&doc);
        let maps: Vec<Mapping> = docs
            .iter()
            .map(|d| etdm(&index, &MapIndex::new(d), &config.equality))
            .collect();
        let refs: Vec<&Mapping> = maps.iter().collect();
        let art = by_id(&doc, "art");
        let with = decide(&doc, &index, &refs, 2, config.rule, Some(art));
        let without = decide(&doc, &index, &refs, 2, config.rule, None);
        for id in ["inner", "main"] {
            let i = by_id(&doc, id).index();
            assert!(with[i] && !without[i], "#{id}");
        }
        for id in ["nav", "wrap", "share", "foot"] {
            let i = by_id(&doc, id).index();
            assert!(with[i] && without[i], "#{id}");
        }
    }

    /// A key page and two siblings written by `body` (numbered 1, 2, 3), and the key page
    /// mapped onto each sibling.
    fn mapped_pages(body: impl Fn(u32) -> String) -> (Document, [Document; 2], Vec<Mapping>) {
        let page = |b: &str| parse_str(&format!("<body>{b}</body>"));
        let doc = page(&body(1));
        let docs = [page(&body(2)), page(&body(3))];
        let index = MapIndex::new(&doc);
        let eq = temex().equality;
        let maps = docs
            .iter()
            .map(|d| etdm(&index, &MapIndex::new(d), &eq))
            .collect();
        (doc, docs, maps)
    }

    #[test]
    fn a_region_whose_text_every_page_has_is_not_main_content() {
        let body = |n: u32| {
            format!(
                r#"{NAV}<div id="main"><p>Text number {n}</p></div><div id="empty"><img src="/a.png"></div>"#
            )
        };
        let (doc, _, maps) = mapped_pages(body);
        let index = MapIndex::new(&doc);
        let refs: Vec<&Mapping> = maps.iter().collect();
        assert!(all_text_everywhere(&index, &refs, by_id(&doc, "nav")));
        assert!(!all_text_everywhere(&index, &refs, by_id(&doc, "main")));
        assert!(
            !all_text_everywhere(&index, &refs, by_id(&doc, "empty")),
            "no text at all"
        );
    }

    #[test]
    fn the_region_narrows_to_the_slot_the_compared_pages_agree_on() {
        let body = |n: u32| {
            format!(
                r#"{NAV}<div id="content"><main id="main"><article id="art"><p>Text number {n}</p></article></main></div>"#
            )
        };
        let (doc, docs, maps) = mapped_pages(body);
        let refs: Vec<&Mapping> = maps.iter().collect();
        let root = by_id(&doc, "content");
        let art = by_id(&doc, "art");
        let theirs = |i: usize, id: &str| Some(by_id(&docs[i], id));
        assert_eq!(
            narrow_region(&doc, root, &refs, &[theirs(0, "art"), theirs(1, "art")]),
            art
        );
        // A page whose detector chose the menu abstains.
        assert_eq!(
            narrow_region(&doc, root, &refs, &[theirs(0, "nav"), theirs(1, "art")]),
            art
        );
        // Disagreement, or a page agreeing with the region, keeps it.
        assert_eq!(
            narrow_region(&doc, root, &refs, &[theirs(0, "main"), theirs(1, "art")]),
            root
        );
        assert_eq!(
            narrow_region(&doc, root, &refs, &[theirs(0, "content"), theirs(1, "art")]),
            root
        );
        assert_eq!(narrow_region(&doc, root, &refs, &[None, None]), root);
    }
}
