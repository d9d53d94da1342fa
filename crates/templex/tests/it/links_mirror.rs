//! Link resolution on the real site mirrors: the links of each site's start pages must
//! resolve offline the way the mirror README says.

use crate::common;

use templex::PageSource;
use templex::sibling_search::extract_links_with;
use templex::sources::MirrorSource;

/// Sites whose start-page links must resolve at ≥ 90 %.
const MUST_RESOLVE: &[&str] = &[
    "firelab-uoft",
    "avicindia.com",
    "snappy-docs",
    "whizzy.org",
    "drupalcamptoronto2008",
    "drupalcamptoronto2010",
    "drupalcamptoronto2013",
    "drupalcamptoronto2014",
];

#[test]
fn start_page_links_resolve() {
    let Some(data) = common::data_dir() else {
        return;
    };
    let sites = templex::eval::read_sites(&data).unwrap();
    let mut failures = Vec::new();
    eprintln!(
        "{:<28} {:>6} {:>9} {:>7}",
        "site", "links", "resolved", "share"
    );
    for site in &sites {
        let name = site.name.as_str();
        let dir = site.path(&data);
        let source = MirrorSource::new(&dir, &site.prefixes).unwrap();
        let (mut total, mut ok) = (0usize, 0usize);
        for start in &site.start_pages {
            let path = dir.join(start);
            let url = source
                .url_for_path(&path)
                .expect("start page inside mirror");
            let page = source.load(&url).expect("start page loads");
            let doc = page.parse();
            let links = extract_links_with(&doc, &url, &|u| source.canonical_url(u));
            // The mirror holds one host (and its aliases); links to sibling subdomains are
            // same-site but were never mirrored, so the share is over the mirrored hosts.
            for l in links
                .iter()
                .filter(|l| l.is_site_page() && source.covers(&l.url))
            {
                total += 1;
                let r = source.resolves(&l.url);
                if !r && std::env::var_os("SHOW_MISSING").is_some() {
                    eprintln!("  missing: {}", l.url);
                }
                ok += usize::from(r);
            }
        }
        let share = if total == 0 {
            1.0
        } else {
            ok as f64 / total as f64
        };
        eprintln!("{name:<28} {total:>6} {ok:>9} {:>6.1}%", share * 100.0);
        if MUST_RESOLVE.contains(&name) && share < 0.9 {
            failures.push(format!("{name}: {:.1}%", share * 100.0));
        }
    }
    assert!(failures.is_empty(), "below 90%: {failures:?}");
}
