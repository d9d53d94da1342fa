//! `templex content`: the main content of pages, page-level or site-aware.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use templex::render::Rendering;
use templex::sources::{MirrorSource, read_page_file};
use templex::{
    ContentConfig, ContentRecord as Record, Method, PageContent, PageHints, PageSource,
    extract_page, extract_template,
};
use url::Url;

use crate::input::{BudgetArgs, FingerprintArgs, SourceArgs};
use crate::template_cmd::MethodArgs;

/// Output formats of `templex content`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ContentFormat {
    /// Plain text, one line per block; inputs separated by a blank line.
    Text,
    /// Markdown (headings, lists, tables, code blocks kept).
    Markdown,
    /// The content as HTML.
    Html,
    /// One JSON array of objects.
    Json,
    /// One JSON object per input and line, errors included.
    Jsonl,
}

/// Arguments of `templex content`.
#[derive(Debug, Args)]
pub struct ContentArgs {
    /// Files (plain or .gz), directories (every .htm/.html file below), URLs, or `-` (stdin).
    #[arg(required = true)]
    pub inputs: Vec<String>,

    #[command(flatten)]
    pub source: SourceArgs,

    #[command(flatten)]
    pub method: MethodArgs,

    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ContentFormat::Text)]
    pub format: ContentFormat,

    /// Page-level only, even with --site.
    #[arg(long)]
    pub page_level: bool,

    /// Keep user comments.
    #[arg(long)]
    pub comments: bool,

    /// Keep image captions and credits in text output (Markdown and HTML always keep them).
    #[arg(long)]
    pub captions: bool,

    /// Page-level: when the main container holds less than this share of what the page-level
    /// detectors do not call chrome (or less than 0.75 beside sections of prose), the page
    /// spreads its content (a listing, a thread, a service page) and all of that is
    /// content; 0 keeps the container always.
    #[arg(
        long,
        value_name = "SHARE",
        default_value_t = ContentConfig::default().spread,
        value_parser = spread_share,
        allow_negative_numbers = true
    )]
    pub spread: f64,

    /// Add content fingerprints (`--minhash`, `--shingle`) to json and jsonl records, for
    /// `templex dedup`, which otherwise computes them from the text (about 1.6 KB of JSON a
    /// record).
    #[arg(long = "fingerprint", overrides_with = "no_fingerprint")]
    pub with_fingerprint: bool,

    /// No fingerprints: the default now, kept so that scripts written when it was not still
    /// run.
    #[arg(long, hide = true, overrides_with = "with_fingerprint")]
    pub no_fingerprint: bool,

    #[command(flatten)]
    pub fingerprint: FingerprintArgs,

    /// Page-level: the address the one input (a file or `-`) was fetched from. The page's
    /// address tells a thread (`/threads/…`, `viewtopic.php`) and a story's date, and
    /// resolves its links in Markdown and HTML output.
    #[arg(long, value_name = "URL", conflicts_with = "page_urls")]
    pub page_url: Option<Url>,

    /// Page-level: the addresses files were fetched from, one `PATH<TAB>URL` line each
    /// (a path as given or as found under a directory input); files not listed have none.
    #[arg(long, value_name = "TSV")]
    pub page_urls: Option<PathBuf>,
}

/// The addresses `--page-url` and `--page-urls` give, by input name.
#[derive(Default)]
struct PageUrls {
    /// `--page-url`: the address of the one input.
    only: Option<Url>,
    by_path: HashMap<String, Url>,
}

impl PageUrls {
    fn of(args: &ContentArgs) -> Result<PageUrls> {
        if let Some(url) = &args.page_url {
            if args.inputs.len() != 1 || Path::new(&args.inputs[0]).is_dir() {
                bail!(
                    "--page-url names the address of one input file or `-`; use --page-urls for many"
                );
            }
            return Ok(PageUrls {
                only: Some(url.clone()),
                by_path: HashMap::new(),
            });
        }
        let Some(list) = &args.page_urls else {
            return Ok(PageUrls::default());
        };
        let text = std::fs::read_to_string(list)
            .with_context(|| format!("cannot read {}", list.display()))?;
        let mut by_path = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (path, url) = line
                .split_once('\t')
                .with_context(|| format!("{}:{}: expected PATH<TAB>URL", list.display(), i + 1))?;
            let url = Url::parse(url.trim()).with_context(|| {
                format!("{}:{}: invalid URL {:?}", list.display(), i + 1, url.trim())
            })?;
            by_path.insert(path.to_string(), url);
        }
        Ok(PageUrls {
            only: None,
            by_path,
        })
    }

    /// The address of `job`, if one was given.
    fn of_job(&self, job: &Job) -> Option<Url> {
        match job {
            Job::File(_, name) => self
                .only
                .clone()
                .or_else(|| self.by_path.get(name).cloned()),
            Job::Stdin => self.only.clone(),
            Job::Url(_) => None,
        }
    }
}

/// One unit of work: a named input and how to get its bytes.
enum Job {
    File(PathBuf, String),
    Url(String),
    Stdin,
}

impl Job {
    fn name(&self) -> String {
        match self {
            Job::File(_, name) => name.clone(),
            Job::Url(u) => u.clone(),
            Job::Stdin => "-".into(),
        }
    }
}

fn expand_inputs(inputs: &[String]) -> Vec<std::result::Result<Job, (String, String)>> {
    let mut out = Vec::new();
    for input in inputs {
        if input == "-" {
            out.push(Ok(Job::Stdin));
        } else if Url::parse(input).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
            out.push(Ok(Job::Url(input.clone())));
        } else {
            let p = Path::new(input);
            if p.is_dir() {
                let mut files = Vec::new();
                let mut stack = vec![p.to_path_buf()];
                while let Some(d) = stack.pop() {
                    let Ok(rd) = std::fs::read_dir(&d) else {
                        continue;
                    };
                    for e in rd.flatten() {
                        let path = e.path();
                        if e.file_type().is_ok_and(|t| t.is_dir()) {
                            stack.push(path);
                        } else if path
                            .file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.to_ascii_lowercase().contains(".htm"))
                        {
                            files.push(path);
                        }
                    }
                }
                files.sort();
                out.extend(files.into_iter().map(|f| {
                    let name = f.display().to_string();
                    Ok(Job::File(f, name))
                }));
            } else if p.is_file() {
                out.push(Ok(Job::File(p.to_path_buf(), input.clone())));
            } else {
                out.push(Err((input.clone(), "no such file or directory".into())));
            }
        }
    }
    out
}

/// Run `templex content`.
pub fn run(args: ContentArgs) -> Result<ExitCode> {
    let jobs = expand_inputs(&args.inputs);
    let page_urls = PageUrls::of(&args)?;
    let site: Option<MirrorSource> = match &args.source.site {
        Some(dir) if !args.page_level => Some(
            MirrorSource::new(dir, &args.source.url_prefix)
                .with_context(|| format!("cannot open site mirror {}", dir.display()))?,
        ),
        _ => None,
    };
    if args.source.warc.is_some() {
        bail!(
            "templex content reads files, directories and URLs; use --site for site-aware extraction"
        );
    }
    let config = ContentConfig {
        comments: args.comments,
        spread: args.spread,
        drop_captions: !(args.captions
            || matches!(args.format, ContentFormat::Markdown | ContentFormat::Html)),
        ..ContentConfig::default()
    };
    let template_config = templex::TemplateConfig {
        budget: args.budget.budget(),
        ..args.method.try_config()?
    };
    let bar = if jobs.len() > 1 && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let b = ProgressBar::new(jobs.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let mut failures = 0usize;
    let mut first = true;
    // Only JSON records carry fingerprints, and only when asked: most readers never look at
    // them, and `templex dedup` computes what a record lacks.
    let mut fingerprinter = (matches!(args.format, ContentFormat::Json | ContentFormat::Jsonl)
        && args.with_fingerprint)
        .then(|| templex::duplicates::Fingerprinter::new(args.fingerprint.config()));
    if args.format == ContentFormat::Json {
        w.write_all(b"[")?;
    }
    for job in jobs {
        let rec = match job {
            Err((input, e)) => Record::error(input, e),
            Ok(job) => {
                bar.set_message(job.name());
                let name = job.name();
                let url = page_urls.of_job(&job);
                match process(&job, url, &args, site.as_ref(), &config, &template_config) {
                    Ok(r) => r,
                    Err(e) => Record::error(name, format!("{e:#}")),
                }
            }
        };
        let rec = match fingerprinter.as_mut() {
            Some(f) => rec.with_fingerprint(f),
            None => rec,
        };
        bar.inc(1);
        if rec.error.is_some() {
            failures += 1;
            tracing::warn!(input = %rec.input, error = rec.error.as_deref().unwrap_or(""), "failed");
        }
        write_record(&mut w, &rec, args.format, &mut first)?;
    }
    if args.format == ContentFormat::Json {
        w.write_all(b"]\n")?;
    }
    w.flush()?;
    bar.finish_and_clear();
    Ok(if failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn write_record(
    w: &mut impl Write,
    rec: &Record,
    format: ContentFormat,
    first: &mut bool,
) -> Result<()> {
    match format {
        ContentFormat::Jsonl => {
            serde_json::to_writer(&mut *w, rec)?;
            w.write_all(b"\n")?;
        }
        ContentFormat::Json => {
            if !*first {
                w.write_all(b",\n")?;
            }
            serde_json::to_writer_pretty(&mut *w, rec)?;
        }
        ContentFormat::Text | ContentFormat::Markdown | ContentFormat::Html => {
            if let Some(e) = &rec.error {
                eprintln!("templex: error: {}: {e}", rec.input);
            } else {
                if !*first {
                    w.write_all(b"\n\n")?;
                }
                let body = if format == ContentFormat::Html {
                    &rec.html
                } else {
                    &rec.text
                };
                w.write_all(body.as_deref().unwrap_or("").as_bytes())?;
                w.write_all(b"\n")?;
            }
        }
    }
    *first = false;
    Ok(())
}

fn process(
    job: &Job,
    page_url: Option<Url>,
    args: &ContentArgs,
    site: Option<&MirrorSource>,
    config: &ContentConfig,
    template_config: &templex::TemplateConfig,
) -> Result<Record> {
    // Site-aware: the input must be a page of the mirror.
    let site_url = match (site, job) {
        (Some(s), Job::File(p, _)) => s.url_for_path(p),
        (Some(s), Job::Url(u)) => Url::parse(u).ok().filter(|u| s.resolves(u)),
        _ => None,
    };
    if let (Some(source), Some(url)) = (site, site_url) {
        let r = extract_template(source, &url, template_config)?;
        let content = r.content(config);
        let mut notes = r.notes.clone();
        if content.method() == Method::MainContent {
            notes.push("no site evidence: page-level content".into());
        }
        return Ok(render(
            job.name(),
            &content,
            args.format,
            Some(r.loads.attempts),
            notes,
        ));
    }
    // Page-level.
    let max_bytes = args.budget.max_page_bytes as u64;
    let (bytes, hints) = match job {
        Job::File(p, _) => (
            read_page_file(p, max_bytes).with_context(|| format!("cannot read {}", p.display()))?,
            PageHints {
                url: page_url,
                ..PageHints::default()
            },
        ),
        Job::Stdin => {
            let mut b = Vec::new();
            std::io::stdin()
                // One byte past the budget, so that the budget names the error.
                .take(max_bytes.saturating_add(1))
                .read_to_end(&mut b)
                .context("cannot read stdin")?;
            (
                b,
                PageHints {
                    url: page_url,
                    ..PageHints::default()
                },
            )
        }
        Job::Url(u) => {
            let opened = args.source.open(u)?;
            let page = opened
                .source
                .load(&opened.page_url)
                .with_context(|| format!("cannot load {u}"))?;
            let hints = PageHints {
                url: Some(page.final_url),
                charset: page.charset,
            };
            (page.body, hints)
        }
    };
    let content = extract_page(&bytes, &hints, config, &args.budget.budget())?;
    Ok(render(job.name(), &content, args.format, None, Vec::new()))
}

fn render(
    input: String,
    content: &PageContent,
    format: ContentFormat,
    pages_loaded: Option<usize>,
    notes: Vec<String>,
) -> Record {
    let rendering = match format {
        ContentFormat::Html => Rendering::Html,
        ContentFormat::Markdown => Rendering::Markdown,
        _ => Rendering::Text,
    };
    Record::new(input, content, rendering, pages_loaded, notes)
}

/// `--spread`: a number, and a share by the library's rule.
fn spread_share(arg: &str) -> Result<f64, String> {
    let share = arg
        .parse::<f64>()
        .map_err(|_| format!("spread must be a number, not {arg:?}"))?;
    ContentConfig::spread_share(share)
}
