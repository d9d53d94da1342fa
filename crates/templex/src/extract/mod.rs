//! Page-level main-content detection, in the spirit of ConEx (as summarized in HybEx).
//!
//! One page, no site. Every text block (the inline run between block-level boundaries) gets
//! per-block features — words, link density, sentence punctuation, tag kind — and every
//! element gets the aggregate of its subtree: net content mass (prose words count for, link
//! text and navigation-like blocks against), text-to-markup ratio and class/id hints.
//! Standardized over the page's candidate elements, these place each candidate as a point;
//! the main content is the far outlier on the "content" side of the centroid (most net prose,
//! least link text), tightened to the smallest element that still holds nearly all of that
//! mass. Inside it, blocks that are navigation, sharing, related-links or comment widgets are
//! dropped, while headings, lists, tables, code blocks and captions are kept.

mod blocks;
mod render;

pub use blocks::{Block, BlockKind, is_invisible, segment_blocks, visible_descendants};
pub use render::{content_html, content_markdown, content_text};

use markup5ever::local_name;
use serde::Serialize;

use crate::dom::{Document, NodeData, NodeId};
use crate::output::is_block;

/// Settings of [`page_content`].
#[derive(Debug, Clone)]
pub struct ContentConfig {
    /// Keep user comments (dropped by default).
    pub comments: bool,
    /// A candidate container is tightened to the smallest element keeping at least this share
    /// of the best candidate's net content mass.
    pub tighten: f64,
    /// Drop stand-alone short labels ("Advertisement", "SUBSCRIBE", "Like this:").
    pub drop_labels: bool,
    /// Drop image captions and credits. On by default for plain text, where both AEB and
    /// trafilatura-eval count them as noise (BENCHMARKS.md); Markdown and HTML output keep
    /// figures with their captions.
    pub drop_captions: bool,
    /// Siblings of the main container with at least this share of its net mass join it
    /// (0 disables).
    pub expand: f64,
    /// Leave the headline (an `<h1>` repeating the page title) out of the text: it is the
    /// `title`.
    pub drop_headline: bool,
}

impl Default for ContentConfig {
    fn default() -> Self {
        ContentConfig {
            comments: false,
            tighten: 0.85,
            drop_labels: true,
            drop_captions: true,
            drop_headline: true,
            expand: 0.2,
        }
    }
}

/// The detected main content of a page.
#[derive(Debug, Clone, Serialize)]
pub struct Content {
    /// The main-content container (`None` when the page has no text).
    #[serde(skip)]
    pub root: Option<NodeId>,
    /// Per node id: whether the node belongs to the content (kept for output).
    #[serde(skip)]
    pub keep: Vec<bool>,
    /// The page title (`og:title`, else `<title>`, else the first `<h1>`).
    pub title: Option<String>,
}

impl Content {
    /// Whether node `id` is content.
    pub fn is_content(&self, id: NodeId) -> bool {
        self.keep.get(id.index()).copied().unwrap_or(false)
    }
}

/// How many ancestors up the main container may grow by absorbing prose siblings.
const EXPAND_LEVELS: usize = 2;

/// Words that mark boilerplate when they appear in a class or id.
const NEGATIVE_HINTS: &[&str] = &[
    "comment",
    "share",
    "sharing",
    "social",
    "related",
    "sidebar",
    "widget",
    "nav",
    "menu",
    "breadcrumb",
    "banner",
    "advert",
    "promo",
    "sponsor",
    "subscribe",
    "newsletter",
    "popup",
    "cookie",
    "footer",
    "masthead",
    "pagination",
    "pager",
    "toolbar",
    "skip",
    "login",
    "signup",
    "byline",
    "tags",
    "tag-list",
    "recommend",
    "outbrain",
    "taboola",
    "disqus",
    "author-bio",
    "print",
    "rating",
    "hidden",
];

/// Words that mark content when they appear in a class or id.
const POSITIVE_HINTS: &[&str] = &[
    "article", "content", "entry", "main", "post", "story", "text", "body", "blog", "prose",
];

/// Class/id hint of an element: -1 boilerplate-like, +1 content-like, 0 neither.
pub fn name_hint(doc: &Document, id: NodeId) -> i8 {
    let Some(e) = doc.element(id) else { return 0 };
    let mut names = String::new();
    if let Some(v) = e.attr("class") {
        names.push_str(v);
    }
    if let Some(v) = e.id() {
        names.push(' ');
        names.push_str(v);
    }
    if let Some(v) = e.attr("role") {
        names.push(' ');
        names.push_str(v);
    }
    if names.is_empty() {
        return 0;
    }
    let names = names.to_ascii_lowercase();
    let matches = |list: &[&str]| {
        names
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .any(|tok| {
                list.iter()
                    .any(|h| tok == *h || tok.split('-').any(|p| p == *h))
            })
    };
    if matches(NEGATIVE_HINTS) {
        -1
    } else if matches(POSITIVE_HINTS) {
        1
    } else {
        0
    }
}

/// Elements that are never main content by their tag.
fn is_boilerplate_tag(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        matches!(
            e.name.local,
            local_name!("nav")
                | local_name!("aside")
                | local_name!("footer")
                | local_name!("button")
                | local_name!("select")
                | local_name!("dialog")
                | local_name!("menu")
        ) || e.attr("hidden").is_some()
            || e.attr("aria-hidden")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
            || e.attr("style").is_some_and(|s| {
                let s = s.to_ascii_lowercase().replace(' ', "");
                s.contains("display:none") || s.contains("visibility:hidden")
            })
    })
}

/// Net content mass of a block: prose counts for, link text and short navigation-like
/// blocks against.
fn block_value(b: &Block) -> f64 {
    let w = b.words as f64;
    if w == 0.0 {
        return 0.0;
    }
    let ld = b.link_words as f64 / w;
    let prose = b.punctuation as f64 / w;
    match b.kind {
        BlockKind::Heading => 0.0,
        _ if ld > 0.5 => -w * ld,
        _ if b.words < 8 && prose == 0.0 => -0.5 * w * ld,
        _ => w * (1.0 - 2.0 * ld).max(-1.0) * (0.5 + prose.min(0.5)),
    }
}

/// Detect the main content of a page.
pub fn page_content(doc: &Document, config: &ContentConfig) -> Content {
    let n = doc.len();
    let title = page_title(doc);
    let mut keep = vec![false; n];
    let Some(body) = doc.body() else {
        return Content {
            root: None,
            keep,
            title,
        };
    };
    let blocks = segment_blocks(doc, body);
    // Per element: net mass of its subtree, and its raw text words.
    let mut mass = vec![0.0f64; n];
    let mut words = vec![0u32; n];
    let mut link_words = vec![0u32; n];
    let mut punct = vec![0u32; n];
    for b in &blocks {
        mass[b.owner.index()] += block_value(b);
        words[b.owner.index()] += b.words;
        link_words[b.owner.index()] += b.link_words;
        punct[b.owner.index()] += b.punctuation;
    }
    // Boilerplate elements and negatively hinted ones cannot hold the main content.
    let mut excluded = vec![false; n];
    for id in doc.descendants(body) {
        let parent_excluded = doc.parent(id).is_some_and(|p| excluded[p.index()]);
        excluded[id.index()] = parent_excluded
            || is_boilerplate_tag(doc, id)
            || (!config.comments && is_comment_section(doc, id));
    }
    for id in doc.subtree(body).rev().map(NodeId) {
        if id == body {
            break;
        }
        if let Some(p) = doc.parent(id) {
            let (m, w, l) = (mass[id.index()], words[id.index()], link_words[id.index()]);
            // Excluded subtrees count against every container that includes them.
            mass[p.index()] += if excluded[id.index()] {
                -(w as f64) * 0.5
            } else {
                m
            };
            words[p.index()] += w;
            link_words[p.index()] += l;
            punct[p.index()] += punct[id.index()];
        }
    }
    // Candidates: elements with text, not excluded; score = net mass, nudged by name hints.
    // A candidate inside a boilerplate-named region (cookie banner, related box) inherits
    // its penalty.
    // Name hints scan class/id strings; computed once per element, used three times.
    let mut hints = vec![0i8; n];
    let mut negative = vec![false; n];
    for id in doc.descendants(body) {
        hints[id.index()] = name_hint(doc, id);
        negative[id.index()] =
            doc.parent(id).is_some_and(|p| negative[p.index()]) || hints[id.index()] < 0;
    }
    let hint_of = |id: NodeId| hints[id.index()];
    let score = |id: NodeId| {
        // Themes put page-type classes on <body> ("ArticlePage-body"): no hint there.
        let hint = if id == body {
            0.0
        } else if negative[id.index()] {
            -1.0
        } else {
            f64::from(hint_of(id))
        };
        mass[id.index()] * (1.0 + 0.5 * hint)
    };
    let candidates: Vec<NodeId> = std::iter::once(body)
        .chain(doc.descendants(body))
        .filter(|id| doc.element(*id).is_some() && !excluded[id.index()] && words[id.index()] > 0)
        .collect();
    let Some(&best) = candidates
        .iter()
        .max_by(|a, b| score(**a).total_cmp(&score(**b)).then(b.cmp(a)))
    else {
        return Content {
            root: None,
            keep,
            title,
        };
    };
    // Tighten: the deepest candidate inside `best` that still holds most of its mass.
    let best_mass = mass[best.index()];
    let mut root = best;
    if best_mass > 0.0 {
        for &c in candidates.iter().filter(|c| doc.contains(best, **c)) {
            if mass[c.index()] >= config.tighten * best_mass
                && doc.node(c).depth > doc.node(root).depth
            {
                root = c;
            }
        }
    }
    // Expand: content split over sibling containers (a recipe's ingredients and steps, an
    // article body after a lead block) — siblings with real prose mass join the root.
    let mut parts = vec![root];
    let mut top = root;
    let levels = EXPAND_LEVELS;
    let mut base_mass = mass[root.index()];
    for _ in 0..levels {
        if config.expand <= 0.0 || base_mass <= 0.0 {
            break;
        }
        let Some(parent) = doc
            .parent(top)
            .filter(|p| *p != body && doc.contains(body, *p))
        else {
            break;
        };
        let threshold = (config.expand * base_mass).max(10.0);
        let siblings: Vec<NodeId> = doc
            .element_children(parent)
            .filter(|c| {
                *c != top
                    && !excluded[c.index()]
                    && mass[c.index()] >= threshold
                    && !is_link_cluster(words[c.index()], link_words[c.index()])
                    && hint_of(*c) >= 0
            })
            .collect();
        if siblings.is_empty() {
            break;
        }
        // The previous top joins as a whole; so do the qualifying siblings.
        if top != root || parts.len() > 1 {
            parts.retain(|p| !doc.contains(top, *p) || *p == top);
            if !parts.contains(&top) {
                parts.push(top);
            }
        }
        base_mass += siblings.iter().map(|c| mass[c.index()]).sum::<f64>();
        parts.extend(siblings);
        parts.sort();
        top = parent;
    }
    let root = top;
    // The headline is reported as the title; keeping it in the text would repeat it.
    let headline = title.as_deref().map(normalize_title);
    let is_headline = |id: NodeId| {
        config.drop_headline
            && doc.element(id).is_some_and(|e| e.is(&local_name!("h1")))
            && headline.as_ref().is_some_and(|t| {
                let h = normalize_title(&doc.text_content(id));
                !h.is_empty() && t.contains(&h)
            })
    };
    // Keep the container minus excluded and boilerplate-like parts.
    let is_part = |id: NodeId| parts.contains(&id);
    for id in doc.subtree(root).map(NodeId) {
        let i = id.index();
        if excluded[i] && !is_part(id) {
            continue;
        }
        let parent_ok = id == root
            || is_part(id)
            || (doc
                .parent(id)
                .is_some_and(|p| keep[p.index()] && (p != root || parts == [root])));
        if !parent_ok {
            continue;
        }
        let drop = !is_part(id)
            && id != root
            && doc.element(id).is_some()
            && words[i] > 0
            && (is_link_cluster(words[i], link_words[i])
                || (hint_of(id) < 0 && mass[i] <= 0.0)
                || (config.drop_labels && is_label(doc, id, words[i], punct[i]))
                || (config.drop_captions && is_caption(doc, id))
                || is_headline(id));
        keep[i] = !drop
            && !matches!(
                doc.node(id).data,
                NodeData::Comment(_) | NodeData::ProcessingInstruction { .. }
            );
    }
    Content {
        root: Some(root),
        keep,
        title,
    }
}

/// A stand-alone short label: a block-level element of at most three words and no
/// sentence punctuation, not a heading, list item, table cell or code.
fn is_label(doc: &Document, id: NodeId, words: u32, punct: u32) -> bool {
    words <= 3
        && punct == 0
        && doc.element(id).is_some_and(|e| {
            is_block(&e.name.local)
                && !matches!(
                    e.name.local,
                    local_name!("h1")
                        | local_name!("h2")
                        | local_name!("h3")
                        | local_name!("h4")
                        | local_name!("h5")
                        | local_name!("h6")
                        | local_name!("li")
                        | local_name!("dt")
                        | local_name!("dd")
                        | local_name!("td")
                        | local_name!("th")
                        | local_name!("tr")
                        | local_name!("table")
                        | local_name!("pre")
                        | local_name!("ul")
                        | local_name!("ol")
                        | local_name!("dl")
                        | local_name!("tbody")
                        | local_name!("thead")
                )
        })
}

/// A caption or photo credit.
fn is_caption(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.is(&local_name!("figcaption"))
            || e.classes().any(|c| {
                let c = c.to_ascii_lowercase();
                c.contains("caption") || c.contains("credit")
            })
    })
}

/// The keep mask of site-aware content: nodes the template does not claim, plus the
/// template elements that lead to them (so that renderers can walk down to the content).
pub fn non_template_mask(doc: &Document, template: &[bool]) -> Vec<bool> {
    let mut keep: Vec<bool> = (0..doc.len())
        .map(|i| !template.get(i).copied().unwrap_or(false))
        .collect();
    // Children before parents: a parent leading to kept content is walked through.
    for id in doc.ids().rev() {
        if keep[id.index()] {
            if let Some(p) = doc.parent(id) {
                if doc.element(id).is_some() || doc.text(id).is_some_and(|t| !t.trim().is_empty()) {
                    keep[p.index()] = true;
                }
            }
        }
    }
    keep
}

/// Mostly links: a menu, a tag list, a "related posts" box.
fn is_link_cluster(words: u32, link_words: u32) -> bool {
    link_words * 2 > words && words >= 2
}

fn is_comment_section(doc: &Document, id: NodeId) -> bool {
    doc.element(id).is_some_and(|e| {
        e.id()
            .is_some_and(|v| v.to_ascii_lowercase().contains("comment"))
            || e.classes().any(|c| {
                let c = c.to_ascii_lowercase();
                c == "comments"
                    || c == "comment-list"
                    || c.starts_with("comments-")
                    || c == "commentlist"
                    || c == "comment-respond"
            })
    })
}

/// Lower-cased alphanumeric words of a title, space-joined.
fn normalize_title(t: &str) -> String {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `og:title`, else `<title>`, else the first `<h1>`.
pub fn page_title(doc: &Document) -> Option<String> {
    let og = doc.elements().find_map(|e| {
        let el = doc.element(e)?;
        (el.is(&local_name!("meta")) && el.attr("property").is_some_and(|p| p == "og:title"))
            .then(|| el.attr("content").map(crate::dom::collapse_whitespace))
            .flatten()
            .filter(|t| !t.is_empty())
    });
    og.or_else(|| doc.title()).or_else(|| {
        let h1 = doc.find_element(&local_name!("h1"))?;
        let t = crate::dom::collapse_whitespace(&doc.text_content(h1));
        (!t.is_empty()).then_some(t)
    })
}
