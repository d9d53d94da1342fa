//! DOM mapping: node-equality relations and the exact top-down mapping (ETDM) of TemEx.

pub(crate) mod equality;
mod etdm;
pub(crate) mod index;

pub use equality::Equality;
pub(crate) use etdm::Mapping;
pub use etdm::etdm;
pub use index::MapIndex;
