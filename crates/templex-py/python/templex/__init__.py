"""templex: separate a web page's template (header, menus, sidebars, footer) from its content.

The Rust engine in-process:

- :func:`extract` gives the main content of one page (page-level, no site needed);
- :func:`template` finds a key page's template from its site (a mirror directory, a WARC
  file or the live web) and gives its content as what the template does not claim;
- :class:`Batch` learns templates per site over any stream of records and extracts every
  page, as ``templex batch`` does; :func:`read_warc` reads page records from WARC files.

:mod:`templex.spark` runs the batch engine over WARC collections on Apache Spark.

Every call releases the GIL while the engine works: Python threads extract in parallel.
"""

from templex._templex import (
    METHODS,
    Batch,
    BatchError,
    BatchRun,
    BudgetError,
    LoadError,
    NotHtmlError,
    PageError,
    StoreError,
    Template,
    TemplexError,
    WarcReader,
    __version__,
    extract,
    read_warc,
    site,
    template,
)

__all__ = [
    "METHODS",
    "Batch",
    "BatchError",
    "BatchRun",
    "BudgetError",
    "LoadError",
    "NotHtmlError",
    "PageError",
    "StoreError",
    "Template",
    "TemplexError",
    "WarcReader",
    "__version__",
    "extract",
    "read_warc",
    "site",
    "template",
]
