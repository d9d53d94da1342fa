//! `templex._templex`: the Python binding of the templex library. A thin layer: arguments in,
//! the library's entry points called with the GIL released, results out as Python objects.
//! The Python package (`python/templex`) re-exports it with its stubs.

mod args;
mod batch;
mod errors;
mod page;
mod warc;

use pyo3::prelude::*;
use templex::Method;

use batch::{Batch, BatchRun, site};
use errors::{
    BatchError, BudgetError, LoadError, NotHtmlError, PageError, StoreError, TemplexError,
};
use page::{Template, extract, template};
use warc::{WarcReader, read_warc};

#[pymodule]
fn _templex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The extension's allocations use mimalloc, keeping freed memory a while, as the CLI.
    templex_alloc::keep_freed_memory();
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
