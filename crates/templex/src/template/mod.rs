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

use std::time::{Duration, Instant};

use serde::Serialize;
use url::Url;

use crate::dom::{Document, NodeId};
use crate::extract::{ContentConfig, page_content};
use crate::mapping::{Equality, MapIndex, Mapping, etdm};
use crate::siblings::cs::{CsConfig, LinkOrder, StopReason, find_complete_subdigraph};
use crate::source::{LoadError, LoadStats, PageSource};

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

/// Which site-level method to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// TemEx: the template is what the CS mappings agree on.
    TemEx,
    /// HybEx: page-level main-content detection first; the detected content can never be
    /// template, then the CS mappings vote.
    HybEx,
}

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
            ..TemplateConfig::temex()
        }
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
}

/// Extract the template of the page at `key_url`, loading its siblings from `source`.
///
/// Fails only if the key page itself cannot be loaded; a key page without usable siblings
/// yields an empty template and a note.
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
    let outcome =
        find_complete_subdigraph(source, &doc, &page.final_url, &config.cs_config(), &guard);
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
    let template = if mappings.is_empty() {
        notes.push(match outcome.stop {
            StopReason::NoLinks => "key page has no usable same-site links: no template".into(),
            _ => format!(
                "no sibling page shares the key page's template ({} loaded, {} refused by the guard, {} failed): no template",
                outcome.rejected.len() + outcome.others.len() + outcome.failed.len(),
                outcome.rejected.len(),
                outcome.failed.len()
            ),
        });
        vec![false; doc.len()]
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
        if config.method == Method::HybEx {
            // The page-level main content is never template — unless the detector picked a
            // region that holds most of what the site-level mapping calls template (a
            // wrapper, the body): then the page-level guess is the implausible one.
            let content = page_content(&doc, &ContentConfig::default());
            if let Some(root) = content.root {
                let tpl_total = template.iter().filter(|t| **t).count();
                let tpl_inside = doc.subtree(root).filter(|i| template[*i as usize]).count();
                if tpl_inside * 2 <= tpl_total {
                    for i in doc.subtree(root) {
                        template[i as usize] = false;
                    }
                } else {
                    // Without the page-level step, HybEx's relaxed vote would let content
                    // shared by two siblings pass as template: vote as TemEx does.
                    notes.push(
                        "page-level content region holds most of the template: ignored, all CS pages must agree"
                            .into(),
                    );
                    template = decide(&doc, &key_index, &mappings, mappings.len(), config.rule);
                }
            }
        }
        template
    };
    let mapping = t2.elapsed();
    let after = source.stats();
    Ok(TemplateResult {
        key_url: page.final_url.clone(),
        template,
        cs_pages: used.iter().map(|p| p.url.clone()).collect(),
        rejected: outcome.rejected,
        stop: outcome.stop,
        loads: LoadStats {
            attempts: after.attempts - before.attempts,
            loaded: after.loaded - before.loaded,
        },
        timings: Timings {
            key_page,
            siblings,
            mapping,
            total: t0.elapsed(),
        },
        notes,
        doc,
    })
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
