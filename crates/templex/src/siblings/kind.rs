//! The key page's own kind, read from URLs: which of its links lead to pages like it (other
//! articles, other threads of the forum, other wiki pages) rather than to the site's menu
//! pages.
//!
//! Hosts serve several templates, and a site's menu pages (home, sections, categories) are
//! often of a different one than an article, a forum thread or a profile: their complete
//! subdigraph then says nothing about the parts of the key page's template that the menu
//! pages lack (a sidebar, related posts, an author box, a forum's jump box). Pages of one
//! kind are made by one script or one content type, and their URLs show it in one of two
//! ways, both read from the URL's *pattern* (its path segments with digit runs masked, the
//! file extension, the query's keys):
//! * **script style**: the pattern is the same, only numbers differ (`viewtopic.php?t=12`,
//!   `?p=4547`, `/2014/03/13/…`; a mirror's hashed file names such as HTTrack's
//!   `viewtopic9cc5.html` are masked too). When other links share the key page's pattern
//!   exactly, those are its kind;
//! * **slug style**: otherwise the last path segment is a name (`/people/mw/`,
//!   `/2016/12/05/a-title/`, `/installing.html`), and the pages whose pattern differs from
//!   the key page's only there are its kind.

use url::Url;

/// A URL's pattern: masked path segments (the last one the file stem, empty for a directory
/// index), extension and sorted query keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlPattern {
    host: String,
    segments: Vec<String>,
    ext: String,
    query: Vec<String>,
}

impl UrlPattern {
    /// The pattern of `url`.
    pub(crate) fn of(url: &Url) -> UrlPattern {
        let mut segments: Vec<String> = url
            .path()
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| s.to_ascii_lowercase())
            .collect();
        // A directory and its index page are one page.
        let dir_index = url.path().ends_with('/')
            || segments
                .last()
                .is_some_and(|s| s.split('.').next() == Some("index"));
        let mut ext = String::new();
        if dir_index {
            if !url.path().ends_with('/') {
                segments.pop();
            }
            segments.push(String::new());
        } else if let Some(last) = segments.pop() {
            let (stem, e) = match last.rfind('.') {
                Some(i) if i > 0 => (&last[..i], &last[i + 1..]),
                _ => (last.as_str(), ""),
            };
            ext = e.to_string();
            segments.push(strip_hash_suffix(stem).to_string());
        }
        let segments = segments.iter().map(|s| mask_digits(s)).collect();
        let mut query: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
        query.sort_unstable();
        query.dedup();
        UrlPattern {
            host: url.host_str().unwrap_or("").to_ascii_lowercase(),
            segments,
            ext,
            query,
        }
    }

    /// Whether `other` differs from this pattern at most in its last non-empty segment (its
    /// slug).
    fn same_but_slug(&self, other: &UrlPattern) -> bool {
        if self.host != other.host
            || self.ext != other.ext
            || self.query != other.query
            || self.segments.len() != other.segments.len()
        {
            return false;
        }
        let Some(slug) = self.segments.iter().rposition(|s| !s.is_empty()) else {
            return false;
        };
        self.segments
            .iter()
            .zip(&other.segments)
            .enumerate()
            .all(|(i, (a, b))| i == slug || a == b)
            && !other.segments[slug].is_empty()
    }
}

/// Which of `links` are of the key page's kind (see the module docs); the key page itself
/// is never among them.
pub(crate) fn own_kind(key: &Url, links: &[&Url]) -> Vec<bool> {
    let key_pattern = UrlPattern::of(key);
    let patterns: Vec<UrlPattern> = links.iter().map(|u| UrlPattern::of(u)).collect();
    let not_key = |i: usize| links[i] != key;
    let script: Vec<bool> = (0..links.len())
        .map(|i| not_key(i) && patterns[i] == key_pattern)
        .collect();
    if script.iter().any(|s| *s) {
        return script;
    }
    (0..links.len())
        .map(|i| not_key(i) && key_pattern.same_but_slug(&patterns[i]))
        .collect()
}

/// The stem without a mirror's hash suffix: HTTrack names `viewtopic.php?t=1` as
/// `viewtopic9cc5.html`, four hex digits of the query's hash (a trailing run of hex letters
/// and digits, with a digit, at least four long, after a non-hex letter).
fn strip_hash_suffix(stem: &str) -> &str {
    let bytes = stem.as_bytes();
    let run = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    let tail = &bytes[bytes.len() - run..];
    if run >= 4 && run < bytes.len() && tail.iter().any(u8::is_ascii_digit) {
        &stem[..stem.len() - run]
    } else {
        stem
    }
}

/// Digit runs as one `#`: ids, dates and page numbers vary within a kind.
fn mask_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(key: &str, links: &[&str]) -> Vec<bool> {
        let key = Url::parse(key).unwrap();
        let links: Vec<Url> = links.iter().map(|l| Url::parse(l).unwrap()).collect();
        let refs: Vec<&Url> = links.iter().collect();
        own_kind(&key, &refs)
    }

    #[test]
    fn script_style_threads_not_other_forum_pages() {
        let k = kinds(
            "https://f.org/forum/viewtopic333a.html",
            &[
                "https://f.org/forum/search526f.html",
                "https://f.org/forum/viewtopicb970.html",
                "https://f.org/forum/viewforum4d6b.html",
                "https://f.org/forum/viewtopic4b2d.html",
                "https://f.org/forum/memberlist.html",
            ],
        );
        assert_eq!(k, [false, true, false, true, false]);
        let k = kinds(
            "https://f.org/viewtopic.php?t=12",
            &[
                "https://f.org/viewtopic.php?t=13",
                "https://f.org/viewforum.php?f=1",
                "https://f.org/viewtopic.php?p=9",
            ],
        );
        assert_eq!(k, [true, false, false]);
    }

    #[test]
    fn slug_style_articles_not_sections() {
        let key = "https://b.org/2016/12/05/a-title/index.html";
        let k = kinds(
            key,
            &[
                "https://b.org/2017/01/02/other-title/",
                "https://b.org/category/linux/",
                "https://b.org/2017/",
                key,
                "https://b.org/about/",
            ],
        );
        assert_eq!(k, [true, false, false, false, false]);
        let k = kinds(
            "https://lab.org/people/mw/index.html",
            &[
                "https://lab.org/people/ts/index.html",
                "https://lab.org/people/index.html",
                "https://lab.org/contact/index.html",
            ],
        );
        assert_eq!(k, [true, false, false]);
    }

    #[test]
    fn hash_suffix_and_digits() {
        assert_eq!(strip_hash_suffix("viewforum4d6b"), "viewforum");
        assert_eq!(strip_hash_suffix("viewtopic333a"), "viewtopi");
        assert_eq!(strip_hash_suffix("installing"), "installing");
        assert_eq!(strip_hash_suffix("cafe"), "cafe");
        assert_eq!(strip_hash_suffix("1234"), "1234");
        assert_eq!(mask_digits("p=4547x12"), "p=#x#");
    }
}
