//! `templex template`: the template of a key page, from its site.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use templex::page_level::{PageLevelConfig, SiteLevelConfig};
use templex::render::{TextOptions, annotated_html, template_html, template_report, visible_text};
use templex::sibling_search::{Equality, LinkOrder, MappingConfig, SearchConfig};
use templex::table_chunks::{Boundaries, ChunkKeys, Chunking, MaskRules, TableChunkConfig};
use templex::{Method, SampleConfig, TemplateConfig, TemplateRule, extract_template};

use crate::input::{BudgetArgs, SourceArgs};

/// Output formats of `templex template`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TemplateFormat {
    /// The key page with class `template_node` on every template element.
    Annotated,
    /// A reusable HTML template: content removed, head and styles kept, URLs absolute.
    Template,
    /// CS pages, pages loaded, template element paths, timings.
    Json,
    /// The key page's non-template text.
    Text,
    /// Page-level segments (subtree roots with their smoothed templateness), as JSON;
    /// `--method pagelevel` (or a page-level fallback) only.
    Segments,
}

/// Node-equality relations selectable on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EqualityArg {
    /// Same tag.
    Label,
    /// Same tag, id and classes.
    LabelIdClass,
    /// Weighted similarity of tag, id, classes, attributes, child count and position.
    Weighted,
}

/// Template rules selectable on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum RuleArg {
    /// Every mapped node is template (TemEx as published).
    Mapped,
    /// Mapped nodes backed by mapped text.
    TextEvidence,
}

/// Link orders selectable on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OrderArg {
    /// The hyperlink-analysis paper's Algorithm 1.
    Paper,
    /// Document order.
    Document,
}

/// What each method does when it finds a key page's template, for `--help`.
pub fn describe(m: Method) -> &'static str {
    match m {
        Method::TemEx => "TemEx: complete subdigraph + exact top-down mapping",
        Method::HybEx => "HybEx: page-level content detection first, then voting (CS 3, 2 votes)",
        Method::SiteLevel => {
            "SITELEVEL: fragments recurring on a sample of the site's pages (--site-pages, --theta)"
        }
        Method::PageLevel => {
            "PAGELEVEL: the key page alone, per-node classifier + tree isotonic smoothing"
        }
        Method::TableChunk => {
            "Table text chunks: text chunks recurring on a sample of the key page's template cluster"
        }
        Method::MainContent => {
            "No template detection: the page-level main-content extractor; the rest is template"
        }
    }
}

/// A `--method` parser accepting `methods` by their names, each described by `describe` (and
/// batch mode's old `page-level` for `maincontent`, hidden).
pub fn method_parser(
    methods: &[Method],
    describe: fn(Method) -> &'static str,
) -> impl TypedValueParser<Value = Method> + use<> {
    let mut values: Vec<PossibleValue> = methods
        .iter()
        .map(|m| PossibleValue::new(m.name()).help(describe(*m)))
        .collect();
    if methods.contains(&Method::MainContent) {
        values.push(PossibleValue::new("page-level").hide(true));
    }
    PossibleValuesParser::new(values).map(|s| s.parse::<Method>().unwrap_or(Method::HybEx))
}

/// Chunk boundaries of the table text chunk method.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BoundariesArg {
    /// The paper's table nodes (table, tr, td, th, thead, tbody, tfoot, caption).
    Table,
    /// Every block-level element (div, p, li, headings, br, the table nodes, …).
    Block,
}

/// Chunk keys of the table text chunk method.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ChunkKeysArg {
    /// The text alone (the paper).
    Text,
    /// Text and occurrence index among equal texts of the page.
    TextOccurrence,
    /// Text and tag path of the chunk's block.
    TextPath,
    /// Text, tag path and occurrence index among equal (text, path) chunks.
    TextPathOccurrence,
}

/// Settings of the site-level method, shared by `template` and `eval`.
#[derive(Debug, Clone, Args)]
pub struct MethodArgs {
    /// How the template is found.
    #[arg(long, default_value = "hybex", value_parser = method_parser(&Method::ALL, describe))]
    pub method: Method,

    /// Size n of the complete subdigraph of sibling pages [default: 3].
    #[arg(long, value_name = "N")]
    pub cs_size: Option<usize>,

    /// Node-equality relation of the mapping.
    #[arg(long, value_enum, default_value_t = EqualityArg::Weighted)]
    pub equality: EqualityArg,

    /// Similarity threshold of `--equality weighted` [default: 0.6].
    #[arg(long, value_name = "T")]
    pub threshold: Option<f64>,

    /// A node is template when at least K CS pages map it [default: all; 2 with hybex].
    #[arg(long, value_name = "K")]
    pub votes: Option<usize>,

    /// How mapped nodes become template.
    #[arg(long, value_enum, default_value_t = RuleArg::TextEvidence)]
    pub rule: RuleArg,

    /// Minimum structural overlap (Dice of mapped body elements) for a sibling page to be
    /// used; 0 disables the guard.
    #[arg(long, value_name = "D", default_value_t = TemplateConfig::default().mapping.guard)]
    pub guard: f64,

    /// Initial order of the key page's links.
    #[arg(long, value_enum, default_value_t = OrderArg::Document)]
    pub order: OrderArg,

    /// Disable the adaptive link order (use the static order only, as the papers do).
    #[arg(long)]
    pub no_adaptive: bool,

    /// At most this many sibling pages are loaded.
    #[arg(long, value_name = "N", default_value_t = TemplateConfig::default().search.max_loads)]
    pub max_loads: usize,

    /// Longest time for one page's whole site-aware extraction (the key page, the search for
    /// siblings, their loads and mappings), in seconds; past it the page is an error naming
    /// this limit [default: none beyond --page-timeout per page and the search's own].
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    pub time_limit: Option<std::time::Duration>,

    /// Stop the sibling search after N loads in a row that did not grow the CS.
    #[arg(long, value_name = "N", default_value_t = TemplateConfig::default().search.patience)]
    pub patience: usize,

    /// SITELEVEL: a fragment on at least this fraction of the sampled pages is template.
    #[arg(long, value_name = "θ", default_value_t = TemplateConfig::default().sitelevel.theta)]
    pub theta: f64,

    /// Table text chunks: a chunk on at least this fraction of the learned pages (and at
    /// least 2) is template.
    #[arg(long, value_name = "F", default_value_t = TemplateConfig::default().tablechunk.fraction)]
    pub chunk_fraction: f64,

    /// Table text chunks: the elements between which text forms one chunk [default: block].
    #[arg(long, value_enum, value_name = "B")]
    pub chunk_boundaries: Option<BoundariesArg>,

    /// Table text chunks: what identifies a chunk across pages [default:
    /// text-path-occurrence].
    #[arg(long, value_enum, value_name = "K")]
    pub chunk_keys: Option<ChunkKeysArg>,

    /// Table text chunks: leave image ALT text and file names out of chunk text.
    #[arg(long)]
    pub no_image_text: bool,

    /// Table text chunks: no layout-wrapper rule (an element is template only when all its
    /// chunks are).
    #[arg(long)]
    pub chunk_no_wrappers: bool,

    /// Table text chunks: chunks without a letter (numbers, dates, separators) count as
    /// evidence like any other.
    #[arg(long)]
    pub chunk_letterless_evidence: bool,

    /// Table text chunks: chunks of image text only count as content evidence too (by
    /// default they only count when template).
    #[arg(long)]
    pub chunk_image_evidence: bool,

    /// SITELEVEL and table text chunks: pages of the site sampled besides the key page.
    #[arg(long, value_name = "N", default_value_t = TemplateConfig::default().sample.pages)]
    pub site_pages: usize,

    /// PAGELEVEL: classifier scores only, no isotonic smoothing (the paper's Basic).
    #[arg(long)]
    pub no_smooth: bool,

    /// PAGELEVEL: the constant c of the smoothing penalty c · N / N_i.
    #[arg(long, value_name = "C", default_value_t = TemplateConfig::default().pagelevel.penalty)]
    pub penalty: f64,

    /// TemEx/HybEx: when no sibling shares the template, return an empty template instead
    /// of falling back to PAGELEVEL.
    #[arg(long)]
    pub no_fallback: bool,

    /// TemEx/HybEx: PAGELEVEL breaks ties (a node one vote short is template when the
    /// page-level detector says so) [default: on for temex, off for hybex].
    #[arg(long, conflicts_with = "no_prior")]
    pub prior: bool,

    /// TemEx/HybEx: no PAGELEVEL tie-breaking.
    #[arg(long)]
    pub no_prior: bool,

    /// PAGELEVEL: the classifier model (JSON from `templex train`) [default: built in].
    #[arg(long, value_name = "FILE")]
    pub model: Option<std::path::PathBuf>,
}

impl MethodArgs {
    /// The library configuration these arguments describe; fails if `--model` cannot be
    /// read.
    pub fn try_config(&self) -> Result<TemplateConfig> {
        let mut c = self.config();
        if let Some(path) = &self.model {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read model {}", path.display()))?;
            let model = templex::page_level::PageLevelModel::from_json(&text)
                .with_context(|| format!("cannot use model {}", path.display()))?;
            c.model = Some(std::sync::Arc::new(model));
        }
        Ok(c)
    }

    /// The library configuration these arguments describe (the built-in model; see
    /// [`MethodArgs::try_config`]).
    pub fn config(&self) -> TemplateConfig {
        let base = TemplateConfig::for_method(self.method);
        let chunking = base.tablechunk.chunking;
        let default_threshold = match base.mapping.equality {
            Equality::Weighted { threshold, .. } => threshold,
            _ => 0.6,
        };
        TemplateConfig {
            method: base.method,
            search: SearchConfig {
                size: self.cs_size.unwrap_or(base.search.size),
                order: match self.order {
                    OrderArg::Paper => LinkOrder::Paper,
                    OrderArg::Document => LinkOrder::Document,
                },
                adaptive: !self.no_adaptive,
                max_loads: self.max_loads,
                patience: self.patience,
                ..base.search
            },
            mapping: MappingConfig {
                equality: equality(self.equality, self.threshold.unwrap_or(default_threshold)),
                votes: self.votes.or(base.mapping.votes),
                rule: match self.rule {
                    RuleArg::Mapped => TemplateRule::Mapped,
                    RuleArg::TextEvidence => TemplateRule::TextEvidence,
                },
                guard: self.guard,
                prior: (base.mapping.prior || self.prior) && !self.no_prior,
                fallback: !self.no_fallback,
            },
            sitelevel: SiteLevelConfig {
                theta: self.theta,
                ..base.sitelevel
            },
            tablechunk: TableChunkConfig {
                fraction: self.chunk_fraction,
                chunking: Chunking {
                    boundaries: match self.chunk_boundaries {
                        None => chunking.boundaries,
                        Some(BoundariesArg::Table) => Boundaries::Table,
                        Some(BoundariesArg::Block) => Boundaries::Block,
                    },
                    keys: match self.chunk_keys {
                        None => chunking.keys,
                        Some(ChunkKeysArg::Text) => ChunkKeys::Text,
                        Some(ChunkKeysArg::TextOccurrence) => ChunkKeys::TextOccurrence,
                        Some(ChunkKeysArg::TextPath) => ChunkKeys::TextPath,
                        Some(ChunkKeysArg::TextPathOccurrence) => ChunkKeys::TextPathOccurrence,
                    },
                    images: chunking.images && !self.no_image_text,
                },
                rules: MaskRules {
                    wrappers: base.tablechunk.rules.wrappers && !self.chunk_no_wrappers,
                    letterless_neutral: base.tablechunk.rules.letterless_neutral
                        && !self.chunk_letterless_evidence,
                    image_chunks_template_only: base.tablechunk.rules.image_chunks_template_only
                        && !self.chunk_image_evidence,
                },
                ..base.tablechunk
            },
            sample: SampleConfig {
                pages: self.site_pages,
                ..base.sample
            },
            pagelevel: PageLevelConfig {
                smooth: !self.no_smooth,
                penalty: self.penalty,
                ..base.pagelevel
            },
            time_limit: self.time_limit,
            ..base
        }
    }
}

/// A number of seconds ≥ 0 as a duration.
fn seconds(s: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = s.parse().map_err(|e| format!("{e}"))?;
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("not a number of seconds ≥ 0: {s}"))
}

/// The library relation for a command-line choice.
pub fn equality(arg: EqualityArg, threshold: f64) -> Equality {
    match arg {
        EqualityArg::Label => Equality::Label,
        EqualityArg::LabelIdClass => Equality::LabelIdClass,
        EqualityArg::Weighted => Equality::weighted(threshold),
    }
}

/// Arguments of `templex template`.
#[derive(Debug, Args)]
pub struct TemplateArgs {
    /// The key page: a file path (inside --site DIR if given) or an http(s) URL.
    pub page: String,

    #[command(flatten)]
    pub source: SourceArgs,

    #[command(flatten)]
    pub method: MethodArgs,

    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TemplateFormat::Annotated)]
    pub format: TemplateFormat,
}

/// Run `templex template`.
pub fn run(args: TemplateArgs) -> Result<ExitCode> {
    let opened = args.source.open(&args.page)?;
    let config = TemplateConfig {
        budget: args.budget.budget(),
        ..args.method.try_config()?
    };
    let result = extract_template(opened.source.as_ref(), &opened.page_url, &config)
        .with_context(|| format!("cannot load key page {}", opened.page_url))?;
    for note in &result.notes {
        tracing::warn!("{note}");
    }
    tracing::info!(
        cs = result.cs_pages.len(),
        loads = result.loads.attempts,
        ms = result.timings.total.as_secs_f64() * 1e3,
        "template extracted"
    );
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    match args.format {
        TemplateFormat::Annotated => {
            w.write_all(annotated_html(&result.doc, &result.template).as_bytes())?
        }
        TemplateFormat::Template => {
            w.write_all(template_html(&result.doc, &result.template, &result.key_url).as_bytes())?
        }
        TemplateFormat::Json => serde_json::to_writer_pretty(&mut w, &template_report(&result))?,
        TemplateFormat::Text => {
            let text = visible_text(&result.doc, TextOptions::default(), &|id| {
                !result.is_template(id)
            });
            w.write_all(text.as_bytes())?;
        }
        TemplateFormat::Segments => {
            if result.segments.is_empty() {
                anyhow::bail!(
                    "no segments: --format segments needs --method pagelevel (or a page-level fallback)"
                );
            }
            serde_json::to_writer_pretty(&mut w, &result.segments)?;
        }
    }
    writeln!(w)?;
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}
