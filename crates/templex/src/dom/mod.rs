//! Parsing and the DOM: bytes → text ([`decode()`]) → arena tree ([`Document`]) → HTML.
//!
//! One representation serves every stage of templex: nodes live in a `Vec` in document
//! order, so subtrees are id ranges and all traversals are loops.

mod budget;
pub(crate) mod deadline;
mod decode;
mod identity;
mod lean;
mod parse;
#[cfg(feature = "eval")]
mod select;
mod serialize;
mod sink;
mod sniff;
pub(crate) mod tags;
#[cfg(test)]
mod tests;
mod tokenize;
mod tree;
mod visible;

pub(crate) use budget::ParseMode;
pub use budget::{Budget, PageError, parse_page};
pub use decode::decode;
pub use lean::{parse_bytes_lean, parse_bytes_text, strip_raw_text};
pub use parse::{parse_bytes, parse_str, parse_str_html5ever};
#[cfg(feature = "eval")]
pub use select::{Selector, SelectorError, select};
pub(crate) use serialize::{SerializeHook, html_lengths};
pub use sniff::not_html;
#[cfg(feature = "batch")]
pub(crate) use tree::Node;
pub(crate) use tree::{Attr, Element, NodeData};
pub use tree::{Document, NodeId, collapse_whitespace};
pub(crate) use tree::{is_cjk, is_invisible_format, is_word_char};

/// Tag names, for the modules that match on them.
pub(crate) use markup5ever::{LocalName, local_name};
