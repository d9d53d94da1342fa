//! TemEx and HybEx: the key page mapped onto pages that share its template, found by the
//! complete-subdigraph search (and the key page's own kind), and let through by the template
//! guard; [`vote`](mod@super::vote) turns the mappings into a template. The guard is written
//! once here and used by both forms of the methods: the interactive one
//! ([`mapping_template`]) and batch's HybEx model ([`super::model`]: a cluster's reference
//! pages).

use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;
use url::Url;

use super::vote::vote_with;
use crate::cluster::{ClusterConfig, Fingerprint};
use crate::dom::{Document, deadline};
use crate::extract::ContentConfig;
use crate::extract::page_title;
use crate::mapping::{MapIndex, Mapping, etdm};
use crate::siblings::cs::{
    CsOutcome, LoadedPage, SiblingLoad, SiblingRule, StopReason, find_complete_subdigraph,
    load_sibling,
};
use crate::siblings::kind::own_kind;
use crate::source::{LoadStats, PageSource};
use crate::template::{Method, TemplateConfig, TemplateResult, Timings};

/// The template guard: a page is compared with the page whose template is sought only when
/// they share a template, so that pages of another template under the same host, or
/// redirect stubs, neither vote nor empty the template. Two measures, either suffices:
/// * the Dice coefficient of mapped `<body>` elements (at least `config.mapping.guard`): the
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
        let m = etdm(self.index, other, &self.config.mapping.equality);
        let mapped = count_mapped_body(self.index.doc, &m);
        let dice = 2.0 * mapped as f64 / (self.body + body_elements(other.doc)).max(1) as f64;
        let layout = self.fingerprint.jaccard(&Fingerprint::of(other.doc));
        let pass = dice >= self.config.mapping.guard
            || (self.config.mapping.guard > 0.0 && layout >= ClusterConfig::default().similarity);
        tracing::debug!(dice, layout, pass, "template guard");
        pass.then_some(Checked { mapping: m, dice })
    }
}

/// TemEx / HybEx: siblings in a complete subdigraph, mapped against the key page.
pub(crate) fn mapping_template(
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
    if deadline::passed() {
        // Out of time before the search: the caller gives a timeout.
        let none = vec![false; doc.len()];
        return crate::template::lone_result(config.method, key_url, doc, none, key_page);
    }
    let guard = |other: &Document| key_guard.check(&MapIndex::new(other));
    let search = deadline::pause();
    let outcome = find_complete_subdigraph(
        source,
        &doc,
        page_url,
        &config.search,
        &config.budget,
        &guard,
    );
    let own = own_kind_siblings(source, &doc, page_url, &outcome, config, &guard);
    drop(search);
    let siblings = t1.elapsed();

    let t2 = Instant::now();
    let mut notes = Vec::new();
    let mut used: Vec<&LoadedPage<Checked>> = outcome.pages.iter().collect();
    let mut rule = SiblingRule::Cs;
    if used.len() < config.search.size && (own.is_some() || !outcome.others.is_empty()) {
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
        used.extend(own.into_iter().take(config.search.size - before));
        if used.len() > before {
            rule = SiblingRule::OwnKind;
        }
        let room = config.search.size - used.len();
        used.extend(others.into_iter().take(room));
        notes.push(format!(
            "found a {}-CS (asked for {}); compared with {} pages",
            outcome.pages.len(),
            config.search.size,
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
        if config.mapping.fallback {
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
        if mappings.len() < config.search.size && outcome.others.is_empty() {
            notes.push(format!(
                "found a {}-CS (asked for {})",
                mappings.len(),
                config.search.size
            ));
        }
        let docs: Vec<&Document> = used.iter().map(|p| &p.doc).collect();
        let (template, note) = vote_with(&key_index, &mappings, &docs, config, Some(page_url));
        notes.extend(note);
        template
    };
    let site_content = crate::sitecontent::learn_from_docs(
        std::iter::once(&doc).chain(used.iter().map(|p| &p.doc)),
        &ContentConfig::default(),
    );
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
        site_content,
        doc,
    }
}

/// The own-kind rule ([`crate::siblings::kind`]) for a key page without an n-CS: pages of
/// its kind complete the comparison set before other loaded pages do — those already loaded,
/// then its own-kind links in document order (at most `search.size` more loads). A thread
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
    if outcome.pages.len() >= config.search.size {
        return None;
    }
    let needed = config.search.size - outcome.pages.len();
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
    // At most `search.size` more loads, whatever they give.
    let candidates = links
        .iter()
        .zip(&flags)
        .filter(|(u, o)| **o && !tried.contains(**u))
        .take(config.search.size);
    for (url, _) in candidates {
        if found.len() + extra.len() >= needed || deadline::passed() {
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
