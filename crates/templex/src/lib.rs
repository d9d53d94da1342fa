#![warn(missing_docs)]
#![warn(unreachable_pub)]
// Batch mode's helpers are compiled for their unit tests in every build; without the
// `batch` feature nothing else calls them.
#![cfg_attr(all(test, not(feature = "batch")), allow(dead_code, unreachable_pub))]
//! # templex
//!
//! Separates a web page's **template** (the chrome repeated across a site: header, menus,
//! sidebars, footer) from its **content**.
//!
//! ```
//! use templex::{Budget, ContentConfig, PageHints, extract_page};
//!
//! let html = b"<html><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>\
//!     <article><h1>Spring planting</h1><p>Tomatoes go out once the nights stay above ten \
//!     degrees; until then they wait in the greenhouse, where the soil is warm.</p>\
//!     <p>Water them in the morning and give each plant a stake.</p></article>\
//!     <footer>Copyright the garden club</footer></body></html>";
//! let page = extract_page(html, &PageHints::default(), &ContentConfig::default(), &Budget::default())?;
//! println!("{}", page.text());
//! assert!(page.text().contains("Tomatoes go out"));
//! # Ok::<(), templex::PageError>(())
//! ```
//!
//! With a site, the template is what the key page shares with its siblings: any
//! [`PageSource`] gives the pages ([`sources::MirrorSource`] a folder, [`open_site`] a
//! folder, a WARC file or the web; here [`sources::MemorySource`]), and
//! [`extract_template`] finds the template by the method of the [`TemplateConfig`]:
//!
//! ```
//! use templex::sources::MemorySource;
//! use templex::{ContentConfig, TemplateConfig, extract_template};
//! use url::Url;
//!
//! let page = |title: &str, text: &str| format!(
//!     "<html><head><title>{title}</title></head><body>\
//!      <header><h1>Riverbend Garden</h1><ul><li><a href='/a.html'>Roses</a></li>\
//!      <li><a href='/b.html'>Tulips</a></li><li><a href='/c.html'>Herbs</a></li></ul></header>\
//!      <main><h2>{title}</h2><p>{text}</p></main>\
//!      <footer><p>Riverbend Garden, open every day</p></footer></body></html>");
//! let mut site = MemorySource::new();
//! let url = |p: &str| Url::parse(&format!("https://riverbend.example/{p}")).unwrap();
//! site.insert(&url("a.html"), page("Roses", "Prune roses in early spring, above an outward bud."));
//! site.insert(&url("b.html"), page("Tulips", "Plant tulip bulbs in autumn, three times as deep as they are tall."));
//! site.insert(&url("c.html"), page("Herbs", "Most herbs like sun and a soil that drains well."));
//!
//! let r = extract_template(&site, &url("a.html"), &TemplateConfig::default())?;
//! let text = r.content(&ContentConfig::default()).text();
//! println!("{} ({} siblings): {text}", r.method, r.cs_pages.len());
//! assert!(text.contains("Prune roses"));
//! # Ok::<(), templex::LoadError>(())
//! ```
//!
//! The modules are private. The crate root holds the entry points with their configs,
//! results and errors; the rest is in namespaces by pipeline stage:
//!
//! - **One page** (`src/dom/`, `src/extract/`, `src/page/`): [`parse_page`] parses bytes
//!   under a [`Budget`] into a [`Document`] (nodes numbered by [`NodeId`]), or gives a
//!   [`PageError`]; [`extract_page`] gives a page's main content without a site, a
//!   [`PageContent`] (text, Markdown, HTML, [`Metadata`]) under [`PageHints`] and a
//!   [`ContentConfig`].
//! - **A site** (`src/source/`): the pages behind one trait, [`PageSource`] ([`Page`],
//!   [`LoadError`]); [`open_site`] turns a key page and where its site is ([`SiteSpec`])
//!   into an [`OpenedSite`].
//! - **Templates** (`src/template/`): one entry point, [`extract_template`] with a
//!   [`TemplateConfig`], for every [`Method`] (TemEx, HybEx, SITELEVEL, PAGELEVEL, table
//!   chunks, main content), giving a [`TemplateResult`] (with its [`SiteContent`]). Each
//!   method has one home holding its learn → model → mask: TemEx and HybEx in
//!   `src/template/hybex/`, SITELEVEL in `src/template/sitelevel/`, table chunks in
//!   `src/template/tablechunk/`, PAGELEVEL in `src/template/pagelevel.rs` and main content
//!   in `src/template/maincontent.rs`; the page-level detector itself (features,
//!   classifier, smoothing, training) is `src/pagelevel/`, and batch mode's learned models'
//!   codecs are beside the store (`src/store/model.rs`).
//! - **Outputs' records**: the content record ([`ContentRecord`]) and the JSON report
//!   ([`TemplateReport`]).
//!
//! | Namespace | What it holds |
//! |---|---|
//! | [`html`] | parsing variants (`parse_bytes`, lean, text, `parse_str`, html5ever), charset decoding, `not_html`, text helpers |
//! | [`sources`] | [`PageSource`]s: mirror, memory, WARC, HTTP; page files; WARC reading and writing; load statistics |
//! | [`sibling_search`] | TemEx and HybEx: the sibling search's and the mapping's settings, links, their order, the sibling rule, stop reasons, tree equality |
//! | [`page_level`] | PAGELEVEL (its config, model, wrappers, `detect_page_level`) and SITELEVEL's config |
//! | [`table_chunks`] | the table-chunk method's settings |
//! | [`render`] | renderers: annotated page, reusable template, report, viewer, visible and content text |
//! | [`duplicates`] | near duplicates: fingerprints, their index, SimHash distance |
//! | [`batch`] | crawl scale: batch runs and the template store (feature `batch`) |
//! | [`eval`] | evaluation against the gold standard, CSS selectors (feature `eval`) |
//! | [`train`], [`isotonic`] | training the page-level and content models; tree isotonic smoothing |

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

// ---- The entry points, their configs, results and errors ----
// One page: parsing and main content.
pub use crate::dom::{Budget, Document, NodeId, PageError, parse_page};
pub use crate::extract::{ContentConfig, Metadata};
pub use crate::page::{PageContent, PageHints, extract_page};
// A site: its pages.
pub use crate::source::{LoadError, OpenError, OpenedSite, Page, PageSource, SiteSpec, open_site};
// Templates: every method, one entry point.
pub use crate::method::{Method, UnknownMethod};
pub use crate::sitecontent::SiteContent;
pub use crate::template::{
    SampleConfig, TemplateConfig, TemplateResult, TemplateRule, extract_template,
};
// The outputs' records.
pub use crate::output::{ContentRecord, TemplateReport};

pub mod html {
    //! Parsing variants, charset decoding and text helpers. Every page of the pipeline goes
    //! through [`crate::parse_page`]; these are the parsers under it ([`parse_bytes`]
    //! full, [`parse_bytes_lean`] without the text of scripts and styles,
    //! [`parse_bytes_text`] text only), [`parse_str`] on decoded text, the reference
    //! parser [`parse_str_html5ever`], [`decode`] by charset, [`not_html`].
    pub use crate::dom::{
        collapse_whitespace, decode, not_html, parse_bytes, parse_bytes_lean, parse_bytes_text,
        parse_str, parse_str_html5ever, strip_raw_text,
    };
}

pub mod sources {
    //! The [`crate::PageSource`]s: a site mirror's folder ([`MirrorSource`]), pages in
    //! memory ([`MemorySource`]), WARC files ([`WarcSource`] and a streaming reader and a
    //! writer, feature `warc`), the live web ([`HttpSource`], feature `http`); one page
    //! file ([`read_page_file`]); what loading cost ([`LoadStats`]).
    pub use crate::source::{LoadStats, MemorySource, MirrorSource, PageFileError, read_page_file};
    // The live web: polite, robots.txt, no private addresses.
    #[cfg(feature = "http")]
    pub use crate::source::{HttpConfig, HttpSetupError, HttpSource};
    // WARC files: a source, a streaming reader, a writer.
    #[cfg(feature = "warc")]
    pub use crate::source::warc::{
        WarcPages, WarcSource, WarcWriter, append_mirror, read_warc_pages, write_mirror_to_warc,
    };
}

pub mod sibling_search {
    //! How TemEx and HybEx find a key page's siblings and map their trees: the search's
    //! settings ([`SearchConfig`], [`crate::TemplateConfig::search`]), a page's links
    //! ([`extract_links_with`]), the order they are tried in ([`LinkOrder`]), which pages
    //! count as siblings ([`SiblingRule`]), why the search stopped ([`StopReason`]); the
    //! settings of the mapping and the vote ([`MappingConfig`],
    //! [`crate::TemplateConfig::mapping`]) with node equality of the tree mapping
    //! ([`Equality`]).
    pub use crate::links::{extract_links_with, looks_like_page, registrable_domain};
    pub use crate::mapping::Equality;
    pub use crate::siblings::{LinkOrder, SearchConfig, SiblingRule, StopReason};
    pub use crate::template::MappingConfig;
}

pub mod page_level {
    //! PAGELEVEL, the page-level classifier: its settings ([`PageLevelConfig`], [`Wrappers`]),
    //! its model ([`PageLevelModel`]) and [`detect_page_level`] on a parsed page; SITELEVEL's
    //! settings ([`SiteLevelConfig`]), whose labels train it ([`crate::train`]).
    pub use crate::pagelevel::{
        Model as PageLevelModel, ModelError as PageLevelModelError, PageLevelConfig, Wrappers,
        detect as detect_page_level,
    };
    pub use crate::template::sitelevel::SiteLevelConfig;
}

pub mod table_chunks {
    //! The table-chunk method's settings ([`TableChunkConfig`]).
    pub use crate::template::tablechunk::{
        Boundaries, ChunkKeys, Chunking, MaskRules, TableChunkConfig,
    };
}

pub mod render {
    //! Renderers: the annotated page ([`annotated_html`]), a reusable template
    //! ([`template_html`]), the JSON report ([`template_report`]), the viewer's inert page
    //! ([`view_html`]), a page's visible text ([`visible_text`]) and the text of kept nodes
    //! ([`content_text`], with the keep mask of site-aware content, [`non_template_mask`]).
    pub use crate::extract::{content_text, non_template_mask};
    pub use crate::output::{
        Rendering, TextOptions, ViewMarks, annotated_html, template_html, template_report,
        view_html, visible_text,
    };
}

pub mod duplicates {
    //! Near duplicates: content fingerprints ([`Fingerprinter`]), their clusters
    //! ([`DedupIndex`]), the distance of two SimHashes ([`simhash_distance`]); fingerprints
    //! that outlive a run carry their scheme ([`FINGERPRINT_SCHEME`]).
    pub use crate::dedup::{
        DedupConfig, DedupIndex, FINGERPRINT_SCHEME, Fingerprint, FingerprintConfig, Fingerprinter,
        simhash_distance,
    };
}

#[cfg(feature = "batch")]
pub mod batch {
    //! Crawl-scale batch mode: records in ([`records`], [`into_records`], or any
    //! [`Item`] iterator), one output record per input record ([`OutRecord`], to any
    //! [`RecordSink`]), templates learned once per site and template cluster and kept in a
    //! [`TemplateStore`] (its hashes' version is [`HASH_SCHEME`]). [`run`] reads files;
    //! [`run_records`] takes a record stream.
    pub use crate::batch_impl::{
        BATCH_METHODS, BatchConfig, BatchError, BatchInput, Item, OutRecord, OutputFile, Progress,
        RecordIn, RecordSink, Summary, into_records, records, run, run_records, site_of_url,
    };
    pub use crate::stable_hash::HASH_SCHEME;
    pub use crate::store::{PruneOptions, StoreError, TemplateRow, TemplateStore};
}

#[cfg(feature = "eval")]
pub mod eval {
    //! Evaluation against the template gold standard: [`load_gold`] reads it,
    //! [`evaluate`] runs a detector over every key page into an [`EvalReport`]; the gold
    //! standard's content regions are CSS selectors ([`Selector`], [`select`]).
    pub use crate::dom::{Selector, SelectorError, select};
    pub use crate::eval_impl::{
        DataSite, EvalError, EvalReport, GoldSite, MacroScores, Prediction, evaluate,
        evaluate_sites, gold_content, load_gold, read_sites, score,
    };
}

pub mod train {
    //! Training the page-level classifier ([`crate::page_level::PageLevelModel`]) on
    //! SITELEVEL labels of site mirrors, and the content model ([`Forest`]) on a page-level
    //! benchmark's gold text (`templex train`).
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
