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
