//! Arguments in: a page's HTML (`str` or `bytes`), an output format, a method, a page
//! budget.

use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use templex::{Budget, ContentConfig, Method};

/// The page budget from keyword arguments (`None`: the default).
pub(crate) fn budget(
    max_page_bytes: Option<usize>,
    max_page_nodes: Option<usize>,
    page_timeout: Option<f64>,
) -> PyResult<Budget> {
    let d = Budget::DEFAULT;
    Ok(Budget {
        max_bytes: max_page_bytes.unwrap_or(d.max_bytes),
        max_nodes: max_page_nodes.unwrap_or(d.max_nodes),
        max_time: seconds("page_timeout", page_timeout)?.unwrap_or(d.max_time),
    })
}

/// The keyword argument `name`, a number of seconds ≥ 0, as a duration (`None`: not given).
pub(crate) fn seconds(name: &str, secs: Option<f64>) -> PyResult<Option<Duration>> {
    secs.map(|t| {
        Duration::try_from_secs_f64(t).map_err(|_| {
            PyValueError::new_err(format!("{name} must be a number of seconds ≥ 0, not {t}"))
        })
    })
    .transpose()
}

/// The bytes of an `html` argument (`str` or `bytes`), and the charset a `str` is in.
pub(crate) enum Html<'a> {
    Text(std::borrow::Cow<'a, str>),
    Bytes(&'a [u8]),
}

impl<'a> Html<'a> {
    pub(crate) fn from_py(obj: &'a Bound<'_, PyAny>) -> PyResult<Html<'a>> {
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

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Html::Text(s) => s.as_bytes(),
            Html::Bytes(b) => b,
        }
    }

    /// A `str` is already decoded: its UTF-8 bytes, whatever its `<meta charset>` says.
    pub(crate) fn charset(&self) -> Option<String> {
        match self {
            Html::Text(_) => Some("utf-8".into()),
            Html::Bytes(_) => None,
        }
    }
}

/// Output formats of content.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Text,
    Markdown,
    Html,
    Json,
}

impl Format {
    pub(crate) fn parse(s: &str) -> PyResult<Format> {
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
    pub(crate) fn config(self, comments: bool, captions: Option<bool>) -> ContentConfig {
        ContentConfig {
            comments,
            drop_captions: !captions.unwrap_or(matches!(self, Format::Markdown | Format::Html)),
            ..ContentConfig::default()
        }
    }
}

/// A method by its name (`Method::ALL`), or `ValueError` naming the choices.
pub(crate) fn parse_method(s: &str) -> PyResult<Method> {
    s.parse::<Method>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
