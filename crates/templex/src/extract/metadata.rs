//! A page's metadata as users of content extractors expect it: title, author, publication
//! date and language.
//!
//! Each field is read from the most explicit statement the page makes, in order: structured
//! data (JSON-LD, `itemprop`), `<meta>` tags, then the visible page (the headline, a byline,
//! a `<time>` element), then the URL (dates in paths). What a page states about itself in
//! markup is also what its authors check; the visible page is the fallback because bylines
//! and datelines come in every form.

use markup5ever::local_name;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use crate::dom::{Document, NodeId, collapse_whitespace, deadline};

/// A page's title, author, publication date and language, each when the page states it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The title of the page's content: its headline when `<title>` or `og:title` name it
    /// too, else `<title>` without the site's name.
    pub title: Option<String>,
    /// The author or authors, as the page names them (several joined by `, `).
    pub author: Option<String>,
    /// The publication date, `YYYY-MM-DD`.
    pub date: Option<String>,
    /// The language the page declares (`<html lang>`, `Content-Language`, `og:locale`,
    /// JSON-LD `inLanguage`): its primary subtag, lower-case (`en`, `pt`).
    pub language: Option<String>,
}

/// The metadata of `doc`, whose URL (for dates in paths) is `url`, else the canonical URL
/// the page states.
pub(crate) fn page_metadata(doc: &Document, url: Option<&Url>) -> Metadata {
    let scan = Scan::new(doc);
    let ld = StructuredData::parse(doc);
    let stated = scan.canonical.as_deref().and_then(|u| Url::parse(u).ok());
    let url = url.or(stated.as_ref());
    Metadata {
        title: scan.title(doc, &ld),
        author: ld
            .author
            .clone()
            .or_else(|| scan.meta_author())
            .or_else(|| scan.visible_author(doc)),
        // The page's own publication tags, then the date a reader sees by the headline (the
        // reader's date is the one a page keeps current), then structured data, which
        // generators often fill with the post's creation; by WCXB pages (README).
        date: scan
            .meta_date()
            .or_else(|| scan.time_date(doc))
            .or_else(|| scan.headline_date(doc))
            .or_else(|| ld.published.clone())
            .or_else(|| scan.visible_date(doc))
            .or_else(|| url.and_then(url_date)),
        language: scan.language(doc).or_else(|| ld.language.clone()),
    }
}

/// What one walk over the elements collects.
#[derive(Default)]
struct Scan {
    /// `<meta>` tags: (`name`, `property`, `itemprop` or `http-equiv`, lower-case; `content`).
    meta: Vec<(String, String)>,
    h1: Vec<NodeId>,
    /// `<time>` elements with a `datetime`.
    times: Vec<NodeId>,
    /// Elements with `itemprop="author"`.
    author_props: Vec<NodeId>,
    /// `<a rel="author">`.
    rel_author: Vec<NodeId>,
    /// Small elements whose class or id names an author or byline.
    bylines: Vec<NodeId>,
    /// Small elements whose class or id names a date.
    datelines: Vec<NodeId>,
    /// Elements with `itemprop="datePublished"` (not `<meta>`, `<time>`).
    date_props: Vec<NodeId>,
    /// `<link rel="canonical">`, else `og:url`.
    canonical: Option<String>,
}

/// Names that a page's own `<meta>` tags give the publication date under (lower-case).
const META_DATE: &[&str] = &[
    "article:published_time",
    "og:article:published_time",
    "og:published_time",
    "datepublished",
    "article.published",
    "article_date_original",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "publication_date",
    "published_time",
    "date",
    "dc.date",
    "dc.date.issued",
    "dc.date.created",
    "dcterms.date",
    "dcterms.issued",
    "dcterms.created",
    "citation_publication_date",
    "citation_date",
    "sailthru.date",
    "parsely-pub-date",
    "cxenseparse:recs:publishtime",
    "rnews:datepublished",
];

/// Names that `<meta>` tags give the author under (lower-case).
const META_AUTHOR: &[&str] = &[
    "author",
    "article:author",
    "og:article:author",
    "parsely-author",
    "sailthru.author",
    "dc.creator",
    "dcterms.creator",
    "citation_author",
    "byl",
];

/// Bylines, datelines and the elements that carry an author's name or the publication date
/// are small: a few words in at most this many nodes (a wrapper around a bio or a list of
/// posts is not one).
const SMALL_ELEMENT: usize = 32;

/// How many texts after the headline a dateline is looked for in (a quarter as many before).
const NEAR_HEADLINE: usize = 40;

/// The `<title>` separators between a page's own title and the site's name or section.
const TITLE_SEPARATORS: &[&str] = &[
    " | ", " - ", " – ", " — ", " : ", " · ", " • ", " » ", " / ", " :: ",
];

impl Scan {
    fn new(doc: &Document) -> Scan {
        let mut s = Scan::default();
        let body = doc.body();
        let mut names = String::new();
        let mut verdicts =
            rustc_hash::FxHashMap::<(Option<&str>, Option<&str>), (bool, bool)>::default();
        for id in doc.elements() {
            let Some(el) = doc.element(id) else { continue };
            let tag = el.tag();
            if *tag == local_name!("meta") {
                let Some(content) = el.attr("content") else {
                    continue;
                };
                let content = collapse_whitespace(content);
                if content.is_empty() {
                    continue;
                }
                for key in ["name", "property", "itemprop", "http-equiv"] {
                    if let Some(k) = el.attr(key) {
                        s.meta
                            .push((k.trim().to_ascii_lowercase(), content.clone()));
                    }
                }
                if s.canonical.is_none() && el.attr("property") == Some("og:url") {
                    s.canonical = Some(content);
                }
                continue;
            }
            if *tag == local_name!("link")
                && s.canonical.is_none()
                && el
                    .attr("rel")
                    .is_some_and(|r| r.eq_ignore_ascii_case("canonical"))
            {
                s.canonical = el.attr("href").map(|h| h.trim().to_string());
            }
            if body.is_none_or(|b| !doc.contains(b, id)) {
                continue;
            }
            if *tag == local_name!("h1") {
                s.h1.push(id);
            }
            let small = doc.subtree_size(id) <= SMALL_ELEMENT;
            let itemprop = el.attr("itemprop").map(str::to_ascii_lowercase);
            if *tag == local_name!("time") && el.attr("datetime").is_some() {
                s.times.push(id);
                continue;
            }
            match itemprop.as_deref() {
                // Outermost ones only: their subtrees are read, and nested ones would make
                // that grow with depth × nodes.
                Some("author" | "creator") => push_outermost(doc, &mut s.author_props, id),
                Some("datepublished") => push_outermost(doc, &mut s.date_props, id),
                _ => {}
            }
            if *tag == local_name!("a")
                && el.attr("rel").is_some_and(|r| {
                    r.split_ascii_whitespace()
                        .any(|t| t.eq_ignore_ascii_case("author"))
                })
            {
                s.rel_author.push(id);
            }
            let (class, own_id) = (el.attr("class"), el.attr("id"));
            if (class.is_none() && own_id.is_none()) || !small {
                continue;
            }
            // A page repeats a few dozen class lists over thousands of elements: each pair
            // of class and id is judged once.
            let (byline, dateline) = *verdicts.entry((class, own_id)).or_insert_with(|| {
                // Class and id, lower-case, once: every name test is a substring test on it.
                names.clear();
                for a in [class, own_id].into_iter().flatten() {
                    names.push_str(a);
                    names.push(' ');
                }
                names.make_ascii_lowercase();
                let has = |parts: &[&str]| parts.iter().any(|p| names.contains(p));
                (
                    has(&["author", "byline"]) && !has(&["authority", "avatar", "bio", "comment"]),
                    has(&["date", "posted-on", "published", "timestamp"]),
                )
            });
            if byline {
                s.bylines.push(id);
            }
            if dateline {
                s.datelines.push(id);
            }
        }
        s
    }

    fn meta(&self, keys: &[&str]) -> impl Iterator<Item = &str> + '_ {
        // In the order of `keys`: earlier names are more specific.
        let mut found: Vec<(usize, &str)> = self
            .meta
            .iter()
            .filter_map(|(k, v)| keys.iter().position(|x| x == k).map(|i| (i, v.as_str())))
            .collect();
        found.sort_by_key(|(i, _)| *i);
        found.into_iter().map(|(_, v)| v)
    }

    fn title(&self, doc: &Document, ld: &StructuredData) -> Option<String> {
        let title = doc.title().unwrap_or_default();
        let og = self
            .meta(&["og:title", "twitter:title"])
            .next()
            .unwrap_or_default()
            .to_string();
        let sites: Vec<String> = self
            .meta(&[
                "og:site_name",
                "application-name",
                "apple-mobile-web-app-title",
            ])
            .map(normalize)
            .collect();
        let is_site = |part: &str| {
            let n = normalize(part);
            n.is_empty() || sites.contains(&n)
        };
        let parts: Vec<&str> = split_title(&title)
            .into_iter()
            .filter(|p| !is_site(p))
            .collect();
        let og_parts: Vec<&str> = split_title(&og)
            .into_iter()
            .filter(|p| !is_site(p))
            .collect();
        // The last of several parts is where titles put the site's name (`Post | Site`).
        let own = |p: &[&str]| -> Vec<String> {
            let n = if p.len() > 1 { p.len() - 1 } else { p.len() };
            p[..n].iter().map(|x| normalize(x)).collect()
        };
        let stated: Vec<String> = own(&parts)
            .into_iter()
            .chain(own(&og_parts))
            .chain(ld.headline.as_deref().map(normalize))
            .collect();
        let (n_title, n_og) = (normalize(&title), normalize(&og));
        // The headline the page shows, when its title or structured data names it too: that
        // tells it from a logo or a section name in an `<h1>`.
        for &h in &self.h1 {
            let text = collapse_whitespace(&doc.visible_text(h));
            let n = normalize(&text);
            if n.is_empty() {
                continue;
            }
            let named = stated.contains(&n)
                || (n.len() > 10 && (n_title.contains(&n) || n_og.contains(&n)));
            if named {
                return Some(text);
            }
        }
        parts
            .first()
            .or(og_parts.first())
            .map(|p| p.to_string())
            .or_else(|| ld.headline.clone())
            .or_else(|| {
                self.h1
                    .iter()
                    .map(|&h| collapse_whitespace(&doc.visible_text(h)))
                    .find(|t| !t.is_empty())
            })
            .or_else(|| (!title.is_empty()).then_some(title.clone()))
    }

    fn meta_author(&self) -> Option<String> {
        self.meta(META_AUTHOR).find_map(clean_author)
    }

    fn visible_author(&self, doc: &Document) -> Option<String> {
        let prop = self.author_props.iter().find_map(|&id| {
            // `itemprop="author"` often wraps a `Person` whose name has its own itemprop.
            let name = doc.descendants(id).find(|&d| {
                doc.element(d)
                    .and_then(|e| e.attr("itemprop"))
                    .is_some_and(|p| p.eq_ignore_ascii_case("name"))
            });
            let id = name.unwrap_or(id);
            doc.element(id)?
                .attr("content")
                .and_then(clean_author)
                .or_else(|| byline_name(doc, id))
        });
        prop.or_else(|| self.rel_author.iter().find_map(|&id| byline_name(doc, id)))
            .or_else(|| self.bylines.iter().find_map(|&id| byline_name(doc, id)))
    }

    fn meta_date(&self) -> Option<String> {
        self.meta(META_DATE).find_map(parse_date)
    }

    /// The date of the first `<time datetime>` in the body, or of an element that says it
    /// is the publication date (`itemprop="datePublished"`) before it.
    fn time_date(&self, doc: &Document) -> Option<String> {
        let first_time = self.times.first().copied();
        self.date_props
            .iter()
            .filter(|&&id| first_time.is_none_or(|t| id < t))
            .find_map(|&id| {
                let el = doc.element(id)?;
                el.attr("content")
                    .and_then(parse_date)
                    .or_else(|| parse_date(&doc.visible_text(id)))
            })
            .or_else(|| {
                doc.element(first_time?)?
                    .attr("datetime")
                    .and_then(parse_date)
            })
    }

    fn visible_date(&self, doc: &Document) -> Option<String> {
        self.datelines
            .iter()
            .find_map(|&id| parse_date(&doc.visible_text(id)))
    }

    /// The first date written alone in a short text near the page's headline (the first
    /// `<h1>`): the dateline a reader sees above or below the title.
    fn headline_date(&self, doc: &Document) -> Option<String> {
        let body = doc.body()?;
        let anchor = self.h1.first().copied();
        // Short texts, in document order, with the index of the headline's first text.
        let mut texts: Vec<NodeId> = Vec::new();
        let mut at = None;
        for id in doc.visible_descendants(body) {
            if deadline::due(id.index()) {
                break;
            }
            if at.is_none() && anchor.is_some_and(|h| doc.contains(h, id)) {
                at = Some(texts.len());
            }
            if doc.text(id).is_some_and(|t| !t.trim().is_empty()) {
                texts.push(id);
            }
        }
        let at = at?;
        let date_of = |&id: &NodeId| {
            let t = doc.text(id)?;
            (t.len() <= 80).then(|| parse_date(t)).flatten()
        };
        texts[at..texts.len().min(at + NEAR_HEADLINE)]
            .iter()
            .find_map(date_of)
            .or_else(|| {
                texts[at.saturating_sub(NEAR_HEADLINE / 4)..at]
                    .iter()
                    .rev()
                    .find_map(date_of)
            })
    }

    fn language(&self, doc: &Document) -> Option<String> {
        let html = doc.html().and_then(|h| doc.element(h));
        html.and_then(|h| h.attr("lang").or_else(|| h.attr("xml:lang")))
            .and_then(primary_language)
            .or_else(|| {
                self.meta(&["content-language", "og:locale", "language", "dc.language"])
                    .find_map(primary_language)
            })
    }
}

/// Push `id` unless it is inside the last element pushed (elements come in document order,
/// so that one holds any earlier element that holds `id`).
fn push_outermost(doc: &Document, list: &mut Vec<NodeId>, id: NodeId) {
    if list.last().is_none_or(|&last| !doc.contains(last, id)) {
        list.push(id);
    }
}

/// Lower-case words of `s`, one space between them: how titles and names are compared.
fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The parts of a `<title>` between its separators, trimmed.
fn split_title(title: &str) -> Vec<&str> {
    let mut parts = vec![title];
    for sep in TITLE_SEPARATORS {
        parts = parts.into_iter().flat_map(|p| p.split(sep)).collect();
    }
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The name in a byline element: its first text that is neither a label (`By`, `Author`,
/// `Updated`) nor a date (`By <a>Jane Doe</a> - May 3, 2024`).
fn byline_name(doc: &Document, id: NodeId) -> Option<String> {
    doc.visible_descendants(id).find_map(|t| {
        let text = doc.text(t)?.trim();
        let bare = text
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        let label = matches!(
            bare.as_str(),
            "" | "by"
                | "author"
                | "authors"
                | "written by"
                | "posted by"
                | "published by"
                | "posted"
                | "published"
                | "updated"
                | "on"
                | "and"
                | "in"
                | "the author"
        );
        if label || parse_date(text).is_some() || text.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
        clean_author(text)
    })
}

/// An author's name from a byline or a tag's value: prefixes (`By`, `Written by`) and
/// trailing separators cut; `None` for URLs, handles and what is too long to be a name.
fn clean_author(raw: &str) -> Option<String> {
    let mut s = collapse_whitespace(raw);
    for prefix in [
        "written by",
        "posted by",
        "published by",
        "reviewed by",
        "author:",
        "by:",
        "by",
    ] {
        if let Some(head) = s.get(..prefix.len())
            && s.len() > prefix.len()
            && head.eq_ignore_ascii_case(prefix)
        {
            let rest = &s[prefix.len()..];
            // `By` must stand alone: "Byron Smith" is a name.
            if prefix.ends_with(':') || rest.starts_with(char::is_whitespace) {
                s = rest.trim_start_matches([' ', ':']).to_string();
                break;
            }
        }
    }
    let s = s.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '|' | ',' | '-' | '–' | '—' | '·' | '•')
    });
    let words = s.split_whitespace().count();
    let url_like =
        s.contains("://") || s.starts_with("www.") || s.starts_with('@') || s.contains('@');
    let label = ["author", "the author", "admin", "unknown"]
        .iter()
        .any(|l| s.eq_ignore_ascii_case(l));
    (words > 0
        && words <= 12
        && s.chars().count() <= 120
        && !url_like
        && !label
        && s.chars().any(char::is_alphabetic))
    .then(|| s.to_string())
}

/// The primary language subtag of a language tag or locale (`en-US`, `pt_BR` → `en`, `pt`).
fn primary_language(tag: &str) -> Option<String> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    ((2..=3).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_lowercase()))
        .then_some(primary)
}

/// A date in `YYYY-MM-DD` from the first date in `text`: ISO 8601 (`2024-05-28T…`),
/// `2024/05/28`, or with an English month name (`May 28, 2024`, `28 May 2024`).
pub(crate) fn parse_date(text: &str) -> Option<String> {
    let b = text.as_bytes();
    // Numeric: YYYY-MM-DD or YYYY/MM/DD.
    let mut i = 0;
    while i + 10 <= b.len() {
        let w = &b[i..i + 10];
        let digits = |r: std::ops::Range<usize>| w[r].iter().all(u8::is_ascii_digit);
        let boundary = i == 0 || !b[i - 1].is_ascii_digit();
        if boundary
            && digits(0..4)
            && matches!(w[4], b'-' | b'/' | b'.')
            && w[7] == w[4]
            && digits(5..7)
            && digits(8..10)
            && b.get(i + 10).is_none_or(|c| !c.is_ascii_digit())
        {
            let num =
                |r: std::ops::Range<usize>| std::str::from_utf8(&w[r]).ok()?.parse::<u32>().ok();
            if let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10))
                && let Some(date) = ymd(y, m, d)
            {
                return Some(date);
            }
        }
        i += 1;
    }
    worded_date(text)
}

/// `YYYY-MM-DD` when `y`, `m`, `d` make a plausible publication date.
fn ymd(y: u32, m: u32, d: u32) -> Option<String> {
    ((1990..=2100).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A date written with an English month name: `May 28, 2024`, `28 May 2024`,
/// `September 4th, 2025`.
fn worded_date(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | '/' | '|' | '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let month = |w: &str| {
        let l = w.to_ascii_lowercase();
        let m = MONTHS.iter().position(|m| l.starts_with(m))?;
        // `May`, `Sept`, `September`, not `marketing`.
        let full = [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ][m];
        (full.starts_with(&l) || l == "sept").then_some(m as u32 + 1)
    };
    let day = |w: &str| {
        let d = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        (w.len() - d.len() <= 2 && (1..=2).contains(&d.len()))
            .then(|| d.parse::<u32>().ok())
            .flatten()
    };
    let year = |w: &str| (w.len() == 4).then(|| w.parse::<u32>().ok()).flatten();
    for i in 0..words.len() {
        let Some(m) = month(words[i]) else { continue };
        // Month day year
        if let (Some(d), Some(y)) = (
            words.get(i + 1).and_then(|w| day(w)),
            words.get(i + 2).and_then(|w| year(w)),
        ) && let Some(date) = ymd(y, m, d)
        {
            return Some(date);
        }
        // day Month year
        if i > 0
            && let (Some(d), Some(y)) = (day(words[i - 1]), words.get(i + 1).and_then(|w| year(w)))
            && let Some(date) = ymd(y, m, d)
        {
            return Some(date);
        }
    }
    None
}

/// A date in a URL's path: `/2024/05/28/` or `/2024-05-28-`.
pub(crate) fn url_date(url: &Url) -> Option<String> {
    let segments: Vec<&str> = url.path_segments()?.collect();
    for w in segments.windows(3) {
        let num = |s: &str, n: usize| (s.len() == n).then(|| s.parse::<u32>().ok()).flatten();
        if let (Some(y), Some(m), Some(d)) = (num(w[0], 4), num(w[1], 2), num(w[2], 2))
            && let Some(date) = ymd(y, m, d)
        {
            return Some(date);
        }
    }
    segments.iter().find_map(|s| {
        let b = s.as_bytes();
        (b.len() >= 10 && b[4] == b'-' && b[7] == b'-')
            .then(|| parse_date(s.get(..10)?))
            .flatten()
    })
}

/// What a page's JSON-LD says of its main item.
#[derive(Default)]
struct StructuredData {
    headline: Option<String>,
    author: Option<String>,
    published: Option<String>,
    modified: Option<String>,
    language: Option<String>,
}

/// Schema.org types of a page's main item (an article, a post, a product, a page).
const MAIN_TYPES: &[&str] = &[
    "article",
    "newsarticle",
    "blogposting",
    "report",
    "techarticle",
    "scholarlyarticle",
    "socialmediaposting",
    "discussionforumposting",
    "liveblogposting",
    "posting",
    "reviewnewsarticle",
    "analysisnewsarticle",
    "opinionnewsarticle",
    "review",
    "recipe",
    "howto",
    "qapage",
    "question",
    "webpage",
    "product",
];

impl StructuredData {
    fn parse(doc: &Document) -> StructuredData {
        let scripts = super::declared::json_ld(doc);
        // Candidates: (rank of the type in MAIN_TYPES, the object).
        let mut items: Vec<(usize, Value)> = Vec::new();
        for s in scripts.iter() {
            let Ok(v) = serde_json::from_str::<Value>(s.trim()) else {
                continue;
            };
            let mut stack = vec![v];
            while let Some(v) = stack.pop() {
                match v {
                    Value::Array(a) => stack.extend(a.into_iter().rev()),
                    Value::Object(mut o) => {
                        if let Some(g) = o.remove("@graph") {
                            stack.push(g);
                        }
                        let rank = types(o.get("@type"))
                            .iter()
                            .filter_map(|t| {
                                MAIN_TYPES.iter().position(|m| m.eq_ignore_ascii_case(t))
                            })
                            .min();
                        if let Some(rank) = rank {
                            items.push((rank, Value::Object(o)));
                        } else if let Some(main) = o.remove("mainEntity") {
                            stack.push(main);
                        }
                    }
                    _ => {}
                }
            }
        }
        items.sort_by_key(|(r, _)| *r);
        let mut out = StructuredData::default();
        for (_, item) in &items {
            let str_of = |k: &str| {
                item.get(k)
                    .and_then(Value::as_str)
                    .map(collapse_whitespace)
                    .filter(|s| !s.is_empty())
            };
            if out.headline.is_none() {
                out.headline = str_of("headline");
            }
            if out.published.is_none() {
                out.published = str_of("datePublished")
                    .or_else(|| str_of("dateCreated"))
                    .and_then(|d| parse_date(&d));
            }
            if out.modified.is_none() {
                out.modified = str_of("dateModified").and_then(|d| parse_date(&d));
            }
            if out.author.is_none() {
                out.author = item
                    .get("author")
                    .or_else(|| item.get("creator"))
                    .and_then(author_names);
            }
            if out.language.is_none() {
                out.language = str_of("inLanguage").and_then(|l| primary_language(&l));
            }
        }
        out
    }
}

/// The `@type` of a JSON-LD object, one or several.
fn types(t: Option<&Value>) -> Vec<&str> {
    match t {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The names in a JSON-LD `author`: a string, a `Person` or `Organization`, or a list.
fn author_names(v: &Value) -> Option<String> {
    let one = |v: &Value| match v {
        Value::String(s) => clean_author(s),
        Value::Object(o) => o.get("name").and_then(Value::as_str).and_then(clean_author),
        _ => None,
    };
    let names: Vec<String> = match v {
        Value::Array(a) => a.iter().filter_map(one).collect(),
        v => one(v).into_iter().collect(),
    };
    let mut unique: Vec<String> = Vec::new();
    for n in names {
        if !unique.contains(&n) {
            unique.push(n);
        }
    }
    (!unique.is_empty()).then(|| unique.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_bytes_lean;

    fn meta_of(html: &str, url: &str) -> Metadata {
        let doc = parse_bytes_lean(html.as_bytes(), None);
        page_metadata(&doc, Url::parse(url).ok().as_ref())
    }

    #[test]
    fn structured_data_first() {
        let html = r#"<html lang="en-GB"><head><title>Fall trends | Scratch</title>
            <meta property="og:site_name" content="Scratch">
            <meta name="author" content="Someone Else">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
              {"@type":"WebSite","name":"Scratch"},
              {"@type":"BlogPosting","headline":"Fall trends","datePublished":"2025-09-04T10:00:00+00:00",
               "author":[{"@type":"Person","name":"Andrew King"},{"@type":"Person","name":"Ann Lee"}]}]}
            </script></head><body><header><h1>Scratch</h1></header>
            <article><h1>Fall trends</h1><p>Text.</p></article></body></html>"#;
        let m = meta_of(html, "https://example.com/post");
        assert_eq!(m.title.as_deref(), Some("Fall trends"));
        assert_eq!(m.author.as_deref(), Some("Andrew King, Ann Lee"));
        assert_eq!(m.date.as_deref(), Some("2025-09-04"));
        assert_eq!(m.language.as_deref(), Some("en"));
    }

    #[test]
    fn meta_tags_then_the_visible_page_then_the_url() {
        let html = r#"<html><head><title>A post - Blog - Site</title>
            <meta name="author" content="By Jane Doe"></head>
            <body><h1>Site</h1><h2>A post</h2><span class="posted-on">March 3rd, 2021</span></body></html>"#;
        let m = meta_of(html, "https://example.com/2020/01/02/a-post");
        // The `<h1>` is the site's name, named by no part of the title but the last.
        assert_eq!(m.title.as_deref(), Some("A post"));
        assert_eq!(m.author.as_deref(), Some("Jane Doe"));
        // The date the reader sees by the headline, before the one in the URL.
        assert_eq!(m.date.as_deref(), Some("2021-03-03"));
        assert_eq!(m.language, None);
        let m = meta_of(
            "<h1>A post</h1><p>Text.</p>",
            "https://example.com/2020/01/02/a-post",
        );
        assert_eq!(m.date.as_deref(), Some("2020-01-02"));
        let html = r#"<html><body><div class="byline">By Byron Smith</div>
            <div class="entry-date">Posted 28 May 2024</div></body></html>"#;
        let m = meta_of(html, "https://example.com/x");
        assert_eq!(m.author.as_deref(), Some("Byron Smith"));
        assert_eq!(m.date.as_deref(), Some("2024-05-28"));
    }

    #[test]
    fn dates() {
        assert_eq!(
            parse_date("2024-05-28T10:00").as_deref(),
            Some("2024-05-28")
        );
        assert_eq!(parse_date("on 2024/5/28").as_deref(), None);
        assert_eq!(parse_date("Sept 4, 2025").as_deref(), Some("2025-09-04"));
        assert_eq!(
            parse_date("4th September 2025").as_deref(),
            Some("2025-09-04")
        );
        assert_eq!(parse_date("marketing 4 2025"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date(""), None);
    }

    #[test]
    fn full_parse_keeps_json_ld_in_the_tree() {
        let html = r#"<script type="application/ld+json">{"@type":"NewsArticle","author":"Kim Lee"}</script><p>x</p>"#;
        let doc = crate::dom::parse_bytes(html.as_bytes(), None);
        assert_eq!(page_metadata(&doc, None).author.as_deref(), Some("Kim Lee"));
        // Broken JSON is no metadata, not an error.
        let doc = parse_bytes_lean(
            br#"<script type="application/ld+json">{"@type":</script>"#,
            None,
        );
        assert_eq!(page_metadata(&doc, None), Metadata::default());
    }
}
