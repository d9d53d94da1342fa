//! Turning command-line arguments into a page source and a key page URL.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use templex::source::{HttpConfig, OpenedSite, SiteSpec, open_site};

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
