//! CSS selectors on the arena DOM, through Servo's `selectors` crate.
//!
//! The gold standard names content regions by CSS selectors, so the evaluator (and anyone
//! embedding templex) needs `querySelectorAll` on a [`Document`]. Rather than a home-grown
//! matcher with its own corner cases, this module implements the `selectors` crate's
//! [`Element`](selectors::Element) trait for a `(&Document, NodeId)` handle and lets Servo's
//! engine do parsing and matching (it walks ancestors and siblings in loops, so deep pages are
//! safe).
//!
//! Supported: type and universal selectors, `#id`, `.class`, all attribute operators
//! (`[a]`, `=`, `~=`, `^=`, `$=`, `*=`, `|=`, with the `i`/`s` flags), the four combinators,
//! the tree-structural pseudo-classes (`:first-child`, `:last-child`, `:only-child`,
//! `:nth-child()`, `:nth-last-child()`, `:nth-of-type()`, `:first-of-type`, `:root`,
//! `:empty`, …, including `:nth-child(An+B of S)`), `:not()`, `:is()`, `:where()` and
//! comma-separated lists. State pseudo-classes (`:hover`, `:visited`), pseudo-elements and
//! `:has()` are rejected at parse time, because a static page has no state and a selector
//! that silently never matches would corrupt a gold standard without anyone noticing.

use std::borrow::Borrow;
use std::fmt;

use cssparser::{ParseError, ToCss};
use markup5ever::{LocalName, Namespace, local_name, ns};
use precomputed_hash::PrecomputedHash;
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::context::{
    MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::matching::{ElementSelectorFlags, matches_selector_list};
use selectors::parser::{ParseRelative, SelectorList, SelectorParseErrorKind};
use selectors::{OpaqueElement, SelectorImpl};

use super::tree::{Document, NodeData, NodeId};

/// A CSS selector (list) that failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid CSS selector {css:?}: {message}")]
pub struct SelectorError {
    /// The selector text as given.
    pub css: String,
    /// What the parser objected to.
    pub message: String,
}

/// A compiled selector list: parse once, match against many documents and elements.
#[derive(Clone)]
pub struct Selector {
    css: String,
    list: SelectorList<Simple>,
}

impl fmt::Debug for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Selector").field(&self.css).finish()
    }
}

impl Selector {
    /// Parse a comma-separated selector list. Fails on syntax errors and on pseudo-classes or
    /// pseudo-elements that a static document cannot match.
    pub fn parse(css: &str) -> Result<Selector, SelectorError> {
        let mut parser = cssparser::Parser::new(css);
        let list = SelectorList::parse(&SelectorParser, &mut parser, ParseRelative::No)
            .map_err(|e| selector_error(css, e))?;
        Ok(Selector {
            css: css.to_string(),
            list,
        })
    }

    /// The selector text this was parsed from.
    pub fn as_str(&self) -> &str {
        &self.css
    }

    /// Whether element `id` of `doc` matches any selector of the list (`false` for
    /// non-elements).
    pub fn matches(&self, doc: &Document, id: NodeId) -> bool {
        if id.index() >= doc.len() || doc.element(id).is_none() {
            return false;
        }
        let mut caches = SelectorCaches::default();
        let mut ctx = matching_context(&mut caches);
        matches_selector_list(&self.list, El { doc, id }, &mut ctx)
    }

    /// All elements of `doc` matching any selector of the list, in document order.
    pub fn select(&self, doc: &Document) -> Vec<NodeId> {
        // One context for the whole scan, so the nth-index cache is shared between siblings
        // and `:nth-child` stays linear instead of quadratic in the number of siblings.
        let mut caches = SelectorCaches::default();
        let mut ctx = matching_context(&mut caches);
        doc.ids()
            .filter(|&id| {
                doc.element(id).is_some()
                    && matches_selector_list(&self.list, El { doc, id }, &mut ctx)
            })
            .collect()
    }
}

/// Elements of `doc` matching any selector of the comma-separated list `css`, in document
/// order (like `querySelectorAll`).
pub fn select(doc: &Document, css: &str) -> Result<Vec<NodeId>, SelectorError> {
    Ok(Selector::parse(css)?.select(doc))
}

fn matching_context(caches: &mut SelectorCaches) -> MatchingContext<'_, Simple> {
    // Pages are matched in no-quirks mode: class and id names case-sensitive, as in every
    // standards-mode page, which is what the gold selectors were written against.
    MatchingContext::new(
        MatchingMode::Normal,
        None,
        caches,
        QuirksMode::NoQuirks,
        NeedsSelectorFlags::No,
        MatchingForInvalidation::No,
    )
}

fn selector_error(css: &str, e: ParseError<SelectorParseErrorKind>) -> SelectorError {
    // cssparser's errors carry no position (kept small for speed); the kind is all there is.
    let message = match &e.kind {
        cssparser::ParseErrorKind::Basic(b) => b.to_string(),
        cssparser::ParseErrorKind::Custom(c) => format!("{c:?}"),
    };
    SelectorError {
        css: css.to_string(),
        message,
    }
}

// ---------------------------------------------------------------------------------------------
// The `SelectorImpl`: which string types selectors are parsed into.

/// The selector implementation: HTML names as markup5ever atoms (so name tests are pointer
/// comparisons), ids, classes and attribute values as plain strings.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Simple;

impl SelectorImpl for Simple {
    type ExtraMatchingData<'a> = ();
    type AttrValue = CssString;
    type Identifier = CssString;
    type LocalName = CssLocalName;
    type NamespaceUrl = CssNamespace;
    type NamespacePrefix = CssString;
    type BorrowedNamespaceUrl = Namespace;
    type BorrowedLocalName = LocalName;
    type NonTSPseudoClass = NoPseudoClass;
    type PseudoElement = NoPseudoElement;
}

/// A string as parsed out of a selector (identifier, attribute value, namespace prefix).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct CssString(Box<str>);

impl From<&str> for CssString {
    fn from(s: &str) -> Self {
        CssString(s.into())
    }
}

impl AsRef<str> for CssString {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl ToCss for CssString {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_identifier(&self.0, dest)
    }
}

impl PrecomputedHash for CssString {
    fn precomputed_hash(&self) -> u32 {
        // Only the (unused) Bloom filter consumes this; FNV-1a is enough and needs no state.
        self.0.bytes().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
    }
}

/// An element or attribute local name, interned like the DOM's own names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct CssLocalName(LocalName);

impl From<&str> for CssLocalName {
    fn from(s: &str) -> Self {
        CssLocalName(LocalName::from(s))
    }
}

impl Borrow<LocalName> for CssLocalName {
    fn borrow(&self) -> &LocalName {
        &self.0
    }
}

impl ToCss for CssLocalName {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_identifier(&self.0, dest)
    }
}

impl PrecomputedHash for CssLocalName {
    fn precomputed_hash(&self) -> u32 {
        self.0.precomputed_hash()
    }
}

/// A namespace URL (empty for "no namespace").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct CssNamespace(Namespace);

impl Borrow<Namespace> for CssNamespace {
    fn borrow(&self) -> &Namespace {
        &self.0
    }
}

impl PrecomputedHash for CssNamespace {
    fn precomputed_hash(&self) -> u32 {
        self.0.precomputed_hash()
    }
}

/// No non-tree-structural pseudo-classes are supported (a static page has no `:hover`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum NoPseudoClass {}

impl ToCss for NoPseudoClass {
    fn to_css<W: fmt::Write>(&self, _dest: &mut W) -> fmt::Result {
        match *self {}
    }
}

impl selectors::parser::NonTSPseudoClass for NoPseudoClass {
    fn is_active_or_hover(&self) -> bool {
        match *self {}
    }

    fn is_user_action_state(&self) -> bool {
        match *self {}
    }
}

/// No pseudo-elements: they select boxes, not DOM elements.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NoPseudoElement {}

impl ToCss for NoPseudoElement {
    fn to_css<W: fmt::Write>(&self, _dest: &mut W) -> fmt::Result {
        match *self {}
    }
}

impl selectors::parser::PseudoElement for NoPseudoElement {}

/// The parser configuration: enables `:is()`, `:where()` and `:nth-child(… of S)`.
struct SelectorParser;

impl<'i> selectors::parser::Parser<'i> for SelectorParser {
    type Impl = Simple;
    type Error = SelectorParseErrorKind;

    fn parse_is_and_where(&self) -> bool {
        true
    }

    fn parse_nth_child_of(&self) -> bool {
        true
    }

    // A typo inside `:is()` must be an error, not a silently empty alternative.
    fn allow_forgiving_selectors(&self) -> bool {
        false
    }
}

// ---------------------------------------------------------------------------------------------
// The element handle.

/// An element of a document, as the matching engine sees it.
#[derive(Clone, Copy)]
struct El<'a> {
    doc: &'a Document,
    id: NodeId,
}

impl fmt::Debug for El<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.doc.tag(self.id) {
            Some(tag) => write!(f, "<{tag}>#{}", self.id.0),
            None => write!(f, "node#{}", self.id.0),
        }
    }
}

impl<'a> El<'a> {
    fn element(&self) -> &'a super::tree::Element {
        // Handles are only ever made for element ids (checked where they are created).
        match &self.doc.node(self.id).data {
            NodeData::Element(e) => e,
            _ => unreachable!("El handle on a non-element node"),
        }
    }

    fn at(&self, id: NodeId) -> Option<El<'a>> {
        self.doc.element(id).map(|_| El { doc: self.doc, id })
    }
}

/// The sibling before `id`, found without scanning the parent's children: in document order
/// the node just before `id` is either its parent or the last node of its previous sibling's
/// subtree, from which the sibling is reached by climbing.
fn prev_sibling(doc: &Document, id: NodeId) -> Option<NodeId> {
    let parent = doc.parent(id)?;
    if id.0 == parent.0 + 1 {
        return None;
    }
    let mut n = NodeId(id.0 - 1);
    loop {
        let p = doc.parent(n)?;
        if p == parent {
            return Some(n);
        }
        n = p;
    }
}

impl selectors::Element for El<'_> {
    type Impl = Simple;

    fn opaque(&self) -> OpaqueElement {
        // Nodes never move inside a document, so the node's address is a stable identity.
        OpaqueElement::new(self.doc.node(self.id))
    }

    fn parent_element(&self) -> Option<Self> {
        self.at(self.doc.parent(self.id)?)
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        let mut n = prev_sibling(self.doc, self.id)?;
        loop {
            if let Some(e) = self.at(n) {
                return Some(e);
            }
            n = prev_sibling(self.doc, n)?;
        }
    }

    fn next_sibling_element(&self) -> Option<Self> {
        let mut n = self.doc.next_sibling(self.id)?;
        loop {
            if let Some(e) = self.at(n) {
                return Some(e);
            }
            n = self.doc.next_sibling(n)?;
        }
    }

    fn first_element_child(&self) -> Option<Self> {
        let first = self.doc.element_children(self.id).next()?;
        self.at(first)
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.element().name.ns == ns!(html)
    }

    fn has_local_name(&self, local_name: &LocalName) -> bool {
        self.element().name.local == *local_name
    }

    fn has_namespace(&self, ns: &Namespace) -> bool {
        self.element().name.ns == *ns
    }

    fn is_same_type(&self, other: &Self) -> bool {
        let (a, b) = (&self.element().name, &other.element().name);
        a.local == b.local && a.ns == b.ns
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&CssNamespace>,
        local_name: &CssLocalName,
        operation: &AttrSelectorOperation<&CssString>,
    ) -> bool {
        self.element().attrs.iter().any(|a| {
            a.name.local == local_name.0
                && match ns {
                    NamespaceConstraint::Any => true,
                    NamespaceConstraint::Specific(url) => a.name.ns == url.0,
                }
                && operation.eval_str(&a.value)
        })
    }

    fn match_non_ts_pseudo_class(
        &self,
        pc: &NoPseudoClass,
        _context: &mut MatchingContext<Simple>,
    ) -> bool {
        match *pc {}
    }

    fn match_pseudo_element(
        &self,
        pe: &NoPseudoElement,
        _context: &mut MatchingContext<Simple>,
    ) -> bool {
        match *pe {}
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        let e = self.element();
        (e.is(&local_name!("a")) || e.is(&local_name!("area")) || e.is(&local_name!("link")))
            && e.attr("href").is_some()
    }

    fn is_html_slot_element(&self) -> bool {
        false
    }

    fn has_id(&self, id: &CssString, case_sensitivity: CaseSensitivity) -> bool {
        // The raw attribute, not `Element::id()` (which trims): `#a` must not match `id=" a"`.
        self.element()
            .attr("id")
            .is_some_and(|v| case_sensitivity.eq(v.as_bytes(), id.0.as_bytes()))
    }

    fn has_class(&self, name: &CssString, case_sensitivity: CaseSensitivity) -> bool {
        self.element()
            .classes()
            .any(|c| case_sensitivity.eq(c.as_bytes(), name.0.as_bytes()))
    }

    fn has_custom_state(&self, _name: &CssString) -> bool {
        false
    }

    fn imported_part(&self, _name: &CssString) -> Option<CssString> {
        None
    }

    fn is_part(&self, _name: &CssString) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        self.doc
            .children(self.id)
            .all(|c| match &self.doc.node(c).data {
                NodeData::Element(_) => false,
                NodeData::Text(r) => r.is_empty(),
                _ => true,
            })
    }

    fn is_root(&self) -> bool {
        self.doc
            .parent(self.id)
            .is_some_and(|p| matches!(self.doc.node(p).data, NodeData::Document))
    }

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    const PAGE: &str = r#"<!DOCTYPE html><html><head><title>t</title></head><body>
<div id="main" class="wrap Main">
  <h1 class="title">Title</h1>
  <p lang="en-US" data-x="alpha beta">one</p>
  <p title="prefix-middle-suffix">two</p>
  <!-- comment -->
  <span>three</span>
  <p>four</p>
  <a href="/x">link</a>
</div>
<div id="side"><ul><li>a</li><li>b</li><li>c</li><li>d</li></ul><p></p></div>
<svg><foreignObject><p>in svg</p></foreignObject></svg>
</body></html>"#;

    fn doc() -> Document {
        parse_str(PAGE)
    }

    /// The matches of `css`, described as `tag` or `tag#id`/`tag.first-class`/`tag:text`.
    fn sel(css: &str) -> Vec<String> {
        let d = doc();
        select(&d, css)
            .unwrap()
            .into_iter()
            .map(|id| {
                let e = d.element(id).unwrap();
                if let Some(i) = e.attr("id") {
                    format!("{}#{i}", e.tag())
                } else if let Some(c) = e.classes().next() {
                    format!("{}.{c}", e.tag())
                } else {
                    let t = crate::dom::collapse_whitespace(&d.text_content(id));
                    if t.is_empty() || t.len() > 12 {
                        e.tag().to_string()
                    } else {
                        format!("{}:{t}", e.tag())
                    }
                }
            })
            .collect()
    }

    #[test]
    fn type_and_universal() {
        assert_eq!(sel("h1"), ["h1.title"]);
        assert_eq!(sel("H1"), ["h1.title"], "HTML names are case-insensitive");
        assert_eq!(sel("li"), ["li:a", "li:b", "li:c", "li:d"]);
        let d = doc();
        let all = select(&d, "*").unwrap();
        assert_eq!(all.len(), d.elements().count());
        assert_eq!(all, d.elements().collect::<Vec<_>>(), "document order");
    }

    #[test]
    fn id_and_class() {
        assert_eq!(sel("#main"), ["div#main"]);
        assert_eq!(sel("div#side"), ["div#side"]);
        assert_eq!(sel(".wrap"), ["div#main"]);
        assert_eq!(sel(".Main.wrap"), ["div#main"]);
        assert!(sel(".main").is_empty(), "class names are case-sensitive");
        assert!(sel("#MAIN").is_empty(), "ids are case-sensitive");
        assert!(sel("span#main").is_empty());
    }

    #[test]
    fn attributes() {
        assert_eq!(sel("[lang]"), ["p:one"]);
        assert_eq!(sel("[lang=en-US]"), ["p:one"]);
        assert_eq!(sel("[lang=\"en-US\"]"), ["p:one"]);
        assert!(sel("[lang=en]").is_empty());
        assert_eq!(sel("[data-x~=beta]"), ["p:one"]);
        assert!(sel("[data-x~=bet]").is_empty());
        assert_eq!(sel("[title^=prefix]"), ["p:two"]);
        assert_eq!(sel("[title$=suffix]"), ["p:two"]);
        assert_eq!(sel("[title*=middle]"), ["p:two"]);
        assert!(sel("[title*=MIDDLE]").is_empty());
        assert_eq!(sel("[title*=MIDDLE i]"), ["p:two"]);
        assert_eq!(sel("[lang|=en]"), ["p:one"]);
        assert!(sel("[lang|=en-U]").is_empty());
        assert_eq!(sel("a[href='/x']"), ["a:link"]);
        assert_eq!(
            sel("[ID=side]"),
            ["div#side"],
            "attribute names are case-insensitive"
        );
    }

    #[test]
    fn combinators() {
        assert_eq!(sel("body p"), ["p:one", "p:two", "p:four", "p", "p:in svg"]);
        assert_eq!(sel("#main > p"), ["p:one", "p:two", "p:four"]);
        assert_eq!(sel("body > p"), Vec::<String>::new());
        assert_eq!(sel("h1 + p"), ["p:one"]);
        assert_eq!(
            sel("span + p"),
            ["p:four"],
            "comment and text nodes are skipped"
        );
        assert_eq!(sel("p + span"), ["span:three"]);
        assert_eq!(sel("h1 ~ p"), ["p:one", "p:two", "p:four"]);
        assert_eq!(sel("span ~ *"), ["p:four", "a:link"]);
        assert_eq!(sel("#side ul > li + li ~ li"), ["li:c", "li:d"]);
    }

    #[test]
    fn negation_and_structural() {
        assert_eq!(sel("#main > :not(p)"), ["h1.title", "span:three", "a:link"]);
        assert_eq!(
            sel("li:not(:first-child):not(:last-child)"),
            ["li:b", "li:c"]
        );
        assert_eq!(sel("li:first-child"), ["li:a"]);
        assert_eq!(sel("li:last-child"), ["li:d"]);
        assert_eq!(sel("#main > :first-child"), ["h1.title"]);
        assert_eq!(sel("#main > :last-child"), ["a:link"]);
        assert_eq!(sel("li:nth-child(2)"), ["li:b"]);
        assert_eq!(sel("li:nth-child(odd)"), ["li:a", "li:c"]);
        assert_eq!(sel("li:nth-child(2n)"), ["li:b", "li:d"]);
        assert_eq!(sel("li:nth-child(n+3)"), ["li:c", "li:d"]);
        assert_eq!(sel("li:nth-last-child(1)"), ["li:d"]);
        assert_eq!(sel("#main > p:nth-of-type(2)"), ["p:two"]);
        assert_eq!(sel("#main > p:nth-of-type(n+2)"), ["p:two", "p:four"]);
        assert_eq!(
            sel("#main > :nth-of-type(1)"),
            ["h1.title", "p:one", "span:three", "a:link"]
        );
        assert_eq!(sel("#main > p:last-of-type"), ["p:four"]);
        assert_eq!(sel("#side > p:empty"), ["p"]);
        assert_eq!(sel(":root"), ["html"]);
        assert_eq!(sel("#main > :nth-child(2 of p)"), ["p:two"]);
    }

    #[test]
    fn is_where_and_lists() {
        assert_eq!(sel(":is(h1, span)"), ["h1.title", "span:three"]);
        assert_eq!(sel("#main > :where(.title, a)"), ["h1.title", "a:link"]);
        assert_eq!(
            sel("span, h1"),
            ["h1.title", "span:three"],
            "document order, not list order"
        );
        assert_eq!(sel("h1, h1.title"), ["h1.title"], "no duplicates");
        assert_eq!(sel("div:is(#main, #side) > ul"), ["ul:abcd"]);
    }

    #[test]
    fn svg_names_are_case_sensitive() {
        assert_eq!(sel("foreignObject p"), ["p:in svg"]);
        assert!(sel("foreignobject").is_empty());
        assert!(
            Selector::parse("svg|foreignObject").is_err(),
            "no namespace prefixes declared"
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "div >",
            "..x",
            "p:hover",
            "p::before",
            "[x=",
            "a,",
            ":is(p, ..x)",
            "#",
        ] {
            let err = Selector::parse(bad);
            assert!(err.is_err(), "{bad:?} should not parse");
        }
        let e = Selector::parse("div > > p").unwrap_err();
        assert_eq!(e.css, "div > > p");
        assert!(e.to_string().contains("div > > p"), "{e}");
    }

    #[test]
    fn compiled_selector_reuse() {
        let d = doc();
        let s = Selector::parse("li:nth-child(even), h1").unwrap();
        assert_eq!(s.as_str(), "li:nth-child(even), h1");
        let hits = s.select(&d);
        assert_eq!(hits.len(), 3);
        for id in d.ids() {
            assert_eq!(s.matches(&d, id), hits.contains(&id), "{id:?}");
        }
        assert!(!s.matches(&d, NodeId::ROOT));
        assert!(!s.matches(&d, NodeId(u32::MAX)));
        let other = parse_str("<h1>x</h1><ul><li>1<li>2</ul>");
        assert_eq!(s.select(&other).len(), 2);
    }

    #[test]
    fn deep_documents_do_not_overflow() {
        // The parser stops nesting at `MAX_DEPTH` (the deeper `<div>`s and the `<p>` become
        // children of the deepest one), as deep as a tree gets.
        let depth = 20_000;
        let html = format!("{}<p class=deep>x</p>", "<div>".repeat(depth));
        let d = parse_str(&html);
        let hits = select(&d, "body div > p.deep:last-child").unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(
            select(&d, "div:nth-child(1) div:nth-of-type(1) p").unwrap(),
            hits
        );
    }

    /// Every selector of the shared gold standard (`../shared/data/gold/*.json`) parses.
    #[test]
    fn gold_selectors_parse() {
        let gold = [
            "div#content",
            "div.owp-floating-bar",
            "body > h1",
            "body > span.shortText",
            "body > table.posts",
            "body > table.menu",
            "body > hr",
            "body > a[name]",
            "body > div[style]",
            "body > h2",
            "ul#nav-breadcrumbs > li.breadcrumbs",
            "div#page-body > h2.forum-title",
            "div#page-body > div:nth-of-type(1)",
            "div#page-body > div.bar-top",
            "div#page-body > div.forumbg",
            "div#page-body > div.bar-bottom",
            "div#page-body > h2.topic-title",
            "div#page-body > div#subsilver-nav-topic",
            "div#page-body > div.post",
            "div#page-body > hr.divider",
            "div#header-region div.breadcrumb",
            "#main-content",
            "main#main div.entry-content",
            "main#main div.elementor > section:nth-of-type(n+2)",
            "div.rst-content > div[role=\"navigation\"]",
            "div.rst-content > div.document",
            "div.rst-footer-buttons",
            "div#main div.main-container div.col-md-8",
            "div#main > div.header-image-wrapper",
            "div#main > div.breadcrumb-wrapper",
        ];
        for css in gold {
            Selector::parse(css).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
