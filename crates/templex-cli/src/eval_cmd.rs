//! `templex eval`: score the site-level method on the template gold standard.
//!
//! The default run evaluates one setting and prints one row per key page; `--sweep` evaluates
//! a grid of settings and prints one summary row per setting (the shape of the TemEx paper's
//! table: size, recall, precision, F1, loads).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use templex::eval::{EvalReport, GoldSite, MacroScores, Prediction, evaluate_sites, load_gold};
use templex::sources::MirrorSource;
use templex::{TemplateConfig, extract_template};
use url::Url;

use crate::template_cmd::MethodArgs;

/// Arguments of `templex eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The gold standard directory (one JSON file per site).
    #[arg(long, value_name = "DIR")]
    pub gold: PathBuf,

    /// The data directory the gold files' `dir` entries are relative to [default: the gold
    /// directory's parent].
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,

    /// Write the full report (every key page, macro averages; every setting with --sweep) as
    /// JSON to this file.
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,

    /// Evaluate a grid of settings (CS sizes 1 to 8) and print one summary row per setting;
    /// the other method options stay as given.
    #[arg(long)]
    pub sweep: bool,

    /// Instead of evaluating, write each key page's gold content text (the text of its
    /// content regions, one line per block) as JSON lines to this file, for content
    /// benchmarks: `site`, `page`, `path`, `url`, `dir`, `url_prefixes`, `content_text`.
    #[arg(long, value_name = "OUT.jsonl")]
    pub export_content: Option<PathBuf>,

    #[command(flatten)]
    pub method: MethodArgs,
}

/// Write the gold content text of every key page as JSON lines.
fn export_content(
    data: &std::path::Path,
    sites: &[templex::eval::GoldSite],
    out: &std::path::Path,
) -> Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("cannot create {}", out.display()))?,
    );
    for site in sites {
        let dir = site.mirror_dir(data);
        let source = site
            .mirror(data)
            .with_context(|| format!("cannot open mirror {}", dir.display()))?;
        for key in &site.key_pages {
            let path = dir.join(&key.page);
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let doc = templex::html::parse_bytes(&bytes, None);
            let gold = templex::eval::gold_content(&doc, &key.content)
                .with_context(|| format!("bad selector in {} {}", site.site, key.page))?;
            let not_gold: Vec<bool> = gold.iter().map(|g| !g).collect();
            let keep = templex::render::non_template_mask(&doc, &not_gold);
            let root = doc.body().unwrap_or(templex::NodeId::ROOT);
            let text = templex::render::content_text(&doc, root, &|id| keep[id.index()]);
            let row = serde_json::json!({
                "site": site.site,
                "page": key.page,
                "kind": key.kind,
                "path": std::fs::canonicalize(&path).unwrap_or(path.clone()),
                "url": key.url(&source).map(|u| u.to_string()),
                "dir": std::fs::canonicalize(&dir).unwrap_or(dir.clone()),
                "url_prefixes": site.url_prefixes,
                "content_text": text,
            });
            serde_json::to_writer(&mut w, &row)?;
            writeln!(w)?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Applies one value of a sweep axis to a configuration.
type Setter = Box<dyn Fn(&mut TemplateConfig)>;

/// One dimension of the sweep: a name for the column and the settings it takes, each with
/// its label.
struct Axis {
    name: &'static str,
    values: Vec<(String, Setter)>,
}

impl Axis {
    fn new<T: Copy + 'static>(
        name: &'static str,
        values: impl IntoIterator<Item = T>,
        label: impl Fn(T) -> String,
        set: impl Fn(&mut TemplateConfig, T) + Copy + 'static,
    ) -> Axis {
        let values = values
            .into_iter()
            .map(|v| {
                let apply: Setter = Box::new(move |c| set(c, v));
                (label(v), apply)
            })
            .collect();
        Axis { name, values }
    }
}

/// The sweep grid. Each axis is one line; the grid is their cartesian product, first axis
/// outermost, and every axis becomes a column of the summary table and a key of the JSON.
fn sweep_axes(method: &MethodArgs) -> Vec<Axis> {
    let threshold = match method.config().mapping.equality {
        templex::sibling_search::Equality::Weighted { threshold, .. } => threshold,
        _ => method.threshold.unwrap_or(0.6),
    };
    vec![
        Axis::new(
            "equality",
            <crate::template_cmd::EqualityArg as clap::ValueEnum>::value_variants()
                .iter()
                .copied(),
            |e| format!("{e:?}"),
            move |c, e| c.mapping.equality = crate::template_cmd::equality(e, threshold),
        ),
        Axis::new(
            "size",
            1..=8usize,
            |n| n.to_string(),
            |c, n| c.search.size = n,
        ),
    ]
}

/// One evaluated setting of a sweep.
#[derive(Debug, Serialize)]
struct SweepRun {
    /// Axis name → value label (for JSON consumers).
    setting: BTreeMap<String, String>,
    /// The value labels in axis order (for the table).
    #[serde(skip)]
    labels: Vec<String>,
    #[serde(flatten)]
    report: EvalReport,
}

/// Run `templex eval`.
pub fn run(args: EvalArgs) -> Result<ExitCode> {
    let data = match &args.data {
        Some(d) => d.clone(),
        None => match args.gold.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    let sites = load_gold(&args.gold)
        .with_context(|| format!("cannot read the gold standard in {}", args.gold.display()))?;
    let key_pages: usize = sites.iter().map(|s| s.key_pages.len()).sum();
    tracing::info!(sites = sites.len(), key_pages, data = %data.display(), "gold standard loaded");
    let base = args.method.try_config()?;
    if let Some(out) = &args.export_content {
        export_content(&data, &sites, out)?;
        eprintln!(
            "wrote the gold content text of {key_pages} key pages to {}",
            out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }

    if !args.sweep {
        let bar = progress(key_pages);
        let report = run_setting(&data, &sites, &base, &bar);
        bar.finish_and_clear();
        // The JSON file is written even when stdout's reader has gone.
        let printed = crate::print_stdout(format_args!("{report}"));
        if let Some(out) = &args.json {
            write_json(out, &report)?;
        }
        printed?;
        return Ok(ExitCode::SUCCESS);
    }

    let axes = sweep_axes(&args.method);
    let grid = grid(&axes);
    let bar = progress(key_pages * grid.len());
    let mut runs = Vec::with_capacity(grid.len());
    for choice in &grid {
        let mut config = base.clone();
        let mut setting = BTreeMap::new();
        let mut labels = Vec::with_capacity(axes.len());
        for (axis, &i) in axes.iter().zip(choice) {
            let (label, apply) = &axis.values[i];
            apply(&mut config);
            setting.insert(axis.name.to_string(), label.clone());
            labels.push(label.clone());
        }
        tracing::info!(?setting, "evaluating setting");
        let report = run_setting(&data, &sites, &config, &bar);
        runs.push(SweepRun {
            setting,
            labels,
            report,
        });
    }
    bar.finish_and_clear();
    let printed = crate::print_stdout(format_args!("{}", sweep_table(&axes, &runs)));
    if let Some(out) = &args.json {
        write_json(out, &runs)?;
    }
    printed?;
    Ok(ExitCode::SUCCESS)
}

/// Every combination of axis value indices, first axis outermost.
fn grid(axes: &[Axis]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (0..axis.values.len()).map(move |i| {
                    let mut c = prefix.clone();
                    c.push(i);
                    c
                })
            })
            .collect();
    }
    out
}

fn progress(len: usize) -> ProgressBar {
    // indicatif draws to stderr only when it is a terminal, so logs and pipes stay clean.
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} key pages {elapsed} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

fn run_setting(
    data: &Path,
    sites: &[GoldSite],
    config: &TemplateConfig,
    bar: &ProgressBar,
) -> EvalReport {
    let predict = |source: &MirrorSource, url: &Url| -> Result<Prediction, String> {
        bar.set_message(url.to_string());
        let result = extract_template(source, url, config)
            .map(Prediction::from)
            .map_err(|e| format!("cannot load key page: {e}"));
        bar.inc(1);
        result
    };
    let report = evaluate_sites(data, sites, &predict);
    // Pages that never reached the detector (missing mirror or file) still count as done.
    let reached = report.rows.iter().filter(|r| r.url.is_some()).count();
    bar.inc((report.rows.len() - reached) as u64);
    report
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    serde_json::to_writer_pretty(&mut w, value)
        .with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(w)?;
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn sweep_table(axes: &[Axis], runs: &[SweepRun]) -> String {
    use std::fmt::Write as _;
    let widths: Vec<usize> = axes
        .iter()
        .map(|a| {
            a.values
                .iter()
                .map(|(l, _)| l.chars().count())
                .max()
                .unwrap_or(0)
                .max(a.name.len())
        })
        .collect();
    let mut s = String::new();
    let mut head = String::new();
    for (a, w) in axes.iter().zip(&widths) {
        let _ = write!(head, "{:<w$}  ", a.name);
    }
    let _ = writeln!(
        s,
        "{head}{:>5} {:>5} {:>5}  {:>5} {:>5} {:>5}  {:>6} {:>8} {:>6}",
        "T-P", "T-R", "T-F1", "C-P", "C-R", "C-F1", "loads", "med ms", "errors"
    );
    for run in runs {
        let mut row = String::new();
        for (label, w) in run.labels.iter().zip(&widths) {
            let _ = write!(row, "{label:<w$}  ");
        }
        let m: &MacroScores = &run.report.macro_avg;
        let _ = writeln!(
            s,
            "{row}{:>5.3} {:>5.3} {:>5.3}  {:>5.3} {:>5.3} {:>5.3}  {:>6.2} {:>8.1} {:>6}",
            m.template.precision,
            m.template.recall,
            m.template.f1,
            m.content.precision,
            m.content.recall,
            m.content.f1,
            m.mean_loads,
            m.median_ms,
            m.errors
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_is_the_cartesian_product() {
        let axes = vec![
            Axis::new("a", 1..=2usize, |n| n.to_string(), |c, n| c.search.size = n),
            Axis::new(
                "b",
                0..3usize,
                |n| n.to_string(),
                |c, n| c.search.max_loads = n,
            ),
        ];
        let g = grid(&axes);
        assert_eq!(g.len(), 6);
        assert_eq!(g[0], [0, 0]);
        assert_eq!(g[5], [1, 2]);
        let mut c = TemplateConfig::default();
        (axes[0].values[1].1)(&mut c);
        (axes[1].values[2].1)(&mut c);
        assert_eq!((c.search.size, c.search.max_loads), (2, 2));
        assert_eq!(grid(&[]).len(), 1, "no axes: the base setting");
    }

    #[test]
    fn default_sweep_is_equalities_by_sizes_one_to_eight() {
        use clap::Parser;
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            m: MethodArgs,
        }
        let t = T::parse_from(["t"]);
        let axes = sweep_axes(&t.m);
        assert_eq!(axes[0].name, "equality");
        assert_eq!(axes[0].values.len(), 3);
        assert_eq!(axes[1].name, "size");
        let labels: Vec<&str> = axes[1].values.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["1", "2", "3", "4", "5", "6", "7", "8"]);
    }
}
