//! What a page declares of itself in its `<head>`: its type and its title.

use markup5ever::local_name;

use crate::dom::Document;

/// Whether the page says it is an article (`og:type` `article`): then lists beside the
/// prose are related stories, not the content. SEO plugins give every page of a site
/// `og:type` `article`, and their JSON-LD the page's real type: not an article when that
/// names it a collection or search results (`CollectionPage`, `SearchResultsPage`) or a
/// discussion (`DiscussionForumPosting`, `QAPage`: the replies are content), or a web page
/// and no piece of writing while the page states no `article:published_time` (plugins
/// state it for posts; older ones describe posts as a `WebPage` alone).
pub(crate) fn declares_article(doc: &Document) -> bool {
    open_graph(doc, "og:type").is_some_and(|t| t.eq_ignore_ascii_case("article"))
        && !declares_collection(doc)
        && !declares_discussion(doc)
        && (open_graph(doc, "article:published_time").is_some() || !declares_plain_page(doc))
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

/// Whether the page's JSON-LD describes it as a web page and names no piece of writing,
/// as any entity's `@type`: SEO plugins give a site's pages the same `og:type` as its
/// posts, and their JSON-LD an `Article` for posts only.
fn declares_plain_page(doc: &Document) -> bool {
    let (mut page, mut article) = (false, false);
    for t in json_ld(doc).iter().flat_map(|ld| ld_types(ld)) {
        page |= t.ends_with("Page");
        article |= ARTICLE_TYPES.contains(&t);
    }
    page && !article
}

/// Whether the page's JSON-LD describes a discussion (a forum thread, a question and its
/// answers), as any entity's `@type`.
fn declares_discussion(doc: &Document) -> bool {
    json_ld(doc)
        .iter()
        .flat_map(|ld| ld_types(ld))
        .any(|t| DISCUSSION_TYPES.contains(&t))
}

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
/// products describes several, or none but a list). Then what customers say of the product
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
    let described: usize = json_ld(doc)
        .iter()
        .filter(|s| s.contains("Product"))
        .map(|s| top_level_products(s))
        .sum();
    described == 1
}

/// JSON-LD types of a product's own page.
const PRODUCT_TYPES: &[&str] = &[
    "Product",
    "ProductGroup",
    "IndividualProduct",
    "ProductModel",
];

/// Calls `visit` with the `@type`s of each of a JSON-LD text's top-level entities (the
/// text's object, the members of its array or of its `@graph`; `https://schema.org/Product`
/// is `Product`); none when the text is no JSON.
fn top_level_types(ld: &str, mut visit: impl FnMut(&mut dyn Iterator<Item = &str>)) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(ld) else {
        return;
    };
    let mut stack = vec![&value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(o) => {
                if let Some(graph) = o.get("@graph") {
                    stack.push(graph);
                }
                let types = match o.get("@type") {
                    Some(serde_json::Value::Array(types)) => types.as_slice(),
                    Some(t) => std::slice::from_ref(t),
                    None => &[],
                };
                visit(
                    &mut types
                        .iter()
                        .filter_map(|t| t.as_str())
                        .map(|t| t.rsplit('/').next().unwrap_or(t)),
                );
            }
            _ => {}
        }
    }
}

/// How many of a JSON-LD text's top-level entities are products.
fn top_level_products(ld: &str) -> usize {
    let mut products = 0;
    top_level_types(ld, |types| {
        let mut product = false;
        for t in types {
            product |= PRODUCT_TYPES.contains(&t);
        }
        products += usize::from(product);
    });
    products
}

/// JSON-LD types that make a page a list of other pages.
const COLLECTION_TYPES: &[&str] = &["\"CollectionPage\"", "\"SearchResultsPage\""];

/// Whether the page's JSON-LD names a collection page type: as a quoted string it is a
/// `@type` (schema.org names no other value so), and an article's graph names its page a
/// `WebPage` or an `ItemPage`.
fn declares_collection(doc: &Document) -> bool {
    json_ld(doc)
        .iter()
        .any(|s| COLLECTION_TYPES.iter().any(|t| s.contains(t)))
}

/// The texts of the page's JSON-LD scripts: what a lean parse cut from the tree and kept
/// aside, else (a full parse) the scripts in the tree.
pub(super) fn json_ld(doc: &Document) -> std::borrow::Cow<'_, [String]> {
    if !doc.json_ld.is_empty() {
        return std::borrow::Cow::Borrowed(&doc.json_ld);
    }
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
        .collect::<Vec<_>>()
        .into()
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
