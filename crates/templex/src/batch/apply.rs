//! Applying: a page's cluster found by its fingerprint, the cluster's learned model applied
//! once (the template: its share of the page, and the page minus it when asked for), and
//! the output record's content: the page-level main content, refined by what the cluster
//! shows ([`crate::sitecontent`]) when a template fits.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::cluster::Fingerprint;
use crate::dom::{Document, NodeId, PageError, ParseMode, parse_page};
use crate::extract::{content_markdown, content_text, non_template_mask, page_metadata};
use crate::method::Method;
use crate::page::{page_level_content_of_text, page_level_content_with_template};
use crate::sitecontent::{SiteContent, refine};
use crate::store::model::{Applier, LearnedModel, ModelPage};

use super::config::BatchConfig;
use super::input::RecordIn;
use super::output::OutRecord;

/// Parse a page as a batch run's method reads it (lean, and for the methods that read text
/// only, without the attributes they never look at), within the run's page budget.
pub(super) fn parse_for(
    config: &BatchConfig,
    body: &[u8],
    charset: Option<&str>,
) -> Result<Document, PageError> {
    parse_page(
        body,
        charset,
        parse_mode(config),
        &config.budget,
        Instant::now(),
    )
}

/// How a batch run's method parses pages.
pub(super) fn parse_mode(config: &BatchConfig) -> ParseMode {
    match config.method {
        Method::TableChunk | Method::MainContent => ParseMode::Text,
        _ => ParseMode::Lean,
    }
}

/// The page of `rec` parsed lean, for the page-level detectors of a page that batch mode
/// parsed for its text only ([`page_level_content_of_text`]); `None` when it cannot be (no
/// body kept, over the budget), and the detectors read the text parse.
pub(super) fn lean(config: &BatchConfig, rec: &RecordIn) -> Option<Document> {
    if rec.body.is_empty() || parse_mode(config) == ParseMode::Lean {
        return None;
    }
    let charset = rec.charset.as_deref();
    parse_page(
        &rec.body,
        charset,
        ParseMode::Lean,
        &config.budget,
        Instant::now(),
    )
    .ok()
}

/// One template cluster of a site, as the apply phase uses it.
pub(super) struct ClusterTemplate {
    pub(super) number: u32,
    pub(super) core: Fingerprint,
    /// Learned by an earlier run (pages matching it count as reuse).
    pub(super) stored: bool,
    pub(super) model: LearnedModel,
    /// What the cluster's pages show about their main content.
    pub(super) content: SiteContent,
}

/// The templates of one site.
pub(super) type SiteTemplates = Arc<Vec<Arc<ClusterTemplate>>>;

/// A parsed page of the apply phase, with the cluster it belongs to.
pub(super) struct ApplyPage {
    pub(super) doc: Document,
    pub(super) site: String,
    pub(super) print: Fingerprint,
    pub(super) cluster: Option<Arc<ClusterTemplate>>,
}

/// The stored cluster nearest to a page's fingerprint, if near enough.
pub(super) fn nearest_cluster(
    templates: &SiteTemplates,
    print: &Fingerprint,
    config: &BatchConfig,
) -> Option<Arc<ClusterTemplate>> {
    templates
        .iter()
        .map(|t| (t.core.jaccard(print), t))
        .filter(|(s, _)| *s >= config.cluster.similarity)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.number.cmp(&a.1.number)))
        .map(|(_, t)| t.clone())
}

/// The clusters' models ready to apply, per cluster (keyed by its address).
pub(super) type Appliers<'a> = HashMap<usize, Applier<'a>>;

/// Make the clusters' models ready to apply once per chunk (HybEx indexes its references).
pub(super) fn prepare_appliers<'a>(
    clusters: impl Iterator<Item = &'a Arc<ClusterTemplate>>,
    appliers: &mut Appliers<'a>,
) {
    for c in clusters {
        appliers
            .entry(Arc::as_ptr(c) as usize)
            .or_insert_with(|| c.model.applier());
    }
}

pub(super) fn failed(seq: u64, input: String, url: Option<String>, error: String) -> OutRecord {
    OutRecord {
        seq,
        input,
        url,
        site: None,
        cluster: None,
        method: None,
        title: None,
        author: None,
        date: None,
        language: None,
        text: None,
        markdown: None,
        rest: None,
        template_share: None,
        fingerprint: None,
        error: Some(error),
        error_code: None,
    }
}

/// The record of a page the library refused (not HTML, over the page budget).
pub(super) fn refused(seq: u64, input: String, url: Option<String>, e: &PageError) -> OutRecord {
    OutRecord {
        error_code: Some(e.code().to_string()),
        ..failed(seq, input, url, e.to_string())
    }
}

/// The record of a parsed page: its content under its cluster's template (or page-level),
/// within the run's time budget (the extraction has the budget the parse had). A page over
/// it is an error record (`timed_out`), never a stall.
pub(super) fn apply_one(
    rec: &RecordIn,
    page: &ApplyPage,
    applier: Option<&Applier<'_>>,
    config: &BatchConfig,
) -> OutRecord {
    let scope = config.budget.scope(Instant::now());
    let record = extract_one(rec, page, applier, config);
    if scope.passed() {
        // Some stage stopped early: what it left is not the page's content.
        let url = rec.url.as_ref().map(|u| u.to_string());
        let e = config.budget.timed_out("extracting the content");
        return refused(rec.seq, rec.input.clone(), url, &e);
    }
    record
}

fn extract_one(
    rec: &RecordIn,
    page: &ApplyPage,
    applier: Option<&Applier<'_>>,
    config: &BatchConfig,
) -> OutRecord {
    let doc = &page.doc;
    let body = doc.body().unwrap_or(NodeId::ROOT);
    let template = page.cluster.as_ref().zip(applier).map(|(c, applier)| {
        let model_page = ModelPage {
            doc,
            print: &page.print,
            body: &rec.body,
        };
        (
            c,
            applier.template_mask(&model_page, config.protect_content),
        )
    });
    // The page-level main content, refined by what the cluster shows when the page has one:
    // the page minus its template keeps related lists, teasers and section menus.
    let url = rec.url.as_ref();
    let (content, method, cluster, share, rest) = match template {
        Some((c, template)) => {
            let rest = config.rest.then(|| {
                let keep = non_template_mask(doc, &template);
                content_text(doc, body, &|id: NodeId| keep[id.index()])
            });
            let content = page_level_content_with_template(doc, url, &config.content, &template);
            (
                refine(doc, content, &c.content, &config.content),
                c.model.method(),
                Some(format!("{}#{}", page.site, c.number)),
                template_share(doc, &template),
                rest,
            )
        }
        None => {
            let content =
                page_level_content_of_text(doc, url, &config.content, || lean(config, rec));
            (content, Method::MainContent, None, 0.0, None)
        }
    };
    let root = content.root.unwrap_or(body);
    let keep = |id: NodeId| content.is_content(id);
    let text = content_text(doc, root, &keep);
    let markdown = config.markdown.then(|| content_markdown(doc, root, &keep));
    // In the same pass as the text: the content is at hand, and the fingerprints cost a few
    // per cent of extracting it (BENCHMARKS.md, "Near-duplicate detection").
    let fingerprint = config
        .fingerprint
        .map(|f| Box::new(crate::dedup::Fingerprinter::new(f).fingerprint(&text)));
    let meta = page_metadata(doc, rec.url.as_ref());
    OutRecord {
        seq: rec.seq,
        input: rec.input.clone(),
        url: rec.url.as_ref().map(|u| u.to_string()),
        site: Some(page.site.clone()),
        cluster,
        method: Some(method),
        title: meta.title,
        author: meta.author,
        date: meta.date,
        language: meta.language,
        text: Some(text),
        markdown,
        rest,
        template_share: Some((share * 1e4).round() / 1e4),
        fingerprint,
        error: None,
        error_code: None,
    }
}

/// Share of the body's visible words inside template nodes (a text node counts with its
/// element).
pub(crate) fn template_share(doc: &Document, template: &[bool]) -> f64 {
    let Some(body) = doc.body() else { return 0.0 };
    let (mut all, mut tpl) = (0usize, 0usize);
    for id in crate::extract::visible_descendants(doc, body) {
        if let Some(t) = doc.text(id) {
            let w = count_words(t);
            all += w;
            // Methods mark elements (the scoring unit); a text node is its element's.
            let at = |i: NodeId| template.get(i.index()).copied().unwrap_or(false);
            if at(id) || doc.parent(id).is_some_and(at) {
                tpl += w;
            }
        }
    }
    if all == 0 {
        0.0
    } else {
        tpl as f64 / all as f64
    }
}

/// `t.split_whitespace().count()`, without decoding ASCII (most text): every page's words
/// are counted for its template share.
fn count_words(t: &str) -> usize {
    let b = t.as_bytes();
    let (mut words, mut in_word, mut i) = (0, false, 0);
    while i < b.len() {
        let (space, len) = match b[i] {
            c @ 0..0x80 => (matches!(c, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r'), 1),
            _ => t[i..]
                .chars()
                .next()
                .map_or((false, 1), |c| (c.is_whitespace(), c.len_utf8())),
        };
        if space {
            in_word = false;
        } else if !in_word {
            in_word = true;
            words += 1;
        }
        i += len;
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn counts_words_like_split_whitespace() {
        for t in [
            "",
            " ",
            "a",
            " a  b\tc\n",
            "x\u{a0}y\u{3000}z\u{2003}",
            "\u{b}v\u{c}f\rr",
            "naïve café — 日本語 テキスト",
            "\u{85}next\u{2028}line\u{200b}zero",
        ] {
            assert_eq!(count_words(t), t.split_whitespace().count(), "{t:?}");
        }
    }

    #[test]
    fn a_page_stopped_anywhere_is_a_timed_out_record() {
        let body = format!(
            "<html><head><title>A listing</title></head><body><nav><a href=/>Home</a></nav><ul>{}</ul><p>{}</p></body></html>",
            (0..120)
                .map(|i| format!("<li><a href=/item{i}>Item {i}</a> <span>${i}.99</span></li>"))
                .collect::<String>(),
            "A sentence of prose, with a comma. ".repeat(40)
        );
        let config = BatchConfig {
            method: Method::MainContent,
            ..BatchConfig::default()
        };
        let rec = RecordIn {
            seq: 7,
            input: "page.html".into(),
            url: Some(url::Url::parse("https://example.org/list").unwrap()),
            body: body.into_bytes(),
            charset: None,
        };
        let doc = parse_for(&config, &rec.body, None).unwrap();
        let page = ApplyPage {
            print: Fingerprint::of(&doc),
            doc,
            site: "example.org".into(),
            cluster: None,
        };
        let run = || apply_one(&rec, &page, None, &config);
        let whole = run();
        assert!(
            whole.error.is_none()
                && whole
                    .text
                    .as_deref()
                    .is_some_and(|t| t.contains("sentence of prose"))
        );
        crate::dom::deadline::sweep(
            run,
            |r| r.error_code.as_deref() == Some("timed_out") && r.text.is_none() && r.seq == 7,
            |r| r.text == whole.text && r.error.is_none(),
        );
    }

    #[test]
    fn template_share_counts_visible_words() {
        let doc = parse_str("<body><nav>a b c</nav><p>d</p><script>x y z</script></body>");
        let mut mask = vec![false; doc.len()];
        let nav = doc
            .elements()
            .find(|e| doc.tag(*e).is_some_and(|t| &**t == "nav"))
            .unwrap();
        mask[nav.index()] = true;
        assert!((template_share(&doc, &mask) - 0.75).abs() < 1e-9);
        assert_eq!(template_share(&parse_str(""), &[]), 0.0);
    }
}
