//! `templex serve`: the HTTP API and the viewer (the `templex-server` crate) on an address.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{ArgMatches, Args};
use templex::sources::HttpConfig;
use templex_server::{App, Limits, ServerConfig, SiteConfig};

use crate::input::BudgetArgs;

/// Arguments of `templex serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Binding beyond loopback exposes the API to the network.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// A site mirror directory to serve (repeatable); its URL prefixes follow it.
    #[arg(long, value_name = "DIR")]
    pub site: Vec<PathBuf>,

    /// URL prefixes of the --site just before (repeatable; default: the directory's name).
    #[arg(long = "url-prefix", value_name = "PREFIX")]
    pub url_prefix: Vec<String>,

    /// A WARC file (.warc or .warc.gz) whose pages are served (repeatable).
    #[arg(long, value_name = "FILE")]
    pub warc: Vec<PathBuf>,

    /// Fetch live URLs that no configured site holds (polite: robots.txt, delays, size and
    /// time limits; private and loopback addresses refused).
    #[arg(long)]
    pub fetch: bool,

    /// With --fetch: allow loopback, private and link-local addresses.
    #[arg(long, requires = "fetch")]
    pub allow_private: bool,

    /// With --fetch: minimum delay between requests to one host, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub delay_ms: u64,

    /// Largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_body)]
    pub max_body: usize,

    /// Time limit per request, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().timeout.as_secs())]
    pub timeout: u64,

    /// Requests worked on at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,

    /// Requests waiting for a worker before the server answers 503.
    #[arg(long, value_name = "N", default_value_t = Limits::default().queue)]
    pub queue: usize,

    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// Each --url-prefix belongs to the --site given before it (clap keeps the positions of
/// repeated options).
fn sites(args: &ServeArgs, matches: &ArgMatches) -> Vec<SiteConfig> {
    let site_at: Vec<usize> = matches
        .indices_of("site")
        .map(|i| i.collect())
        .unwrap_or_default();
    let prefix_at: Vec<usize> = matches
        .indices_of("url_prefix")
        .map(|i| i.collect())
        .unwrap_or_default();
    args.site
        .iter()
        .enumerate()
        .map(|(k, dir)| {
            let from = site_at.get(k).copied().unwrap_or(usize::MAX);
            let to = site_at.get(k + 1).copied().unwrap_or(usize::MAX);
            SiteConfig {
                mirror: dir.clone(),
                url_prefixes: args
                    .url_prefix
                    .iter()
                    .zip(&prefix_at)
                    .filter(|(_, at)| (from..to).contains(*at))
                    .map(|(p, _)| p.clone())
                    .collect(),
            }
        })
        .collect()
}

/// Run the server until SIGINT or SIGTERM.
pub fn run(args: ServeArgs, matches: &ArgMatches) -> Result<ExitCode> {
    if let (Some(first_prefix), Some(first_site)) = (
        matches.indices_of("url_prefix").and_then(|mut i| i.next()),
        matches.indices_of("site").and_then(|mut i| i.next()),
    ) {
        if first_prefix < first_site {
            anyhow::bail!("--url-prefix belongs to the --site before it; give --site first");
        }
    }
    let config = ServerConfig {
        sites: sites(&args, matches),
        warcs: args.warc.clone(),
        fetch: args.fetch.then(|| HttpConfig {
            allow_private: args.allow_private,
            min_delay: Duration::from_millis(args.delay_ms),
            ..HttpConfig::default()
        }),
        limits: Limits {
            max_body: args.max_body,
            timeout: Duration::from_secs(args.timeout.max(1)),
            workers: args.workers.unwrap_or(Limits::default().workers).max(1),
            queue: args.queue,
            budget: args.budget.budget(),
        },
    };
    let workers = config.limits.workers;
    let app = Arc::new(App::new(config)?);
    // The engine runs on blocking threads, `workers` at a time. Kept few and alive, the same
    // threads do all the work, so their allocator heaps are reused: threads that come and go
    // leave their freed pages behind, and memory at rest grew to twice as much.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(workers + 2)
        .thread_keep_alive(Duration::from_secs(3600))
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let local = listener.local_addr()?;
        // The one line scripts and tests wait for.
        eprintln!("templex: serving on http://{local}/");
        templex_server::serve(listener, app, templex_server::shutdown_signal())
            .await
            .context("the server failed")
    })?;
    Ok(ExitCode::SUCCESS)
}
