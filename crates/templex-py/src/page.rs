//! One page: `extract` (its main content, with or without its site) and `template` (its
//! template, by any method).

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use templex::render::{annotated_html, template_html, template_report};
use templex::sources::HttpConfig;
use templex::{
    ContentConfig, Method, PageContent, PageHints, SiteSpec, TemplateConfig, TemplateResult,
    extract_page, extract_template, open_site,
};
use url::Url;

use crate::args::{Format, Html, budget, parse_method, seconds};
use crate::errors::{TemplexError, load_err, page_err};

/// Content rendered as `format`: a `str`, or for `json` a dict like one record of
/// `templex content --format json`.
fn render_content(
    py: Python<'_>,
    content: &PageContent,
    format: Format,
    extra: Option<(usize, &[String])>,
) -> PyResult<Py<PyAny>> {
    let rendered = py.detach(|| match format {
        Format::Html => content.html(),
        Format::Markdown => content.markdown(),
        Format::Text | Format::Json => content.text(),
    });
    if format != Format::Json {
        return Ok(PyString::new(py, &rendered).into_any().unbind());
    }
    // The fingerprints `templex content --format json --fingerprint` writes, for
    // near-duplicate detection.
    let fingerprint = py.detach(|| {
        templex::duplicates::Fingerprinter::new(templex::duplicates::FingerprintConfig::default())
            .fingerprint(&rendered)
    });
    let d = PyDict::new(py);
    d.set_item("url", content.url().map(Url::as_str))?;
    let meta = py.detach(|| content.metadata());
    d.set_item("title", meta.title)?;
    d.set_item("author", meta.author)?;
    d.set_item("date", meta.date)?;
    d.set_item("language", meta.language)?;
    d.set_item("text", rendered)?;
    d.set_item("method", content.method().name())?;
    let t = content.timings();
    let timings = PyDict::new(py);
    timings.set_item("parse_ms", t.parse.as_secs_f64() * 1e3)?;
    timings.set_item("extract_ms", t.extract.as_secs_f64() * 1e3)?;
    timings.set_item("total_ms", (t.parse + t.extract).as_secs_f64() * 1e3)?;
    d.set_item("timings", timings)?;
    d.set_item("fingerprint", pythonize::pythonize(py, &fingerprint)?)?;
    if let Some((loaded, notes)) = extra {
        d.set_item("pages_loaded", loaded)?;
        d.set_item("notes", notes.to_vec())?;
    }
    Ok(d.into_any().unbind())
}

/// The main content of one page.
#[pyfunction]
#[pyo3(signature = (
    html, url=None, *, format="text", comments=false, captions=None, spread=None,
    max_page_bytes=None, max_page_nodes=None, page_timeout=None,
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn extract(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<&str>,
    format: &str,
    comments: bool,
    captions: Option<bool>,
    spread: Option<f64>,
    max_page_bytes: Option<usize>,
    max_page_nodes: Option<usize>,
    page_timeout: Option<f64>,
) -> PyResult<Py<PyAny>> {
    let budget = budget(max_page_bytes, max_page_nodes, page_timeout)?;
    let spread = spread
        .map(ContentConfig::spread_share)
        .transpose()
        .map_err(PyValueError::new_err)?;
    let format = Format::parse(format)?;
    let html = Html::from_py(html)?;
    let url = url
        .map(|u| {
            Url::parse(u).map_err(|e| PyValueError::new_err(format!("invalid url {u:?}: {e}")))
        })
        .transpose()?;
    let hints = PageHints {
        url,
        charset: html.charset(),
    };
    let mut config = format.config(comments, captions);
    config.spread = spread.unwrap_or(config.spread);
    let bytes = html.bytes();
    let content = py
        .detach(|| extract_page(bytes, &hints, &config, &budget))
        .map_err(page_err)?;
    render_content(py, &content, format, None)
}

/// The template of a key page, found from its site.
#[pyclass(frozen, module = "templex")]
pub(crate) struct Template {
    result: TemplateResult,
}

#[pymethods]
impl Template {
    /// The method that produced the template (`pagelevel` when a site method fell back).
    #[getter]
    fn method(&self) -> &'static str {
        self.result.method.name()
    }

    /// The key page's URL (after redirects).
    #[getter]
    fn key_url(&self) -> String {
        self.result.key_url.to_string()
    }

    /// Absolute paths (`/html[1]/body[1]/div[2]`) of the template elements inside `<body>`.
    #[getter]
    fn template_paths(&self) -> Vec<String> {
        template_report(&self.result).template_paths
    }

    /// The sibling pages the template was computed from.
    #[getter]
    fn cs_pages(&self) -> Vec<String> {
        self.result.cs_pages.iter().map(Url::to_string).collect()
    }

    /// Pages loaded, the key page included.
    #[getter]
    fn pages_loaded(&self) -> usize {
        self.result.loads.attempts
    }

    /// Whether the site method found no evidence and PAGELEVEL stepped in.
    #[getter]
    fn fallback(&self) -> bool {
        self.result.fallback
    }

    /// Notes: fallbacks, small sibling sets.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.result.notes.clone()
    }

    /// The report of `templex template --format json`, as a dict.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &template_report(&self.result))
            .map_err(|e| TemplexError::new_err(e.to_string()))
    }

    /// The key page with class `template_node` on every template element.
    fn annotated_html(&self, py: Python<'_>) -> String {
        py.detach(|| annotated_html(&self.result.doc, &self.result.template))
    }

    /// A reusable template: the key page without its content, URLs made absolute.
    fn template_html(&self, py: Python<'_>) -> String {
        py.detach(|| {
            template_html(
                &self.result.doc,
                &self.result.template,
                &self.result.key_url,
            )
        })
    }

    /// The key page's content: what the template does not claim (the page-level extractor's
    /// choice when the site gave no evidence).
    #[pyo3(signature = (format="text", *, comments=false, captions=None))]
    fn content(
        &self,
        py: Python<'_>,
        format: &str,
        comments: bool,
        captions: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let format = Format::parse(format)?;
        let config = format.config(comments, captions);
        let content = py.detach(|| self.result.content(&config));
        let mut notes = self.result.notes.clone();
        if content.method() == Method::MainContent {
            notes.push("no site evidence: page-level content".into());
        }
        render_content(
            py,
            &content,
            format,
            Some((self.result.loads.attempts, &notes)),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<templex.Template {} of {} ({} template paths, {} CS pages)>",
            self.result.method,
            self.result.key_url,
            template_report(&self.result).template_elements,
            self.result.cs_pages.len()
        )
    }
}

/// The template of a key page.
#[pyfunction]
#[pyo3(signature = (
    page, *, site=None, url_prefix=Vec::new(), warc=None, method="hybex", fetch=true,
    allow_private=false, delay_ms=1000, timeout=30.0, max_bytes=10 * 1024 * 1024,
    cs_size=None, votes=None, site_pages=None, fallback=true,
    max_page_bytes=None, max_page_nodes=None, page_timeout=None, time_limit=None,
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn template(
    py: Python<'_>,
    page: &str,
    site: Option<PathBuf>,
    url_prefix: Vec<String>,
    warc: Option<PathBuf>,
    method: &str,
    fetch: bool,
    allow_private: bool,
    delay_ms: u64,
    timeout: f64,
    max_bytes: usize,
    cs_size: Option<usize>,
    votes: Option<usize>,
    site_pages: Option<usize>,
    fallback: bool,
    max_page_bytes: Option<usize>,
    max_page_nodes: Option<usize>,
    page_timeout: Option<f64>,
    time_limit: Option<f64>,
) -> PyResult<Template> {
    if !timeout.is_finite() || timeout <= 0.0 {
        return Err(PyValueError::new_err(
            "timeout must be a positive number of seconds",
        ));
    }
    let mut config = TemplateConfig::for_method(parse_method(method)?);
    config.search.size = cs_size.unwrap_or(config.search.size);
    config.mapping.votes = votes.or(config.mapping.votes);
    config.sample.pages = site_pages.unwrap_or(config.sample.pages);
    config.mapping.fallback = fallback;
    config.budget = budget(max_page_bytes, max_page_nodes, page_timeout)?;
    config.time_limit = seconds("time_limit", time_limit)?;
    let spec = SiteSpec {
        mirror: site,
        url_prefixes: url_prefix,
        warc,
        http: fetch.then(|| HttpConfig {
            allow_private,
            min_delay: Duration::from_millis(delay_ms),
            timeout: Duration::from_secs_f64(timeout),
            max_body: max_bytes,
            ..HttpConfig::default()
        }),
    };
    let page = page.to_string();
    // The error is made into a Python exception once the GIL is back.
    let result = py.detach(
        move || -> Result<TemplateResult, Result<String, templex::PageError>> {
            let opened = open_site(&spec, &page).map_err(|e| Ok(e.to_string()))?;
            extract_template(opened.source.as_ref(), &opened.page_url, &config).map_err(|e| match e
            {
                templex::LoadError::Refused { error, .. } => Err(error),
                e => Ok(format!("cannot load key page {}: {e}", opened.page_url)),
            })
        },
    );
    result
        .map(|result| Template { result })
        .map_err(|e| match e {
            Ok(message) => load_err(message),
            Err(page) => page_err(page),
        })
}
