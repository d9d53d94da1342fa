//! Hostile page shapes against typical pages: milliseconds per megabyte of every stage.
//!
//! `cargo bench -p templex --bench adversarial [-- --sizes 1,10] [--only 'lists,<a>'] [--repeat 3]`
//! generates each shape
//! (nothing is stored) at 1 MB and 10 MB and times, in one process:
//! - `parse`: decoding and the lean parse;
//! - `content`: page-level main content (`extract_page`, parse included);
//! - `hybex`, `pagelevel`, `tablechunk`: the site-level methods on a site of three pages of
//!   the shape that link to each other (links, the complete subdigraph, mappings, page-level
//!   features and isotonic smoothing, table chunks, all three pages parsed).
//!
//! The reference is the same stages on typical pages: the dev data's site mirrors (set
//! TEMPLEX_DATA if they are not at `../shared/data`), else the bundled example site. Every
//! shape should be within 5× of typical per megabyte, and none over 1 s at 10 MB. The
//! table also gives each page's density (thousands of nodes per megabyte) and the worst
//! stage's ratio to typical per node, and a last row of the typical pages' bodies joined
//! into one page of each size (what size alone does to the ratio). With `--repeat N`, N
//! rounds each time the typical pages and then every shape, and every stage keeps its
//! fastest time: typical pages and shapes are timed through the same spells of a noisy
//! machine.
//!
//! `-- --deadline 0.5,1,2` prints instead how soon each page answers under each time budget
//! (seconds): page-level content, and HybEx, whose budget counts the key page's own work.
//!
//! The bench uses the allocator of templex's binaries (`templex-alloc`: mimalloc, keeping
//! freed memory ten seconds), which is what the CLI, the server and the Python package run
//! with; `MIMALLOC_PURGE_DELAY=1000` gives mimalloc's own default.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use templex::sources::MemorySource;
use templex::{
    Budget, ContentConfig, Method, PageHints, TemplateConfig, extract_page, extract_template,
};
use url::Url;

/// A shape: its name and a generator of about `size` bytes.
type Shape = (&'static str, fn(usize) -> String);

fn repeat_to(size: usize, head: &str, unit: &str, tail_unit: &str) -> String {
    let n = (size.saturating_sub(head.len()) / (unit.len() + tail_unit.len()).max(1)).max(1);
    let mut s = String::with_capacity(size + 64);
    s.push_str(head);
    for _ in 0..n {
        s.push_str(unit);
    }
    for _ in 0..n {
        s.push_str(tail_unit);
    }
    s
}

fn numbered(size: usize, head: &str, unit: impl Fn(usize) -> String) -> String {
    let mut s = String::with_capacity(size + 64);
    s.push_str(head);
    let mut i = 0;
    while s.len() < size {
        s.push_str(&unit(i));
        i += 1;
    }
    s
}

const SHAPES: &[Shape] = &[
    ("nested <div>, closed", |n| {
        repeat_to(n, "<body>", "<div>x", "</div>")
    }),
    ("nested <div>, unclosed", |n| {
        repeat_to(n, "<body>", "<div>x", "")
    }),
    ("nested <span>, unclosed", |n| {
        repeat_to(n, "<body>", "<span>x", "")
    }),
    ("table in table, unclosed", |n| {
        repeat_to(n, "<body>", "<table><tr><td>x", "")
    }),
    ("table in table, closed", |n| {
        repeat_to(n, "<body>", "<table><tr><td>x", "</td></tr></table>")
    }),
    ("misnested <b><i><u>", |n| {
        repeat_to(n, "<body>", "<b><i><u>x", "</b></i></u>")
    }),
    ("<a> across <p>", |n| {
        repeat_to(n, "<body>", "<a href=#>x<p>y", "")
    }),
    ("formatting, all different, reopened", |n| {
        numbered(n, "<body>", |i| format!("<b class=c{i}><p>x</p>"))
    }),
    ("foster parenting", |n| {
        repeat_to(n, "<body><table>", "<div>x</div>", "")
    }),
    ("many <form>s", |n| {
        repeat_to(n, "<body>", "<form><input name=q>x", "")
    }),
    ("nested lists", |n| repeat_to(n, "<body>", "<ul><li>x", "")),
    // Each `<noscript>` is read for a notice to readers without scripts: only small ones.
    ("nested <noscript>, JavaScript named", |n| {
        repeat_to(n, "<body>", "<noscript><p>Enable JavaScript", "")
    }),
    ("at the depth limit, flat", |n| {
        repeat_to(n, &"<div>".repeat(509), "<div>x</div>", "")
    }),
    ("one element, many attributes", |n| {
        numbered(n, "<body><div ", |i| format!("a{i}=\"{i}\" "))
    }),
    ("links, 1 per 30 bytes", |n| {
        numbered(n, "<body>", |i| format!("<a href=/p{i}>l{i}</a> "))
    }),
    ("one text node", |n| repeat_to(n, "<body><p>", "word ", "")),
    ("flat <div>s", |n| {
        repeat_to(n, "<body>", "<div>x</div>", "")
    }),
];

/// The stages timed, in table order.
const STAGES: &[&str] = &["parse", "content", "hybex", "pagelevel", "tablechunk"];

#[path = "../tests/common/mod.rs"]
mod common;

use common::{data_dir, html_files};

/// A site of three pages of `body` that link to each other; the key page is the first.
fn site_of(body: &str) -> (MemorySource, Url) {
    let mut site = MemorySource::new();
    let urls: Vec<Url> = (0..3)
        .map(|i| Url::parse(&format!("https://bench.example/p{i}.html")).expect("url"))
        .collect();
    let nav: String = urls
        .iter()
        .enumerate()
        .map(|(i, u)| format!("<a href=\"{u}\">page {i}</a>"))
        .collect();
    for (i, u) in urls.iter().enumerate() {
        let page = format!(
            "<html><head><title>p{i}</title></head><body><nav>{nav}</nav>{body}\
             <p>Page {i} of the bench site.</p></body></html>"
        );
        site.insert(u, page);
    }
    (site, urls[0].clone())
}

/// Time of each stage on one page, and the page's node count (of the lean parse).
fn time_stages(page: &str) -> ([Duration; 5], usize) {
    let mut out = [Duration::ZERO; 5];
    let t = Instant::now();
    let nodes = templex::html::parse_bytes_lean(page.as_bytes(), None).len();
    out[0] = t.elapsed();
    let t = Instant::now();
    let _ = extract_page(
        page.as_bytes(),
        &PageHints::default(),
        &ContentConfig::default(),
        &Budget::UNLIMITED,
    );
    out[1] = t.elapsed();
    let (site, key) = site_of(page);
    for (i, method) in [Method::HybEx, Method::PageLevel, Method::TableChunk]
        .into_iter()
        .enumerate()
    {
        let t = Instant::now();
        let r = extract_template(&site, &key, &TemplateConfig::for_method(method));
        out[2 + i] = t.elapsed();
        if let Err(e) = r {
            eprintln!("  {method}: {e}");
        }
    }
    (out, nodes)
}

fn ms_per_mb(d: Duration, bytes: usize) -> f64 {
    d.as_secs_f64() * 1e3 / (bytes as f64 / 1e6)
}

fn main() {
    templex_alloc::keep_freed_memory();
    // `cargo test --benches` runs this with --bench absent: one small size only.
    let args: Vec<String> = std::env::args().collect();
    let quick = !args.iter().any(|a| a == "--bench");
    let sizes: Vec<usize> = args
        .iter()
        .position(|a| a == "--sizes")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').filter_map(|x| x.parse::<f64>().ok()).collect())
        .unwrap_or_else(|| if quick { vec![0.05] } else { vec![1.0, 10.0] })
        .into_iter()
        .map(|mb: f64| (mb * 1e6) as usize)
        .collect();

    // `--repeat N`: the fastest of N rounds for every stage on every page.
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);

    // Typical pages: the mirrors (every 20th page), else the bundled example site.
    let (typical_from, typical): (String, Vec<PathBuf>) = match data_dir() {
        Some(d) => (
            format!("{}/sites, every 20th page", d.display()),
            html_files(&d.join("sites"))
                .into_iter()
                .step_by(20)
                .collect(),
        ),
        None => {
            let ex = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
            eprintln!("NOTICE: shared data not found (set TEMPLEX_DATA); typical = examples/");
            ("examples/".into(), html_files(&ex))
        }
    };
    let typical: Vec<String> = typical
        .iter()
        .take(if quick { 5 } else { usize::MAX })
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect();
    // `--only a,b`: just the shapes whose names contain one of these (for profiling).
    let only: Vec<String> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let shapes: Vec<&Shape> = SHAPES
        .iter()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|o| name.contains(o.as_str())))
        .collect();
    // `--deadline 0.5,1,2`: instead of the table, how soon each shape answers under each
    // time budget (seconds).
    if let Some(budgets) = args
        .iter()
        .position(|a| a == "--deadline")
        .and_then(|i| args.get(i + 1))
    {
        let budgets: Vec<Duration> = budgets
            .split(',')
            .filter_map(|x| x.parse::<f64>().ok())
            .filter_map(|s| Duration::try_from_secs_f64(s).ok())
            .collect();
        deadlines(&shapes, &typical, only.is_empty(), &sizes, &budgets);
        return;
    }
    let typical_bytes: usize = typical.iter().map(String::len).sum();
    println!(
        "typical: {} pages, {:.1} MB ({typical_from})\n",
        typical.len(),
        typical_bytes as f64 / 1e6
    );
    // Dense shapes have many more nodes per byte than typical pages, and most stages cost
    // about the same per node: the last column compares the worst stage per node (per byte
    // for a page sparser than typical).
    let kn_per_mb = |n: usize, b: usize| n as f64 / 1e3 / (b as f64 / 1e6);
    println!(
        "| shape | MB | k nodes/MB | {} | worst × typical | per node |",
        STAGES
            .iter()
            .map(|s| format!("{s} ms/MB"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---:|---:|{}---:|---:|", "---:|".repeat(STAGES.len()));
    for &size in &sizes {
        let mut names: Vec<&str> = shapes.iter().map(|(name, _)| *name).collect();
        let mut pages: Vec<String> = shapes.iter().map(|(_, make)| make(size)).collect();
        // Typical pages' bodies joined into one page of the size: how much of a shape's
        // ratio is the page's size (a big page does not stay in the caches as a small one
        // does) rather than its shape.
        if only.is_empty() {
            names.push(JOINED);
            pages.push(joined(&typical, size));
        }
        // Rounds over the typical pages and every shape in turn, each stage keeping its
        // fastest time: a machine slower for a while slows typical pages and shapes alike,
        // so the ratios hold where times of separate passes would not.
        let mut typical_best = vec![[Duration::MAX; 5]; typical.len()];
        let mut shape_best = vec![[Duration::MAX; 5]; pages.len()];
        let (mut typical_nodes, mut shape_nodes) = (0, vec![0; pages.len()]);
        for round in 0..repeat {
            for (page, best) in typical.iter().zip(&mut typical_best) {
                let (t, n) = time_stages(page);
                keep_fastest(best, t);
                if round == 0 {
                    typical_nodes += n;
                }
            }
            for ((page, best), nodes) in pages.iter().zip(&mut shape_best).zip(&mut shape_nodes) {
                let (t, n) = time_stages(page);
                keep_fastest(best, t);
                *nodes = n;
            }
        }
        let mut sum = [Duration::ZERO; 5];
        for best in &typical_best {
            for (s, t) in sum.iter_mut().zip(best) {
                *s += *t;
            }
        }
        let base: Vec<f64> = sum.iter().map(|d| ms_per_mb(*d, typical_bytes)).collect();
        let base_kn = kn_per_mb(typical_nodes, typical_bytes);
        println!(
            "| typical pages | {:.1} | {base_kn:.0} | {} | 1.0 | 1.0 |",
            typical_bytes as f64 / 1e6,
            base.iter()
                .map(|v| format!("{v:.1}"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        for ((name, page), (t, n)) in names
            .iter()
            .zip(&pages)
            .zip(shape_best.iter().zip(&shape_nodes))
        {
            let kn = kn_per_mb(*n, page.len());
            let per: Vec<f64> = t.iter().map(|d| ms_per_mb(*d, page.len())).collect();
            let worst = per
                .iter()
                .zip(&base)
                .map(|(v, b)| v / b.max(1e-9))
                .fold(0.0, f64::max);
            let slowest = t.iter().max().copied().unwrap_or_default();
            // A page sparser than typical pages is compared per byte.
            let per_node = worst * base_kn / kn.max(base_kn);
            println!(
                "| {name} | {:.1} | {kn:.0} | {} | {worst:.1}{} | {per_node:.1} |",
                page.len() as f64 / 1e6,
                per.iter()
                    .map(|v| format!("{v:.1}"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                if slowest > Duration::from_secs(1) {
                    format!(" (slowest stage {:.1} s)", slowest.as_secs_f64())
                } else {
                    String::new()
                }
            );
        }
    }
}

/// The name of the typical pages joined into one page.
const JOINED: &str = "typical pages, joined into one";

/// The bodies of `typical` pages, in turn, in one page of about `size` bytes.
fn joined(typical: &[String], size: usize) -> String {
    let mut s = String::with_capacity(size + 64);
    s.push_str("<html><head><title>joined</title></head><body>");
    let bodies: Vec<&str> = typical
        .iter()
        .map(|p| {
            let lower = p.to_ascii_lowercase();
            let start = lower
                .find("<body")
                .and_then(|i| lower[i..].find('>').map(|j| i + j + 1))
                .unwrap_or(0);
            let end = lower
                .rfind("</body")
                .filter(|e| *e >= start)
                .unwrap_or(p.len());
            &p[start..end]
        })
        .filter(|b| !b.is_empty())
        .collect();
    for body in bodies.iter().cycle() {
        if s.len() >= size {
            break;
        }
        s.push_str(body);
    }
    s.push_str("</body></html>");
    s
}

/// How soon each page answers under each time budget: page-level content (and by how much
/// the answer comes after the budget when the page ran out of it), HybEx with the budget per
/// page (which counts the key page's own work, each sibling having its own, so that its
/// answer may come after the budget without overrunning it), and HybEx with the budget as
/// the whole call's time limit (`TemplateConfig::time_limit`) too.
fn deadlines(
    shapes: &[&Shape],
    typical: &[String],
    with_joined: bool,
    sizes: &[usize],
    budgets: &[Duration],
) {
    println!(
        "| shape | MB | budget | content: answer after | past the budget | hybex: answer after | hybex | hybex, call limited: answer after | past the limit |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---:|---:|");
    let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1e3);
    let past = |done: Duration, budget: Duration, timed_out: bool| {
        if timed_out {
            ms(done.saturating_sub(budget))
        } else {
            "(done)".to_string()
        }
    };
    let mut worst = Duration::ZERO;
    let mut worst_call = Duration::ZERO;
    for &size in sizes {
        let mut pages: Vec<(&str, String)> =
            shapes.iter().map(|(n, make)| (*n, make(size))).collect();
        if with_joined {
            pages.push((JOINED, joined(typical, size)));
        }
        for (name, page) in &pages {
            let (site, key) = site_of(page);
            for &budget in budgets {
                let limited = Budget {
                    max_time: budget,
                    ..Budget::DEFAULT
                };
                let t = Instant::now();
                let r = extract_page(
                    page.as_bytes(),
                    &PageHints::default(),
                    &ContentConfig::default(),
                    &limited,
                );
                let content = t.elapsed();
                let content_late = matches!(r, Err(templex::PageError::TimedOut { .. }));
                drop(r);
                let mut config = TemplateConfig::for_method(Method::HybEx);
                config.budget = limited;
                let t = Instant::now();
                let r = extract_template(&site, &key, &config);
                let hybex = t.elapsed();
                let timed_out = |r: &Result<_, templex::LoadError>| {
                    matches!(
                        r,
                        Err(templex::LoadError::Refused {
                            error: templex::PageError::TimedOut { .. },
                            ..
                        })
                    )
                };
                let hybex_late = timed_out(&r);
                drop(r);
                config.time_limit = Some(budget);
                let t = Instant::now();
                let r = extract_template(&site, &key, &config);
                let call = t.elapsed();
                let call_late = timed_out(&r);
                drop(r);
                if content_late {
                    worst = worst.max(content - budget);
                }
                if call_late {
                    worst_call = worst_call.max(call.saturating_sub(budget));
                }
                println!(
                    "| {name} | {:.1} | {:.2} s | {} | {} | {} | {} | {} | {} |",
                    page.len() as f64 / 1e6,
                    budget.as_secs_f64(),
                    ms(content),
                    past(content, budget, content_late),
                    ms(hybex),
                    if hybex_late { "timed out" } else { "done" },
                    ms(call),
                    past(call, budget, call_late),
                );
            }
        }
    }
    println!(
        "\npage-level content answered at most {} past its budget, HybEx with the call limited {} past it",
        ms(worst),
        ms(worst_call)
    );
}

/// Keep the faster of each stage's times.
fn keep_fastest(best: &mut [Duration; 5], t: [Duration; 5]) {
    for (b, t) in best.iter_mut().zip(t) {
        *b = (*b).min(t);
    }
}
