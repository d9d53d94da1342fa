//! The site of a page: what batch runs group pages by (their templates are learned per
//! site).

use url::Url;

use crate::dom::Document;
use crate::extract::document_url;

/// The site of a page: its URL's registrable domain; for a page without URL, its canonical
/// link (`<link rel=canonical>`, `og:url`), else the input's directory.
pub(crate) fn site_key(url: Option<&Url>, doc: &Document, input: &str) -> String {
    match url {
        Some(u) => url_site(u, input),
        None => match document_url(doc) {
            Some(u) => url_site(&u, input),
            None => dir_site(input),
        },
    }
}

/// The site of a page with a URL: its registrable domain, else its input's directory.
pub(super) fn url_site(url: &Url, input: &str) -> String {
    site_of_url(url).unwrap_or_else(|| dir_site(input))
}

/// The site a batch run learns a URL's page with (its registrable domain: `www.bbc.co.uk`
/// and `news.bbc.co.uk` are `bbc.co.uk`), or `None` for a URL without a host. A job that
/// spreads a crawl over machines groups records by it so that each site's pages meet.
pub fn site_of_url(url: &Url) -> Option<String> {
    crate::links::registrable_domain(url).filter(|d| !d.is_empty())
}

/// The site of a page known by nothing but its input path.
fn dir_site(input: &str) -> String {
    let dir = std::path::Path::new(input)
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    format!("file:{dir}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn sites_from_urls_canonical_links_and_directories() {
        let doc = parse_str(
            "<html><head><link rel='canonical' href='https://news.bbc.co.uk/a'></head><body>x</body></html>",
        );
        let url = Url::parse("https://www.example.co.uk/page").unwrap();
        assert_eq!(site_key(Some(&url), &doc, "f"), "example.co.uk");
        assert_eq!(site_key(None, &doc, "dir/f.html"), "bbc.co.uk");
        let bare = parse_str("<p>x</p>");
        assert_eq!(site_key(None, &bare, "dir/f.html"), "file:dir");
        let og =
            parse_str("<head><meta property='og:url' content='http://blog.example.org/x'></head>");
        assert_eq!(
            document_url(&og).unwrap().host_str(),
            Some("blog.example.org")
        );
        let js = parse_str("<head><link rel=canonical href='javascript:alert(1)'></head>");
        assert!(document_url(&js).is_none());
    }
}
