//! Learned templates as the store keeps them — learn → model → mask, one shape for every
//! method that batch mode learns once per template cluster, stores and applies to every page
//! of the cluster. Each model lives with its method (`src/template/<method>/`); here is what
//! batch mode and the store see of them all:
//!
//! * **learn** ([`LearnedModel::learn`]) from what a learning round kept of its sampled pages
//!   ([`learn_keys`]: SITELEVEL node hashes or table chunk keys) and, for HybEx, a pool of
//!   reference pages;
//! * the **model**, one type per method ([`SiteLevelModel`], [`TableChunkModel`],
//!   [`HybExModel`]), each with its codec and its scheme number (the `TemplateModel`
//!   trait). The template store writes the scheme with the row and refuses rows of another
//!   scheme, so a model is never read by a codec that does not know it, nor silently matched
//!   against nothing (the check of tantivy's store footer);
//! * the **mask** ([`Applier::template_mask`]): which nodes of a page are template.
//!
//! The interactive methods ([`crate::extract_template`]) learn the same models from a key
//! page's sample (SITELEVEL, table chunks) or map the key page onto its siblings with the
//! same guard and vote as the HybEx model (TemEx, HybEx).

use serde::{Deserialize, Serialize};

use crate::dom::Document;
use crate::mapping::MapIndex;
use crate::method::Method;
use crate::template::hybex::protect_main_content;
use crate::template::sitelevel::{SiteLevel, SiteLevelConfig, SiteLevelModel, node_hashes};
use crate::template::tablechunk::{
    Chunking, KEY_SCHEME, TableChunkConfig, TableChunkLearner, TableChunkModel,
};

pub(crate) use crate::template::hybex::{HybExModel, ModelPage, ReferencePage};

/// A learned model's method, codec and scheme: what the template store needs to keep it.
pub(crate) trait TemplateModel: Sized {
    /// The method that learns it (its name is stored with it).
    const METHOD: Method;
    /// Version of [`encode`](Self::encode)'s format, stored with the row and checked on
    /// load: bump it whenever the format or the meaning of a stored model changes.
    const SCHEME: u32;
    /// Parameters as JSON and the bulk (hashes, pages) as a blob.
    fn encode(&self) -> (String, Vec<u8>);
    /// The model [`encode`](Self::encode) made these of (same scheme).
    fn decode(params: &str, blob: &[u8]) -> Result<Self, String>;
    /// Entries in the model: hashes, chunks or reference pages.
    fn entries(&self) -> usize;
    /// [`entries`](Self::entries) read from an encoding without decoding it (listing a
    /// store must not parse every reference page).
    fn encoded_entries(params: &str, blob_len: usize) -> Option<usize>;
    /// What `templex store show` prints of the model.
    fn summary(&self) -> serde_json::Value;
}

/// A learned template model of one cluster.
#[derive(Debug, Clone, PartialEq)]
pub enum LearnedModel {
    /// SITELEVEL: the cluster's frequent node hashes.
    SiteLevel(SiteLevelModel),
    /// Table text chunks: the cluster's template chunk keys.
    TableChunk(TableChunkModel),
    /// HybEx against a pool of the cluster's pages.
    HybEx(HybExModel),
}

/// A model as the store keeps it.
#[derive(Debug, Clone)]
pub struct EncodedModel {
    /// The method that learned it.
    pub method: Method,
    /// Its codec's scheme ([`LearnedModel::scheme`]).
    pub scheme: u32,
    /// Parameters (JSON).
    pub params: String,
    /// The bulk.
    pub blob: Vec<u8>,
}

/// Why a stored model cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Written under another scheme (or by a method this templex does not know): reading it
    /// would match nothing, or worse.
    #[error("{method} model of scheme {found}, this templex reads {}", expected_scheme(.expected))]
    Scheme {
        /// The stored method name.
        method: String,
        /// The stored scheme.
        found: u32,
        /// This templex's scheme of the method, if it knows the method.
        expected: Option<u32>,
    },
    /// The encoding is damaged.
    #[error("{0}")]
    Corrupt(String),
}

fn expected_scheme(expected: &Option<u32>) -> String {
    match expected {
        Some(s) => format!("scheme {s}"),
        None => "no such method".into(),
    }
}

/// One model type's method, scheme and codec, for reading a row by its method name.
struct Codec {
    method: Method,
    scheme: u32,
    decode: fn(&str, &[u8]) -> Result<LearnedModel, String>,
    encoded_entries: fn(&str, usize) -> Option<usize>,
}

/// Every model type that a store row can hold.
const CODECS: [Codec; 3] = [
    Codec {
        method: SiteLevelModel::METHOD,
        scheme: SiteLevelModel::SCHEME,
        decode: |p, b| SiteLevelModel::decode(p, b).map(LearnedModel::SiteLevel),
        encoded_entries: SiteLevelModel::encoded_entries,
    },
    Codec {
        method: TableChunkModel::METHOD,
        scheme: TableChunkModel::SCHEME,
        decode: |p, b| TableChunkModel::decode(p, b).map(LearnedModel::TableChunk),
        encoded_entries: TableChunkModel::encoded_entries,
    },
    Codec {
        method: HybExModel::METHOD,
        scheme: HybExModel::SCHEME,
        decode: |p, b| HybExModel::decode(p, b).map(LearnedModel::HybEx),
        encoded_entries: HybExModel::encoded_entries,
    },
];

fn codec_of(method: &str) -> Option<&'static Codec> {
    CODECS.iter().find(|c| c.method.name() == method)
}

impl LearnedModel {
    /// Learn a cluster's model with `method` ([`Method::TableChunk`], [`Method::HybEx`];
    /// any other learns SITELEVEL) from the [`learn_keys`] of its sampled pages and, for
    /// HybEx, its reference pool.
    pub fn learn(
        method: Method,
        keys: &[&[u64]],
        pool: Vec<ReferencePage>,
        sitelevel: &SiteLevelConfig,
        tablechunk: TableChunkConfig,
    ) -> LearnedModel {
        if method == Method::TableChunk {
            let mut learner = TableChunkLearner::new(tablechunk);
            for k in keys {
                learner.add_keys(k);
            }
            return LearnedModel::TableChunk(learner.model());
        }
        let mut freq = SiteLevel::new();
        for h in keys {
            freq.add_hashes(h);
        }
        let sitelevel = freq.model(sitelevel);
        match method {
            Method::HybEx => LearnedModel::HybEx(HybExModel::new(pool, sitelevel)),
            _ => LearnedModel::SiteLevel(sitelevel),
        }
    }

    /// The method that learned the model.
    pub fn method(&self) -> Method {
        match self {
            LearnedModel::SiteLevel(_) => SiteLevelModel::METHOD,
            LearnedModel::TableChunk(_) => TableChunkModel::METHOD,
            LearnedModel::HybEx(_) => HybExModel::METHOD,
        }
    }

    /// The scheme of the model's codec, stored with it.
    pub fn scheme(&self) -> u32 {
        match self {
            LearnedModel::SiteLevel(_) => SiteLevelModel::SCHEME,
            LearnedModel::TableChunk(_) => TableChunkModel::SCHEME,
            LearnedModel::HybEx(_) => HybExModel::SCHEME,
        }
    }

    /// Entries in the model (hashes, chunks, or reference pages).
    pub fn entries(&self) -> usize {
        match self {
            LearnedModel::SiteLevel(m) => m.entries(),
            LearnedModel::TableChunk(m) => m.entries(),
            LearnedModel::HybEx(m) => m.entries(),
        }
    }

    /// What `templex store show` prints of the model.
    pub fn summary(&self) -> serde_json::Value {
        match self {
            LearnedModel::SiteLevel(m) => m.summary(),
            LearnedModel::TableChunk(m) => m.summary(),
            LearnedModel::HybEx(m) => m.summary(),
        }
    }

    /// The model as the store keeps it.
    pub fn encode(&self) -> EncodedModel {
        let (params, blob) = match self {
            LearnedModel::SiteLevel(m) => m.encode(),
            LearnedModel::TableChunk(m) => m.encode(),
            LearnedModel::HybEx(m) => m.encode(),
        };
        EncodedModel {
            method: self.method(),
            scheme: self.scheme(),
            params,
            blob,
        }
    }

    /// The model a store row holds: refused when its scheme is not this templex's for the
    /// method.
    pub fn decode(
        method: &str,
        scheme: u32,
        params: &str,
        blob: &[u8],
    ) -> Result<LearnedModel, DecodeError> {
        let codec = codec_of(method)
            .filter(|c| c.scheme == scheme)
            .ok_or_else(|| DecodeError::Scheme {
                method: method.into(),
                found: scheme,
                expected: Self::scheme_of(method),
            })?;
        (codec.decode)(params, blob).map_err(DecodeError::Corrupt)
    }

    /// This templex's scheme for models of `method` (by name), if a model of it is stored.
    pub fn scheme_of(method: &str) -> Option<u32> {
        codec_of(method).map(|c| c.scheme)
    }

    /// Every (method, scheme) pair this templex reads.
    pub fn schemes() -> impl Iterator<Item = (Method, u32)> {
        CODECS.iter().map(|c| (c.method, c.scheme))
    }

    /// The entries of an encoded model (see [`Self::entries`]), without decoding it; 0 when
    /// the method or the encoding is unknown.
    pub fn encoded_entries(method: &str, params: &str, blob_len: usize) -> usize {
        codec_of(method)
            .and_then(|c| (c.encoded_entries)(params, blob_len))
            .unwrap_or(0)
    }

    /// Ready to apply to many pages: what the model needs built once (HybEx: the mapping
    /// indexes of its references).
    pub fn applier(&self) -> Applier<'_> {
        Applier {
            references: match self {
                LearnedModel::HybEx(m) => m.index(),
                _ => Vec::new(),
            },
            model: self,
        }
    }
}

/// What a learning method reads of a page: its table chunk keys ([`Method::TableChunk`]) or
/// its SITELEVEL node hashes (the others).
pub(crate) fn learn_keys(method: Method, doc: &Document, chunking: &Chunking) -> Vec<u64> {
    match method {
        Method::TableChunk => crate::template::tablechunk::page_keys(doc, chunking),
        _ => node_hashes(doc),
    }
}

/// A model ready to apply ([`LearnedModel::applier`]).
#[derive(Debug)]
pub struct Applier<'m> {
    model: &'m LearnedModel,
    references: Vec<MapIndex<'m>>,
}

impl Applier<'_> {
    /// Per node id of the page: whether the node is template. With `protect`, HybEx's
    /// page-level step is added to SITELEVEL and table chunk templates (the main content the
    /// page-level detector finds is never template); HybEx always has it.
    pub fn template_mask(&self, page: &ModelPage<'_>, protect: bool) -> Vec<bool> {
        let mut mask = match self.model {
            LearnedModel::SiteLevel(m) => m.template_mask(page.doc),
            LearnedModel::TableChunk(m) => m.template_mask(page.doc),
            LearnedModel::HybEx(m) => return m.template_mask(&self.references, page),
        };
        if protect {
            protect_main_content(page.doc, &mut mask);
        }
        mask
    }
}

impl TemplateModel for SiteLevelModel {
    const METHOD: Method = Method::SiteLevel;
    const SCHEME: u32 = 1;

    /// Pages and cover as JSON; the sorted hashes as little-endian `u64`s.
    fn encode(&self) -> (String, Vec<u8>) {
        (
            serde_json::json!({"pages": self.pages, "cover": self.cover}).to_string(),
            u64s_to_blob(&self.hashes),
        )
    }

    fn decode(params: &str, blob: &[u8]) -> Result<Self, String> {
        #[derive(serde::Deserialize)]
        struct P {
            pages: usize,
            cover: f64,
        }
        let p: P = serde_json::from_str(params).map_err(|e| e.to_string())?;
        let hashes = blob_to_u64s(blob)?;
        if hashes.windows(2).any(|w| w[0] >= w[1]) {
            return Err("hashes not sorted".into());
        }
        Ok(SiteLevelModel {
            pages: p.pages,
            cover: p.cover,
            hashes,
        })
    }

    fn entries(&self) -> usize {
        self.hashes.len()
    }

    fn encoded_entries(_params: &str, blob_len: usize) -> Option<usize> {
        Some(blob_len / 8)
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "frequent_hashes": self.hashes.len(),
            "learned_from_pages": self.pages,
            "cover": self.cover,
        })
    }
}

impl TemplateModel for TableChunkModel {
    const METHOD: Method = Method::TableChunk;
    const SCHEME: u32 = 1;

    /// The model without its chunks as JSON; the chunks as (key `u64`, frequency `u32`)
    /// little-endian pairs.
    fn encode(&self) -> (String, Vec<u8>) {
        let mut params = self.clone();
        params.chunks.clear();
        let blob = self
            .chunks
            .iter()
            .flat_map(|(k, df)| k.to_le_bytes().into_iter().chain(df.to_le_bytes()))
            .collect();
        (serde_json::to_string(&params).unwrap_or_default(), blob)
    }

    /// Refuses keys of another [`KEY_SCHEME`]: they would match no chunk.
    fn decode(params: &str, blob: &[u8]) -> Result<Self, String> {
        let mut m: TableChunkModel = serde_json::from_str(params).map_err(|e| e.to_string())?;
        if m.scheme != KEY_SCHEME {
            return Err(format!(
                "chunk keys of key scheme {}, this templex makes scheme {KEY_SCHEME}",
                m.scheme
            ));
        }
        if blob.len() % 12 != 0 {
            return Err(format!("blob of {} bytes is not a chunk list", blob.len()));
        }
        m.chunks = blob
            .chunks_exact(12)
            .map(|c| {
                let k = u64::from_le_bytes(c[..8].try_into().unwrap_or([0; 8]));
                let df = u32::from_le_bytes(c[8..].try_into().unwrap_or([0; 4]));
                (k, df)
            })
            .collect();
        if m.chunks.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err("chunk keys not sorted".into());
        }
        Ok(m)
    }

    fn entries(&self) -> usize {
        self.chunks.len()
    }

    fn encoded_entries(_params: &str, blob_len: usize) -> Option<usize> {
        Some(blob_len / 12)
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "template_chunks": self.chunks.len(),
            "learned_from_pages": self.pages,
            "threshold": self.threshold,
        })
    }
}

/// The pool's parameters (URLs, charsets, body lengths, SITELEVEL's) as JSON.
#[derive(Serialize, Deserialize)]
struct HybExParams {
    pages: Vec<ReferencePage>,
    lengths: Vec<usize>,
    sitelevel: SiteLevelParams,
    hashes: usize,
}

#[derive(Serialize, Deserialize)]
struct SiteLevelParams {
    pages: usize,
    cover: f64,
}

impl TemplateModel for HybExModel {
    const METHOD: Method = Method::HybEx;
    const SCHEME: u32 = 1;

    /// The SITELEVEL hashes then the reference bodies, one after the other, in the blob.
    fn encode(&self) -> (String, Vec<u8>) {
        let lens: Vec<usize> = self.references().iter().map(|r| r.body.len()).collect();
        let params = serde_json::json!({
            "pages": self.references(),
            "lengths": lens,
            "sitelevel": {"pages": self.sitelevel().pages, "cover": self.sitelevel().cover},
            "hashes": self.sitelevel().hashes.len(),
        })
        .to_string();
        let mut blob = u64s_to_blob(&self.sitelevel().hashes);
        for r in self.references() {
            blob.extend_from_slice(&r.body);
        }
        (params, blob)
    }

    fn decode(params: &str, blob: &[u8]) -> Result<Self, String> {
        let p: HybExParams = serde_json::from_str(params).map_err(|e| e.to_string())?;
        let hash_bytes = p.hashes.checked_mul(8).ok_or("hash count overflows")?;
        let total = p
            .lengths
            .iter()
            .try_fold(hash_bytes, |a, l| a.checked_add(*l));
        if p.pages.len() != p.lengths.len() || total != Some(blob.len()) {
            return Err("model sizes do not match the blob".into());
        }
        let hashes = blob_to_u64s(&blob[..hash_bytes])?;
        let mut at = hash_bytes;
        let mut references = p.pages;
        for (page, len) in references.iter_mut().zip(p.lengths) {
            page.body = blob[at..at + len].to_vec();
            at += len;
        }
        Ok(HybExModel::new(
            references,
            SiteLevelModel {
                pages: p.sitelevel.pages,
                cover: p.sitelevel.cover,
                hashes,
            },
        ))
    }

    fn entries(&self) -> usize {
        self.references().len()
    }

    fn encoded_entries(params: &str, _blob_len: usize) -> Option<usize> {
        #[derive(Deserialize)]
        struct Pages {
            pages: Vec<serde::de::IgnoredAny>,
        }
        serde_json::from_str::<Pages>(params)
            .ok()
            .map(|p| p.pages.len())
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "reference_pages": self.references().iter().map(|r| serde_json::json!({
                "url": r.url,
                "bytes": r.body.len(),
            })).collect::<Vec<_>>(),
            "sitelevel_frequent_hashes": self.sitelevel().hashes.len(),
        })
    }
}

/// Hashes as little-endian `u64`s: compact, and read without parsing.
pub(crate) fn u64s_to_blob(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// The hashes of [`u64s_to_blob`].
pub(crate) fn blob_to_u64s(b: &[u8]) -> Result<Vec<u64>, String> {
    if b.len() % 8 != 0 {
        return Err(format!("blob of {} bytes is not a u64 list", b.len()));
    }
    Ok(b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}
