//! Evaluation against the template gold standard (`shared/data/gold`, see its README).
//!
//! * [`load_gold`] reads the per-site gold files; [`gold_content`] turns a key page's
//!   content selectors into a per-node mask (matches plus their subtrees).
//! * [`score`] compares a predicted template mask with the gold on the scoring unit, the
//!   element descendants of `<body>`, for both classes: template F1 alone flatters (marking
//!   everything template scores well), so the content class is always reported beside it.
//! * [`evaluate`] runs a detector over every key page and collects an [`EvalReport`] with
//!   one [`PageRow`] per key page and macro averages ([`MacroScores`]), printable as a table
//!   and serializable to JSON.

use std::path::PathBuf;

mod gold;
mod runner;
mod score;
mod sites;

pub use gold::{GoldSite, gold_content, load_gold};
pub use runner::{EvalReport, MacroScores, Prediction, evaluate, evaluate_sites};
pub use score::score;
pub use sites::{DataSite, read_sites};

/// Why the gold standard (or the site list) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A gold file (or `sites.json`) is not valid JSON of its kind.
    #[error("invalid gold file {}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
}
