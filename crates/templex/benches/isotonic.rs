//! Time and peak extra heap of regularized tree isotonic smoothing
//! (`templex::isotonic::smooth`) on a synthetic 20,000-node DOM-like tree and on
//! the element trees of the largest pages of the shared site mirrors.
//!
//! `cargo bench -p templex --bench isotonic` (set TEMPLEX_DATA if the data is not at
//! `../shared/data`). Penalties are the paper's subtree-size penalty γ_i = c·N/N_i with
//! c = 0.01, weights 1. Scores are synthetic: a template/content label per region with noise.
//! `ISO_TIMES=1` also prints every measured run, to see load and warm-up effects.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use templex::isotonic::{SmoothOptions, Smoothing, smooth};

/// Counts live heap bytes and their high-water mark, so a run's peak extra memory is the
/// peak minus the live bytes at its start.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call forwards to `System` unchanged; the counters have no effect on memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grow(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[path = "../src/test_support/rng.rs"]
#[allow(dead_code, unreachable_pub)]
mod rng;

use rng::Rng;

/// A pre-order DOM-like tree: sections of nested blocks, now and then a wide list of small
/// items, depth capped at 30. The root takes as many sections as it needs to reach `n`.
fn synthetic_dom(n: usize, rng: &mut Rng) -> Vec<Option<u32>> {
    let mut parent = Vec::with_capacity(n);
    // (node, depth, children still to add)
    let mut open: Vec<(u32, usize, usize)> = Vec::new();
    while parent.len() < n {
        while open.last().is_some_and(|o| o.2 == 0) {
            open.pop();
        }
        let (p, depth) = match open.last_mut() {
            Some(o) => {
                o.2 -= 1;
                (Some(o.0), o.1 + 1)
            }
            None => (None, 0),
        };
        let id = parent.len() as u32;
        parent.push(p);
        // Past the sections, leaves get likelier with depth, so subtrees stay page-sized.
        let in_list = depth > 1 && open.last().is_some_and(|o| o.2 >= 8);
        let leafy = 30 + depth * 2;
        let kids = match depth {
            0 => usize::MAX,
            1 => 2 + rng.below(6),
            30.. => 0,
            _ if in_list => rng.below(3),
            _ => match rng.below(100) {
                r if r < 3 => 10 + rng.below(50), // a list, a table body, a menu
                r if r < leafy => 0,
                r if r < leafy + (100 - leafy) / 2 => 1,
                r if r < 95 => 2 + rng.below(2),
                _ => 4 + rng.below(5),
            },
        };
        open.push((id, depth, kids));
    }
    parent
}

/// Scores for a tree: each node inherits its parent's region label (template high, content
/// low), flips it now and then, and adds noise; many distinct values, so quantized.
fn synthetic_scores(parent: &[Option<u32>], rng: &mut Rng) -> Vec<f64> {
    let mut base = vec![0.5; parent.len()];
    let mut x = Vec::with_capacity(parent.len());
    for (i, p) in parent.iter().enumerate() {
        let inherited = p.map_or(0.5, |p| base[p as usize]);
        base[i] = if rng.below(10) == 0 {
            if rng.below(2) == 0 { 0.85 } else { 0.15 }
        } else {
            inherited
        };
        x.push((base[i] + (rng.unit() - 0.5) * 0.3).clamp(0.0, 1.0));
    }
    x
}

/// The paper's subtree-size penalty γ_i = c·N/N_i.
fn penalties(parent: &[Option<u32>], c: f64) -> Vec<f64> {
    let mut size = vec![1u32; parent.len()];
    for i in (1..parent.len()).rev() {
        if let Some(p) = parent[i] {
            size[p as usize] += size[i];
        }
    }
    let n = parent.len() as f64;
    size.iter().map(|&s| c * n / f64::from(s)).collect()
}

fn shape(parent: &[Option<u32>]) -> (usize, usize) {
    let mut depth = vec![0usize; parent.len()];
    let mut fan = vec![0usize; parent.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            depth[i] = depth[*p as usize] + 1;
            fan[*p as usize] += 1;
        }
    }
    let max = |v: &[usize]| v.iter().copied().max().unwrap_or(0);
    (max(&depth), max(&fan))
}

struct Measured {
    best: Duration,
    median: Duration,
    peak: usize,
    result: Smoothing,
}

fn measure(parent: &[Option<u32>], x: &[f64], opts: &SmoothOptions, runs: usize) -> Measured {
    let weight = vec![1.0; parent.len()];
    let penalty = penalties(parent, 0.01);
    let mut times = Vec::with_capacity(runs);
    let mut peak = 0;
    let mut result = None;
    // Unmeasured warm-up (as criterion does): the first runs of a process are up to 1.7×
    // slower while the allocator and the core settle; the first measured line showed it.
    let warm = Instant::now();
    while warm.elapsed() < Duration::from_millis(300) {
        std::hint::black_box(smooth(parent, x, &weight, &penalty, opts).expect("valid input"));
    }
    for _ in 0..runs {
        let base = LIVE.load(Relaxed);
        PEAK.store(base, Relaxed);
        let t = Instant::now();
        let s = smooth(parent, x, &weight, &penalty, opts).expect("valid input");
        times.push(t.elapsed());
        peak = peak.max(PEAK.load(Relaxed) - base);
        result = Some(std::hint::black_box(s));
    }
    // Best and median hide a shared machine's noise; the raw runs show it.
    if std::env::var_os("ISO_TIMES").is_some() {
        eprintln!("{times:?}");
    }
    times.sort();
    Measured {
        best: times[0],
        median: times[times.len() / 2],
        peak,
        result: result.expect("at least one run"),
    }
}

fn report(label: &str, parent: &[Option<u32>], m: &Measured) {
    let (depth, fan) = shape(parent);
    println!(
        "{label:<46} {:>7} {:>5} {:>6} {:>9.2} {:>9.2} {:>9.2} {:>6} {:>6}",
        parent.len(),
        depth,
        fan,
        m.best.as_secs_f64() * 1e3,
        m.median.as_secs_f64() * 1e3,
        m.peak as f64 / 1e6,
        m.result.levels,
        m.result.segment_roots.len(),
    );
}

fn header() {
    println!(
        "{:<46} {:>7} {:>5} {:>6} {:>9} {:>9} {:>9} {:>6} {:>6}",
        "tree", "nodes", "depth", "fanout", "best ms", "median ms", "peak MB", "levels", "segs"
    );
}

#[path = "../tests/common/mod.rs"]
mod common;

use common::{data_dir, html_files};

/// The element tree of a page (the document node as its root, so there is exactly one), in
/// the DOM's pre-order with ids renumbered densely.
fn element_tree(doc: &templex::Document) -> Vec<Option<u32>> {
    let mut dense = vec![u32::MAX; doc.len()];
    let mut parent = Vec::new();
    for (id, node) in doc.ids().zip(doc.nodes()) {
        if id.0 != 0 && doc.element(id).is_none() {
            continue;
        }
        dense[id.index()] = parent.len() as u32;
        // Elements only hang under elements or the document node.
        parent.push(node.parent.map(|p| dense[p.index()]));
    }
    parent
}

fn main() {
    // `cargo test --benches` runs this without --bench; keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 15 };
    let opts = SmoothOptions::default();
    let mut rng = Rng(0x7E3F_1A7E);
    println!("best and median of {runs} runs; peak = extra heap during smooth; c = 0.01\n");
    header();

    let parent = synthetic_dom(20_000, &mut rng);
    let x = synthetic_scores(&parent, &mut rng);
    report(
        "synthetic DOM, noisy scores (max_levels 256)",
        &parent,
        &measure(&parent, &x, &opts, runs),
    );
    let x2: Vec<f64> = x.iter().map(|v| (v * 100.0).round() / 100.0).collect();
    report(
        "synthetic DOM, scores to 0.01 (exact, 101)",
        &parent,
        &measure(&parent, &x2, &opts, runs),
    );
    for max_levels in [64, 1024] {
        report(
            &format!("synthetic DOM, noisy scores (max_levels {max_levels})"),
            &parent,
            &measure(&parent, &x, &SmoothOptions { max_levels }, runs),
        );
    }
    let chain: Vec<Option<u32>> = (0..100_000u32).map(|i| i.checked_sub(1)).collect();
    let xc = synthetic_scores(&chain, &mut rng);
    report(
        "chain of 100,000",
        &chain,
        &measure(&chain, &xc, &opts, runs.min(5)),
    );

    let Some(data) = data_dir() else {
        println!("\nNOTICE: skipping real pages: shared data not found (set TEMPLEX_DATA)");
        return;
    };
    // The largest files by bytes, then the largest of those by element count.
    let mut files: Vec<(u64, PathBuf)> = html_files(&data.join("sites"))
        .into_iter()
        .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
        .collect();
    files.sort();
    let mut pages: Vec<(String, Vec<Option<u32>>)> = files
        .iter()
        .rev()
        .take(if quick { 3 } else { 30 })
        .filter_map(|(_, path)| {
            let bytes = std::fs::read(path).ok()?;
            let doc = templex::html::parse_bytes(&bytes, None);
            let name = path
                .strip_prefix(&data)
                .unwrap_or(path)
                .display()
                .to_string();
            Some((name, element_tree(&doc)))
        })
        .collect();
    pages.sort_by_key(|(_, p)| std::cmp::Reverse(p.len()));
    let shown = data.canonicalize().unwrap_or_else(|_| data.clone());
    println!("\nlargest pages of {} (element trees)", shown.display());
    header();
    for (name, parent) in pages.iter().take(5) {
        let x = synthetic_scores(parent, &mut rng);
        let short: String = name
            .chars()
            .rev()
            .take(46)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        report(&short, parent, &measure(parent, &x, &opts, runs));
    }
}
