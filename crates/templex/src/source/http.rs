//! Live HTTP page source.
//!
//! Fetching other people's sites carries obligations, so this source is deliberately
//! conservative:
//!
//! * robots.txt is honoured (RFC 9309), including `Crawl-delay`;
//! * requests to one host are spaced by at least [`HttpConfig::min_delay`];
//! * bodies, redirect chains and waiting times are bounded;
//! * loopback, private, link-local and other non-public addresses are refused unless
//!   [`HttpConfig::allow_private`] is set, so that a URL taken from a page cannot make
//!   templex probe the network it runs in (SSRF).
//!
//! The address check runs after DNS resolution, on every redirect hop and on robots.txt
//! fetches. The client never resolves names itself: a pinning resolver hands reqwest only
//! the addresses that passed the check, so a DNS answer that changes between the check
//! and the connection (DNS rebinding) cannot slip past it.
//!
//! [`HttpFetcher`] is the async core, for use inside a tokio runtime; [`HttpSource`] wraps
//! it behind the synchronous [`PageSource`] trait with a runtime of its own.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use texting_robots::Robot;
use tokio::sync::OnceCell;
use tokio::time::Instant;
use tracing::{debug, warn};
use url::{Host, Url};

use guard::{MAX_TRACKED_HOSTS, PinnedResolver, is_public_ip};

use super::{
    LoadCounter, LoadError, LoadStats, Page, PageSource, is_html_media_type, parse_content_type,
};

/// Redirects followed when fetching robots.txt; RFC 9309 asks for at least five.
const ROBOTS_MAX_REDIRECTS: usize = 5;

/// Bytes of robots.txt parsed; RFC 9309 requires at least 500 KiB and allows ignoring the rest.
const ROBOTS_MAX_BYTES: usize = 512 * 1024;

/// Settings for `HttpFetcher` and [`HttpSource`].
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `User-Agent` header. Its product token (the text before the first `/` or space) is
    /// the agent name matched against robots.txt groups.
    /// Default: `templex/<version> (+https://github.com/templex; template extraction)`.
    pub user_agent: String,
    /// Minimum time between the end of one request to a host and the start of the next.
    /// Default: 1 s.
    pub min_delay: Duration,
    /// Upper bound on a robots.txt `Crawl-delay`, so one site cannot stall a run.
    /// Default: 30 s.
    pub max_crawl_delay: Duration,
    /// Limit on DNS resolution and on establishing a connection. Default: 10 s.
    pub connect_timeout: Duration,
    /// Limit on one request, from sending it to the last body byte. Default: 30 s.
    pub timeout: Duration,
    /// Largest body accepted, in bytes, after content decoding. Default: 10 MiB.
    pub max_body: usize,
    /// Redirects followed before giving up. Default: 10.
    pub max_redirects: usize,
    /// Permit loopback, private, link-local and other non-public addresses. Default: false.
    pub allow_private: bool,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            user_agent: format!(
                "templex/{} (+https://github.com/templex; template extraction)",
                env!("CARGO_PKG_VERSION")
            ),
            min_delay: Duration::from_secs(1),
            max_crawl_delay: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body: 10 * 1024 * 1024,
            max_redirects: 10,
            allow_private: false,
        }
    }
}

impl HttpConfig {
    /// The robots.txt agent name: the product token of [`user_agent`](Self::user_agent).
    pub fn robots_agent(&self) -> &str {
        self.user_agent
            .split(|c: char| c == '/' || c.is_whitespace())
            .next()
            .filter(|t| !t.is_empty())
            .unwrap_or("templex")
    }
}

/// The HTTP client could not be created.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the HTTP client: {0}")]
pub struct HttpSetupError(String);

/// What robots.txt says about one origin.
#[derive(Debug)]
struct RobotsRules {
    policy: RobotsPolicy,
    crawl_delay: Option<Duration>,
}

#[derive(Debug)]
enum RobotsPolicy {
    AllowAll,
    DisallowAll,
    Rules(Robot),
}

impl RobotsRules {
    fn allow_all() -> Self {
        Self {
            policy: RobotsPolicy::AllowAll,
            crawl_delay: None,
        }
    }

    fn disallow_all() -> Self {
        Self {
            policy: RobotsPolicy::DisallowAll,
            crawl_delay: None,
        }
    }

    fn allows(&self, url: &Url) -> bool {
        match &self.policy {
            RobotsPolicy::AllowAll => true,
            RobotsPolicy::DisallowAll => false,
            RobotsPolicy::Rules(robot) => robot.allowed(url.as_str()),
        }
    }
}

/// Lock a mutex, shrugging off poisoning: the tables it guards stay consistent even if a
/// holder panicked, and a fetcher must not panic on account of another thread.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The async HTTP fetcher behind [`HttpSource`]; use it directly from async code.
///
/// One fetcher should serve a whole run: it caches robots.txt per origin and keeps the
/// per-host politeness schedule, both of which only work if requests share it.
/// robots.txt is fetched once per origin and kept for the fetcher's lifetime, including a
/// "disallow all" verdict after a failed fetch; make a new fetcher to look again.
pub struct HttpFetcher {
    config: HttpConfig,
    client: reqwest::Client,
    resolver: Arc<PinnedResolver>,
    /// robots.txt per origin, fetched once; the cell makes concurrent first requests to an
    /// origin wait for one fetch instead of each fetching.
    robots: Mutex<HashMap<String, Arc<OnceCell<Arc<RobotsRules>>>>>,
    /// Per host, when the last request ended. Holding the async lock is holding the
    /// host's turn, so requests to one host never overlap and are always spaced.
    hosts: Mutex<HashMap<String, HostTurn>>,
}

impl fmt::Debug for HttpFetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpFetcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

type HostTurn = Arc<tokio::sync::Mutex<Option<Instant>>>;

/// A host's turn to be contacted; ending it (however the request ends) starts the pause.
struct SlotGuard {
    last_end: tokio::sync::OwnedMutexGuard<Option<Instant>>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        // Spacing runs from the end of a request, so a slow server gets its full pause
        // between requests rather than none.
        *self.last_end = Some(Instant::now());
    }
}

/// How a single request ended, before body handling.
enum Hop {
    Redirect(Url),
    Done(reqwest::Response),
}

impl HttpFetcher {
    /// A fetcher with the given settings.
    pub fn new(config: HttpConfig) -> Result<Self, HttpSetupError> {
        let resolver = Arc::new(PinnedResolver::default());
        // reqwest is built without a crypto provider (aws-lc-rs is a long C build): ring's
        // is installed as the process default unless the embedder installed one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            // Redirects are followed by hand so every hop gets the scheme, address and
            // robots checks.
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would connect on our behalf and make the address check meaningless.
            .no_proxy()
            .dns_resolver(Arc::clone(&resolver))
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .build()
            .map_err(|e| HttpSetupError(error_chain(&e)))?;
        Ok(Self {
            config,
            client,
            resolver,
            robots: Mutex::new(HashMap::new()),
            hosts: Mutex::new(HashMap::new()),
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// Fetch the HTML page at `url`, following redirects.
    ///
    /// May wait for the host's politeness delay first, and fetches robots.txt on the first
    /// request to an origin (that fetch counts as a request to the host for spacing).
    pub async fn fetch(&self, url: &Url) -> Result<Page, LoadError> {
        let mut current = url.clone();
        let mut seen = HashSet::from([without_fragment(&current)]);
        let mut redirects = 0;
        loop {
            check_scheme(&current)?;
            self.vet_host(&current).await?;
            let robots = self.robots_for(&current).await;
            if !robots.allows(&current) {
                warn!(url = %current, "robots.txt disallows URL; not fetching");
                return Err(LoadError::RobotsDisallowed(current.to_string()));
            }
            let delay = robots
                .crawl_delay
                .map_or(self.config.min_delay, |d| d.max(self.config.min_delay));
            let slot = self.wait_turn(&current, delay).await;
            let deadline = Instant::now() + self.config.timeout;
            debug!(url = %current, redirects, "HTTP GET");
            let response = match self.send(&current, deadline).await? {
                Hop::Redirect(next) => {
                    drop(slot);
                    redirects += 1;
                    if redirects > self.config.max_redirects
                        || !seen.insert(without_fragment(&next))
                    {
                        warn!(url = %url, at = %next, redirects, "redirect loop or too many redirects");
                        return Err(LoadError::TooManyRedirects(next.to_string()));
                    }
                    debug!(from = %current, to = %next, "following redirect");
                    current = next;
                    continue;
                }
                Hop::Done(response) => response,
            };
            let page = self.read_page(url, &current, response, deadline).await;
            drop(slot);
            return page;
        }
    }

    /// Send one GET; classify redirects and error statuses.
    async fn send(&self, url: &Url, deadline: Instant) -> Result<Hop, LoadError> {
        let request = self
            .client
            .get(url.clone())
            .header(
                ACCEPT,
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5",
            )
            .send();
        let response = match tokio::time::timeout_at(deadline, request).await {
            Err(_) => return Err(LoadError::Timeout(url.to_string())),
            Ok(result) => result.map_err(|e| map_reqwest_error(url, &e))?,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(Hop::Done(response));
        }
        if is_redirect(status) {
            if let Some(next) = redirect_target(url, &response) {
                return Ok(Hop::Redirect(next));
            }
        }
        debug!(url = %url, status = status.as_u16(), "HTTP error status");
        Err(match status {
            StatusCode::NOT_FOUND | StatusCode::GONE => LoadError::NotFound(url.to_string()),
            _ => LoadError::Status {
                url: url.to_string(),
                status: status.as_u16(),
            },
        })
    }

    /// Check the content type and read the body within the size and time limits.
    async fn read_page(
        &self,
        requested: &Url,
        final_url: &Url,
        mut response: reqwest::Response,
        deadline: Instant,
    ) -> Result<Page, LoadError> {
        let (media, charset) = match response.headers().get(CONTENT_TYPE) {
            Some(value) => {
                let (media, charset) =
                    parse_content_type(&String::from_utf8_lossy(value.as_bytes()));
                (Some(media), charset)
            }
            None => (None, None),
        };
        if let Some(media) = &media {
            if !is_html_media_type(media) {
                debug!(url = %final_url, content_type = %media, "not HTML; skipping");
                return Err(LoadError::NotHtml {
                    url: final_url.to_string(),
                    content_type: media.clone(),
                });
            }
        }
        let limit = self.config.max_body;
        let too_large = || {
            warn!(url = %final_url, limit, "body exceeds size limit; abandoned");
            LoadError::TooLarge {
                url: final_url.to_string(),
                limit,
            }
        };
        let declared = response.content_length();
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        let capacity = declared.map_or(0, |n| (n as usize).min(limit).min(1 << 20));
        let body = read_limited(&mut response, final_url, limit, deadline, capacity)
            .await?
            .ok_or_else(too_large)?;
        Ok(Page {
            url: requested.clone(),
            final_url: final_url.clone(),
            body,
            charset,
            content_type: media.filter(|m| !m.is_empty()),
        })
    }

    /// Resolve the URL's host, refuse non-public addresses, and pin what was checked.
    async fn vet_host(&self, url: &Url) -> Result<(), LoadError> {
        let refuse = |ip: IpAddr| -> Result<(), LoadError> {
            if self.config.allow_private || is_public_ip(ip) {
                return Ok(());
            }
            warn!(url = %url, addr = %ip, "refusing non-public address");
            Err(LoadError::PrivateAddress {
                url: url.to_string(),
                addr: ip.to_string(),
            })
        };
        match url.host() {
            None => Err(LoadError::Unsupported(url.to_string())),
            Some(Host::Ipv4(ip)) => refuse(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => refuse(IpAddr::V6(ip)),
            Some(Host::Domain(domain)) => {
                let port = url.port_or_known_default().unwrap_or(80);
                let lookup = tokio::net::lookup_host((domain, port));
                let addrs: Vec<SocketAddr> =
                    match tokio::time::timeout(self.config.connect_timeout, lookup).await {
                        Err(_) => return Err(LoadError::Timeout(url.to_string())),
                        Ok(Err(e)) => {
                            return Err(LoadError::Network {
                                url: url.to_string(),
                                message: format!("cannot resolve {domain}: {e}"),
                            });
                        }
                        Ok(Ok(addrs)) => addrs.collect(),
                    };
                if addrs.is_empty() {
                    return Err(LoadError::Network {
                        url: url.to_string(),
                        message: format!("{domain} has no addresses"),
                    });
                }
                // Every address must pass: the client may connect to any of them.
                for addr in &addrs {
                    refuse(addr.ip())?;
                }
                self.resolver.pin(domain, addrs);
                Ok(())
            }
        }
    }

    /// Wait for the host's turn and its politeness pause; the turn lasts until the
    /// returned guard is dropped.
    async fn wait_turn(&self, url: &Url, delay: Duration) -> SlotGuard {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let turn = {
            let mut hosts = lock(&self.hosts);
            if hosts.len() >= MAX_TRACKED_HOSTS {
                let now = Instant::now();
                let horizon = self.config.min_delay.max(self.config.max_crawl_delay);
                // Keep hosts in use or still within their pause.
                hosts.retain(|_, turn| {
                    Arc::strong_count(turn) > 1
                        || turn
                            .try_lock()
                            .map_or(true, |end| end.is_some_and(|end| end + horizon > now))
                });
            }
            Arc::clone(hosts.entry(host.clone()).or_default())
        };
        let last_end = turn.lock_owned().await;
        if let Some(start) = last_end.map(|end| end + delay) {
            let wait = start.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                debug!(host = %host, wait_ms = wait.as_millis() as u64, "politeness delay");
                tokio::time::sleep_until(start).await;
            }
        }
        SlotGuard { last_end }
    }

    /// The robots.txt rules for the URL's origin, fetching them on first use.
    async fn robots_for(&self, url: &Url) -> Arc<RobotsRules> {
        let origin = url.origin().ascii_serialization();
        let cell = {
            let mut robots = lock(&self.robots);
            if robots.len() >= MAX_TRACKED_HOSTS && !robots.contains_key(&origin) {
                robots.clear();
            }
            Arc::clone(robots.entry(origin).or_default())
        };
        Arc::clone(cell.get_or_init(|| self.fetch_robots(url)).await)
    }

    /// Fetch and interpret robots.txt as RFC 9309 prescribes: a 4xx means no rules; a 5xx
    /// or an unreachable server means the whole site is off limits.
    async fn fetch_robots(&self, page_url: &Url) -> Arc<RobotsRules> {
        let mut current = page_url.clone();
        current.set_path("/robots.txt");
        current.set_query(None);
        current.set_fragment(None);
        // Credentials belong to the page request, not to robots.txt.
        let _ = current.set_username("");
        let _ = current.set_password(None);
        let mut seen = HashSet::from([current.to_string()]);
        for _ in 0..=ROBOTS_MAX_REDIRECTS {
            if check_scheme(&current).is_err() {
                debug!(url = %current, "robots.txt redirects off the web; treating as absent");
                return Arc::new(RobotsRules::allow_all());
            }
            if let Err(e) = self.vet_host(&current).await {
                warn!(url = %current, error = %e, "robots.txt unreachable; disallowing origin");
                return Arc::new(RobotsRules::disallow_all());
            }
            let slot = self.wait_turn(&current, self.config.min_delay).await;
            let deadline = Instant::now() + self.config.timeout;
            debug!(url = %current, "fetching robots.txt");
            let response = match self.send(&current, deadline).await {
                Ok(Hop::Redirect(next)) => {
                    if !seen.insert(next.to_string()) {
                        break;
                    }
                    current = next;
                    continue;
                }
                Ok(Hop::Done(response)) => response,
                Err(LoadError::NotFound(_)) => return Arc::new(RobotsRules::allow_all()),
                // 429 is a 4xx, but it means "slow down", not "no robots.txt".
                Err(LoadError::Status { status, .. })
                    if (400..500).contains(&status) && status != 429 =>
                {
                    return Arc::new(RobotsRules::allow_all());
                }
                Err(e) => {
                    warn!(url = %current, error = %e, "robots.txt unavailable; disallowing origin");
                    return Arc::new(RobotsRules::disallow_all());
                }
            };
            let mut response = response;
            let body = match read_truncated(&mut response, &current, ROBOTS_MAX_BYTES, deadline)
                .await
            {
                Ok(body) => body,
                Err(e) => {
                    warn!(url = %current, error = %e, "robots.txt unreadable; disallowing origin");
                    return Arc::new(RobotsRules::disallow_all());
                }
            };
            drop(slot);
            return Arc::new(self.parse_robots(&current, &body));
        }
        debug!(url = %current, "robots.txt redirects too often; treating as absent");
        Arc::new(RobotsRules::allow_all())
    }

    fn parse_robots(&self, url: &Url, body: &[u8]) -> RobotsRules {
        match Robot::new(self.config.robots_agent(), body) {
            Ok(robot) => {
                let cap = self.config.max_crawl_delay;
                // `try_from` because the value is the site's to choose: huge or infinite
                // delays would make the infallible conversion panic.
                let crawl_delay = robot
                    .delay
                    .filter(|d| *d > 0.0)
                    .map(|d| Duration::try_from_secs_f32(d).map_or(cap, |d| d.min(cap)));
                debug!(url = %url, ?crawl_delay, "robots.txt loaded");
                RobotsRules {
                    policy: RobotsPolicy::Rules(robot),
                    crawl_delay,
                }
            }
            Err(e) => {
                // The parser rejects only badly broken files; RFC 9309 has crawlers use the
                // rules they can parse, which here is none.
                warn!(url = %url, error = %e, "robots.txt unparseable; ignoring it");
                RobotsRules::allow_all()
            }
        }
    }
}

/// Read a body, or `None` once it exceeds `limit` (without reading further).
async fn read_limited(
    response: &mut reqwest::Response,
    url: &Url,
    limit: usize,
    deadline: Instant,
    capacity: usize,
) -> Result<Option<Vec<u8>>, LoadError> {
    let mut body = Vec::with_capacity(capacity);
    while let Some(chunk) = next_chunk(response, url, deadline).await? {
        if chunk.len() > limit - body.len() {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// Read at most `limit` bytes of a body, dropping the rest.
async fn read_truncated(
    response: &mut reqwest::Response,
    url: &Url,
    limit: usize,
    deadline: Instant,
) -> Result<Vec<u8>, LoadError> {
    let mut body = Vec::new();
    while let Some(chunk) = next_chunk(response, url, deadline).await? {
        let room = limit - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() == limit {
            break;
        }
    }
    Ok(body)
}

async fn next_chunk(
    response: &mut reqwest::Response,
    url: &Url,
    deadline: Instant,
) -> Result<Option<impl std::ops::Deref<Target = [u8]>>, LoadError> {
    match tokio::time::timeout_at(deadline, response.chunk()).await {
        Err(_) => Err(LoadError::Timeout(url.to_string())),
        Ok(result) => result.map_err(|e| map_reqwest_error(url, &e)),
    }
}

fn check_scheme(url: &Url) -> Result<(), LoadError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        _ => {
            warn!(url = %url, "only http and https URLs are fetched");
            Err(LoadError::Unsupported(url.to_string()))
        }
    }
}

fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

fn redirect_target(url: &Url, response: &reqwest::Response) -> Option<Url> {
    let location = response.headers().get(LOCATION)?;
    let location = String::from_utf8_lossy(location.as_bytes());
    url.join(location.trim()).ok()
}

fn without_fragment(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.into()
}

fn map_reqwest_error(url: &Url, err: &reqwest::Error) -> LoadError {
    if err.is_timeout() {
        LoadError::Timeout(url.to_string())
    } else {
        LoadError::Network {
            url: url.to_string(),
            message: error_chain(err),
        }
    }
}

/// reqwest's top-level messages are vague ("error sending request"); the cause is below.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// Live HTTP [`PageSource`]: an `HttpFetcher` driven by a runtime of its own.
///
/// For async callers, use `HttpFetcher` directly instead of blocking a runtime thread.
pub struct HttpSource {
    fetcher: Arc<HttpFetcher>,
    /// Always `Some` until drop; an `Option` so drop can shut it down without blocking.
    runtime: Option<tokio::runtime::Runtime>,
    counter: LoadCounter,
}

impl fmt::Debug for HttpSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSource")
            .field("fetcher", &self.fetcher)
            .field("stats", &self.counter.stats())
            .finish_non_exhaustive()
    }
}

impl HttpSource {
    /// A source with the given settings.
    pub fn new(config: HttpConfig) -> Result<Self, HttpSetupError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("templex-http")
            .enable_all()
            .build()
            .map_err(|e| HttpSetupError(format!("tokio runtime: {e}")))?;
        // The client must be built inside the runtime it will run on.
        let fetcher = {
            let _guard = runtime.enter();
            HttpFetcher::new(config)?
        };
        Ok(Self {
            fetcher: Arc::new(fetcher),
            runtime: Some(runtime),
            counter: LoadCounter::default(),
        })
    }

    /// The async fetcher, sharing this source's robots cache and politeness schedule.
    pub fn fetcher(&self) -> &Arc<HttpFetcher> {
        &self.fetcher
    }

    fn fetch_blocking(&self, url: &Url) -> Result<Page, LoadError> {
        let failed = |message: &str| LoadError::Network {
            url: url.to_string(),
            message: message.to_string(),
        };
        let Some(runtime) = &self.runtime else {
            return Err(failed("HTTP runtime is shut down"));
        };
        // Spawning and waiting on a plain channel, rather than `block_on`, works even when
        // the caller is itself inside an async runtime (where `block_on` would panic).
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let fetcher = Arc::clone(&self.fetcher);
        let task_url = url.clone();
        runtime.spawn(async move {
            let _ = tx.send(fetcher.fetch(&task_url).await);
        });
        rx.recv()
            .unwrap_or_else(|_| Err(failed("fetch task ended without a result")))
    }
}

impl PageSource for HttpSource {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        let result = self.fetch_blocking(url);
        self.counter.record(&result);
        result
    }

    fn stats(&self) -> LoadStats {
        self.counter.stats()
    }
}

impl Drop for HttpSource {
    fn drop(&mut self) {
        // Dropping a runtime normally blocks, which panics inside async code.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

mod guard;
#[cfg(test)]
mod tests;
