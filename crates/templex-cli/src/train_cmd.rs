//! `templex train`: build the page-level classifier from SITELEVEL labels of whole sites.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use templex::PageSource;
use templex::eval::{DataSite, EvalReport, Prediction, evaluate_sites, load_gold};
use templex::page_level::{PageLevelConfig, PageLevelModel, SiteLevelConfig, detect_page_level};
use templex::sources::MirrorSource;
use templex::train::{
    ForestConfig, SiteSamples, SiteTrainConfig, TrainConfig, TrainingInfo, TrainingSet,
    content_samples, read_gold_pages, site_samples, train, train_forest,
};

/// Arguments of `templex train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The data directory holding `sites.json`, `sites/` and `gold/` [default: $TEMPLEX_DATA,
    /// else ../shared/data].
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,

    /// Sites to learn from, by name in `sites.json` [default: the dev sites, those with a
    /// gold file in DATA/gold].
    #[arg(long, value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    pub sites: Vec<String>,

    /// Write the model (JSON) here.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// SITELEVEL θ of the labels.
    #[arg(long, value_name = "θ", default_value_t = SiteTrainConfig::default().sitelevel.theta)]
    pub theta: f64,

    /// Pages per site hashed for SITELEVEL (the paper: 200).
    #[arg(long, value_name = "N", default_value_t = SiteTrainConfig::default().label_pages)]
    pub label_pages: usize,

    /// Pages per site whose nodes become training samples.
    #[arg(long, value_name = "N", default_value_t = SiteTrainConfig::default().sample_pages)]
    pub sample_pages: usize,

    /// L2 penalty of the logistic regressions.
    #[arg(long, default_value_t = TrainConfig::default().l2)]
    pub l2: f64,

    /// Size buckets (one regression each).
    #[arg(long, default_value_t = TrainConfig::default().buckets)]
    pub buckets: usize,

    /// Seed of the page samples.
    #[arg(long, default_value_t = SiteTrainConfig::default().seed)]
    pub seed: u64,

    /// Leave-one-site-out: for every site with gold, train on the others and score its key
    /// pages (page-level, no site) — the estimate of how the model does on unseen sites.
    #[arg(long)]
    pub cross_validate: bool,

    /// With --cross-validate: also score without isotonic smoothing.
    #[arg(long)]
    pub compare_basic: bool,

    /// With --cross-validate: the smoothing penalty constant c.
    #[arg(long, value_name = "C", default_value_t = PageLevelConfig::default().penalty)]
    pub penalty: f64,

    /// With --cross-validate: the template threshold on smoothed scores.
    #[arg(long, value_name = "T", default_value_t = PageLevelConfig::default().threshold)]
    pub threshold: f64,

    /// With --cross-validate: write the per-page rows as JSON here.
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,

    /// Train the content model instead, on the page-level gold of --content-gold, and write
    /// it (JSON) here.
    #[arg(long, value_name = "FILE")]
    pub content_out: Option<PathBuf>,

    /// The page-level benchmark the content model learns from (`ground-truth/ID.json`,
    /// `html/ID.html.gz`) [default: DATA/pagelevel/wcxb-dev].
    #[arg(long, value_name = "DIR")]
    pub content_gold: Option<PathBuf>,
}

/// `templex train --content-out`: the content model from a page-level benchmark's gold.
fn train_content(data: &Path, args: &TrainArgs, out: &Path) -> Result<ExitCode> {
    let dir = args
        .content_gold
        .clone()
        .unwrap_or_else(|| data.join("pagelevel/wcxb-dev"));
    let t0 = Instant::now();
    let pages = read_gold_pages(&dir)
        .with_context(|| format!("cannot read the gold pages in {}", dir.display()))?;
    if pages.is_empty() {
        bail!("no gold pages in {}", dir.display());
    }
    let set = content_samples(&pages);
    eprintln!(
        "labelled {} pages ({} nodes) in {:.1} s",
        pages.len(),
        set.len(),
        t0.elapsed().as_secs_f64()
    );
    let config = ForestConfig::default();
    let notes = vec![format!(
        "templex train --content-out: {} pages of {}, {} rounds of depth {}, learning rate {}",
        pages.len(),
        dir.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().to_string()),
        config.rounds,
        config.depth,
        config.learning_rate
    )];
    let forest = train_forest(&set, &config, notes);
    std::fs::write(out, forest.to_json())
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "wrote {} ({} trees) in {:.1} s",
        out.display(),
        forest.trees.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// The data directory: the flag, `TEMPLEX_DATA`, or `../shared/data`.
pub fn data_dir(flag: &Option<PathBuf>) -> PathBuf {
    flag.clone()
        .or_else(|| std::env::var_os("TEMPLEX_DATA").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared/data"))
}

fn read_sites(data: &Path) -> Result<Vec<DataSite>> {
    Ok(templex::eval::read_sites(data)?)
}

/// Run `templex train`.
pub fn run(args: TrainArgs) -> Result<ExitCode> {
    let data = data_dir(&args.data);
    if let Some(out) = &args.content_out {
        return train_content(&data, &args, out);
    }
    let all = read_sites(&data)?;
    let gold_dir = data.join("gold");
    let gold = load_gold(&gold_dir)
        .with_context(|| format!("cannot read the gold standard in {}", gold_dir.display()))?;
    let names: Vec<String> = if args.sites.is_empty() {
        gold.iter().map(|g| g.site.clone()).collect()
    } else {
        args.sites.clone()
    };
    let mut chosen = Vec::new();
    for name in &names {
        let Some(e) = all.iter().find(|e| &e.name == name) else {
            bail!(
                "no site named {name:?} in {}",
                data.join("sites.json").display()
            );
        };
        chosen.push(e);
    }
    if chosen.is_empty() {
        bail!("no sites to train on");
    }
    let site_config = SiteTrainConfig {
        sitelevel: SiteLevelConfig {
            theta: args.theta,
            ..SiteLevelConfig::default()
        },
        label_pages: args.label_pages,
        sample_pages: args.sample_pages,
        seed: args.seed,
    };
    let train_config = TrainConfig {
        buckets: args.buckets,
        l2: args.l2,
        ..TrainConfig::default()
    };
    let bar = ProgressBar::new(chosen.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} sites {elapsed} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let t0 = Instant::now();
    let mut per_site: Vec<SiteSamples> = Vec::new();
    for e in &chosen {
        bar.set_message(e.name.clone());
        let dir = data.join(&e.dir);
        let source = MirrorSource::new(&dir, &e.prefixes)
            .with_context(|| format!("cannot open site mirror {}", dir.display()))?;
        let s = site_samples(&e.name, &source, &site_config);
        tracing::info!(
            site = %s.site,
            hashed = s.label_pages,
            sampled = s.sample_pages,
            samples = s.set.len(),
            template_share = s.template_share,
            "site labelled"
        );
        for u in &s.unreadable {
            tracing::warn!(site = %s.site, "skipped: {u}");
        }
        per_site.push(s);
        bar.inc(1);
    }
    bar.finish_and_clear();
    eprintln!(
        "labelled {} sites in {:.1} s:",
        per_site.len(),
        t0.elapsed().as_secs_f64()
    );
    for s in &per_site {
        eprintln!(
            "  {:<24} {:>4} pages hashed, clusters {:?}, {:>3} sampled, {:>6} nodes, {:.1} % template",
            s.site,
            s.label_pages,
            s.clusters,
            s.sample_pages,
            s.set.len(),
            100.0 * s.template_share
        );
    }
    let info = |sites: &[&SiteSamples]| TrainingInfo {
        sites: sites.iter().map(|s| s.site.clone()).collect(),
        pages: sites.iter().map(|s| s.sample_pages).sum(),
        samples: 0,
        theta: args.theta,
        l2: args.l2,
        notes: vec![format!(
            "templex train --theta {} --label-pages {} --sample-pages {} --l2 {} --buckets {} --seed {}",
            args.theta, args.label_pages, args.sample_pages, args.l2, args.buckets, args.seed
        )],
    };
    let merge = |sites: &[&SiteSamples]| {
        let mut set = TrainingSet::default();
        for s in sites {
            set.extend(s.set.clone());
        }
        set
    };
    // A closed stdout does not stop the files (--json, --out) from being written.
    let mut printed = Ok(());
    if args.cross_validate {
        let mut rows = Vec::new();
        let mut basic_rows = Vec::new();
        for held in &gold {
            let rest: Vec<&SiteSamples> = per_site.iter().filter(|s| s.site != held.site).collect();
            let model = train(&merge(&rest), &train_config, info(&rest))?;
            let one = std::slice::from_ref(held);
            let smooth = PageLevelConfig {
                penalty: args.penalty,
                threshold: args.threshold,
                ..PageLevelConfig::default()
            };
            rows.extend(score_with(&data, one, &model, &smooth).rows);
            if args.compare_basic {
                let basic = PageLevelConfig {
                    smooth: false,
                    ..smooth.clone()
                };
                basic_rows.extend(score_with(&data, one, &model, &basic).rows);
            }
        }
        let report = EvalReport::from_rows(rows);
        let mut text = format!("leave-one-site-out, PAGELEVEL Smooth:\n{report}");
        if args.compare_basic {
            let basic = EvalReport::from_rows(basic_rows);
            text += &format!("\nleave-one-site-out, PAGELEVEL Basic (no smoothing):\n{basic}");
        }
        printed = crate::print_stdout(format_args!("{text}"));
        if let Some(out) = &args.json {
            let f = std::fs::File::create(out)
                .with_context(|| format!("cannot create {}", out.display()))?;
            serde_json::to_writer_pretty(std::io::BufWriter::new(f), &report)?;
        }
    }
    let everything: Vec<&SiteSamples> = per_site.iter().collect();
    let set = merge(&everything);
    let model = train(&set, &train_config, info(&everything))?;
    if let Some(out) = &args.out {
        let mut f = std::fs::File::create(out)
            .with_context(|| format!("cannot create {}", out.display()))?;
        f.write_all(model.to_json().as_bytes())?;
        eprintln!(
            "wrote {} ({} samples, {} buckets)",
            out.display(),
            set.len(),
            model.buckets.len()
        );
    }
    printed?;
    Ok(ExitCode::SUCCESS)
}

/// Score PAGELEVEL with `model` on the key pages of `sites` (the key page alone is loaded).
pub fn score_with(
    data: &Path,
    sites: &[templex::eval::GoldSite],
    model: &PageLevelModel,
    config: &PageLevelConfig,
) -> EvalReport {
    let predict = |source: &MirrorSource, url: &url::Url| -> Result<Prediction, String> {
        let t = Instant::now();
        let page = source
            .load(url)
            .map_err(|e| format!("cannot load key page: {e}"))?;
        let doc = page.parse();
        let r = detect_page_level(&doc, Some(&page.final_url), model, config);
        Ok(Prediction {
            template: r.template,
            doc,
            pages_loaded: 1,
            time: t.elapsed(),
            notes: Vec::new(),
            stop: None,
            siblings: None,
        })
    };
    evaluate_sites(data, sites, &predict)
}
