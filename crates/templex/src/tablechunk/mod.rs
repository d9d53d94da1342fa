//! The table text chunk method (the "template table text chunk removal" paper): over a
//! cluster of pages of one template, text chunks that recur on many pages are template.
//!
//! 1. **Chunking** ([`page_chunks`]): one pass over a page in document order cuts its text
//!    into *chunks* — the text between two boundary elements. The paper's boundaries are the
//!    table nodes (`table`, `tr`, `td`, `th`, `thead`, `tbody`, `tfoot`, `caption`:
//!    [`Boundaries::Table`]); pages that lay out with `div`s have no such nodes, so a
//!    generalized set, every block-level element ([`Boundaries::Block`], the default), is
//!    offered too. Text is entity-decoded (the parser does it) and whitespace-normalized
//!    (NBSP included, zero-width characters dropped); `script`, `style` and other invisible
//!    elements hold no text. Informative image ALT text and image file names are text
//!    ([`image_text`]).
//! 2. **Learning** ([`learn`], [`TableChunkLearner`]): the document frequency of every chunk
//!    key over the cluster's pages, each page counting a key once. A chunk is template when
//!    its frequency reaches a fraction of the pages, and at least 2 pages
//!    ([`TableChunkConfig`]).
//! 3. **Applying** ([`TableChunkModel::template_mask`]) to any page of the cluster, seen
//!    while learning or not: its chunks found in the model are template, and so is every
//!    element all of whose chunks are; text-less nodes follow their parent. Three measured
//!    refinements ([`MaskRules`]): chunks without a letter (line numbers, dates,
//!    separators) are no evidence either way, chunks of image text only are evidence for
//!    the template but not against it (rotating sponsor logos), and layout wrappers (no
//!    text of their own, a template child) are template.
//!
//! Beyond the paper, chunks are keyed by **text, position and occurrence** ([`ChunkKeys`]):
//! the paper's text-only key makes a short content chunk that happens to equal a template
//! chunk ("Home", "Contact", "»") template wherever it appears, and counts a navigation bar
//! repeated at the top and the bottom of a page as one chunk. With the tag path of the
//! chunk's block and the chunk's occurrence index among equal (text, path) chunks of the
//! page in the key, the bottom bar is a template chunk of its own (it recurs on its own), and
//! a content "Home" in the article, or in the content cell after the menu cell of a layout
//! table, has a key no other page shares.

use markup5ever::local_name;
use percent_encoding::percent_decode_str;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::dom::tags::{is_block, is_invisible};
use crate::dom::{Document, Element, LocalName, NodeData, NodeId};
use crate::pagelevel::sitelevel::{SiteLevel, df_threshold, stable_hash};
use crate::stable_hash::Encoder;

/// Version of the chunk key computation. Stored in every [`TableChunkModel`]: keys are
/// hashes, and a model whose keys were computed differently must not be applied (it would
/// silently match nothing, or the wrong chunks). 2: keys are stable hashes
/// ([`crate::stable_hash`]) of explicit bytes.
pub const KEY_SCHEME: u32 = 2;

/// Which elements end one text chunk and start the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Boundaries {
    /// The paper's table nodes: `table`, `tr`, `td`, `th`, `thead`, `tbody`, `tfoot`,
    /// `caption`. A page without tables is one chunk, unique to the page.
    Table,
    /// Every block-level element ([`crate::dom::tags::is_block`]: the table nodes, `div`, `p`,
    /// `li`, headings, `br`, …). The default: most pages lay out with `div`s and lists, and
    /// on the dev gold block chunks score far better (BENCHMARKS.md).
    #[default]
    Block,
}

impl Boundaries {
    /// Whether an element with this tag is a chunk boundary.
    pub fn is_boundary(self, tag: &LocalName) -> bool {
        match self {
            Boundaries::Table => is_table_node(tag),
            Boundaries::Block => is_block(tag),
        }
    }
}

/// The paper's "table nodes".
pub fn is_table_node(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("table")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("caption")
    )
}

/// What identifies a chunk across pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKeys {
    /// The text alone, as in the paper: equal text anywhere on a page is the same chunk.
    Text,
    /// The text and its occurrence index among equal texts of the page (first "Home",
    /// second "Home", …).
    TextOccurrence,
    /// The text and the tag path of the chunk's block (`html/body/div/ul/li`, tags only:
    /// ids and classes vary between pages of one template, e.g. the current menu item's).
    TextPath,
    /// The text, the block's tag path, and the occurrence index among chunks of the page
    /// with the same text and path. The default: the path separates a content "Home" from
    /// the menu's wherever their blocks differ, and the occurrence index separates them
    /// where they do not (the menu cell and the content cell of a layout table share a tag
    /// path, and the menu comes first); a navigation bar repeated at the bottom of the page
    /// gets keys of its own, which recur like the top bar's. The limit: a coincidental
    /// chunk *before* a same-path template chunk takes the template chunk's key on that
    /// page (a menu cell to the right of the content cell), and the two swap verdicts there.
    #[default]
    TextPathOccurrence,
}

/// How pages are cut into chunks and chunks keyed: part of a learned model, since the same
/// chunking must be applied to the pages the model is used on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunking {
    /// Chunk boundaries.
    pub boundaries: Boundaries,
    /// Chunk keys.
    pub keys: ChunkKeys,
    /// Informative image ALT text and file names are chunk text ([`image_text`]).
    pub images: bool,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            boundaries: Boundaries::default(),
            keys: ChunkKeys::default(),
            images: true,
        }
    }
}

/// How chunk verdicts become a node mask, beyond "an element is template when all its
/// chunks are". Stored in the model, so that a stored template is applied as it was
/// measured. All rules are on by default; off, they give the plain rule (BENCHMARKS.md
/// measures each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaskRules {
    /// Chunks without a letter (line numbers, dates, prices, pagination "1 2 3 »",
    /// separators "|", "© 2024") are no evidence either way: they recur inside content as
    /// much as in the template (every code listing of a site numbers its lines "1.", "2.",
    /// …), so their nodes follow their surroundings like text-less nodes.
    pub letterless_neutral: bool,
    /// Layout wrappers are template: an element without text of its own that holds content
    /// and at least one template child (`div#page` around header, menu, columns and footer;
    /// a columns row around the sidebar and the main column). The gold standard and the
    /// mapping methods call such wrappers template; the plain rule cannot, since they also
    /// hold content. The same rule as PAGELEVEL's default ([`crate::pagelevel::Wrappers`]).
    pub wrappers: bool,
    /// A chunk made of image text only (ALT text, file names, no text nodes) is evidence
    /// when it is template, and neutral when it is not. Image-only navigation bars (the
    /// paper's case) are found, while images that change from page to page inside the
    /// template — rotating sponsor logos, banners, ads, random header photos — no longer
    /// make their template block content; an image inside content is surrounded by
    /// content text anyway.
    pub image_chunks_template_only: bool,
}

impl Default for MaskRules {
    fn default() -> Self {
        MaskRules {
            letterless_neutral: true,
            wrappers: true,
            image_chunks_template_only: true,
        }
    }
}

/// Settings of [`learn`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TableChunkConfig {
    /// Chunking and keys.
    pub chunking: Chunking,
    /// How chunk verdicts become a node mask.
    pub rules: MaskRules,
    /// A chunk on at least this fraction of the learned pages is template. The paper uses a
    /// fixed count chosen per collection; a fraction transfers across cluster sizes.
    /// 0.7 does best on the dev gold (BENCHMARKS.md).
    pub fraction: f64,
    /// A chunk must be on at least this many pages, whatever the fraction says: with a
    /// couple of pages a single page would otherwise make its own text template.
    pub min_pages: usize,
}

impl Default for TableChunkConfig {
    fn default() -> Self {
        TableChunkConfig {
            chunking: Chunking::default(),
            rules: MaskRules::default(),
            fraction: 0.7,
            min_pages: 2,
        }
    }
}

/// A text chunk of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The normalized text (whitespace collapsed, image words included).
    pub text: String,
    /// The key the model knows the chunk by ([`ChunkKeys`]).
    pub key: u64,
    /// The innermost boundary element holding the chunk (the body when none does).
    pub block: NodeId,
    /// The text nodes and images whose text makes up the chunk, in document order.
    pub nodes: Vec<NodeId>,
}

impl Chunk {
    /// Whether the text has a letter (any script): chunks without one are numbers, dates,
    /// separators ([`MaskRules::letterless_neutral`]).
    pub fn has_letter(&self) -> bool {
        self.text.chars().any(char::is_alphabetic)
    }
}

/// Collapse whitespace (Unicode's, so NBSP and the other fixed-width spaces too) to single
/// spaces, trim, and drop zero-width characters and soft hyphens, which are invisible but
/// differ between otherwise identical texts. Entities are already decoded by the parser.
pub fn normalize_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if is_invisible_char(c) {
            continue;
        }
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
    out
}

/// Zero-width characters and soft hyphens: invisible, and dropped by [`normalize_text`].
fn is_invisible_char(c: char) -> bool {
    matches!(
        c,
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{00ad}'
    )
}

/// Whether [`normalize_text`] leaves anything of `s` (without building the string).
pub fn has_visible_text(s: &str) -> bool {
    s.chars()
        .any(|c| !c.is_whitespace() && !is_invisible_char(c))
}

/// Words that make an image name or ALT text say nothing: layout graphics, generic nouns,
/// camera and size labels. Kept short and generic; anything else with a real word is
/// informative.
pub const UNINFORMATIVE: &[&str] = &[
    "img",
    "image",
    "images",
    "imgs",
    "pic",
    "pics",
    "picture",
    "photo",
    "graphic",
    "graphics",
    "gfx",
    "spacer",
    "space",
    "spc",
    "shim",
    "blank",
    "empty",
    "clear",
    "clearpixel",
    "transparent",
    "trans",
    "pixel",
    "pix",
    "dot",
    "bullet",
    "line",
    "bar",
    "nav",
    "icon",
    "bkg",
    "background",
    "thumb",
    "thumbnail",
    "small",
    "medium",
    "large",
    "big",
    "default",
    "untitled",
    "unnamed",
    "copy",
    "dsc",
    "dscn",
    "dcim",
    "screenshot",
    "scaled",
    "cropped",
    "resized",
    "min",
    "file",
    "jpg",
    "jpeg",
    "gif",
    "png",
    "webp",
    "svg",
    "bmp",
];

const IMAGE_EXTENSIONS: &[&str] = &[
    "gif", "jpg", "jpeg", "png", "webp", "svg", "bmp", "ico", "avif", "tif", "tiff",
];

/// The words of an image file name, when they are informative: `home-button.gif` → "home
/// button", `aboutUs_2.png` → "about us"; `None` for `img9.gif`, `spacer.gif`,
/// `IMG_20190312_1234.jpg`, `a3f9c0e1b2.png`, data URIs.
///
/// The rule: take the last path segment (query and fragment dropped, percent-decoded), drop
/// its extension, split it into words at punctuation, lower-to-upper case changes and
/// letter/digit changes, and keep the words that are at least 2 letters long, hold a vowel
/// (`btn`, `hdr`, `nv` are abbreviations, not words) and are not [layout or camera
/// words](UNINFORMATIVE); the name is informative when one of them has 3 letters or more. Tokens that mix letters and digits over 8 characters or more are
/// identifiers (hashes, upload ids) and dropped whole. Scripts without case or vowels
/// (CJK, …) are kept as they are.
pub fn image_name_words(src: &str) -> Option<String> {
    let src = src.trim();
    if src.len() > 5 && src[..5].eq_ignore_ascii_case("data:") {
        return None;
    }
    let path = src.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit(['/', '\\']).next().unwrap_or("");
    let decoded = percent_decode_str(last).decode_utf8_lossy();
    let stem = match decoded.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && ext.len() <= 5
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            stem
        }
        _ => &decoded,
    };
    let mut words: Vec<String> = Vec::new();
    for token in stem.split(|c: char| !c.is_alphanumeric()) {
        let has_digit = token.chars().any(|c| c.is_ascii_digit());
        let has_alpha = token.chars().any(char::is_alphabetic);
        if has_digit && has_alpha && token.chars().count() >= 8 {
            continue;
        }
        for w in split_word(token) {
            if informative_word(&w) {
                words.push(w);
            }
        }
    }
    // Two-letter words ("about us", "log in") only count beside a longer one.
    let has_long = words.iter().any(|w| !w.is_ascii() || w.len() >= 3);
    has_long.then(|| words.join(" "))
}

/// Split a token at lower-to-upper case changes and letter/digit changes, lower-cased.
fn split_word(token: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in token.chars() {
        if let Some(p) = prev {
            let case_change = p.is_lowercase() && c.is_uppercase();
            let digit_change = p.is_ascii_digit() != c.is_ascii_digit();
            if (case_change || digit_change) && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn informative_word(w: &str) -> bool {
    if w.chars().all(|c| c.is_ascii_digit()) || UNINFORMATIVE.contains(&w) {
        return false;
    }
    if !w.is_ascii() {
        // Other scripts: any letter counts (a CJK character is a word).
        return w.chars().any(char::is_alphabetic);
    }
    w.len() >= 2
        && w.bytes().all(|b| b.is_ascii_alphabetic())
        && w.bytes()
            .any(|b| b"aeiouy".contains(&b.to_ascii_lowercase()))
}

/// ALT text, when informative: normalized, and at least one real word that is not a layout
/// word ("image", "spacer", "*", "" are not). ALT text that is a file name
/// (`IMG_1234.jpg`, `home-button.gif`) goes through [`image_name_words`].
pub fn informative_alt(alt: &str) -> Option<String> {
    let alt = normalize_text(alt);
    if alt.is_empty() {
        return None;
    }
    if !alt.contains(' ') {
        if let Some((_, ext)) = alt.rsplit_once('.') {
            if IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
                return image_name_words(&alt);
            }
        }
    }
    let lower = alt.to_lowercase();
    let real_word = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .any(|w| {
            !UNINFORMATIVE.contains(&w)
                && (w.chars().count() >= 2 || !w.is_ascii())
                && w.chars().any(char::is_alphabetic)
        });
    real_word.then_some(alt)
}

/// The text an image element contributes to its chunk: its informative ALT text, then the
/// informative words of its file name that the ALT text does not already say. `img`,
/// `input type=image` (ALT and `src`) and image-map `area`s (ALT only) count; lazy-loaded
/// images name their file in `data-src` when `src` is a placeholder.
pub fn image_text(e: &Element) -> Option<String> {
    let is_img = e.is(&local_name!("img"))
        || (e.is(&local_name!("input"))
            && e.attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("image")));
    let is_area = e.is(&local_name!("area"));
    if !is_img && !is_area {
        return None;
    }
    let alt = e.attr("alt").and_then(informative_alt);
    let name = if is_img {
        let src = e
            .attr("src")
            .filter(|s| !s.trim().is_empty() && !s.trim_start().starts_with("data:"))
            .or_else(|| e.attr("data-src"))
            .or_else(|| e.attr("data-lazy-src"));
        src.and_then(image_name_words)
    } else {
        None
    };
    match (alt, name) {
        (Some(a), Some(n)) => {
            let lower = a.to_lowercase();
            let alt_words: Vec<&str> = lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let new: Vec<&str> = n.split(' ').filter(|w| !alt_words.contains(w)).collect();
            if new.is_empty() {
                Some(a)
            } else {
                Some(format!("{a} {}", new.join(" ")))
            }
        }
        (a, n) => a.or(n),
    }
}

/// Cut a page into text chunks, in document order (see the [module docs](self)). Iterative:
/// arbitrarily deep pages are fine.
pub fn page_chunks(doc: &Document, chunking: &Chunking) -> Vec<Chunk> {
    let root = doc.body().unwrap_or(NodeId::ROOT);
    let n = doc.len();
    // Tag path per element: the chain of tag names from the root. Ids and classes are left
    // out (the current menu item's class, `postid-…` differ between pages of a template).
    let mut path = vec![0u64; n];
    let mut enc = Encoder::new();
    for id in doc.ids() {
        if let Some(e) = doc.element(id) {
            let parent = doc.parent(id).map_or(0, |p| path[p.index()]);
            path[id.index()] = enc.start().u64(parent).last_str(&e.name.local).finish();
        }
    }
    let mut chunks = Vec::new();
    let mut occurrences: FxHashMap<(u64, u64), u32> = FxHashMap::default();
    let mut raw = String::new();
    let mut nodes: Vec<NodeId> = Vec::new();
    // Open boundary elements (id, subtree end); the root is the outermost block.
    let mut open: Vec<(NodeId, u32)> = vec![(root, doc.node(root).end.0)];
    // Ends of block-level elements that are not boundaries (a `div` under table
    // boundaries): they break words, not chunks.
    let mut soft: Vec<u32> = Vec::new();
    let mut flush = |raw: &mut String, nodes: &mut Vec<NodeId>, block: NodeId| {
        if nodes.is_empty() {
            raw.clear();
            return;
        }
        let text = normalize_text(raw);
        raw.clear();
        if text.is_empty() {
            nodes.clear();
            return;
        }
        let text_hash = stable_hash(&text);
        let block_path = match chunking.keys {
            ChunkKeys::TextPath | ChunkKeys::TextPathOccurrence => path[block.index()],
            ChunkKeys::Text | ChunkKeys::TextOccurrence => 0,
        };
        let occurrence = match chunking.keys {
            ChunkKeys::TextOccurrence | ChunkKeys::TextPathOccurrence => {
                let k = occurrences.entry((text_hash, block_path)).or_insert(0);
                *k += 1;
                *k - 1
            }
            ChunkKeys::Text | ChunkKeys::TextPath => 0,
        };
        let key = enc
            .start()
            .u32(KEY_SCHEME)
            .u64(text_hash)
            .u64(block_path)
            .u32(occurrence)
            .finish();
        chunks.push(Chunk {
            text,
            key,
            block,
            nodes: std::mem::take(nodes),
        });
    };
    let range = doc.subtree(root);
    let mut i = range.start + 1;
    while i < range.end {
        while soft.last().is_some_and(|&end| end <= i) {
            soft.pop();
            raw.push(' ');
        }
        while open.len() > 1 && open.last().is_some_and(|&(_, end)| end <= i) {
            let (block, _) = open.pop().unwrap_or((root, 0));
            flush(&mut raw, &mut nodes, block);
        }
        let id = NodeId(i);
        match &doc.node(id).data {
            NodeData::Element(e) => {
                if is_invisible(&e.name.local) {
                    i = doc.node(id).end.0;
                    continue;
                }
                if chunking.boundaries.is_boundary(&e.name.local) {
                    let block = open.last().map_or(root, |o| o.0);
                    flush(&mut raw, &mut nodes, block);
                    open.push((id, doc.node(id).end.0));
                } else if is_block(&e.name.local) {
                    raw.push(' ');
                    soft.push(doc.node(id).end.0);
                } else if chunking.images {
                    if let Some(t) = image_text(e) {
                        raw.push(' ');
                        raw.push_str(&t);
                        raw.push(' ');
                        nodes.push(id);
                    }
                }
            }
            NodeData::Text(r) => {
                let t = &doc.text_buffer()[r.clone()];
                if has_visible_text(t) {
                    raw.push_str(t);
                    nodes.push(id);
                } else {
                    // Keep word separation, but a blank node is not part of a chunk.
                    raw.push(' ');
                }
            }
            _ => {}
        }
        i += 1;
    }
    while let Some((block, _)) = open.pop() {
        flush(&mut raw, &mut nodes, block);
    }
    chunks
}

/// The chunk keys of a page: all a learner needs of it.
pub fn page_keys(doc: &Document, chunking: &Chunking) -> Vec<u64> {
    page_chunks(doc, chunking)
        .into_iter()
        .map(|c| c.key)
        .collect()
}

/// Streams a cluster's pages into chunk document frequencies (pass 1), for callers that
/// see pages one at a time (a crawl, batch mode); [`learn`] is the one-call form.
#[derive(Debug, Clone)]
pub struct TableChunkLearner {
    config: TableChunkConfig,
    df: SiteLevel,
}

impl TableChunkLearner {
    /// No pages yet.
    pub fn new(config: TableChunkConfig) -> Self {
        TableChunkLearner {
            config,
            df: SiteLevel::new(),
        }
    }

    /// Count one page: each of its chunk keys once, however often it occurs.
    pub fn add(&mut self, doc: &Document) {
        self.add_keys(&page_keys(doc, &self.config.chunking));
    }

    /// Count one page given its [`page_keys`] (batch runs keep only the keys of sampled
    /// pages, not the pages).
    pub fn add_keys(&mut self, keys: &[u64]) {
        self.df.add_hashes(keys);
    }

    /// Pages counted.
    pub fn pages(&self) -> usize {
        self.df.pages()
    }

    /// The learned template: the chunks at or above the threshold.
    pub fn model(&self) -> TableChunkModel {
        let pages = self.df.pages();
        let threshold = df_threshold(pages, self.config.fraction, self.config.min_pages);
        TableChunkModel {
            scheme: KEY_SCHEME,
            chunking: self.config.chunking,
            rules: self.config.rules,
            pages,
            fraction: self.config.fraction,
            threshold,
            chunks: self.df.frequent(threshold),
        }
    }
}

/// Learn the template chunks of a cluster of pages of one template (pass 1).
pub fn learn<'a>(
    pages: impl IntoIterator<Item = &'a Document>,
    config: &TableChunkConfig,
) -> TableChunkModel {
    let mut learner = TableChunkLearner::new(*config);
    for doc in pages {
        learner.add(doc);
    }
    learner.model()
}

/// A learned template: the keys of the cluster's template chunks with their document
/// frequencies, and the chunking that made them. Self-contained and compact (12 bytes per
/// template chunk, no text), for storing in a template store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableChunkModel {
    /// [`KEY_SCHEME`] of the keys; a model of another scheme marks nothing.
    pub scheme: u32,
    /// How pages are chunked and chunks keyed.
    pub chunking: Chunking,
    /// How chunk verdicts become a node mask.
    pub rules: MaskRules,
    /// Pages learned from.
    pub pages: usize,
    /// The threshold fraction learned with.
    pub fraction: f64,
    /// The document frequency a chunk needed to be template.
    pub threshold: u32,
    /// Template chunk keys, sorted, each with its document frequency.
    pub chunks: Vec<(u64, u32)>,
}

impl TableChunkModel {
    /// Number of template chunks.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether the model knows no template chunk (too few pages, or nothing recurs).
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The document frequency of a template chunk key; `None` if it is not template.
    pub fn df(&self, key: u64) -> Option<u32> {
        if self.scheme != KEY_SCHEME {
            return None;
        }
        self.chunks
            .binary_search_by_key(&key, |c| c.0)
            .ok()
            .map(|i| self.chunks[i].1)
    }

    /// Whether a chunk key is template.
    pub fn is_template(&self, key: u64) -> bool {
        self.df(key).is_some()
    }

    /// The page's chunks, each with whether it is template (pass 2).
    pub fn classify(&self, doc: &Document) -> Vec<(Chunk, bool)> {
        page_chunks(doc, &self.chunking)
            .into_iter()
            .map(|c| {
                let t = self.is_template(c.key);
                (c, t)
            })
            .collect()
    }

    /// Per node id of `doc`: whether the node is template. A text node or image is template
    /// when its chunk is; an element when every chunk in its subtree is template and it has
    /// at least one. Nodes without chunk text (scripts, spacers, empty elements,
    /// uninformative images) follow their parent, and those directly under `<body>` are
    /// template: outside every chunk, they are layout, as in the site-level methods. The
    /// document, `<html>`, `<body>` and everything outside the body are never template, and
    /// nothing is when none of the page's chunks is. The model's [`MaskRules`] refine this (on by default): letter-less chunks are no
    /// evidence, and layout wrappers with a template child are template.
    pub fn template_mask(&self, doc: &Document) -> Vec<bool> {
        let chunks = self.classify(doc);
        chunk_mask(doc, &chunks, &self.rules)
    }

    /// The share of the page's chunk text (in characters) that is template: the paper's
    /// template fraction of one page. 0 for a page without text.
    pub fn template_share(&self, doc: &Document) -> f64 {
        template_share(&self.classify(doc))
    }
}

/// The template share of classified chunks (see [`TableChunkModel::template_share`]).
pub fn template_share(chunks: &[(Chunk, bool)]) -> f64 {
    let (mut tpl, mut all) = (0usize, 0usize);
    for (c, t) in chunks {
        let n = c.text.chars().count();
        all += n;
        if *t {
            tpl += n;
        }
    }
    if all == 0 {
        0.0
    } else {
        tpl as f64 / all as f64
    }
}

/// The node mask of classified chunks under `rules` (see
/// [`TableChunkModel::template_mask`]).
pub fn chunk_mask(doc: &Document, chunks: &[(Chunk, bool)], rules: &MaskRules) -> Vec<bool> {
    let n = doc.len();
    if !chunks.iter().any(|(_, t)| *t) {
        // No template chunk, no evidence: not even the scripts under <body> are template
        // (a page of another template, a model learned from too few pages).
        return vec![false; n];
    }
    // Per node: holds evidence (chunk text), and all of it template (bottom-up).
    let mut has_chunk = vec![false; n];
    let mut all_template = vec![true; n];
    for (c, t) in chunks {
        if rules.letterless_neutral && !c.has_letter() {
            continue;
        }
        if rules.image_chunks_template_only && !*t && c.nodes.iter().all(|n| doc.text(*n).is_none())
        {
            continue;
        }
        for id in &c.nodes {
            if let Some(i) = has_chunk.get_mut(id.index()) {
                *i = true;
                all_template[id.index()] &= *t;
            }
        }
    }
    let root = doc.body().unwrap_or(NodeId::ROOT);
    let scope = doc.subtree(root);
    for i in scope.clone().rev() {
        let id = NodeId(i);
        if id == root {
            break;
        }
        if let Some(p) = doc.parent(id) {
            has_chunk[p.index()] |= has_chunk[id.index()];
            all_template[p.index()] &= all_template[id.index()];
        }
    }
    let inner = scope.start + 1..scope.end;
    let mut template = vec![false; n];
    for i in inner.clone() {
        template[i as usize] = has_chunk[i as usize] && all_template[i as usize];
    }
    if rules.wrappers {
        // Children before parents, so that nested wrappers follow their template child.
        for i in inner.clone().rev() {
            let id = NodeId(i);
            if template[i as usize] || !has_chunk[i as usize] || doc.element(id).is_none() {
                continue;
            }
            let own_text = doc
                .children(id)
                .any(|c| doc.text(c).is_some_and(has_visible_text));
            if !own_text
                && doc
                    .element_children(id)
                    .any(|c| has_chunk[c.index()] && template[c.index()])
            {
                template[i as usize] = true;
            }
        }
    }
    // Parents before children: nodes without evidence follow their parent; under the
    // body they are layout (scripts, spacers, empty shells outside every content block).
    for i in inner {
        let id = NodeId(i);
        if !has_chunk[i as usize] {
            template[i as usize] = doc
                .parent(id)
                .is_none_or(|p| p == root || template[p.index()]);
        }
    }
    if let Some(html) = doc.html() {
        template[html.index()] = false;
    }
    template
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    fn texts(doc: &Document, chunking: &Chunking) -> Vec<String> {
        page_chunks(doc, chunking)
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn table_boundaries_cut_at_table_nodes_only() {
        let doc = parse_str(
            "<body>top <div>a</div><table><tr><td>x <b>y</b><div>z</div></td><td>w</td></tr></table>end</body>",
        );
        let table = Chunking {
            boundaries: Boundaries::Table,
            ..Chunking::default()
        };
        assert_eq!(texts(&doc, &table), ["top a", "x y z", "w", "end"]);
        let block = Chunking::default();
        assert_eq!(texts(&doc, &block), ["top", "a", "x y", "z", "w", "end"]);
    }

    #[test]
    fn invisible_text_is_not_text() {
        let doc = parse_str(
            "<body><p>a<script>var x = 1;</script>b<style>p{}</style><noscript>n</noscript></p></body>",
        );
        assert_eq!(texts(&doc, &Chunking::default()), ["ab"]);
    }

    #[test]
    fn normalization() {
        assert_eq!(normalize_text("  a\u{a0}\u{a0}b\n\tc\u{200b}d  "), "a b cd");
        assert_eq!(normalize_text("\u{a0} \u{feff}"), "");
        assert_eq!(normalize_text("so\u{ad}ft"), "soft");
        for t in ["  a ", "\u{a0} \u{feff}", "", "\u{200b}x", " \u{ad} "] {
            assert_eq!(has_visible_text(t), !normalize_text(t).is_empty(), "{t:?}");
        }
    }

    #[test]
    fn image_names() {
        assert_eq!(
            image_name_words("/img/home-button.gif").as_deref(),
            Some("home button")
        );
        assert_eq!(
            image_name_words("aboutUs_2.png?v=3").as_deref(),
            Some("about us")
        );
        assert_eq!(
            image_name_words("nav/Contact%20Page.JPG").as_deref(),
            Some("contact page")
        );
        for junk in [
            "img9.gif",
            "spacer.gif",
            "/i/graphic.png",
            "pixel.gif",
            "blank.gif",
            "dot_clear.gif",
            "transparent.png",
            "1234.jpg",
            "IMG_20190312_123456.jpg",
            "DSC01234.JPG",
            "a3f9c0e1b2d4.png",
            "5f2b8c9a7e.jpg",
            "btn.gif",
            "x.png",
            "data:image/gif;base64,R0lGOD",
            "",
            "/",
        ] {
            assert_eq!(image_name_words(junk), None, "{junk}");
        }
    }

    #[test]
    fn alt_texts() {
        assert_eq!(
            informative_alt(" Home\u{a0}page ").as_deref(),
            Some("Home page")
        );
        assert_eq!(informative_alt("Über uns").as_deref(), Some("Über uns"));
        assert_eq!(informative_alt("首页").as_deref(), Some("首页"));
        for junk in ["", " ", "*", "image", "Spacer", "-", "IMG_1234.jpg", "1"] {
            assert_eq!(informative_alt(junk), None, "{junk:?}");
        }
        assert_eq!(
            informative_alt("home-button.gif").as_deref(),
            Some("home button")
        );
    }

    #[test]
    fn images_join_their_chunk() {
        let doc = parse_str(
            "<body><p>Go <img src='/i/home-button.gif'> now <img src=spacer.gif alt=''><img alt='Contact us' src=contact.png></p></body>",
        );
        let chunks = page_chunks(&doc, &Chunking::default());
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "Go home button now Contact us");
        // Two text nodes and the two informative images; the spacer is not part of it.
        assert_eq!(chunks[0].nodes.len(), 4);
        let no_images = Chunking {
            images: false,
            ..Chunking::default()
        };
        assert_eq!(texts(&doc, &no_images), ["Go now"]);
        // A page of images only still has chunks.
        let doc = parse_str("<body><a href=/><img src=/logo/riverbend-logo.png></a></body>");
        assert_eq!(texts(&doc, &Chunking::default()), ["riverbend logo"]);
    }

    #[test]
    fn keys_per_scheme() {
        let doc = parse_str("<body><ul><li>Home</li></ul><p>Home</p><ul><li>Home</li></ul></body>");
        let keys = |k| {
            page_chunks(
                &doc,
                &Chunking {
                    keys: k,
                    ..Chunking::default()
                },
            )
            .into_iter()
            .map(|c| c.key)
            .collect::<Vec<_>>()
        };
        let t = keys(ChunkKeys::Text);
        assert!(t[0] == t[1] && t[1] == t[2]);
        let o = keys(ChunkKeys::TextOccurrence);
        assert!(o[0] != o[1] && o[1] != o[2] && o[0] != o[2]);
        let p = keys(ChunkKeys::TextPath);
        assert!(p[0] != p[1] && p[0] == p[2]);
        let po = keys(ChunkKeys::TextPathOccurrence);
        assert!(po[0] != po[1] && po[0] != po[2] && po[1] != po[2]);
        // The same page gives the same keys.
        assert_eq!(po, keys(ChunkKeys::TextPathOccurrence));
    }

    #[test]
    fn threshold_is_a_fraction_with_a_floor() {
        let pages: Vec<Document> = (0..10)
            .map(|i| {
                parse_str(&format!(
                    "<body><p>everywhere</p>{}<p>page {i}</p></body>",
                    if i < 4 { "<p>four</p>" } else { "" }
                ))
            })
            .collect();
        let config = TableChunkConfig {
            fraction: 0.5,
            ..TableChunkConfig::default()
        };
        let m = learn(&pages, &config);
        assert_eq!((m.pages, m.threshold, m.len()), (10, 5, 1));
        let m = learn(
            &pages,
            &TableChunkConfig {
                fraction: 0.3,
                ..config
            },
        );
        assert_eq!((m.threshold, m.len()), (3, 2));
        // One page: the floor of 2 keeps its own text from being template.
        let m = learn(&pages[..1], &config);
        assert_eq!((m.threshold, m.len()), (2, 0));
        assert!(m.template_mask(&pages[0]).iter().all(|t| !t));
        assert!(m.chunks.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn textless_elements_follow_their_parent() {
        let pages: Vec<Document> = (0..3)
            .map(|i| {
                parse_str(&format!(
                    "<body><script>x</script><div id=nav><a href=/>Home</a><span class=sep></span><br></div>\
                     <div id=main><p>Post {i}</p><img src=spacer.gif><div class=clear></div></div></body>"
                ))
            })
            .collect();
        let m = learn(&pages, &TableChunkConfig::default());
        let doc = &pages[1];
        let mask = m.template_mask(doc);
        let find = |css: &str| crate::dom::select(doc, css).unwrap()[0];
        for tpl in ["script", "#nav", "#nav a", ".sep", "#nav br"] {
            assert!(mask[find(tpl).index()], "{tpl}");
        }
        for content in ["#main", "#main p", "#main img", ".clear"] {
            assert!(!mask[find(content).index()], "{content}");
        }
        assert!(!mask[doc.body().unwrap().index()]);
        assert!(!mask[doc.html().unwrap().index()]);
        assert!((m.template_share(doc) - 4.0 / 10.0).abs() < 1e-9);
    }

    #[test]
    fn foreign_scheme_marks_nothing() {
        let pages: Vec<Document> = (0..3).map(|_| parse_str("<p>same</p>")).collect();
        let mut m = learn(&pages, &TableChunkConfig::default());
        assert!(m.template_mask(&pages[0]).iter().any(|t| *t));
        m.scheme += 1;
        assert!(m.template_mask(&pages[0]).iter().all(|t| !t));
    }
}
