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
//! 3. [`links`] — extract and resolve a page's hyperlinks, classify them as same-site.
//!
//! Later stages (finding sibling pages that share a template, mapping DOM trees, extracting
//! content, writing outputs) build on these.

pub mod batch;
pub mod cluster;
pub mod dom;
pub mod eval;
pub mod extract;
pub mod links;
pub mod mapping;
pub mod output;
pub mod pagelevel;
pub mod siblings;
pub mod source;
pub mod store;
pub mod tablechunk;
pub mod template;

pub use dom::{Document, NodeId};
pub use links::{Link, extract_links};
pub use source::{LoadError, Page, PageSource};
