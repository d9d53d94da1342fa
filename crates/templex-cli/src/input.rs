//! Turning command-line arguments into a page source and a key page URL.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use templex::source::{HttpConfig, HttpSource, MirrorSource, PageSource, WarcSource};
use url::Url;

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

/// An opened source and the URL of the key page in it.
pub struct Opened {
    pub source: Box<dyn PageSource>,
    pub page_url: Url,
    /// Whether the source is the live web (loads are slow and polite).
    pub live: bool,
}

impl SourceArgs {
    /// Open the source that `page` (a path or URL) and these options name.
    pub fn open(&self, page: &str) -> Result<Opened> {
        let as_url = Url::parse(page)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        if let Some(warc) = &self.warc {
            let source = WarcSource::open(warc)
                .with_context(|| format!("cannot open WARC {}", warc.display()))?;
            let page_url =
                as_url.with_context(|| format!("with --warc, PAGE must be a URL, got {page:?}"))?;
            return Ok(Opened {
                source: Box::new(source),
                page_url,
                live: false,
            });
        }
        if let Some(dir) = &self.site {
            let source = MirrorSource::new(dir, &self.url_prefix)
                .with_context(|| format!("cannot open site mirror {}", dir.display()))?;
            let page_url = match as_url {
                Some(u) => u,
                None => mirror_page_url(&source, Path::new(page))?,
            };
            return Ok(Opened {
                source: Box::new(source),
                page_url,
                live: false,
            });
        }
        if let Some(url) = as_url {
            let config = HttpConfig {
                allow_private: self.allow_private,
                min_delay: Duration::from_millis(self.delay_ms),
                timeout: Duration::from_secs(self.timeout),
                max_body: self.max_bytes,
                ..HttpConfig::default()
            };
            let source = HttpSource::new(config).context("cannot set up HTTP client")?;
            return Ok(Opened {
                source: Box::new(source),
                page_url: url,
                live: true,
            });
        }
        // A lone file: its directory is the site.
        let path = Path::new(page);
        if !path.is_file() {
            bail!("{page}: no such file (and not an http/https URL)");
        }
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let source = MirrorSource::new(dir, &[] as &[&str])
            .with_context(|| format!("cannot open directory {}", dir.display()))?;
        let page_url = mirror_page_url(&source, path)?;
        Ok(Opened {
            source: Box::new(source),
            page_url,
            live: false,
        })
    }
}

fn mirror_page_url(source: &MirrorSource, path: &Path) -> Result<Url> {
    if !path.is_file() {
        bail!("{}: no such file", path.display());
    }
    source.url_for_path(path).with_context(|| {
        format!(
            "{} is not inside the site directory {}",
            path.display(),
            source.root().display()
        )
    })
}
