//! Finding the sibling pages that share the key page's template: link ordering and the
//! complete-subdigraph (CS) search.

pub mod cs;
pub mod kind;
pub mod order;

pub use cs::{
    CsConfig, CsOutcome, LinkOrder, LoadedPage, SiblingLoad, SiblingRule, StopReason,
    candidate_links, find_complete_subdigraph, load_sibling,
};
pub use kind::{UrlPattern, own_kind};
pub use order::{d_distance, h_distance, h_distance_urls, sort_links};
