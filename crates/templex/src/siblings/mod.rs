//! Finding the sibling pages that share the key page's template: link ordering and the
//! complete-subdigraph (CS) search.

pub mod cs;
pub mod order;

pub use cs::{CsConfig, CsOutcome, LinkOrder, LoadedPage, StopReason, find_complete_subdigraph};
pub use order::{d_distance, h_distance, h_distance_urls, sort_links};
