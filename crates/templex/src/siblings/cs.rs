//! Complete subdigraph search (hyperlink-analysis Algorithm 2, TemEx Algorithm 1).
//!
//! Pages linked from the key page are loaded one at a time; after each load the largest set
//! of mutually linked loaded pages that contains the newest one is found by exact clique
//! search, and the search stops at an n-CS (or returns the biggest m-CS found). It is
//! bounded by a cap on pages loaded, on links considered and on time, so a page with
//! thousands of links costs no more than a small one.
//!
//! Two refinements over the papers, both measurable (`templex eval --sweep`):
//! * **adaptive order**: once pages are loaded, the next link is one that the pages of the
//!   current best CS already link to — those are the menu links, so the CS grows with
//!   almost every load instead of waiting for the static order to hit the menu;
//! * **template guard**: a loaded page whose structure does not resemble the key page's
//!   (another template under the same host, a redirect stub) is kept out of the CS.

use rustc_hash::{FxHashMap, FxHashSet};
use std::time::{Duration, Instant};

use url::Url;

use crate::dom::Document;
use crate::links::{Link, extract_links_with};
use crate::source::PageSource;

use super::order::sort_links;

/// Largest number of pages the clique search tracks (bitset width).
const MAX_TRACKED: usize = 64;

/// How the key page's links are ordered before loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkOrder {
    /// Algorithm 1 of the hyperlink-analysis paper (link relevance, then DOM relevance).
    Paper,
    /// Document order of the links: main menus come first in the markup, so with the
    /// adaptive order this finds a CS with the fewest loads on the dev gold.
    #[default]
    Document,
}

/// Settings of the sibling search (the complete-subdigraph, CS, search of TemEx and HybEx).
/// What each sibling page may cost is [`TemplateConfig::budget`](crate::TemplateConfig::budget),
/// shared by every method.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    /// The n of the n-CS sought: pages that all link to each other share a menu, so n of
    /// them vouch for the template; a bigger n costs loads and is found on fewer sites.
    pub size: usize,
    /// The key page's links are tried in this order until the adaptive order takes over.
    pub order: LinkOrder,
    /// After each load, try first the links that the pages of the best CS link to (the
    /// menu's), so the CS grows with almost every load.
    pub adaptive: bool,
    /// At most this many pages are loaded (64 at most count): loads are what the search
    /// costs, so a page with thousands of links costs no more than a small one.
    pub max_loads: usize,
    /// Only the first this many links (once ordered) are tried: menus come early, and a
    /// page with thousands of links should not cost more to order.
    pub max_links: usize,
    /// Then the search gives up with the best CS found, so that a slow site cannot hold a
    /// call long.
    pub time_budget: Duration,
    /// Consecutive loads that did not grow the best CS before the search gives up: once the
    /// menu pages have been tried, further links rarely complete a CS.
    pub patience: usize,
}

impl Default for SearchConfig {
    /// TemEx's and HybEx's search: a 3-CS in document order, adaptive.
    fn default() -> Self {
        SearchConfig {
            size: 3,
            order: LinkOrder::default(),
            adaptive: true,
            max_loads: 24,
            max_links: 400,
            time_budget: Duration::from_secs(60),
            patience: 24,
        }
    }
}

/// A page loaded during the search, with what the template guard computed for it.
#[derive(Debug)]
pub(crate) struct LoadedPage<T> {
    /// Canonical URL (as linked from the key page).
    pub url: Url,
    /// The parsed page.
    pub doc: Document,
    /// The key page's candidate links (their indices among [`candidate_links`]) that this
    /// page links to too: all the search asks of a page's links, kept without a copy of them.
    pub links: FxHashSet<usize>,
    /// The guard's result (e.g. the page's mapping with the key page).
    pub data: T,
}

/// Result of the search.
#[derive(Debug)]
pub(crate) struct CsOutcome<T> {
    /// The pages of the best CS found (at most `size`), in load order.
    pub pages: Vec<LoadedPage<T>>,
    /// Pages loaded and accepted but not in the CS.
    pub others: Vec<LoadedPage<T>>,
    /// Pages loaded but refused by the template guard.
    pub rejected: Vec<Url>,
    /// Links whose load failed.
    pub failed: Vec<Url>,
    /// Every candidate link of the key page, in document order (for the own-kind rule).
    pub links: Vec<Url>,
    /// Why the search stopped.
    pub stop: StopReason,
}

/// Why the CS search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// An n-CS was found.
    #[default]
    Found,
    /// Every candidate link was tried.
    Exhausted,
    /// The load cap was reached.
    LoadCap,
    /// The time budget ran out.
    TimeBudget,
    /// Too many loads in a row did not grow the CS.
    Patience,
    /// The key page has no usable links.
    NoLinks,
}

/// Which rule chose the pages a key page's template was voted from (reported, so that a
/// result can be traced to the structure it rests on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SiblingRule {
    /// A complete subdigraph of the asked size: pages that all link to each other.
    Cs,
    /// A smaller CS, completed by other loaded pages that passed the template guard.
    CsTopUp,
    /// Pages of the key page's own kind (its URL pattern), preferred to the CS because their
    /// layout is closer to the key page's: the CS pages are of another template of the host.
    OwnKind,
    /// No page shared the key page's template (or the method does not use siblings).
    #[default]
    None,
}

impl SiblingRule {
    /// Every rule, in report order.
    pub const ALL: [SiblingRule; 4] = [
        SiblingRule::Cs,
        SiblingRule::CsTopUp,
        SiblingRule::OwnKind,
        SiblingRule::None,
    ];

    /// The name used in reports (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            SiblingRule::Cs => "cs",
            SiblingRule::CsTopUp => "cs_top_up",
            SiblingRule::OwnKind => "own_kind",
            SiblingRule::None => "none",
        }
    }
}

/// The key page's candidate links: same-site, page-like, canonical, not the key page.
pub(crate) fn candidate_links(
    source: &dyn PageSource,
    key_doc: &Document,
    key_url: &Url,
) -> Vec<Link> {
    let key = source.canonical_url(key_url);
    extract_links_with(key_doc, key_url, &|u| source.canonical_url(u))
        .into_iter()
        .filter(|l| l.is_site_page() && l.url != key)
        .collect()
}

/// Find a complete subdigraph of pages mutually linked among the key page's links.
///
/// Each sibling is parsed within `page_budget`; a page over it is skipped like a failed
/// load. `accept` is the template guard: a loaded page for which it returns `None` is not used;
/// what it returns otherwise is kept with the page.
pub(crate) fn find_complete_subdigraph<T>(
    source: &dyn PageSource,
    key_doc: &Document,
    key_url: &Url,
    config: &SearchConfig,
    page_budget: &crate::dom::Budget,
    accept: &dyn Fn(&Document) -> Option<T>,
) -> CsOutcome<T> {
    let start = Instant::now();
    let links = candidate_links(source, key_doc, key_url);
    let mut order: Vec<usize> = match config.order {
        LinkOrder::Paper => sort_links(key_doc, key_url, &links),
        LinkOrder::Document => (0..links.len()).collect(),
    };
    order.truncate(config.max_links);
    let mut out = CsOutcome {
        pages: Vec::new(),
        others: Vec::new(),
        rejected: Vec::new(),
        failed: Vec::new(),
        // Filled when the search is over: moved, not copied (a page may hold a million).
        links: Vec::new(),
        stop: StopReason::Found,
    };
    if order.is_empty() || config.size == 0 {
        out.stop = if order.is_empty() {
            StopReason::NoLinks
        } else {
            StopReason::Found
        };
        out.links = links.into_iter().map(|l| l.url).collect();
        return out;
    }
    // rank[i] = position of link i in the static order.
    let mut remaining: Vec<usize> = order.clone();
    // Only the links in the order are ever loaded or asked about.
    let candidates: FxHashMap<&str, usize> = order
        .iter()
        .map(|&li| (links[li].url.as_str(), li))
        .collect();
    // loaded[j] = the candidate link pages[j] was loaded from.
    let mut loaded: Vec<usize> = Vec::new();
    let mut pages: Vec<LoadedPage<T>> = Vec::new();
    // adj[i] has bit j when pages i and j link to each other.
    let mut adj: Vec<u64> = Vec::new();
    let mut best: u64 = 0;
    let max_loads = config.max_loads.min(MAX_TRACKED);
    let mut loads = 0usize;
    let mut since_growth = 0usize;
    out.stop = StopReason::Exhausted;
    while !remaining.is_empty() {
        if loads >= max_loads {
            out.stop = StopReason::LoadCap;
            break;
        }
        // The thread's deadline: the whole call's, when the search runs in a pause.
        if start.elapsed() > config.time_budget || crate::dom::deadline::passed() {
            out.stop = StopReason::TimeBudget;
            break;
        }
        if since_growth >= config.patience
            || (pages.len() >= config.size && since_growth >= config.size)
        {
            // The second test: enough pages that share the template are loaded to vote,
            // and as many loads as a whole CS would need did not grow it. The site has no
            // bigger CS within reach (its menu is smaller than n, or the key page's own kind
            // links to pages that do not link to each other), so more loads only cost time.
            out.stop = StopReason::Patience;
            break;
        }
        let pick = if config.adaptive && best != 0 {
            pick_adaptive(&remaining, &pages, best)
        } else {
            0
        };
        let li = remaining.remove(pick);
        let url = links[li].url.clone();
        loads += 1;
        // Counted here so that failed and refused loads spend patience too.
        since_growth += 1;
        let new = match load_sibling(source, url, page_budget, accept, Some(&candidates)) {
            SiblingLoad::Loaded(p) => p,
            SiblingLoad::Failed(url) => {
                out.failed.push(url);
                continue;
            }
            SiblingLoad::Refused(url) => {
                out.rejected.push(url);
                continue;
            }
        };
        let v = pages.len();
        let mut row = 0u64;
        for (j, p) in pages.iter().enumerate() {
            if p.links.contains(&li) && new.links.contains(&loaded[j]) {
                row |= 1 << j;
                adj[j] |= 1 << v;
            }
        }
        adj.push(row);
        pages.push(new);
        loaded.push(li);
        let clique = max_clique_containing(&adj, v);
        if clique.count_ones() > best.count_ones() {
            best = clique;
            since_growth = 0;
        }
        tracing::debug!(
            url = %pages[v].url,
            clique = clique.count_ones(),
            best = best.count_ones(),
            "sibling loaded"
        );
        if best.count_ones() as usize >= config.size {
            out.stop = StopReason::Found;
            break;
        }
    }
    out.links = links.into_iter().map(|l| l.url).collect();
    for (i, p) in pages.into_iter().enumerate() {
        if best & (1 << i) != 0 && out.pages.len() < config.size {
            out.pages.push(p);
        } else {
            out.others.push(p);
        }
    }
    out
}

/// What loading one candidate sibling gave.
#[derive(Debug)]
pub(crate) enum SiblingLoad<T> {
    /// Loaded, parsed and accepted by the template guard.
    Loaded(LoadedPage<T>),
    /// The load or the parse failed (missing page, not HTML, over the page budget).
    Failed(Url),
    /// Refused by the template guard.
    Refused(Url),
}

/// Load the page at `url`, parse it within `budget`, and put it to the guard `accept`; the
/// page's [`LoadedPage::links`] are those of `candidates` (by canonical URL) it links to,
/// none without them.
pub(crate) fn load_sibling<T>(
    source: &dyn PageSource,
    url: Url,
    budget: &crate::dom::Budget,
    accept: &dyn Fn(&Document) -> Option<T>,
    candidates: Option<&FxHashMap<&str, usize>>,
) -> SiblingLoad<T> {
    let page = match source.load(&url) {
        Ok(p) => p,
        Err(e) => {
            tracing::debug!(%url, error = %e, "sibling failed to load");
            return SiblingLoad::Failed(url);
        }
    };
    // The sibling's own time budget: its parse and its mapping onto the key page.
    let scope = budget.scope(std::time::Instant::now());
    let doc = match page.parse_within(budget) {
        Ok(doc) => doc,
        Err(e) => {
            tracing::debug!(%url, error = %e, "sibling refused");
            return SiblingLoad::Failed(url);
        }
    };
    let accepted = accept(&doc);
    let over = || {
        tracing::debug!(%url, "sibling over its time budget");
        SiblingLoad::Failed(url.clone())
    };
    if scope.passed() {
        // The guard's mapping may have stopped early: its verdict does not count.
        return over();
    }
    let Some(data) = accepted else {
        tracing::debug!(%url, "sibling refused by template guard");
        return SiblingLoad::Refused(url);
    };
    let links: FxHashSet<usize> = match candidates {
        Some(candidates) if !candidates.is_empty() => {
            extract_links_with(&doc, &page.final_url, &|u| source.canonical_url(u))
                .iter()
                .filter(|l| l.same_site)
                .filter_map(|l| candidates.get(l.url.as_str()).copied())
                .collect()
        }
        _ => FxHashSet::default(),
    };
    if scope.passed() {
        return over();
    }
    drop(scope);
    SiblingLoad::Loaded(LoadedPage {
        url,
        doc,
        links,
        data,
    })
}

/// The remaining link most linked-to by the pages of the best CS (then by all accepted
/// pages), ties broken by the static order.
fn pick_adaptive<T>(remaining: &[usize], pages: &[LoadedPage<T>], best: u64) -> usize {
    let mut best_k = 0;
    let mut best_score = (0u32, 0u32);
    for (k, &li) in remaining.iter().enumerate() {
        let mut in_cs = 0u32;
        let mut in_all = 0u32;
        for (j, p) in pages.iter().enumerate() {
            if p.links.contains(&li) {
                in_all += 1;
                if best & (1 << j) != 0 {
                    in_cs += 1;
                }
            }
        }
        if (in_cs, in_all) > best_score {
            best_score = (in_cs, in_all);
            best_k = k;
        }
    }
    best_k
}

/// The largest clique containing `v` (Bron–Kerbosch with pivoting on bitsets).
fn max_clique_containing(adj: &[u64], v: usize) -> u64 {
    let mut best = 1u64 << v;
    // Explicit stack of (R, P, X) frames instead of recursion.
    let mut stack: Vec<(u64, u64, u64)> = vec![(1 << v, adj[v], 0)];
    while let Some((r, mut p, mut x)) = stack.pop() {
        if p == 0 {
            if x == 0 && r.count_ones() > best.count_ones() {
                best = r;
            }
            continue;
        }
        if r.count_ones() + p.count_ones() <= best.count_ones() {
            continue;
        }
        let px = p | x;
        let pivot = px.trailing_zeros() as usize;
        let mut cands = p & !adj[pivot];
        while cands != 0 {
            let u = cands.trailing_zeros() as usize;
            cands &= cands - 1;
            stack.push((r | 1 << u, p & adj[u], x & adj[u]));
            p &= !(1 << u);
            x |= 1 << u;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<u64> {
        let mut adj = vec![0u64; n];
        for &(a, b) in edges {
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        adj
    }

    #[test]
    fn clique_search() {
        // 0-1-2 triangle, 2-3-4-5 4-clique.
        let adj = graph(
            6,
            &[
                (0, 1),
                (1, 2),
                (0, 2),
                (2, 3),
                (2, 4),
                (2, 5),
                (3, 4),
                (3, 5),
                (4, 5),
            ],
        );
        assert_eq!(max_clique_containing(&adj, 0).count_ones(), 3);
        assert_eq!(max_clique_containing(&adj, 3), 0b111100);
        assert_eq!(max_clique_containing(&adj, 2).count_ones(), 4);
        let lonely = graph(3, &[(0, 1)]);
        assert_eq!(max_clique_containing(&lonely, 2), 0b100);
    }

    #[test]
    fn clique_search_matches_brute_force() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..300 {
            let n = 10;
            let mut adj = vec![0u64; n];
            for a in 0..n {
                for b in a + 1..n {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x % 3 != 0 {
                        adj[a] |= 1 << b;
                        adj[b] |= 1 << a;
                    }
                }
            }
            for v in 0..n {
                let mut brute = 0u32;
                for set in 0u64..(1 << n) {
                    if set & (1 << v) == 0 {
                        continue;
                    }
                    let ok = (0..n)
                        .filter(|i| set & (1 << i) != 0)
                        .all(|i| (set & !(1 << i)) & !adj[i] == 0);
                    if ok {
                        brute = brute.max(set.count_ones());
                    }
                }
                let got = max_clique_containing(&adj, v);
                assert_eq!(got.count_ones(), brute);
                assert!(got & (1 << v) != 0);
            }
        }
    }
}
