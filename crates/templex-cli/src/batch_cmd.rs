//! `templex batch`, `templex store` and `templex warc`: crawl-scale runs, the template store
//! they fill, and WARC files from site mirrors.

use crate::input::{BudgetArgs, FingerprintArgs};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use templex::Method;
use templex::batch::{
    BATCH_METHODS, BatchConfig, BatchInput, OutputFile, Progress, PruneOptions, TemplateStore,
};
use templex::page_level::SiteLevelConfig;

use crate::template_cmd::method_parser;

/// What each method does in a batch run, for `--help`.
fn describe_batch(m: Method) -> &'static str {
    match m {
        Method::HybEx => {
            "HybEx against a pool of 8 sample pages per template cluster: each page is mapped to \
             the pool pages least like it that pass the template guard, which vote"
        }
        Method::SiteLevel => {
            "SITELEVEL: node hashes recurring on a sample of each template cluster"
        }
        Method::TableChunk => "Table text chunks recurring on a sample of each template cluster",
        Method::MainContent => "No learning: the page-level content extractor on every page",
        _ => "not a batch method",
    }
}

/// Arguments of `templex batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// WARC files (.warc, .warc.gz), site mirror directories (`DIR=PREFIX` gives a mirror
    /// its own URL prefix), HTML files; `@LIST` reads more inputs from a file, one per line.
    #[arg(required = true)]
    pub inputs: Vec<String>,

    /// Output: one JSON line per input record.
    #[arg(long, value_name = "FILE.jsonl")]
    pub out: PathBuf,

    #[command(flatten)]
    pub budget: BudgetArgs,

    /// No content fingerprints in the records.
    #[arg(long)]
    pub no_fingerprint: bool,

    #[command(flatten)]
    pub fingerprint: FingerprintArgs,

    /// The template store (SQLite; created if missing).
    #[arg(long, value_name = "FILE", default_value = "templates.sqlite")]
    pub store: PathBuf,

    /// Site URL prefixes for mirror directories (default: the directory name as host).
    #[arg(long = "url-prefix", value_name = "PREFIX", num_args = 1..)]
    pub url_prefix: Vec<String>,

    /// How each template cluster learns its template (`maincontent`: no learning, the
    /// page-level content extractor on every page).
    #[arg(long, default_value = "tablechunk", value_parser = method_parser(&BATCH_METHODS, describe_batch))]
    pub method: Method,

    /// Pages of a new cluster its template is learned from.
    #[arg(long, value_name = "N", default_value_t = BatchConfig::default().sample_pages)]
    pub sample_pages: usize,

    /// Fewest pages a cluster needs to get a template.
    #[arg(long, value_name = "N", default_value_t = BatchConfig::default().min_pages)]
    pub min_pages: usize,

    /// SITELEVEL θ.
    #[arg(long, value_name = "θ", default_value_t = SiteLevelConfig::default().theta)]
    pub theta: f64,

    /// Megabytes the learning rounds may hold (pages waiting for their templates).
    #[arg(long, value_name = "MB", default_value_t = BatchConfig::default().sample_memory >> 20)]
    pub sample_memory: usize,

    /// Records a page may wait for its site's learning round to end (outputs are held as
    /// long).
    #[arg(long, value_name = "N", default_value_t = BatchConfig::default().window)]
    pub window: usize,

    /// Keep the page-level detector's main content out of SITELEVEL and table-chunk
    /// templates (HybEx's page-level step; costs a page-level pass per page).
    #[arg(long)]
    pub protect: bool,

    /// Write each page's content as Markdown too (a `markdown` field beside `text`).
    #[arg(long)]
    pub markdown: bool,
    /// Also write the page minus its template (a `rest` field beside `text`): everything the
    /// site does not repeat, comments, related lists and teasers included.
    #[arg(long)]
    pub rest: bool,

    /// Pages parsed in parallel at a time (memory grows with it).
    #[arg(long, value_name = "N", default_value_t = BatchConfig::default().chunk)]
    pub chunk: usize,

    /// Pages of a learning round's sample (spread evenly over the round) that are
    /// clustered and learned from.
    #[arg(long, value_name = "N", default_value_t = BatchConfig::default().site_sample)]
    pub site_sample: usize,

    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Learn the sites' templates again even if the store has them (a new version).
    #[arg(long)]
    pub relearn: bool,

    /// Continue an interrupted run: keep the output's complete lines and go on.
    #[arg(long, conflicts_with = "overwrite")]
    pub resume: bool,

    /// Replace an existing output file.
    #[arg(long)]
    pub overwrite: bool,
}

fn expand(inputs: &[String], prefixes: &[String]) -> Result<Vec<BatchInput>> {
    let mut out = Vec::new();
    for i in inputs {
        if let Some(list) = i.strip_prefix('@') {
            let text = std::fs::read_to_string(list)
                .with_context(|| format!("cannot read input list {list}"))?;
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                out.push(one_input(line, prefixes));
            }
        } else {
            out.push(one_input(i, prefixes));
        }
    }
    Ok(out)
}

/// `DIR=PREFIX` is a mirror with its own prefix; anything else is classified by its path.
fn one_input(arg: &str, prefixes: &[String]) -> BatchInput {
    if let Some((dir, prefix)) = arg.split_once('=') {
        if std::path::Path::new(dir).is_dir() {
            return BatchInput::Mirror {
                dir: dir.into(),
                prefixes: vec![prefix.to_string()],
            };
        }
    }
    BatchInput::from_path(arg, prefixes)
}

/// Run `templex batch`.
pub fn run(args: BatchArgs) -> Result<ExitCode> {
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .context("cannot start worker threads")?;
    }
    let inputs = expand(&args.inputs, &args.url_prefix)?;
    let exists = std::fs::metadata(&args.out).is_ok_and(|m| m.len() > 0);
    if exists && !args.resume && !args.overwrite {
        bail!(
            "{} exists: --resume to continue an interrupted run, --overwrite to start over",
            args.out.display()
        );
    }
    let mut out = if args.resume {
        OutputFile::resume(&args.out)
    } else {
        OutputFile::create(&args.out)
    }
    .with_context(|| format!("cannot open {}", args.out.display()))?;
    let mut store = TemplateStore::open(&args.store)
        .with_context(|| format!("cannot open template store {}", args.store.display()))?;
    let config = BatchConfig {
        method: args.method,
        sample_pages: args.sample_pages,
        site_sample: args.site_sample,
        chunk: args.chunk.max(1),
        min_pages: args.min_pages,
        sitelevel: SiteLevelConfig {
            theta: args.theta,
            ..SiteLevelConfig::default()
        },
        sample_memory: args.sample_memory << 20,
        window: args.window.max(1),
        relearn: args.relearn,
        protect_content: args.protect,
        markdown: args.markdown,
        rest: args.rest,
        budget: args.budget.budget(),
        fingerprint: (!args.no_fingerprint).then(|| args.fingerprint.config()),
        ..BatchConfig::default()
    };
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {pos} records written, {msg} read {elapsed} ({per_sec})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let progress = |p: Progress| match p {
        Progress::Records { read, written } => {
            bar.set_position(written);
            bar.set_message(read.to_string());
        }
    };
    let summary = templex::batch::run(&inputs, &config, &mut store, &mut out, &progress)?;
    bar.finish_and_clear();
    eprintln!(
        "{} records ({} written now, {} errors) from {} sites: {} templates learned, {} reused, {} clusters too small{}; learn {:.1} s, apply {:.1} s; methods {:?}",
        summary.records,
        summary.written,
        summary.errors,
        summary.sites,
        summary.learned,
        summary.reused,
        summary.too_small,
        if summary.resumed { ", resumed" } else { "" },
        summary.learn_time.as_secs_f64(),
        summary.apply_time.as_secs_f64(),
        summary.methods
    );
    Ok(if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Arguments of `templex store`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The template store.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "templates.sqlite",
        global = true
    )]
    pub store: PathBuf,

    #[command(subcommand)]
    pub command: StoreCommand,
}

/// `templex store` subcommands.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// One line per stored template (site, cluster, method, version, pages, created).
    List {
        /// Only this site.
        #[arg(long)]
        site: Option<String>,
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// A site's current templates in detail.
    Show {
        /// The site (registrable domain).
        site: String,
    },
    /// Remove templates by site, age or version; or, with --stale, the templates this
    /// templex refuses to read (another hash scheme, or models of another codec scheme).
    Prune {
        /// Remove every template and run hashed under another hash scheme than this
        /// templex's (stores of earlier templex versions), or else the templates whose models
        /// are of another codec scheme and the runs that stored them; their sites are
        /// learned again by the next batch run.
        #[arg(long, conflicts_with_all = ["site", "older_than", "keep_versions"])]
        stale: bool,
        /// Only this site.
        #[arg(long)]
        site: Option<String>,
        /// Templates created more than this many days ago.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<f64>,
        /// Keep only the newest N versions of each site.
        #[arg(long, value_name = "N")]
        keep_versions: Option<u32>,
        /// Say what would go, delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// Run `templex store`.
pub fn run_store(args: StoreArgs) -> Result<ExitCode> {
    if !args.store.exists() {
        bail!("no template store at {}", args.store.display());
    }
    if let StoreCommand::Prune {
        stale: true,
        dry_run,
        ..
    } = args.command
    {
        // The one command that opens a store of another hash or model scheme.
        let n = TemplateStore::remove_stale(&args.store, dry_run)
            .with_context(|| format!("cannot open template store {}", args.store.display()))?;
        crate::print_stdout(format_args!(
            "{} {n} templates of another hash or model scheme\n",
            if dry_run { "would remove" } else { "removed" }
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut store = TemplateStore::open(&args.store)
        .with_context(|| format!("cannot open template store {}", args.store.display()))?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    match args.command {
        StoreCommand::List { site, json } => {
            let rows = store.list(site.as_deref())?;
            if json {
                serde_json::to_writer_pretty(&mut w, &rows)?;
                writeln!(w)?;
            } else {
                writeln!(
                    w,
                    "{:<32} {:>7} {:<10} {:>7} {:>6} {:>6} {:>8}  created",
                    "site", "cluster", "method", "version", "pages", "paths", "entries"
                )?;
                for r in rows {
                    writeln!(
                        w,
                        "{:<32} {:>7} {:<10} {:>7} {:>6} {:>6} {:>8}  {}",
                        r.site,
                        r.cluster,
                        r.method,
                        r.version,
                        r.pages,
                        r.core_paths,
                        r.model_entries,
                        r.created_at
                    )?;
                }
            }
        }
        StoreCommand::Show { site } => {
            let templates = store.site_templates(&site)?;
            if templates.is_empty() {
                bail!("no templates for site {site:?}");
            }
            let v: Vec<serde_json::Value> = templates
                .iter()
                .map(|t| {
                    serde_json::json!({
                        "site": t.site,
                        "cluster": t.cluster,
                        "method": t.model.method(),
                        "version": t.version,
                        "created_at": t.created_at,
                        "pages": t.pages,
                        "fingerprint_paths": t.core.len(),
                        "model": t.model.summary(),
                    })
                })
                .collect();
            serde_json::to_writer_pretty(&mut w, &v)?;
            writeln!(w)?;
        }
        StoreCommand::Prune {
            stale: _,
            site,
            older_than,
            keep_versions,
            dry_run,
        } => {
            if site.is_none() && older_than.is_none() && keep_versions.is_none() {
                bail!("say what to prune: --site, --older-than and/or --keep-versions, or --stale");
            }
            let n = store.prune(&PruneOptions {
                site,
                older_than_days: older_than,
                keep_versions,
                dry_run,
            })?;
            writeln!(
                w,
                "{} {n} templates",
                if dry_run { "would remove" } else { "removed" }
            )?;
        }
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `templex warc`.
#[derive(Debug, Args)]
pub struct WarcArgs {
    /// Site mirror directories (with --url-prefix), or nothing with --data.
    pub dirs: Vec<PathBuf>,

    /// URL prefix of the (single) mirror given.
    #[arg(long = "url-prefix", value_name = "PREFIX")]
    pub url_prefix: Option<String>,

    /// Write every site of DATA/sites.json instead (their own URL prefixes).
    #[arg(long, value_name = "DATA")]
    pub data: Option<PathBuf>,

    /// Write each site K times under new host names (`host-copyN`), to scale a corpus.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub copies: usize,

    /// The WARC to write (`.warc.gz` is gzipped per record).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Run `templex warc`.
pub fn run_warc(args: WarcArgs) -> Result<ExitCode> {
    let mut sites: Vec<(PathBuf, String)> = Vec::new();
    if let Some(data) = &args.data {
        let list = templex::eval::read_sites(data)?;
        for s in list {
            let prefix = s.prefixes.first().cloned().unwrap_or_default();
            sites.push((s.path(data), prefix));
        }
    }
    for d in &args.dirs {
        let prefix = match &args.url_prefix {
            Some(p) => p.clone(),
            None => d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "mirror.localhost".into()),
        };
        sites.push((d.clone(), prefix));
    }
    if sites.is_empty() {
        bail!("nothing to write: give mirror directories or --data");
    }
    let gzip = args.out.to_string_lossy().ends_with(".gz");
    let mut w = templex::sources::WarcWriter::create(&args.out, gzip)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    w.write_warcinfo(&[("description", "site mirrors written by templex warc")])?;
    let mut pages = 0;
    for copy in 0..args.copies.max(1) {
        for (dir, prefix) in &sites {
            let prefix = if copy == 0 {
                prefix.clone()
            } else {
                rename_site(prefix, copy)
            };
            pages += templex::sources::append_mirror(&mut w, dir, &prefix)
                .with_context(|| format!("cannot write mirror {}", dir.display()))?;
        }
    }
    w.finish()?;
    eprintln!(
        "wrote {pages} pages of {} sites ×{} to {}",
        sites.len(),
        args.copies.max(1),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The prefix of copy `k` of a site: its registrable domain's first label gets `-copyK`, so
/// that copies are different sites.
fn rename_site(prefix: &str, k: usize) -> String {
    let (scheme, rest) = match prefix.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r.to_string()),
        None => (String::new(), prefix.to_string()),
    };
    let (host, path) = match rest.split_once('/') {
        Some((h, p)) => (h.to_string(), format!("/{p}")),
        None => (rest.clone(), String::new()),
    };
    let domain = psl_domain(&host).unwrap_or_else(|| host.clone());
    let sub = host.strip_suffix(&domain).unwrap_or("");
    let (first, tail) = domain.split_once('.').unwrap_or((&domain, ""));
    let renamed = if tail.is_empty() {
        format!("{first}-copy{k}")
    } else {
        format!("{first}-copy{k}.{tail}")
    };
    format!("{scheme}{sub}{renamed}{path}")
}

fn psl_domain(host: &str) -> Option<String> {
    let url = url::Url::parse(&format!("https://{host}/")).ok()?;
    templex::sibling_search::registrable_domain(&url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_other_sites() {
        assert_eq!(rename_site("www.dostips.com", 2), "www.dostips-copy2.com");
        assert_eq!(
            rename_site("firelab-uoft.github.io/static-site", 1),
            "firelab-uoft-copy1.github.io/static-site"
        );
        assert_eq!(rename_site("localhost", 3), "localhost-copy3");
        assert_eq!(
            rename_site("https://2008.drupalcamptoronto.org", 1),
            "https://2008.drupalcamptoronto-copy1.org"
        );
    }
}
