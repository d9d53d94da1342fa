//! A batch run's settings and the run key derived from them (a resumed run must have the
//! same inputs and settings).

use serde::Serialize;

use crate::cluster::ClusterConfig;
use crate::extract::ContentConfig;
use crate::method::Method;
use crate::template::sitelevel::SiteLevelConfig;

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
    /// (`crate::template::hybex::protect_main_content`). Off by default: on the dev gold it moves
    /// content F1 by 0.001 at most, and costs a page-level pass per page.
    pub protect_content: bool,
    /// Render each page's content as Markdown too ([`OutRecord::markdown`]: headings,
    /// lists, quotes, code blocks and tables marked up). Left out of the run key when off,
    /// so that keys made before the setting existed still match.
    ///
    /// [`OutRecord::markdown`]: super::OutRecord::markdown
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub markdown: bool,
    /// Also write the page minus its template ([`OutRecord::rest`]) for pages a template
    /// applies to.
    ///
    /// [`OutRecord::rest`]: super::OutRecord::rest
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rest: bool,
    /// Table text chunk settings.
    pub tablechunk: crate::template::tablechunk::TableChunkConfig,
    /// What one page may cost; a page over it (or not HTML) is an error record. Not part of
    /// the run key: a time budget cannot promise the same output twice anyway.
    #[serde(skip)]
    pub budget: crate::dom::Budget,
    /// Fingerprints of each record's content text (on by default; `None`: none). In the run
    /// key unless default, so that runs from before fingerprints keep their keys.
    #[serde(skip_serializing_if = "is_default_fingerprint")]
    pub fingerprint: Option<crate::dedup::FingerprintConfig>,
}

fn is_default_fingerprint(f: &Option<crate::dedup::FingerprintConfig>) -> bool {
    *f == Some(crate::dedup::FingerprintConfig::default())
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
            markdown: false,
            rest: false,
            tablechunk: crate::template::tablechunk::TableChunkConfig::default(),
            budget: crate::Budget::DEFAULT,
            fingerprint: Some(crate::dedup::FingerprintConfig::default()),
        }
    }
}

/// A stable key of the run's inputs and of every setting its output depends on: the
/// serialized config (settings that change no output, such as the chunk size, are left out
/// of it), so that no setting can be forgotten here.
pub(super) fn run_key(identity: &str, config: &BatchConfig) -> String {
    let settings = serde_json::to_string(config).unwrap_or_default();
    let desc = format!("{settings}\n{identity}");
    format!("{:016x}", crate::stable_hash::hash_str(&desc))
}

/// What the store records of a run's inputs: their count, or the stream's identity.
pub(super) fn describe_inputs(identity: &str) -> String {
    match identity.lines().count() {
        0 => "a record stream".into(),
        n => format!("{n} inputs"),
    }
}
