//! Per-node features of the page-level templateness classifier, computable without
//! rendering: the paper's most discriminative ones (links per word, text inside anchors,
//! anchor size, intra-site links, visible characters over HTML, closeness to the page's
//! margins, word overlap with the title) with document order standing in for the rendered
//! position, plus tag semantics, class/id hints and the page-level main-content detector.

use markup5ever::local_name;
use rustc_hash::FxHashSet;
use url::Url;

use crate::dom::tags::{is_block, is_heading, is_image, is_invisible};
use crate::dom::{Document, LocalName, NodeData, NodeId, deadline, is_cjk, is_word_char};
use crate::extract::{Content, ContentConfig, NameHints, page_content};
use crate::links::Site;

use crate::dom::html_lengths;

/// Names of the features, in the order of `NodeFeatures::values`.
pub const FEATURE_NAMES: &[&str] = &[
    "log_words",
    "links_per_word",
    "anchor_text_share",
    "log_anchor_size",
    "intra_site_link_share",
    "visible_over_html",
    "title_word_share",
    "title_coverage",
    "text_before",
    "text_after",
    "margin_closeness",
    "depth",
    "log_elements",
    "element_share",
    "punctuation_per_word",
    "log_children",
    "same_tag_children",
    "images_per_element",
    "form_controls",
    "tag_template_semantic",
    "tag_content_semantic",
    "tag_list",
    "tag_heading",
    "tag_table",
    "tag_generic",
    "in_template_semantic",
    "in_content_semantic",
    "name_hint",
    "inherited_hint",
    "in_main_content",
    "contains_main_content",
    "kept_content_share",
    "has_own_text",
    "before_main_content",
    "after_main_content",
    "log_margin",
    "link_cluster",
];

/// Number of features.
pub(crate) const N_FEATURES: usize = FEATURE_NAMES.len();

/// Features of every node of a page (zeros for nodes that are not classified).
#[derive(Debug, Clone)]
pub struct NodeFeatures {
    /// The rows of the nodes that have one (see [`row`](Self::row)), row-major, in document
    /// order: `values[r * N_FEATURES + f]` for the `r`-th such node.
    pub values: Vec<f32>,
    /// Per node id: its row in `values`, or [`NO_ROW`] (the node is not classified). Only
    /// classified nodes get one: a dense page would otherwise fill 148 bytes a node with
    /// zeros.
    pub row_of: Vec<u32>,
    /// Approximate HTML length of each node's subtree (the size used to pick a model bucket).
    pub html_len: Vec<u64>,
    /// Whether the node is classified (a visible block-level element inside `<body>` with
    /// visible words, or `<body>` itself); the others are "hidden" and take their parent's
    /// score, as the paper does with nodes too small to matter.
    pub classified: Vec<bool>,
    /// The page-level main-content detector's container.
    pub content_root: Option<NodeId>,
}

/// The `row_of` entry of a node without a row of features ([`node_features`]).
pub const NO_ROW: u32 = u32::MAX;

/// The features of a node without a row: all zero.
static ZERO_ROW: [f32; N_FEATURES] = [0.0; N_FEATURES];

impl NodeFeatures {
    /// The feature row of node `id` (all zeros for a node that is not classified).
    pub fn row(&self, id: NodeId) -> &[f32] {
        match self.row_of.get(id.index()) {
            Some(&r) if r != NO_ROW => {
                let i = r as usize * N_FEATURES;
                &self.values[i..i + N_FEATURES]
            }
            _ => &ZERO_ROW,
        }
    }
}

/// Per-node counters aggregated bottom-up.
#[derive(Debug, Clone, Copy, Default)]
struct Agg {
    words: u32,
    link_words: u32,
    anchors: u32,
    intra: u32,
    chars: u64,
    punct: u32,
    title_hits: u32,
    elements: u32,
    images: u32,
    controls: u32,
    own_text: bool,
}

fn is_template_semantic(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("nav")
            | local_name!("header")
            | local_name!("footer")
            | local_name!("aside")
            | local_name!("menu")
    )
}

fn is_content_semantic(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("article")
            | local_name!("main")
            | local_name!("p")
            | local_name!("blockquote")
            | local_name!("pre")
            | local_name!("figure")
    )
}

/// Lower-case words of a text; each CJK character is a word.
fn words_of(text: &str, mut f: impl FnMut(&str)) {
    let mut start = None;
    for (i, c) in text.char_indices() {
        if !is_cjk(c) && is_word_char(c) {
            start.get_or_insert(i);
        } else {
            if let Some(s) = start.take() {
                f(&text[s..i]);
            }
            if is_cjk(c) {
                f(&text[i..i + c.len_utf8()]);
            }
        }
    }
    if let Some(s) = start {
        f(&text[s..]);
    }
}

fn is_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ',' | ';' | ':' | '!' | '?' | '。' | '、' | '，' | '！' | '？' | '；' | '：'
    )
}

/// Title words worth matching: lower-cased, at least 3 characters (CJK: any).
/// A set: every word of the page is looked up (a Chinese page's every character).
fn title_words(doc: &Document) -> FxHashSet<String> {
    let Some(t) = crate::extract::page_title(doc) else {
        return FxHashSet::default();
    };
    let mut out = FxHashSet::default();
    words_of(&t, |w| {
        let w = w.to_lowercase();
        if w.chars().count() >= 3 || w.chars().any(is_cjk) {
            out.insert(w);
        }
    });
    out
}

/// Whether an `href` points inside the page's site (relative links always do).
fn is_intra(href: &str, page: Option<(&Url, &Site)>) -> bool {
    let href = href.trim();
    if href.starts_with('#') || href.is_empty() {
        return true;
    }
    let lower = href.to_ascii_lowercase();
    if lower.starts_with("javascript:") || lower.starts_with("mailto:") || lower.starts_with("tel:")
    {
        return false;
    }
    if !(lower.starts_with("http:") || lower.starts_with("https:") || lower.starts_with("//")) {
        return true;
    }
    match page {
        Some((p, site)) => p.join(href).is_ok_and(|u| site.contains(&u)),
        None => false,
    }
}

/// Compute the features of every node of `doc` (`page_url` resolves intra-site links; without
/// it, only relative links count as intra-site).
pub fn node_features(doc: &Document, page_url: Option<&Url>) -> NodeFeatures {
    node_features_with(doc, page_url, None)
}

/// [`node_features`] given the page's main content under the default settings when the
/// caller has it (`page_content(doc, &ContentConfig::default())`): it is not found again.
pub(crate) fn node_features_with(
    doc: &Document,
    page_url: Option<&Url>,
    content: Option<&Content>,
) -> NodeFeatures {
    let n = doc.len();
    let html_len = html_lengths(doc);
    let mut values = Vec::new();
    let mut row_of = vec![NO_ROW; n];
    let mut classified = vec![false; n];
    let Some(body) = doc.body() else {
        return NodeFeatures {
            values,
            row_of,
            html_len,
            classified,
            content_root: None,
        };
    };
    let title = title_words(doc);
    let site = page_url.map(Site::of);
    let page = page_url.zip(site.as_ref());
    let mut agg = vec![Agg::default(); n];
    // Top-down state: inside an anchor, inside invisible markup, semantic ancestors, hints.
    let mut in_anchor = vec![false; n];
    let mut invisible = vec![false; n];
    let mut in_tpl_sem = vec![false; n];
    let mut in_con_sem = vec![false; n];
    let mut hint = vec![0i8; n];
    let mut inherited = vec![0i8; n];
    let mut depth_max = 1u32;
    let mut names = NameHints::default();
    let body_depth = doc.node(body).depth;
    let range = doc.subtree(body);
    for i in range.clone() {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        let ix = id.index();
        let p = doc.parent(id).map(NodeId::index);
        let parent = |v: &Vec<bool>| p.is_some_and(|p| id != body && v[p]);
        in_anchor[ix] = parent(&in_anchor);
        invisible[ix] = parent(&invisible);
        in_tpl_sem[ix] = parent(&in_tpl_sem);
        in_con_sem[ix] = parent(&in_con_sem);
        inherited[ix] = match p {
            Some(p) if id != body => {
                if hint[p] != 0 {
                    hint[p]
                } else {
                    inherited[p]
                }
            }
            _ => 0,
        };
        depth_max = depth_max.max(doc.node(id).depth - body_depth + 1);
        match &doc.node(id).data {
            NodeData::Element(e) => {
                let tag = &e.name.local;
                // A page read without scripts shows its `<noscript>` (a forum's crawler view
                // holds the posts there), as `Document::visible` does.
                if is_invisible(tag) && !(doc.noscript_shown && *tag == local_name!("noscript")) {
                    invisible[ix] = true;
                }
                if e.is(&local_name!("a")) {
                    in_anchor[ix] = true;
                    if let Some(h) = e.attr("href") {
                        agg[ix].anchors += 1;
                        if is_intra(h, page) {
                            agg[ix].intra += 1;
                        }
                    }
                }
                if is_template_semantic(tag) {
                    in_tpl_sem[ix] = true;
                }
                if matches!(*tag, local_name!("article") | local_name!("main")) {
                    in_con_sem[ix] = true;
                }
                if id != body {
                    hint[ix] = names.hint(doc, id);
                }
                agg[ix].elements = 1;
                if is_image(tag) {
                    agg[ix].images += 1;
                }
                if matches!(
                    *tag,
                    local_name!("input")
                        | local_name!("select")
                        | local_name!("button")
                        | local_name!("textarea")
                ) {
                    agg[ix].controls += 1;
                }
                classified[ix] = !invisible[ix]
                    && (id == body
                        || (is_block(tag)
                            && !matches!(*tag, local_name!("br") | local_name!("hr"))));
            }
            NodeData::Text(r) if !invisible[ix] => {
                let text = &doc.text_buffer()[r.clone()];
                let (mut w, mut hits, mut chars, mut punct) = (0u32, 0u32, 0u64, 0u32);
                words_of(text, |word| {
                    w += 1;
                    if !title.is_empty() {
                        let lower: std::borrow::Cow<'_, str> =
                            if word.chars().any(char::is_uppercase) {
                                word.to_lowercase().into()
                            } else {
                                word.into()
                            };
                        if title.contains(lower.as_ref()) {
                            hits += 1;
                        }
                    }
                });
                for c in text.chars() {
                    if !c.is_whitespace() {
                        chars += 1;
                    }
                    if is_punct(c) {
                        punct += 1;
                    }
                }
                let a = &mut agg[ix];
                a.words = w;
                a.title_hits = hits;
                a.chars = chars;
                a.punct = punct;
                if in_anchor[ix] {
                    a.link_words = w;
                }
                if w > 0 {
                    if let Some(p) = p {
                        agg[p].own_text = true;
                    }
                }
            }
            _ => {}
        }
    }
    // Bottom-up sums (children before parents).
    for i in range.clone().rev() {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        if id == body {
            break;
        }
        if let Some(p) = doc.parent(id) {
            let c = agg[id.index()];
            let a = &mut agg[p.index()];
            a.words += c.words;
            a.link_words += c.link_words;
            a.anchors += c.anchors;
            a.intra += c.intra;
            a.chars += c.chars;
            a.punct += c.punct;
            a.title_hits += c.title_hits;
            a.elements += c.elements;
            a.images += c.images;
            a.controls += c.controls;
        }
    }
    // Visible text before each node, in document order.
    let total_chars = agg[body.index()].chars.max(1) as f64;
    let mut before = vec![0u64; n];
    let mut running = 0u64;
    for i in range.clone() {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        before[id.index()] = running;
        if doc.text(id).is_some() && !invisible[id.index()] {
            running += agg[id.index()].chars;
        }
    }
    let found;
    let content = match content {
        Some(c) => c,
        None => {
            found = page_content(doc, &ContentConfig::default());
            &found
        }
    };
    let mut kept_words = vec![0u32; n];
    for i in range.clone().rev() {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        if doc.text(id).is_some() && content.is_content(id) {
            kept_words[id.index()] = agg[id.index()].words;
        }
        if id != body {
            if let Some(p) = doc.parent(id) {
                kept_words[p.index()] += kept_words[id.index()];
            }
        }
    }
    // Nodes without visible words are the page's spacers, icons and image holders: like the
    // paper's nodes under 2000 px², they are not classified and take their parent's score.
    for i in range.clone() {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        if id != body && agg[id.index()].words == 0 {
            classified[id.index()] = false;
        }
    }
    let total_elements = agg[body.index()].elements.max(1) as f64;
    let title_len = title.len().max(1) as f64;
    // Rows are 150 bytes: grown by doubling, a dense page's would be copied over and over.
    values.reserve(classified.iter().filter(|c| **c).count() * N_FEATURES);
    for i in range {
        if deadline::due(i as usize) {
            break;
        }
        let id = NodeId(i);
        let ix = id.index();
        if !classified[ix] {
            continue;
        }
        let Some(e) = doc.element(id) else { continue };
        let tag = &e.name.local;
        let a = agg[ix];
        let words = a.words as f64;
        let wp1 = words + 1.0;
        let (mut children, mut same) = (0u32, 0u32);
        let mut first_tag: Option<&LocalName> = None;
        for c in doc.element_children(id) {
            children += 1;
            let t = doc.tag(c);
            match (first_tag, t) {
                (None, Some(t)) => first_tag = Some(t),
                (Some(f), Some(t)) if f == t => same += 1,
                _ => {}
            }
        }
        let own_before = before[ix] as f64 / total_chars;
        let own_after = ((total_chars - before[ix] as f64 - a.chars as f64) / total_chars).max(0.0);
        let (in_main, contains_main, before_main, after_main) = match content.root {
            Some(r) => (
                doc.contains(r, id),
                doc.contains(id, r) && id != r,
                doc.node(id).end.0 <= r.0,
                id.0 >= doc.node(r).end.0,
            ),
            None => (false, false, false, false),
        };
        let v = [
            wp1.ln(),
            a.anchors as f64 / wp1,
            a.link_words as f64 / words.max(1.0),
            (1.0 + a.link_words as f64 / a.anchors.max(1) as f64).ln(),
            if a.anchors > 0 {
                a.intra as f64 / a.anchors as f64
            } else {
                0.5
            },
            a.chars as f64 / html_len[ix].max(1) as f64,
            a.title_hits as f64 / words.max(1.0),
            (a.title_hits as f64 / title_len).min(1.0),
            own_before,
            own_after,
            own_before.min(own_after),
            (doc.node(id).depth - body_depth) as f64 / depth_max as f64,
            (a.elements as f64).ln(),
            a.elements as f64 / total_elements,
            a.punct as f64 / wp1,
            (1.0 + children as f64).ln(),
            if children > 1 {
                (same + 1) as f64 / children as f64
            } else {
                0.0
            },
            a.images as f64 / a.elements as f64,
            (1.0 + a.controls as f64).ln(),
            f(is_template_semantic(tag)),
            f(is_content_semantic(tag)),
            f(matches!(
                *tag,
                local_name!("ul") | local_name!("ol") | local_name!("li") | local_name!("dl")
            )),
            f(is_heading(tag)),
            f(matches!(
                *tag,
                local_name!("table")
                    | local_name!("tr")
                    | local_name!("td")
                    | local_name!("th")
                    | local_name!("tbody")
            )),
            f(matches!(
                *tag,
                local_name!("div") | local_name!("section") | local_name!("body")
            )),
            f(in_tpl_sem[ix]),
            f(in_con_sem[ix]),
            f64::from(hint[ix]),
            f64::from(inherited[ix]),
            f(in_main),
            f(contains_main),
            kept_words[ix] as f64 / words.max(1.0),
            f(a.own_text),
            f(before_main),
            f(after_main),
            -(own_before.min(own_after) + 0.01).ln(),
            f(a.link_words * 2 > a.words && a.words >= 2),
        ];
        debug_assert_eq!(v.len(), N_FEATURES);
        row_of[ix] = (values.len() / N_FEATURES) as u32;
        values.extend(v.map(|x| x as f32));
    }
    NodeFeatures {
        values,
        row_of,
        html_len,
        classified,
        content_root: content.root,
    }
}

fn f(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn menu_and_article_differ() {
        let doc = parse_str(
            "<html><head><title>Growing tomatoes at home</title></head><body>\
             <ul id=menu><li><a href=/a>Home</a></li><li><a href=/b>About</a></li><li><a href=http://other.example/>Elsewhere</a></li></ul>\
             <div class=post><h1>Growing tomatoes</h1><p>Tomatoes need sun, water, and patience. Growing them at home is easy.</p></div>\
             </body></html>",
        );
        let url = Url::parse("https://garden.example/x").unwrap();
        let fx = node_features(&doc, Some(&url));
        let find = |tag: &str| {
            doc.elements()
                .find(|e| doc.tag(*e).is_some_and(|t| &**t == tag))
                .unwrap()
        };
        let col = |name: &str| FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
        let ul = fx.row(find("ul"));
        let p = fx.row(find("p"));
        assert_eq!(ul[col("anchor_text_share")], 1.0);
        assert_eq!(p[col("anchor_text_share")], 0.0);
        assert!((ul[col("intra_site_link_share")] - 2.0 / 3.0).abs() < 1e-6);
        assert!(p[col("title_word_share")] > 0.1);
        assert!(p[col("punctuation_per_word")] > ul[col("punctuation_per_word")]);
        assert_eq!(ul[col("text_before")], 0.0);
        assert!(fx.classified[find("li").index()]);
        assert!(!fx.classified[find("a").index()]);
        assert!(fx.classified[doc.body().unwrap().index()]);
    }

    /// A page read without scripts shows its `<noscript>`: the posts of a forum's crawler
    /// view there are classified.
    #[test]
    fn noscript_is_classified_when_shown() {
        let html = "<body><div id=app></div><noscript><div class=post><p>The first post \
                    of the thread, with words.</p></div></noscript></body>";
        let doc = crate::dom::parse_bytes_lean(html.as_bytes(), None);
        let fx = node_features(&doc, None);
        let p = doc
            .elements()
            .find(|e| doc.tag(*e).is_some_and(|t| *t == local_name!("p")))
            .unwrap();
        assert!(fx.classified[p.index()]);
    }

    #[test]
    fn deep_pages_and_empty_pages() {
        let deep = format!("{}x{}", "<div>".repeat(50_000), "</div>".repeat(50_000));
        let doc = parse_str(&deep);
        let fx = node_features(&doc, None);
        assert_eq!(fx.row_of.len(), doc.len());
        // A row for each classified element, none for the others.
        let rows = doc
            .ids()
            .filter(|id| fx.classified[id.index()] && doc.element(*id).is_some())
            .count();
        assert!(rows > 0);
        assert_eq!(fx.values.len(), rows * N_FEATURES);
        for id in doc.ids() {
            let has = fx.row_of[id.index()] != NO_ROW;
            assert_eq!(has, fx.classified[id.index()] && doc.element(id).is_some());
            assert_eq!(fx.row(id).len(), N_FEATURES);
            if !has {
                assert!(fx.row(id).iter().all(|v| *v == 0.0));
            }
        }
        assert!(fx.values.iter().all(|v| v.is_finite()));
        let empty = parse_str("");
        let fx = node_features(&empty, None);
        assert!(fx.values.iter().all(|v| v.is_finite()));
    }
}
