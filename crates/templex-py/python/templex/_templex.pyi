"""Type stubs of the templex extension module (see the package docstring)."""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from os import PathLike
from types import TracebackType
from typing import Any, Literal, Optional, Union, overload

__version__: str
METHODS: list[str]
"""Every method name: temex, hybex, sitelevel, pagelevel, tablechunk, maincontent."""

TextFormat = Literal["text", "markdown", "html"]
Format = Literal["text", "markdown", "html", "json"]
Headers = Union[Mapping[str, str], Sequence[tuple[str, str]]]
Record = Union[
    tuple[Optional[str], Union[bytes, str]],
    tuple[Optional[str], Union[bytes, str], Optional[Headers]],
]
StrPath = Union[str, PathLike[str]]
TemplateRow = dict[str, Any]

class TemplexError(Exception):
    """Base class of templex's errors."""

class LoadError(TemplexError):
    """A page or its site could not be loaded (missing file, not a page of the site,
    network, robots.txt, refused private address)."""

class StoreError(TemplexError):
    """The template store failed (cannot open, locked, corrupt, another version)."""

class BatchError(TemplexError):
    """A batch run stopped (its store or settings)."""

class PageError(TemplexError):
    """A page gives no content: it is not HTML, or it is over the page budget."""

class NotHtmlError(PageError):
    """The bytes are not a web page (an image, a PDF, an archive, binary data)."""

class BudgetError(PageError):
    """The page is over the page budget (bytes, nodes or time); the message names the
    limit."""

@overload
def extract(
    html: Union[str, bytes],
    url: Optional[str] = None,
    *,
    format: TextFormat = "text",
    comments: bool = False,
    captions: Optional[bool] = None,
    spread: Optional[float] = None,
    max_page_bytes: Optional[int] = None,
    max_page_nodes: Optional[int] = None,
    page_timeout: Optional[float] = None,
) -> str: ...
@overload
def extract(
    html: Union[str, bytes],
    url: Optional[str] = None,
    *,
    format: Literal["json"],
    comments: bool = False,
    captions: Optional[bool] = None,
    spread: Optional[float] = None,
    max_page_bytes: Optional[int] = None,
    max_page_nodes: Optional[int] = None,
    page_timeout: Optional[float] = None,
) -> dict[str, Any]: ...
def extract(
    html: Union[str, bytes],
    url: Optional[str] = None,
    *,
    format: Format = "text",
    comments: bool = False,
    captions: Optional[bool] = None,
    spread: Optional[float] = None,
    max_page_bytes: Optional[int] = None,
    max_page_nodes: Optional[int] = None,
    page_timeout: Optional[float] = None,
) -> Union[str, dict[str, Any]]:
    """The main content of one page.

    ``html`` as ``bytes`` is decoded as the CLI decodes files (BOM, ``<meta charset>``,
    detection); a ``str`` is taken as it is. ``format="json"`` gives a dict with ``url``,
    ``title``, ``author``, ``date`` (``YYYY-MM-DD``), ``language`` (the declared one),
    ``text``, ``method``, ``timings`` and ``fingerprint`` (as one record of
    ``templex content --format json --fingerprint``; ``fingerprint`` holds ``content_hash`` and
    ``simhash`` as 16 hex digits and ``minhash``, 128 ints, for near-duplicate
    detection). ``captions`` keeps image captions in text (Markdown and HTML keep them
    unless ``captions=False``); ``comments`` keeps user comments. ``spread`` (default
    0.4): when the main container holds less than this share of what the page-level
    detectors do not call chrome (or less than 0.75 beside sections of prose), the page
    spreads its content (a listing, a thread, a service page) and all of that is
    content; ``0`` keeps the container always.

    Raises :class:`NotHtmlError` for bytes that are not a web page, and
    :class:`BudgetError` for a page over the page budget: ``max_page_bytes`` (default 64
    MiB), ``max_page_nodes`` (8 million) and ``page_timeout`` (30 seconds).
    """

class Template:
    """The template of a key page, found from its site."""

    @property
    def method(self) -> str:
        """The method that produced the template (``pagelevel`` when a site method fell
        back)."""
    @property
    def key_url(self) -> str:
        """The key page's URL (after redirects)."""
    @property
    def template_paths(self) -> list[str]:
        """Absolute paths (``/html[1]/body[1]/div[2]``) of the template elements."""
    @property
    def cs_pages(self) -> list[str]:
        """The sibling pages the template was computed from."""
    @property
    def pages_loaded(self) -> int:
        """Pages loaded, the key page included."""
    @property
    def fallback(self) -> bool:
        """Whether the site method found no evidence and PAGELEVEL stepped in."""
    @property
    def notes(self) -> list[str]:
        """Notes: fallbacks, small sibling sets."""
    def report(self) -> dict[str, Any]:
        """The report of ``templex template --format json``."""
    def annotated_html(self) -> str:
        """The key page with class ``template_node`` on every template element."""
    def template_html(self) -> str:
        """A reusable template: the key page without its content, URLs made absolute."""
    @overload
    def content(
        self,
        format: TextFormat = "text",
        *,
        comments: bool = False,
        captions: Optional[bool] = None,
    ) -> str: ...
    @overload
    def content(
        self, format: Literal["json"], *, comments: bool = False, captions: Optional[bool] = None
    ) -> dict[str, Any]: ...
    def content(
        self, format: Format = "text", *, comments: bool = False, captions: Optional[bool] = None
    ) -> Union[str, dict[str, Any]]:
        """The key page's content: what the template does not claim (the page-level
        extractor's choice when the site gave no evidence)."""

def template(
    page: str,
    *,
    site: Optional[StrPath] = None,
    url_prefix: Sequence[str] = (),
    warc: Optional[StrPath] = None,
    method: str = "hybex",
    fetch: bool = True,
    allow_private: bool = False,
    delay_ms: int = 1000,
    timeout: float = 30.0,
    max_bytes: int = 10 * 1024 * 1024,
    cs_size: Optional[int] = None,
    votes: Optional[int] = None,
    site_pages: Optional[int] = None,
    fallback: bool = True,
    max_page_bytes: Optional[int] = None,
    max_page_nodes: Optional[int] = None,
    page_timeout: Optional[float] = None,
    time_limit: Optional[float] = None,
) -> Template:
    """The template of the key page ``page``: a file inside ``site`` (a mirror directory
    whose root the ``url_prefix`` URLs map to), a URL in ``warc``, a live URL (fetched
    politely: robots.txt, ``delay_ms`` between requests to a host, ``timeout``,
    ``max_bytes``, no private or loopback addresses unless ``allow_private``; never when
    ``fetch`` is false), or a lone file (its directory is the site). Each page (the key
    page, every sibling) is held to the page budget (``max_page_bytes``,
    ``max_page_nodes``, ``page_timeout``); ``time_limit`` (seconds) bounds the whole call,
    the search for siblings included. Raises :class:`LoadError` when the key page cannot be
    loaded, :class:`BudgetError` when it is over the page budget or the call over its time
    limit."""

class BatchRun(Iterator[dict[str, Any]]):
    """The output records of one ``Batch.process*`` call, in input order: dicts with
    ``seq``, ``input``, ``url``, ``site``, ``cluster``, ``method``, ``title``, ``author``,
    ``date``, ``language`` (each when the page states it), ``text`` (the page's main
    content), ``template_share`` (and ``markdown`` when the batch renders it, ``rest``, the
    page minus its template, when asked for) — or ``error`` (and
    ``error_code`` for a page refused). Not to be shared between threads."""

    def __iter__(self) -> BatchRun: ...
    def __next__(self) -> dict[str, Any]: ...

class Batch:
    """Crawl-scale extraction: templates learned once per site and template cluster,
    applied to all its pages (``templex batch``'s engine). A context manager; safe to share
    between threads (runs take turns on the store)."""

    def __init__(
        self,
        store: Optional[StrPath] = None,
        *,
        method: str = "tablechunk",
        site_sample: Optional[int] = None,
        sample_pages: Optional[int] = None,
        min_pages: Optional[int] = None,
        window: Optional[int] = None,
        relearn: bool = False,
        protect: bool = False,
        markdown: bool = False,
        rest: bool = False,
        max_page_bytes: Optional[int] = None,
        max_page_nodes: Optional[int] = None,
        page_timeout: Optional[float] = None,
    ) -> None:
        """``store``: an SQLite template store file (created if missing; kept templates are
        reused); ``None`` keeps templates in memory for this object's lifetime. A record
        that is not HTML or is over the page budget (``max_page_*``, ``page_timeout``, as
        :func:`extract`) is a record with ``error`` and ``error_code`` (``not_html``,
        ``too_large``, ``too_many_nodes``, ``timed_out``). ``markdown=True`` adds each
        page's content as Markdown (``markdown``) beside its text; ``rest=True`` adds the
        page minus its template (``rest``: comments, related lists and teasers included)
        for pages a template applies to. ``text`` is the page's main content: the
        page-level content refined by what the page's template cluster shows. Records with
        content carry its ``fingerprint``, as :func:`extract` does."""
    def process(self, records: Iterable[Record]) -> BatchRun:
        """Extract every record: ``(url, body)`` or ``(url, body, headers)``; one output
        dict per record, in input order (bad records are records with ``error``)."""
    def process_files(self, paths: Sequence[StrPath]) -> BatchRun:
        """Extract every page of WARC files, mirror directories and HTML files, read as
        ``templex batch`` reads them (the same output lines)."""
    def templates(self, site: Optional[str] = None) -> list[TemplateRow]:
        """The newest templates of every site in the store (or of ``site``), as portable
        rows that :meth:`add_templates` of another batch (another process, machine or run)
        takes: ``site``, ``cluster``, ``method``, ``scheme``, ``hash_scheme``, ``pages``,
        ``core`` (bytes), ``params``, ``model`` (bytes)."""
    def add_templates(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Store rows of :meth:`templates` as their sites' newest templates: pages of those
        sites then get them without learning. Returns the rows stored. Raises
        :class:`StoreError` when a row cannot be used (hashes of another templex version,
        an unknown model scheme, a damaged model, a cluster twice); then none is stored."""
    def close(self) -> None:
        """Close the template store."""
    def __enter__(self) -> Batch: ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

class WarcReader(Iterator[tuple[str, bytes, dict[str, str]]]):
    """Page records of a WARC file: ``(url, body, headers)``."""

    @property
    def problems(self) -> int:
        """Damaged spots skipped so far (truncated or corrupt records)."""
    @property
    def offset(self) -> Optional[int]:
        """Where the record last yielded starts in the file: its gzip member's offset in a
        ``.warc.gz`` of one member per record (as crawlers write them and Common Crawl's
        index names them), else its WARC header's offset in the decompressed stream;
        ``None`` before the first record."""
    def __iter__(self) -> WarcReader: ...
    def __next__(self) -> tuple[str, bytes, dict[str, str]]: ...

def site(url: str) -> str:
    """The site a batch learns a URL's page with: its registrable domain
    (``https://news.bbc.co.uk/x`` → ``bbc.co.uk``), or its host when it has none (an IP
    address, ``localhost``). Raises :class:`ValueError` for a URL without a host or one that
    does not parse."""

def read_warc(path: StrPath) -> WarcReader:
    """The HTML response records of a ``.warc`` or ``.warc.gz`` file, read with the
    tolerant reader (damaged spots are skipped and counted)."""
