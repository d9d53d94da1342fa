//! The table text chunk method (the "template table text chunk removal" paper): over a
//! cluster of pages of one template, text chunks that recur on many pages are template.
//!
//! 1. **Chunking** ([`page_chunks`]): one pass over a page in document order cuts its text
//!    into *chunks* — the text between two boundary elements. The paper's boundaries are the
//!    table nodes (`table`, `tr`, `td`, `th`, `thead`, `tbody`, `tfoot`, `caption`:
//!    [`Boundaries::Table`]); pages that lay out with `div`s have no such nodes, so a
//!    generalized set, every block-level element ([`Boundaries::Block`], the default), is
//!    offered too. Text is entity-decoded (the parser does it) and whitespace-normalized
//!    (NBSP included, zero-width characters dropped); `script`, `style` and other invisible
//!    elements hold no text. Informative image ALT text and image file names are text
//!    ([`image_text`]).
//! 2. **Learning** ([`learn`], [`TableChunkLearner`]): the document frequency of every chunk
//!    key over the cluster's pages, each page counting a key once. A chunk is template when
//!    its frequency reaches a fraction of the pages, and at least 2 pages
//!    ([`TableChunkConfig`]).
//! 3. **Applying** ([`TableChunkModel::template_mask`]) to any page of the cluster, seen
//!    while learning or not: its chunks found in the model are template, and so is every
//!    element all of whose chunks are; text-less nodes follow their parent. Three measured
//!    refinements ([`MaskRules`]): chunks without a letter (line numbers, dates,
//!    separators) are no evidence either way, chunks of image text only are evidence for
//!    the template but not against it (rotating sponsor logos), and layout wrappers (no
//!    text of their own, a template child) are template.
//!
//! Beyond the paper, chunks are keyed by **text, position and occurrence** ([`ChunkKeys`]):
//! the paper's text-only key makes a short content chunk that happens to equal a template
//! chunk ("Home", "Contact", "»") template wherever it appears, and counts a navigation bar
//! repeated at the top and the bottom of a page as one chunk. With the tag path of the
//! chunk's block and the chunk's occurrence index among equal (text, path) chunks of the
//! page in the key, the bottom bar is a template chunk of its own (it recurs on its own), and
//! a content "Home" in the article, or in the content cell after the menu cell of a layout
//! table, has a key no other page shares.
//!
//! From a key page ([`crate::extract_template`]), [`tablechunk_template`] learns from the key
//! page and a sample of its template cluster ([`super::sample`]) and masks the key page;
//! batch mode learns a [`TableChunkModel`] per template cluster and stores it.

mod chunking;
mod mask;
mod model;
#[cfg(all(test, feature = "eval"))]
mod tests;
mod text;

use std::time::Duration;

use url::Url;

use super::sample::sample_template;
use super::{Method, TemplateConfig, TemplateResult};
use crate::dom::Document;
use crate::source::PageSource;

#[cfg(feature = "batch")]
pub(crate) use chunking::KEY_SCHEME;
#[cfg(test)]
pub(crate) use chunking::page_chunks;
#[cfg(any(test, feature = "batch"))]
pub(crate) use chunking::page_keys;
pub use chunking::{Boundaries, ChunkKeys, Chunking};
pub use mask::MaskRules;
pub use model::TableChunkConfig;
pub(crate) use model::learn;
#[cfg(feature = "batch")]
pub(crate) use model::{TableChunkLearner, TableChunkModel};

/// Table text chunks: learn the chunks recurring on the key page and a sample of its
/// template cluster, apply them to the key page.
pub(super) fn tablechunk_template(
    source: &dyn PageSource,
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    sample_template(
        Method::TableChunk,
        source,
        key_url,
        doc,
        key_page,
        config,
        |doc, sample| {
            let model = learn(std::iter::once(doc).chain(sample), &config.tablechunk);
            let by_fraction = (config.tablechunk.fraction * model.pages as f64).ceil();
            let note = (!sample.is_empty() && by_fraction < f64::from(model.threshold)).then(|| {
            format!(
                "only {} pages share the key page's template: a chunk must recur on {} of them",
                model.pages, model.threshold
            )
        });
            (model.template_mask(doc), note)
        },
    )
}
