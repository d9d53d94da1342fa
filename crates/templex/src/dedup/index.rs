//! Near-duplicate clusters over a stream of fingerprints: exact duplicates by content hash,
//! near duplicates by LSH banding over MinHash signatures, checked against the Jaccard
//! threshold, and joined by union-find.
//!
//! Memory is linear in the number of records and independent of their text: per record its
//! signature (4 bytes a hash), one bucket entry per band it was filed under, and a few
//! words of cluster state. Time is linear too: a record is compared with at most
//! [`DedupConfig::bucket_cap`] members of each of its buckets.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

use super::fingerprint::{Fingerprint, estimate_jaccard};

/// Settings of a deduplication.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DedupConfig {
    /// Estimated Jaccard similarity from which two records are near duplicates (0.8).
    pub threshold: f64,
    /// Members of a bucket (the most recent ones) that a new record is compared with. Bounds the time per record when thousands of pages share a bucket (one
    /// cluster, all of whose members are alike anyway).
    pub bucket_cap: usize,
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            threshold: 0.8,
            bucket_cap: 32,
        }
    }
}

/// LSH banding of a MinHash signature: `bands` bands of `rows` hashes each. Two records
/// become candidates when all rows of some band agree, which for Jaccard similarity `s`
/// happens with probability `1 - (1 - s^rows)^bands`: an S-curve whose steep part sits at
/// about `(1/bands)^(1/rows)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    /// Bands.
    pub bands: usize,
    /// Hashes per band.
    pub rows: usize,
}

impl Banding {
    /// The banding of `hashes` hashes that minimizes the probability mass of false
    /// positives (below `threshold`) plus false negatives (above it), weighing false
    /// negatives 4 times as much: a candidate costs one signature comparison, a missed
    /// duplicate costs the corpus. (The integral of the candidate probability, as in
    /// `datasketch`'s `MinHashLSH`.)
    pub fn optimal(threshold: f64, hashes: usize) -> Banding {
        let threshold = threshold.clamp(0.0, 1.0);
        let mut best = Banding {
            bands: 1,
            rows: hashes.max(1),
        };
        let mut best_cost = f64::INFINITY;
        for bands in 1..=hashes.max(1) {
            for rows in 1..=hashes / bands {
                let p = |s: f64| 1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32);
                let fp = integrate(p, 0.0, threshold);
                let fn_ = integrate(|s| 1.0 - p(s), threshold, 1.0);
                let cost = fp + 4.0 * fn_;
                if cost < best_cost - 1e-12 {
                    best_cost = cost;
                    best = Banding { bands, rows };
                }
            }
        }
        best
    }

    /// The probability that two records of Jaccard similarity `s` become candidates.
    pub fn candidate_probability(&self, s: f64) -> f64 {
        1.0 - (1.0 - s.powi(self.rows as i32)).powi(self.bands as i32)
    }
}

/// Midpoint rule, 200 steps: smooth integrands on short intervals.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let n = 200;
    let h = (b - a) / n as f64;
    (0..n).map(|i| f(a + (i as f64 + 0.5) * h)).sum::<f64>() * h
}

/// What a record's cluster looks like once all records are in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assignment {
    /// The cluster: the number of its first record.
    pub cluster: u32,
    /// Records in the cluster (1: no duplicate).
    pub size: u32,
    /// The most similar other record that the index compared this one with, and their
    /// estimated similarity (1 for an exact duplicate); none for a record compared with
    /// nothing (it may still be under the threshold to some).
    pub nearest: Option<(u32, f32)>,
    /// Another record has the same content hash.
    pub exact: bool,
}

const NONE: u32 = u32::MAX;

/// The streaming index: add records in order, then read each one's `Assignment`. Records
/// are numbered by `u32` (up to 4,294,967,295 of them: 4 TB of signatures).
#[derive(Debug)]
pub struct DedupIndex {
    config: DedupConfig,
    hashes: usize,
    banding: Banding,
    /// Signature slot per record (`NONE`: no content); exact duplicates share their first
    /// copy's slot.
    slot: Vec<u32>,
    sigs: Vec<u32>,
    exact_first: FxHashMap<u64, u32>,
    exact: Vec<bool>,
    /// Band key → head entry of its member list in `entries`.
    buckets: FxHashMap<u64, u32>,
    /// (record, next entry) of the bucket lists, newest first.
    entries: Vec<(u32, u32)>,
    parent: Vec<u32>,
    nearest: Vec<(u32, f32)>,
    candidates: Vec<u32>,
}

impl DedupIndex {
    /// An index of signatures of `hashes` MinHash values.
    pub fn new(config: DedupConfig, hashes: usize) -> DedupIndex {
        DedupIndex {
            config,
            hashes,
            banding: Banding::optimal(config.threshold, hashes),
            slot: Vec::new(),
            sigs: Vec::new(),
            exact_first: FxHashMap::default(),
            exact: Vec::new(),
            buckets: FxHashMap::default(),
            entries: Vec::new(),
            parent: Vec::new(),
            nearest: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// The banding in use.
    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// Records added so far.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether no record was added.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Add a record without content (an error, an empty text, a bad input line): it keeps
    /// its number and is a cluster of its own. Returns its number.
    pub fn add_empty(&mut self) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.slot.push(NONE);
        self.exact.push(false);
        self.nearest.push((NONE, 0.0));
        id
    }

    /// Add the next record; returns its number. A fingerprint without words, or whose
    /// signature has another length than the index's, counts as no content.
    pub fn add(&mut self, fp: &Fingerprint) -> u32 {
        if fp.is_empty() || fp.minhash.len() != self.hashes || self.hashes == 0 {
            return self.add_empty();
        }
        let id = self.add_empty();
        // Exact duplicate: the first copy's cluster, signature and buckets.
        if let Some(&first) = self.exact_first.get(&fp.content_hash) {
            self.slot[id as usize] = self.slot[first as usize];
            self.exact[id as usize] = true;
            self.exact[first as usize] = true;
            self.note(id, first, 1.0);
            self.union(id, first);
            return id;
        }
        self.exact_first.insert(fp.content_hash, id);
        let slot = (self.sigs.len() / self.hashes) as u32;
        self.slot[id as usize] = slot;
        self.sigs.extend_from_slice(&fp.minhash);
        let Banding { bands, rows } = self.banding;
        let mut band_bytes = Vec::with_capacity(4 + rows * 4);
        self.candidates.clear();
        let mut keys = Vec::with_capacity(bands);
        for band in 0..bands {
            band_bytes.clear();
            band_bytes.extend_from_slice(&(band as u32).to_le_bytes());
            for v in &fp.minhash[band * rows..(band + 1) * rows] {
                band_bytes.extend_from_slice(&v.to_le_bytes());
            }
            let key = xxh3_64(&band_bytes);
            keys.push(key);
            if let Some(&head) = self.buckets.get(&key) {
                let mut e = head;
                let mut seen = 0;
                while e != NONE && seen < self.config.bucket_cap {
                    let (member, next) = self.entries[e as usize];
                    if !self.candidates.contains(&member) {
                        self.candidates.push(member);
                    }
                    e = next;
                    seen += 1;
                }
            }
        }
        let cands = std::mem::take(&mut self.candidates);
        for &c in &cands {
            let s = {
                let a = self.sig(id);
                let b = self.sig(c);
                estimate_jaccard(a, b)
            };
            self.note(id, c, s as f32);
            if s >= self.config.threshold {
                self.union(id, c);
            }
        }
        self.candidates = cands;
        // Filed at the head of each bucket: the newest members are the ones compared with.
        for key in keys {
            let entry = self.entries.len() as u32;
            let head = self.buckets.entry(key).or_insert(NONE);
            self.entries.push((id, *head));
            *head = entry;
        }
        id
    }

    fn sig(&self, id: u32) -> &[u32] {
        let s = self.slot[id as usize] as usize * self.hashes;
        &self.sigs[s..s + self.hashes]
    }

    fn note(&mut self, a: u32, b: u32, s: f32) {
        for (x, y) in [(a, b), (b, a)] {
            let n = &mut self.nearest[x as usize];
            if n.0 == NONE || s > n.1 {
                *n = (y, s);
            }
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    /// Join two clusters; the root is the smaller number, so that a cluster is named by its
    /// first record.
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi as usize] = lo;
        }
    }

    /// Every record's assignment, in record order (consumes the index: its buckets and
    /// signatures are freed first).
    pub fn finish(mut self) -> Vec<Assignment> {
        self.buckets = FxHashMap::default();
        self.entries = Vec::new();
        self.sigs = Vec::new();
        self.exact_first = FxHashMap::default();
        let n = self.parent.len();
        let roots: Vec<u32> = (0..n as u32).map(|i| self.find(i)).collect();
        let mut size = vec![0u32; n];
        for &r in &roots {
            size[r as usize] += 1;
        }
        (0..n)
            .map(|i| {
                let (near, s) = self.nearest[i];
                Assignment {
                    cluster: roots[i],
                    size: size[roots[i] as usize],
                    nearest: (near != NONE).then_some((near, s)),
                    exact: self.exact[i],
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dedup::{FingerprintConfig, Fingerprinter};

    fn words(seed: u64, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("s{seed}w{i}")).collect()
    }

    #[test]
    fn clusters_exact_and_near_duplicates() {
        let mut f = Fingerprinter::new(FingerprintConfig::default());
        let a = words(1, 200);
        let mut near = a.clone();
        near[100] = "edited".into();
        let fps = [
            f.fingerprint(&a.join(" ")),
            f.fingerprint(&words(2, 200).join(" ")),
            f.fingerprint(&a.join(" ").to_uppercase()),
            f.fingerprint(""),
            f.fingerprint(&near.join(" ")),
        ];
        let mut index = DedupIndex::new(DedupConfig::default(), 128);
        for fp in &fps {
            index.add(fp);
        }
        let short = Fingerprinter::new(FingerprintConfig {
            minhash: 16,
            shingle: 5,
        })
        .fingerprint(&a.join(" "));
        assert_eq!(index.add(&short), 5);
        let out = index.finish();
        let clusters: Vec<u32> = out.iter().map(|a| a.cluster).collect();
        assert_eq!(clusters, [0, 1, 0, 3, 0, 5]);
        assert_eq!(out[0].size, 3);
        assert_eq!(out[2].nearest, Some((0, 1.0)));
        assert!(out[0].exact && out[2].exact && !out[4].exact);
        let (n, s) = out[4].nearest.unwrap();
        assert_eq!(n, 0);
        assert!(s > 0.9 && s < 1.0, "{s}");
        // Symmetric: the first copy knows its nearest too.
        assert_eq!(out[0].nearest.map(|n| n.1), Some(1.0));
        assert_eq!(out[1].nearest, None);
    }

    #[test]
    fn banding_for_the_default_threshold() {
        let b = Banding::optimal(0.8, 128);
        assert!(b.bands * b.rows <= 128);
        // Near duplicates are almost always candidates, unrelated pages almost never.
        assert_eq!(
            b,
            Banding {
                bands: 12,
                rows: 10
            }
        );
        assert!(b.candidate_probability(0.8) > 0.7, "{b:?}");
        assert!(b.candidate_probability(0.9) > 0.99, "{b:?}");
        assert!(b.candidate_probability(0.5) < 0.02, "{b:?}");
        // A lower threshold bands finer.
        let low = Banding::optimal(0.5, 128);
        assert!(low.candidate_probability(0.5) > 0.5, "{low:?}");
    }
}
