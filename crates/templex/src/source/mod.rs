//! Page sources: one trait for "load the page at this URL", with implementations for site
//! mirrors on disk, WARC files, live HTTP and memory.
//!
//! Every source counts its loads, because the number of pages an extractor needs is one of
//! the figures templex is judged on.

use std::sync::atomic::{AtomicUsize, Ordering};

use url::Url;

mod file;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod memory;
pub(crate) mod mirror;
mod open;
#[cfg(feature = "warc")]
pub(crate) mod warc;

pub(crate) use file::MAX_PAGE_BYTES;
pub use file::{PageFileError, read_page_file};
#[cfg(feature = "http")]
pub use http::{HttpConfig, HttpSetupError, HttpSource};
pub use memory::MemorySource;
pub use mirror::MirrorSource;
pub use open::{OpenError, OpenedSite, SiteSpec, open_site};
#[cfg(feature = "warc")]
pub(crate) use warc::WarcSource;

/// A loaded page: raw bytes plus what the transport said about them.
#[derive(Debug, Clone)]
pub struct Page {
    /// The URL that was requested.
    pub url: Url,
    /// The URL the body came from (after redirects); equal to `url` for offline sources.
    pub final_url: Url,
    /// The undecoded body.
    pub body: Vec<u8>,
    /// The charset named by the transport (HTTP `Content-Type`), if any.
    pub charset: Option<String>,
    /// The media type named by the transport, if any (without parameters).
    pub content_type: Option<String>,
}

impl Page {
    /// Parse the page into a [`crate::Document`], honouring the transport charset.
    pub fn parse(&self) -> crate::dom::Document {
        crate::dom::parse_bytes(&self.body, self.charset.as_deref())
    }

    /// Parse the page within `budget` (refusing bytes that are not HTML): see
    /// [`crate::dom::parse_page`].
    pub fn parse_within(
        &self,
        budget: &crate::dom::Budget,
    ) -> Result<crate::dom::Document, LoadError> {
        crate::dom::parse_page(
            &self.body,
            self.charset.as_deref(),
            crate::dom::ParseMode::Full,
            budget,
            std::time::Instant::now(),
        )
        .map_err(|error| LoadError::Refused {
            url: self.final_url.to_string(),
            error,
        })
    }
}

/// Why a page could not be loaded. Loaders report these; callers skip such pages.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The source has no page at this URL (a 404, a file outside the mirror, no WARC record).
    #[error("not found: {0}")]
    NotFound(String),
    /// The URL is not one this source may load (wrong scheme, outside the site).
    #[error("unsupported URL: {0}")]
    Unsupported(String),
    /// robots.txt disallows the URL for our user agent.
    #[error("disallowed by robots.txt: {0}")]
    RobotsDisallowed(String),
    /// The host resolves to a loopback, private or link-local address.
    #[error("refused private or loopback address {addr} for {url} (use --allow-private to permit)")]
    PrivateAddress {
        /// The URL being fetched.
        url: String,
        /// The offending address.
        addr: String,
    },
    /// The response is not HTML.
    #[error("not HTML ({content_type}): {url}")]
    NotHtml {
        /// The URL being fetched.
        url: String,
        /// The content type the server sent.
        content_type: String,
    },
    /// The page was loaded but is not HTML, or is over the page budget.
    #[error("{url}: {error}")]
    Refused {
        /// The page's URL.
        url: String,
        /// Why it was refused.
        error: crate::dom::PageError,
    },
    /// The body exceeded the size limit.
    #[error("body larger than {limit} bytes: {url}")]
    TooLarge {
        /// The URL being fetched.
        url: String,
        /// The configured limit in bytes.
        limit: usize,
    },
    /// Too many redirects, or a redirect loop.
    #[error("too many redirects or redirect loop at {0}")]
    TooManyRedirects(String),
    /// The server answered with an error status.
    #[error("HTTP status {status} for {url}")]
    Status {
        /// The URL being fetched.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The request timed out.
    #[error("timed out: {0}")]
    Timeout(String),
    /// Network or protocol failure.
    #[error("network error for {url}: {message}")]
    Network {
        /// The URL being fetched.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// Local I/O failure.
    #[error("I/O error for {path}: {source}")]
    Io {
        /// The path being read.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Counts of load attempts, shared by all sources.
#[derive(Debug, Default)]
pub(crate) struct LoadCounter {
    attempts: AtomicUsize,
    ok: AtomicUsize,
}

impl LoadCounter {
    /// Record the outcome of one load.
    pub(crate) fn record<T>(&self, result: &Result<T, LoadError>) {
        self.attempts.fetch_add(1, Ordering::Relaxed);
        if result.is_ok() {
            self.ok.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Snapshot of the counts.
    pub(crate) fn stats(&self) -> LoadStats {
        LoadStats {
            attempts: self.attempts.load(Ordering::Relaxed),
            loaded: self.ok.load(Ordering::Relaxed),
        }
    }
}

/// How many pages a source was asked for, and how many it delivered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoadStats {
    /// Calls to [`PageSource::load`].
    pub attempts: usize,
    /// Calls that returned a page.
    pub loaded: usize,
}

/// Something that loads pages by URL.
///
/// Implementations must be cheap to share between threads; they count every
/// [`load`](PageSource::load) call so that callers can report pages loaded.
pub trait PageSource: Send + Sync {
    /// Load the page at `url`. Counts as one load.
    fn load(&self, url: &Url) -> Result<Page, LoadError>;

    /// Whether `url` would load, without counting a load when the source can tell cheaply
    /// (a file lookup, an index lookup). The default loads the page.
    fn resolves(&self, url: &Url) -> bool {
        self.load(url).is_ok()
    }

    /// Load counts so far.
    fn stats(&self) -> LoadStats;

    /// The URL under which this source knows the page `url` names (e.g. `dir/` and
    /// `dir/index.html` in a mirror are one page). The default drops the fragment.
    fn canonical_url(&self, url: &Url) -> Url {
        let mut u = url.clone();
        u.set_fragment(None);
        u
    }

    /// Every page URL the source holds, when it can list them (a mirror, a WARC file, memory);
    /// `None` for the live web, where pages are found by following links. Listing does not
    /// count as loading.
    fn page_urls(&self) -> Option<Vec<Url>> {
        None
    }
}

impl<S: PageSource + ?Sized> PageSource for &S {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        (**self).load(url)
    }
    fn resolves(&self, url: &Url) -> bool {
        (**self).resolves(url)
    }
    fn stats(&self) -> LoadStats {
        (**self).stats()
    }
    fn canonical_url(&self, url: &Url) -> Url {
        (**self).canonical_url(url)
    }
    fn page_urls(&self) -> Option<Vec<Url>> {
        (**self).page_urls()
    }
}

impl<S: PageSource + ?Sized> PageSource for Box<S> {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        (**self).load(url)
    }
    fn resolves(&self, url: &Url) -> bool {
        (**self).resolves(url)
    }
    fn stats(&self) -> LoadStats {
        (**self).stats()
    }
    fn canonical_url(&self, url: &Url) -> Url {
        (**self).canonical_url(url)
    }
    fn page_urls(&self) -> Option<Vec<Url>> {
        (**self).page_urls()
    }
}

/// Split a `Content-Type` header value into its media type (lower-cased) and charset.
#[cfg(any(feature = "http", feature = "warc"))]
pub(crate) fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
            .filter(|v| !v.is_empty())
    });
    (media, charset)
}

/// Whether a media type is one templex parses as HTML.
#[cfg(any(feature = "http", feature = "warc"))]
pub(crate) fn is_html_media_type(media: &str) -> bool {
    matches!(
        media,
        "" | "text/html" | "application/xhtml+xml" | "application/xml" | "text/xml" | "text/plain"
    ) || media.ends_with("+xml") && media.contains("html")
}
