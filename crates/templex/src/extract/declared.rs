//! What a page declares of itself in its `<head>`: its type and its title.

use markup5ever::local_name;

use crate::dom::Document;

/// Whether the page says it is an article (`og:type` `article`): then lists beside the
/// prose are related stories, not the content. Unless its structured data names it a
/// collection or search results (`CollectionPage`, `SearchResultsPage`): SEO plugins give
/// every page of a site `og:type` `article`, and their JSON-LD the page's real type.
pub(crate) fn declares_article(doc: &Document) -> bool {
    open_graph(doc, "og:type").is_some_and(|t| t.eq_ignore_ascii_case("article"))
        && !declares_collection(doc)
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
        Some("article") => return false,
        _ => {}
    }
    let described: usize = json_ld(doc)
        .iter()
        .filter(|s| s.contains("Product"))
        .map(|s| top_level_products(s))
        .sum();
    described == 1
}

/// Whether a schema.org type (`Product`, `https://schema.org/Product`) is a product's.
fn is_product_type(t: &str) -> bool {
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
/// array or of its `@graph`) are products; 0 when the text is no JSON.
fn top_level_products(ld: &str) -> usize {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(ld) else {
        return 0;
    };
    let mut stack = vec![&value];
    let mut products = 0;
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(o) => {
                if let Some(graph) = o.get("@graph") {
                    stack.push(graph);
                }
                let named = |t: &serde_json::Value| t.as_str().is_some_and(is_product_type);
                products += usize::from(match o.get("@type") {
                    Some(serde_json::Value::Array(types)) => types.iter().any(named),
                    Some(t) => named(t),
                    None => false,
                });
            }
            _ => {}
        }
    }
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
