//! `templex links`: a page's same-site links.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use templex::sibling_search::extract_links_with;

use crate::input::SourceArgs;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LinksFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct LinksArgs {
    /// The page: a file path (inside --site DIR if given) or an http(s) URL.
    pub page: String,

    #[command(flatten)]
    pub source: SourceArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = LinksFormat::Text)]
    pub format: LinksFormat,

    /// Also list links to other sites (flagged `same_site: false`).
    #[arg(long)]
    pub all: bool,

    /// Do not check whether each link loads (no loads at all beyond the page).
    #[arg(long)]
    pub no_check: bool,
}

#[derive(Serialize)]
struct LinkOut {
    url: String,
    resolves: Option<bool>,
    dom_path: String,
    same_site: bool,
    page_like: bool,
    text: String,
}

pub fn run(args: LinksArgs) -> Result<ExitCode> {
    let opened = args.source.open(&args.page)?;
    let source = opened.source.as_ref();
    let page = source
        .load(&opened.page_url)
        .with_context(|| format!("cannot load {}", opened.page_url))?;
    let doc = page.parse();
    let links = extract_links_with(&doc, &page.final_url, &|u| source.canonical_url(u));
    let links: Vec<_> = links
        .into_iter()
        .filter(|l| args.all || l.same_site)
        .collect();
    tracing::info!(url = %page.final_url, links = links.len(), "extracted links");
    let bar = if opened.live && !args.no_check {
        let bar = ProgressBar::new(links.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} checking links {pos}/{len} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut out = Vec::with_capacity(links.len());
    for l in &links {
        bar.set_message(l.url.to_string());
        let resolves = (!args.no_check && l.same_site).then(|| source.resolves(&l.url));
        bar.inc(1);
        out.push(LinkOut {
            url: l.url.to_string(),
            resolves,
            dom_path: doc.dom_path(l.node),
            same_site: l.same_site,
            page_like: templex::sibling_search::looks_like_page(&l.url),
            text: templex::html::collapse_whitespace(&doc.text_content(l.node)),
        });
    }
    bar.finish_and_clear();
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    match args.format {
        LinksFormat::Json => {
            serde_json::to_writer_pretty(&mut w, &out)?;
            writeln!(w)?;
        }
        LinksFormat::Text => {
            for l in &out {
                let mark = match l.resolves {
                    Some(true) => "ok ",
                    Some(false) => "-- ",
                    None => "?  ",
                };
                writeln!(w, "{mark} {}  {}", l.url, l.dom_path)?;
            }
            let checked: Vec<_> = out.iter().filter_map(|l| l.resolves).collect();
            if !checked.is_empty() {
                let ok = checked.iter().filter(|r| **r).count();
                writeln!(
                    w,
                    "# {} links, {ok} of {} checked resolve",
                    out.len(),
                    checked.len()
                )?;
            }
        }
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}
