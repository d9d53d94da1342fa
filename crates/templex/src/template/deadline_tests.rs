//! The time budget holds in every stage: a page stopped at any point where a loop checks the
//! deadline gives `TimedOut` — never a panic, never what a cut loop left — and a page that
//! is not stopped gives what it gives without a deadline.

use url::Url;

use super::{TemplateConfig, extract_template};
use crate::dom::deadline::sweep;
use crate::dom::{Budget, PageError};
use crate::extract::ContentConfig;
use crate::method::Method;
use crate::page::{PageHints, extract_page};
use crate::source::{LoadError, MemorySource, PageSource};

/// A page of a small site: shared header, menu, sidebar and footer around an article with
/// a table, a list and a form of its own.
fn page(n: usize) -> String {
    let menu: String = (0..12)
        .map(|i| format!(r#"<li><a href="/p{i}.html">Section {i}</a></li>"#))
        .collect();
    let rows: String = (0..6)
        .map(|r| format!("<tr><td>Row {r} of page {n}</td><td>{}</td></tr>", r * n))
        .collect();
    let paras: String = (0..8)
        .map(|p| {
            format!(
                "<p>Paragraph {p} of page {n}: the committee met on Tuesday, and after a long \
                 debate it agreed, by seven votes to two, that item {p} goes to the council.</p>"
            )
        })
        .collect();
    format!(
        r#"<html><head><title>Page {n}</title></head><body><header><a href="/">Site</a><nav><ul>{menu}</ul></nav></header><div id="main"><article><h1>Page {n}</h1>{paras}<table>{rows}</table><ul><li>point {n}</li><li>another point</li></ul><form><input name="q"><button>Go</button></form></article><aside><h3>Related</h3><ul>{menu}</ul></aside></div><footer><p>Copyright the site, all rights reserved.</p></footer></body></html>"#
    )
}

fn site() -> (MemorySource, Url) {
    let mut site = MemorySource::new();
    for i in 0..12 {
        let url = Url::parse(&format!("https://example.org/p{i}.html")).unwrap();
        site.insert(&url, page(i));
    }
    (site, Url::parse("https://example.org/p0.html").unwrap())
}

fn is_timeout(e: &PageError) -> bool {
    matches!(e, PageError::TimedOut { .. })
}

#[test]
fn content_stopped_anywhere_times_out() {
    let shapes = [
        page(3),
        format!("<body>{}", "<div>x".repeat(700)),
        format!("<body>{}", "<a href=#>x<p>y".repeat(200)),
        format!("<body><table>{}", "<div>x</div>".repeat(200)),
        format!(
            "<body><ul>{}</ul>",
            (0..150)
                .map(|i| format!("<li><a href=/item{i}>Item {i}</a> <span>${i}.99</span></li>"))
                .collect::<String>()
        ),
    ];
    for body in &shapes {
        content_sweep(body);
    }
}

fn content_sweep(body: &str) {
    let run = || {
        extract_page(
            body.as_bytes(),
            &PageHints::default(),
            &ContentConfig::default(),
            &Budget::DEFAULT,
        )
    };
    let whole = run().expect("content").text();
    sweep(
        run,
        |r| r.as_ref().is_err_and(is_timeout),
        |r| r.as_ref().is_ok_and(|c| c.text() == whole),
    );
}

#[test]
fn every_template_method_stopped_anywhere_times_out() {
    let (site, key) = site();
    for method in [
        Method::TemEx,
        Method::HybEx,
        Method::PageLevel,
        Method::SiteLevel,
        Method::TableChunk,
        Method::MainContent,
    ] {
        let config = TemplateConfig::for_method(method);
        let run = || extract_template(&site, &key, &config);
        let whole = run().unwrap_or_else(|e| panic!("{method}: {e:?}")).template;
        sweep(
            run,
            |r| matches!(r, Err(LoadError::Refused { error, .. }) if is_timeout(error)),
            |r| {
                r.as_ref()
                    .is_ok_and(|t| t.template == whole && t.method == method)
            },
        );
    }
}

/// A source whose every load takes `delay`, as a live site's do.
struct Slow<'s> {
    site: &'s MemorySource,
    delay: std::time::Duration,
}

impl PageSource for Slow<'_> {
    fn load(&self, url: &Url) -> Result<crate::source::Page, LoadError> {
        std::thread::sleep(self.delay);
        self.site.load(url)
    }
    fn resolves(&self, url: &Url) -> bool {
        self.site.resolves(url)
    }
    fn stats(&self) -> crate::source::LoadStats {
        self.site.stats()
    }
    fn canonical_url(&self, url: &Url) -> Url {
        self.site.canonical_url(url)
    }
    fn page_urls(&self) -> Option<Vec<Url>> {
        self.site.page_urls()
    }
}

/// The call's time limit holds across pages: the search loads no page after it, the call
/// fails naming it, and a call within it gives what a call without one gives.
#[test]
fn a_call_stops_at_its_time_limit() {
    use std::time::{Duration, Instant};
    let (site, key) = site();
    let delay = Duration::from_millis(40);
    let slow = Slow { site: &site, delay };
    let limit = Duration::from_millis(130);
    for method in [
        Method::TemEx,
        Method::HybEx,
        Method::SiteLevel,
        Method::TableChunk,
    ] {
        let unlimited = TemplateConfig::for_method(method);
        let whole = extract_template(&slow, &key, &unlimited).unwrap();
        // Without the limit the call loads more than fits in it.
        assert!(
            whole.loads.attempts as u32 * delay > limit + delay,
            "{method}: {} loads",
            whole.loads.attempts
        );
        let within = TemplateConfig {
            time_limit: Some(Duration::from_secs(600)),
            ..unlimited.clone()
        };
        let r = extract_template(&slow, &key, &within).unwrap();
        assert_eq!(
            (&r.template, r.loads),
            (&whole.template, whole.loads),
            "{method}"
        );

        let limited = TemplateConfig {
            time_limit: Some(limit),
            ..unlimited
        };
        let t = Instant::now();
        let before = site.stats().attempts;
        let r = extract_template(&slow, &key, &limited);
        let took = t.elapsed();
        let loads = site.stats().attempts - before;
        match r {
            Err(LoadError::Refused {
                error: PageError::TimedOut { limit: l, stage },
                ..
            }) => {
                assert_eq!(l, limit, "{method}");
                assert!(stage.contains("the call's time limit"), "{method}: {stage}");
            }
            r => panic!("{method}: {r:?}"),
        }
        // At most the load under way when the limit passed, and its page's work, after it.
        assert!(loads < whole.loads.attempts, "{method}: {loads} loads");
        assert!(
            took < limit + delay + Duration::from_secs(2),
            "{method}: {took:?}"
        );
    }
    // A limit shorter than the key page's load: every method stops before any work on it.
    for method in [Method::HybEx, Method::PageLevel, Method::MainContent] {
        let config = TemplateConfig {
            time_limit: Some(Duration::from_millis(1)),
            ..TemplateConfig::for_method(method)
        };
        let before = site.stats().attempts;
        let r = extract_template(&slow, &key, &config);
        assert!(
            matches!(&r, Err(LoadError::Refused { error: PageError::TimedOut { limit, .. }, .. }) if *limit == Duration::from_millis(1)),
            "{method}: {r:?}"
        );
        assert_eq!(
            site.stats().attempts - before,
            1,
            "{method}: only the key page loads"
        );
    }
}
