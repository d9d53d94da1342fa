//! Batch mode: records in from any Python iterable, one record out per record in, templates
//! learned once per site and kept in a store; and the site a URL belongs to.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use templex::batch::{
    BatchConfig, BatchInput, Item, OutRecord, RecordIn, RecordSink, TemplateRow, TemplateStore,
    into_records,
};
use url::Url;

use crate::args::{Html, budget, parse_method};
use crate::errors::{BatchError, StoreError, TemplexError};

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
pub(crate) struct BatchRun {
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
pub(crate) struct Batch {
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
                        markdown=false, rest=false, max_page_bytes=None, max_page_nodes=None,
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
        rest: bool,
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
            rest,
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
    d.set_item("content", &r.content)?;
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
        // Rows exported before templex learned content evidence have none.
        content: match obj.get_item("content") {
            Ok(v) if !v.is_none() => v.extract()?,
            _ => String::new(),
        },
    })
}

/// The site a batch learns a URL's page with: its registrable domain (`news.bbc.co.uk` →
/// `bbc.co.uk`), or its host when it has none.
#[pyfunction]
pub(crate) fn site(url: &str) -> PyResult<String> {
    let u = Url::parse(url).map_err(|e| PyValueError::new_err(format!("invalid URL: {e}")))?;
    templex::batch::site_of_url(&u)
        .ok_or_else(|| PyValueError::new_err(format!("the URL {url} has no host")))
}
