//! Learning rounds: the pages a site's round holds, the evenly spread sample it learns from,
//! and learning the new template clusters of a round when it ends.

use crate::cluster::{Clusterer, Fingerprint};
use crate::method::Method;
use crate::sitecontent::{PageEvidence, SiteContent};
use crate::store::model::{LearnedModel, learn_keys};
use crate::store::{NewTemplate, ReferencePage};

use super::apply::SiteTemplates;
use super::config::BatchConfig;
use super::input::RecordIn;
use crate::dom::Document;

/// Reference pages a HybEx cluster keeps: a pool spread over the cluster's variants.
pub(crate) const REFERENCE_POOL: usize = 8;

/// What a learning round learns from of a page: its template fingerprint, the chunk keys
/// or node hashes of the method and what it shows of its content (`None` until taken from
/// the held parse, [`SampledPage::learn`]).
pub(super) struct SampledPage {
    pub(super) print: Fingerprint,
    pub(super) keys: Option<(Vec<u64>, PageEvidence)>,
}

impl SampledPage {
    /// What a parsed page teaches its cluster under `config`'s method.
    pub(super) fn learn(config: &BatchConfig, doc: &Document) -> (Vec<u64>, PageEvidence) {
        (
            learn_keys(config.method, doc, &config.tablechunk.chunking),
            PageEvidence::of(doc, &config.content),
        )
    }
}

/// A page of a site's learning round.
pub(super) struct RoundPage {
    /// Its position in the round's sample, if admitted (see [`Admission`]).
    pub(super) at: Option<u64>,
    pub(super) sample: SampledPage,
    /// The record: for its output and, with HybEx, as a reference page. `None` for a page
    /// kept from an earlier round, already written.
    pub(super) rec: Option<RecordIn>,
    /// The parsed page, held until the round ends; `None` when the page is not to be
    /// written (kept from an earlier round, or written before a resumed run started).
    pub(super) doc: Option<Document>,
    /// Memory the page counts for: what it holds while it waits, counted alike whether it
    /// is to be written or not, so that a resumed run ends its rounds where the
    /// interrupted run did.
    pub(super) bytes: usize,
}

/// An evenly spread, bounded sample of a stream: every `stride`-th item is kept, and when
/// more than `cap` are kept, every other one goes and the stride doubles. Whether an item
/// is in is decided from its position alone, when it comes: spread over the whole round
/// rather than its first pages (a mirror's files come sorted, so the first pages are often
/// one section, whose shared labels would look like template).
#[derive(Debug, Clone)]
pub(super) struct Admission {
    cap: u64,
    stride: u64,
    seen: u64,
}

impl Admission {
    pub(super) fn new(cap: usize) -> Self {
        Admission {
            cap: cap as u64,
            stride: 1,
            seen: 0,
        }
    }

    /// Count the next item; its position if it is admitted (it may be thinned out later).
    pub(super) fn admit(&mut self) -> Option<u64> {
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
    pub(super) fn keeps(&self, at: Option<u64>) -> bool {
        at.is_some_and(|a| a % self.stride == 0)
    }
}

/// Why a learning round ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RoundEnd {
    /// No page of the site for `quiet` records.
    Quiet,
    /// Its first new page is `window` records behind.
    Window,
    /// The rounds hold more than `sample_memory`.
    Memory,
    /// The inputs ended.
    End,
}

/// Cluster a round's sample against the site's templates and learn the new clusters with at
/// least `min_pages` sampled pages. Returns the new templates, which pages are in new clusters too
/// small to learn, and how many such clusters there are.
pub(super) fn learn_round(
    site: &str,
    round: &[RoundPage],
    admission: &Admission,
    templates: &SiteTemplates,
    next_cluster: u32,
    config: &BatchConfig,
) -> (Vec<NewTemplate>, Vec<bool>, usize) {
    let mut clusterer = Clusterer::new(config.cluster);
    for t in templates.iter() {
        clusterer.add_known(t.core.clone());
    }
    let known = templates.len();
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
    let mut next = next_cluster;
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
        let taken = (0..take).filter_map(|j| round[m[j * m.len() / take]].sample.keys.as_ref());
        let keys: Vec<&[u64]> = taken.clone().map(|(k, _)| k.as_slice()).collect();
        let content = SiteContent::learn(taken.map(|(_, e)| e));
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
            content,
        });
        next += 1;
    }
    let small = of
        .iter()
        .map(|k| k.is_some_and(|k| small_cluster[k]))
        .collect();
    (new, small, too_small)
}
