//! Content with a site: the page-level main content ([`crate::page`]) refined by what the
//! page's template cluster shows, never replaced by "the page minus its template".
//!
//! The template a site method finds is what the site repeats; the content a reader wants is
//! the page's main text. The page minus its template still holds every page-specific block
//! that is not the main text (related lists, teasers, tag lists, per-section menus), so the
//! site is used as evidence on top of page-level content instead:
//!
//! * **the content slot**: the element path (tags, ids and classes without digits) where the
//!   page-level container sits on most of the cluster's pages. A page whose container lies
//!   elsewhere (a teaser column or a "recommended" list taken for the article), or that took
//!   itself for a listing, is looked at again in the slot;
//! * **recurring text**: a text run (the inline text between block boundaries) that recurs
//!   on at least half of the cluster's sampled pages is boilerplate at the edges of the
//!   content ("Printer-friendly version", a standing notice, a share bar).
//!
//! The template itself is not used: dropping the text it claims inside the content
//! measured +0.001 on daniel-dev and −0.001 on the dev gold, and without it the content is
//! the same whichever method learned the template.
//!
//! Learned once per cluster from each sampled page's [`PageEvidence`] into a [`SiteContent`]
//! (batch mode keeps it in the template store beside the cluster's model), applied to each
//! page by [`refine`]. BENCHMARKS.md ("Content with a site") has the measurements.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::cluster::label_path;
use crate::dom::tags::is_block;
use crate::dom::{Document, NodeData, NodeId, deadline, is_cjk, is_word_char};
use crate::extract::{Content, ContentConfig, content_root, page_content_at};
use xxhash_rust::xxh3::Xxh3;

use crate::stable_hash::Encoder;

/// A run recurs when at least this share of the cluster's sampled pages have it.
pub(crate) const RECURRING_SHARE: f64 = 0.5;

/// A slot is the cluster's when at least this share of its sampled pages have their
/// container there.
pub(crate) const SLOT_SHARE: f64 = 0.5;

/// Fewer sampled pages than this tell nothing about a cluster, and a run or a slot needs at
/// least this many of them (two pages of one site share a story's paragraphs: an index page
/// and the news it lists).
pub(crate) const MIN_PAGES: usize = 3;

/// What one sampled page tells of its cluster's content: its text runs and where its
/// page-level container sits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageEvidence {
    /// Stable hashes of its normalized text runs, sorted and distinct.
    pub(crate) runs: Vec<u64>,
    /// The slot of its page-level container, if it has one.
    pub(crate) slot: Option<u64>,
}

impl PageEvidence {
    /// The evidence of a parsed page under the content settings `config`.
    pub(crate) fn of(doc: &Document, config: &ContentConfig) -> PageEvidence {
        let Some(body) = doc.body() else {
            return PageEvidence::default();
        };
        let mut runs: Vec<u64> = text_runs(doc, body).into_iter().map(|r| r.hash).collect();
        runs.sort_unstable();
        runs.dedup();
        // The container, before the choice of a spread view: a page the detectors took for a
        // listing still says where its container is.
        let slot = content_root(doc, config)
            .filter(|r| *r != body)
            .map(|r| slot_of(doc, r, body));
        PageEvidence { runs, slot }
    }
}

/// What a template cluster's pages show about its content: the text runs that recur on its
/// pages and the slot where most of them hold their content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteContent {
    /// Sampled pages it was learned from.
    pub pages: u32,
    /// Stable hashes of the recurring text runs, sorted.
    pub recurring: Vec<u64>,
    /// The cluster's content slot, if one holds the container on most pages.
    pub slot: Option<u64>,
}

impl SiteContent {
    /// Learn from the evidence of a cluster's sampled pages.
    pub(crate) fn learn<'a>(pages: impl IntoIterator<Item = &'a PageEvidence>) -> SiteContent {
        let mut n = 0usize;
        let mut runs: FxHashMap<u64, u32> = FxHashMap::default();
        let mut slots: FxHashMap<u64, u32> = FxHashMap::default();
        for p in pages {
            n += 1;
            for r in &p.runs {
                *runs.entry(*r).or_default() += 1;
            }
            if let Some(s) = p.slot {
                *slots.entry(s).or_default() += 1;
            }
        }
        if n < MIN_PAGES {
            return SiteContent {
                pages: n as u32,
                ..SiteContent::default()
            };
        }
        // Two pages of a few share a story's paragraphs (an index page and the latest news):
        // evidence takes at least MIN_PAGES of them.
        let least = |share: f64| ((share * n as f64).ceil() as u32).max(MIN_PAGES as u32);
        let mut recurring: Vec<u64> = runs
            .into_iter()
            .filter(|(_, c)| *c >= least(RECURRING_SHARE))
            .map(|(r, _)| r)
            .collect();
        recurring.sort_unstable();
        let slot = slots
            .into_iter()
            .filter(|(_, c)| *c >= least(SLOT_SHARE))
            .max_by_key(|(s, c)| (*c, *s))
            .map(|(s, _)| s);
        tracing::debug!(
            n,
            recurring = recurring.len(),
            ?slot,
            "site content learned"
        );
        SiteContent {
            pages: n as u32,
            recurring,
            slot,
        }
    }

    /// Whether it holds any evidence.
    pub fn is_empty(&self) -> bool {
        self.recurring.is_empty() && self.slot.is_none()
    }

    fn recurs(&self, run: u64) -> bool {
        self.recurring.binary_search(&run).is_ok()
    }
}

/// Refine a page's page-level `content` by its cluster's evidence `site`: the content is
/// looked at again in the cluster's slot when its container lies elsewhere
/// ([`reslot`]), then the recurring runs at its edges are dropped.
///
/// Only the runs before the content's first run of its own and after its last go: a
/// recurring run between two of the page's own is a label of the content's structure
/// ("Description:", "Script output:" on every page of a tutorial site), not boilerplate
/// (BENCHMARKS.md: dropping those too cost the dev gold's broad content 0.006).
pub(crate) fn refine(
    doc: &Document,
    content: Content,
    site: &SiteContent,
    config: &ContentConfig,
) -> Content {
    let Some(body) = doc.body() else {
        return content;
    };
    let mut content = match site.slot {
        Some(slot) => reslot(doc, content, body, slot, site, config),
        None => content,
    };
    let Some(root) = content.root else {
        return content;
    };
    let runs: Vec<Run> = text_runs(doc, root)
        .into_iter()
        .filter(|r| r.texts.iter().any(|t| content.keep[t.index()]))
        .collect();
    let first = runs
        .iter()
        .position(|r| !site.recurs(r.hash))
        .unwrap_or(runs.len());
    let last = runs
        .iter()
        .rposition(|r| !site.recurs(r.hash))
        .map_or(0, |i| i + 1);
    let edges = || runs[..first].iter().chain(&runs[last.max(first)..]);
    let dropped: u32 = edges().map(|r| r.words).sum();
    let total: u32 = runs.iter().map(|r| r.words).sum();
    // Content that is mostly what the compared pages show too is what they share (listings
    // of the same posts), not their boilerplate.
    if f64::from(dropped) > MAX_RECURRING_SHARE * f64::from(total) {
        return content;
    }
    for run in edges() {
        for t in &run.texts {
            content.keep[t.index()] = false;
        }
    }
    content
}

/// The largest share of the content's words that recurring runs at its edges may take:
/// beyond it the content is what the compared pages share (an index page and the listings
/// a key page was compared with show the same teasers), and it stays whole.
pub(crate) const MAX_RECURRING_SHARE: f64 = 0.5;

/// The content looked at again in the cluster's slot when the page's container is not
/// there:
/// * a page that spreads its content (or finds none) while its own container is at the
///   slot gets that container: the cluster's pages say the page is one of theirs, whose
///   teaser columns and rotating lists passed for a listing's records;
/// * a page whose container lies elsewhere moves to the slot's element with the most words
///   of its own (recurring runs left out) when that holds at least [`MOVE_RATIO`] times the
///   words of the page's pick: a teaser column or a "recommended" list taken for the
///   article. A slot holding less is another part of another kind of page (an index page
///   of the cluster, a people page beside the profiles), and the page keeps its pick.
fn reslot(
    doc: &Document,
    content: Content,
    body: NodeId,
    slot: u64,
    site: &SiteContent,
    config: &ContentConfig,
) -> Content {
    let root = content.root.unwrap_or(body);
    if root != body && slot_of(doc, root, body) == slot {
        return content;
    }
    let paths = slots(doc);
    if root == body {
        let own = content_root(doc, config).filter(|c| *c != body && paths[c.index()] == slot);
        if let Some(c) = own {
            tracing::debug!(to = %doc.dom_path(c), "content slot: the container, not the spread view");
            return page_content_at(doc, config, c);
        }
    }
    let words = own_words(doc, site);
    let pick: usize = doc
        .subtree(root)
        .map(NodeId)
        .filter(|id| content.is_content(*id))
        .map(|id| words[id.index()] as usize)
        .sum();
    let best = doc
        .elements()
        .filter(|e| paths[e.index()] == slot)
        .map(|e| (words_under(doc, e, &words), e))
        .max_by_key(|(w, e)| (*w, std::cmp::Reverse(e.0)));
    match best {
        Some((w, e)) if w >= MIN_SLOT_WORDS && w as f64 >= MOVE_RATIO * pick as f64 => {
            tracing::debug!(from = %doc.dom_path(root), to = %doc.dom_path(e), w, pick, "content slot");
            page_content_at(doc, config, e)
        }
        _ => content,
    }
}

/// How many times the words of a page's pick the cluster's slot must hold for the content
/// to move there ([`reslot`]). Measured on daniel-dev's multi-page hosts and the dev gold's
/// sites (BENCHMARKS.md, "Content with a site"): 0.9 moved the dev gold's index pages into
/// their cluster's article slot (broad content F1 0.829 → 0.801); 1.5 and 3 leave them,
/// and 1.5 keeps more of daniel-dev's corrections (0.936 against 0.934).
pub(crate) const MOVE_RATIO: f64 = 1.5;

/// Words (CJK characters count one each) a slot must hold, recurring runs left out, for
/// the content to move there: a slot the page leaves empty, or fills with a stub, is not
/// where this page's content is.
pub(crate) const MIN_SLOT_WORDS: usize = 25;

/// Per node: the words of the text runs it owns that do not recur on the site.
fn own_words(doc: &Document, site: &SiteContent) -> Vec<u32> {
    let mut words = vec![0u32; doc.len()];
    if let Some(body) = doc.body() {
        for run in text_runs(doc, body) {
            if !site.recurs(run.hash) {
                if let Some(t) = run.texts.first() {
                    words[t.index()] = run.words;
                }
            }
        }
    }
    words
}

fn words_under(doc: &Document, e: NodeId, words: &[u32]) -> usize {
    doc.subtree(e).map(|i| words[i as usize] as usize).sum()
}

/// Per node: the stable hash of its slot, the chain of labels from `<body>` down to it
/// ([`label_path`]: tag, id and classes without digits, as template fingerprints label
/// elements); 0 outside `<body>` and for nodes that are not elements.
fn slots(doc: &Document) -> Vec<u64> {
    let mut path = vec![0u64; doc.len()];
    let Some(body) = doc.body() else {
        return path;
    };
    let mut enc = Encoder::new();
    for id in doc.subtree(body).map(NodeId).skip(1) {
        if let Some(e) = doc.element(id) {
            let parent = doc.parent(id).map_or(0, |p| path[p.index()]);
            path[id.index()] = label_path(&mut enc, parent, e);
        }
    }
    path
}

/// The slot of one element below `<body>` ([`slots`] of it alone: its ancestors' labels).
fn slot_of(doc: &Document, id: NodeId, body: NodeId) -> u64 {
    let mut chain = Vec::new();
    let mut at = Some(id);
    while let Some(n) = at.filter(|n| *n != body) {
        chain.push(n);
        at = doc.parent(n);
    }
    let mut enc = Encoder::new();
    chain
        .iter()
        .rev()
        .fold(0, |parent, n| match doc.element(*n) {
            Some(e) => label_path(&mut enc, parent, e),
            None => parent,
        })
}

/// A run of inline text between block boundaries.
struct Run {
    /// Stable hash of its normalized text ([`normalize_into`]).
    hash: u64,
    /// Its words (CJK characters count one each).
    words: u32,
    /// Its text nodes.
    texts: Vec<NodeId>,
}

/// The text runs under `root` a reader sees, in document order; runs without a letter or
/// digit are left out.
fn text_runs(doc: &Document, root: NodeId) -> Vec<Run> {
    let mut out = Vec::new();
    let mut open: Vec<u32> = vec![doc.node(root).end.0];
    let mut run = RunHasher::default();
    let mut texts: Vec<NodeId> = Vec::new();
    let flush = |run: &mut RunHasher, texts: &mut Vec<NodeId>, out: &mut Vec<Run>| {
        let done = std::mem::take(run);
        if done.started {
            out.push(Run {
                hash: done.hasher.digest(),
                words: done.words,
                texts: std::mem::take(texts),
            });
        }
        texts.clear();
    };
    for id in doc.visible(root) {
        if deadline::due(id.index()) {
            break;
        }
        while open.len() > 1 && open.last().is_some_and(|&end| end <= id.0) {
            open.pop();
            flush(&mut run, &mut texts, &mut out);
        }
        match &doc.node(id).data {
            NodeData::Element(e) if id != root && is_block(&e.name.local) => {
                flush(&mut run, &mut texts, &mut out);
                open.push(doc.node(id).end.0);
            }
            NodeData::Text(r) if run.feed(&doc.text_buffer()[r.clone()]) => texts.push(id),
            _ => {}
        }
    }
    flush(&mut run, &mut texts, &mut out);
    out
}

/// A run's normalized text ([`normalize_into`]) hashed as it is made, without building it:
/// the stable hash of the normalized text without its trailing space.
#[derive(Default)]
struct RunHasher {
    hasher: Xxh3,
    /// Whether a letter or digit was fed.
    started: bool,
    /// A space normalized text would end with: hashed once a word follows it.
    space: bool,
    /// Words fed (CJK characters count one each).
    words: u32,
}

impl RunHasher {
    /// Feed one text node's text; whether normalized text would have grown.
    fn feed(&mut self, s: &str) -> bool {
        let mut grew = false;
        let mut in_word = false;
        let mut buf = [0u8; 4];
        for c in s.chars() {
            if is_word_char(c) {
                if self.space || (self.started && !in_word) {
                    self.hasher.update(b" ");
                    self.space = false;
                }
                let cjk = is_cjk(c);
                if !in_word || cjk {
                    self.words += 1;
                }
                if c.is_numeric() {
                    self.hasher.update(b"0");
                } else {
                    for l in c.to_lowercase() {
                        self.hasher.update(l.encode_utf8(&mut buf).as_bytes());
                    }
                }
                self.started = true;
                grew = true;
                in_word = !cjk;
            } else {
                in_word = false;
                if self.started && !self.space {
                    self.space = true;
                    grew = true;
                }
            }
        }
        grew
    }
}

/// Append `s` to `out` as runs compare it: letters and digits lower-cased, every digit a
/// `0` (dates and counts change from page to page, their labels do not), anything else one
/// space between words; CJK characters are words of their own. Returns the words appended.
/// [`RunHasher`] hashes the same text without building it; this is its specification.
#[cfg(test)]
fn normalize_into(s: &str, out: &mut String) -> u32 {
    let mut words = 0;
    let mut in_word = false;
    for c in s.chars() {
        if is_word_char(c) {
            if !in_word && !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            let cjk = is_cjk(c);
            if !in_word || cjk {
                words += 1;
            }
            if c.is_numeric() {
                out.push('0');
            } else {
                out.extend(c.to_lowercase());
            }
            in_word = !cjk;
        } else {
            in_word = false;
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        }
    }
    words
}

/// Learn a cluster's [`SiteContent`] from parsed pages (the interactive path: a key page and
/// its siblings or sample), with the containers the content settings `config` find.
pub(crate) fn learn_from_docs<'a>(
    docs: impl IntoIterator<Item = &'a Document>,
    config: &ContentConfig,
) -> SiteContent {
    let evidence: Vec<PageEvidence> = docs
        .into_iter()
        .map(|d| PageEvidence::of(d, config))
        .collect();
    SiteContent::learn(&evidence)
}

#[cfg(test)]
mod tests;
