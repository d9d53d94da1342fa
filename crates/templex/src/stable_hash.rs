//! Stable hashes: every hash that the template store keeps, or that is compared with one it
//! keeps — node hashes ([`crate::dom::Signatures`], SITELEVEL's node hashes), layout
//! fingerprints, table chunk keys, run keys — is XXH3-64 (seed 0) of an explicit byte
//! encoding, so that it is the same on every platform, in every release and under every
//! dependency version. (`FxHasher` over `Hash` impls promises none of that — rustc-hash has
//! changed its algorithm before — and tag-name atoms hash by html5ever's static atom table.)
//!
//! The encoding: integers are little-endian at their width; a string is its length (`u64`)
//! then its UTF-8 bytes, so that no concatenation of fields can equal another — except as
//! the last field of a value, where the total length implies its own (an absent optional
//! string there is the empty one). Sets whose order does not matter (class lists) are the
//! XOR of their members' hashes.
//!
//! Page samples are reproducible the same way: [`sample_indices`] shuffles with splitmix64,
//! not with a library's generator, so that a seed picks the same pages everywhere.
//!
//! XXH3 because it is specified (the xxHash specification, with reference test vectors), its
//! pure-Rust crate is maintained and has no dependencies, and it is as fast as FxHash on the
//! short inputs hashed per node (8–40 bytes) and faster on long ones (texts, page bodies).
//!
//! **Any change to a value computed here makes stored templates match nothing: bump
//! [`HASH_SCHEME`]** (a store of another scheme is refused, [`crate::store`]), and update the
//! values pinned by this module's tests.

use xxhash_rust::xxh3::xxh3_64;

/// Version of the stable hashes, recorded in the template store beside its schema version.
/// Bump it whenever any stable hash of a given input changes.
// Only the store keeps it: the API has it as `batch::HASH_SCHEME`.
#[cfg_attr(not(feature = "batch"), allow(dead_code, unreachable_pub))]
pub const HASH_SCHEME: u32 = 1;

/// The stable hash of raw bytes (one value: no length prefix needed).
pub(crate) fn hash_bytes(b: &[u8]) -> u64 {
    xxh3_64(b)
}

/// The stable hash of a string's UTF-8 bytes (run keys, chunk texts).
pub(crate) fn hash_str(s: &str) -> u64 {
    hash_bytes(s.as_bytes())
}

/// The stable hash of two `u64`s, in order.
pub(crate) fn hash_pair(a: u64, b: u64) -> u64 {
    let mut buf = [0u8; 16];
    buf[..8].copy_from_slice(&a.to_le_bytes());
    buf[8..].copy_from_slice(&b.to_le_bytes());
    xxh3_64(&buf)
}

/// The order-insensitive hash of a set of strings: the XOR of their byte hashes (0 for none).
pub(crate) fn hash_set<'a>(items: impl Iterator<Item = &'a str>) -> u64 {
    items.fold(0, |acc, s| acc ^ hash_bytes(s.as_bytes()))
}

/// Builds the byte encoding of several fields and hashes it. One encoder is reused for every
/// node of a page, so that hashing allocates nothing per node.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty encoder.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Start a new value.
    pub(crate) fn start(&mut self) -> &mut Self {
        self.buf.clear();
        self
    }

    /// A byte (a kind tag).
    pub(crate) fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// A `u32`, little-endian.
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A `u64`, little-endian.
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A string: its length as a `u64`, then its bytes.
    pub(crate) fn str(&mut self, s: &str) -> &mut Self {
        self.u64(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    /// A string as the last field: its bytes (the total length implies its own).
    pub(crate) fn last_str(&mut self, s: &str) -> &mut Self {
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    /// The hash of what was written since [`Self::start`].
    #[inline]
    pub(crate) fn finish(&self) -> u64 {
        xxh3_64(&self.buf)
    }
}

/// Pick `k` items out of `n` deterministically and spread out (a seeded shuffle), for
/// sampling pages of a site.
pub fn sample_indices(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    // Fisher–Yates with splitmix64: reproducible across platforms and releases.
    for i in (1..n).rev() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let j = (z % (i as u64 + 1)) as usize;
        idx.swap(i, j);
    }
    idx.truncate(k.min(n));
    idx.sort_unstable();
    idx
}

#[cfg(test)]
mod tests {
    //! Pinned values. If one of these fails, stored templates no longer match what this
    //! templex computes: bump [`HASH_SCHEME`] and update the values (never the other way
    //! round).

    use super::*;
    use crate::dom::{Document, NodeId, parse_str};

    fn page() -> Document {
        parse_str(
            "<html><head><title>T</title></head><body><div id=nav class='b a'><a href=/>Home</a>\
             </div><p class=x>Hi there</p></body></html>",
        )
    }

    /// The first element of `tag` in document order.
    fn first(doc: &Document, tag: &str) -> NodeId {
        doc.ids()
            .find(|&id| doc.tag(id).is_some_and(|t| &**t == tag))
            .unwrap()
    }

    #[test]
    fn xxh3_is_the_specified_one() {
        // XXH3_64bits of the empty input, seed 0, as the reference implementation gives it.
        assert_eq!(hash_bytes(b""), 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn encoding_is_pinned() {
        let mut e = Encoder::new();
        let v = e
            .start()
            .u8(1)
            .u32(2)
            .u64(3)
            .str("div")
            .last_str("x")
            .finish();
        assert_eq!(v, 0x9dfc_8cbc_36dc_c3a0);
        assert_eq!(hash_pair(1, 2), 0x07ee_86c2_8144_6bef);
        assert_eq!(
            hash_set(["a", "b"].into_iter()),
            hash_set(["b", "a"].into_iter())
        );
        assert_eq!(hash_set(std::iter::empty()), 0);
        // Lengths keep concatenations apart.
        assert_ne!(
            e.start().str("ab").str("c").finish(),
            e.start().str("a").str("bc").finish()
        );
    }

    #[test]
    fn document_hashes_are_pinned() {
        let doc = page();
        let sig = doc.signatures();
        let nodes = crate::template::sitelevel::node_hashes(&doc);
        let div = first(&doc, "div").index();
        let home = doc.children(first(&doc, "a")).next().unwrap().index();
        // Element: tag, id, class set; text: kind and trimmed text.
        assert_eq!(
            (sig.label[div], sig.path[div], sig.subtree[div]),
            (
                0x98f9_5bb2_099a_c1d1,
                0x4d5f_e5de_7b6e_fc02,
                0x3a02_bed2_8161_3552
            )
        );
        assert_eq!(
            (sig.label[home], sig.path[home], sig.subtree[home]),
            (
                0x13e6_08bc_156d_efed,
                0x62bf_b274_678c_00a0,
                0x0fb3_21a6_5c6b_819d
            )
        );
        assert_eq!(sig.subtree[0], 0xe062_0388_8d31_8c90);
        // SITELEVEL's node hash (stored in SITELEVEL and HybEx templates).
        assert_eq!(nodes[div], 0x18d2_7bb7_99a7_262d);
        // The layout fingerprint (stored as every template's cluster core).
        assert_eq!(
            crate::cluster::Fingerprint::of(&doc).0,
            [
                0x0a8a_c9de_3f74_2a08,
                0x4140_0897_729b_8abc,
                0x97fa_1faa_43e0_f31a
            ]
        );
        // Table chunk keys (stored in table-chunk templates).
        assert_eq!(
            crate::template::tablechunk::page_keys(&doc, &Default::default()),
            [0xc444_e6ca_4e25_64cd, 0xc4f7_7d84_0048_360d]
        );
        // Run keys are stable hashes of the run's description.
        assert_eq!(hash_str("run"), 0xafc3_b562_78c6_744e);
    }

    #[test]
    fn class_order_and_digits() {
        let a = parse_str("<body><div class='a b'></div></body>");
        let b = parse_str("<body><div class='b  a'></div></body>");
        let c = parse_str("<body><div class='a b item-3'></div></body>");
        let label = |d: &Document| d.signatures().label[first(d, "div").index()];
        assert_eq!(label(&a), label(&b));
        assert_ne!(label(&a), label(&c));
        // Fingerprints ignore names with digits.
        let fp = crate::cluster::Fingerprint::of;
        assert_eq!(fp(&a), fp(&c));
    }

    #[test]
    fn sampling_is_deterministic_and_bounded() {
        let a = sample_indices(100, 10, 7);
        assert_eq!(a, sample_indices(100, 10, 7));
        assert_eq!(a.len(), 10);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sample_indices(5, 10, 1), vec![0, 1, 2, 3, 4]);
        assert!(sample_indices(0, 3, 1).is_empty());
    }
}
