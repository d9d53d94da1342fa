//! What one page may cost: bytes, nodes and time, and the errors a page over them (or one
//! that is not HTML at all) gives instead of a stall or garbage.
//!
//! Parsing is linear in the page for every shape (the stack of open elements stops at
//! [`MAX_DEPTH`](super::MAX_DEPTH)) and every stage after it is linear or near-linear in the
//! nodes, so bounding the bytes and the nodes bounds the work; the time budget is the last
//! guard, for the machine being slow rather than the page being hostile. It is checked while
//! parsing and between the stages of a page.

use std::time::{Duration, Instant};

use super::deadline;
use super::decode::decode;
use super::lean::lean_html_with;
use super::sink::{Sink, Stop};
use super::sniff::not_html;
use super::tree::Document;

/// Limits on what one page may cost. The defaults let through every page a person reads
/// (the largest of the dev data is under 5 MB and 100,000 nodes) with a wide margin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Bytes of the undecoded page.
    pub max_bytes: usize,
    /// Nodes of the parsed tree (elements, text, comments).
    pub max_nodes: usize,
    /// Time to parse the page and find its content or template.
    pub max_time: Duration,
}

impl Budget {
    /// The default budget: 64 MiB, 8 million nodes, 30 seconds.
    pub const DEFAULT: Budget = Budget {
        max_bytes: 64 * 1024 * 1024,
        max_nodes: 8_000_000,
        max_time: Duration::from_secs(30),
    };

    /// No limits (for trusted input, and the reference parsers).
    pub const UNLIMITED: Budget = Budget {
        max_bytes: usize::MAX,
        max_nodes: usize::MAX,
        max_time: Duration::MAX,
    };

    /// The moment a page started at `start` runs out of time (`None`: never).
    pub fn deadline(&self, start: Instant) -> Option<Instant> {
        start.checked_add(self.max_time)
    }

    /// The page's deadline for every stage on this thread, while the scope lives: long loops
    /// stop at it, and the caller gives [`Self::timed_out`] if [`deadline::Scope::passed`].
    pub(crate) fn scope(&self, start: Instant) -> deadline::Scope {
        deadline::scope(self.deadline(start))
    }

    /// The error of a page that ran out of time during `stage`.
    pub(crate) fn timed_out(&self, stage: &'static str) -> PageError {
        PageError::TimedOut {
            limit: self.max_time,
            stage,
        }
    }

    /// `Err(TimedOut)` if a page started at `start` has run out of time during `stage`.
    pub fn check_time(&self, start: Instant, stage: &'static str) -> Result<(), PageError> {
        match self.deadline(start) {
            Some(deadline) if Instant::now() > deadline => Err(PageError::TimedOut {
                limit: self.max_time,
                stage,
            }),
            _ => Ok(()),
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// Why a page gives no content: it is over a [`Budget`], or it is not HTML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// The page has more bytes than the budget allows.
    #[error("page of {bytes} bytes is over the budget of {limit} bytes")]
    TooLarge {
        /// The page's size.
        bytes: usize,
        /// The budget.
        limit: usize,
    },
    /// The parsed page has more nodes than the budget allows.
    #[error("page has more than {limit} nodes (the node budget)")]
    TooManyNodes {
        /// The budget.
        limit: usize,
    },
    /// The page took longer than the budget allows.
    #[error("page took longer than {limit:?} (the time budget), while {stage}")]
    TimedOut {
        /// The budget.
        limit: Duration,
        /// What was being done when time ran out.
        stage: &'static str,
    },
    /// The bytes are not a web page (an image, a PDF, an archive, binary data).
    #[error("not HTML: the bytes look like {0}")]
    NotHtml(&'static str),
}

impl PageError {
    /// A short stable name for the error, for JSON records and API error codes:
    /// `too_large`, `too_many_nodes`, `timed_out` or `not_html`.
    pub fn code(&self) -> &'static str {
        match self {
            PageError::TooLarge { .. } => "too_large",
            PageError::TooManyNodes { .. } => "too_many_nodes",
            PageError::TimedOut { .. } => "timed_out",
            PageError::NotHtml(_) => "not_html",
        }
    }
}

/// How much of a page [`parse_page`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseMode {
    /// Everything ([`parse_bytes`](super::parse_bytes)).
    Full,
    /// Without the contents of scripts, styles, SVG and comments, and read as a browser
    /// without scripts reads it: `<noscript>` content shown
    /// ([`parse_bytes_lean`](super::parse_bytes_lean)).
    #[default]
    Lean,
    /// Lean, and only the attributes text extraction reads
    /// ([`parse_bytes_text`](super::parse_bytes_text)).
    Text,
}

/// Parse bytes that should be a web page, within `budget` (its clock started at `start`):
/// refuses pages over the byte budget and bytes that are not HTML ([`not_html`]) before
/// parsing, and stops parsing at the node or time budget.
pub fn parse_page(
    bytes: &[u8],
    transport_charset: Option<&str>,
    mode: ParseMode,
    budget: &Budget,
    start: Instant,
) -> Result<Document, PageError> {
    if bytes.len() > budget.max_bytes {
        return Err(PageError::TooLarge {
            bytes: bytes.len(),
            limit: budget.max_bytes,
        });
    }
    if let Some(what) = not_html(bytes) {
        return Err(PageError::NotHtml(what));
    }
    // The parse stops at the page's deadline, or at an earlier one of the caller's.
    let scope = budget.scope(start);
    let decoded = decode(bytes, transport_charset);
    if scope.passed() {
        return Err(budget.timed_out("decoding"));
    }
    let mut json_ld = Vec::new();
    let lean;
    let (html, scripting) = match mode {
        ParseMode::Full => (&*decoded.text, true),
        ParseMode::Lean | ParseMode::Text => {
            lean = lean_html_with(&decoded.text, mode == ParseMode::Text, Some(&mut json_ld));
            (&*lean, false)
        }
    };
    let sink = Sink::for_input(html, budget.max_nodes);
    let (mut doc, stop) = super::tokenize::parse_document(sink, html, scripting);
    if mode != ParseMode::Full {
        doc.json_ld = json_ld.into();
    }
    match stop {
        Some(Stop::Nodes) => Err(PageError::TooManyNodes {
            limit: budget.max_nodes,
        }),
        Some(Stop::Time) => Err(budget.timed_out("parsing")),
        None => {
            doc.encoding = decoded.encoding;
            doc.encoding_source = decoded.source;
            Ok(doc)
        }
    }
}
