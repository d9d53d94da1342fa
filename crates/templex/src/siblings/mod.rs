//! Finding the sibling pages that share the key page's template: link ordering and the
//! complete-subdigraph (CS) search.

pub(crate) mod cs;
pub(crate) mod kind;
pub(crate) mod order;

pub use cs::{LinkOrder, SearchConfig, SiblingRule, StopReason};
