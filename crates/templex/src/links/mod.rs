//! Hyperlinks: extraction from a [`Document`], resolution against the page URL and `<base>`,
//! and same-site classification by registrable domain (public suffix list).

use rustc_hash::FxHashSet;
use serde::Serialize;
use url::Url;

use crate::dom::{Document, NodeId, local_name};

/// One hyperlink of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// Absolute URL, fragment removed.
    pub url: Url,
    /// The `<a>` or `<area>` element the link came from (its first occurrence).
    #[serde(skip)]
    pub node: NodeId,
    /// Whether the target is on the same site (same registrable domain) as the page.
    pub same_site: bool,
}

impl Link {
    /// Whether the link is a same-site link that plausibly names a page ([`looks_like_page`]):
    /// the links that template extraction follows.
    pub fn is_site_page(&self) -> bool {
        self.same_site && looks_like_page(&self.url)
    }
}

/// The registrable domain of a URL's host (`www.bbc.co.uk` → `bbc.co.uk`).
///
/// Hosts without one (IP addresses, `localhost`, single labels) are their own site.
pub fn registrable_domain(url: &Url) -> Option<String> {
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    if matches!(url.host(), Some(url::Host::Domain(_))) {
        if let Some(d) = psl::domain_str(&host) {
            return Some(d.to_string());
        }
    }
    Some(host)
}

/// One page's site, to test many URLs against: its registrable domain is looked up once,
/// and a URL on the page's own host (most links) needs no lookup at all.
pub(crate) struct Site {
    host: Option<String>,
    domain: Option<String>,
}

impl Site {
    /// The site of `url`.
    pub(crate) fn of(url: &Url) -> Site {
        Site {
            host: url.host_str().map(str::to_string),
            domain: registrable_domain(url),
        }
    }

    /// Whether `url` is on this site: has the same registrable domain.
    pub(crate) fn contains(&self, url: &Url) -> bool {
        // One host has one registrable domain.
        if url.host_str().is_some() && url.host_str() == self.host.as_deref() {
            return self.domain.is_some();
        }
        match (registrable_domain(url), &self.domain) {
            (Some(x), Some(y)) => x == *y,
            _ => false,
        }
    }
}

/// The base URL of a document: its first `<base href>` resolved against the page URL.
pub(crate) fn base_url(doc: &Document, page_url: &Url) -> Url {
    doc.elements()
        .find(|e| {
            doc.element(*e)
                .is_some_and(|el| el.is(&local_name!("base")) && el.attr("href").is_some())
        })
        .and_then(|e| doc.element(e)?.attr("href"))
        .and_then(|href| page_url.join(href.trim()).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or_else(|| page_url.clone())
}

/// Whether a URL plausibly names an HTML page rather than a file (image, archive, style
/// sheet, feed…), judged by the extension of its last path segment.
pub fn looks_like_page(url: &Url) -> bool {
    let last = url.path().rsplit('/').next().unwrap_or("");
    let Some((_, ext)) = last.rsplit_once('.') else {
        return true;
    };
    !matches!(
        ext.to_ascii_lowercase().as_str(),
        "jpg"
            | "jpeg"
            | "png"
            | "gif"
            | "webp"
            | "svg"
            | "ico"
            | "bmp"
            | "tif"
            | "tiff"
            | "avif"
            | "pdf"
            | "ps"
            | "eps"
            | "doc"
            | "docx"
            | "xls"
            | "xlsx"
            | "ppt"
            | "pptx"
            | "odt"
            | "ods"
            | "odp"
            | "rtf"
            | "txt"
            | "csv"
            | "zip"
            | "gz"
            | "tgz"
            | "bz2"
            | "xz"
            | "7z"
            | "rar"
            | "tar"
            | "dmg"
            | "exe"
            | "msi"
            | "deb"
            | "rpm"
            | "apk"
            | "iso"
            | "bin"
            | "whl"
            | "jar"
            | "mp3"
            | "mp4"
            | "m4a"
            | "m4v"
            | "ogg"
            | "ogv"
            | "wav"
            | "webm"
            | "avi"
            | "mov"
            | "mkv"
            | "flac"
            | "css"
            | "js"
            | "mjs"
            | "json"
            | "xml"
            | "rss"
            | "atom"
            | "woff"
            | "woff2"
            | "ttf"
            | "otf"
            | "eot"
            | "swf"
            | "ics"
            | "vcf"
            | "sig"
            | "asc"
            | "md5"
            | "sha256"
            | "torrent"
            | "epub"
            | "mobi"
            | "dvi"
            | "tex"
            | "bib"
    )
}

/// Resolve an `href` against `base`: fragment dropped, only `http`/`https` kept.
pub(crate) fn resolve_href(base: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let mut url = base.join(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// All `<a href>` and `<area href>` links of a page, resolved, deduplicated (first DOM
/// occurrence wins) and without self-links. Off-site links are kept and flagged.
pub(crate) fn extract_links(doc: &Document, page_url: &Url) -> Vec<Link> {
    extract_links_with(doc, page_url, &|u: &Url| u.clone())
}

/// Like `extract_links`, with a canonicalizer deciding when two URLs name the same page
/// (e.g. `dir/` and `dir/index.html` in a mirror). The canonical URL is the one reported.
pub fn extract_links_with(
    doc: &Document,
    page_url: &Url,
    canonical: &dyn Fn(&Url) -> Url,
) -> Vec<Link> {
    let base = base_url(doc, page_url);
    let mut page = canonical(page_url);
    page.set_fragment(None);
    let site = Site::of(page_url);
    let mut all: Vec<(Url, NodeId)> = Vec::new();
    for id in doc.elements() {
        let Some(el) = doc.element(id) else { continue };
        if !(el.is(&local_name!("a")) || el.is(&local_name!("area"))) {
            continue;
        }
        if let Some(url) = el.attr("href").and_then(|h| resolve_href(&base, h)) {
            all.push((canonical(&url), id));
        }
    }
    // The first occurrence of each URL, found without copying any: a page may hold a
    // million links.
    let first: Vec<bool> = {
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        seen.insert(page.as_str());
        all.iter()
            .map(|(url, _)| seen.insert(url.as_str()))
            .collect()
    };
    let mut out = Vec::new();
    for ((url, node), first) in all.into_iter().zip(first) {
        if first {
            out.push(Link {
                same_site: site.contains(&url),
                url,
                node,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn resolves_dedupes_and_flags() {
        let page = Url::parse("https://www.example.co.uk/news/today.html").unwrap();
        let doc = parse_str(
            r##"<a href="a.html">A</a><a href="a.html#x">A again</a><a href="#top">top</a>
            <a href="today.html">self</a><a href="/about/">About</a>
            <a href="https://shop.example.co.uk/">shop</a><a href="https://other.org/">ext</a>
            <a href="mailto:x@y">mail</a><a href="javascript:void(0)">js</a>
            <map><area href="../map.html"></map><a>no href</a>"##,
        );
        let links = extract_links(&doc, &page);
        let urls: Vec<_> = links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://www.example.co.uk/news/a.html",
                "https://www.example.co.uk/about/",
                "https://shop.example.co.uk/",
                "https://other.org/",
                "https://www.example.co.uk/map.html",
            ]
        );
        let same: Vec<_> = links.iter().map(|l| l.same_site).collect();
        assert_eq!(same, [true, true, true, false, true]);
        assert_eq!(doc.dom_path(links[0].node), "/html[1]/body[1]/a[1]");
    }

    #[test]
    fn page_like_urls() {
        for (u, page) in [
            ("https://a.org/", true),
            ("https://a.org/x/index.html", true),
            ("https://a.org/viewtopic.php?t=1", true),
            ("https://a.org/img/logo.PNG", false),
            ("https://a.org/paper.pdf", false),
            ("https://a.org/v1.2/", true),
        ] {
            assert_eq!(looks_like_page(&Url::parse(u).unwrap()), page, "{u}");
        }
    }

    #[test]
    fn base_href_is_honoured() {
        let page = Url::parse("http://example.com/a/b/c.html").unwrap();
        let doc = parse_str(r#"<head><base href="/x/"></head><a href="y.html">y</a>"#);
        let links = extract_links(&doc, &page);
        assert_eq!(links[0].url.as_str(), "http://example.com/x/y.html");
    }

    #[test]
    fn site_agrees_with_registrable_domains() {
        let urls = [
            "https://www.example.co.uk/a",
            "https://example.co.uk/b",
            "https://shop.example.co.uk:8443/",
            "https://example.com/",
            "http://localhost/a",
            "http://localhost:8080/b",
            "http://127.0.0.1/",
            "http://[::1]/",
            "https://foo.github.io/",
            "https://bar.github.io/",
            "https://www.example.co.uk./trailing-dot",
            "file:///tmp/x.html",
        ];
        for a in urls {
            let a = Url::parse(a).unwrap();
            let site = Site::of(&a);
            for b in urls {
                let b = Url::parse(b).unwrap();
                let by_domain = match (registrable_domain(&a), registrable_domain(&b)) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                };
                assert_eq!(site.contains(&b), by_domain, "{a} {b}");
            }
        }
    }

    #[test]
    fn hosts_without_registrable_domain() {
        let a = Url::parse("http://localhost/a").unwrap();
        let b = Url::parse("http://localhost:8080/b").unwrap();
        let c = Url::parse("http://127.0.0.1/").unwrap();
        assert!(Site::of(&a).contains(&b));
        assert!(!Site::of(&a).contains(&c));
        let d = Url::parse("https://foo.github.io/").unwrap();
        let e = Url::parse("https://bar.github.io/").unwrap();
        assert!(!Site::of(&d).contains(&e), "github.io is a public suffix");
    }
}
