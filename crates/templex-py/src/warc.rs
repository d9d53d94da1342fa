//! Reading a WARC file's pages from Python.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use templex::sources::{WarcPages, read_warc_pages};

use crate::errors::{LoadError, load_err};

/// The page records of a WARC file, read with the tolerant reader.
#[pyclass(module = "templex")]
pub(crate) struct WarcReader {
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
pub(crate) fn read_warc(py: Python<'_>, path: PathBuf) -> PyResult<WarcReader> {
    let pages = py.detach(|| read_warc_pages(&path)).map_err(load_err)?;
    Ok(WarcReader { pages })
}
