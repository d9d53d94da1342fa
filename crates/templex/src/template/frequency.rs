//! Document frequencies: on how many pages of a set each hash occurs, each page counting a
//! hash once, and the frequency at which a hash is recurring. What SITELEVEL counts of node
//! hashes ([`super::sitelevel`]) and the table chunk method of chunk keys
//! ([`super::tablechunk`]).

use rustc_hash::FxHashMap;

/// Document frequencies of hashes over a set of pages.
#[derive(Debug, Clone, Default)]
pub(crate) struct DocFrequencies {
    pages: usize,
    /// Per hash: on how many pages it occurs, and the last page (numbered from 1) that
    /// counted it, so that a page counts each hash once without a set of its own.
    df: FxHashMap<u64, (u32, u32)>,
}

impl DocFrequencies {
    /// An empty page set.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Count a page given its hashes.
    pub(crate) fn add_hashes(&mut self, hashes: &[u64]) {
        self.pages += 1;
        let page = u32::try_from(self.pages).unwrap_or(u32::MAX);
        for &h in hashes {
            let (count, last) = self.df.entry(h).or_insert((0, 0));
            if *last != page {
                *last = page;
                *count += 1;
            }
        }
    }

    /// Pages counted.
    pub(crate) fn pages(&self) -> usize {
        self.pages
    }

    /// On how many pages a hash occurs.
    pub(crate) fn frequency(&self, hash: u64) -> u32 {
        self.df.get(&hash).map_or(0, |e| e.0)
    }

    /// The hashes occurring on at least `min_df` pages with their document frequencies,
    /// sorted by hash (ready for binary search and for storage).
    pub(crate) fn frequent(&self, min_df: u32) -> Vec<(u64, u32)> {
        let mut out: Vec<(u64, u32)> = self
            .df
            .iter()
            .filter(|(_, (df, _))| *df >= min_df)
            .map(|(h, (df, _))| (*h, *df))
            .collect();
        out.sort_unstable();
        out
    }
}

/// The smallest document frequency that counts as "recurring" on `pages` pages: a `fraction`
/// of them (rounded up, at least 1), and never fewer than `min_pages` — with two pages and a
/// low fraction a single page would otherwise make everything template. A fraction rather
/// than a fixed count, because the same count means "nearly all" on a small cluster and
/// "a few" on a large one.
pub(crate) fn df_threshold(pages: usize, fraction: f64, min_pages: usize) -> u32 {
    let fraction = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let by_fraction = (fraction * pages as f64 - 1e-9).ceil().max(1.0) as u32;
    by_fraction.max(min_pages.min(u32::MAX as usize) as u32)
}
