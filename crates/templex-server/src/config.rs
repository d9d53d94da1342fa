//! What a server serves and within which limits.

use std::path::PathBuf;
use std::time::Duration;

use templex::Budget;
use templex::sources::HttpConfig;

/// A site mirror directory and the URL prefixes that map to its root.
#[derive(Debug, Clone)]
pub struct SiteConfig {
    /// The mirror's root directory. Pages are read from below it only.
    pub mirror: PathBuf,
    /// URL prefixes (`https://host/path/`, `host/path`); empty: the directory's name is the
    /// host, as `templex template --site` does.
    pub url_prefixes: Vec<String>,
}

/// Limits that keep one client from taking the server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request body, in bytes (413 beyond).
    pub max_body: usize,
    /// Time limit of one request, queueing included (504 beyond).
    pub timeout: Duration,
    /// Requests worked on at once (each on a blocking thread).
    pub workers: usize,
    /// Requests waiting for a worker; beyond this the server answers 503 at once.
    pub queue: usize,
    /// What one page may cost (bytes, nodes, time): a page over it is answered with an
    /// error naming the limit, and frees its worker.
    pub budget: Budget,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 16 * 1024 * 1024,
            timeout: Duration::from_secs(60),
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 256,
            budget: Budget::DEFAULT,
        }
    }
}

/// Everything [`App::new`](crate::App::new) opens.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// Site mirrors.
    pub sites: Vec<SiteConfig>,
    /// WARC files; each is one site (or several hosts) of pages.
    pub warcs: Vec<PathBuf>,
    /// Live fetching of URLs that no configured site holds; `None` (the default): off, such
    /// URLs are answered 404. The SSRF guard of [`HttpConfig`] applies to every fetch and
    /// redirect.
    pub fetch: Option<HttpConfig>,
    /// Request limits.
    pub limits: Limits,
}
