//! TemEx and HybEx (the template-extraction papers): the key page is mapped onto pages that
//! share its template, and the mappings vote on which of its nodes are template. Learn →
//! model → mask:
//! * **learn**: interactively ([`mapping_template`], [`mapped`]), the complete-subdigraph
//!   search finds the key page's siblings and the template guard (`Guard`) lets through
//!   those that share its template; batch mode keeps a pool of a template cluster's pages
//!   instead;
//! * **model**: batch's `HybExModel` (`model.rs`): the reference pool, with the cluster's
//!   SITELEVEL model for pages no reference maps;
//! * **mask**: the vote ([`vote`](mod@vote)): a node is template when enough mappings map it,
//!   under a [`TemplateRule`]; HybEx then takes the page-level main content out of the
//!   template ([`protect`]).
//!
//! The guard and the vote are written once and used by both forms. Beyond the paper:
//! * the **template guard** maps every loaded sibling against the key page and refuses
//!   pages whose structure overlaps too little (another template under the same host, a
//!   redirect stub), so they neither join the CS nor empty the template;
//! * the **text-evidence rule**: a mapped element is template only if the mapping also
//!   matched text under it (menu labels, footer lines), or if it holds no text at all and
//!   its parent is template. A content container that merely has the same tag, id and
//!   classes on every page (`div.entry-content`, `h1.title`) holds different text on each
//!   page, so it stays content — which is what users and the gold standard mean.

mod config;
mod mapped;
#[cfg(feature = "batch")]
mod model;
mod protect;
#[cfg(test)]
mod tests;
mod vote;

pub use config::MappingConfig;
pub(crate) use mapped::mapping_template;
#[cfg(feature = "batch")]
pub(crate) use model::{HybExModel, ModelPage, ReferencePage};
#[cfg(feature = "batch")]
pub(crate) use protect::protect_main_content;
pub use vote::TemplateRule;
