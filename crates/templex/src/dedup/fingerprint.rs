//! Content fingerprints: an exact hash, a 64-bit SimHash and a MinHash signature of a text's
//! words, all from one pass over the text.
//!
//! **The specification** (every value is stable across platforms and releases; a change is
//! a new [`FINGERPRINT_SCHEME`]):
//! - *Words*: maximal runs of alphanumeric characters (`char::is_alphanumeric`), lower-cased
//!   (`char::to_lowercase`); a CJK ideograph, hiragana or katakana character is a word of its
//!   own, since those scripts put no spaces between words. Everything else separates words.
//! - *Content hash*: XXH3-64 (seed 0) of the words joined by single spaces, UTF-8. Two texts
//!   with the same words in the same order (case, punctuation and spacing aside) share it.
//! - *Shingles*: each run of `shingle` consecutive words; a text of fewer words (but at
//!   least one) is one shingle. A shingle's hash is XXH3-64 of its words' XXH3-64 hashes,
//!   little-endian, in order.
//! - *MinHash* (one-permutation hashing with optimal densification: Li, Owen and Zhang 2012;
//!   Shrivastava 2017): with `n` bins, a shingle hash `x` goes to bin `(x · n) >> 64`
//!   (128-bit product) with the value `x mod 2^32`, and each bin keeps its smallest value.
//!   An empty bin `j` then takes the value of bin `(y · n) >> 64` for the first attempt
//!   `t = 0, 1, …` at which that bin is not empty, where `y` is SplitMix64's output from the
//!   state [`MINHASH_SEED`] XOR `(j << 32 | t)` (the same bins for every text, which keeps the
//!   estimate unbiased). A text without words has all `u32::MAX`. The share of equal
//!   positions of two signatures estimates the Jaccard similarity of the two shingle sets —
//!   as `n` independent hash functions would, at one hash per shingle instead of `n`.
//! - *SimHash*: bit `k` is set when more shingles (counted with repetition) have bit `k` of
//!   their hash set than clear (0 for a text without words).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

/// Version of the fingerprint specification (module docs). Records carry it, so that
/// fingerprints of another scheme are recomputed rather than compared.
pub const FINGERPRINT_SCHEME: u32 = 1;

/// The SplitMix64 seed of the MinHash densification.
pub(crate) const MINHASH_SEED: u64 = 0x7465_6d70_6c65_7801; // "templex" + 1

/// How fingerprints are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FingerprintConfig {
    /// Hash functions of the MinHash signature (its length). 128 by default: a Jaccard
    /// estimate with a standard error of at most 0.044.
    pub minhash: usize,
    /// Words per shingle. 5 by default: short enough that an edited sentence spoils few
    /// shingles, long enough that unrelated texts share almost none.
    pub shingle: usize,
}

impl Default for FingerprintConfig {
    fn default() -> Self {
        FingerprintConfig {
            minhash: 128,
            shingle: 5,
        }
    }
}

/// The fingerprints of one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The specification's version ([`FINGERPRINT_SCHEME`]).
    pub scheme: u32,
    /// Words of the text.
    pub words: u64,
    /// Words per shingle.
    pub shingle: u32,
    /// Hash of the normalized words: equal for exact duplicates. Written as 16 hex digits
    /// (JSON numbers lose bits past 2^53 in many readers).
    #[serde(with = "hex64")]
    pub content_hash: u64,
    /// 64-bit SimHash of the shingles, as 16 hex digits.
    #[serde(with = "hex64")]
    pub simhash: u64,
    /// The MinHash signature.
    pub minhash: Vec<u32>,
}

impl Fingerprint {
    /// Whether the text had no words (such records are never duplicates of anything).
    pub fn is_empty(&self) -> bool {
        self.words == 0
    }

    /// Whether this fingerprint was computed as `config` says (and by this scheme), so that
    /// it can be compared with fingerprints computed so.
    pub fn matches(&self, config: &FingerprintConfig) -> bool {
        self.scheme == FINGERPRINT_SCHEME
            && self.minhash.len() == config.minhash
            && self.shingle as usize == config.shingle.max(1)
    }

    /// The estimated Jaccard similarity of the two texts' shingle sets.
    pub fn similarity(&self, other: &Fingerprint) -> f64 {
        estimate_jaccard(&self.minhash, &other.minhash)
    }
}

/// The share of equal positions of two MinHash signatures (0 for different lengths or
/// empty ones).
pub(crate) fn estimate_jaccard(a: &[u32], b: &[u32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let same = a.iter().zip(b).filter(|(x, y)| x == y).count();
    same as f64 / a.len() as f64
}

/// Hamming distance of two SimHashes (the bits in which they differ).
pub fn simhash_distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// SplitMix64's next output (Steele, Lea and Flood 2014), advancing `state`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Computes fingerprints; holds buffers, so that one fingerprinter serves many texts without
/// allocating per word.
#[derive(Debug, Clone)]
pub struct Fingerprinter {
    config: FingerprintConfig,
    /// The normalized text (for the content hash).
    normalized: Vec<u8>,
    word: String,
    window: VecDeque<u64>,
    shingle_bytes: Vec<u8>,
}

impl Fingerprinter {
    /// A fingerprinter for `config` (a shingle of 0 words counts as 1).
    pub fn new(config: FingerprintConfig) -> Fingerprinter {
        let config = FingerprintConfig {
            shingle: config.shingle.max(1),
            ..config
        };
        Fingerprinter {
            config,
            normalized: Vec::new(),
            word: String::new(),
            window: VecDeque::new(),
            shingle_bytes: Vec::new(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &FingerprintConfig {
        &self.config
    }

    /// The fingerprints of `text`.
    pub fn fingerprint(&mut self, text: &str) -> Fingerprint {
        let k = self.config.shingle;
        let mut minhash = vec![u32::MAX; self.config.minhash];
        let mut votes = [0i32; 64];
        self.normalized.clear();
        let mut words = 0u64;
        self.window.clear();
        let mut chars = text.chars().peekable();
        loop {
            // The next word, lower-cased into `self.word`.
            self.word.clear();
            while let Some(&c) = chars.peek() {
                if is_single_char_word(c) {
                    if self.word.is_empty() {
                        self.word.push(c);
                        chars.next();
                    }
                    break;
                }
                chars.next();
                // ASCII first: most words of most pages, without the Unicode tables.
                if c.is_ascii_alphanumeric() {
                    self.word.push(c.to_ascii_lowercase());
                } else if !c.is_ascii() && c.is_alphanumeric() {
                    self.word.extend(c.to_lowercase());
                } else if !self.word.is_empty() {
                    break;
                }
            }
            if self.word.is_empty() {
                break;
            }
            if words > 0 {
                self.normalized.push(b' ');
            }
            self.normalized.extend_from_slice(self.word.as_bytes());
            words += 1;
            self.window.push_back(xxh3_64(self.word.as_bytes()));
            if self.window.len() > k {
                self.window.pop_front();
            }
            if self.window.len() == k {
                let h = self.shingle_hash();
                add_shingle(h, &mut minhash, &mut votes);
            }
        }
        // A text shorter than one shingle is one shingle of all its words.
        if words > 0 && (words as usize) < k {
            let h = self.shingle_hash();
            add_shingle(h, &mut minhash, &mut votes);
        }
        densify(&mut minhash);
        let simhash = votes
            .iter()
            .enumerate()
            .fold(0u64, |acc, (bit, &v)| acc | (u64::from(v > 0) << bit));
        Fingerprint {
            scheme: FINGERPRINT_SCHEME,
            words,
            shingle: k as u32,
            content_hash: xxh3_64(&self.normalized),
            simhash,
            minhash,
        }
    }

    fn shingle_hash(&mut self) -> u64 {
        self.shingle_bytes.clear();
        for h in &self.window {
            self.shingle_bytes.extend_from_slice(&h.to_le_bytes());
        }
        xxh3_64(&self.shingle_bytes)
    }
}

fn add_shingle(h: u64, minhash: &mut [u32], votes: &mut [i32; 64]) {
    if !minhash.is_empty() {
        let bin = bin_of(h, minhash.len());
        minhash[bin] = minhash[bin].min(h as u32);
    }
    // Branch-free, so that it vectorizes.
    for (bit, v) in votes.iter_mut().enumerate() {
        *v += ((h >> bit) & 1) as i32 * 2 - 1;
    }
}

/// The bin of a hash among `n`: the high bits of the 128-bit product (uniform, no modulo bias).
fn bin_of(h: u64, n: usize) -> usize {
    ((u128::from(h) * n as u128) >> 64) as usize
}

/// Fill every empty bin from a non-empty one, chosen by a sequence that depends only on the
/// bin, so that two texts fill a bin from the same place (optimal densification).
fn densify(minhash: &mut [u32]) {
    // An empty bin is `u32::MAX`; so is a bin whose smallest value is that (a chance of 2^-32
    // per bin; filling it then changes an estimate by one bin at most).
    let filled: Vec<bool> = minhash.iter().map(|&v| v != u32::MAX).collect();
    if !filled.iter().any(|&f| f) {
        return;
    }
    let n = minhash.len();
    for j in 0..n {
        if filled[j] {
            continue;
        }
        for t in 0u64.. {
            let mut state = MINHASH_SEED ^ ((j as u64) << 32 | t);
            let k = bin_of(splitmix64(&mut state), n);
            if filled[k] {
                minhash[j] = minhash[k];
                break;
            }
        }
    }
}

/// Characters of scripts written without spaces between words: each is a word.
fn is_single_char_word(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F) // CJK extensions B–F, compatibility supplement
}

/// 64-bit values as 16 lower-case hex digits in JSON.
mod hex64 {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:016x}"))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        u64::from_str_radix(&s, 16).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(text: &str) -> Fingerprint {
        Fingerprinter::new(FingerprintConfig::default()).fingerprint(text)
    }

    /// Pinned values: if one fails, fingerprints that users stored no longer compare with
    /// what this templex computes. Bump [`FINGERPRINT_SCHEME`] and update them (never the
    /// other way round).
    #[test]
    fn values_are_pinned() {
        let f = fp("The quick brown fox jumps over the lazy dog. The dog sleeps.");
        assert_eq!(f.words, 12);
        assert_eq!(
            f.content_hash,
            xxh3_64(b"the quick brown fox jumps over the lazy dog the dog sleeps")
        );
        // The same values come out of bench/dedup/fingerprint_ref.py, an independent Python
        // implementation of the specification.
        assert_eq!(format!("{:016x}", f.content_hash), "7b4ba041d6840c11");
        assert_eq!(format!("{:016x}", f.simhash), "50305582933ec4ee");
        assert_eq!(
            &f.minhash[..4],
            &[3649852644, 3649852644, 3744344565, 1736108872]
        );
        assert_eq!(
            f.minhash.iter().map(|&v| u64::from(v)).sum::<u64>(),
            332346425071
        );
        let short = fp("Hello, World");
        assert_eq!(short.words, 2);
        assert_eq!(format!("{:016x}", short.content_hash), "d447b1ea40e6988b");
        assert_eq!(format!("{:016x}", short.simhash), "2b1502900150c14d");
        assert_eq!(short.minhash, vec![22069581; 128]);
        let mut state = MINHASH_SEED;
        assert_eq!(splitmix64(&mut state), 0xf8d7840561d6fd43);
    }

    #[test]
    fn words_are_normalized() {
        let a = fp("Déjà vu: the SAME words,   here!");
        let b = fp("déjà VU the same\nwords here");
        assert_eq!(a, b);
        assert_eq!(a.words, 6);
        // CJK: one word per ideograph.
        assert_eq!(fp("東京は晴れ").words, 5);
        assert_eq!(fp("abc東京").words, 3);
    }

    #[test]
    fn empty_text() {
        let f = fp(" .,; ");
        assert!(f.is_empty());
        assert_eq!(f.simhash, 0);
        assert!(f.minhash.iter().all(|&v| v == u32::MAX));
        assert_eq!(f.content_hash, xxh3_64(b""));
    }

    #[test]
    fn similarity_tracks_jaccard() {
        let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
        let a = words.join(" ");
        // Change every 40th word: 10 edits spoil up to 50 of 396 shingles.
        let b: Vec<String> = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i % 40 == 0 {
                    format!("x{i}")
                } else {
                    w.clone()
                }
            })
            .collect();
        let (fa, fb) = (fp(&a), fp(&b.join(" ")));
        let s = fa.similarity(&fb);
        // True Jaccard: 346 shared of 446 → 0.776.
        assert!((s - 0.776).abs() < 0.12, "{s}");
        assert!(simhash_distance(fa.simhash, fb.simhash) < 20);
        let other: Vec<String> = (0..400).map(|i| format!("v{i}")).collect();
        let fo = fp(&other.join(" "));
        assert!(fa.similarity(&fo) < 0.05);
        assert!(simhash_distance(fa.simhash, fo.simhash) > 12);
    }

    #[test]
    fn json_round_trip_and_settings() {
        let f = fp("some words of text");
        let j = serde_json::to_string(&f).unwrap();
        assert!(j.contains("\"content_hash\":\""), "{j}");
        let back: Fingerprint = serde_json::from_str(&j).unwrap();
        assert_eq!(back, f);
        assert!(f.matches(&FingerprintConfig::default()));
        let small = FingerprintConfig {
            minhash: 16,
            shingle: 3,
        };
        assert!(!f.matches(&small));
        let g = Fingerprinter::new(small).fingerprint("some words of text");
        assert_eq!(g.minhash.len(), 16);
        assert_eq!(g.content_hash, f.content_hash);
    }
}
