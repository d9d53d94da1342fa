//! The streaming engine: records read a chunk at a time, parsed in parallel, matched to their
//! sites' templates or held in the sites' learning rounds, which end (and learn) by the
//! rules in the [module docs](super); outputs written in record order.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::apply::{
    Appliers, ApplyPage, ClusterTemplate, SiteTemplates, apply_one, failed, nearest_cluster,
    parse_for, parse_mode, prepare_appliers, refused,
};
use super::config::{BatchConfig, describe_inputs, run_key};
use super::input::{Item, RecordIn};
use super::learn::{Admission, RoundEnd, RoundPage, SampledPage, learn_round};
use super::output::{OutRecord, RecordSink};
use super::site::{site_key, url_site};
use super::{BATCH_METHODS, BatchError, Progress, Summary};
use crate::cluster::Fingerprint;
use crate::dom::{Document, ParseMode};
use crate::method::Method;
use crate::store::{StoreError, TemplateStore};

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

/// Rough heap size of a parsed page, for the memory budget: what its arena and text buffer
/// hold room for (an arena grown by doubling holds up to twice its nodes), and about 16
/// bytes a node of attributes and names.
fn doc_bytes(doc: &Document) -> usize {
    doc.nodes.capacity() * std::mem::size_of::<crate::dom::Node>()
        + doc.nodes.len() * 16
        + doc.text.capacity()
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
// `Done` is what nearly every record becomes: boxing it would allocate once per record.
#[allow(clippy::large_enum_variant)]
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
                        content: t.content,
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
                    // Parsed before, so only the time budget can refuse it now.
                    let doc = match parse_for(config, &m.rec.body, m.rec.charset.as_deref()) {
                        Ok(doc) => doc,
                        Err(e) => {
                            let r = m.rec;
                            self.ready.insert(
                                r.seq,
                                refused(r.seq, r.input, r.url.map(String::from), &e),
                            );
                            return Ok(());
                        }
                    };
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
        let keys = (at.is_some() && !write).then(|| SampledPage::learn(config, &p.doc));
        // The body stays only where it is read again: HybEx's references and a page's own
        // hash, and the lean parse of a page parsed for its text (its page-level content).
        let hybex = config.method == Method::HybEx;
        let mut rec = p.rec;
        let read_again = hybex || (write && parse_mode(config) == ParseMode::Text);
        if !read_again {
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
                p.sample.keys = p.doc.as_ref().map(|d| SampledPage::learn(config, d));
            });
        tracing::debug!(site, pages = round.len(), ?why, "learning round ends");
        if why == RoundEnd::Memory {
            self.summary.evicted += 1;
        }
        let (new, small, too_small) = learn_round(
            site,
            &round,
            &admission,
            &st.templates,
            st.next_cluster,
            config,
        );
        if !new.is_empty() {
            let mut all: Vec<Arc<ClusterTemplate>> = st.templates.iter().cloned().collect();
            all.extend(new.iter().map(|t| {
                Arc::new(ClusterTemplate {
                    number: t.cluster,
                    core: t.core.clone(),
                    stored: false,
                    model: t.model.clone(),
                    content: t.content.clone(),
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
                bytes: (sample
                    .keys
                    .as_ref()
                    .map_or(0, |(k, e)| k.len() + e.runs.len())
                    + sample.print.len())
                    * 8,
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
            let doc = match parse_for(config, &r.body, r.charset.as_deref()) {
                Ok(doc) => doc,
                Err(_) if r.seq < resume_from => return Step::Skip(r.seq, None),
                Err(e) => {
                    return Step::Done(refused(r.seq, r.input, r.url.map(String::from), &e), None);
                }
            };
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
