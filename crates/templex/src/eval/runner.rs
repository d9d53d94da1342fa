//! Running a detector over every key page of the gold standard and summarising the scores.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use super::EvalError;
use super::gold::{GoldSite, KeyPage, gold_content, load_gold};
use super::score::{PageScore, Prf, score};
use crate::dom::{Document, Selector};
use crate::siblings::{SiblingRule, StopReason};
use crate::source::MirrorSource;
use crate::template::TemplateResult;

/// What a detector says about one key page.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// The parsed key page; gold selectors are matched on this very tree, so prediction and
    /// gold always refer to the same node ids.
    pub doc: Document,
    /// Per node id of `doc`: whether the node is template.
    pub template: Vec<bool>,
    /// Pages the detector loaded (the key page included).
    pub pages_loaded: usize,
    /// Time the detector took.
    pub time: Duration,
    /// The detector's remarks, copied into the report row.
    pub notes: Vec<String>,
    /// Why the sibling search stopped (site-level detectors that search siblings), so that
    /// key pages that ran into the load cap can be counted.
    pub stop: Option<StopReason>,
    /// Which rule chose the pages the key page was compared with.
    pub siblings: Option<SiblingRule>,
}

impl From<TemplateResult> for Prediction {
    fn from(r: TemplateResult) -> Self {
        let searched =
            matches!(r.method, crate::Method::TemEx | crate::Method::HybEx) || r.fallback;
        Prediction {
            doc: r.doc,
            template: r.template,
            pages_loaded: r.loads.attempts,
            time: r.timings.total,
            notes: r.notes,
            stop: searched.then_some(r.stop),
            siblings: searched.then_some(r.siblings),
        }
    }
}

/// The result for one key page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageRow {
    /// Site name from the gold file.
    pub site: String,
    /// Key page file, relative to the site mirror.
    pub page: String,
    /// Page type from the gold file.
    pub kind: String,
    /// The key page URL given to the detector (absent if it could not be formed).
    pub url: Option<String>,
    /// Template-class scores (all 0 on error).
    pub template: Prf,
    /// Content-class scores (all 0 on error).
    pub content: Prf,
    /// Template class over visible words (the page-level paper's "Text" measure).
    #[serde(default)]
    pub template_words: Prf,
    /// Template class over links (the page-level paper's "Links" measure).
    #[serde(default)]
    pub template_links: Prf,
    /// Element descendants of `<body>`.
    pub body_elements: usize,
    /// Body elements outside the gold content.
    pub gold_template: usize,
    /// Body elements the detector marked template.
    pub predicted_template: usize,
    /// Pages loaded by the detector (absent if it failed).
    pub pages_loaded: Option<usize>,
    /// Detector time in milliseconds (absent if it failed).
    pub time_ms: Option<f64>,
    /// Detector notes and gold warnings (e.g. a content selector matching nothing).
    pub notes: Vec<String>,
    /// Why the page could not be evaluated; such a page scores 0 for both classes.
    pub error: Option<String>,
    /// Why the sibling search stopped (absent for detectors without one).
    #[serde(default)]
    pub stop: Option<StopReason>,
    /// Which rule chose the pages the key page was compared with.
    #[serde(default)]
    pub siblings: Option<SiblingRule>,
}

impl PageRow {
    fn new(site: &GoldSite, key: &KeyPage) -> PageRow {
        PageRow {
            site: site.site.clone(),
            page: key.page.clone(),
            kind: key.kind.clone(),
            url: None,
            template: Prf::default(),
            content: Prf::default(),
            template_words: Prf::default(),
            template_links: Prf::default(),
            body_elements: 0,
            gold_template: 0,
            predicted_template: 0,
            pages_loaded: None,
            time_ms: None,
            notes: Vec::new(),
            error: None,
            stop: None,
            siblings: None,
        }
    }

    fn failed(mut self, error: String) -> PageRow {
        tracing::warn!(site = %self.site, page = %self.page, "evaluation failed: {error}");
        self.error = Some(error);
        self
    }

    fn set_score(&mut self, s: &PageScore) {
        self.template = s.template;
        self.content = s.content;
        self.template_words = s.template_words;
        self.template_links = s.template_links;
        self.body_elements = s.body_elements;
        self.gold_template = s.gold_template;
        self.predicted_template = s.predicted_template;
    }
}

/// Mean precision, recall and F1 over key pages (the F1 is the mean of per-page F1s, not the
/// F1 of the mean precision and recall).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MeanPrf {
    /// Mean precision.
    pub precision: f64,
    /// Mean recall.
    pub recall: f64,
    /// Mean F1.
    pub f1: f64,
}

/// Macro averages over the key pages of a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MacroScores {
    /// Key pages evaluated (failed ones included).
    pub pages: usize,
    /// Key pages that failed (counted with F1 0).
    pub errors: usize,
    /// Template class, over all key pages.
    pub template: MeanPrf,
    /// Content class, over all key pages.
    pub content: MeanPrf,
    /// Template class over words, over all key pages.
    #[serde(default)]
    pub template_words: MeanPrf,
    /// Template class over links, over all key pages.
    #[serde(default)]
    pub template_links: MeanPrf,
    /// Mean pages loaded, over key pages the detector finished.
    pub mean_loads: f64,
    /// Median pages loaded, over key pages the detector finished.
    pub median_loads: f64,
    /// Mean detector time in ms, over key pages the detector finished.
    pub mean_ms: f64,
    /// Median detector time in ms, over key pages the detector finished.
    pub median_ms: f64,
    /// Key pages whose sibling search stopped at the load cap: the slow cases, and usually
    /// those whose template the site's menu pages do not share.
    #[serde(default)]
    pub load_cap: usize,
}

impl MacroScores {
    /// Averages of `rows`.
    pub fn of(rows: &[PageRow]) -> MacroScores {
        let n = rows.len();
        let mean = |f: &dyn Fn(&PageRow) -> f64| {
            if n == 0 {
                0.0
            } else {
                rows.iter().map(f).sum::<f64>() / n as f64
            }
        };
        let loads: Vec<f64> = rows
            .iter()
            .filter_map(|r| r.pages_loaded.map(|l| l as f64))
            .collect();
        let times: Vec<f64> = rows.iter().filter_map(|r| r.time_ms).collect();
        MacroScores {
            pages: n,
            errors: rows.iter().filter(|r| r.error.is_some()).count(),
            template: MeanPrf {
                precision: mean(&|r| r.template.precision),
                recall: mean(&|r| r.template.recall),
                f1: mean(&|r| r.template.f1),
            },
            content: MeanPrf {
                precision: mean(&|r| r.content.precision),
                recall: mean(&|r| r.content.recall),
                f1: mean(&|r| r.content.f1),
            },
            template_words: MeanPrf {
                precision: mean(&|r| r.template_words.precision),
                recall: mean(&|r| r.template_words.recall),
                f1: mean(&|r| r.template_words.f1),
            },
            template_links: MeanPrf {
                precision: mean(&|r| r.template_links.precision),
                recall: mean(&|r| r.template_links.recall),
                f1: mean(&|r| r.template_links.f1),
            },
            mean_loads: mean_of(&loads),
            median_loads: median_of(loads),
            mean_ms: mean_of(&times),
            median_ms: median_of(times),
            load_cap: rows
                .iter()
                .filter(|r| r.stop == Some(StopReason::LoadCap))
                .count(),
        }
    }
}

/// Macro averages over the key pages of one kind (the gold's `kind`: home, article,
/// listing, …): a method tuned on menu pages shows here where it fails other kinds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindScores {
    /// The page kind.
    pub kind: String,
    /// Averages over the key pages of this kind.
    pub scores: MacroScores,
    /// The lowest template F1 and content F1 of a key page of this kind.
    pub min_f1: (f64, f64),
}

/// One [`KindScores`] per kind of `rows`, sorted by kind.
pub(crate) fn by_kind(rows: &[PageRow]) -> Vec<KindScores> {
    let mut kinds: Vec<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| {
            let of: Vec<PageRow> = rows.iter().filter(|r| r.kind == kind).cloned().collect();
            let min = |f: &dyn Fn(&PageRow) -> f64| of.iter().map(f).fold(f64::INFINITY, f64::min);
            KindScores {
                kind: kind.to_string(),
                min_f1: (min(&|r| r.template.f1), min(&|r| r.content.f1)),
                scores: MacroScores::of(&of),
            }
        })
        .collect()
}

fn mean_of(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn median_of(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// All key-page rows of one run plus their macro averages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// One row per key page, in gold order (sites by file name, key pages as listed).
    pub rows: Vec<PageRow>,
    /// Macro averages over `rows`.
    #[serde(rename = "macro")]
    pub macro_avg: MacroScores,
    /// Macro averages per key-page kind.
    #[serde(default)]
    pub by_kind: Vec<KindScores>,
}

impl EvalReport {
    /// A report over `rows`, computing the averages.
    pub fn from_rows(rows: Vec<PageRow>) -> EvalReport {
        let macro_avg = MacroScores::of(&rows);
        let by_kind = by_kind(&rows);
        EvalReport {
            rows,
            macro_avg,
            by_kind,
        }
    }

    /// The report as an aligned text table: one row per key page, a macro row, a median row,
    /// then the errors and notes.
    pub fn table(&self) -> String {
        self.to_string()
    }
}

/// Longest key-page name shown in the table; longer ones keep their (more telling) end.
const PAGE_WIDTH: usize = 44;

fn shorten(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        s.to_string()
    } else {
        let tail: String = s.chars().skip(n - (width - 1)).collect();
        format!("…{tail}")
    }
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pages: Vec<String> = self
            .rows
            .iter()
            .map(|r| shorten(&r.page, PAGE_WIDTH))
            .collect();
        let site_w = self
            .rows
            .iter()
            .map(|r| r.site.chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let page_w = pages
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0)
            .max(4);
        let kind_w = self
            .rows
            .iter()
            .map(|r| r.kind.chars().count())
            .max()
            .unwrap_or(0)
            .max(4);
        writeln!(
            f,
            "{:<site_w$}  {:<page_w$}  {:<kind_w$}  {:>5} {:>5} {:>5}  {:>5} {:>5} {:>5}  {:>5} {:>8}",
            "site", "page", "kind", "T-P", "T-R", "T-F1", "C-P", "C-R", "C-F1", "loads", "ms"
        )?;
        for (r, page) in self.rows.iter().zip(&pages) {
            let loads = r.pages_loaded.map_or("-".to_string(), |l| l.to_string());
            let ms = r.time_ms.map_or("-".to_string(), |t| format!("{t:.1}"));
            writeln!(
                f,
                "{:<site_w$}  {:<page_w$}  {:<kind_w$}  {:>5.3} {:>5.3} {:>5.3}  {:>5.3} {:>5.3} {:>5.3}  {:>5} {:>8}{}",
                r.site,
                page,
                r.kind,
                r.template.precision,
                r.template.recall,
                r.template.f1,
                r.content.precision,
                r.content.recall,
                r.content.f1,
                loads,
                ms,
                if r.error.is_some() { "  ERROR" } else { "" }
            )?;
        }
        let m = &self.macro_avg;
        let label_w = site_w + page_w + kind_w + 4;
        let label = format!("macro ({} pages, {} errors)", m.pages, m.errors);
        writeln!(
            f,
            "{:<label_w$}  {:>5.3} {:>5.3} {:>5.3}  {:>5.3} {:>5.3} {:>5.3}  {:>5.2} {:>8.1}",
            label,
            m.template.precision,
            m.template.recall,
            m.template.f1,
            m.content.precision,
            m.content.recall,
            m.content.f1,
            m.mean_loads,
            m.mean_ms
        )?;
        writeln!(
            f,
            "{:<label_w$}  {:>5} {:>5} {:>5}  {:>5} {:>5} {:>5}  {:>5.1} {:>8.1}",
            "median", "", "", "", "", "", "", m.median_loads, m.median_ms
        )?;
        writeln!(
            f,
            "template class by words P/R/F1 {:.3} {:.3} {:.3}, by links {:.3} {:.3} {:.3} (macro)",
            m.template_words.precision,
            m.template_words.recall,
            m.template_words.f1,
            m.template_links.precision,
            m.template_links.recall,
            m.template_links.f1
        )?;
        writeln!(f, "key pages at the load cap: {}", m.load_cap)?;
        writeln!(
            f,
            "{:<kind_w$}  {:>5}  {:>5} {:>5}  {:>7} {:>7}  {:>5} {:>8}",
            "per kind", "pages", "T-F1", "C-F1", "min T-F1", "min C-F1", "loads", "med ms"
        )?;
        for k in &self.by_kind {
            writeln!(
                f,
                "{:<kind_w$}  {:>5}  {:>5.3} {:>5.3}  {:>7.3} {:>7.3}  {:>5.2} {:>8.1}",
                k.kind,
                k.scores.pages,
                k.scores.template.f1,
                k.scores.content.f1,
                k.min_f1.0,
                k.min_f1.1,
                k.scores.mean_loads,
                k.scores.median_ms
            )?;
        }
        let rules: Vec<(SiblingRule, usize)> = SiblingRule::ALL
            .iter()
            .map(|r| {
                (
                    *r,
                    self.rows.iter().filter(|x| x.siblings == Some(*r)).count(),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        if !rules.is_empty() {
            let list: Vec<String> = rules
                .iter()
                .map(|(r, n)| format!("{} {n}", r.name()))
                .collect();
            writeln!(f, "siblings chosen by: {}", list.join(", "))?;
        }
        for r in &self.rows {
            if let Some(e) = &r.error {
                writeln!(f, "error: {} {}: {e}", r.site, r.page)?;
            }
            for n in &r.notes {
                writeln!(f, "note: {} {}: {n}", r.site, r.page)?;
            }
        }
        Ok(())
    }
}

/// The detector interface of the runner: given the mirror of a key page's site and the key
/// page URL in it, return the prediction or an error message.
pub(crate) type Detector<'a> = dyn Fn(&MirrorSource, &Url) -> Result<Prediction, String> + 'a;

/// Run `predict` on every key page of the gold files in `gold_dir`, with site mirrors under
/// `data_dir`. Fails only if the gold standard cannot be read; per-page failures are rows
/// with an error.
pub fn evaluate(
    data_dir: &Path,
    gold_dir: &Path,
    predict: &Detector<'_>,
) -> Result<EvalReport, EvalError> {
    let sites = load_gold(gold_dir)?;
    Ok(evaluate_sites(data_dir, &sites, predict))
}

/// Run `predict` on every key page of `sites` (see [`evaluate`]); for sweeps, which read the
/// gold once and evaluate many settings.
pub fn evaluate_sites(data_dir: &Path, sites: &[GoldSite], predict: &Detector<'_>) -> EvalReport {
    let mut rows = Vec::new();
    for site in sites {
        for key in &site.key_pages {
            let row = evaluate_page(data_dir, site, key, predict);
            tracing::info!(
                site = %row.site,
                page = %row.page,
                template_f1 = row.template.f1,
                content_f1 = row.content.f1,
                loads = row.pages_loaded,
                "key page evaluated"
            );
            rows.push(row);
        }
    }
    EvalReport::from_rows(rows)
}

fn evaluate_page(
    data_dir: &Path,
    site: &GoldSite,
    key: &KeyPage,
    predict: &Detector<'_>,
) -> PageRow {
    let mut row = PageRow::new(site, key);
    // A fresh source per key page: sources count loads cumulatively, and a source shared by
    // the key pages of a site would also let one key page profit from another's caches.
    let source = match site.mirror(data_dir) {
        Ok(s) => s,
        Err(e) => return row.failed(format!("cannot open site mirror: {e}")),
    };
    let Some(url) = key.url(&source) else {
        return row.failed(format!(
            "key page {} not found in {}",
            key.page,
            source.root().display()
        ));
    };
    row.url = Some(url.to_string());
    let pred = match predict(&source, &url) {
        Ok(p) => p,
        Err(e) => return row.failed(e),
    };
    row.pages_loaded = Some(pred.pages_loaded);
    row.time_ms = Some(pred.time.as_secs_f64() * 1000.0);
    row.notes = pred.notes;
    row.stop = pred.stop;
    row.siblings = pred.siblings;
    if pred.template.len() != pred.doc.len() {
        row.notes.push(format!(
            "template mask has {} entries for {} nodes",
            pred.template.len(),
            pred.doc.len()
        ));
    }
    let gold = match gold_content(&pred.doc, &key.content) {
        Ok(g) => g,
        Err(e) => return row.failed(format!("gold: {e}")),
    };
    // A selector that matches nothing means the gold and the page drifted apart; the score
    // is still computed, but the row says so.
    for css in &key.content {
        if Selector::parse(css).is_ok_and(|s| s.select(&pred.doc).is_empty()) {
            row.notes
                .push(format!("gold selector {css:?} matches nothing"));
        }
    }
    row.set_score(&score(&pred.doc, &pred.template, &gold));
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    fn write_site(root: &Path) -> GoldSite {
        let dir = root.join("sites/ex");
        std::fs::create_dir_all(dir.join("a")).unwrap();
        let page = |body: &str| {
            format!(
                "<html><body><nav><a href=/a/x.html>x</a></nav><main id=c>{body}</main></body></html>"
            )
        };
        std::fs::write(dir.join("index.html"), page("<p>home</p>")).unwrap();
        std::fs::write(dir.join("a/x.html"), page("<p>x</p><p>y</p>")).unwrap();
        GoldSite {
            site: "ex".into(),
            dir: "sites/ex".into(),
            url_prefixes: vec!["https://ex.example/".into()],
            key_pages: vec![
                KeyPage {
                    page: "index.html".into(),
                    kind: "home".into(),
                    content: vec!["#c".into(), ".nothing".into()],
                    note: String::new(),
                },
                KeyPage {
                    page: "a/x.html".into(),
                    kind: "article".into(),
                    content: vec!["#c".into()],
                    note: String::new(),
                },
                KeyPage {
                    page: "missing.html".into(),
                    kind: "other".into(),
                    content: vec!["#c".into()],
                    note: String::new(),
                },
            ],
        }
    }

    #[test]
    fn runner_scores_rows_and_macro() {
        let tmp = tempfile::tempdir().unwrap();
        let site = write_site(tmp.path());
        // An oracle that marks exactly the <nav> subtree template.
        let oracle = |source: &MirrorSource, url: &Url| -> Result<Prediction, String> {
            let page = crate::PageSource::load(source, url).map_err(|e| e.to_string())?;
            let doc = page.parse();
            let mut template = vec![false; doc.len()];
            for nav in crate::dom::select(&doc, "nav").unwrap() {
                for n in doc.subtree(nav) {
                    template[n as usize] = true;
                }
            }
            Ok(Prediction {
                doc,
                template,
                pages_loaded: 1,
                time: Duration::from_millis(4),
                notes: vec![],
                stop: Some(StopReason::LoadCap),
                siblings: None,
            })
        };
        let report = evaluate_sites(tmp.path(), std::slice::from_ref(&site), &oracle);
        assert_eq!(report.rows.len(), 3);
        let r0 = &report.rows[0];
        assert_eq!(r0.url.as_deref(), Some("https://ex.example/index.html"));
        assert_eq!((r0.template.f1, r0.content.f1), (1.0, 1.0));
        assert_eq!(r0.body_elements, 4);
        assert_eq!(r0.pages_loaded, Some(1));
        assert_eq!(r0.time_ms, Some(4.0));
        assert!(
            r0.notes.iter().any(|n| n.contains(".nothing")),
            "{:?}",
            r0.notes
        );
        assert!(report.rows[1].error.is_none());
        let r2 = &report.rows[2];
        assert!(r2.error.as_deref().unwrap().contains("not found"));
        assert_eq!((r2.template.f1, r2.content.f1), (0.0, 0.0));
        let m = report.macro_avg;
        assert_eq!((m.pages, m.errors), (3, 1));
        assert!((m.template.f1 - 2.0 / 3.0).abs() < 1e-12);
        assert!((m.content.f1 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!((m.mean_loads, m.median_loads, m.median_ms), (1.0, 1.0, 4.0));
        assert_eq!(m.load_cap, 2, "the two pages that reached the detector");
        let kinds: Vec<&str> = report.by_kind.iter().map(|k| k.kind.as_str()).collect();
        assert_eq!(kinds, ["article", "home", "other"]);
        assert_eq!(report.by_kind[1].scores.template.f1, 1.0);
        assert_eq!(report.by_kind[2].min_f1, (0.0, 0.0));

        let table = report.table();
        assert_eq!(table.lines().filter(|l| l.starts_with("ex ")).count(), 3);
        assert!(table.contains("macro (3 pages, 1 errors)"), "{table}");
        assert!(table.contains("error: ex missing.html"), "{table}");
        assert!(table.contains("key pages at the load cap: 2"), "{table}");
        assert!(table.contains("per kind"), "{table}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["rows"].as_array().unwrap().len(), 3);
        assert_eq!(json["rows"][0]["template"]["fn"], 0);
        assert!(json["macro"]["template"]["f1"].is_f64());
        let back: EvalReport = serde_json::from_value(json).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn detector_errors_and_bad_gold_are_rows() {
        let tmp = tempfile::tempdir().unwrap();
        let mut site = write_site(tmp.path());
        site.key_pages.truncate(2);
        site.key_pages[1].content = vec!["p:hover".into()];
        let failing = |_: &MirrorSource, url: &Url| -> Result<Prediction, String> {
            if url.path().ends_with("index.html") {
                Err("boom".into())
            } else {
                let doc = parse_str("<body><p>x</p></body>");
                let template = vec![true; doc.len()];
                Ok(Prediction {
                    doc,
                    template,
                    pages_loaded: 2,
                    time: Duration::ZERO,
                    notes: vec!["n".into()],
                    stop: None,
                    siblings: None,
                })
            }
        };
        let report = evaluate_sites(tmp.path(), &[site], &failing);
        assert_eq!(report.rows[0].error.as_deref(), Some("boom"));
        assert_eq!(report.rows[0].pages_loaded, None);
        assert!(
            report.rows[1]
                .error
                .as_deref()
                .unwrap()
                .starts_with("gold: ")
        );
        assert_eq!(
            report.rows[1].pages_loaded,
            Some(2),
            "loads are known despite bad gold"
        );
        assert_eq!(report.macro_avg.errors, 2);
        assert_eq!(report.macro_avg.template.f1, 0.0);
        assert_eq!(report.macro_avg.mean_loads, 2.0);
    }

    #[test]
    fn missing_mirror_is_an_error_row() {
        let tmp = tempfile::tempdir().unwrap();
        let mut site = write_site(tmp.path());
        site.dir = "sites/nope".into();
        let never = |_: &MirrorSource, _: &Url| -> Result<Prediction, String> {
            panic!("must not be called")
        };
        let report = evaluate_sites(tmp.path(), &[site], &never);
        assert!(report.rows.iter().all(|r| r.error.is_some()));
        assert!(evaluate(tmp.path(), &tmp.path().join("nogold"), &never).is_err());
    }

    #[test]
    fn medians() {
        assert_eq!(median_of(vec![]), 0.0);
        assert_eq!(median_of(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_of(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(shorten("abcdef", 4), "…def");
        assert_eq!(shorten("abc", 4), "abc");
    }
}
