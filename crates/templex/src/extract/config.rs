//! What page-level content is asked for ([`ContentConfig`]) and what it finds ([`Content`]).

use serde::Serialize;

use crate::dom::NodeId;

/// Settings of [`page_content`](super::page_content).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentConfig {
    /// Keep user comments (dropped by default).
    pub comments: bool,
    /// A candidate container is tightened to the smallest element keeping at least this share
    /// of the best candidate's net content mass.
    pub tighten: f64,
    /// Drop stand-alone short labels ("Advertisement", "SUBSCRIBE", "Like this:").
    pub drop_labels: bool,
    /// Drop image captions and credits. On by default for plain text, where both AEB and
    /// trafilatura-eval count them as noise (BENCHMARKS.md); Markdown and HTML output keep
    /// figures with their captions.
    pub drop_captions: bool,
    /// Siblings of the main container with at least this share of its net mass join it
    /// (0 disables).
    pub expand: f64,
    /// Leave the headline (an `<h1>` repeating the page title) out of the text: it is the
    /// `title`.
    pub drop_headline: bool,
    /// A page whose main container holds less than this share of the words that the
    /// page-level detectors leave is a page that spreads its content (listings, threads,
    /// service pages): all of those words are its content (0 disables; a container beside
    /// sections of prose gives way at a larger share, as long as this is not 0). 0.4 was
    /// chosen with that rule by cross-validation by domain on WCXB dev, and keeps
    /// trafilatura-eval's articles at their figure (BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
    pub spread: f64,
}

impl Default for ContentConfig {
    fn default() -> Self {
        ContentConfig {
            comments: false,
            tighten: 0.85,
            drop_labels: true,
            drop_captions: true,
            drop_headline: true,
            expand: 0.2,
            spread: 0.4,
        }
    }
}

impl ContentConfig {
    /// `share` checked as a [`spread`](Self::spread) share (finite, 0 or more): the one rule
    /// the CLI, the server and the Python package apply to what a user gives.
    pub fn spread_share(share: f64) -> Result<f64, String> {
        if share >= 0.0 && share.is_finite() {
            Ok(share)
        } else {
            Err(format!("spread must be a share of 0 or more, not {share}"))
        }
    }
}

/// The detected main content of a page.
#[derive(Debug, Clone)]
pub struct Content {
    /// The main-content container (`None` when the page has no text).
    pub root: Option<NodeId>,
    /// Per node id: whether the node belongs to the content (kept for output).
    pub keep: Vec<bool>,
}

impl Content {
    /// Whether node `id` is content.
    pub fn is_content(&self, id: NodeId) -> bool {
        self.keep.get(id.index()).copied().unwrap_or(false)
    }
}
