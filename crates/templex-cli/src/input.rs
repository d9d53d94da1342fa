//! Turning command-line arguments into a page source and a key page URL.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use templex::sources::HttpConfig;
use templex::{Budget, OpenedSite, SiteSpec, open_site};

/// Where pages come from: a mirror directory, a WARC file, or (by default for URLs) the web.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// A site mirror directory; PAGE is a file inside it or a URL under --url-prefix.
    #[arg(long, value_name = "DIR", conflicts_with = "warc")]
    pub site: Option<PathBuf>,

    /// Site URL prefixes that map to the mirror root (`https://host/path/`, `host/path`).
    #[arg(long = "url-prefix", value_name = "PREFIX", num_args = 1.., requires = "site")]
    pub url_prefix: Vec<String>,

    /// A WARC file (.warc or .warc.gz) holding the site's pages; PAGE is a URL in it.
    #[arg(long, value_name = "FILE")]
    pub warc: Option<PathBuf>,

    /// Live HTTP: allow requests to loopback, private and link-local addresses.
    #[arg(long)]
    pub allow_private: bool,

    /// Live HTTP: minimum delay between requests to one host, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub delay_ms: u64,

    /// Live HTTP: total timeout per request, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,

    /// Live HTTP: largest body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    pub max_bytes: usize,
}

impl SourceArgs {
    /// Open the source that `page` (a path or URL) and these options name (live URLs are
    /// fetched, politely).
    pub fn open(&self, page: &str) -> Result<OpenedSite> {
        let spec = SiteSpec {
            mirror: self.site.clone(),
            url_prefixes: self.url_prefix.clone(),
            warc: self.warc.clone(),
            http: Some(HttpConfig {
                allow_private: self.allow_private,
                min_delay: Duration::from_millis(self.delay_ms),
                timeout: Duration::from_secs(self.timeout),
                max_body: self.max_bytes,
                ..HttpConfig::default()
            }),
        };
        Ok(open_site(&spec, page)?)
    }
}

/// What one page may cost; a page over it is an error record naming the limit.
#[derive(Debug, Clone, Args)]
pub struct BudgetArgs {
    /// Largest page, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Budget::DEFAULT.max_bytes)]
    pub max_page_bytes: usize,

    /// Most nodes (elements, text, comments) in one parsed page.
    #[arg(long, value_name = "N", default_value_t = Budget::DEFAULT.max_nodes)]
    pub max_page_nodes: usize,

    /// Longest time on one page (parsing and extraction), in seconds.
    #[arg(long, value_name = "SECS", default_value_t = Budget::DEFAULT.max_time.as_secs_f64())]
    pub page_timeout: f64,
}

impl BudgetArgs {
    /// The budget these options give.
    pub fn budget(&self) -> Budget {
        Budget {
            max_bytes: self.max_page_bytes,
            max_nodes: self.max_page_nodes,
            max_time: Duration::try_from_secs_f64(self.page_timeout.max(0.0))
                .unwrap_or(Duration::MAX),
        }
    }
}

/// How content fingerprints (for `templex dedup`) are computed.
#[derive(Debug, Clone, Args)]
pub struct FingerprintArgs {
    /// Hash functions of the MinHash signature.
    #[arg(long, value_name = "N", default_value_t = 128, value_parser = clap::value_parser!(u16).range(1..))]
    pub minhash: u16,

    /// Words per shingle.
    #[arg(long, value_name = "K", default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..))]
    pub shingle: u16,
}

impl FingerprintArgs {
    /// The fingerprint settings these options give.
    pub fn config(&self) -> templex::duplicates::FingerprintConfig {
        templex::duplicates::FingerprintConfig {
            minhash: self.minhash.into(),
            shingle: self.shingle.into(),
        }
    }
}
