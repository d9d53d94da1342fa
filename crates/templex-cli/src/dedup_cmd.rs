//! `templex dedup`: near-duplicate clusters of content records (JSON lines of `templex batch`
//! or `templex content --format jsonl`), or of pages read from WARCs, mirrors and HTML files
//! and extracted as `templex batch` extracts them.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use templex::batch::{BatchConfig, BatchInput, OutRecord, Progress, RecordSink, TemplateStore};
use templex::duplicates::{DedupConfig, DedupIndex, Fingerprint, FingerprintConfig, Fingerprinter};

use crate::input::{BudgetArgs, FingerprintArgs};

/// Arguments of `templex dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// JSON lines of content records (`.jsonl`, `.ndjson`, `.json`, optionally `.gz`; `-`
    /// for stdin) with `text` or `fingerprint`; anything else (WARC files, mirror
    /// directories, HTML files) is extracted first, as `templex batch` does.
    #[arg(required = true)]
    pub inputs: Vec<String>,

    /// Output: one JSON line per input record (default: stdout).
    #[arg(long, short, value_name = "FILE.jsonl")]
    pub out: Option<PathBuf>,

    /// Estimated Jaccard similarity of word shingles from which two records are near
    /// duplicates.
    #[arg(long, default_value_t = DedupConfig::default().threshold, value_parser = unit_interval)]
    pub threshold: f64,

    /// Write only the records that have a duplicate (clusters of two or more).
    #[arg(long)]
    pub duplicates_only: bool,

    #[command(flatten)]
    pub fingerprint: FingerprintArgs,

    #[command(flatten)]
    pub budget: BudgetArgs,
}

fn unit_interval(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) && v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number in (0, 1]")),
    }
}

/// What is kept of a record until the clusters are known: where it came from, not its text.
struct Meta {
    url: Option<Box<str>>,
    input: Option<Box<str>>,
    /// Why the record takes no part (no content, a bad line).
    skipped: Option<Box<str>>,
    bad: bool,
}

/// The fields of an input line that dedup reads (any others are ignored).
#[derive(Deserialize)]
struct InLine {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    input: Option<String>,
    #[serde(default)]
    text: Option<String>,
    /// Read loosely: a fingerprint of other settings, or a malformed one, is recomputed from
    /// the text rather than failing the line.
    #[serde(default)]
    fingerprint: Option<serde_json::Value>,
    #[serde(default)]
    error: Option<String>,
}

/// One output line.
#[derive(Serialize)]
struct OutLine<'a> {
    id: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nearest: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

/// The run's state: the index and what is kept per record.
struct Dedup {
    index: DedupIndex,
    fingerprinter: Fingerprinter,
    config: FingerprintConfig,
    meta: Vec<Meta>,
    bad: usize,
    recomputed: usize,
    bar: ProgressBar,
}

impl Dedup {
    fn add(
        &mut self,
        url: Option<String>,
        input: Option<String>,
        text: Option<&str>,
        fingerprint: Option<Fingerprint>,
        error: Option<&str>,
    ) {
        let fp = match fingerprint.filter(|f| f.matches(&self.config)) {
            Some(f) => Some(f),
            None => text.map(|t| {
                self.recomputed += 1;
                self.fingerprinter.fingerprint(t)
            }),
        };
        let skipped = match (&fp, error) {
            (_, Some(e)) => Some(format!("no content: {e}")),
            (None, None) => Some("no text and no fingerprint".to_string()),
            (Some(f), None) if f.is_empty() => Some("no words".to_string()),
            _ => None,
        };
        match (&fp, &skipped) {
            (Some(f), None) => self.index.add(f),
            _ => self.index.add_empty(),
        };
        self.meta.push(Meta {
            url: url.map(String::into_boxed_str),
            input: input.map(String::into_boxed_str),
            skipped: skipped.map(String::into_boxed_str),
            bad: false,
        });
        self.tick();
    }

    fn add_bad(&mut self, at: String, error: String) {
        tracing::warn!(at = %at, error = %error, "bad input line");
        self.bad += 1;
        self.index.add_empty();
        self.meta.push(Meta {
            url: None,
            input: Some(at.into_boxed_str()),
            skipped: Some(error.into_boxed_str()),
            bad: true,
        });
        self.tick();
    }

    fn tick(&self) {
        if self.meta.len() % 1024 == 0 {
            self.bar.set_position(self.meta.len() as u64);
        }
    }

    fn line(&mut self, at: impl Fn() -> String, bytes: &[u8], complete: bool) {
        let parsed = std::str::from_utf8(bytes)
            .map_err(|e| format!("not UTF-8: {e}"))
            .and_then(|s| serde_json::from_str::<InLine>(s).map_err(|e| e.to_string()));
        match parsed {
            Ok(l) => {
                let fp = l
                    .fingerprint
                    .and_then(|v| serde_json::from_value::<Fingerprint>(v).ok());
                self.add(l.url, l.input, l.text.as_deref(), fp, l.error.as_deref());
            }
            // A last line without its newline is what an interrupted writer leaves.
            Err(e) if !complete => self.add_bad(at(), format!("truncated line: {e}")),
            Err(e) => self.add_bad(at(), format!("invalid JSON line: {e}")),
        }
    }

    /// Every line of a JSON lines stream; blank lines are no records.
    fn read_lines(&mut self, name: &str, r: impl Read) -> Result<()> {
        let mut r = BufReader::with_capacity(1 << 20, r);
        let mut buf = Vec::new();
        let mut n = 0usize;
        loop {
            buf.clear();
            let read = r
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("cannot read {name} after line {n}"))?;
            if read == 0 {
                return Ok(());
            }
            n += 1;
            let complete = buf.last() == Some(&b'\n');
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.line(|| format!("{name}:{n}"), &buf, complete);
        }
    }
}

/// The batch run's records go straight into the index.
struct IndexSink<'a>(&'a mut Dedup);

impl RecordSink for IndexSink<'_> {
    fn write(&mut self, r: OutRecord) -> std::io::Result<()> {
        let d = &mut *self.0;
        d.add(
            r.url,
            Some(r.input),
            r.text.as_deref(),
            r.fingerprint.map(|f| *f),
            r.error.as_deref(),
        );
        Ok(())
    }
}

fn is_json_lines(input: &str) -> bool {
    let name = input.strip_suffix(".gz").unwrap_or(input);
    input == "-"
        || [".jsonl", ".ndjson", ".json"]
            .iter()
            .any(|ext| name.to_ascii_lowercase().ends_with(ext))
}

fn open_lines(path: &Path) -> Result<Box<dyn Read>> {
    let f = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Ok(if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    })
}

/// Run `templex dedup`.
pub fn run(args: DedupArgs) -> Result<ExitCode> {
    let t0 = Instant::now();
    let config = args.fingerprint.config();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} records read {elapsed} ({per_sec})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let dedup_config = DedupConfig {
        threshold: args.threshold,
        ..DedupConfig::default()
    };
    let mut d = Dedup {
        index: DedupIndex::new(dedup_config, config.minhash),
        fingerprinter: Fingerprinter::new(config),
        config,
        meta: Vec::new(),
        bad: 0,
        recomputed: 0,
        bar: bar.clone(),
    };
    // Consecutive inputs that need extracting go through one batch run, so that a site
    // spread over several files is learned once.
    let mut pending: Vec<BatchInput> = Vec::new();
    for (i, input) in args.inputs.iter().enumerate() {
        if is_json_lines(input) {
            extract_into(&mut d, &mut pending, &args, config)?;
            if input == "-" {
                d.read_lines("-", std::io::stdin().lock())?;
            } else {
                d.read_lines(input, open_lines(Path::new(input))?)?;
            }
        } else {
            let p = Path::new(input);
            if !p.exists() {
                bail!("{input}: no such file or directory");
            }
            pending.push(BatchInput::from_path(input, &[]));
        }
        if i + 1 == args.inputs.len() {
            extract_into(&mut d, &mut pending, &args, config)?;
        }
    }
    bar.finish_and_clear();
    let read_s = t0.elapsed().as_secs_f64();
    let banding = d.index.banding();
    let records = d.meta.len();
    let assignments = d.index.finish();

    let mut w: Box<dyn Write> = match &args.out {
        Some(p) => Box::new(BufWriter::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let (mut clusters, mut in_clusters, mut exact, mut skipped) = (0usize, 0usize, 0usize, 0usize);
    for (id, (a, m)) in assignments.iter().zip(&d.meta).enumerate() {
        let has_content = m.skipped.is_none();
        if has_content && a.size > 1 {
            in_clusters += 1;
            if a.cluster as usize == id {
                clusters += 1;
            }
            exact += usize::from(a.exact);
        }
        skipped += usize::from(!has_content && !m.bad);
        if args.duplicates_only && !(has_content && a.size > 1) {
            continue;
        }
        let line = OutLine {
            id: id as u32,
            url: m.url.as_deref(),
            input: m.input.as_deref(),
            cluster: has_content.then_some(a.cluster),
            size: has_content.then_some(a.size),
            nearest: a.nearest.filter(|_| has_content).map(|(n, _)| n),
            similarity: a
                .nearest
                .filter(|_| has_content)
                .map(|(_, s)| (f64::from(s) * 1e4).round() / 1e4),
            exact: a.exact,
            skipped: m.skipped.as_deref().filter(|_| !m.bad),
            error: m.skipped.as_deref().filter(|_| m.bad),
        };
        serde_json::to_writer(&mut w, &line)?;
        w.write_all(b"\n")?;
    }
    w.flush()?;
    eprintln!(
        "{records} records: {clusters} clusters of near duplicates hold {in_clusters} records \
         ({} to drop keeping one per cluster; {exact} with an exact copy); \
         {skipped} without content, {} bad lines; {} fingerprints computed here; \
         threshold {}, {}×{} bands; read {read_s:.1} s, total {:.1} s",
        in_clusters - clusters,
        d.bad,
        d.recomputed,
        args.threshold,
        banding.bands,
        banding.rows,
        t0.elapsed().as_secs_f64(),
    );
    Ok(if d.bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Extract the pending inputs as `templex batch` does (the default method, a template store
/// in memory) into the index.
fn extract_into(
    d: &mut Dedup,
    pending: &mut Vec<BatchInput>,
    args: &DedupArgs,
    config: FingerprintConfig,
) -> Result<()> {
    if pending.is_empty() {
        return Ok(());
    }
    let inputs = std::mem::take(pending);
    let batch_config = BatchConfig {
        budget: args.budget.budget(),
        fingerprint: Some(config),
        ..BatchConfig::default()
    };
    let mut store = TemplateStore::in_memory().context("cannot open a template store")?;
    let mut sink = IndexSink(d);
    let identity: Vec<String> = inputs.iter().map(BatchInput::identity).collect();
    templex::batch::run_records(
        templex::batch::records(&inputs),
        &identity.join("\n"),
        &batch_config,
        &mut store,
        &mut sink,
        &|_: Progress| {},
    )?;
    Ok(())
}
