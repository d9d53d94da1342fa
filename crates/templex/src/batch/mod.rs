//! Crawl-scale batch processing: templates learned once per site and template, applied to
//! every page.
//!
//! A run reads its inputs once, streaming, and parses each page once. Pages are grouped by
//! site (registrable domain, from the URL without parsing; a page without URL by its
//! canonical link). Each chunk of records is parsed in parallel; a page whose site has a
//! template cluster near its layout fingerprint ([`crate::cluster`]) gets the template
//! applied at once (content = what the template does not claim) and its DOM is dropped.
//!
//! A page no template matches joins its site's **learning round** and waits, parsed. A
//! round ends when its site has had no page for `quiet` records (on inputs that keep a
//! site's pages together, a site's first round is the whole site), when its first page is
//! `window` records behind, when the rounds hold more than `sample_memory`, or at the end of
//! the inputs. An evenly spread sample of its pages (`site_sample`) is then clustered by
//! template; a new cluster with at least `min_pages` sampled pages learns its template from
//! up to `sample_pages` of them, which is stored at once; the round's pages get the new
//! templates applied, or the page-level content extractor when none fits. Pages of
//! clusters too small stay in the site's next round (fingerprint and keys only), so that a
//! site whose pages are spread thinly over a crawl still learns; later rounds learn the
//! templates the first pages did not show.
//!
//! One JSON line per record goes out in input order ([`output::OutRecord`]), errors
//! included: outputs wait for the rounds before them (at most `window` records).
//!
//! Pages are parsed lean ([`crate::dom::parse_bytes_lean`]: script, style and SVG contents
//! left out), since only their visible text and structure matter here; for the text-only
//! methods (table chunks, page-level) also without the attributes nothing reads
//! ([`crate::dom::parse_bytes_text`]).
//!
//! Every decision (rounds, clusters, templates) depends on the record order alone, never on
//! thread timing or chunk size, so the output does not depend on them. An interrupted run
//! resumes from its output file: it reads and learns from the written records again
//! (without applying or writing them) with the store as it was before the run, and so goes
//! on exactly as the interrupted run would have; templates it had stored are not stored
//! twice.

pub mod input;
pub mod output;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use url::Url;

use crate::cluster::{ClusterConfig, Clusterer, Fingerprint};
use crate::dom::{Document, NodeId, parse_bytes_lean, parse_bytes_text};
use crate::extract::{ContentConfig, content_text, non_template_mask, page_content, page_title};
use crate::method::Method;
use crate::pagelevel::SiteLevelConfig;
use crate::store::{NewTemplate, ReferencePage, StoreError, TemplateStore};
use crate::template::model::{Applier, LearnedModel, ModelPage, learn_keys};

pub use input::{BatchInput, Item, RecordIn, into_records, records};
pub use output::{OutRecord, OutputFile, RecordSink};

/// Parse a page as a batch run's method reads it: lean, and for the methods that read text
/// only, without the attributes they never look at.
fn parse_for(method: Method, body: &[u8], charset: Option<&str>) -> Document {
    match method {
        Method::TableChunk | Method::MainContent => parse_bytes_text(body, charset),
        _ => parse_bytes_lean(body, charset),
    }
}

/// The methods a batch run can learn with ([`Method::MainContent`]: learn nothing, every
/// page gets the page-level content extractor).
pub const BATCH_METHODS: [Method; 4] = [
    Method::TableChunk,
    Method::HybEx,
    Method::SiteLevel,
    Method::MainContent,
];

/// Reference pages a HybEx cluster keeps: a pool spread over the cluster's variants.
pub const REFERENCE_POOL: usize = 8;

/// Settings of a batch run.
#[derive(Debug, Clone, Serialize)]
pub struct BatchConfig {
    /// How templates are learned.
    pub method: Method,
    /// Pages of a learning round's sample, spread evenly over the round, that are clustered
    /// and learned from. With `min_pages` it sets the smallest cluster that gets a template
    /// (100 and 5: clusters of 5% of a round).
    pub site_sample: usize,
    /// Pages of a new cluster that its template is learned from (at most).
    pub sample_pages: usize,
    /// A cluster needs at least this many pages in a round to get a template.
    pub min_pages: usize,
    /// SITELEVEL settings.
    pub sitelevel: SiteLevelConfig,
    /// Template clustering.
    pub cluster: ClusterConfig,
    /// Page-level content extraction (fallback).
    pub content: ContentConfig,
    /// Bytes that the learning rounds may hold (waiting pages, parsed); past it, the round
    /// waiting longest learns from what it has, and when only pages kept from earlier
    /// rounds are left, the site with the fewest pages drops them. Bounds memory on crawls
    /// with very many sites.
    pub sample_memory: usize,
    /// Records a page may wait for its round to end (so its output, and the outputs after
    /// it, are held at most this long); past it, the round learns from what it has.
    pub window: usize,
    /// A round ends when its site has had no page for this many records: on inputs that
    /// keep a site's pages together (mirrors, crawls by host), its first round is the
    /// whole site.
    pub quiet: usize,
    /// Records parsed in parallel at a time (no output depends on it).
    #[serde(skip)]
    pub chunk: usize,
    /// Ignore stored templates of the sites seen and learn them again (a new version).
    pub relearn: bool,
    /// Sites kept in memory (past it, the oldest idle sites leave; their templates are in
    /// the store; no output depends on it).
    #[serde(skip)]
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
            method: Method::TableChunk,
            site_sample: 100,
            sample_pages: 50,
            min_pages: 5,
            sitelevel: SiteLevelConfig::default(),
            cluster: ClusterConfig::default(),
            content: ContentConfig::default(),
            sample_memory: 512 << 20,
            window: 4096,
            quiet: 256,
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
    /// The output holds records, but the store has no record of this run: the inputs, the
    /// settings or the store changed since the run was interrupted.
    #[error(
        "cannot resume: the output has {0} records but the template store does not know this run (inputs, settings or store changed); start over"
    )]
    CannotResume(u64),
    /// The method is not one a batch run can learn with ([`BATCH_METHODS`]).
    #[error("batch mode cannot learn with {0}: use tablechunk, hybex, sitelevel or maincontent")]
    Method(Method),
}

/// Progress events, for progress bars and logs.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// Records read so far, and written so far (from the run's start, resumed ones
    /// included).
    Records {
        /// Read.
        read: u64,
        /// Written.
        written: u64,
    },
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
    pub methods: std::collections::BTreeMap<Method, u64>,
    /// Sites seen.
    pub sites: usize,
    /// Templates learned and stored by this run.
    pub learned: usize,
    /// Templates of earlier runs that pages matched.
    pub reused: usize,
    /// New clusters of learning rounds with too few pages for a template.
    pub too_small: usize,
    /// Rounds ended early, or kept pages dropped, to stay within `sample_memory`.
    pub evicted: usize,
    /// Whether the run resumed an interrupted one.
    pub resumed: bool,
    /// Time spent learning (ending rounds).
    #[serde(serialize_with = "ser_secs")]
    pub learn_time: Duration,
    /// The rest of the run: reading, parsing, applying, writing.
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

/// What a learning round learns from of a page: its template fingerprint and the chunk keys
/// or node hashes of the method (`None` until taken from the held parse).
struct SampledPage {
    print: Fingerprint,
    keys: Option<Vec<u64>>,
}

/// A page of a site's learning round.
struct RoundPage {
    /// Its position in the round's sample, if admitted (see [`Admission`]).
    at: Option<u64>,
    sample: SampledPage,
    /// The record: for its output and, with HybEx, as a reference page. `None` for a page
    /// kept from an earlier round, already written.
    rec: Option<RecordIn>,
    /// The parsed page, held until the round ends; `None` when the page is not to be
    /// written (kept from an earlier round, or written before a resumed run started).
    doc: Option<Document>,
    /// Memory the page counts for: what it holds while it waits, counted alike whether it
    /// is to be written or not, so that a resumed run ends its rounds where the
    /// interrupted run did.
    bytes: usize,
}

/// A site as the run knows it: its templates and the round of pages waiting for new ones.
struct SiteState {
    /// Templates that apply: the store's (unless relearning) and those the run learned.
    templates: SiteTemplates,
    /// The next cluster number (numbers are never reused within a site's version).
    next_cluster: u32,
    /// The learning round: pages no template matched, in record order (pages kept from
    /// earlier rounds first).
    round: Vec<RoundPage>,
    /// Position of the round's first new page (its key in [`Engine::rounds`]).
    waiting_since: Option<u64>,
    /// The round's sample: which of its pages it learns from.
    admission: Admission,
    /// Bytes the round holds (see [`RoundPage::bytes`]).
    bytes: usize,
    /// Pages of the site read so far.
    pages: u64,
    /// Position of the site's last page.
    last_seen: u64,
}

/// An evenly spread, bounded sample of a stream: every `stride`-th item is kept, and when
/// more than `cap` are kept, every other one goes and the stride doubles. Whether an item
/// is in is decided from its position alone, when it comes: spread over the whole round
/// rather than its first pages (a mirror's files come sorted, so the first pages are often
/// one section, whose shared labels would look like template).
#[derive(Debug, Clone)]
struct Admission {
    cap: u64,
    stride: u64,
    seen: u64,
}

impl Admission {
    fn new(cap: usize) -> Self {
        Admission {
            cap: cap as u64,
            stride: 1,
            seen: 0,
        }
    }

    /// Count the next item; its position if it is admitted (it may be thinned out later).
    fn admit(&mut self) -> Option<u64> {
        let at = self.seen;
        self.seen += 1;
        if self.cap == 0 || at % self.stride != 0 {
            return None;
        }
        // Admitted so far: the multiples of the stride up to `at`.
        if at / self.stride + 1 > self.cap {
            self.stride = self.stride.saturating_mul(2);
        }
        Some(at)
    }

    /// Whether the item admitted at `at` is still in.
    fn keeps(&self, at: Option<u64>) -> bool {
        at.is_some_and(|a| a % self.stride == 0)
    }
}

/// Why a learning round ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RoundEnd {
    /// No page of the site for `quiet` records.
    Quiet,
    /// Its first new page is `window` records behind.
    Window,
    /// The rounds hold more than `sample_memory`.
    Memory,
    /// The inputs ended.
    End,
}

/// Rough heap size of a parsed page, for the memory budget.
fn doc_bytes(doc: &Document) -> usize {
    doc.nodes.len() * (std::mem::size_of::<crate::dom::Node>() + 16) + doc.text.len()
}

/// A page applied in the parallel step with the templates its site had when the chunk
/// started: if the site learns new ones before the page's turn, the match is checked again.
struct Matched {
    rec: RecordIn,
    site: String,
    print: Fingerprint,
    cluster: Arc<ClusterTemplate>,
    /// The site's templates the match was made among.
    among: SiteTemplates,
}

/// The result of a record's parallel step.
enum Step {
    /// Its output line.
    Done(OutRecord, Option<Box<Matched>>),
    /// Written by the interrupted run this one resumes, and nothing to learn from (its site,
    /// if a template of it matched).
    Skip(u64, Option<String>),
    /// No template matched when the chunk started: for the sequential step.
    Parsed(Box<Parsed>),
}

/// A page parsed in the parallel step that no template of its site matched (or whose site
/// only its canonical link tells).
struct Parsed {
    rec: RecordIn,
    doc: Document,
    site: String,
    print: Fingerprint,
}

/// Run a batch over input files: one pass over the inputs, each page parsed once. Writes one
/// line per record to `out` in record order, learns templates into `store` as the sites'
/// rounds end.
///
/// With `out` holding the first records of an interrupted run with the same inputs and
/// settings, the run resumes: it reads and learns from the records again (learning goes
/// exactly as it went, the store seen as it was before the run) and writes the rest.
pub fn run(
    inputs: &[BatchInput],
    config: &BatchConfig,
    store: &mut TemplateStore,
    out: &mut OutputFile,
    progress: &dyn Fn(Progress),
) -> Result<Summary, BatchError> {
    let identity: Vec<String> = inputs.iter().map(BatchInput::identity).collect();
    run_records(
        records(inputs),
        &identity.join("\n"),
        config,
        store,
        out,
        progress,
    )
}

/// Run a batch over any stream of records (a Python generator, a server's requests, a
/// crawler's fetches): one output record per item to `sink`, in item order, numbered from 0
/// in that order whatever `seq` the items carry. `identity` names the stream for resuming
/// (the files and their sizes and times, say): a sink that already holds records
/// ([`RecordSink::resume_from`]) resumes only a run of the same identity and settings.
///
/// The stream is read on a thread of its own, a chunk of records ahead.
pub fn run_records<I>(
    items: I,
    identity: &str,
    config: &BatchConfig,
    store: &mut TemplateStore,
    sink: &mut dyn RecordSink,
    progress: &dyn Fn(Progress),
) -> Result<Summary, BatchError>
where
    I: IntoIterator<Item = Item>,
    I::IntoIter: Send,
{
    if !BATCH_METHODS.contains(&config.method) {
        return Err(BatchError::Method(config.method));
    }
    let key = run_key(identity, config);
    let t0 = Instant::now();
    let resume_from = sink.resume_from();
    if resume_from > 0 && !store.has_run(&key)? {
        return Err(BatchError::CannotResume(resume_from));
    }
    if resume_from > 0 {
        tracing::info!(from = resume_from, "resuming");
    }
    store.begin_run(&key, &describe_inputs(identity))?;
    let mut engine = Engine {
        config,
        store,
        key,
        resume_from,
        sites: HashMap::new(),
        site_order: VecDeque::new(),
        parked: HashMap::new(),
        rounds: BTreeMap::new(),
        quiet: BTreeMap::new(),
        held: 0,
        ready: BTreeMap::new(),
        next_out: resume_from,
        reused: HashSet::new(),
        read: 0,
        learn_time: Duration::ZERO,
        summary: Summary {
            resumed: resume_from > 0,
            ..Summary::default()
        },
    };
    // A chunk is parsed while the chunk before it is ended: the serial end (rounds,
    // learning, writing) overlaps the next parallel step instead of idling a core. Ending a
    // chunk before the next one's templates were taken changes no output: a page matched
    // against templates that changed since is checked again (`settle_match`), and an
    // unmatched one is matched against the current ones (`absorb`).
    let mut pending: Option<Vec<Step>> = None;
    let numbered = items
        .into_iter()
        .enumerate()
        .map(|(n, item)| item.numbered(n as u64));
    chunked(numbered, config.chunk, &mut |chunk| {
        let next = engine.begin_chunk(chunk)?;
        let resume_from = engine.resume_from;
        let (steps, ended) = rayon::join(
            || parse_chunk(next, config, resume_from),
            || match pending.take() {
                Some(steps) => engine.end_chunk(steps, sink),
                None => Ok(()),
            },
        );
        ended?;
        pending = Some(steps);
        progress(Progress::Records {
            read: engine.read,
            written: engine.next_out,
        });
        Ok(())
    })?;
    if let Some(steps) = pending.take() {
        engine.end_chunk(steps, sink)?;
    }
    engine.finish(sink)?;
    progress(Progress::Records {
        read: engine.read,
        written: engine.next_out,
    });
    let mut summary = engine.summary;
    summary.records = engine.read;
    summary.reused = engine.reused.len();
    summary.learn_time = engine.learn_time;
    summary.apply_time = t0.elapsed().saturating_sub(engine.learn_time);
    tracing::info!(
        learned = summary.learned,
        reused = summary.reused,
        too_small = summary.too_small,
        "batch done"
    );
    Ok(summary)
}

/// A stable key of the run's inputs and of every setting its output depends on: the
/// serialized config (settings that change no output, such as the chunk size, are left out
/// of it), so that no setting can be forgotten here.
fn run_key(identity: &str, config: &BatchConfig) -> String {
    let settings = serde_json::to_string(config).unwrap_or_default();
    let desc = format!("{settings}\n{identity}");
    format!("{:016x}", crate::pagelevel::sitelevel::stable_hash(&desc))
}

/// What the store records of a run's inputs: their count, or the stream's identity.
fn describe_inputs(identity: &str) -> String {
    match identity.lines().count() {
        0 => "a record stream".into(),
        n => format!("{n} inputs"),
    }
}

/// The streaming run.
struct Engine<'a> {
    config: &'a BatchConfig,
    store: &'a mut TemplateStore,
    /// The run key: templates the run stores are marked with it.
    key: String,
    /// Records before this one were written by the interrupted run this one resumes.
    resume_from: u64,
    sites: HashMap<String, SiteState>,
    /// Sites in memory, oldest first (idle ones leave past `site_cache`).
    site_order: VecDeque<String>,
    /// Sites that left memory: their next cluster number (the run's own clusters below it
    /// are theirs) and pages read, so that they come back as they left.
    parked: HashMap<String, (u32, u64)>,
    /// Sites with a round waiting, by the round's first new page.
    rounds: BTreeMap<u64, String>,
    /// The same sites, by their last page.
    quiet: BTreeMap<u64, String>,
    /// Bytes held by all rounds.
    held: usize,
    /// Outputs waiting for the records before them.
    ready: BTreeMap<u64, OutRecord>,
    next_out: u64,
    /// Templates of earlier runs that pages matched.
    reused: HashSet<(String, u32)>,
    read: u64,
    learn_time: Duration,
    summary: Summary,
}

impl Engine<'_> {
    /// The state of `site`, loaded from the store when first seen (or seen again after it
    /// left memory).
    fn site(&mut self, site: &str) -> Result<&mut SiteState, StoreError> {
        if !self.sites.contains_key(site) {
            let parked = self.parked.remove(site);
            if parked.is_none() {
                self.summary.sites += 1;
            }
            let (below, pages) = parked.map_or((None, 0), |(b, p)| (Some(b), p));
            let stored = if self.config.method == Method::MainContent {
                Vec::new()
            } else {
                self.store
                    .run_view(site, &self.key, !self.config.relearn, below.unwrap_or(0))?
            };
            let next_cluster = stored
                .iter()
                .map(|t| t.cluster + 1)
                .max()
                .unwrap_or(0)
                .max(below.unwrap_or(0));
            let templates = stored
                .into_iter()
                .map(|t| {
                    Arc::new(ClusterTemplate {
                        number: t.cluster,
                        core: t.core,
                        stored: t.run.as_deref() != Some(self.key.as_str()),
                        model: t.model,
                    })
                })
                .collect();
            self.sites.insert(
                site.to_string(),
                SiteState {
                    templates: Arc::new(templates),
                    next_cluster,
                    round: Vec::new(),
                    waiting_since: None,
                    admission: Admission::new(self.config.site_sample),
                    bytes: 0,
                    pages,
                    last_seen: 0,
                },
            );
            self.site_order.push_back(site.to_string());
        }
        Ok(self.sites.get_mut(site).expect("inserted above"))
    }

    /// A chunk's serial first step: each record's site when its URL tells (found once here
    /// for both later steps), and the templates of those sites as they stand now (sites
    /// seen for the first time are loaded from the store).
    fn begin_chunk(&mut self, chunk: Vec<Item>) -> Result<ChunkIn, BatchError> {
        let by_url: Vec<Option<String>> = chunk
            .iter()
            .map(|it| match it {
                Item::Page(r) => r.url.as_ref().map(|u| url_site(u, &r.input)),
                Item::Failed { .. } => None,
            })
            .collect();
        let mut known: HashMap<String, SiteTemplates> = HashMap::new();
        for site in by_url.iter().flatten() {
            if !known.contains_key(site) {
                let t = self.site(site)?.templates.clone();
                known.insert(site.clone(), t);
            }
        }
        self.read += chunk.len() as u64;
        Ok(ChunkIn {
            items: chunk,
            by_url,
            known,
        })
    }

    /// A chunk's serial last step, on the results of [`parse_chunk`] in record order: the
    /// pages no template matched join their sites' rounds, the rounds that are done learn,
    /// their pages are applied (in parallel) and what is in order is written.
    fn end_chunk(&mut self, steps: Vec<Step>, out: &mut dyn RecordSink) -> Result<(), BatchError> {
        let use_templates = self.config.method != Method::MainContent;
        let mut apply: Vec<(RecordIn, ApplyPage)> = Vec::new();
        for step in steps {
            let seq = match step {
                Step::Done(rec, matched) => {
                    let seq = rec.seq;
                    match matched {
                        Some(m) => {
                            self.touch(&m.site, seq)?;
                            self.settle_match(*m, rec, &mut apply)?
                        }
                        None => {
                            if use_templates {
                                if let Some(site) = &rec.site {
                                    self.touch(site, seq)?;
                                }
                            }
                            self.ready.insert(seq, rec);
                        }
                    }
                    seq
                }
                Step::Skip(seq, site) => {
                    if let Some(site) = site {
                        self.touch(&site, seq)?;
                    }
                    seq
                }
                Step::Parsed(p) => {
                    let seq = p.rec.seq;
                    self.touch(&p.site, seq)?;
                    self.absorb(*p, &mut apply)?;
                    seq
                }
            };
            self.hold_bounds(seq, &mut apply)?;
        }
        self.apply_pages(apply);
        self.flush(out)?;
        self.park_idle_sites();
        Ok(())
    }

    /// A page applied in the parallel step: its output stands unless its site has learned
    /// a nearer template since the chunk started (then it is parsed and applied again).
    fn settle_match(
        &mut self,
        m: Matched,
        done: OutRecord,
        apply: &mut Vec<(RecordIn, ApplyPage)>,
    ) -> Result<(), BatchError> {
        let config = self.config;
        let current = self.site(&m.site)?.templates.clone();
        let cluster = if Arc::ptr_eq(&current, &m.among) {
            m.cluster
        } else {
            match nearest_cluster(&current, &m.print, config) {
                Some(c) if Arc::ptr_eq(&c, &m.cluster) => c,
                other => {
                    let doc = parse_for(config.method, &m.rec.body, m.rec.charset.as_deref());
                    if let Some(c) = &other {
                        self.note_used(&m.site, c);
                    }
                    apply.push((
                        m.rec,
                        ApplyPage {
                            doc,
                            site: m.site,
                            print: m.print,
                            cluster: other,
                        },
                    ));
                    return Ok(());
                }
            }
        };
        self.note_used(&m.site, &cluster);
        self.ready.insert(done.seq, done);
        Ok(())
    }

    /// A page of `site` at position `seq` was read.
    fn touch(&mut self, site: &str, seq: u64) -> Result<(), StoreError> {
        let st = self.site(site)?;
        st.pages += 1;
        let before = st.last_seen;
        st.last_seen = seq;
        if st.waiting_since.is_some() {
            self.quiet.remove(&before);
            self.quiet.insert(seq, site.to_string());
        }
        Ok(())
    }

    fn note_used(&mut self, site: &str, c: &ClusterTemplate) {
        if c.stored {
            self.reused.insert((site.to_string(), c.number));
        }
    }

    /// A page no template matched when its chunk started: applied if its site has learned
    /// a matching template since, else added to the site's round.
    fn absorb(
        &mut self,
        p: Parsed,
        apply: &mut Vec<(RecordIn, ApplyPage)>,
    ) -> Result<(), BatchError> {
        let config = self.config;
        let write = p.rec.seq >= self.resume_from;
        let st = self.site(&p.site)?;
        if let Some(c) = nearest_cluster(&st.templates, &p.print, config) {
            if write {
                self.note_used(&p.site, &c);
                apply.push((
                    p.rec,
                    ApplyPage {
                        doc: p.doc,
                        site: p.site,
                        print: p.print,
                        cluster: Some(c),
                    },
                ));
            }
            return Ok(());
        }
        let seq = p.rec.seq;
        let starts = st.waiting_since.is_none();
        if starts {
            st.waiting_since = Some(seq);
        }
        let last_seen = st.last_seen;
        let at = st.admission.admit();
        // What the page teaches is taken when the round ends, from the sample's pages only;
        // a page that is not written does not keep its parse, so it gives it now.
        let keys = (at.is_some() && !write)
            .then(|| learn_keys(config.method, &p.doc, &config.tablechunk.chunking));
        // The body stays only where HybEx reads it (references, a page's own hash).
        let hybex = config.method == Method::HybEx;
        let mut rec = p.rec;
        if !hybex {
            rec.body = Vec::new();
        }
        // Counted as if held, so that a resumed run ends its rounds where this one does.
        let bytes = p.print.len() * 8 + rec.body.len() + doc_bytes(&p.doc);
        // A page that is not written is kept only as a possible HybEx reference.
        let rec = (write || (at.is_some() && hybex)).then_some(rec);
        st.round.push(RoundPage {
            at,
            sample: SampledPage {
                print: p.print,
                keys,
            },
            rec,
            doc: write.then_some(p.doc),
            bytes,
        });
        st.bytes += bytes;
        self.held += bytes;
        if starts {
            self.rounds.insert(seq, p.site.clone());
            self.quiet.insert(last_seen, p.site);
        }
        Ok(())
    }

    /// After record `seq`: end the rounds whose sites went quiet, that have waited too
    /// long or that hold too much.
    fn hold_bounds(
        &mut self,
        seq: u64,
        apply: &mut Vec<(RecordIn, ApplyPage)>,
    ) -> Result<(), BatchError> {
        let window = self.config.window.max(1) as u64;
        let quiet = self.config.quiet.max(1) as u64;
        loop {
            let late = self
                .rounds
                .first_key_value()
                .filter(|(first, _)| seq.saturating_sub(**first) >= window)
                .map(|(_, s)| (s.clone(), RoundEnd::Window));
            let idle = || {
                self.quiet
                    .first_key_value()
                    .filter(|(last, _)| seq.saturating_sub(**last) >= quiet)
                    .map(|(_, s)| (s.clone(), RoundEnd::Quiet))
            };
            match late.or_else(idle) {
                Some((site, why)) => self.end_round(&site, why, apply)?,
                None => break,
            }
        }
        while self.held > self.config.sample_memory {
            if let Some((_, site)) = self.rounds.first_key_value() {
                let site = site.clone();
                self.end_round(&site, RoundEnd::Memory, apply)?;
                continue;
            }
            // Only pages kept from earlier rounds are held: the site with the fewest pages
            // gives them up.
            let victim = self
                .sites
                .iter()
                .filter(|(_, st)| st.bytes > 0)
                .min_by(|a, b| a.1.pages.cmp(&b.1.pages).then(a.0.cmp(b.0)))
                .map(|(s, _)| s.clone());
            let Some(v) = victim else { break };
            let st = self.sites.get_mut(&v).expect("victim exists");
            self.held = self.held.saturating_sub(st.bytes);
            st.bytes = 0;
            st.round.clear();
            self.summary.evicted += 1;
            tracing::warn!(site = %v, "sample memory full: the site's kept pages are dropped");
        }
        Ok(())
    }

    /// End `site`'s round: cluster its pages against the site's templates, learn and store
    /// the new clusters with enough pages, and queue the round's pages to be applied. Pages
    /// of clusters too small stay (fingerprints and keys only) for the next round.
    fn end_round(
        &mut self,
        site: &str,
        why: RoundEnd,
        apply: &mut Vec<(RecordIn, ApplyPage)>,
    ) -> Result<(), BatchError> {
        let t0 = Instant::now();
        let config = self.config;
        let Some(st) = self.sites.get_mut(site) else {
            return Ok(());
        };
        if let Some(w) = st.waiting_since.take() {
            self.rounds.remove(&w);
            self.quiet.remove(&st.last_seen);
        }
        self.held = self.held.saturating_sub(st.bytes);
        st.bytes = 0;
        let mut round = std::mem::take(&mut st.round);
        let admission = std::mem::replace(&mut st.admission, Admission::new(config.site_sample));
        round
            .par_iter_mut()
            .filter(|p| admission.keeps(p.at) && p.sample.keys.is_none())
            .for_each(|p| {
                p.sample.keys = p
                    .doc
                    .as_ref()
                    .map(|d| learn_keys(config.method, d, &config.tablechunk.chunking));
            });
        tracing::debug!(site, pages = round.len(), ?why, "learning round ends");
        if why == RoundEnd::Memory {
            self.summary.evicted += 1;
        }
        let (new, small, too_small) = learn_round(site, &round, &admission, st, config);
        if !new.is_empty() {
            let mut all: Vec<Arc<ClusterTemplate>> = st.templates.iter().cloned().collect();
            all.extend(new.iter().map(|t| {
                Arc::new(ClusterTemplate {
                    number: t.cluster,
                    core: t.core.clone(),
                    stored: false,
                    model: t.model.clone(),
                })
            }));
            st.next_cluster = new.iter().map(|t| t.cluster + 1).max().unwrap_or(0);
            st.templates = Arc::new(all);
        }
        let mut kept = Vec::new();
        for (p, small) in round.into_iter().zip(small) {
            if small {
                kept.push(SampledPage {
                    print: p.sample.print.clone(),
                    keys: p.sample.keys.clone(),
                });
            }
            // Pages to write hold their parse (the rest have no `doc`).
            if let (Some(rec), Some(doc)) = (p.rec, p.doc) {
                let cluster = nearest_cluster(&st.templates, &p.sample.print, config);
                apply.push((
                    rec,
                    ApplyPage {
                        doc,
                        site: site.to_string(),
                        print: p.sample.print,
                        cluster,
                    },
                ));
            }
        }
        // A site of many one-off layouts would otherwise fill every round with old pages.
        let cap = config.site_sample / 2;
        if kept.len() > cap {
            kept.drain(..kept.len() - cap);
        }
        st.round = kept
            .into_iter()
            .map(|sample| RoundPage {
                at: st.admission.admit(),
                bytes: (sample.keys.as_ref().map_or(0, Vec::len) + sample.print.len()) * 8,
                sample,
                rec: None,
                doc: None,
            })
            .collect();
        st.bytes = st.round.iter().map(|p| p.bytes).sum();
        self.held += st.bytes;
        let inserted = self
            .store
            .save_learned(site, &new, config.relearn, &self.key)?;
        self.summary.learned += inserted;
        self.summary.too_small += too_small;
        self.learn_time += t0.elapsed();
        Ok(())
    }

    /// Apply templates to the queued pages in parallel.
    fn apply_pages(&mut self, apply: Vec<(RecordIn, ApplyPage)>) {
        if apply.is_empty() {
            return;
        }
        let config = self.config;
        // The clusters are held here: the appliers borrow their models.
        let chosen: Vec<Arc<ClusterTemplate>> = apply
            .iter()
            .filter_map(|(_, p)| p.cluster.clone())
            .collect();
        let mut appliers: Appliers<'_> = HashMap::new();
        prepare_appliers(chosen.iter(), &mut appliers);
        let done: Vec<OutRecord> = apply
            .into_par_iter()
            .map(|(r, page)| {
                let applier = page
                    .cluster
                    .as_ref()
                    .and_then(|c| appliers.get(&(Arc::as_ptr(c) as usize)));
                apply_one(&r, &page, applier, config)
            })
            .collect();
        for r in done {
            self.ready.insert(r.seq, r);
        }
    }

    /// Write the outputs that are next in record order.
    fn flush(&mut self, out: &mut dyn RecordSink) -> Result<(), BatchError> {
        let mut wrote = false;
        while let Some(entry) = self.ready.first_entry() {
            if *entry.key() != self.next_out {
                break;
            }
            let r = entry.remove();
            if r.error.is_some() {
                self.summary.errors += 1;
            }
            if let Some(m) = &r.method {
                *self.summary.methods.entry(*m).or_insert(0) += 1;
            }
            out.write(r)?;
            self.summary.written += 1;
            self.next_out += 1;
            wrote = true;
        }
        if wrote {
            out.flush()?;
        }
        Ok(())
    }

    /// Past `site_cache` sites in memory, the oldest idle ones leave (their templates are
    /// in the store).
    fn park_idle_sites(&mut self) {
        let cap = self.config.site_cache.max(1);
        let mut tries = self.site_order.len();
        while self.sites.len() > cap && tries > 0 {
            tries -= 1;
            let Some(s) = self.site_order.pop_front() else {
                break;
            };
            match self.sites.get(&s) {
                Some(st) if st.round.is_empty() => {
                    let left = (st.next_cluster, st.pages);
                    self.sites.remove(&s);
                    self.parked.insert(s, left);
                }
                Some(_) => self.site_order.push_back(s),
                None => {}
            }
        }
    }

    /// The inputs ended: every round learns from what it has, the rest is written.
    fn finish(&mut self, out: &mut dyn RecordSink) -> Result<(), BatchError> {
        let mut apply = Vec::new();
        while let Some((_, site)) = self.rounds.first_key_value() {
            let site = site.clone();
            self.end_round(&site, RoundEnd::End, &mut apply)?;
        }
        self.apply_pages(apply);
        self.flush(out)?;
        match self.ready.first_key_value() {
            Some((seq, _)) => Err(BatchError::Output(std::io::Error::other(format!(
                "record {} has no output while {seq} has",
                self.next_out
            )))),
            None => Ok(()),
        }
    }
}

/// Cluster a round's sample against the site's templates and learn the new clusters with at
/// least `min_pages` sampled pages. Returns the new templates, which pages are in new clusters too
/// small to learn, and how many such clusters there are.
fn learn_round(
    site: &str,
    round: &[RoundPage],
    admission: &Admission,
    st: &SiteState,
    config: &BatchConfig,
) -> (Vec<NewTemplate>, Vec<bool>, usize) {
    let mut clusterer = Clusterer::new(config.cluster);
    for t in st.templates.iter() {
        clusterer.add_known(t.core.clone());
    }
    let known = st.templates.len();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); known];
    // The round's sample is clustered; the other pages only wait for the templates.
    let mut of = vec![None; round.len()];
    for (i, p) in round.iter().enumerate() {
        if !admission.keeps(p.at) {
            continue;
        }
        let k = clusterer.add(&p.sample.print);
        if k == members.len() {
            members.push(Vec::new());
        }
        members[k].push(i);
        of[i] = Some(k);
    }
    let mut small_cluster = vec![false; members.len()];
    let mut next = st.next_cluster;
    let (mut new, mut too_small) = (Vec::new(), 0);
    for k in known..members.len() {
        let m = &members[k];
        if m.len() < config.min_pages.max(1) {
            too_small += 1;
            small_cluster[k] = true;
            continue;
        }
        // At most `sample_pages` members, evenly spaced.
        let take = config.sample_pages.clamp(1, m.len());
        let keys: Vec<&[u64]> = (0..take)
            .map(|j| {
                round[m[j * m.len() / take]]
                    .sample
                    .keys
                    .as_deref()
                    .unwrap_or(&[])
            })
            .collect();
        // HybEx references: members with their page, evenly spaced over the cluster.
        let pool: Vec<ReferencePage> = if config.method == Method::HybEx {
            let with: Vec<&RecordIn> = m.iter().filter_map(|&i| round[i].rec.as_ref()).collect();
            let take = REFERENCE_POOL.min(with.len());
            (0..take)
                .map(|j| {
                    let r = with[j * with.len() / take];
                    ReferencePage {
                        url: r.url.as_ref().map(|u| u.to_string()),
                        body: r.body.clone(),
                        charset: r.charset.clone(),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        new.push(NewTemplate {
            site: site.to_string(),
            cluster: next,
            pages: m.len(),
            core: clusterer.clusters()[k].core.clone(),
            model: LearnedModel::learn(
                config.method,
                &keys,
                pool,
                &config.sitelevel,
                config.tablechunk,
            ),
        });
        next += 1;
    }
    let small = of
        .iter()
        .map(|k| k.is_some_and(|k| small_cluster[k]))
        .collect();
    (new, small, too_small)
}

/// A chunk's records, their sites from URLs and those sites' templates at the chunk's start.
struct ChunkIn {
    items: Vec<Item>,
    by_url: Vec<Option<String>>,
    known: HashMap<String, SiteTemplates>,
}

/// A chunk's parallel step: every page is parsed, and applied when a template of its site
/// (as the chunk found them) matches; the rest go to [`Engine::end_chunk`]. It needs nothing
/// of the engine, so it runs while the engine ends the chunk before.
fn parse_chunk(chunk: ChunkIn, config: &BatchConfig, resume_from: u64) -> Vec<Step> {
    let use_templates = config.method != Method::MainContent;
    let ChunkIn {
        items,
        by_url,
        known,
    } = chunk;
    let mut appliers: Appliers<'_> = HashMap::new();
    prepare_appliers(known.values().flat_map(|t| t.iter()), &mut appliers);
    items
        .into_par_iter()
        .zip(by_url)
        .map(|(it, by_url)| {
            let r = match it {
                Item::Page(r) => r,
                Item::Failed {
                    seq,
                    input,
                    url,
                    error,
                } => {
                    if seq < resume_from {
                        return Step::Skip(seq, None);
                    }
                    return Step::Done(failed(seq, input, url, error), None);
                }
            };
            if !use_templates && r.seq < resume_from {
                return Step::Skip(r.seq, None);
            }
            let doc = parse_for(config.method, &r.body, r.charset.as_deref());
            let site = match &by_url {
                Some(s) => s.clone(),
                None => site_key(None, &doc, &r.input),
            };
            let print = Fingerprint::of(&doc);
            let among = by_url.as_ref().and_then(|s| known.get(s));
            let cluster = among.and_then(|t| nearest_cluster(t, &print, config));
            if cluster.is_some() || !use_templates {
                if r.seq < resume_from {
                    return Step::Skip(r.seq, Some(site));
                }
                let page = ApplyPage {
                    doc,
                    site,
                    print,
                    cluster,
                };
                let applier = page
                    .cluster
                    .as_ref()
                    .and_then(|c| appliers.get(&(Arc::as_ptr(c) as usize)));
                let done = apply_one(&r, &page, applier, config);
                let ApplyPage {
                    site,
                    print,
                    cluster,
                    ..
                } = page;
                let matched = match (cluster, among) {
                    (Some(cluster), Some(among)) => Some(Box::new(Matched {
                        rec: r,
                        site,
                        print,
                        cluster,
                        among: among.clone(),
                    })),
                    _ => None,
                };
                return Step::Done(done, matched);
            }
            Step::Parsed(Box::new(Parsed {
                rec: r,
                doc,
                site,
                print,
            }))
        })
        .collect()
}

/// Chunks of records read on their own thread, so that reading and decompressing overlap
/// with parsing; at most two chunks wait (besides the one being parsed and the one being
/// ended), which bounds memory.
/// Feed `items` to `f` a chunk at a time, read on a thread of its own two chunks ahead.
fn chunked(
    items: impl Iterator<Item = Item> + Send,
    chunk: usize,
    f: &mut dyn FnMut(Vec<Item>) -> Result<(), BatchError>,
) -> Result<(), BatchError> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Item>>(2);
        scope.spawn(move || {
            let mut stream = items;
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

/// One template cluster of a site, as the apply phase uses it.
struct ClusterTemplate {
    number: u32,
    core: Fingerprint,
    /// Learned by an earlier run (pages matching it count as reuse).
    stored: bool,
    model: LearnedModel,
}

/// The templates of one site.
type SiteTemplates = Arc<Vec<Arc<ClusterTemplate>>>;

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

/// The clusters' models ready to apply, per cluster (keyed by its address).
type Appliers<'a> = HashMap<usize, Applier<'a>>;

/// Make the clusters' models ready to apply once per chunk (HybEx indexes its references).
fn prepare_appliers<'a>(
    clusters: impl Iterator<Item = &'a Arc<ClusterTemplate>>,
    appliers: &mut Appliers<'a>,
) {
    for c in clusters {
        appliers
            .entry(Arc::as_ptr(c) as usize)
            .or_insert_with(|| c.model.applier());
    }
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
    rec: &RecordIn,
    page: &ApplyPage,
    applier: Option<&Applier<'_>>,
    config: &BatchConfig,
) -> OutRecord {
    let doc = &page.doc;
    let body = doc.body().unwrap_or(NodeId::ROOT);
    let template = page.cluster.as_ref().zip(applier).map(|(c, applier)| {
        let model_page = ModelPage {
            doc,
            print: &page.print,
            body: &rec.body,
        };
        (
            c,
            applier.template_mask(&model_page, config.protect_content),
        )
    });
    let (text, method, cluster, share) = match template {
        Some((c, template)) => {
            let keep = non_template_mask(doc, &template);
            let text = content_text(doc, body, &|id| keep[id.index()]);
            (
                text,
                c.model.method(),
                Some(format!("{}#{}", page.site, c.number)),
                template_share(doc, &template),
            )
        }
        None => {
            let c = page_content(doc, &config.content);
            let root = c.root.unwrap_or(body);
            let text = content_text(doc, root, &|id| c.is_content(id));
            (text, Method::MainContent, None, 0.0)
        }
    };
    OutRecord {
        seq: rec.seq,
        input: rec.input.clone(),
        url: rec.url.as_ref().map(|u| u.to_string()),
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
            let w = count_words(t);
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

/// `t.split_whitespace().count()`, without decoding ASCII (most text): every page's words
/// are counted for its template share.
fn count_words(t: &str) -> usize {
    let b = t.as_bytes();
    let (mut words, mut in_word, mut i) = (0, false, 0);
    while i < b.len() {
        let (space, len) = match b[i] {
            c @ 0..0x80 => (matches!(c, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r'), 1),
            _ => t[i..]
                .chars()
                .next()
                .map_or((false, 1), |c| (c.is_whitespace(), c.len_utf8())),
        };
        if space {
            in_word = false;
        } else if !in_word {
            in_word = true;
            words += 1;
        }
        i += len;
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_like_split_whitespace() {
        for t in [
            "",
            " ",
            "a",
            " a  b\tc\n",
            "x\u{a0}y\u{3000}z\u{2003}",
            "\u{b}v\u{c}f\rr",
            "naïve café — 日本語 テキスト",
            "\u{85}next\u{2028}line\u{200b}zero",
        ] {
            assert_eq!(count_words(t), t.split_whitespace().count(), "{t:?}");
        }
    }
    use crate::dom::parse_str;

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
