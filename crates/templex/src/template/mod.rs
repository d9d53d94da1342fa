//! Every way to find a page's template, by any method ([`Method`]), one folder per method,
//! each holding learn → model → mask:
//!
//! * TemEx and HybEx ([`hybex`]): sibling pages forming a complete subdigraph, let through by
//!   the template guard, are mapped onto the key page and vote;
//! * SITELEVEL ([`sitelevel`]) and table chunks ([`tablechunk`]): what recurs on a sample of
//!   the key page's site (the sample, [`sample`], and the document frequencies, `frequency`,
//!   are shared);
//! * PAGELEVEL ([`pagelevel`]) and main content ([`maincontent`]) read the key page alone.
//!
//! [`extract_template`] runs any of them **interactively**, from a key page. Batch mode
//! learns a model once per template cluster (SITELEVEL's, table chunks', HybEx's, each in its
//! method's folder), stores it and applies it to every page of the cluster; the codecs that
//! store them are beside the store (`src/store/model.rs`, with the `batch` feature).

#[cfg(test)]
mod deadline_tests;
mod frequency;
pub(crate) mod hybex;
mod maincontent;
mod pagelevel;
mod sample;
pub(crate) mod sitelevel;
pub(crate) mod tablechunk;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use url::Url;

use crate::dom::{Document, NodeId};
use crate::extract::{Content, ContentConfig};
use crate::page::{
    ContentTimings, PageContent, page_level_content, page_level_content_with_template,
};
use crate::pagelevel::{Model, PageLevelConfig, Segment};
use crate::siblings::cs::{SearchConfig, SiblingRule, StopReason};
use crate::sitecontent::SiteContent;
use crate::source::{LoadError, LoadStats, PageSource};

use hybex::mapping_template;
pub use hybex::{MappingConfig, TemplateRule};
use maincontent::maincontent_template;
use pagelevel::pagelevel_template;
pub use sample::SampleConfig;
use sitelevel::{SiteLevelConfig, sitelevel_template};
use tablechunk::{TableChunkConfig, tablechunk_template};

pub(crate) use crate::method::Method;

/// Settings of [`extract_template`]: the method, each method's settings (used when it
/// runs), and what any call may cost.
///
/// ```
/// use templex::TemplateConfig;
///
/// let mut config = TemplateConfig::hybex(); // or `for_method(m)`: each method's defaults
/// config.search.max_loads = 12; // fewer sibling loads
/// config.mapping.votes = Some(3); // a node is template when 3 siblings map it
/// config.sample.pages = 20; // SITELEVEL's and table chunks' sample
/// assert_eq!(TemplateConfig::temex().mapping.votes, None);
/// ```
#[derive(Debug, Clone)]
pub struct TemplateConfig {
    /// Site-level method.
    pub method: Method,
    /// TemEx's and HybEx's sibling search.
    pub search: SearchConfig,
    /// TemEx's and HybEx's mapping of the siblings and their vote.
    pub mapping: MappingConfig,
    /// SITELEVEL settings.
    pub sitelevel: SiteLevelConfig,
    /// Table text chunk settings (threshold fraction, boundaries, keys).
    pub tablechunk: TableChunkConfig,
    /// The sample of the site that SITELEVEL and table chunks learn from.
    pub sample: SampleConfig,
    /// PAGELEVEL settings.
    pub pagelevel: PageLevelConfig,
    /// PAGELEVEL's classifier; `None` uses the built-in model.
    pub model: Option<Arc<Model>>,
    /// What each page (the key page, every sibling or sampled page) may cost: a key page
    /// over it fails with [`LoadError::Refused`], other pages are skipped.
    pub budget: crate::dom::Budget,
    /// Time for the whole call (the key page, the search for siblings, their loads and
    /// mappings, the vote); `None`: bounded only by the page budget and the search's
    /// [`time_budget`](SearchConfig::time_budget). Every stage of every page stops at it,
    /// and the search loads no page after it; the call then fails with
    /// [`PageError::TimedOut`](crate::PageError::TimedOut) in a [`LoadError::Refused`]. A
    /// load under way is not cut: a live source's own timeout bounds it.
    pub time_limit: Option<Duration>,
}

impl Default for TemplateConfig {
    /// HybEx, the better of the two methods on the dev gold (BENCHMARKS.md, "Template detection on the dev gold").
    fn default() -> Self {
        Self::hybex()
    }
}

impl TemplateConfig {
    /// TemEx as the papers describe it (with templex's refinements): CS size 3, a node is
    /// template when every CS page maps it.
    pub fn temex() -> Self {
        TemplateConfig {
            method: Method::TemEx,
            search: SearchConfig::default(),
            mapping: MappingConfig::temex(),
            sitelevel: SiteLevelConfig::default(),
            tablechunk: TableChunkConfig::default(),
            sample: SampleConfig::default(),
            pagelevel: PageLevelConfig::default(),
            model: None,
            budget: crate::dom::Budget::DEFAULT,
            time_limit: None,
        }
    }

    /// SITELEVEL over a sample of the site's pages.
    pub fn sitelevel() -> Self {
        TemplateConfig {
            method: Method::SiteLevel,
            ..TemplateConfig::temex()
        }
    }

    /// Table text chunks learned from a sample of the key page's template cluster.
    pub fn tablechunk() -> Self {
        TemplateConfig {
            method: Method::TableChunk,
            ..TemplateConfig::temex()
        }
    }

    /// PAGELEVEL on the key page alone.
    pub fn pagelevel() -> Self {
        TemplateConfig {
            method: Method::PageLevel,
            ..TemplateConfig::temex()
        }
    }

    /// HybEx: CS size 3 and 2 votes as published, without TemEx's page-level prior
    /// ([`MappingConfig::hybex`]).
    pub fn hybex() -> Self {
        TemplateConfig {
            method: Method::HybEx,
            search: SearchConfig {
                size: 3,
                ..SearchConfig::default()
            },
            mapping: MappingConfig::hybex(),
            ..TemplateConfig::temex()
        }
    }

    /// The main-content extractor's complement as the template (no site needed).
    pub fn maincontent() -> Self {
        TemplateConfig {
            method: Method::MainContent,
            ..TemplateConfig::temex()
        }
    }

    /// The defaults of `method` (those of [`TemplateConfig::hybex`], [`TemplateConfig::temex`],
    /// …).
    pub fn for_method(method: Method) -> Self {
        match method {
            Method::TemEx => TemplateConfig::temex(),
            Method::HybEx => TemplateConfig::hybex(),
            Method::SiteLevel => TemplateConfig::sitelevel(),
            Method::PageLevel => TemplateConfig::pagelevel(),
            Method::TableChunk => TemplateConfig::tablechunk(),
            Method::MainContent => TemplateConfig::maincontent(),
        }
    }

    /// The PAGELEVEL classifier in use.
    pub fn model(&self) -> &Model {
        self.model.as_deref().unwrap_or_else(|| Model::builtin())
    }
}

/// Time spent per phase.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Timings {
    /// Loading and parsing the key page.
    pub key_page: Duration,
    /// Ordering links and searching the complete subdigraph (loads, parses and guard
    /// mappings included).
    pub siblings: Duration,
    /// Voting and applying the template rule.
    pub mapping: Duration,
    /// Everything.
    pub total: Duration,
}

/// The template of a key page.
#[derive(Debug)]
pub struct TemplateResult {
    /// The method that produced the template (PAGELEVEL when a site-level method fell back).
    pub method: Method,
    /// Whether the configured site-level method found no evidence and PAGELEVEL stepped in.
    pub fallback: bool,
    /// Page-level segments (PAGELEVEL only): subtrees sharing one smoothed score.
    pub segments: Vec<Segment>,
    /// The key page URL (after redirects).
    pub key_url: Url,
    /// The parsed key page.
    pub doc: Document,
    /// Per node id of `doc`: whether the node is template.
    pub template: Vec<bool>,
    /// The sibling pages the template was computed from.
    pub cs_pages: Vec<Url>,
    /// Siblings refused by the template guard.
    pub rejected: Vec<Url>,
    /// Why the CS search stopped.
    pub stop: StopReason,
    /// Which rule chose `cs_pages`.
    pub siblings: SiblingRule,
    /// Loads made by the source during extraction (the key page included).
    pub loads: LoadStats,
    /// Time per phase.
    pub timings: Timings,
    /// Human-readable notes (e.g. why no template could be found).
    pub notes: Vec<String>,
    /// What the key page and the pages compared with it (siblings or the site's sample) show
    /// about their main content: it refines the key page's content
    /// ([`content_mask`](Self::content_mask)).
    pub site_content: SiteContent,
}

impl TemplateResult {
    /// Whether node `id` of the key page is template.
    pub fn is_template(&self, id: NodeId) -> bool {
        self.template.get(id.index()).copied().unwrap_or(false)
    }

    /// Template element ids in document order.
    pub fn template_elements(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.doc.elements().filter(|e| self.template[e.index()])
    }

    /// The key page's main content as a keep mask, and the method behind it: the page-level
    /// main content, refined by what the site's pages show ([`SiteContent`]: the slot where
    /// they hold their content, the text they repeat) when the site gave evidence (siblings
    /// or a page sample); otherwise the page-level main content alone
    /// ([`Method::MainContent`]). Never the page minus its template: that is
    /// [`rest_mask`](Self::rest_mask).
    pub fn content_mask(&self, config: &ContentConfig) -> (Vec<bool>, Method) {
        let (content, method) = self.main_content(config);
        (content.keep, method)
    }

    /// [`content_mask`](Self::content_mask) with the content's root.
    fn main_content(&self, config: &ContentConfig) -> (Content, Method) {
        let site_evidence = match self.method {
            Method::TemEx | Method::HybEx => !self.cs_pages.is_empty(),
            Method::SiteLevel | Method::TableChunk => self.template.iter().any(|t| *t),
            Method::PageLevel | Method::MainContent => false,
        };
        if !site_evidence {
            let url = Some(&self.key_url);
            return (
                page_level_content(&self.doc, url, config),
                Method::MainContent,
            );
        }
        let content = page_level_content_with_template(
            &self.doc,
            Some(&self.key_url),
            config,
            &self.template,
        );
        let refined = crate::sitecontent::refine(&self.doc, content, &self.site_content, config);
        (refined, self.method)
    }

    /// The key page minus its template, as a keep mask: everything the site does not repeat
    /// (the main content, comments, related lists, teasers, per-section menus) — the
    /// papers' notion of content, which the gold standard's content regions score.
    pub fn rest_mask(&self) -> Vec<bool> {
        crate::extract::non_template_mask(&self.doc, &self.template)
    }

    /// The key page's content (see [`content_mask`](Self::content_mask)), with the key
    /// page's URL and this extraction's timings.
    pub fn content(&self, config: &ContentConfig) -> PageContent {
        let (content, method) = self.main_content(config);
        let keep = content.keep;
        let root = content.root.or(self.doc.body()).unwrap_or(NodeId::ROOT);
        let timings = ContentTimings {
            parse: self.timings.key_page,
            extract: self.timings.total.saturating_sub(self.timings.key_page),
        };
        PageContent::new(self.doc.clone(), root, keep, method)
            .with_context(Some(self.key_url.clone()), timings)
    }
}

/// Extract the template of the page at `key_url` with the configured method, loading what
/// the method needs (siblings, a sample of the site, or nothing more) from `source`.
///
/// Fails only if the key page itself cannot be loaded; a key page without usable siblings
/// falls back to PAGELEVEL (or, with `mapping.fallback` off, yields an empty template), with
/// a note.
///
/// With [`TemplateConfig::time_limit`], a call that runs out of it fails with
/// [`PageError::TimedOut`](crate::PageError::TimedOut) naming that limit.
pub fn extract_template(
    source: &dyn PageSource,
    key_url: &Url,
    config: &TemplateConfig,
) -> Result<TemplateResult, LoadError> {
    let t0 = Instant::now();
    let limit = config
        .time_limit
        .and_then(|d| Some((d, t0.checked_add(d)?)));
    let call = crate::dom::deadline::call_scope(limit.map(|(_, at)| at));
    let result = template_of(source, key_url, config, t0);
    drop(call);
    match (result, limit) {
        // Whichever deadline cut the work, the call's is the one to name once it has passed.
        (
            Err(LoadError::Refused {
                url,
                error: crate::PageError::TimedOut { .. },
            }),
            Some((limit, at)),
        ) if Instant::now() > at => Err(LoadError::Refused {
            url,
            error: crate::PageError::TimedOut {
                limit,
                stage: "finding the template (the call's time limit)",
            },
        }),
        (result, _) => result,
    }
}

/// [`extract_template`] within the thread's deadlines, the call's started at `t0`.
fn template_of(
    source: &dyn PageSource,
    key_url: &Url,
    config: &TemplateConfig,
    t0: Instant,
) -> Result<TemplateResult, LoadError> {
    let before = source.stats();
    let page = source.load(key_url)?;
    // The key page's time budget counts the work on it (parsing, mapping, voting, learning
    // from the sample), not the search for siblings: each sibling has its own budget.
    let scope = config.budget.scope(Instant::now());
    let doc = page.parse_within(&config.budget)?;
    let key_page = t0.elapsed();
    let mut result = match config.method {
        Method::TemEx | Method::HybEx => {
            mapping_template(source, &page.final_url, doc, key_page, config)
        }
        Method::SiteLevel => sitelevel_template(source, &page.final_url, doc, key_page, config),
        Method::PageLevel => pagelevel_template(&page.final_url, doc, key_page, config),
        Method::TableChunk => tablechunk_template(source, &page.final_url, doc, key_page, config),
        Method::MainContent => maincontent_template(&page.final_url, doc, key_page),
    };
    if scope.passed() {
        // Some stage stopped early: what it left is not the page's template.
        return Err(LoadError::Refused {
            url: page.final_url.to_string(),
            error: config.budget.timed_out("finding the template"),
        });
    }
    let after = source.stats();
    result.loads = LoadStats {
        attempts: after.attempts - before.attempts,
        loaded: after.loaded - before.loaded,
    };
    result.timings.total = t0.elapsed();
    Ok(result)
}

/// A result without siblings (the page-level and sample-based methods).
pub(super) fn lone_result(
    method: Method,
    key_url: &Url,
    doc: Document,
    template: Vec<bool>,
    key_page: Duration,
) -> TemplateResult {
    TemplateResult {
        method,
        fallback: false,
        segments: Vec::new(),
        key_url: key_url.clone(),
        doc,
        template,
        cs_pages: Vec::new(),
        rejected: Vec::new(),
        stop: StopReason::NoLinks,
        siblings: SiblingRule::None,
        loads: LoadStats::default(),
        timings: Timings {
            key_page,
            ..Timings::default()
        },
        notes: Vec::new(),
        site_content: SiteContent::default(),
    }
}
