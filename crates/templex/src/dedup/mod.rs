//! Near-duplicate detection on content: fingerprints of a page's content text, computed
//! beside its extraction, and clusters of near duplicates over a stream of them.
//!
//! Templates make different pages of one site look alike and hide that the same text
//! appears under different templates; on template-free content, duplicate detection works
//! (BENCHMARKS.md, "Near-duplicate detection").
//!
//! - [`fingerprint`]: an exact content hash, a 64-bit SimHash and a MinHash signature of a
//!   text's word shingles, by a stable specification ([`FINGERPRINT_SCHEME`]);
//! - [`index`]: exact duplicates by content hash, near duplicates by LSH banding over MinHash
//!   with a Jaccard threshold, clusters by union-find, in memory linear in the records.

pub(crate) mod fingerprint;
pub(crate) mod index;

pub use fingerprint::{
    FINGERPRINT_SCHEME, Fingerprint, FingerprintConfig, Fingerprinter, simhash_distance,
};
pub use index::{DedupConfig, DedupIndex};
