#![warn(missing_docs)]
#![warn(unreachable_pub)]
//! # templex
//!
//! Separates a web page's **template** (the chrome repeated across a site: header, menus,
//! sidebars, footer) from its **content**.
//!
//! The modules are private: the API is the list of names below, grouped by pipeline stage.
//! Most names are at the crate root; four cohesive groups are namespaces of their own
//! ([`batch`], [`eval`], [`train`], [`isotonic`]). Each stage lives in the source as noted.
//!
//! 1. **Parsing** (`src/dom/`): bytes decoded by charset ([`decode`]), parsed into an arena
//!    tree ([`Document`], nodes numbered by [`NodeId`]) and serialized back. Every page goes
//!    through [`parse_page`] under a [`Budget`]: bytes that are not HTML ([`not_html`]) or
//!    a page over the budget give a [`PageError`].
//! 2. **Sources** (`src/source/`): the pages of a site behind one trait, [`PageSource`]:
//!    [`MirrorSource`], [`WarcSource`], [`HttpSource`], [`MemorySource`]. [`open_site`]
//!    turns a key page and where its site is ([`SiteSpec`]) into one; [`read_page_file`]
//!    reads one page file (capped, gzip-aware).
//! 3. **Links, siblings, mapping** (`src/links/`, `src/siblings/`, `src/mapping/`,
//!    `src/cluster/`): a page's links ([`extract_links_with`]); the complete subdigraph of
//!    sibling pages sharing its template, found in [`LinkOrder`]; DOM trees mapped onto
//!    each other under an [`Equality`]; a site's pages grouped by template.
//! 4. **Templates** (`src/template/`): one entry point, [`extract_template`] with a
//!    [`TemplateConfig`], for every [`Method`], giving a [`TemplateResult`]. Each method has
//!    one home holding its learn → model → mask: TemEx and HybEx in `src/template/hybex/`,
//!    SITELEVEL in `src/template/sitelevel/`, table chunks in `src/template/tablechunk/`,
//!    PAGELEVEL in `src/template/pagelevel.rs` and main content in
//!    `src/template/maincontent.rs`. The page-level detector itself (features, classifier,
//!    smoothing, training) is `src/pagelevel/`: [`detect_page_level`] runs it on a parsed
//!    page.
//! 5. **Content** (`src/extract/`, `src/page/`): a page's main content without a site:
//!    [`extract_page`] gives a [`PageContent`] (text, Markdown, HTML, metadata) — the main
//!    container, or on a page that spreads its content (listings, threads, service pages)
//!    what PAGELEVEL does not call chrome ([`ContentConfig::spread`]).
//! 6. **Outputs** (`src/output/`): the annotated page ([`annotated_html`]), a reusable
//!    template ([`template_html`]), the JSON report ([`template_report`]), the content
//!    record ([`ContentRecord`]), the viewer's inert page ([`view_html`]).
//! 7. **Near duplicates** (`src/dedup/`): content fingerprints ([`Fingerprinter`]) and
//!    their clusters ([`DedupIndex`]).
//! 8. **Crawl scale** ([`batch`]; `src/batch/`, `src/store/`): templates learned once per
//!    site and template cluster, kept in a [`batch::TemplateStore`], applied to every page;
//!    the learned models' codecs are beside the store (`src/store/model.rs`).
//! 9. **Evaluation and training** ([`eval`], `src/eval/`; [`train`] and [`isotonic`],
//!    `src/pagelevel/`): scores against the gold standard; the page-level classifier's
//!    training and its tree isotonic smoothing.
//!
//! Stable hashes and fingerprints that outlive a run carry their scheme ([`HASH_SCHEME`],
//! [`FINGERPRINT_SCHEME`]).

#[cfg(feature = "batch")]
#[path = "batch/mod.rs"]
mod batch_impl;
mod cluster;
mod dedup;
mod dom;
#[cfg(feature = "eval")]
#[path = "eval/mod.rs"]
mod eval_impl;
mod extract;
mod links;
mod mapping;
mod method;
mod output;
mod page;
mod pagelevel;
mod siblings;
mod sitecontent;
mod source;
mod stable_hash;
#[cfg(feature = "batch")]
mod store;
mod template;
#[cfg(test)]
mod test_support;

// ---- 1. Parsing: bytes → text → arena DOM → HTML ----
pub use crate::dom::{
    Budget, Document, NodeId, PageError, collapse_whitespace, decode, not_html, parse_bytes,
    parse_bytes_lean, parse_bytes_text, parse_page, parse_str, parse_str_html5ever, strip_raw_text,
};
// CSS selectors (the gold standard's content regions).
#[cfg(feature = "eval")]
pub use crate::dom::{Selector, SelectorError, select};

// ---- 2. Page sources ----
pub use crate::source::{
    LoadError, LoadStats, MemorySource, MirrorSource, OpenError, OpenedSite, Page, PageFileError,
    PageSource, SiteSpec, open_site, read_page_file,
};
// The live web: polite, robots.txt, no private addresses.
#[cfg(feature = "http")]
pub use crate::source::{HttpConfig, HttpSetupError, HttpSource};
// WARC files: a source, a streaming reader, a writer.
#[cfg(feature = "warc")]
pub use crate::source::warc::{
    WarcPages, WarcSource, WarcWriter, append_mirror, read_warc_pages, write_mirror_to_warc,
};

// ---- 3. Links, sibling search, tree mapping (settings of the site-level methods) ----
pub use crate::links::{extract_links_with, looks_like_page, registrable_domain};
pub use crate::mapping::Equality;
pub use crate::siblings::{LinkOrder, SiblingRule, StopReason};

// ---- 4. Templates: every method, one entry point ----
pub use crate::method::{Method, UnknownMethod};
pub use crate::pagelevel::{
    Model as PageLevelModel, ModelError as PageLevelModelError, PageLevelConfig, Wrappers,
    detect as detect_page_level,
};
pub use crate::template::sitelevel::SiteLevelConfig;
pub use crate::template::tablechunk::{
    Boundaries, ChunkKeys, Chunking, MaskRules, TableChunkConfig,
};
pub use crate::template::{TemplateConfig, TemplateResult, TemplateRule, extract_template};

// ---- 5. Main content of one page ----
pub use crate::extract::{ContentConfig, Metadata, content_text, non_template_mask};
pub use crate::page::{PageContent, PageHints, extract_page};
// What a site's pages show about their main content (content with a site).
pub use crate::sitecontent::SiteContent;

// ---- 6. Outputs ----
pub use crate::output::{
    ContentRecord, Rendering, TemplateReport, TextOptions, ViewMarks, annotated_html,
    template_html, template_report, view_html, visible_text,
};

// ---- 7. Near duplicates ----
pub use crate::dedup::{
    DedupConfig, DedupIndex, FINGERPRINT_SCHEME, Fingerprint, FingerprintConfig, Fingerprinter,
    simhash_distance,
};

// The version of the stable hashes that the template store keeps.
pub use crate::stable_hash::HASH_SCHEME;

// ---- 8. Crawl scale ----
#[cfg(feature = "batch")]
pub mod batch {
    //! Crawl-scale batch mode: records in ([`records`], [`into_records`], or any
    //! [`Item`] iterator), one output record per input record ([`OutRecord`], to any
    //! [`RecordSink`]), templates learned once per site and template cluster and kept in a
    //! [`TemplateStore`]. [`run`] reads files; [`run_records`] takes a record stream.
    pub use crate::batch_impl::{
        BATCH_METHODS, BatchConfig, BatchError, BatchInput, Item, OutRecord, OutputFile, Progress,
        RecordIn, RecordSink, Summary, into_records, records, run, run_records, site_of_url,
    };
    pub use crate::store::{PruneOptions, StoreError, TemplateRow, TemplateStore};
}

// ---- 9. Evaluation and training ----
#[cfg(feature = "eval")]
pub mod eval {
    //! Evaluation against the template gold standard: [`load_gold`] reads it,
    //! [`evaluate`] runs a detector over every key page into an [`EvalReport`].
    pub use crate::eval_impl::{
        DataSite, EvalError, EvalReport, GoldSite, MacroScores, Prediction, evaluate,
        evaluate_sites, gold_content, load_gold, read_sites, score,
    };
}

pub mod train {
    //! Training the page-level classifier ([`crate::PageLevelModel`]) on SITELEVEL labels
    //! of site mirrors, and the content model ([`Forest`]) on a page-level benchmark's gold
    //! text (`templex train`).
    pub use crate::pagelevel::{
        Forest, ForestConfig, ForestMemo, GoldPage, TrainConfig, TrainingInfo, TrainingSet,
        content_samples, gold_samples, read_gold_pages, train, train_forest,
    };
    pub use crate::template::sitelevel::labels::{SiteSamples, SiteTrainConfig, site_samples};
}

pub mod isotonic {
    //! Regularized tree isotonic regression: PAGELEVEL's smoothing step ([`smooth`]).
    pub use crate::pagelevel::isotonic::{IsotonicError, SmoothOptions, Smoothing, smooth};
}

#[doc(hidden)]
pub mod dev {
    //! Internals that the development aids in `crates/templex/examples/` reach (clusters,
    //! tree mappings, page-level features, the content container): not part of the API,
    //! they change without notice.
    pub use crate::cluster::{ClusterConfig, Fingerprint, cluster};
    pub use crate::extract::page_content;
    pub use crate::mapping::{MapIndex, etdm};
    pub use crate::pagelevel::{FEATURE_NAMES, NO_ROW, node_features};
    pub use crate::stable_hash::sample_indices;
}
