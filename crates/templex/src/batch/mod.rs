//! Crawl-scale batch processing: templates learned once per site and template, applied to
//! every page.
//!
//! A run reads its inputs once, streaming, and parses each page once. Pages are grouped by
//! site (registrable domain, from the URL without parsing; a page without URL by its
//! canonical link). Each chunk of records is parsed in parallel; a page whose site has a
//! template cluster near its layout fingerprint ([`crate::cluster`]) gets the template
//! applied at once (the content: the page-level main content refined by what the cluster
//! shows) and its DOM is dropped.
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
//! The parts: `engine` (chunks, rounds, the record order of outputs), `learn` (what a
//! round holds and learns), `apply` (a page's cluster and its model applied, the output
//! record), `config` (settings, the run key), `site` (a page's site); [`input`] and
//! [`output`] read records and write them.
//!
//! Every decision (rounds, clusters, templates) depends on the record order alone, never on
//! thread timing or chunk size, so the output does not depend on them. An interrupted run
//! resumes from its output file: it reads and learns from the written records again
//! (without applying or writing them) with the store as it was before the run, and so goes
//! on exactly as the interrupted run would have; templates it had stored are not stored
//! twice.

mod apply;
mod config;
mod engine;
pub(crate) mod input;
mod learn;
pub(crate) mod output;
mod site;

use std::time::Duration;

use serde::Serialize;

use crate::method::Method;
use crate::store::{StoreError, TemplateStore};

pub use config::BatchConfig;
pub use engine::run_records;
pub use input::{BatchInput, Item, RecordIn, into_records, records};
pub use output::{OutRecord, OutputFile, RecordSink};
pub use site::site_of_url;

/// The methods a batch run can learn with ([`Method::MainContent`]: learn nothing, every
/// page gets the page-level content extractor).
pub const BATCH_METHODS: [Method; 4] = [
    Method::TableChunk,
    Method::HybEx,
    Method::SiteLevel,
    Method::MainContent,
];

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
