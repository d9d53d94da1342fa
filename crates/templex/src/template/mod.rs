//! The site-level pipeline (TemEx): key page → sibling pages forming a complete subdigraph
//! → exact top-down mappings → the key page's template.
//!
//! Beyond the paper:
//! * the **template guard** maps every loaded sibling against the key page and refuses
//!   pages whose structure overlaps too little (another template under the same host, a
//!   redirect stub), so they neither join the CS nor empty the template;
//! * the **text-evidence rule**: a mapped element is template only if the mapping also
//!   matched text under it (menu labels, footer lines), or if it holds no text at all and
//!   its parent is template. A content container that merely has the same tag, id and
//!   classes on every page (`div.entry-content`, `h1.title`) holds different text on each
//!   page, so it stays content — which is what users and the gold standard mean.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use url::Url;

use crate::dom::{Document, NodeId};
use crate::extract::{ContentConfig, ContentTimings, PageContent, page_content};
use crate::mapping::{Equality, MapIndex, Mapping, etdm};
use crate::pagelevel::{Model, PageLevelConfig, Segment, SiteLevel, SiteLevelConfig};
use crate::siblings::cs::{CsConfig, LinkOrder, StopReason, find_complete_subdigraph};
use crate::source::{LoadError, LoadStats, PageSource};
use crate::tablechunk::TableChunkConfig;

/// How a mapped node becomes template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateRule {
    /// TemEx as published: every mapped node is template.
    Mapped,
    /// Mapped and backed by mapped text (see the module docs).
    #[default]
    TextEvidence,
}

pub use crate::method::Method;

/// Settings of [`extract_template`].
#[derive(Debug, Clone)]
pub struct TemplateConfig {
    /// Site-level method.
    pub method: Method,
    /// Size n of the complete subdigraph searched.
    pub cs_size: usize,
    /// Node-equality relation of the mapping.
    pub equality: Equality,
    /// A node is mapped when at least this many CS pages map it; `None` means all of them
    /// (TemEx). Clamped to the number of CS pages.
    pub votes: Option<usize>,
    /// How mapped nodes become template.
    pub rule: TemplateRule,
    /// Minimum structural overlap (Dice coefficient of mapped body elements) for a sibling
    /// to be used; 0 disables the guard.
    pub guard: f64,
    /// Initial link order of the CS search.
    pub order: LinkOrder,
    /// Adaptive link order (see [`crate::siblings::cs`]).
    pub adaptive: bool,
    /// Cap on sibling pages loaded.
    pub max_loads: usize,
    /// Cap on candidate links.
    pub max_links: usize,
    /// Time budget of the CS search.
    pub time_budget: Duration,
    /// Consecutive loads without CS growth before the search gives up.
    pub patience: usize,
    /// SITELEVEL settings.
    pub sitelevel: SiteLevelConfig,
    /// Table text chunk settings (threshold fraction, boundaries, keys).
    pub tablechunk: TableChunkConfig,
    /// Pages of the site SITELEVEL and the table text chunk method sample (besides the key
    /// page).
    pub site_pages: usize,
    /// Seed of the page sample.
    pub seed: u64,
    /// PAGELEVEL settings.
    pub pagelevel: PageLevelConfig,
    /// PAGELEVEL's classifier; `None` uses the built-in model.
    pub model: Option<Arc<Model>>,
    /// When TemEx or HybEx finds no sibling sharing the key page's template, detect it
    /// page-level instead of returning an empty template.
    pub fallback: bool,
    /// TemEx/HybEx: a node one vote short of the threshold is template when PAGELEVEL says
    /// so (the page-level detector as a prior that breaks ties).
    pub prior: bool,
}

impl Default for TemplateConfig {
    /// HybEx, the better of the two methods on the dev gold (BENCHMARKS.md).
    fn default() -> Self {
        Self::hybex()
    }
}

impl TemplateConfig {
    /// TemEx as the papers describe it (with templex's refinements): CS size 3, a node is
    /// template when every CS page maps it.
    pub fn temex() -> Self {
        let cs = CsConfig::default();
        TemplateConfig {
            method: Method::TemEx,
            cs_size: cs.size,
            equality: Equality::weighted(0.6),
            votes: None,
            rule: TemplateRule::default(),
            guard: 0.2,
            order: cs.order,
            adaptive: cs.adaptive,
            max_loads: cs.max_loads,
            max_links: cs.max_links,
            time_budget: cs.time_budget,
            patience: cs.patience,
            sitelevel: SiteLevelConfig::default(),
            tablechunk: TableChunkConfig::default(),
            site_pages: 50,
            seed: 1,
            pagelevel: PageLevelConfig::default(),
            model: None,
            fallback: true,
            // Measured: +0.02 template and content F1 for TemEx, leave-one-site-out too
            // (BENCHMARKS.md); neutral for HybEx, whose page-level step already relaxes votes.
            prior: true,
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

    /// HybEx: CS size 3 and 2 votes as published. The paper's node-similarity threshold
    /// (0.9) belongs to its own similarity measure; with templex's weighted similarity 0.9
    /// refuses nearly every sibling (BENCHMARKS.md), so the TemEx threshold is kept.
    pub fn hybex() -> Self {
        TemplateConfig {
            method: Method::HybEx,
            cs_size: 3,
            votes: Some(2),
            prior: false,
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

    fn cs_config(&self) -> CsConfig {
        CsConfig {
            size: self.cs_size,
            order: self.order,
            adaptive: self.adaptive,
            max_loads: self.max_loads,
            max_links: self.max_links,
            time_budget: self.time_budget,
            patience: self.patience,
        }
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
    /// Loads made by the source during extraction (the key page included).
    pub loads: LoadStats,
    /// Time per phase.
    pub timings: Timings,
    /// Human-readable notes (e.g. why no template could be found).
    pub notes: Vec<String>,
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

    /// The key page's content as a keep mask, and the method behind it: what the template
    /// does not claim when the site gave evidence (siblings or a page sample); otherwise the
    /// page-level main-content extractor's choice ([`Method::MainContent`]), which beats a
    /// page-level template guess at finding the content.
    pub fn content_mask(&self, config: &ContentConfig) -> (Vec<bool>, Method) {
        let site_evidence = match self.method {
            Method::TemEx | Method::HybEx => !self.cs_pages.is_empty(),
            Method::SiteLevel | Method::TableChunk => self.template.iter().any(|t| *t),
            Method::PageLevel => !self.fallback,
            Method::MainContent => false,
        };
        if !site_evidence {
            return (page_content(&self.doc, config).keep, Method::MainContent);
        }
        (
            crate::extract::non_template_mask(&self.doc, &self.template),
            self.method,
        )
    }

    /// The key page's content (see [`content_mask`](Self::content_mask)), rendered from
    /// `<body>`, with the key page's URL and this extraction's timings.
    pub fn content(&self, config: &ContentConfig) -> PageContent {
        let (keep, method) = self.content_mask(config);
        let root = self.doc.body().unwrap_or(NodeId::ROOT);
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
/// falls back to PAGELEVEL (or, with `fallback` off, yields an empty template), with a note.
pub fn extract_template(
    source: &dyn PageSource,
    key_url: &Url,
    config: &TemplateConfig,
) -> Result<TemplateResult, LoadError> {
    let t0 = Instant::now();
    let before = source.stats();
    let page = source.load(key_url)?;
    let doc = page.parse();
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
    let after = source.stats();
    result.loads = LoadStats {
        attempts: after.attempts - before.attempts,
        loaded: after.loaded - before.loaded,
    };
    result.timings.total = t0.elapsed();
    Ok(result)
}

/// A result without siblings (the page-level and sample-based methods).
fn lone_result(
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
        loads: LoadStats::default(),
        timings: Timings {
            key_page,
            ..Timings::default()
        },
        notes: Vec::new(),
    }
}

/// PAGELEVEL on the key page with the built-in model.
fn pagelevel_template(
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    let t = Instant::now();
    let r = crate::pagelevel::detect(&doc, Some(key_url), config.model(), &config.pagelevel);
    let mut result = lone_result(Method::PageLevel, key_url, doc, r.template, key_page);
    result.segments = r.segments;
    result.timings.mapping = t.elapsed();
    result
}

/// No template detection: what the page-level main-content extractor leaves out of the
/// content is template (elements holding content stay out of the template).
fn maincontent_template(key_url: &Url, doc: Document, key_page: Duration) -> TemplateResult {
    let t = Instant::now();
    let keep = page_content(&doc, &ContentConfig::default()).keep;
    let template = crate::extract::outside_content(&doc, &keep);
    let mut result = lone_result(Method::MainContent, key_url, doc, template, key_page);
    result.timings.mapping = t.elapsed();
    result
}

/// The methods that learn from a sample of the key page's template cluster (SITELEVEL,
/// table chunks): load the sample, let `learn` make the key page's template (and notes) from
/// the key page and the sample, time both phases.
fn sample_template(
    method: Method,
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
    learn: impl FnOnce(&Document, &[Document]) -> (Vec<bool>, Option<String>),
) -> TemplateResult {
    let t = Instant::now();
    let (sample, note) = site_sample(source, key_url, &doc, config.site_pages, config.seed);
    let siblings = t.elapsed();
    let t2 = Instant::now();
    let (template, learn_note) = learn(&doc, &sample);
    let mut result = lone_result(method, key_url, doc, template, key_page);
    result.timings.siblings = siblings;
    result.timings.mapping = t2.elapsed();
    result.notes.extend(note);
    if sample.is_empty() {
        result
            .notes
            .push("no other page of the site shares the key page's template: no template".into());
    }
    result.notes.extend(learn_note);
    result
}

/// SITELEVEL: hash the key page and a sample of its site's pages; recurring fragments are
/// template.
fn sitelevel_template(
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    sample_template(
        Method::SiteLevel,
        source,
        key_url,
        doc,
        key_page,
        config,
        |doc, sample| {
            let mut freq = SiteLevel::new();
            freq.add(doc);
            for d in sample {
                freq.add(d);
            }
            (freq.template_mask(doc, &config.sitelevel), None)
        },
    )
}

/// Table text chunks: learn the chunks recurring on the key page and a sample of its
/// template cluster, apply them to the key page.
fn tablechunk_template(
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    sample_template(
        Method::TableChunk,
        source,
        key_url,
        doc,
        key_page,
        config,
        |doc, sample| {
            let model =
                crate::tablechunk::learn(std::iter::once(doc).chain(sample), &config.tablechunk);
            let by_fraction = (config.tablechunk.fraction * model.pages as f64).ceil();
            let note = (!sample.is_empty() && by_fraction < f64::from(model.threshold)).then(|| {
            format!(
                "only {} pages share the key page's template: a chunk must recur on {} of them",
                model.pages, model.threshold
            )
        });
            (model.template_mask(doc), note)
        },
    )
}

/// Up to `n` other pages of the key page's site that share its template (their template
/// fingerprints are similar, [`crate::cluster`]), out of at most `n` loads: first the pages
/// the key page links to (menus lead to pages of the same template), then a seeded sample of
/// the pages the source can list, else pages found by following links breadth-first.
pub fn site_sample(
    source: &dyn PageSource,
    key_url: &Url,
    key_doc: &Document,
    n: usize,
    seed: u64,
) -> (Vec<Document>, Option<String>) {
    use crate::cluster::{ClusterConfig, Fingerprint};
    use crate::links::{extract_links, same_site};
    let similarity = ClusterConfig::default().similarity;
    let key_print = Fingerprint::of(key_doc);
    let key = source.canonical_url(key_url);
    let mut seen = std::collections::HashSet::new();
    seen.insert(key.to_string());
    let site_links = |doc: &Document, url: &Url| -> Vec<Url> {
        extract_links(doc, url)
            .into_iter()
            .filter(|l| l.is_site_page())
            .map(|l| l.url)
            .collect()
    };
    let mut queue: std::collections::VecDeque<Url> = site_links(key_doc, key_url).into();
    let listed = source.page_urls().map(|urls| {
        let urls: Vec<Url> = urls.into_iter().filter(|u| same_site(u, key_url)).collect();
        crate::pagelevel::sitelevel::sample_indices(urls.len(), n, seed)
            .into_iter()
            .map(|i| urls[i].clone())
            .collect::<Vec<_>>()
    });
    let follow = listed.is_none();
    if let Some(listed) = listed {
        queue.extend(listed);
    }
    let (mut docs, mut loads, mut other) = (Vec::new(), 0usize, 0usize);
    while let Some(url) = queue.pop_front() {
        if loads >= n {
            break;
        }
        if !seen.insert(source.canonical_url(&url).to_string()) {
            continue;
        }
        loads += 1;
        let Ok(p) = source.load(&url) else { continue };
        let d = p.parse();
        if Fingerprint::of(&d).jaccard(&key_print) < similarity {
            other += 1;
            continue;
        }
        if follow && queue.len() < 20 * n {
            queue.extend(site_links(&d, &p.final_url));
        }
        docs.push(d);
    }
    let note = (other > 0).then(|| {
        format!("{other} of {loads} sampled pages have another template and were left out")
    });
    (docs, note)
}

/// TemEx / HybEx: siblings in a complete subdigraph, mapped against the key page.
fn mapping_template(
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    let page_url = key_url;

    let t1 = Instant::now();
    let key_index = MapIndex::new(&doc);
    let key_body = body_elements(&doc);
    let guard = |other: &Document| -> Option<(Mapping, f64)> {
        let other_index = MapIndex::new(other);
        let m = etdm(&key_index, &other_index, &config.equality);
        let mapped = count_mapped_body(&doc, &m);
        let dice = 2.0 * mapped as f64 / (key_body + body_elements(other)).max(1) as f64;
        (dice >= config.guard).then_some((m, dice))
    };
    let outcome = find_complete_subdigraph(source, &doc, page_url, &config.cs_config(), &guard);
    let siblings = t1.elapsed();

    let t2 = Instant::now();
    let mut notes = Vec::new();
    let mut used: Vec<&crate::siblings::LoadedPage<(Mapping, f64)>> =
        outcome.pages.iter().collect();
    if used.len() < config.cs_size && !outcome.others.is_empty() {
        // No n-CS on this site: the pages already loaded that passed the template guard
        // complete the set, so that one sibling's content cannot pass for template (no
        // extra loads). Least similar first: near-duplicates of the key page (the same
        // listing sorted differently, a search page showing the same topics) share its
        // content, and the guard already vouches for the template.
        let mut others: Vec<_> = outcome.others.iter().collect();
        others.sort_by(|a, b| a.data.1.total_cmp(&b.data.1));
        let topped = others.into_iter().take(config.cs_size - used.len());
        used.extend(topped);
        notes.push(format!(
            "found a {}-CS (asked for {}); compared with {} pages",
            outcome.pages.len(),
            config.cs_size,
            used.len()
        ));
    }
    let mappings: Vec<&Mapping> = used.iter().map(|p| &p.data.0).collect();
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
        let needed = config
            .votes
            .unwrap_or(mappings.len())
            .clamp(1, mappings.len());
        let mut template = decide(&doc, &key_index, &mappings, needed, config.rule);
        if config.prior && needed > 1 {
            // PAGELEVEL breaks ties: a node one vote short is template when the page-level
            // detector says so.
            let short = decide(&doc, &key_index, &mappings, needed - 1, config.rule);
            let pl =
                crate::pagelevel::detect(&doc, Some(page_url), config.model(), &config.pagelevel);
            for i in 0..template.len() {
                template[i] |= short[i] && pl.template[i];
            }
        }
        if config.method == Method::HybEx
            && protect_main_content(&doc, &mut template) == Protection::Implausible
        {
            // Without the page-level step, HybEx's relaxed vote would let content shared by
            // two siblings pass as template: vote as TemEx does.
            notes.push(
                "page-level content region holds most of the template: ignored, all CS pages must agree"
                    .into(),
            );
            template = decide(&doc, &key_index, &mappings, mappings.len(), config.rule);
        }
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

/// TemEx/HybEx without the search: the template of `doc` from its mappings to pages known
/// to share its template (a batch cluster's reference pages), taken in the given order until
/// `config.cs_size` have passed the template guard. Returns the template and how many
/// references voted (an empty template when none did).
pub fn template_against(
    doc: &Document,
    references: &[&MapIndex<'_>],
    config: &TemplateConfig,
) -> (Vec<bool>, usize) {
    let index = MapIndex::new(doc);
    let body = body_elements(doc);
    let mappings: Vec<Mapping> = references
        .iter()
        .filter_map(|r| {
            let m = etdm(&index, r, &config.equality);
            let mapped = count_mapped_body(doc, &m);
            let dice = 2.0 * mapped as f64 / (body + body_elements(r.doc)).max(1) as f64;
            (dice >= config.guard).then_some(m)
        })
        .take(config.cs_size.max(1))
        .collect();
    if mappings.is_empty() {
        return (vec![false; doc.len()], 0);
    }
    let refs: Vec<&Mapping> = mappings.iter().collect();
    let needed = config.votes.unwrap_or(refs.len()).clamp(1, refs.len());
    let mut template = decide(doc, &index, &refs, needed, config.rule);
    if config.method == Method::HybEx
        && protect_main_content(doc, &mut template) == Protection::Implausible
    {
        template = decide(doc, &index, &refs, refs.len(), config.rule);
    }
    (template, refs.len())
}

/// What [`protect_main_content`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
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
pub fn protect_main_content(doc: &Document, template: &mut [bool]) -> Protection {
    let content = page_content(doc, &ContentConfig::default());
    let Some(root) = content.root else {
        return Protection::NoContent;
    };
    let at = |i: u32| template.get(i as usize).copied().unwrap_or(false);
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

/// Element descendants of `<body>`: the scoring unit and the guard's size measure.
pub fn body_elements(doc: &Document) -> usize {
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

/// Combine the CS mappings into the template: votes, then the rule.
fn decide(
    doc: &Document,
    index: &MapIndex<'_>,
    mappings: &[&Mapping],
    needed: usize,
    rule: TemplateRule,
) -> Vec<bool> {
    use crate::mapping::index::Kind;
    let n = doc.len();
    let mapped: Vec<bool> = (0..n)
        .map(|i| {
            let id = NodeId(i as u32);
            mappings.iter().filter(|m| m.is_mapped(id)).count() >= needed
        })
        .collect();
    match rule {
        TemplateRule::Mapped => mapped,
        TemplateRule::TextEvidence => {
            // Bottom-up: does the subtree hold text, and does it hold template text?
            let mut has_text = vec![false; n];
            let mut has_tpl_text = vec![false; n];
            for id in doc.ids().rev() {
                let i = id.index();
                if index.kind(id) == Kind::Text {
                    has_text[i] = true;
                    has_tpl_text[i] = mapped[i];
                }
                if let Some(p) = doc.parent(id) {
                    has_text[p.index()] |= has_text[i];
                    has_tpl_text[p.index()] |= has_tpl_text[i];
                }
            }
            // Top-down: textless elements follow their parent.
            let mut template = vec![false; n];
            for id in doc.ids() {
                let i = id.index();
                let parent_tpl = doc.parent(id).is_none_or(|p| template[p.index()]);
                template[i] = mapped[i]
                    && match index.kind(id) {
                        Kind::Text => true,
                        _ => has_tpl_text[i] || (!has_text[i] && parent_tpl),
                    };
            }
            template
        }
    }
}
