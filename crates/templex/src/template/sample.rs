//! What the methods that learn from a sample of the key page's site (SITELEVEL,
//! [`super::sitelevel`]; table chunks, [`super::tablechunk`]) share: the sample, then the template the method learns
//! from it applied to the key page.

use std::time::{Duration, Instant};

use url::Url;

use super::{Method, TemplateConfig, TemplateResult, lone_result};
use crate::dom::Document;
use crate::extract::ContentConfig;
use crate::source::PageSource;

/// The sample of the key page's site that SITELEVEL and table chunks learn from
/// ([`TemplateConfig::sample`](crate::TemplateConfig::sample)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleConfig {
    /// Pages besides the key page, at one load each: what recurs on most of them is
    /// template, so more pages tell the site's template from what a few pages share.
    pub pages: usize,
    /// Seeds the draw from the pages a source can list, so that a run can be repeated.
    pub seed: u64,
}

impl Default for SampleConfig {
    /// 50 pages, seed 1.
    fn default() -> Self {
        SampleConfig { pages: 50, seed: 1 }
    }
}

/// The methods that learn from a sample of the key page's template cluster (SITELEVEL,
/// table chunks): load the sample, let `learn` make the key page's template (and notes) from
/// the key page and the sample, time both phases.
pub(super) fn sample_template(
    method: Method,
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
    learn: impl FnOnce(&Document, &[Document]) -> (Vec<bool>, Option<String>),
) -> TemplateResult {
    let t = Instant::now();
    let search = crate::dom::deadline::pause();
    let (sample, note) = site_sample(
        source,
        key_url,
        &doc,
        config.sample.pages,
        config.sample.seed,
        &config.budget,
    );
    drop(search);
    let siblings = t.elapsed();
    let t2 = Instant::now();
    let (template, learn_note) = learn(&doc, &sample);
    let site_content = crate::sitecontent::learn_from_docs(
        std::iter::once(&doc).chain(&sample),
        &ContentConfig::default(),
    );
    let mut result = lone_result(method, key_url, doc, template, key_page);
    result.site_content = site_content;
    result.timings.siblings = siblings;
    result.timings.mapping = t2.elapsed();
    result.notes.extend(note);
    if sample.is_empty() {
        result
            .notes
            .push("no other page of the site shares the key page's template: no template".into());
    }
    result.notes.extend(learn_note);
    result
}

/// Up to `n` other pages of the key page's site that share its template (their template
/// fingerprints are similar, [`crate::cluster`]), out of at most `n` loads: first the pages
/// the key page links to (menus lead to pages of the same template), then a seeded sample of
/// the pages the source can list, else pages found by following links breadth-first.
pub(crate) fn site_sample(
    source: &dyn PageSource,
    key_url: &Url,
    key_doc: &Document,
    n: usize,
    seed: u64,
    budget: &crate::dom::Budget,
) -> (Vec<Document>, Option<String>) {
    use crate::cluster::{ClusterConfig, Fingerprint};
    use crate::links::{Site, extract_links};
    let similarity = ClusterConfig::default().similarity;
    let key_print = Fingerprint::of(key_doc);
    let key = source.canonical_url(key_url);
    let mut seen = std::collections::HashSet::new();
    seen.insert(key.to_string());
    let site_links = |doc: &Document, url: &Url| -> Vec<Url> {
        extract_links(doc, url)
            .into_iter()
            .filter(|l| l.is_site_page())
            .map(|l| l.url)
            .collect()
    };
    let mut queue: std::collections::VecDeque<Url> = site_links(key_doc, key_url).into();
    let listed = source.page_urls().map(|urls| {
        let site = Site::of(key_url);
        let urls: Vec<Url> = urls.into_iter().filter(|u| site.contains(u)).collect();
        crate::stable_hash::sample_indices(urls.len(), n, seed)
            .into_iter()
            .map(|i| urls[i].clone())
            .collect::<Vec<_>>()
    });
    let follow = listed.is_none();
    if let Some(listed) = listed {
        queue.extend(listed);
    }
    let (mut docs, mut loads, mut other) = (Vec::new(), 0usize, 0usize);
    while let Some(url) = queue.pop_front() {
        if loads >= n || crate::dom::deadline::passed() {
            break;
        }
        if !seen.insert(source.canonical_url(&url).to_string()) {
            continue;
        }
        loads += 1;
        let Ok(p) = source.load(&url) else { continue };
        let scope = budget.scope(Instant::now());
        let Ok(d) = p.parse_within(budget) else {
            continue;
        };
        let print = Fingerprint::of(&d);
        if scope.passed() {
            tracing::debug!(%url, "sampled page over its time budget");
            continue;
        }
        drop(scope);
        if print.jaccard(&key_print) < similarity {
            other += 1;
            continue;
        }
        if follow && queue.len() < 20 * n {
            queue.extend(site_links(&d, &p.final_url));
        }
        docs.push(d);
    }
    let note = (other > 0).then(|| {
        format!("{other} of {loads} sampled pages have another template and were left out")
    });
    (docs, note)
}
