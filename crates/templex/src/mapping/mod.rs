//! DOM mapping: node-equality relations and the exact top-down mapping (ETDM) of TemEx.

pub mod equality;
pub mod etdm;
pub mod index;

pub use equality::{Equality, NodeEquality, Weights, similarity};
pub use etdm::{Mapping, etdm};
pub use index::MapIndex;
