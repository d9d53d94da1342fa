//! The exceptions the package raises, and the library's errors turned into them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

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

/// A page that gives no content, as the matching `PageError` subclass.
pub(crate) fn page_err(e: templex::PageError) -> PyErr {
    match e {
        templex::PageError::NotHtml(_) => NotHtmlError::new_err(e.to_string()),
        _ => BudgetError::new_err(e.to_string()),
    }
}

/// A load or setup failure, as `LoadError`.
pub(crate) fn load_err(e: impl std::fmt::Display) -> PyErr {
    LoadError::new_err(e.to_string())
}
