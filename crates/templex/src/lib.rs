#![warn(missing_docs)]
//! # templex
//!
//! Separates a web page's **template** (the chrome repeated across a site: header, menus,
//! sidebars, footer) from its **content**.
//!
//! The crate is laid out along the pipeline:
//!
//! 1. [`dom`] — decode bytes, parse HTML into an arena tree ([`dom::Document`]), serialize it.
//! 2. [`source`] — load the pages of a site: mirror directories, WARC files, live HTTP, memory.
//! 3. [`links`] and [`siblings`] — a page's links, their order, the complete subdigraph of
//!    sibling pages sharing its template; [`cluster`] groups a site's pages by template.
//! 4. [`mapping`] — exact top-down mapping of DOM trees under node-equality relations.
//! 5. The methods: [`template`] (one entry point, [`template::extract_template`], for TemEx,
//!    HybEx, SITELEVEL, PAGELEVEL and table chunks), [`pagelevel`] (one page: classifier and
//!    tree isotonic smoothing, SITELEVEL labels), [`tablechunk`], and [`extract`] (page-level
//!    main content). What batch mode learns has one shape, [`template::model`]: learn →
//!    model (each with its codec and scheme) → mask.
//! 6. Outputs: [`output`] (annotated page, reusable template, reports, text), [`eval`]
//!    (scores against the gold standard), [`batch`] (crawl scale, with the [`store`] of
//!    learned templates), [`dedup`] (content fingerprints and near-duplicate clusters).

#[cfg(feature = "batch")]
pub mod batch;
pub mod cluster;
pub mod dedup;
pub mod dom;
#[cfg(feature = "eval")]
pub mod eval;
pub mod extract;
pub mod links;
pub mod mapping;
mod method;
pub mod output;
pub mod pagelevel;
pub mod siblings;
pub mod source;
mod stable_hash;
#[cfg(feature = "batch")]
pub mod store;
pub mod tablechunk;
pub mod template;

pub use dedup::{Fingerprint, FingerprintConfig};
pub use dom::{Budget, Document, NodeId, PageError};
pub use extract::{Metadata, PageContent, PageHints, extract_page};
pub use links::{Link, extract_links};
pub use method::{Method, UnknownMethod};
pub use source::{LoadError, Page, PageSource};
pub use stable_hash::HASH_SCHEME;
