//! `templex._templex`: the Python binding of the templex library. A thin layer: arguments in,
//! the library's entry points called with the GIL released, results out as Python objects.
//! The Python package (`python/templex`) re-exports it with its stubs.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use templex::batch::{
    BatchConfig, BatchInput, Item, OutRecord, RecordIn, RecordSink, TemplateRow, TemplateStore,
    into_records,
};
use templex::{
    Budget, ContentConfig, HttpConfig, Method, PageContent, PageHints, SiteSpec, TemplateConfig,
    TemplateResult, WarcPages, annotated_html, extract_page, extract_template, open_site,
    read_warc_pages, template_html, template_report,
};
use url::Url;

/// The engine allocates a string or vector per token and tree node, and batch runs free
/// pages on other threads than the ones that built them: mimalloc does both faster than the
/// system allocator, as in the CLI (BENCHMARKS.md, "Python package"). It serves the
/// extension's own allocations only; Python's objects keep Python's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    templex,
    TemplexError,
    PyException,
    "Base class of templex's errors."
);
create_exception!(
    templex,
    LoadError,
    TemplexError,
    "A page or its site could not be loaded (missing file, not a page of the site, network, robots.txt)."
);
create_exception!(
    templex,
    StoreError,
    TemplexError,
    "The template store failed (cannot open, locked, corrupt, written by another version)."
);
create_exception!(
    templex,
    BatchError,
    TemplexError,
    "A batch run stopped (its store or settings), or a record could not be read."
);

create_exception!(
    templex,
    PageError,
    TemplexError,
    "A page gives no content: it is not HTML, or it is over the page budget."
);
create_exception!(
    templex,
    NotHtmlError,
    PageError,
    "The bytes are not a web page (an image, a PDF, an archive, binary data)."
);
create_exception!(
    templex,
    BudgetError,
    PageError,
    "The page is over the page budget (bytes, nodes or time); the message names the limit."
);

fn page_err(e: templex::PageError) -> PyErr {
    match e {
        templex::PageError::NotHtml(_) => NotHtmlError::new_err(e.to_string()),
        _ => BudgetError::new_err(e.to_string()),
    }
}

/// The page budget from keyword arguments (`None`: the default).
fn budget(
    max_page_bytes: Option<usize>,
    max_page_nodes: Option<usize>,
    page_timeout: Option<f64>,
) -> PyResult<Budget> {
    let d = Budget::DEFAULT;
    let max_time = match page_timeout {
        None => d.max_time,
        Some(t) => Duration::try_from_secs_f64(t).map_err(|_| {
            PyValueError::new_err(format!(
                "page_timeout must be a number of seconds ≥ 0, not {t}"
            ))
        })?,
    };
    Ok(Budget {
        max_bytes: max_page_bytes.unwrap_or(d.max_bytes),
        max_nodes: max_page_nodes.unwrap_or(d.max_nodes),
        max_time,
    })
}

fn load_err(e: impl std::fmt::Display) -> PyErr {
    LoadError::new_err(e.to_string())
}

/// The bytes of an `html` argument (`str` or `bytes`), and the charset a `str` is in.
enum Html<'a> {
    Text(std::borrow::Cow<'a, str>),
    Bytes(&'a [u8]),
}

impl<'a> Html<'a> {
    fn from_py(obj: &'a Bound<'_, PyAny>) -> PyResult<Html<'a>> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Html::Text(s.to_cow()?));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Html::Bytes(b.as_bytes()));
        }
        Err(PyTypeError::new_err(format!(
            "html must be str or bytes, not {}",
            obj.get_type().name()?
        )))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Html::Text(s) => s.as_bytes(),
            Html::Bytes(b) => b,
        }
    }

    /// A `str` is already decoded: its UTF-8 bytes, whatever its `<meta charset>` says.
    fn charset(&self) -> Option<String> {
        match self {
            Html::Text(_) => Some("utf-8".into()),
            Html::Bytes(_) => None,
        }
    }
}

/// Output formats of content.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Markdown,
    Html,
    Json,
}

impl Format {
    fn parse(s: &str) -> PyResult<Format> {
        match s {
            "text" => Ok(Format::Text),
            "markdown" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            "json" => Ok(Format::Json),
            _ => Err(PyValueError::new_err(format!(
                "format must be 'text', 'markdown', 'html' or 'json', not {s:?}"
            ))),
        }
    }

    /// The content settings the CLI uses for this format: captions stay in Markdown and HTML.
    fn config(self, comments: bool, captions: Option<bool>) -> ContentConfig {
        ContentConfig {
            comments,
            drop_captions: !captions.unwrap_or(matches!(self, Format::Markdown | Format::Html)),
            ..ContentConfig::default()
        }
    }
}

fn parse_method(s: &str) -> PyResult<Method> {
    s.parse::<Method>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

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
    // The fingerprints `templex content --format json` writes, for near-duplicate detection.
    let fingerprint = py.detach(|| {
        templex::Fingerprinter::new(templex::FingerprintConfig::default()).fingerprint(&rendered)
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
fn extract(
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
struct Template {
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
))]
#[allow(clippy::too_many_arguments)]
fn template(
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
) -> PyResult<Template> {
    if !timeout.is_finite() || timeout <= 0.0 {
        return Err(PyValueError::new_err(
            "timeout must be a positive number of seconds",
        ));
    }
    let mut config = TemplateConfig::for_method(parse_method(method)?);
    config.cs_size = cs_size.unwrap_or(config.cs_size);
    config.votes = votes.or(config.votes);
    config.site_pages = site_pages.unwrap_or(config.site_pages);
    config.fallback = fallback;
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

/// A record of `Batch.process` as the library takes it.
fn record_from_py(obj: &Bound<'_, PyAny>, n: u64) -> PyResult<Item> {
    let input = format!("#{n}");
    let tuple = obj.cast::<PyTuple>().map_err(|_| {
        PyTypeError::new_err("a record is a tuple (url, body) or (url, body, headers)")
    })?;
    if !(2..=3).contains(&tuple.len()) {
        return Err(PyTypeError::new_err(
            "a record is a tuple (url, body) or (url, body, headers)",
        ));
    }
    let url: Option<String> = tuple.get_item(0)?.extract()?;
    let body = tuple.get_item(1)?;
    let html = Html::from_py(&body)?;
    let mut charset = html.charset();
    if tuple.len() == 3 {
        let headers = tuple.get_item(2)?;
        if !headers.is_none() {
            charset = charset.or(header_charset(&headers)?);
        }
    }
    let url = match url.as_deref().map(Url::parse) {
        None => None,
        Some(Ok(u)) => Some(u),
        Some(Err(e)) => {
            return Ok(Item::Failed {
                seq: 0,
                input,
                url,
                error: format!("invalid URL: {e}"),
            });
        }
    };
    Ok(Item::Page(RecordIn {
        seq: 0,
        input,
        url,
        body: html.bytes().to_vec(),
        charset,
    }))
}

/// The charset of a `Content-Type` among HTTP headers (a dict or `(name, value)` pairs).
fn header_charset(headers: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let pairs: Vec<(String, String)> = match headers.cast::<PyDict>() {
        Ok(d) => d
            .iter()
            .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
            .collect::<PyResult<_>>()?,
        Err(_) => headers.extract()?,
    };
    Ok(pairs
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .and_then(|(_, v)| {
            v.split(';').find_map(|p| {
                let (k, v) = p.trim().split_once('=')?;
                k.trim()
                    .eq_ignore_ascii_case("charset")
                    .then(|| v.trim().trim_matches('"').to_string())
            })
        }))
}

/// Batch output records go to the Python side over a channel.
struct ChannelSink(SyncSender<OutRecord>);

impl RecordSink for ChannelSink {
    fn write(&mut self, record: OutRecord) -> std::io::Result<()> {
        self.0
            .send(record)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "reader gone"))
    }
}

/// Where a batch run's records come from.
enum Feed {
    /// Records pulled from a Python iterable by the consuming thread.
    Python {
        source: Py<PyAny>,
        tx: Option<SyncSender<Item>>,
        n: u64,
    },
    /// Files read by the library itself (as `templex batch` does).
    Files,
}

/// The output records of one `Batch.process*` call, in input order.
#[pyclass(module = "templex")]
struct BatchRun {
    feed: Feed,
    /// (A `Mutex` only because Python objects must be `Sync`: one thread iterates.)
    out: Mutex<Receiver<OutRecord>>,
    worker: Option<JoinHandle<Result<(), String>>>,
}

impl BatchRun {
    /// The run's error once its worker has ended.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(w) = self.worker.take() {
            match py.detach(|| w.join()) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(BatchError::new_err(e)),
                Err(_) => return Err(BatchError::new_err("the batch worker failed")),
            }
        }
        Ok(())
    }
}

#[pymethods]
impl BatchRun {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            let polled = match self.out.lock() {
                Ok(rx) => rx.try_recv(),
                Err(_) => Err(TryRecvError::Disconnected),
            };
            match polled {
                Ok(r) => return out_record(py, &r).map(Some),
                Err(TryRecvError::Disconnected) => {
                    self.finish(py)?;
                    return Ok(None);
                }
                Err(TryRecvError::Empty) => {}
            }
            let feeding = match &mut self.feed {
                Feed::Python { source, tx, n } if tx.is_some() => {
                    match source.bind(py).call_method0("__next__") {
                        Ok(obj) => {
                            let item = match record_from_py(&obj, *n) {
                                Ok(item) => item,
                                Err(e) => Item::Failed {
                                    seq: 0,
                                    input: format!("#{n}"),
                                    url: None,
                                    error: format!("bad record: {e}"),
                                },
                            };
                            *n += 1;
                            let sender = tx.as_ref().map(SyncSender::clone);
                            if let Some(sender) = sender {
                                // The worker may be busy: wait for room without the GIL.
                                if !py.detach(move || sender.send(item).is_ok()) {
                                    *tx = None;
                                }
                            }
                        }
                        Err(e) if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) => {
                            *tx = None;
                        }
                        Err(e) => {
                            *tx = None;
                            return Err(e);
                        }
                    }
                    true
                }
                _ => false,
            };
            if !feeding {
                // All input is with the worker: wait for its next record without the GIL.
                let out = &self.out;
                let next = py.detach(|| {
                    out.lock()
                        .map_err(|_| ())
                        .and_then(|rx| rx.recv().map_err(|_| ()))
                });
                match next {
                    Ok(r) => return out_record(py, &r).map(Some),
                    Err(_) => {
                        self.finish(py)?;
                        return Ok(None);
                    }
                }
            }
        }
    }
}

fn out_record(py: Python<'_>, r: &OutRecord) -> PyResult<Py<PyAny>> {
    pythonize::pythonize(py, r)
        .map(Bound::unbind)
        .map_err(|e| TemplexError::new_err(e.to_string()))
}

/// Crawl-scale extraction: templates learned per site and applied to all its pages.
#[pyclass(frozen, module = "templex")]
struct Batch {
    store: Arc<Mutex<Option<TemplateStore>>>,
    config: BatchConfig,
}

impl Batch {
    fn start(
        &self,
        feed: Feed,
        items: Box<dyn FnOnce() -> Box<dyn Iterator<Item = Item> + Send> + Send>,
        identity: String,
    ) -> BatchRun {
        let (out_tx, out_rx) = sync_channel::<OutRecord>(1 << 16);
        let store = Arc::clone(&self.store);
        let config = self.config.clone();
        let worker = std::thread::spawn(move || -> Result<(), String> {
            let mut guard = store.lock().map_err(|_| "the template store is poisoned")?;
            let store = guard.as_mut().ok_or("the batch is closed")?;
            let mut sink = ChannelSink(out_tx);
            templex::batch::run_records(items(), &identity, &config, store, &mut sink, &|_| {})
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        BatchRun {
            feed,
            out: Mutex::new(out_rx),
            worker: Some(worker),
        }
    }
}

#[pymethods]
impl Batch {
    #[new]
    #[pyo3(signature = (store=None, *, method="tablechunk", site_sample=None, sample_pages=None,
                        min_pages=None, window=None, relearn=false, protect=false,
                        markdown=false, max_page_bytes=None, max_page_nodes=None,
                        page_timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        store: Option<PathBuf>,
        method: &str,
        site_sample: Option<usize>,
        sample_pages: Option<usize>,
        min_pages: Option<usize>,
        window: Option<usize>,
        relearn: bool,
        protect: bool,
        markdown: bool,
        max_page_bytes: Option<usize>,
        max_page_nodes: Option<usize>,
        page_timeout: Option<f64>,
    ) -> PyResult<Batch> {
        let d = BatchConfig::default();
        let budget = budget(max_page_bytes, max_page_nodes, page_timeout)?;
        let config = BatchConfig {
            method: parse_method(method)?,
            site_sample: site_sample.unwrap_or(d.site_sample),
            sample_pages: sample_pages.unwrap_or(d.sample_pages),
            min_pages: min_pages.unwrap_or(d.min_pages),
            window: window.unwrap_or(d.window).max(1),
            relearn,
            protect_content: protect,
            markdown,
            budget,
            ..d
        };
        if !templex::batch::BATCH_METHODS.contains(&config.method) {
            return Err(PyValueError::new_err(format!(
                "batch mode cannot learn with {}: use tablechunk, hybex, sitelevel or maincontent",
                config.method
            )));
        }
        let opened = py.detach(|| match &store {
            Some(p) => TemplateStore::open(p),
            None => TemplateStore::in_memory(),
        });
        let store = opened.map_err(|e| StoreError::new_err(e.to_string()))?;
        Ok(Batch {
            store: Arc::new(Mutex::new(Some(store))),
            config,
        })
    }

    /// Extract every record of `records` (an iterable of `(url, body)` or
    /// `(url, body, headers)`); yields one dict per record, in input order.
    fn process(&self, records: &Bound<'_, PyAny>) -> PyResult<BatchRun> {
        let source = records.try_iter()?.into_any().unbind();
        let (tx, rx) = sync_channel::<Item>(256);
        let items =
            Box::new(move || Box::new(rx.into_iter()) as Box<dyn Iterator<Item = Item> + Send>);
        Ok(self.start(
            Feed::Python {
                source,
                tx: Some(tx),
                n: 0,
            },
            items,
            String::new(),
        ))
    }

    /// Extract every page of WARC files, mirror directories and HTML files, read by the
    /// library as `templex batch` reads them (the same output lines).
    fn process_files(&self, paths: Vec<PathBuf>) -> BatchRun {
        let inputs: Vec<BatchInput> = paths
            .iter()
            .map(|p| BatchInput::from_path(p, &[] as &[String]))
            .collect();
        let identity: Vec<String> = inputs.iter().map(BatchInput::identity).collect();
        let items = Box::new(move || {
            Box::new(into_records(inputs)) as Box<dyn Iterator<Item = Item> + Send>
        });
        self.start(Feed::Files, items, identity.join("\n"))
    }

    /// The newest templates of every site (or of `site`) in the store, as portable dicts
    /// that `add_templates` of another batch takes.
    #[pyo3(signature = (site=None))]
    fn templates<'py>(
        &self,
        py: Python<'py>,
        site: Option<String>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let store = Arc::clone(&self.store);
        let rows = py
            .detach(move || -> Result<Vec<TemplateRow>, String> {
                let guard = store.lock().map_err(|_| "the template store is poisoned")?;
                let store = guard.as_ref().ok_or("the batch is closed")?;
                store.export(site.as_deref()).map_err(|e| e.to_string())
            })
            .map_err(StoreError::new_err)?;
        rows.iter().map(|r| template_row_to_py(py, r)).collect()
    }

    /// Store templates (dicts of `templates()`, e.g. from an earlier run) as their sites'
    /// newest; pages of those sites then get them without learning. Returns how many were
    /// stored; a row of another templex version's hashes or a damaged row stores nothing.
    fn add_templates(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<usize> {
        let rows: Vec<TemplateRow> = rows
            .try_iter()?
            .map(|r| template_row_from_py(&r?))
            .collect::<PyResult<_>>()?;
        let store = Arc::clone(&self.store);
        py.detach(move || -> Result<usize, String> {
            let mut guard = store.lock().map_err(|_| "the template store is poisoned")?;
            let store = guard.as_mut().ok_or("the batch is closed")?;
            store.import(&rows).map_err(|e| e.to_string())
        })
        .map_err(StoreError::new_err)
    }

    /// Close the template store (a closed batch processes nothing more).
    fn close(&self, py: Python<'_>) {
        let store = Arc::clone(&self.store);
        py.detach(move || {
            if let Ok(mut s) = store.lock() {
                s.take();
            }
        });
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }
}

/// A template row as a Python dict (`bytes` for the binary fields).
fn template_row_to_py<'py>(py: Python<'py>, r: &TemplateRow) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("site", &r.site)?;
    d.set_item("cluster", r.cluster)?;
    d.set_item("method", &r.method)?;
    d.set_item("scheme", r.scheme)?;
    d.set_item("hash_scheme", r.hash_scheme)?;
    d.set_item("pages", r.pages)?;
    d.set_item("core", PyBytes::new(py, &r.core))?;
    d.set_item("params", &r.params)?;
    d.set_item("model", PyBytes::new(py, &r.model))?;
    Ok(d)
}

/// A template row from a mapping with the keys of [`template_row_to_py`] (a dict, or a
/// Spark `Row` turned into one).
fn template_row_from_py(obj: &Bound<'_, PyAny>) -> PyResult<TemplateRow> {
    let get = |key: &str| {
        obj.get_item(key)
            .map_err(|_| PyValueError::new_err(format!("a template row needs the key {key:?}")))
    };
    let bytes = |key: &str| -> PyResult<Vec<u8>> {
        let v = get(key)?;
        if let Ok(b) = v.cast::<PyBytes>() {
            return Ok(b.as_bytes().to_vec());
        }
        // bytearray (Spark's BinaryType), memoryview: whatever bytes() takes.
        let b = obj.py().get_type::<PyBytes>().call1((v,))?;
        Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
    };
    Ok(TemplateRow {
        site: get("site")?.extract()?,
        cluster: get("cluster")?.extract()?,
        method: get("method")?.extract()?,
        scheme: get("scheme")?.extract()?,
        hash_scheme: get("hash_scheme")?.extract()?,
        pages: get("pages")?.extract()?,
        core: bytes("core")?,
        params: get("params")?.extract()?,
        model: bytes("model")?,
    })
}

/// The site a batch learns a URL's page with: its registrable domain (`news.bbc.co.uk` →
/// `bbc.co.uk`), or its host when it has none.
#[pyfunction]
fn site(url: &str) -> PyResult<String> {
    let u = Url::parse(url).map_err(|e| PyValueError::new_err(format!("invalid URL: {e}")))?;
    templex::batch::site_of_url(&u)
        .ok_or_else(|| PyValueError::new_err(format!("the URL {url} has no host")))
}

/// The page records of a WARC file, read with the tolerant reader.
#[pyclass(module = "templex")]
struct WarcReader {
    pages: WarcPages,
}

#[pymethods]
impl WarcReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let pages = &mut self.pages;
        let next = py.detach(|| pages.next());
        match next {
            None => Ok(None),
            Some(Err(e)) => Err(LoadError::new_err(e.to_string())),
            Some(Ok(page)) => {
                let headers = PyDict::new(py);
                let ct = page.content_type.as_deref().unwrap_or("text/html");
                let ct = match &page.charset {
                    Some(c) => format!("{ct}; charset={c}"),
                    None => ct.to_string(),
                };
                headers.set_item("Content-Type", ct)?;
                let t = PyTuple::new(
                    py,
                    [
                        PyString::new(py, page.final_url.as_str()).into_any(),
                        PyBytes::new(py, &page.body).into_any(),
                        headers.into_any(),
                    ],
                )?;
                Ok(Some(t.into_any().unbind()))
            }
        }
    }

    /// Damaged spots skipped so far (truncated or corrupt records).
    #[getter]
    fn problems(&self) -> usize {
        self.pages.problems()
    }

    /// Where the record last yielded starts in the file (its gzip member's offset in a
    /// `.warc.gz` of one member per record), `None` before the first.
    #[getter]
    fn offset(&self) -> Option<u64> {
        self.pages.last_offset()
    }
}

/// The page records of a `.warc` or `.warc.gz` file, as `(url, body, headers)` tuples.
#[pyfunction]
fn read_warc(py: Python<'_>, path: PathBuf) -> PyResult<WarcReader> {
    let pages = py.detach(|| read_warc_pages(&path)).map_err(load_err)?;
    Ok(WarcReader { pages })
}

#[pymodule]
fn _templex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("TemplexError", py.get_type::<TemplexError>())?;
    m.add("PageError", py.get_type::<PageError>())?;
    m.add("NotHtmlError", py.get_type::<NotHtmlError>())?;
    m.add("BudgetError", py.get_type::<BudgetError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("BatchError", py.get_type::<BatchError>())?;
    m.add(
        "METHODS",
        Method::ALL.iter().map(|m| m.name()).collect::<Vec<_>>(),
    )?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(template, m)?)?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(site, m)?)?;
    m.add_class::<Template>()?;
    m.add_class::<Batch>()?;
    m.add_class::<BatchRun>()?;
    m.add_class::<WarcReader>()?;
    Ok(())
}
