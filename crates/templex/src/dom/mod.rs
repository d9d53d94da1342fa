//! Parsing and the DOM: bytes → text ([`decode()`]) → arena tree ([`Document`]) → HTML.
//!
//! One representation serves every stage of templex: nodes live in a `Vec` in document
//! order, so subtrees are id ranges and all traversals are loops.

mod budget;
pub mod decode;
mod identity;
mod lean;
mod parse;
#[cfg(feature = "eval")]
pub mod select;
mod serialize;
mod sink;
mod sniff;
pub mod tags;
mod tokenize;
mod tree;
mod visible;

pub use budget::{Budget, PageError, ParseMode, parse_page};
pub use decode::{Decoded, EncodingSource, decode};
pub use identity::Signatures;
pub use lean::{TEXT_ATTRIBUTES, parse_bytes_lean, parse_bytes_text, strip_raw_text};
pub use parse::{parse_bytes, parse_str, parse_str_html5ever};
#[cfg(feature = "eval")]
pub use select::{Selector, SelectorError, select};
pub use serialize::{SerializeHook, Verbatim};
pub use sniff::not_html;
pub use tags::is_void;
pub use tokenize::MAX_DEPTH;
pub use tree::{Attr, Children, Document, Element, Node, NodeData, NodeId, collapse_whitespace};
pub use visible::Visible;

/// Re-exported so callers can name tags without depending on markup5ever directly.
pub use markup5ever::{LocalName, QualName, local_name, namespace_url, ns};
