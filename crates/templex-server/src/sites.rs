//! The server's state: the sites it opened once, live fetching, limits, metrics; and the
//! page sources a request works on.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde::Serialize;
use templex::sources::{HttpSource, LoadStats, MirrorSource, WarcSource};
use templex::{LoadError, Page, PageSource};
use tokio::sync::Semaphore;
use url::Url;

use crate::config::{Limits, ServerConfig};
use crate::error::{ApiError, StartError};
use crate::metrics::Metrics;

/// Pages listed per site by `/v1/sites` (the viewer's chooser); the total is always given.
const LISTED_PAGES: usize = 5_000;

/// One configured site, opened.
pub(crate) struct Site {
    pub(crate) id: usize,
    pub(crate) kind: &'static str,
    pub(crate) path: String,
    pub(crate) source: Arc<dyn PageSource>,
    /// Every page's URL, sorted (mirrors: files; WARCs: records).
    pub(crate) pages: Vec<Url>,
}

/// A configured site as `/v1/sites` lists it.
#[derive(Debug, Serialize)]
pub(crate) struct SiteInfo {
    pub(crate) id: usize,
    pub(crate) kind: &'static str,
    pub(crate) path: String,
    pub(crate) total_pages: usize,
    pub(crate) pages: Vec<String>,
}

/// A running server's state: open it with [`App::new`], serve [`App::router`].
pub struct App {
    pub(crate) sites: Vec<Site>,
    pub(crate) http: Option<Arc<HttpSource>>,
    pub(crate) limits: Limits,
    pub(crate) admission: Arc<Semaphore>,
    pub(crate) workers: Arc<Semaphore>,
    pub(crate) metrics: Metrics,
    pub(crate) started: Instant,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("sites", &self.sites.len())
            .field("fetch", &self.http.is_some())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Open every configured mirror and WARC file (WARCs are indexed once, here).
    pub fn new(config: ServerConfig) -> Result<App, StartError> {
        let mut sites = Vec::new();
        for s in &config.sites {
            let prefixes = if s.url_prefixes.is_empty() {
                // As the CLI does for `--site DIR`: the directory's name is the host.
                let name = s
                    .mirror
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                vec![name]
            } else {
                s.url_prefixes.clone()
            };
            let source =
                MirrorSource::new(&s.mirror, &prefixes).map_err(|e| StartError::Source {
                    what: "site mirror",
                    path: s.mirror.display().to_string(),
                    reason: e.to_string(),
                })?;
            let mut pages: Vec<Url> = source
                .html_files()
                .iter()
                .filter_map(|p| source.url_for_path(p))
                .collect();
            pages.sort();
            pages.dedup();
            sites.push(Site {
                id: sites.len(),
                kind: "mirror",
                path: s.mirror.display().to_string(),
                source: Arc::new(source),
                pages,
            });
        }
        for w in &config.warcs {
            let source = WarcSource::open(w).map_err(|e| StartError::Source {
                what: "WARC",
                path: w.display().to_string(),
                reason: e.to_string(),
            })?;
            let mut pages: Vec<Url> = source.urls().cloned().collect();
            pages.sort();
            pages.dedup();
            sites.push(Site {
                id: sites.len(),
                kind: "warc",
                path: w.display().to_string(),
                source: Arc::new(source),
                pages,
            });
        }
        let http = match config.fetch {
            Some(c) => Some(Arc::new(
                HttpSource::new(c).map_err(|e| StartError::Http(e.to_string()))?,
            )),
            None => None,
        };
        let limits = config.limits;
        Ok(App {
            sites,
            http,
            admission: Arc::new(Semaphore::new(limits.workers.max(1) + limits.queue)),
            workers: Arc::new(Semaphore::new(limits.workers.max(1))),
            limits,
            metrics: Metrics::new(),
            started: Instant::now(),
        })
    }

    pub(crate) fn site_infos(&self) -> Vec<SiteInfo> {
        self.sites
            .iter()
            .map(|s| SiteInfo {
                id: s.id,
                kind: s.kind,
                path: s.path.clone(),
                total_pages: s.pages.len(),
                pages: s
                    .pages
                    .iter()
                    .take(LISTED_PAGES)
                    .map(Url::to_string)
                    .collect(),
            })
            .collect()
    }

    /// The source holding `url`: the first configured site that has it, else the live web
    /// when fetching is on. A URL of a configured site's host that the site does not hold
    /// is not fetched.
    pub(crate) fn source_for(&self, url: &Url) -> Result<(Arc<dyn PageSource>, bool), ApiError> {
        if let Some(s) = self.sites.iter().find(|s| s.source.resolves(url)) {
            return Ok((s.source.clone(), false));
        }
        match &self.http {
            Some(h) if matches!(url.scheme(), "http" | "https") => {
                Ok((h.clone() as Arc<dyn PageSource>, true))
            }
            Some(_) => Err(ApiError::bad_request(format!(
                "{url}: only http(s) URLs are fetched"
            ))),
            None => Err(ApiError::not_found(format!(
                "{url} is not a page of a configured site, and fetching is off (templex serve --fetch)"
            ))),
        }
    }

    /// The configured source that holds `url`, if any (for a pasted page's siblings).
    pub(crate) fn site_source(&self, url: &Url) -> Option<Arc<dyn PageSource>> {
        self.sites
            .iter()
            .find(|s| s.source.resolves(url) || s.pages.first().is_some_and(|p| same_host(p, url)))
            .map(|s| s.source.clone())
    }
}

fn same_host(a: &Url, b: &Url) -> bool {
    a.host_str().is_some() && a.host_str() == b.host_str()
}

/// A source as one request sees it: its own load counts (the shared sources serve many
/// requests at once), and optionally a key page given by the client in front of it.
pub(crate) struct RequestSource {
    inner: Option<Arc<dyn PageSource>>,
    key: Option<Page>,
    attempts: AtomicUsize,
    loaded: AtomicUsize,
}

impl RequestSource {
    pub(crate) fn over(inner: Arc<dyn PageSource>) -> RequestSource {
        RequestSource {
            inner: Some(inner),
            key: None,
            attempts: AtomicUsize::new(0),
            loaded: AtomicUsize::new(0),
        }
    }

    /// A client's page at `url`, with `inner` (if any) for its siblings.
    pub(crate) fn with_key(
        url: Url,
        body: Vec<u8>,
        inner: Option<Arc<dyn PageSource>>,
    ) -> RequestSource {
        RequestSource {
            inner,
            key: Some(Page {
                url: url.clone(),
                final_url: url,
                body,
                charset: None,
                content_type: Some("text/html".into()),
            }),
            attempts: AtomicUsize::new(0),
            loaded: AtomicUsize::new(0),
        }
    }

    fn is_key(&self, url: &Url) -> bool {
        self.key.as_ref().is_some_and(|k| {
            let mut u = url.clone();
            u.set_fragment(None);
            k.url == u
        })
    }
}

impl PageSource for RequestSource {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        self.attempts.fetch_add(1, Ordering::Relaxed);
        let r = if self.is_key(url) {
            Ok(self.key.clone().expect("is_key checked it"))
        } else {
            match &self.inner {
                Some(s) => s.load(url),
                None => Err(LoadError::NotFound(url.to_string())),
            }
        };
        if r.is_ok() {
            self.loaded.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    fn resolves(&self, url: &Url) -> bool {
        self.is_key(url) || self.inner.as_ref().is_some_and(|s| s.resolves(url))
    }

    fn stats(&self) -> LoadStats {
        LoadStats {
            attempts: self.attempts.load(Ordering::Relaxed),
            loaded: self.loaded.load(Ordering::Relaxed),
        }
    }

    fn canonical_url(&self, url: &Url) -> Url {
        match &self.inner {
            Some(s) if !self.is_key(url) => s.canonical_url(url),
            _ => {
                let mut u = url.clone();
                u.set_fragment(None);
                u
            }
        }
    }

    fn page_urls(&self) -> Option<Vec<Url>> {
        // The live web lists nothing (pages are found through links); a listing source
        // lists the client's page too.
        let mut urls = match &self.inner {
            Some(s) => s.page_urls()?,
            None => Vec::new(),
        };
        if let Some(k) = &self.key {
            if !urls.contains(&k.url) {
                urls.push(k.url.clone());
            }
        }
        Some(urls)
    }
}
