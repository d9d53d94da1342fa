//! Crawl-scale batch processing: templates learned once per site and template, applied to
//! every page.
//!
//! A run reads its inputs twice, streaming (never holding more than a chunk of pages):
//!
//! 1. **Learn.** Every page is parsed and fingerprinted ([`crate::cluster`]), grouped by site
//!    (registrable domain) and assigned to a template cluster of its site. Pages of clusters
//!    that the store already knows teach nothing; a new cluster collects the node hashes of
//!    its first `sample_pages` pages and learns its template from them (SITELEVEL,
//!    [`crate::pagelevel::sitelevel`]). Clusters that never gather `min_pages` pages get no
//!    template. The new templates are saved to the store in one transaction, with a record of
//!    the run.
//! 2. **Apply.** Every page is parsed again, matched to its site's nearest stored template
//!    cluster and the template is applied: content = what the template does not claim.
//!    Pages of no template (unseen templates, lone pages, sites too small) get the page-level
//!    content extractor. One JSON line per record goes out in input order
//!    ([`output::OutRecord`]), errors included.
//!
//! Pages are parsed lean ([`crate::dom::parse_bytes_lean`]: script, style and SVG contents
//! left out), since only their visible text and structure matter here.
//!
//! Parsing and applying run in parallel (rayon) over chunks of records; decisions that depend
//! on order (cluster assignment, sampling) are made sequentially in record order, so a run's
//! output does not depend on the thread count. An interrupted run resumes: the store's run
//! record says learning is done, the output file says how many records are written.

pub mod input;
pub mod output;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use url::Url;

use crate::cluster::{ClusterConfig, Clusterer, Fingerprint};
use crate::dom::{Document, NodeId, parse_bytes_lean};
use crate::extract::{ContentConfig, content_text, non_template_mask, page_content, page_title};
use crate::mapping::MapIndex;
use crate::pagelevel::sitelevel::node_hashes;
use crate::pagelevel::{SiteLevel, SiteLevelConfig};
use crate::store::{LearnedModel, NewTemplate, ReferencePage, StoreError, TemplateStore};
use crate::template::{TemplateConfig, template_against};

pub use input::{BatchInput, Item, RecordIn, records};
pub use output::{OutRecord, OutputFile};

/// How clusters learn their templates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LearnMethod {
    /// HybEx against a few reference pages of the cluster (its most typical sample pages):
    /// the site-level mapping of `templex content --site`, without the link search.
    HybEx,
    /// SITELEVEL over the cluster's sample: one hashing pass per page.
    SiteLevel,
    /// Table text chunks over the cluster's sample: one chunking pass per page.
    TableChunk,
    /// Learn nothing: every page gets the page-level content extractor.
    PageLevel,
}

impl LearnMethod {
    /// Name in run keys and reports.
    pub fn name(self) -> &'static str {
        match self {
            LearnMethod::HybEx => "hybex",
            LearnMethod::SiteLevel => "sitelevel",
            LearnMethod::TableChunk => "tablechunk",
            LearnMethod::PageLevel => "page-level",
        }
    }
}

/// Reference pages a HybEx cluster keeps: a pool spread over the cluster's variants.
pub const REFERENCE_POOL: usize = 8;

/// Settings of a batch run.
#[derive(Debug, Clone)]
pub struct BatchConfig {
    /// How templates are learned.
    pub method: LearnMethod,
    /// Pages of each site parsed in the learning phase: an evenly spread sample, clustered by
    /// template; the rest of the site is only read.
    pub site_sample: usize,
    /// Pages of a new cluster that its template is learned from (at most).
    pub sample_pages: usize,
    /// A cluster needs at least this many pages in its site's sample to get a template.
    pub min_pages: usize,
    /// SITELEVEL settings.
    pub sitelevel: SiteLevelConfig,
    /// Template clustering.
    pub cluster: ClusterConfig,
    /// Page-level content extraction (fallback).
    pub content: ContentConfig,
    /// Bytes that the sites' samples may hold while learning; past it, the site with the
    /// fewest pages gives its sample up (its pages go page-level), which bounds memory on
    /// crawls with very many sites.
    pub sample_memory: usize,
    /// Records parsed in parallel at a time.
    pub chunk: usize,
    /// Ignore stored templates of the sites seen and learn them again (a new version).
    pub relearn: bool,
    /// Sites whose templates are kept in memory in the apply phase (least recently loaded
    /// go first).
    pub site_cache: usize,
    /// HybEx's page-level step on SITELEVEL and table-chunk templates: the main content the
    /// page-level detector finds is never template
    /// ([`crate::template::protect_main_content`]). Off by default: on the dev gold it moves
    /// content F1 by 0.001 at most, and costs a page-level pass per page.
    pub protect_content: bool,
    /// Table text chunk settings.
    pub tablechunk: crate::tablechunk::TableChunkConfig,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            method: LearnMethod::TableChunk,
            site_sample: 200,
            sample_pages: 50,
            min_pages: 5,
            sitelevel: SiteLevelConfig::default(),
            cluster: ClusterConfig::default(),
            content: ContentConfig::default(),
            sample_memory: 512 << 20,
            chunk: 64,
            relearn: false,
            site_cache: 10_000,
            protect_content: false,
            tablechunk: crate::tablechunk::TableChunkConfig::default(),
        }
    }
}

/// Why a batch run stopped.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The template store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    /// The output holds records, but the store has no record of this run having learned:
    /// the inputs, the settings or the store changed since the run was interrupted.
    #[error(
        "cannot resume: the output has {0} records but the template store does not know this run (inputs, settings or store changed); start over"
    )]
    CannotResume(u64),
}

/// Progress events, for progress bars and logs.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// Learning phase: records read so far.
    Learning(u64),
    /// Learning done: records in the run.
    Learned(u64),
    /// Apply phase: records written so far, of the total.
    Applying(u64, u64),
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Records in the inputs (pages and failures).
    pub records: u64,
    /// Records written by this run (the rest were there from an interrupted run).
    pub written: u64,
    /// Records that are errors.
    pub errors: u64,
    /// Records per method.
    pub methods: std::collections::BTreeMap<String, u64>,
    /// Sites seen.
    pub sites: usize,
    /// Templates learned by this run.
    pub learned: usize,
    /// Clusters whose pages matched a template already stored.
    pub reused: usize,
    /// Clusters with too few pages for a template.
    pub too_small: usize,
    /// Clusters that gave up their samples to stay within `sample_memory`.
    pub evicted: usize,
    /// Whether learning was skipped because an interrupted run had finished it.
    pub resumed: bool,
    /// Time spent learning.
    #[serde(serialize_with = "ser_secs")]
    pub learn_time: Duration,
    /// Time spent applying and writing.
    #[serde(serialize_with = "ser_secs")]
    pub apply_time: Duration,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// The site of a page: its URL's registrable domain; for a page without URL, its canonical
/// link (`<link rel=canonical>`, `og:url`), else the input's directory.
pub fn site_key(url: Option<&Url>, doc: &Document, input: &str) -> String {
    let url = url.cloned().or_else(|| document_url(doc));
    match url.as_ref().and_then(crate::links::registrable_domain) {
        Some(d) if !d.is_empty() => d,
        _ => {
            let p = std::path::Path::new(input);
            let dir = p
                .parent()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            format!("file:{dir}")
        }
    }
}

/// The absolute http(s) URL a page names for itself, if any.
pub fn document_url(doc: &Document) -> Option<Url> {
    use markup5ever::local_name;
    let head = doc.head()?;
    doc.descendants(head).find_map(|id| {
        let e = doc.element(id)?;
        let href = if e.is(&local_name!("link"))
            && e.attr("rel").is_some_and(|r| {
                r.split_whitespace()
                    .any(|t| t.eq_ignore_ascii_case("canonical"))
            }) {
            e.attr("href")
        } else if e.is(&local_name!("meta")) && e.attr("property") == Some("og:url") {
            e.attr("content")
        } else {
            None
        }?;
        Url::parse(href.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
    })
}

/// An evenly spread, bounded sample of a stream: every `stride`-th item is kept, and when
/// more than `cap` are kept, every other one goes and the stride doubles. Deterministic, and
/// spread over the whole stream rather than its first items (a mirror's files come sorted,
/// so the first pages are often one section). Whether an item is kept is known before it is
/// built ([`Spread::admit`]), so only kept pages are parsed.
struct Spread<T> {
    items: Vec<T>,
    cap: usize,
    stride: u64,
    seen: u64,
}

impl<T> Spread<T> {
    /// A sample of at most `cap` items (0: keeps nothing).
    fn new(cap: usize) -> Self {
        Spread {
            items: Vec::new(),
            cap,
            stride: 1,
            seen: 0,
        }
    }

    /// Count the next item; whether it is to be kept.
    fn admit(&mut self) -> bool {
        let keep = self.cap > 0 && self.seen % self.stride == 0;
        self.seen += 1;
        keep
    }

    /// Add an admitted item (items are added in admission order).
    fn push(&mut self, item: T) {
        self.items.push(item);
        if self.items.len() > self.cap {
            let mut i = 0;
            self.items.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride = self.stride.saturating_mul(2);
        }
    }

    /// Admit and add in one step; `make` runs only if the item is kept.
    #[cfg(test)]
    fn offer(&mut self, make: impl FnOnce() -> T) {
        if self.admit() {
            self.push(make());
        }
    }
}

/// A sampled page of the learning phase: its template fingerprint and what the method
/// learns from (chunk keys or node hashes).
struct SampledPage {
    print: Fingerprint,
    keys: Vec<u64>,
}

/// A site during learning: the spread sample of its pages and, for HybEx, per template
/// cluster of the sample (clustered as it comes), a spread sample of whole pages: the
/// candidates of the cluster's reference pool.
struct SiteSample {
    pages: Spread<SampledPage>,
    clusterer: Clusterer,
    pools: Vec<Spread<ReferencePage>>,
    bytes: usize,
    evicted: bool,
}

impl SiteSample {
    fn new(config: &BatchConfig) -> Self {
        SiteSample {
            pages: Spread::new(config.site_sample),
            clusterer: Clusterer::new(config.cluster),
            pools: Vec::new(),
            bytes: 0,
            evicted: false,
        }
    }

    fn recount(&mut self) {
        self.bytes = self
            .pages
            .items
            .iter()
            .map(|p| (p.keys.len() + p.print.len()) * 8)
            .sum::<usize>()
            + self
                .pools
                .iter()
                .flat_map(|p| &p.items)
                .map(|p| p.body.len())
                .sum::<usize>();
    }
}

/// A record of the learning phase to parse for its site's sample.
struct Admitted {
    item: usize,
    site: Option<String>,
}

/// Run a batch: learn templates into `store`, write one line per record to `out`.
pub fn run(
    inputs: &[BatchInput],
    config: &BatchConfig,
    store: &mut TemplateStore,
    out: &mut OutputFile,
    progress: &dyn Fn(Progress),
) -> Result<Summary, BatchError> {
    let mut summary = Summary::default();
    let key = run_key(inputs, config);
    let t0 = Instant::now();
    let resume = out.next_seq() > 0;
    if resume && !store.has_run(&key)? {
        return Err(BatchError::CannotResume(out.next_seq()));
    }
    if resume {
        summary.resumed = true;
        summary.records = records(inputs).count() as u64;
        tracing::info!(from = out.next_seq(), "resuming: templates already learned");
    } else if config.method == LearnMethod::PageLevel {
        summary.records = records(inputs).count() as u64;
    } else {
        learn(inputs, config, store, &key, &mut summary, progress)?;
    }
    progress(Progress::Learned(summary.records));
    summary.learn_time = t0.elapsed();
    let t1 = Instant::now();
    apply(inputs, config, store, out, &mut summary, progress)?;
    summary.apply_time = t1.elapsed();
    Ok(summary)
}

/// A stable key of the run's inputs and learning settings.
fn run_key(inputs: &[BatchInput], config: &BatchConfig) -> String {
    let mut desc = format!(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}",
        config.method.name(),
        config.site_sample,
        config.sample_pages,
        config.min_pages,
        config.sitelevel.theta,
        config.sitelevel.cover,
        config.tablechunk.fraction,
        config.cluster.similarity,
        config.relearn
    );
    for i in inputs {
        desc.push('\n');
        desc.push_str(&i.identity());
    }
    format!("{:016x}", crate::pagelevel::sitelevel::stable_hash(&desc))
}

/// Chunks of records read on their own thread, so that reading and decompressing overlap
/// with parsing; at most two chunks wait, which bounds memory.
fn chunked(
    inputs: &[BatchInput],
    chunk: usize,
    skip: u64,
    f: &mut dyn FnMut(Vec<Item>) -> Result<(), BatchError>,
) -> Result<(), BatchError> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Item>>(2);
        scope.spawn(move || {
            let mut stream = records(inputs).skip(skip as usize);
            loop {
                let c: Vec<Item> = stream.by_ref().take(chunk.max(1)).collect();
                if c.is_empty() || tx.send(c).is_err() {
                    break;
                }
            }
        });
        for c in rx {
            f(c)?;
        }
        Ok(())
    })
}

fn learn(
    inputs: &[BatchInput],
    config: &BatchConfig,
    store: &mut TemplateStore,
    key: &str,
    summary: &mut Summary,
    progress: &dyn Fn(Progress),
) -> Result<(), BatchError> {
    let mut sites: HashMap<String, SiteSample> = HashMap::new();
    let mut site_order: Vec<String> = Vec::new();
    let mut seen_pages: HashMap<String, u64> = HashMap::new();
    let mut held = 0usize;
    let mut n = 0u64;
    chunked(inputs, config.chunk, 0, &mut |chunk| {
        n += chunk.len() as u64;
        // Sites are known from URLs without parsing; pages without URL are parsed to find
        // their canonical link.
        let mut admitted: Vec<Admitted> = Vec::new();
        for (i, it) in chunk.iter().enumerate() {
            if let Item::Page(r) = it {
                let site = r
                    .url
                    .as_ref()
                    .and_then(crate::links::registrable_domain)
                    .filter(|d| !d.is_empty());
                let sample = match &site {
                    Some(s) => {
                        let st = site_entry(&mut sites, &mut site_order, s, config);
                        *seen_pages.entry(s.clone()).or_insert(0) += 1;
                        !st.evicted && st.pages.admit()
                    }
                    None => true,
                };
                if sample {
                    admitted.push(Admitted { item: i, site });
                }
            }
        }
        let parsed: Vec<(String, bool, SampledPage, Option<ReferencePage>)> = admitted
            .par_iter()
            .filter_map(|a| {
                let Item::Page(r) = &chunk[a.item] else {
                    return None;
                };
                let doc = parse_bytes_lean(&r.body, r.charset.as_deref());
                let site = a
                    .site
                    .clone()
                    .unwrap_or_else(|| site_key(None, &doc, &r.input));
                let sample = SampledPage {
                    print: Fingerprint::of(&doc),
                    keys: match config.method {
                        LearnMethod::TableChunk => {
                            crate::tablechunk::page_keys(&doc, &config.tablechunk.chunking)
                        }
                        _ => node_hashes(&doc),
                    },
                };
                let body = (config.method == LearnMethod::HybEx).then(|| ReferencePage {
                    url: r.url.as_ref().map(|u| u.to_string()),
                    body: r.body.clone(),
                    charset: r.charset.clone(),
                });
                Some((site, a.site.is_none(), sample, body))
            })
            .collect();
        for (site, late, sample, body) in parsed {
            let st = site_entry(&mut sites, &mut site_order, &site, config);
            if late {
                // A page without URL: its site, hence its admission, is known only now.
                *seen_pages.entry(site.clone()).or_insert(0) += 1;
                if st.evicted || !st.pages.admit() {
                    continue;
                }
            }
            if st.evicted {
                continue;
            }
            let before = st.bytes;
            if let Some(b) = body {
                let k = st.clusterer.add(&sample.print);
                if k == st.pools.len() {
                    st.pools.push(Spread::new(REFERENCE_POOL));
                }
                if st.pools[k].admit() {
                    st.pools[k].push(b);
                }
            }
            st.pages.push(sample);
            st.recount();
            held = (held + st.bytes).saturating_sub(before);
        }
        while held > config.sample_memory {
            // The site with the fewest pages gives its sample up.
            let victim = site_order
                .iter()
                .filter(|s| sites.get(*s).is_some_and(|st| !st.evicted && st.bytes > 0))
                .min_by_key(|s| seen_pages.get(*s).copied().unwrap_or(0))
                .cloned();
            let Some(v) = victim else { break };
            let st = sites.get_mut(&v).expect("victim exists");
            held = held.saturating_sub(st.bytes);
            *st = SiteSample {
                evicted: true,
                ..SiteSample::new(config)
            };
            summary.evicted += 1;
            tracing::warn!(site = %v, "sample memory full: the site goes page-level");
        }
        progress(Progress::Learning(n));
        Ok(())
    })?;
    summary.records = n;
    summary.sites = sites.len();
    // Cluster each site's sample and learn the new clusters, sites in parallel.
    let stored: Vec<Vec<crate::store::StoredTemplate>> = site_order
        .iter()
        .map(|s| {
            if config.relearn {
                Ok(Vec::new())
            } else {
                store.site_templates(s)
            }
        })
        .collect::<Result<_, _>>()?;
    let results: Vec<(Vec<NewTemplate>, usize, usize)> = site_order
        .par_iter()
        .zip(stored.par_iter())
        .map(|(name, known)| learn_site(name, &sites[name], known, config))
        .collect();
    let mut new = Vec::new();
    for (templates, reused, too_small) in results {
        new.extend(templates);
        summary.reused += reused;
        summary.too_small += too_small;
    }
    summary.learned = new.len();
    let relearned: Vec<String> = if config.relearn {
        site_order.clone()
    } else {
        Vec::new()
    };
    let description = format!("{} inputs, {n} records", inputs.len());
    store.save(&new, &relearned, Some((key, &description)))?;
    tracing::info!(
        learned = summary.learned,
        reused = summary.reused,
        too_small = summary.too_small,
        "templates learned"
    );
    Ok(())
}

fn site_entry<'a>(
    sites: &'a mut HashMap<String, SiteSample>,
    order: &mut Vec<String>,
    site: &str,
    config: &BatchConfig,
) -> &'a mut SiteSample {
    if !sites.contains_key(site) {
        order.push(site.to_string());
        sites.insert(site.to_string(), SiteSample::new(config));
    }
    sites.get_mut(site).expect("inserted above")
}

/// Cluster a site's sample (stored clusters first) and learn the new clusters with enough
/// pages. Returns the new templates, the stored clusters the sample matched, and the new
/// clusters too small to learn.
fn learn_site(
    site: &str,
    sample: &SiteSample,
    known: &[crate::store::StoredTemplate],
    config: &BatchConfig,
) -> (Vec<NewTemplate>, usize, usize) {
    let mut clusterer = Clusterer::new(config.cluster);
    for t in known {
        clusterer.add_known(t.core.clone());
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); known.len()];
    for (i, p) in sample.pages.items.iter().enumerate() {
        let k = clusterer.add(&p.print);
        if k == members.len() {
            members.push(Vec::new());
        }
        members[k].push(i);
    }
    let reused = members[..known.len()]
        .iter()
        .filter(|m| !m.is_empty())
        .count();
    // Reference-pool candidates (spread per cluster as the sample came) go to the final
    // cluster nearest to them.
    let mut pools: Vec<Vec<ReferencePage>> = vec![Vec::new(); members.len()];
    for b in sample.pools.iter().flat_map(|p| &p.items) {
        let doc = parse_bytes_lean(&b.body, b.charset.as_deref());
        let Some((k, _)) = clusterer.nearest(&Fingerprint::of(&doc)) else {
            continue;
        };
        if pools[k].len() < REFERENCE_POOL {
            pools[k].push(b.clone());
        }
    }
    let mut next = known.iter().map(|t| t.cluster + 1).max().unwrap_or(0);
    let (mut new, mut too_small) = (Vec::new(), 0);
    for k in known.len()..members.len() {
        let m = &members[k];
        if m.len() < config.min_pages.max(1) {
            too_small += 1;
            continue;
        }
        // At most `sample_pages` members, evenly spaced.
        let take = config.sample_pages.clamp(1, m.len());
        let keys: Vec<&[u64]> = (0..take)
            .map(|j| sample.pages.items[m[j * m.len() / take]].keys.as_slice())
            .collect();
        let core = clusterer.clusters()[k].core.clone();
        new.push(NewTemplate {
            site: site.to_string(),
            cluster: next,
            pages: m.len(),
            core,
            model: learn_model(&keys, std::mem::take(&mut pools[k]), config),
        });
        next += 1;
    }
    (new, reused, too_small)
}

fn learn_model(keys: &[&[u64]], pool: Vec<ReferencePage>, config: &BatchConfig) -> LearnedModel {
    if config.method == LearnMethod::TableChunk {
        let mut learner = crate::tablechunk::TableChunkLearner::new(config.tablechunk);
        for k in keys {
            learner.add_keys(k);
        }
        return LearnedModel::TableChunk(learner.model());
    }
    let mut freq = SiteLevel::new();
    for h in keys {
        freq.add_hashes(h);
    }
    let sitelevel = freq.model(&config.sitelevel);
    match config.method {
        // Each page is mapped against its pool's pages least like it (see `apply_one`).
        LearnMethod::HybEx => LearnedModel::HybEx {
            references: pool,
            sitelevel,
        },
        _ => LearnedModel::SiteLevel(sitelevel),
    }
}

/// A stored template ready to apply: SITELEVEL hashes, chunk keys, or parsed reference
/// pages.
enum Prepared {
    SiteLevel(crate::pagelevel::SiteLevelModel),
    TableChunk(crate::tablechunk::TableChunkModel),
    HybEx {
        docs: Vec<Document>,
        prints: Vec<Fingerprint>,
        /// Hashes of the references' bodies: a page never votes on itself.
        bodies: Vec<u64>,
        sitelevel: crate::pagelevel::SiteLevelModel,
    },
}

/// One template cluster of a site, as the apply phase uses it.
struct ClusterTemplate {
    number: u32,
    core: Fingerprint,
    method: &'static str,
    prepared: Prepared,
}

/// The templates of one site.
type SiteTemplates = Arc<Vec<Arc<ClusterTemplate>>>;

fn prepare(model: LearnedModel) -> Prepared {
    match model {
        LearnedModel::SiteLevel(m) => Prepared::SiteLevel(m),
        LearnedModel::TableChunk(m) => Prepared::TableChunk(m),
        LearnedModel::HybEx {
            references,
            sitelevel,
        } => {
            let docs: Vec<Document> = references
                .iter()
                .map(|r| parse_bytes_lean(&r.body, r.charset.as_deref()))
                .collect();
            Prepared::HybEx {
                prints: docs.iter().map(Fingerprint::of).collect(),
                bodies: references
                    .iter()
                    .map(|r| crate::pagelevel::sitelevel::stable_hash_bytes(&r.body))
                    .collect(),
                docs,
                sitelevel,
            }
        }
    }
}

/// A bounded cache of sites' templates (first loaded, first evicted).
struct TemplateCache {
    map: HashMap<String, SiteTemplates>,
    order: VecDeque<String>,
    cap: usize,
}

impl TemplateCache {
    fn get(&mut self, store: &TemplateStore, site: &str) -> Result<SiteTemplates, StoreError> {
        if let Some(t) = self.map.get(site) {
            return Ok(t.clone());
        }
        let t: SiteTemplates = Arc::new(
            store
                .site_templates(site)?
                .into_iter()
                .map(|t| {
                    Arc::new(ClusterTemplate {
                        number: t.cluster,
                        core: t.core,
                        method: t.model.method(),
                        prepared: prepare(t.model),
                    })
                })
                .collect(),
        );
        if self.map.len() >= self.cap.max(1) {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
        self.map.insert(site.to_string(), t.clone());
        self.order.push_back(site.to_string());
        Ok(t)
    }
}

/// A parsed page of the apply phase, with the cluster it belongs to.
struct ApplyPage {
    doc: Document,
    site: String,
    print: Fingerprint,
    cluster: Option<Arc<ClusterTemplate>>,
}

fn apply(
    inputs: &[BatchInput],
    config: &BatchConfig,
    store: &TemplateStore,
    out: &mut OutputFile,
    summary: &mut Summary,
    progress: &dyn Fn(Progress),
) -> Result<(), BatchError> {
    let start = out.next_seq();
    let mut cache = TemplateCache {
        map: HashMap::new(),
        order: VecDeque::new(),
        cap: config.site_cache,
    };
    let hybex = TemplateConfig::hybex();
    let total = summary.records;
    chunked(inputs, config.chunk, start, &mut |chunk| {
        // Parse in parallel; look the sites' templates up in record order; index the
        // reference pages of the clusters in this chunk once; apply in parallel.
        let mut pages: Vec<Option<ApplyPage>> = chunk
            .par_iter()
            .map(|it| match it {
                Item::Page(r) => {
                    let doc = parse_bytes_lean(&r.body, r.charset.as_deref());
                    let site = site_key(r.url.as_ref(), &doc, &r.input);
                    let print = Fingerprint::of(&doc);
                    Some(ApplyPage {
                        doc,
                        site,
                        print,
                        cluster: None,
                    })
                }
                Item::Failed { .. } => None,
            })
            .collect();
        if config.method != LearnMethod::PageLevel {
            for p in pages.iter_mut().flatten() {
                let templates = cache.get(store, &p.site)?;
                p.cluster = templates
                    .iter()
                    .map(|t| (t.core.jaccard(&p.print), t))
                    .filter(|(s, _)| *s >= config.cluster.similarity)
                    .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.number.cmp(&a.1.number)))
                    .map(|(_, t)| t.clone());
            }
        }
        let mut indexes: HashMap<usize, Vec<MapIndex<'_>>> = HashMap::new();
        for p in pages.iter().flatten() {
            let Some(c) = &p.cluster else { continue };
            if let Prepared::HybEx { docs, .. } = &c.prepared {
                indexes
                    .entry(Arc::as_ptr(c) as usize)
                    .or_insert_with(|| docs.iter().map(MapIndex::new).collect());
            }
        }
        let recs: Vec<OutRecord> = chunk
            .into_par_iter()
            .zip(pages.par_iter())
            .map(|(it, page)| {
                let refs = page
                    .as_ref()
                    .and_then(|p| p.cluster.as_ref())
                    .and_then(|c| indexes.get(&(Arc::as_ptr(c) as usize)));
                apply_one(it, page.as_ref(), refs, config, &hybex)
            })
            .collect();
        drop(indexes);
        for r in &recs {
            if r.error.is_some() {
                summary.errors += 1;
            }
            if let Some(m) = &r.method {
                *summary.methods.entry(m.clone()).or_insert(0) += 1;
            }
            out.write(r)?;
            summary.written += 1;
        }
        out.flush()?;
        progress(Progress::Applying(out.next_seq(), total));
        Ok(())
    })
}

fn failed(seq: u64, input: String, url: Option<String>, error: String) -> OutRecord {
    OutRecord {
        seq,
        input,
        url,
        site: None,
        cluster: None,
        method: None,
        title: None,
        text: None,
        template_share: None,
        error: Some(error),
    }
}

fn apply_one(
    item: Item,
    page: Option<&ApplyPage>,
    refs: Option<&Vec<MapIndex<'_>>>,
    config: &BatchConfig,
    hybex: &TemplateConfig,
) -> OutRecord {
    let (rec, page) = match (item, page) {
        (Item::Page(r), Some(p)) => (r, p),
        (
            Item::Failed {
                seq,
                input,
                url,
                error,
            },
            _,
        ) => return failed(seq, input, url, error),
        (Item::Page(r), None) => {
            let url = r.url.map(|u| u.to_string());
            return failed(r.seq, r.input, url, "internal: page was not parsed".into());
        }
    };
    let doc = &page.doc;
    let body = doc.body().unwrap_or(NodeId::ROOT);
    let template = page.cluster.as_ref().and_then(|c| {
        let mask = match &c.prepared {
            Prepared::SiteLevel(m) => {
                let mut mask = m.template_mask(doc);
                if config.protect_content {
                    crate::template::protect_main_content(doc, &mut mask);
                }
                mask
            }
            Prepared::TableChunk(m) => {
                let mut mask = m.template_mask(doc);
                if config.protect_content {
                    crate::template::protect_main_content(doc, &mut mask);
                }
                mask
            }
            Prepared::HybEx {
                bodies,
                prints,
                sitelevel,
                ..
            } => {
                // Like the CS of HybEx (menu pages: other page types of the same layout), the
                // references are the pool's pages least like this one that still pass the
                // template guard: pages of its own type would share its type's content
                // ("Add to cart", "Reviews") and vote it template. Never itself.
                let own = crate::pagelevel::sitelevel::stable_hash_bytes(&rec.body);
                let mut order: Vec<(f64, usize)> = prints
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| bodies[*i] != own)
                    .map(|(i, p)| (p.jaccard(&page.print), i))
                    .collect();
                order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let pool = refs?;
                let chosen: Vec<&MapIndex<'_>> = order.iter().map(|(_, i)| &pool[*i]).collect();
                let (mask, voters) = template_against(doc, &chosen, hybex);
                if voters > 0 {
                    mask
                } else {
                    // No reference shares enough structure: the cluster's SITELEVEL model.
                    let mut mask = sitelevel.template_mask(doc);
                    crate::template::protect_main_content(doc, &mut mask);
                    mask
                }
            }
        };
        Some((c, mask))
    });
    let (text, method, cluster, share) = match template {
        Some((c, template)) => {
            let keep = non_template_mask(doc, &template);
            let text = content_text(doc, body, &|id| keep[id.index()]);
            (
                text,
                c.method.to_string(),
                Some(format!("{}#{}", page.site, c.number)),
                template_share(doc, &template),
            )
        }
        None => {
            let c = page_content(doc, &config.content);
            let root = c.root.unwrap_or(body);
            let text = content_text(doc, root, &|id| c.is_content(id));
            (text, "page-level".to_string(), None, 0.0)
        }
    };
    OutRecord {
        seq: rec.seq,
        input: rec.input,
        url: rec.url.map(|u| u.to_string()),
        site: Some(page.site.clone()),
        cluster,
        method: Some(method),
        title: page_title(doc),
        text: Some(text),
        template_share: Some((share * 1e4).round() / 1e4),
        error: None,
    }
}

/// Share of the body's visible words inside template nodes (a text node counts with its
/// element).
pub fn template_share(doc: &Document, template: &[bool]) -> f64 {
    let Some(body) = doc.body() else { return 0.0 };
    let (mut all, mut tpl) = (0usize, 0usize);
    for id in crate::extract::visible_descendants(doc, body) {
        if let Some(t) = doc.text(id) {
            let w = t.split_whitespace().count();
            all += w;
            // Methods mark elements (the scoring unit); a text node is its element's.
            let at = |i: NodeId| template.get(i.index()).copied().unwrap_or(false);
            if at(id) || doc.parent(id).is_some_and(at) {
                tpl += w;
            }
        }
    }
    if all == 0 {
        0.0
    } else {
        tpl as f64 / all as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn spread_samples_evenly_and_stays_bounded() {
        let mut s = Spread::new(4);
        for i in 0..100u32 {
            s.offer(|| i);
            assert!(s.items.len() <= 4);
        }
        // Kept items are multiples of the final stride, spread over the whole stream.
        assert!(s.items.iter().all(|i| u64::from(*i) % s.stride == 0));
        assert_eq!(s.items[0], 0);
        assert!(*s.items.last().unwrap() >= 50, "{:?}", s.items);
        let mut built = 0;
        let mut t = Spread::new(2);
        for i in 0..10 {
            t.offer(|| {
                built += 1;
                i
            });
        }
        assert!(built < 10, "items that are not kept are not built");
    }

    #[test]
    fn sites_from_urls_canonical_links_and_directories() {
        let doc = parse_str(
            "<html><head><link rel='canonical' href='https://news.bbc.co.uk/a'></head><body>x</body></html>",
        );
        let url = Url::parse("https://www.example.co.uk/page").unwrap();
        assert_eq!(site_key(Some(&url), &doc, "f"), "example.co.uk");
        assert_eq!(site_key(None, &doc, "dir/f.html"), "bbc.co.uk");
        let bare = parse_str("<p>x</p>");
        assert_eq!(site_key(None, &bare, "dir/f.html"), "file:dir");
        let og =
            parse_str("<head><meta property='og:url' content='http://blog.example.org/x'></head>");
        assert_eq!(
            document_url(&og).unwrap().host_str(),
            Some("blog.example.org")
        );
        let js = parse_str("<head><link rel=canonical href='javascript:alert(1)'></head>");
        assert!(document_url(&js).is_none());
    }

    #[test]
    fn template_share_counts_visible_words() {
        let doc = parse_str("<body><nav>a b c</nav><p>d</p><script>x y z</script></body>");
        let mut mask = vec![false; doc.len()];
        let nav = doc
            .elements()
            .find(|e| doc.tag(*e).is_some_and(|t| &**t == "nav"))
            .unwrap();
        mask[nav.index()] = true;
        assert!((template_share(&doc, &mask) - 0.75).abs() < 1e-9);
        assert_eq!(template_share(&parse_str(""), &[]), 0.0);
    }
}
