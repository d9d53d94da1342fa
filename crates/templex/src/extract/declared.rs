//! What a page declares of itself in its `<head>`: its type and its title.

use markup5ever::local_name;

use url::Url;

use crate::dom::{Document, NodeId};

/// Whether the page says it is an article (`og:type` `article`): then lists beside the
/// prose are related stories, not the content. SEO plugins give every page of a site
/// `og:type` `article`, and their JSON-LD the page's real type: not an article when that
/// names it a collection or search results (`CollectionPage`, `SearchResultsPage`) or a
/// discussion (`DiscussionForumPosting`, `QAPage`: the replies are content), when its
/// template names it an archive ([`names_archive_view`]: a category's list of posts), or a
/// web page or a list (`ItemList`: a buying guide's picks) and no piece of writing while the
/// page states no `article:published_time` (plugins state it for posts; older ones describe
/// posts as a `WebPage` alone).
pub(crate) fn declares_article(doc: &Document) -> bool {
    if !open_graph(doc, "og:type").is_some_and(|t| t.eq_ignore_ascii_case("article")) {
        return false;
    }
    let ld = LdKinds::of(doc);
    let plain_page = (ld.page || ld.list) && !ld.writing;
    !ld.collection
        && !ld.discussion
        && !names_archive_view(doc)
        && (!plain_page || open_graph(doc, "article:published_time").is_some())
}

/// Whether the template that rendered the page names it an archive or search results on its
/// `<body>`, as WordPress's `body_class()` does for its stylesheets (`archive category`,
/// `search search-results`): a list of posts, whatever `og:type` an SEO plugin states.
fn names_archive_view(doc: &Document) -> bool {
    doc.body()
        .and_then(|b| doc.element(b))
        .and_then(|e| e.attr("class"))
        .is_some_and(|c| {
            c.split_ascii_whitespace()
                .any(|t| t == "archive" || t == "search-results")
        })
}

/// Whether the page says it is a discussion: its JSON-LD describes one
/// (`DiscussionForumPosting`, `QAPage`), or its address — `url`, where the caller fetched
/// it, or the one it names for itself ([`document_url`]) — is a thread's
/// ([`names_thread`]).
pub(crate) fn declares_discussion(doc: &Document, url: Option<&Url>) -> bool {
    LdKinds::of(doc).discussion
        || url.is_some_and(names_thread)
        || document_url(doc).is_some_and(|u| names_thread(&u))
        || names_thread_view(doc)
}

/// Whether the forum software that rendered the page names it a thread's view on its
/// `<html>` or `<body>`, as templates do for their stylesheets: XenForo's
/// `data-template="thread_view"`, phpBB's `section-viewtopic`, NodeBB's `template-topic`,
/// Invision's `data-pagecontroller="topic"`. A page without a canonical address or
/// JSON-LD (phpBB's, often) still says what it is.
fn names_thread_view(doc: &Document) -> bool {
    let attr_is = |id, name: &str, value: &str| {
        doc.element(id)
            .and_then(|e| e.attr(name))
            .is_some_and(|v| v.eq_ignore_ascii_case(value))
    };
    let class_has = |id, token: &str| {
        doc.element(id)
            .and_then(|e| e.attr("class"))
            .is_some_and(|c| c.split_ascii_whitespace().any(|t| t == token))
    };
    doc.html()
        .is_some_and(|h| attr_is(h, "data-template", "thread_view"))
        || doc.body().is_some_and(|b| {
            class_has(b, "section-viewtopic")
                || class_has(b, "template-topic")
                || attr_is(b, "data-pagecontroller", "topic")
        })
}

/// Whether a URL is a thread's as forum software lays them out: a `topic`, `thread` or
/// `discussion` path with a number after it (NodeBB's `/topic/18427/…`, XenForo's
/// `/threads/title.115684/`, Vanilla's `/discussion/39620/…`), Discourse's
/// `/t/title/117253`, Flarum's `/d/2068-title`, Stack Exchange's `/questions/780353/…`,
/// Reddit's `/r/x/comments/…`, phpBB's `viewtopic.php`, vBulletin's `showthread.php`,
/// Invision's `?/topic/…`, SMF's `?topic=589061.0`. A section's `/topic/cloud/` (no
/// number) is a listing of articles.
fn names_thread(url: &Url) -> bool {
    let segments: Vec<String> = url
        .path_segments()
        .map(|s| {
            s.filter(|s| !s.is_empty())
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default();
    let has_digit = |s: &[String]| s.iter().any(|s| s.bytes().any(|b| b.is_ascii_digit()));
    let starts_with_number = |s: &str| {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && matches!(s.as_bytes().get(digits), None | Some(b'-'))
    };
    let by_path = segments.iter().enumerate().any(|(i, s)| {
        let rest = &segments[i + 1..];
        match s.as_str() {
            "topic" | "thread" | "threads" | "discussion" | "discussions" | "showtopic" => {
                has_digit(rest)
            }
            "t" => rest
                .get(1)
                .is_some_and(|id| id.bytes().all(|b| b.is_ascii_digit())),
            "d" => rest.first().is_some_and(|id| starts_with_number(id)),
            "questions" => rest
                .first()
                .is_some_and(|id| id.bytes().all(|b| b.is_ascii_digit())),
            "comments" => i > 0 && !rest.is_empty(),
            "viewtopic.php" | "showthread.php" | "showtopic.php" => true,
            _ => false,
        }
    });
    let query = url.query().unwrap_or("").to_ascii_lowercase();
    by_path
        || (query.starts_with("/topic/") && query.bytes().any(|b| b.is_ascii_digit()))
        || query.split('&').any(|kv| {
            kv.strip_prefix("topic=")
                .is_some_and(|v| v.bytes().next().is_some_and(|b| b.is_ascii_digit()))
        })
}

/// The absolute http(s) URL a page names for itself, if any.
pub(crate) fn document_url(doc: &Document) -> Option<Url> {
    let head = doc.head()?;
    doc.descendants(head).find_map(|id| {
        let e = doc.element(id)?;
        let href = if e.is(&local_name!("link"))
            && e.attr("rel").is_some_and(|r| {
                r.split_whitespace()
                    .any(|t| t.eq_ignore_ascii_case("canonical"))
            }) {
            e.attr("href")
        } else if e.is(&local_name!("meta")) && e.attr("property") == Some("og:url") {
            e.attr("content")
        } else {
            None
        }?;
        Url::parse(href.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
    })
}

/// What a page's JSON-LD says it is, read from its `@type`s wherever they stand.
#[derive(Default)]
struct LdKinds {
    /// A web page (`WebPage`, `ItemPage`, `AboutPage`…: a type ending in `Page`).
    page: bool,
    /// A piece of writing ([`ARTICLE_TYPES`]).
    writing: bool,
    /// A discussion ([`DISCUSSION_TYPES`]): a thread's replies are its content.
    discussion: bool,
    /// A list of other pages ([`COLLECTION_TYPES`]).
    collection: bool,
    /// A list of things (`ItemList`): a listicle's items when writing comes with it, a
    /// listing's when nothing else does.
    list: bool,
}

impl LdKinds {
    fn of(doc: &Document) -> LdKinds {
        let mut k = LdKinds::default();
        for t in json_ld(doc).iter().flat_map(|ld| ld_types(ld)) {
            k.page |= t.ends_with("Page");
            k.writing |= ARTICLE_TYPES.contains(&t);
            k.discussion |= DISCUSSION_TYPES.contains(&t);
            k.collection |= COLLECTION_TYPES.contains(&t);
            k.list |= t == "ItemList";
        }
        k
    }
}

/// schema.org's types of a piece of writing.
const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "LiveBlogPosting",
    "Report",
    "ScholarlyArticle",
    "TechArticle",
    "OpinionNewsArticle",
    "AnalysisNewsArticle",
    "ReportageNewsArticle",
    "ReviewNewsArticle",
    "BackgroundNewsArticle",
    "SocialMediaPosting",
    "Review",
    "Recipe",
    "HowTo",
];

/// schema.org's types of a discussion: a thread's replies are its content.
const DISCUSSION_TYPES: &[&str] = &["DiscussionForumPosting", "QAPage"];

/// The values of a JSON-LD text's `@type` keys, wherever they stand, read without parsing
/// it (a lean scan of what may be megabytes of invalid JSON): a string, or the strings of
/// an array; `https://schema.org/WebPage` is `WebPage`.
fn ld_types(ld: &str) -> impl Iterator<Item = &str> {
    ld.match_indices("\"@type\"").flat_map(move |(i, key)| {
        let rest = ld[i + key.len()..].trim_start();
        let rest = rest.strip_prefix(':').unwrap_or("").trim_start();
        let value = match rest.strip_prefix('[') {
            Some(list) => &list[..list.find(']').unwrap_or(list.len())],
            None => &rest[..rest.find([',', '}']).unwrap_or(rest.len())],
        };
        value
            .split(',')
            .map(|v| v.trim().trim_matches('"'))
            .map(|v| v.rsplit('/').next().unwrap_or(v))
    })
}

/// Whether the page says it is one product's page: `og:type` `product` (`product.item`),
/// or its JSON-LD describes one product among its top-level entities (a page that lists
/// products describes several, or none but a list), and one that is sold: a bare `Product`
/// with a rating is a search snippet any page may carry. Then what customers say of the product
/// and the other products the page shows are not its content.
pub(crate) fn declares_product(doc: &Document) -> bool {
    let og = open_graph(doc, "og:type").map(|t| t.to_ascii_lowercase());
    match og.as_deref() {
        Some("product" | "product.item" | "og:product") => return true,
        // A group of products is a collection.
        Some(t) if t.starts_with("product") => return false,
        // SEO plugins call every page an article; a page that sells also says what it sells.
        Some("article") if declares_article(doc) => return false,
        _ => {}
    }
    let (described, sold) = json_ld(doc)
        .iter()
        .filter(|s| s.contains("Product"))
        .map(|s| top_level_products(s))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    // The JSON-LD, where it names products, is the page's word; else its microdata.
    if described > 0 {
        described == 1 && sold == 1
    } else {
        microdata_products(doc) == 1
    }
}

/// How many outermost microdata items (`itemscope`, not inside another item) of the page
/// are products (`itemtype="https://schema.org/Product"`): a page that describes itself so
/// and not in JSON-LD (Steam's store pages, a watch maker's).
fn microdata_products(doc: &Document) -> usize {
    let Some(body) = doc.body() else {
        return 0;
    };
    let mut products = 0;
    let end = doc.subtree(body).end;
    let mut i = body.0 + 1;
    while i < end {
        let id = NodeId(i);
        i += 1;
        let Some(e) = doc.element(id).filter(|e| e.attr("itemscope").is_some()) else {
            continue;
        };
        // Items inside an item are its parts (a product's offer, a list's products).
        i = doc.subtree(id).end;
        products += usize::from(
            e.attr("itemtype")
                .is_some_and(|t| t.split_whitespace().any(is_product_type)),
        );
    }
    products
}

/// Whether a schema.org type, bare or as its URL (`https://schema.org/Product`), is one of
/// [`PRODUCT_TYPES`].
fn is_product_type(t: &str) -> bool {
    let t = t.trim_end_matches('/');
    PRODUCT_TYPES.contains(&t.rsplit('/').next().unwrap_or(t))
}

/// JSON-LD types of a product's own page.
const PRODUCT_TYPES: &[&str] = &[
    "Product",
    "ProductGroup",
    "IndividualProduct",
    "ProductModel",
];

/// How many of a JSON-LD text's top-level entities (the text's object, the members of its
/// array or of its `@graph`) are products (`https://schema.org/Product` is `Product`), and
/// how many of those are sold ([`SOLD_ITEM_KEYS`]); none when the text is no JSON.
fn top_level_products(ld: &str) -> (usize, usize) {
    let mut products = (0, 0);
    each_top_level_product(ld, |o| {
        products.0 += 1;
        products.1 += usize::from(is_sold(o));
    });
    products
}

/// Whether a product entity is one that is sold ([`SOLD_ITEM_KEYS`]).
fn is_sold(o: &serde_json::Map<String, serde_json::Value>) -> bool {
    SOLD_ITEM_KEYS.iter().any(|k| o.contains_key(*k))
}

/// Calls `f` with each product entity among the top-level entities of one JSON-LD text
/// (in `@graph`s and arrays, not inside other entities); nothing when it is no JSON.
fn each_top_level_product(
    ld: &str,
    mut f: impl FnMut(&serde_json::Map<String, serde_json::Value>),
) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(ld) else {
        return;
    };
    let is_product = |t: &serde_json::Value| t.as_str().is_some_and(is_product_type);
    let mut stack = vec![&value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(o) => {
                if let Some(graph) = o.get("@graph") {
                    stack.push(graph);
                }
                if match o.get("@type") {
                    Some(serde_json::Value::Array(types)) => types.iter().any(is_product),
                    Some(t) => is_product(t),
                    None => false,
                } {
                    f(o);
                }
            }
            _ => {}
        }
    }
}

/// The description a page's JSON-LD gives its product (a sold one, at the top level), as
/// text: markup in it removed. The first such, if any.
pub(crate) fn product_description(doc: &Document) -> Option<String> {
    let mut found = None;
    for ld in json_ld(doc) {
        each_top_level_product(ld, |o| {
            if found.is_none() && is_sold(o) {
                found = o
                    .get("description")
                    .and_then(serde_json::Value::as_str)
                    .map(without_markup);
            }
        });
        if found.is_some() {
            break;
        }
    }
    found
}

/// `text` without the tags shops write into their JSON-LD descriptions (`<p>`, `<br>`), a
/// space for each.
fn without_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Properties of a product that is sold: an offer, an identifier, variants. A `Product`
/// with only a name, a description and a rating is a star-rating snippet for search
/// engines, which service pages and local businesses add too (pestrus.com's pest control).
const SOLD_ITEM_KEYS: &[&str] = &[
    "offers",
    "sku",
    "gtin",
    "gtin8",
    "gtin12",
    "gtin13",
    "gtin14",
    "mpn",
    "model",
    "hasVariant",
    "productGroupID",
];

/// JSON-LD types that make a page a list of other pages (an article's graph names its
/// page a `WebPage` or an `ItemPage`).
const COLLECTION_TYPES: &[&str] = &["CollectionPage", "SearchResultsPage"];

/// The texts of the page's JSON-LD scripts: what a lean parse cut from the tree and kept
/// aside, else (a full parse) the scripts in the tree, read on the first call.
pub(super) fn json_ld(doc: &Document) -> &[String] {
    doc.json_ld.get_or_init(|| {
        doc.elements()
            .filter(|id| {
                doc.element(*id).is_some_and(|el| {
                    el.is(&local_name!("script"))
                        && el
                            .attr("type")
                            .is_some_and(|t| t.to_ascii_lowercase().contains("ld+json"))
                })
            })
            .map(|id| doc.text_content(id))
            .collect()
    })
}

/// The `content` of the first `<meta property="og:…">` of that name.
pub(super) fn open_graph(doc: &Document, property: &str) -> Option<String> {
    doc.metas().iter().find_map(|e| {
        let el = doc.element(*e)?;
        el.attr("property")
            .is_some_and(|p| p == property)
            .then(|| el.attr("content").map(crate::dom::collapse_whitespace))
            .flatten()
            .filter(|t| !t.is_empty())
    })
}

/// `og:title`, else `<title>`, else the first `<h1>`.
pub(crate) fn page_title(doc: &Document) -> Option<String> {
    let og = open_graph(doc, "og:title");
    og.or_else(|| doc.title()).or_else(|| {
        let h1 = doc.find_element(&local_name!("h1"))?;
        let t = crate::dom::collapse_whitespace(&doc.visible_text(h1));
        (!t.is_empty()).then_some(t)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forum software's thread addresses name a thread; a section, a topic index or a
    /// shop's `/t/` path do not.
    #[test]
    fn thread_addresses_are_known_by_their_shape() {
        let is = |u: &str| names_thread(&Url::parse(u).unwrap());
        for u in [
            "https://community.nodebb.org/topic/18427/rc1-of-nodebb-v4",
            "https://www.usingenglish.com/forum/threads/car-rental-or-car-rent.115684/",
            "https://open.vanillaforums.com/discussion/39620/higher-logic",
            "https://answers.netlify.com/t/deploy-failed-for-unknown-reason/117253",
            "https://discuss.flarum.org/d/2068-types-of-threads",
            "https://unix.stackexchange.com/questions/780353/join-files",
            "https://www.reddit.com/r/Cooking/comments/1rl0nt4/enameled_cast_iron/",
            "https://forum.nationstates.net/viewtopic.php?f=20&t=487157",
            "https://forum.doom9.org/showthread.php?t=186269",
            "https://forum.affinity.serif.com/index.php?/topic/201820-ai-discussion/",
            "https://www.simplemachines.org/community/index.php?topic=589061.0",
        ] {
            assert!(is(u), "{u}");
        }
        for u in [
            "https://www.ciodive.com/topic/cloud/",
            "https://www.britannica.com/topic/history-of-coffee",
            "https://github.com/topics/machine-learning",
            "https://www.nike.com/t/pegasus-41-mens-road-running-shoes-LMhfRGdO",
            "https://www.eventbrite.com/d/online/tech-conferences/",
            "https://stackoverflow.com/questions/tagged/rust",
            "https://example.com/comments",
            "https://example.com/index.php?topic=news",
        ] {
            assert!(!is(u), "{u}");
        }
    }
}
