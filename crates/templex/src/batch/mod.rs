//! Crawl-scale batch processing: templates learned once per site and template, applied to
//! every page.
//!
//! A run reads its inputs twice, streaming (never holding more than a few chunks of pages):
//!
//! 1. **Learn.** Pages are grouped by site (registrable domain, from the URL without
//!    parsing). Each site keeps an evenly spread sample of its pages (`site_sample`); only
//!    sampled pages are parsed, in the background while reading goes on, for their layout
//!    fingerprint ([`crate::cluster`]) and what the method learns from (chunk keys or node
//!    hashes). At the end each site's sample is clustered by template (stored clusters
//!    first: their pages teach nothing); a new cluster with at least `min_pages` sampled
//!    pages learns its template from up to `sample_pages` of them. The new templates are
//!    saved to the store in one transaction, with a record of the run.
//! 2. **Apply.** Every page is parsed, matched to its site's nearest stored template cluster
//!    and the template is applied, in one parallel step per page: content = what the
//!    template does not claim. Pages of no template (unseen templates, lone pages, sites too
//!    small) get the page-level content extractor. One JSON line per record goes out in
//!    input order ([`output::OutRecord`]), errors included.
//!
//! Pages are parsed lean ([`crate::dom::parse_bytes_lean`]: script, style and SVG contents
//! left out), since only their visible text and structure matter here; for the text-only
//! methods (table chunks, page-level) also without the attributes nothing reads
//! ([`crate::dom::parse_bytes_text`]).
//!
//! Decisions that depend on order (sampling, cluster assignment) depend on the record order
//! alone, never on thread timing, so a run's output does not depend on the thread count. An
//! interrupted run resumes: the store's run record says learning is done, the output file
//! says how many records are written.

pub mod input;
pub mod output;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use url::Url;

use crate::cluster::{ClusterConfig, Clusterer, Fingerprint};
use crate::dom::{Document, NodeId, parse_bytes_lean, parse_bytes_text};
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

    /// Parse a page as this method reads it: lean, and for the methods that read text
    /// only, without the attributes they never look at.
    fn parse(self, body: &[u8], charset: Option<&str>) -> Document {
        match self {
            LearnMethod::TableChunk | LearnMethod::PageLevel => parse_bytes_text(body, charset),
            LearnMethod::HybEx | LearnMethod::SiteLevel => parse_bytes_lean(body, charset),
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
    /// template; the rest of the site is only read. With `min_pages` it sets the smallest
    /// cluster that gets a template (100 and 5: clusters of 5% of a site).
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
            site_sample: 100,
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
    match url {
        Some(u) => url_site(u, input),
        None => match document_url(doc) {
            Some(u) => url_site(&u, input),
            None => dir_site(input),
        },
    }
}

/// The site of a page with a URL: its registrable domain, else its input's directory.
fn url_site(url: &Url, input: &str) -> String {
    match crate::links::registrable_domain(url) {
        Some(d) if !d.is_empty() => d,
        _ => dir_site(input),
    }
}

/// The site of a page known by nothing but its input path.
fn dir_site(input: &str) -> String {
    let dir = std::path::Path::new(input)
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    format!("file:{dir}")
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
/// so the first pages are often one section). Whether an item is kept is decided when it is
/// counted ([`Spread::admit`]), from its position alone, before it is built: only kept pages
/// are parsed, and they may be added later (parsed in the background) without changing
/// what is admitted.
struct Spread<T> {
    /// Added items, with their positions (`at`), in stream order.
    items: Vec<T>,
    at: Vec<u64>,
    /// Positions admitted and not thinned out since (added or still to come).
    kept: Vec<u64>,
    cap: usize,
    stride: u64,
    seen: u64,
}

impl<T> Spread<T> {
    /// A sample of at most `cap` items (0: keeps nothing).
    fn new(cap: usize) -> Self {
        Spread {
            items: Vec::new(),
            at: Vec::new(),
            kept: Vec::new(),
            cap,
            stride: 1,
            seen: 0,
        }
    }

    /// Count the next item; its position if it is to be kept.
    fn admit(&mut self) -> Option<u64> {
        let at = self.seen;
        self.seen += 1;
        if self.cap == 0 || at % self.stride != 0 {
            return None;
        }
        self.kept.push(at);
        if self.kept.len() > self.cap {
            self.stride = self.stride.saturating_mul(2);
            let stride = self.stride;
            self.kept.retain(|k| k % stride == 0);
        }
        Some(at)
    }

    /// Add the admitted item at position `at` (items are added in admission order); it and
    /// items added before are dropped if they have been thinned out since.
    fn push(&mut self, at: u64, item: T) {
        let stride = self.stride;
        if at % stride != 0 {
            return;
        }
        if self.at.iter().any(|k| k % stride != 0) {
            let mut i = 0;
            let keep: Vec<bool> = self.at.iter().map(|k| k % stride == 0).collect();
            self.items.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            self.at.retain(|k| k % stride == 0);
        }
        self.items.push(item);
        self.at.push(at);
    }

    /// Admit and add in one step; `make` runs only if the item is kept.
    fn offer(&mut self, make: impl FnOnce() -> T) {
        if let Some(at) = self.admit() {
            self.push(at, make());
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

/// The sites' samples as the learning phase gathers them.
#[derive(Default)]
struct LearnState {
    sites: HashMap<String, SiteSample>,
    /// Sites in order of first appearance.
    site_order: Vec<String>,
    /// Pages seen per site (sampled or not).
    seen_pages: HashMap<String, u64>,
    /// Bytes held by all samples.
    held: usize,
}

impl LearnState {
    fn entry(&mut self, site: &str, config: &BatchConfig) -> &mut SiteSample {
        if !self.sites.contains_key(site) {
            self.site_order.push(site.to_string());
            self.sites.insert(site.to_string(), SiteSample::new(config));
        }
        self.sites.get_mut(site).expect("inserted above")
    }

    /// Count a page of `site`; its position in the site's sample if it goes in.
    fn admit(&mut self, site: &str, config: &BatchConfig) -> Option<u64> {
        *self.seen_pages.entry(site.to_string()).or_insert(0) += 1;
        let st = self.entry(site, config);
        if st.evicted { None } else { st.pages.admit() }
    }

    /// Add parsed pages to their sites' samples, in record order, then hold the samples to
    /// the memory budget.
    fn absorb(&mut self, parsed: Vec<ParsedSample>, config: &BatchConfig, summary: &mut Summary) {
        for (site, at, sample, body) in parsed {
            // A page without URL: its site, hence its admission, is known only now.
            let Some(at) = at.or_else(|| self.admit(&site, config)) else {
                continue;
            };
            let st = self.entry(&site, config);
            if st.evicted {
                continue;
            }
            let before = st.bytes;
            if let Some(b) = body {
                let k = st.clusterer.add(&sample.print);
                if k == st.pools.len() {
                    st.pools.push(Spread::new(REFERENCE_POOL));
                }
                st.pools[k].offer(|| b);
            }
            st.pages.push(at, sample);
            st.recount();
            let after = st.bytes;
            self.held = (self.held + after).saturating_sub(before);
        }
        while self.held > config.sample_memory {
            // The site with the fewest pages gives its sample up.
            let victim = self
                .site_order
                .iter()
                .filter(|s| {
                    self.sites
                        .get(*s)
                        .is_some_and(|st| !st.evicted && st.bytes > 0)
                })
                .min_by_key(|s| self.seen_pages.get(*s).copied().unwrap_or(0))
                .cloned();
            let Some(v) = victim else { break };
            let st = self.sites.get_mut(&v).expect("victim exists");
            self.held = self.held.saturating_sub(st.bytes);
            *st = SiteSample {
                evicted: true,
                ..SiteSample::new(config)
            };
            summary.evicted += 1;
            tracing::warn!(site = %v, "sample memory full: the site goes page-level");
        }
    }
}

/// A page parsed for its site's sample: the site, the page's position in the sample
/// (`None` for a page without URL, whose admission is still to decide), what the method
/// learns from, and for HybEx the page.
type ParsedSample = (String, Option<u64>, SampledPage, Option<ReferencePage>);

/// A page admitted to its site's sample: the record and, when its URL tells, the site and
/// the page's position in the sample.
type Admitted = (RecordIn, Option<(String, u64)>);

/// Parse admitted pages in parallel for what learning needs of them.
fn parse_admitted(
    admitted: Vec<Admitted>,
    method: LearnMethod,
    chunking: &crate::tablechunk::Chunking,
) -> Vec<ParsedSample> {
    admitted
        .into_par_iter()
        .map(|(r, known)| {
            let doc = method.parse(&r.body, r.charset.as_deref());
            let (site, at) = match known {
                Some((site, at)) => (site, Some(at)),
                None => (site_key(None, &doc, &r.input), None),
            };
            let sample = SampledPage {
                print: Fingerprint::of(&doc),
                keys: match method {
                    LearnMethod::TableChunk => crate::tablechunk::page_keys(&doc, chunking),
                    _ => node_hashes(&doc),
                },
            };
            let body = (method == LearnMethod::HybEx).then(|| ReferencePage {
                url: r.url.as_ref().map(|u| u.to_string()),
                body: r.body,
                charset: r.charset,
            });
            (site, at, sample, body)
        })
        .collect()
}

/// The result of a task spawned on the pool. A caller that is itself one of the pool's
/// threads (a run inside `ThreadPool::install`) runs pending pool work while it waits:
/// blocking would starve the task it waits for (with one thread, forever).
fn wait_for<T>(rx: &std::sync::mpsc::Receiver<T>) -> Option<T> {
    use std::sync::mpsc::TryRecvError;
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => match rayon::yield_now() {
                // Not a pool thread: nothing of the pool's can wait on us.
                None => return rx.recv().ok(),
                Some(rayon::Yield::Executed) => {}
                // The task runs on another thread.
                Some(rayon::Yield::Idle) => std::thread::sleep(Duration::from_micros(50)),
            },
        }
    }
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
    let mut state = LearnState::default();
    let mut n = 0u64;
    // Admitted pages wait until a chunk's worth is ready: sampling admits few pages per
    // chunk of a big site, and parsing them in full chunks keeps the threads busy.
    let mut admitted: Vec<Admitted> = Vec::new();
    // One batch is parsed on the pool while the next is read. Its pages join the samples
    // exactly when the next batch goes out, so admission depends on the input alone, not on
    // thread timing.
    let mut in_flight: Option<std::sync::mpsc::Receiver<Vec<ParsedSample>>> = None;
    let settle = |in_flight: &mut Option<std::sync::mpsc::Receiver<Vec<ParsedSample>>>,
                  state: &mut LearnState,
                  summary: &mut Summary| {
        if let Some(rx) = in_flight.take() {
            match wait_for(&rx) {
                Some(parsed) => state.absorb(parsed, config, summary),
                None => tracing::error!("a parsing task failed: its pages are not sampled"),
            }
        }
    };
    chunked(inputs, config.chunk, 0, &mut |chunk| {
        n += chunk.len() as u64;
        // Sites are known from URLs without parsing; pages without URL are parsed to find
        // their canonical link.
        for it in chunk {
            if let Item::Page(r) = it {
                // The same site as the apply phase gives the page (`site_key`).
                let site = r.url.as_ref().map(|u| url_site(u, &r.input));
                match site {
                    Some(s) => {
                        if let Some(at) = state.admit(&s, config) {
                            admitted.push((r, Some((s, at))));
                        }
                    }
                    None => admitted.push((r, None)),
                }
            }
        }
        if admitted.len() >= config.chunk {
            settle(&mut in_flight, &mut state, summary);
            let batch = std::mem::take(&mut admitted);
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let (method, chunking) = (config.method, config.tablechunk.chunking);
            rayon::spawn(move || {
                // A panic in a spawned task would abort the process: it ends the task
                // instead, and `settle` reports it.
                let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    parse_admitted(batch, method, &chunking)
                }));
                if let Ok(parsed) = parsed {
                    let _ = tx.send(parsed);
                }
            });
            in_flight = Some(rx);
        }
        progress(Progress::Learning(n));
        Ok(())
    })?;
    settle(&mut in_flight, &mut state, summary);
    let last = parse_admitted(admitted, config.method, &config.tablechunk.chunking);
    state.absorb(last, config, summary);
    let LearnState {
        sites, site_order, ..
    } = state;
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

/// The stored cluster nearest to a page's fingerprint, if near enough.
fn nearest_cluster(
    templates: &SiteTemplates,
    print: &Fingerprint,
    config: &BatchConfig,
) -> Option<Arc<ClusterTemplate>> {
    templates
        .iter()
        .map(|t| (t.core.jaccard(print), t))
        .filter(|(s, _)| *s >= config.cluster.similarity)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.number.cmp(&a.1.number)))
        .map(|(_, t)| t.clone())
}

/// Mapping indexes of HybEx reference pages, per cluster (keyed by its address).
type RefIndexes<'a> = HashMap<usize, Vec<MapIndex<'a>>>;

/// Index the reference pages of HybEx clusters once per chunk.
fn index_references<'a>(
    clusters: impl Iterator<Item = &'a Arc<ClusterTemplate>>,
    indexes: &mut RefIndexes<'a>,
) {
    for c in clusters {
        if let Prepared::HybEx { docs, .. } = &c.prepared {
            indexes
                .entry(Arc::as_ptr(c) as usize)
                .or_insert_with(|| docs.iter().map(MapIndex::new).collect());
        }
    }
}

/// The outcome of a record's parallel step in the apply phase: its output line, or (a page
/// whose site only its canonical link tells) the parsed page, waiting for its templates.
enum Applied {
    Done(OutRecord),
    Pending(RecordIn, ApplyPage),
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
    let use_templates = config.method != LearnMethod::PageLevel;
    chunked(inputs, config.chunk, start, &mut |chunk| {
        // The templates of the chunk's sites (known from URLs) are looked up in record order;
        // then each record is parsed, matched and applied in one parallel step, so that a
        // page's DOM lives only while its own task runs.
        let mut sites: HashMap<String, SiteTemplates> = HashMap::new();
        if use_templates {
            for it in &chunk {
                if let Item::Page(r) = it {
                    if let Some(site) = r.url.as_ref().map(|u| url_site(u, &r.input)) {
                        if let std::collections::hash_map::Entry::Vacant(e) = sites.entry(site) {
                            let t = cache.get(store, e.key())?;
                            e.insert(t);
                        }
                    }
                }
            }
        }
        let mut indexes: RefIndexes<'_> = HashMap::new();
        index_references(sites.values().flat_map(|t| t.iter()), &mut indexes);
        let applied: Vec<Applied> = chunk
            .into_par_iter()
            .map(|it| {
                let r = match it {
                    Item::Page(r) => r,
                    Item::Failed {
                        seq,
                        input,
                        url,
                        error,
                    } => return Applied::Done(failed(seq, input, url, error)),
                };
                let doc = config.method.parse(&r.body, r.charset.as_deref());
                let known = r.url.as_ref().map(|u| url_site(u, &r.input));
                let waits = use_templates && known.is_none();
                let site = known.unwrap_or_else(|| site_key(r.url.as_ref(), &doc, &r.input));
                let print = Fingerprint::of(&doc);
                let cluster = sites
                    .get(&site)
                    .and_then(|t| nearest_cluster(t, &print, config));
                let page = ApplyPage {
                    doc,
                    site,
                    print,
                    cluster,
                };
                if waits {
                    return Applied::Pending(r, page);
                }
                let refs = page
                    .cluster
                    .as_ref()
                    .and_then(|c| indexes.get(&(Arc::as_ptr(c) as usize)));
                Applied::Done(apply_one(r, &page, refs, config, &hybex))
            })
            .collect();
        drop(indexes);
        // Pages without URL: their sites' templates now, then apply.
        let mut recs: Vec<Option<OutRecord>> = Vec::with_capacity(applied.len());
        let mut pending = Vec::new();
        for a in applied {
            match a {
                Applied::Done(r) => recs.push(Some(r)),
                Applied::Pending(r, page) => {
                    pending.push((recs.len(), r, page));
                    recs.push(None);
                }
            }
        }
        if !pending.is_empty() {
            // The clusters are held here too: the indexes borrow their reference pages.
            let mut chosen: Vec<Arc<ClusterTemplate>> = Vec::new();
            for (_, _, page) in pending.iter_mut() {
                let t = cache.get(store, &page.site)?;
                page.cluster = nearest_cluster(&t, &page.print, config);
                chosen.extend(page.cluster.clone());
            }
            let mut indexes: RefIndexes<'_> = HashMap::new();
            index_references(chosen.iter(), &mut indexes);
            let done: Vec<(usize, OutRecord)> = pending
                .into_par_iter()
                .map(|(i, r, page)| {
                    let refs = page
                        .cluster
                        .as_ref()
                        .and_then(|c| indexes.get(&(Arc::as_ptr(c) as usize)));
                    (i, apply_one(r, &page, refs, config, &hybex))
                })
                .collect();
            for (i, r) in done {
                recs[i] = Some(r);
            }
        }
        for r in recs.iter().flatten() {
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
    rec: RecordIn,
    page: &ApplyPage,
    refs: Option<&Vec<MapIndex<'_>>>,
    config: &BatchConfig,
    hybex: &TemplateConfig,
) -> OutRecord {
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
    fn spread_added_late_keeps_the_same_sample() {
        // Pages parsed in the background join the sample after later pages were counted:
        // the sample is the one of adding each page at once.
        let mut now = Spread::new(8);
        let mut late = Spread::new(8);
        let mut waiting = Vec::new();
        for i in 0..500u32 {
            now.offer(|| i);
            if let Some(at) = late.admit() {
                waiting.push((at, i));
            }
            if waiting.len() == 5 {
                for (at, item) in waiting.drain(..) {
                    late.push(at, item);
                }
            }
        }
        for (at, item) in waiting.drain(..) {
            late.push(at, item);
        }
        assert_eq!(now.items, late.items);
        assert!(now.items.len() <= 8);
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
