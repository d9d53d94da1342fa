//! One entry point for "the content of this page": bytes in, a [`PageContent`] out, rendered
//! as text, Markdown or HTML. The CLI, batch mode, the Python package and the server all
//! go through it (or, with a site, through [`crate::template::TemplateResult::content`]).

use std::time::{Duration, Instant};

use url::Url;

use crate::dom::{Budget, Document, NodeId, PageError, ParseMode, deadline, parse_page};
use crate::extract::{
    Block, Content, ContentConfig, DATED_WORDS, Lines, Metadata, Rest, content_html,
    content_markdown, content_text, declares_article, declares_discussion, declares_product,
    drop_beyond_main, drop_control_labels, drop_copyright_lines, drop_dismissible_notices,
    drop_fine_print, drop_folded_boxes, drop_guest_prompts, drop_hidden_link_lists,
    drop_identifier_lines, drop_link_carousels, drop_never_content, drop_noscript_notices,
    drop_popovers, drop_post_chrome, drop_post_slots, drop_product_asides, drop_repeated_copies,
    drop_repeated_quotes, drop_screen_reader_text, drop_user_cards, has_kept_text, is_menu,
    kept_words, opens_with_date, page_content_and_blocks, page_metadata, product_description,
    short_page_content, show_closed, show_declared_description, spread_content, url_date,
};
use crate::method::Method;
use crate::pagelevel::features::{NO_ROW, node_features_with};
use crate::pagelevel::{self, Forest, Model as PageLevelModel, PageLevelConfig};

/// What is known of a page besides its bytes.
#[derive(Debug, Clone, Default)]
pub struct PageHints {
    /// The page's URL, when known (reported with the content).
    pub url: Option<Url>,
    /// The charset the transport named (HTTP `Content-Type`); the bytes decide otherwise
    /// (BOM, `<meta charset>`, detection).
    pub charset: Option<String>,
}

/// Time spent on one page.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContentTimings {
    /// Decoding and parsing the page (with a site: loading and parsing the key page).
    pub parse: Duration,
    /// Finding the content (with a site: the siblings, mappings and votes too).
    pub extract: Duration,
}

/// The content of a page: its parsed document, which nodes are content, and how that was
/// decided. Render it with [`text`](Self::text), [`markdown`](Self::markdown) or
/// [`html`](Self::html).
#[derive(Debug, Clone)]
pub struct PageContent {
    doc: Document,
    root: NodeId,
    keep: Vec<bool>,
    /// Without the URL's date, known only from [`with_context`](Self::with_context); read
    /// when first asked for (text alone never needs it).
    metadata: std::sync::OnceLock<Metadata>,
    method: Method,
    url: Option<Url>,
    timings: ContentTimings,
}

impl PageContent {
    /// The content of `doc` given as a keep mask (per node id) under `root`, found by
    /// `method`. The title is [`Metadata::title`](Metadata::title).
    pub fn new(doc: Document, root: NodeId, keep: Vec<bool>, method: Method) -> PageContent {
        PageContent {
            doc,
            root,
            keep,
            metadata: std::sync::OnceLock::new(),
            method,
            url: None,
            timings: ContentTimings::default(),
        }
    }

    /// The page-level main content of an already parsed page: the main container, or on a
    /// page that spreads its content, what is not chrome ([`ContentConfig::spread`]).
    pub fn main_content(doc: Document, config: &ContentConfig) -> PageContent {
        let c = page_level_content(&doc, None, config);
        let root = c.root.unwrap_or(NodeId::ROOT);
        PageContent::new(doc, root, c.keep, Method::MainContent)
    }

    /// The same content with its URL and timings set.
    pub fn with_context(mut self, url: Option<Url>, timings: ContentTimings) -> PageContent {
        self.url = url;
        self.timings = timings;
        self
    }

    /// The content as plain text, one line per block.
    pub fn text(&self) -> String {
        content_text(&self.doc, self.root, &|id| self.is_content(id))
    }

    /// The content as Markdown (headings, lists, tables and code blocks kept).
    pub fn markdown(&self) -> String {
        content_markdown(&self.doc, self.root, &|id| self.is_content(id))
    }

    /// The content as HTML.
    pub fn html(&self) -> String {
        content_html(&self.doc, self.root, &|id| self.is_content(id))
    }

    /// The page title ([`Metadata::title`](Metadata::title)).
    pub fn title(&self) -> Option<&str> {
        self.page_metadata().title.as_deref()
    }

    /// The page's title, author, publication date and language.
    pub fn metadata(&self) -> Metadata {
        let mut m = self.page_metadata().clone();
        if m.date.is_none() {
            m.date = self.url.as_ref().and_then(url_date);
        }
        m
    }

    /// The metadata the page states, read once.
    fn page_metadata(&self) -> &Metadata {
        self.metadata.get_or_init(|| page_metadata(&self.doc, None))
    }

    /// How the content was found: [`Method::MainContent`] for the page-level extractor, else
    /// the site-level method whose template the content is the rest of.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The page's URL, when known.
    pub fn url(&self) -> Option<&Url> {
        self.url.as_ref()
    }

    /// Time spent on the page.
    pub fn timings(&self) -> ContentTimings {
        self.timings
    }

    /// Whether node `id` of [`document`](Self::document) is content.
    pub fn is_content(&self, id: NodeId) -> bool {
        self.keep.get(id.index()).copied().unwrap_or(false)
    }

    /// The parsed page.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// The element the content is rendered from (the main container, or `<body>`).
    pub fn root(&self) -> NodeId {
        self.root
    }
}

/// The page-level main content of a page's bytes: decoded (BOM, `charset` hint, `<meta
/// charset>`, detection), parsed without scripts and styles, and the main content found.
///
/// Fails if the bytes are not HTML or the page is over `budget` (see [`parse_page`]).
pub fn extract_page(
    bytes: &[u8],
    hints: &PageHints,
    config: &ContentConfig,
    budget: &Budget,
) -> Result<PageContent, PageError> {
    let t0 = Instant::now();
    let scope = budget.scope(t0);
    // Scripts and styles carry no content: the lean parse leaves their text out.
    let doc = parse_page(bytes, hints.charset.as_deref(), ParseMode::Lean, budget, t0)?;
    let parse = t0.elapsed();
    let c = page_level_content(&doc, hints.url.as_ref(), config);
    let late = || budget.timed_out("finding the content");
    if scope.passed() {
        return Err(late());
    }
    let root = c.root.unwrap_or(NodeId::ROOT);
    let content = PageContent::new(doc, root, c.keep, Method::MainContent);
    if scope.passed() {
        // Some stage stopped early: what it left is not the page's content.
        return Err(late());
    }
    let timings = ContentTimings {
        parse,
        extract: t0.elapsed() - parse,
    };
    Ok(content.with_context(hints.url.clone(), timings))
}

/// The content of a page without its site, from two views of it: the main container
/// ([`page_content`](crate::extract::page_content): the densest prose and what belongs to
/// it) and what is not chrome (the page-level template detector, PAGELEVEL). An article's
/// container holds most of what is not chrome; a listing's, a thread's or a service page's
/// holds one card, post or section of it. When the container holds less than
/// [`ContentConfig::spread`] of the words that are not chrome, the page spreads its content
/// and all of them are content ([`spread_content`]).
pub(crate) fn page_level_content(
    doc: &Document,
    url: Option<&Url>,
    config: &ContentConfig,
) -> Content {
    choose_view(doc, config, url, |container| {
        chrome(doc, url, config, container)
    })
}

/// [`page_level_content`] of a page parsed for text only (attributes pruned, as batch mode
/// parses): the detector reads what the text parse drops (the markup's length), so when it
/// is needed it reads `lean()`, the same page parsed lean — the same nodes under the same
/// ids — and the result is the lean parse's.
#[cfg(any(test, feature = "batch"))]
pub(crate) fn page_level_content_of_text(
    doc: &Document,
    url: Option<&Url>,
    config: &ContentConfig,
    lean: impl FnOnce() -> Option<Document>,
) -> Content {
    choose_view(doc, config, url, |container| match lean() {
        Some(lean) if lean.len() == doc.len() => chrome(&lean, url, config, container),
        _ => chrome(doc, url, config, container),
    })
}

/// [`page_level_content`] of a page whose site gave its template: the template is the chrome
/// of the spread view, in place of the page-level detectors' guess (what the site repeats
/// is known, and the detectors, a second parse of a page parsed for its text, cost more
/// than the rest of the page's content together). `url` is where the page was fetched, as
/// for [`page_level_content`].
pub(crate) fn page_level_content_with_template(
    doc: &Document,
    url: Option<&Url>,
    config: &ContentConfig,
    template: &[bool],
) -> Content {
    choose_view(doc, config, url, |_| template.to_vec())
}

/// What is chrome on `doc`, whose container under `config` is `container`: what both
/// page-level detectors call template — PAGELEVEL, trained on what recurs across a site's
/// pages (it keeps a thread's comment-named posts), and the content model, trained on what
/// readers of single pages call content (it keeps a listing's cards and a service page's
/// sections). One node feature set feeds both.
fn chrome(
    doc: &Document,
    url: Option<&Url>,
    config: &ContentConfig,
    container: &Content,
) -> Vec<bool> {
    chrome_by(
        doc,
        url,
        config,
        container,
        PageLevelModel::builtin(),
        Forest::builtin(),
    )
}

/// [`chrome`] as `model` and `forest` see it.
fn chrome_by(
    doc: &Document,
    url: Option<&Url>,
    config: &ContentConfig,
    container: &Content,
    model: &PageLevelModel,
    forest: &Forest,
) -> Vec<bool> {
    // The detector's features include the container under the default settings: the one
    // at hand when the settings are those.
    let defaults = ContentConfig::default();
    let same = *config
        == ContentConfig {
            spread: config.spread,
            ..defaults
        };
    // Past the deadline, nothing here is used (the features alone fill ~50 bytes a node).
    if deadline::passed() {
        return vec![false; doc.len()];
    }
    let fx = node_features_with(doc, url, same.then_some(container));
    let settings = PageLevelConfig {
        levels: CHROME_LEVELS,
        ..PageLevelConfig::default()
    };
    let mut template =
        pagelevel::detect_from(doc, &fx, &|fx, id| model.score(fx, id), &settings, false).template;
    if deadline::passed() {
        return template;
    }
    let content_settings = PageLevelConfig {
        threshold: CONTENT_THRESHOLD,
        ..settings
    };
    // Every row scored at once (four walks at a time), the rows of no node as they come.
    let scores = forest.predict_rows(&fx.values);
    let by_content = pagelevel::detect_from(
        doc,
        &fx,
        &|fx, id| match fx.row_of.get(id.index()) {
            Some(&r) if r != NO_ROW => scores
                .get(r as usize)
                .copied()
                .unwrap_or_else(|| forest.predict(fx.row(id))),
            _ => forest.predict(fx.row(id)),
        },
        &content_settings,
        false,
    );
    for (t, c) in template.iter_mut().zip(by_content.template) {
        *t &= c;
    }
    template
}

/// The levels the detectors' smoothing solves over here (exact up to 256 distinct scores
/// elsewhere): the views weigh words, and a score moved by less than 1/128 of the range
/// rarely moves a word across the threshold. 64 changed 10 of the 3,404 pages of WCXB dev,
/// daniel-dev, trafilatura-eval and AEB (none by more than 0.12 F1; set F1 by at most
/// 0.0002) and cut the detectors' smoothing to a quarter: 5 % of extracting a page where
/// they run.
const CHROME_LEVELS: usize = 64;

/// The content model's threshold on smoothed templateness: it errs towards content, which
/// the container rule and PAGELEVEL then weigh (cross-validated by domain on WCXB dev: 0.5
/// holds out 0.817, 0.8 0.841 alone; BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
const CONTENT_THRESHOLD: f64 = 0.8;

/// [`page_level_content`] given what is chrome (asked for only when the container could
/// hold too little of the page), without the quotes that repeat it
/// ([`drop_repeated_quotes`]), the copies of itself it shows ([`drop_repeated_copies`]) and
/// its lines of machine identifiers ([`drop_identifier_lines`]) and of copyright notices
/// ([`drop_copyright_lines`]), its notices to readers without scripts
/// ([`drop_noscript_notices`]) and its carousels of links ([`drop_link_carousels`]); a page
/// declaring a discussion is read with its comments ([`ContentConfig::comments`]).
fn choose_view(
    doc: &Document,
    config: &ContentConfig,
    url: Option<&Url>,
    chrome: impl FnOnce(&Content) -> Vec<bool>,
) -> Content {
    // A thread's replies are its content, not reader comments beside it (forums name each
    // post a comment: Invision's `elComment_…`, vBulletin's `comments`).
    let thread = declares_discussion(doc, url);
    let discussion;
    let config = if !config.comments && thread {
        discussion = ContentConfig {
            comments: true,
            ..config.clone()
        };
        &discussion
    } else {
        config
    };
    // Read once: the choice of view and the product's asides both ask.
    let product = declares_product(doc);
    tracing::debug!(thread, product, "page declares");
    let mut content = pick_view(doc, config, product, chrome);
    if let Some(root) = content.root.filter(|_| !deadline::passed()) {
        // The page's words, counted once and only if a name rule finds something.
        let counted = std::cell::OnceCell::new();
        let page_words =
            || *counted.get_or_init(|| doc.body().map_or(0, |b| kept_words(doc, b, |_| true)));
        if product {
            drop_product_asides(doc, &mut content, page_words);
            if let Some(description) = product_description(doc) {
                show_declared_description(doc, &mut content, &description);
            }
        }
        // (The description may have grown the root.)
        let root = content.root.unwrap_or(root);
        // An article's disclaimer is its publisher's word in the story (a financial news
        // site's "No investment advice", which the golds keep).
        let article = declares_article(doc);
        if !article {
            drop_fine_print(doc, &mut content, page_words);
        }
        // The container leaves hidden elements out, the spread view keeps them. A product's
        // hidden panels hold its specifications and reviews, which its golds leave out. A
        // control that names its panel says a reader opens it; a question over a hidden
        // element only suggests it, and an article's FAQ is no part of it.
        if Some(root) != doc.body() && !product {
            show_closed(doc, &mut content, !article);
        }
        drop_screen_reader_text(doc, &mut content);
        drop_link_carousels(doc, &mut content);
        drop_noscript_notices(doc, &mut content);
        drop_dismissible_notices(doc, &mut content);
        drop_popovers(doc, &mut content);
        drop_repeated_quotes(doc, root, &mut content.keep);
        if let Some(lines) = Lines::of(doc, root, &content.keep) {
            drop_repeated_copies(doc, &lines, &mut content.keep);
            drop_identifier_lines(doc, &lines, &mut content.keep);
            drop_copyright_lines(doc, &lines, &mut content.keep);
            if thread {
                drop_post_chrome(doc, &lines, &mut content.keep);
                drop_post_slots(doc, root, &lines, &mut content.keep);
            }
        }
        if thread {
            drop_user_cards(doc, &mut content);
            drop_guest_prompts(doc, &mut content);
            drop_folded_boxes(doc, &mut content);
        }
        // Last: the quote and line rules above compare posts' text with their labels in.
        drop_control_labels(doc, &mut content, thread);
    }
    let empty = || {
        let root = content.root.unwrap_or(NodeId::ROOT);
        !has_kept_text(doc, root, &content.keep)
    };
    if !deadline::passed() && empty() {
        // A page whose only text is a notice to readers without scripts shows them nothing
        // else: an app's shell ("You need to enable JavaScript to run this app").
        if let Some(mut short) = short_page_content(doc, config) {
            drop_noscript_notices(doc, &mut short);
            if short
                .root
                .is_some_and(|r| has_kept_text(doc, r, &short.keep))
            {
                content = short;
            }
        }
    }
    // Links alone, a few of them, are a menu: the page shows nothing else (an app's shell
    // with its account links, a forum's shell whose posts a script loads).
    if content
        .root
        .is_some_and(|root| is_menu(doc, root, &content.keep, MENU_WORDS))
    {
        content.keep.iter_mut().for_each(|k| *k = false);
    }
    content
}

/// The words under which content made of links alone is a menu, not a list of links the
/// page is for (a directory's): a menu of account or section links holds a handful. On the
/// four sets the rule moves the same two pages from 20 words to no bound at all.
const MENU_WORDS: usize = 50;

/// The container or the spread view, whichever holds the page's content: the spread view
/// when the container holds under [`ContentConfig::spread`] of its words, or under
/// [`SECTIONS_SHARE`] of them while the rest reads as sections of prose
/// ([`Rest::is_sections`]: a service page's hero, features and answers). `product`: the
/// page declares one product ([`declares_product`]).
fn pick_view(
    doc: &Document,
    config: &ContentConfig,
    product: bool,
    chrome: impl FnOnce(&Content) -> Vec<bool>,
) -> Content {
    let (container, blocks, filler) = page_content_and_blocks(doc, config);
    let Some(body) = doc.body().filter(|_| !deadline::passed()) else {
        return container;
    };
    if config.spread <= 0.0 {
        return container;
    }
    let root = container.root.unwrap_or(body);
    let inside = kept_words(doc, root, |id| container.is_content(id)) as f64;
    // A page that says it is an article has its content in one place: what else it shows
    // (comments, related stories) is not its content. Unless that place holds next to
    // nothing: a link post whose discussion is the page, a recipe index, a docs page that
    // SEO plugins declare an article.
    if declares_article(doc) && inside >= ARTICLE_WORDS {
        return container;
    }
    // What is not chrome is at most the page's words: the detectors run only when the
    // container could fall under either share.
    let page_words = kept_words(doc, body, |id| !filler[id.index()]);
    if inside >= config.spread.max(SECTIONS_SHARE) * page_words as f64 {
        return container;
    }
    let outside = |b: &&Block| !container.is_content(b.owner);
    // An article of its own: prose, under a fifth in links. Beside it, comment sections are
    // reader comments, not a thread's replies (a thread's first post is short, or the page
    // declares a discussion and `config.comments` is on): the spread view leaves them out.
    let own = Rest::of(blocks.iter().filter(|b| container.is_content(b.owner)));
    // A short story stamped with its date is one too (a listing's intro bears no stamp).
    let article = (inside >= NAVIGATION_WORDS
        || (inside > DATED_WORDS as f64 && opens_with_date(doc, root)))
        && f64::from(own.link_words) < NAVIGATION_OWN_LINKS * f64::from(own.words);
    let comments = config.comments || !article;
    // The spread view holds at most what it would hold if nothing were chrome (`most`), and
    // adds at most `most`'s rest to the container.
    let most = spread_content(doc, &filler, page_words, comments);
    let most_rest = Rest::of(
        blocks
            .iter()
            .filter(outside)
            .filter(|b| most.is_content(b.owner)),
    );
    // An article beside what is mostly links before the detectors remove any of them: the
    // site's menus and link lists, whatever the detectors call chrome (they keep link lists
    // that look like a listing's cards).
    let beside_links = article
        && f64::from(most_rest.link_words) >= NAVIGATION_MOST_LINKS * f64::from(most_rest.words);
    // Over the first share only sections of prose can tip the page: without enough headings
    // in `most`'s rest, the detectors need not run.
    if beside_links
        || (inside >= config.spread * page_words as f64 && !most_rest.is_sections(false))
    {
        return container;
    }
    if deadline::passed() {
        return container;
    }
    let mut template = chrome(&container);
    for (t, f) in template.iter_mut().zip(&filler) {
        *t |= f;
    }
    let spread = spread_content(doc, &template, page_words, comments);
    let spread_words = kept_words(doc, body, |id| spread.is_content(id)) as f64;
    let rest = Rest::of(
        blocks
            .iter()
            .filter(outside)
            .filter(|b| spread.is_content(b.owner)),
    );
    // The figures `bench/peers/viewcv.py` chooses the shares and thresholds from.
    tracing::debug!(
        inside,
        inside_words = own.words,
        inside_link_words = own.link_words,
        spread_words,
        page_words,
        rest_headings = rest.headings,
        rest_words = rest.words,
        rest_link_words = rest.link_words,
        most_rest_words = most_rest.words,
        most_rest_link_words = most_rest.link_words,
        "page-level views"
    );
    // An article beside the site's menus and link lists: the container holds prose of its
    // own and the spread view adds links. Chrome detectors trained on modern markup miss
    // the link columns of table-laid pages, and the spread view then keeps them all.
    // A product's page likewise: its container is the product, whatever its length, and
    // what it sits beside is the shop's menus and other products.
    let navigation = (article || product)
        && f64::from(rest.link_words) >= NAVIGATION_LINKS * f64::from(rest.words);
    let spreads = !navigation
        && (inside < config.spread * spread_words
            || (inside < SECTIONS_SHARE * spread_words && rest.is_sections(true)));
    tracing::debug!(spreads, "page-level view");
    if spreads {
        // What is never content, and what lies beyond the page's declared main part, leave
        // the view chosen, not the choice: the shares and thresholds above were chosen on
        // the spread view as it stands.
        let mut spread = spread;
        drop_beyond_main(doc, &mut spread, root, &blocks);
        drop_never_content(doc, &mut spread, page_words);
        drop_hidden_link_lists(doc, &mut spread, page_words);
        spread
    } else {
        container
    }
}

/// The words from which a container on a page that declares itself an article is that
/// article, and the spread view is not considered. Chosen by 5-fold cross-validation by
/// domain on WCXB dev and daniel-dev together over 20/30/50/75/100/200 (four folds chose
/// 50, one 75; BENCHMARKS.md, "Held-out figures and the thresholds chosen by
/// cross-validation").
const ARTICLE_WORDS: f64 = 50.0;

/// The share of the spread view's words under which a container beside sections of prose
/// is one section of the content. With [`ContentConfig::spread`] at 0.4 and the sections'
/// thresholds ([`Rest::is_sections`]), chosen by 5-fold cross-validation by domain on WCXB
/// dev (`bench/peers/viewcv.py`; BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
const SECTIONS_SHARE: f64 = 0.75;

/// The words a container holds when it is an article of its own, not a teaser or a card;
/// with [`NAVIGATION_OWN_LINKS`] and [`NAVIGATION_LINKS`], chosen by 5-fold
/// cross-validation by domain on WCXB dev and daniel-dev together (`bench/peers/viewcv.py`;
/// BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
const NAVIGATION_WORDS: f64 = 100.0;

/// The share of an article container's words in links under which it is prose.
const NAVIGATION_OWN_LINKS: f64 = 0.2;

/// The share of the spread view's added words in links from which they are navigation.
const NAVIGATION_LINKS: f64 = 0.4;

/// The share of links in what the spread view could add at most (nothing called chrome)
/// from which an article container (see [`NAVIGATION_WORDS`]) sits beside navigation and is
/// the content, before the detectors run: they keep link lists that look like a listing's
/// cards. Chosen by 5-fold cross-validation by domain on WCXB dev and daniel-dev over
/// 0.4/0.5/0.6/0.7/off (every fold chose 0.5, four of five once comment sections left the
/// spread view beside an article; `bench/peers/viewcv.py`). The detectors then
/// run on 37 of daniel-dev's 875 pages rather than 523, and on 381 of WCXB dev's 1,358
/// rather than 485 (BENCHMARKS.md, "Held-out figures and the thresholds chosen by
/// cross-validation").
const NAVIGATION_MOST_LINKS: f64 = 0.5;

/// The template mask that a content keep mask implies: the elements below `<body>` that are
/// neither content nor hold content (so that the wrappers around the content stay out).
pub(crate) fn outside_content(doc: &Document, keep: &[bool]) -> Vec<bool> {
    let mut template = vec![false; doc.len()];
    let Some(body) = doc.body() else {
        return template;
    };
    let kept = |id: NodeId| keep.get(id.index()).copied().unwrap_or(false);
    // Reverse document order meets children before their parents.
    let mut holds = vec![false; doc.len()];
    for id in doc.descendants(body).collect::<Vec<_>>().into_iter().rev() {
        if deadline::due(id.index()) {
            break;
        }
        if kept(id) {
            holds[id.index()] = true;
        }
        if holds[id.index()] {
            if let Some(p) = doc.parent(id) {
                holds[p.index()] = true;
            }
        } else if doc.element(id).is_some() {
            template[id.index()] = true;
        }
    }
    template
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cross-validation of the content model by registrable domain on WCXB dev: five folds,
    /// each page's content found with the forest trained on the other four, written to
    /// `$TEMPLEX_CV_OUT/cv.jsonl` for `bench/peers/cv.py`
    /// (BENCHMARKS.md: `TEMPLEX_CV_OUT=/tmp/cv cargo test --release -p templex --lib --
    /// --ignored content_model_cross_validation`).
    #[test]
    #[ignore]
    fn content_model_cross_validation() {
        let Some(data) = crate::test_support::data_dir() else {
            return;
        };
        let out = std::path::PathBuf::from(
            std::env::var("TEMPLEX_CV_OUT").unwrap_or_else(|_| "/tmp/cv".into()),
        );
        std::fs::create_dir_all(&out).unwrap();
        let pages = pagelevel::read_gold_pages(&data.join("pagelevel/wcxb-dev")).unwrap();
        let fold = |p: &pagelevel::GoldPage| {
            let host = p.url.as_ref().and_then(|u| u.host_str()).unwrap_or("");
            let domain = psl::domain_str(host).unwrap_or(host);
            (crate::stable_hash::hash_str(domain) % 5) as usize
        };
        let config = ContentConfig::default();
        // Each page is parsed and labelled once; every fold merges the others' samples.
        let samples: Vec<pagelevel::TrainingSet> = pages
            .iter()
            .map(|p| pagelevel::content_samples([p]))
            .collect();
        let mut lines = String::new();
        for k in 0..5 {
            let mut train = pagelevel::TrainingSet::default();
            for (p, s) in pages.iter().zip(&samples) {
                if fold(p) != k {
                    train.extend(s.clone());
                }
            }
            let forest =
                pagelevel::train_forest(&train, &pagelevel::ForestConfig::default(), vec![]);
            for p in pages.iter().filter(|p| fold(p) == k) {
                let budget = Budget::default();
                let Ok(doc) = parse_page(&p.html, None, ParseMode::Lean, &budget, Instant::now())
                else {
                    continue;
                };
                let url = p.url.as_ref();
                let model = PageLevelModel::builtin();
                let chosen = choose_view(&doc, &config, url, |c| {
                    chrome_by(&doc, url, &config, c, model, &forest)
                });
                let body = doc.body().unwrap_or(NodeId::ROOT);
                let text = content_text(&doc, chosen.root.unwrap_or(body), &|id| {
                    chosen.is_content(id)
                });
                let line = serde_json::json!({"id": p.id, "fold": k, "text": text});
                lines.push_str(&line.to_string());
                lines.push('\n');
            }
        }
        std::fs::write(out.join("cv.jsonl"), lines).unwrap();
    }

    /// The text `extract_page` finds in `html` with the default settings.
    fn default_text(html: &str) -> String {
        extract_page(
            html.as_bytes(),
            &PageHints::default(),
            &ContentConfig::default(),
            &Budget::default(),
        )
        .unwrap()
        .text()
    }

    /// A short news story (under an article's 100 words) stamped with its date and time is
    /// the page's content beside the site's link lists, which the spread view would add:
    /// news sites stamp each story so, a listing's intro carries no stamp.
    #[test]
    fn a_stamped_short_story_beside_link_lists_is_the_content() {
        let story = "The city council approved the new cycle lanes on Tuesday evening after a \
                     long debate. Residents had asked for safer routes to the schools for \
                     years. The trial on two streets starts in the spring and will be reviewed \
                     after six months, the mayor said.";
        let items: String = (0..10)
            .map(|i| format!("<li><a href=/n/{i}>Market report number {i} of the week</a></li>"))
            .collect();
        let links = format!(
            "<ul>{items}</ul><p>Our newsroom works for readers in the region every day of the \
             year</p>"
        );
        let page = |stamp: &str| {
            format!(
                "<html><head><title>Cycle lanes</title></head><body><div class=side>{links}\
                 </div><div class=news><div class=date>{stamp}</div><div class=text><p>{story}\
                 </p></div></div><div class=more>{links}</div></body></html>"
            )
        };
        let text = default_text;
        let stamped = text(&page("17.01.2012 18:16"));
        assert!(stamped.contains("cycle lanes"), "{stamped}");
        assert!(!stamped.contains("Market report"), "{stamped}");
        let unstamped = text(&page("Local news"));
        assert!(unstamped.contains("Market report"), "{unstamped}");
    }

    #[test]
    fn a_hidden_sign_in_box_is_no_content() {
        let story = "The city council approved the new cycle lanes on Tuesday evening after a \
                     long debate. Residents had asked for safer routes to the schools for \
                     years, and parents had written to the mayor every autumn. The trial on two \
                     streets starts in the spring and will be reviewed after six months, the \
                     mayor said, and the council will then decide whether the lanes stay for \
                     good or are taken out again before the summer holidays.";
        let terms = "We reserve the right, at our sole discretion, to change, modify, delete or \
                     otherwise alter any advertisement that may be offensive, indecent or \
                     misleading. All postings, images and other materials posted on the site \
                     remain the responsibility of those who post them, and by registering you \
                     agree to these rules and to our handling of your data. ";
        let dialog = |field: &str| {
            format!(
                "<div style='display:none'><div class=box><h2>Sign in</h2>Email: <input \
                 name=u>Password: <input type={field} name=p><p>{}</p></div></div>",
                terms.repeat(3)
            )
        };
        let page = |field: &str| {
            format!(
                "<html><head><title>Cycle lanes</title></head><body><div id=head>{}</div>\
                 <div class=main><p>{story}</p></div><div class=foot><p>Our newsroom works \
                 for readers in the region every day of the year.</p></div></body></html>",
                dialog(field)
            )
        };
        let text = default_text;
        let with_password = text(&page("password"));
        assert!(with_password.contains("cycle lanes"), "{with_password}");
        assert!(
            !with_password.contains("reserve the right"),
            "{with_password}"
        );
        // The same dialog without a password field is a hidden panel like any other.
        let without = text(&page("text"));
        assert!(without.contains("reserve the right"), "{without}");
    }

    #[test]
    fn extracts_and_renders_the_main_content() {
        let html = "<html><head><title>T</title></head><body><nav><a href=/a>Home</a> \
                    <a href=/b>About</a></nav><article><h2>Sub</h2><p>One sentence of \
                    prose that is long enough to count, with words. And a second one, \
                    too.</p></article><footer>© 2024 Someone</footer></body></html>";
        let c = extract_page(
            html.as_bytes(),
            &PageHints::default(),
            &ContentConfig::default(),
            &Budget::default(),
        )
        .unwrap();
        assert_eq!(c.method(), Method::MainContent);
        assert_eq!(c.title(), Some("T"));
        let text = c.text();
        assert!(text.contains("One sentence of prose"), "{text}");
        assert!(!text.contains("Home") && !text.contains("2024"), "{text}");
        assert!(c.markdown().contains("## Sub"), "{}", c.markdown());
        assert!(c.html().contains("<p>"), "{}", c.html());
    }

    /// A `<noscript>` notice ("JavaScript is disabled…") is what a reader whose scripts
    /// run never sees: it leaves the content, and a shell whose only text it is has none; a
    /// crawler view in `<noscript>` (a thread's posts, JavaScript named or not) stays.
    #[test]
    fn a_notice_to_readers_without_scripts_is_no_content() {
        let text = default_text;
        let notice = "<noscript><div class=notice>JavaScript is disabled. For a better \
                      experience, please enable JavaScript in your browser.</div></noscript>";
        let article = text(&format!(
            "<body><article>{notice}<h1>Tides</h1><p>The tide turns twice a day, pulled by \
             the moon, and the harbour empties at the ebb. Boats wait for the flood to leave \
             the quay, as they have for centuries.</p></article></body>"
        ));
        assert!(article.contains("The tide turns twice"), "{article}");
        assert!(!article.contains("JavaScript"), "{article}");
        let shell = text(
            "<body><noscript>You need to enable JavaScript to run this app.</noscript>\
             <div id=root></div></body>",
        );
        assert_eq!(shell, "");
        let post = "<div class=post><p>Bundlers rewrite every JavaScript module at build \
                    time, so a change to one import can move the hash of many files, which \
                    defeats the cache of every reader who came before it.</p></div>";
        let crawler = text(&format!(
            "<body><div id=app></div><noscript>{}</noscript></body>",
            post.repeat(4)
        ));
        assert!(
            crawler.contains("Bundlers rewrite every JavaScript module"),
            "{crawler}"
        );
    }

    /// A short line carrying `©` is a notice or a credit, written as a sentence or not,
    /// in either view (here the spread view, which no pruning reads); a reply that
    /// mentions the sign and code that prints it stay.
    #[test]
    fn copyright_lines_are_no_content() {
        let post = |n: usize| {
            format!(
                "<article class=post><p>Post {n}: the tide turns twice a day, pulled by the \
                 moon, and the harbour empties at the ebb, so boats wait for the flood.</p>\
                 </article>"
            )
        };
        let posts: String = (0..6).map(post).collect();
        let html = format!(
            "<html><head><link rel=canonical href='https://forum.example/threads/tides.115684/'>\
             </head><body><div id=thread>{posts}<article class=post><p>The sign © after a \
             name, as the old charts show it, told a reader who had drawn the coast, who \
             might copy it and on what terms, long before any law of any country asked the \
             makers of charts for it.</p><pre>print('© 2024')</pre></article><p>Foto © Peter Steiger\
             </p><div class=legal>Copyright © 2023 Harbour Forum. All rights reserved. Visit \
             our terms of use.</div></div></body></html>"
        );
        let doc = crate::dom::parse_str(&html);
        // The spread view whatever the container holds: nothing prunes it.
        let config = ContentConfig {
            spread: 1.0,
            ..ContentConfig::default()
        };
        let c = choose_view(&doc, &config, None, |_| vec![false; doc.len()]);
        let text = content_text(&doc, c.root.unwrap(), &|id| c.is_content(id));
        for kept in [
            "Post 0:",
            "Post 5:",
            "The sign © after a name",
            "print('© 2024')",
        ] {
            assert!(text.contains(kept), "{kept}: {text}");
        }
        for gone in ["Peter Steiger", "All rights reserved"] {
            assert!(!text.contains(gone), "{gone}: {text}");
        }
    }

    /// The spread view keeps what the template mask leaves, but never chrome by its tag or
    /// a form beside the content; a thread-wide form, comment-named posts and a closed tab
    /// stay.
    #[test]
    fn spread_content_keeps_what_is_not_chrome() {
        let doc = crate::dom::parse_str(
            "<body><div id=top><a href=/>Home</a></div><div id=posts><form id=thread>\
             <div class=comment>First post of the thread, with words.</div>\
             <div class=comment>A reply to it, with more words and a question?</div>\
             <div class=comment>Another reply, longer than the first, which thanks them all.</div>\
             <div class=tab style=display:none>Details in a closed tab.</div>\
             </form><form id=search><input name=q> Search the forum</form></div>\
             <nav>Next page</nav></body>",
        );
        let by_id = |id: &str| {
            doc.elements()
                .find(|e| doc.element(*e).and_then(|e| e.id()) == Some(id))
                .unwrap()
        };
        let mut template = vec![false; doc.len()];
        for id in doc.subtree(by_id("top")) {
            template[id as usize] = true;
        }
        let words = kept_words(&doc, doc.body().unwrap(), |_| true);
        let c = spread_content(&doc, &template, words, true);
        let text = content_text(&doc, c.root.unwrap(), &|id| c.is_content(id));
        assert!(
            text.contains("First post") && text.contains("thanks them all"),
            "{text}"
        );
        assert!(text.contains("closed tab"), "hidden: {text}");
        assert!(!text.contains("Home"), "template: {text}");
        assert!(!text.contains("Search the forum"), "side form: {text}");
        assert!(!text.contains("Next page"), "nav: {text}");
    }

    /// A link post's replies stay in the spread view when the detectors call them chrome
    /// (their user names, vote counts and reply links look like it): with `comments`, the
    /// verdict does not reach inside a comment section. Without `comments` the section is out
    /// whatever the verdict, and the verdict still holds outside it.
    #[test]
    fn the_detectors_do_not_judge_a_threads_replies() {
        let doc = crate::dom::parse_str(
            "<body><div id=top><a href=/>Home</a> <a href=/forum>Forum</a></div>\
             <div class=story><a href=/s/1>Rust project goals for 2024</a></div>\
             <ol class=comments><li id=c1><a href=/u/a>alice</a> <a href=#r1>reply</a>\
             <p>Very interested in the ergonomic ref counting for async tasks.</p></li>\
             <li id=c2><a href=/u/b>bob</a> <a href=#r2>reply</a>\
             <p>Cargo script is going to be amazing for small tools.</p></li></ol></body>",
        );
        let mut template = vec![false; doc.len()];
        for e in doc.elements() {
            if matches!(
                doc.element(e).and_then(|e| e.id()),
                Some("top" | "c1" | "c2")
            ) {
                doc.subtree(e).for_each(|i| template[i as usize] = true);
            }
        }
        let words = kept_words(&doc, doc.body().unwrap(), |_| true);
        let text = |comments| {
            let c = spread_content(&doc, &template, words, comments);
            content_text(&doc, c.root.unwrap(), &|id| c.is_content(id))
        };
        let thread = text(true);
        assert!(
            thread.contains("ergonomic ref counting") && thread.contains("Cargo script"),
            "{thread}"
        );
        assert!(thread.contains("Rust project goals"), "{thread}");
        assert!(!thread.contains("Forum"), "template: {thread}");
        let article = text(false);
        assert!(!article.contains("Cargo script"), "{article}");
        assert!(article.contains("Rust project goals"), "{article}");
    }

    /// A short thread whose posts are `<article>`s inside a moderation form stays in the
    /// spread view, however many words the page has beside it; a search form does not.
    #[test]
    fn a_short_thread_in_a_moderation_form_is_not_a_side_form() {
        let footer = "Links to every part of the site and the words around them. ".repeat(40);
        let doc = crate::dom::parse_str(&format!(
            "<body><form id=thread><input type=checkbox name=sel>\
             <article class=comment><p>Does anyone know what the two holes in the case are for?</p></article>\
             <article class=comment><p>They are for the fan hub cables.</p></article></form>\
             <form id=search><input name=q> Search the forum</form><div>{footer}</div></body>"
        ));
        let words = kept_words(&doc, doc.body().unwrap(), |_| true);
        let c = spread_content(&doc, &vec![false; doc.len()], words, true);
        let text = content_text(&doc, c.root.unwrap(), &|id| c.is_content(id));
        assert!(
            text.contains("two holes") && text.contains("fan hub"),
            "{text}"
        );
        assert!(!text.contains("Search the forum"), "{text}");
    }

    /// The page-level content of `html` when its `menu` and `foot` classes are chrome (what
    /// PAGELEVEL says of them on real pages) and nothing else is.
    fn menu_and_foot_are_chrome(html: &str, config: &ContentConfig) -> String {
        let doc = crate::dom::parse_str(html);
        let chrome = |_: &Content| {
            let mut t = vec![false; doc.len()];
            for e in doc.elements() {
                let class = doc.element(e).and_then(|e| e.attr("class"));
                if matches!(class, Some("menu" | "foot")) {
                    doc.subtree(e).for_each(|i| t[i as usize] = true);
                }
            }
            t
        };
        let c = choose_view(&doc, config, None, chrome);
        content_text(&doc, c.root.unwrap(), &|id| c.is_content(id))
    }

    /// A page whose JSON-LD declares a discussion keeps its comment section (here most of
    /// the thread's prose), which a page declaring nothing leaves out beside a long first
    /// post as reader comments.
    #[test]
    fn a_declared_discussion_keeps_its_replies() {
        let reply = |n: &str| {
            format!(
                "<div class=reply><p>{n} Check whether a scheduled firmware update runs at nine. That is the usual reason, and the logs would not show it.</p></div>"
            )
        };
        let page = |ld: &str| {
            format!(
                "<html><head>{ld}</head><body><div class=menu><a href=/>Home</a> <a href=/f>Forums</a></div>\
                 <div id=thread><div class=first><p>{}</p></div><section id=comments>{}{}{}{}</section></div>\
                 <div class=foot>About us, terms and privacy.</div></body></html>",
                "My router drops the connection every evening at nine, and the logs show nothing unusual at all. ".repeat(5),
                reply("The first reply."),
                reply("The second reply."),
                reply("The third reply."),
                reply("The fourth reply."),
            )
        };
        let ld = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Router"}</script>"#;
        let config = ContentConfig::default();
        let thread = menu_and_foot_are_chrome(&page(ld), &config);
        assert!(
            thread.contains("every evening")
                && thread.contains("first reply")
                && thread.contains("third reply"),
            "{thread}"
        );
        assert!(!thread.contains("Forums"), "{thread}");
        let article = menu_and_foot_are_chrome(&page(""), &config);
        assert!(article.contains("every evening"), "{article}");
        assert!(!article.contains("first reply"), "{article}");
        // A page that names itself by a thread's address declares the same, without JSON-LD
        // (Vanilla's, phpBB's); a section's address does not.
        let canonical = |href: &str| page(&format!("<link rel=canonical href='{href}'>"));
        for href in [
            "https://forum.example/discussion/39620/router-drops",
            "https://forum.example/viewtopic.php?f=20&t=487157",
        ] {
            let thread = menu_and_foot_are_chrome(&canonical(href), &config);
            assert!(thread.contains("fourth reply"), "{href}: {thread}");
        }
        let section =
            menu_and_foot_are_chrome(&canonical("https://news.example/topic/cloud/"), &config);
        assert!(!section.contains("first reply"), "{section}");
        // So does a page whose forum software names its template a thread's view (phpBB's
        // topic pages, XenForo's); a forum's index does not.
        for (from, to) in [
            ("<body>", "<body id=phpbb class='section-viewtopic ltr'>"),
            ("<html>", "<html id=XF data-template=thread_view>"),
            (
                "<body>",
                "<body data-pageapp=forums data-pagecontroller=topic>",
            ),
        ] {
            let thread = menu_and_foot_are_chrome(&page("").replace(from, to), &config);
            assert!(thread.contains("fourth reply"), "{to}: {thread}");
        }
        let index = page("").replace("<body>", "<body id=phpbb class=section-viewforum>");
        let index = menu_and_foot_are_chrome(&index, &config);
        assert!(!index.contains("first reply"), "{index}");
        // Where the caller fetched it counts as much as what it names itself.
        let doc = crate::dom::parse_str(&page(""));
        let url = Url::parse("https://forum.example/t/router-drops/117253").unwrap();
        let c = choose_view(&doc, &config, Some(&url), |_| vec![false; doc.len()]);
        let text = content_text(&doc, c.root.unwrap(), &|id| c.is_content(id));
        assert!(text.contains("fourth reply"), "{text}");
    }

    /// A page's head naming a thread's address: the page declares a discussion.
    const THREAD_HEAD: &str =
        "<link rel=canonical href='https://forum.example/threads/router-drops.115684/'>";

    /// The text `choose_view` gives `html` without a template.
    fn view_text(html: &str) -> String {
        let doc = crate::dom::parse_str(html);
        let c = choose_view(&doc, &ContentConfig::default(), None, |_| {
            vec![false; doc.len()]
        });
        content_text(&doc, c.root.unwrap(), &|id| c.is_content(id))
    }

    /// `page(head)` read as a thread (its head names a thread's address) holds `kept` and
    /// none of `gone`; read as no thread, it holds `other`.
    fn assert_thread_rule(
        page: impl Fn(&str) -> String,
        kept: &[&str],
        gone: &[&str],
        other: &[&str],
    ) {
        let thread = view_text(&page(THREAD_HEAD));
        for k in kept {
            assert!(thread.contains(k), "{k}: {thread}");
        }
        for g in gone {
            assert!(!thread.contains(g), "{g}: {thread}");
        }
        let plain = view_text(&page(""));
        for o in other {
            assert!(plain.contains(o), "{o}: {plain}");
        }
    }

    /// A thread's posts lose the chrome each repeats (labels, controls, "Re: <title>"),
    /// and keep their posters' linked names, which recur once per post of theirs; a page
    /// that declares no discussion keeps its repeated lines.
    #[test]
    fn a_threads_post_chrome_is_no_content() {
        let post = |user: &str, n: usize| {
            format!(
                "<article class=post><ul class=profile><li><a href=/u/{user}>{user}</a></li><li>Joined: 2019</li></ul>\
                 <h3>Re: Router drops at nine</h3><p>Post {n}: check whether a scheduled \
                 firmware update runs at nine, which is the usual reason and the logs would \
                 not show it.</p><ul class=controls><li>Reply With Quote</li></ul></article>"
            )
        };
        let posts: String = ["ana", "bo", "ana", "cy", "dee", "bo"]
            .iter()
            .enumerate()
            .map(|(n, user)| post(user, n))
            .collect();
        let page = |head: &str| {
            format!("<html><head>{head}</head><body><div id=thread>{posts}</div></body></html>")
        };
        assert_thread_rule(
            page,
            &["Post 0:", "Post 5:", "ana", "bo", "cy", "dee"],
            &["Joined", "Re: Router", "Reply With Quote"],
            &["Reply With Quote", "Post 5:"],
        );
    }

    /// A thread's posters' cards, description lists of short terms and values that recur
    /// in shape once per post, are no content, values and all; a post's own glossary, of
    /// its own shape, stays, and so do the cards of a page that declares no discussion.
    #[test]
    fn a_thread_s_user_cards_are_no_content() {
        let card = |user: &str, posts: usize, town: &str| {
            format!(
                "<dl class=pairs><dt>Messages</dt><dd>{posts}</dd><dt>Location</dt><dd>{town}</dd></dl>\
                 <p class=name>{user}</p>"
            )
        };
        let post = |n: usize, user: &str, posts: usize, town: &str| {
            format!(
                "<article class=post>{}<p>Post {n}: check whether a scheduled firmware update \
                 runs at nine, which is the usual reason and the logs would not show it.</p></article>",
                card(user, posts, town)
            )
        };
        // A post's own glossary, inside its text.
        let glossary = "<p>Two words first, as my provider uses them:</p>\
             <dl class=terms><dt>WAN</dt><dd>the line to the provider</dd></dl>";
        let posts = format!(
            "{}{}{}{}",
            post(0, "ana", 23243, "Kent")
                .replace("</p></article>", &format!("</p>{glossary}</article>")),
            post(1, "bo", 5_089, "Lyon (Rhône)"),
            post(2, "cy", 12, "Oslo"),
            post(3, "dee", 710, "Porto"),
        );
        let page = |head: &str| {
            format!("<html><head>{head}</head><body><div id=thread>{posts}</div></body></html>")
        };
        assert_thread_rule(
            page,
            &["Post 0:", "Post 3:", "WAN", "the line to the provider"],
            &["23243", "23,243", "Kent", "Lyon", "Porto", "Messages"],
            &["Kent", "Post 3:"],
        );
    }

    /// A thread's post frames lose the lines whose words vary from post to post (a title,
    /// a count, a town) when they stand in the same place in every frame; a poster's
    /// linked name and a post's own short list stay.
    #[test]
    fn a_thread_s_varying_post_frames_are_no_content() {
        let post = |n: usize, user: &str, title: &str, posts: usize| {
            format!(
                "<article class=post><ul class=profile><li><a href=/u/{user}>{user}</a></li>\
                 <li>{title}</li><li>Posts: {posts}</li></ul>\
                 <div class=body><p>Post {n}: check whether a scheduled firmware update runs at \
                 nine, which is the usual reason and the logs would not show it.</p></div></article>"
            )
        };
        let list = "<ul class=steps><li>Open the router page</li><li>Pick Firmware</li>\
             <li>Turn off updates</li></ul>";
        let posts = [
            ("ana", "Destination Expert", 29553),
            ("bo", "New Member", 12),
            ("cy", "Moderator", 4958),
            ("dee", "Regular", 710),
        ]
        .iter()
        .enumerate()
        .map(|(n, (u, t, p))| post(n + 1, u, t, *p))
        .collect::<Vec<_>>()
        .join("")
        .replacen(
            "</p></div></article>",
            &format!("</p>{list}</div></article>"),
            1,
        );
        let page = |head: &str| {
            format!("<html><head>{head}</head><body><div id=thread>{posts}</div></body></html>")
        };
        assert_thread_rule(
            page,
            &[
                "Post 1:",
                "Post 4:",
                "ana",
                "dee",
                "Pick Firmware",
                "Turn off updates",
            ],
            &[
                "Destination Expert",
                "Moderator",
                "Posts: 29553",
                "Posts: 710",
            ],
            &["Destination Expert", "Posts: 710"],
        );
    }

    /// A thread's prompts to guests, boxes around a link to sign in or register, are no
    /// content; a short post beside such a link keeps its text, and a page that declares
    /// no discussion keeps its prompts.
    #[test]
    fn a_thread_s_guest_prompts_are_no_content() {
        let post = |n: usize| {
            format!(
                "<article class=post><p>Post {n}: check whether a scheduled firmware update \
                 runs at nine, which is the usual reason and the logs would not show it.</p></article>"
            )
        };
        let short = "<article class=post><div class=ad>Advertisement - <a href=/login/register>Members</a> \
             don't see this ad</div><div>Same here since May, and the provider says the line is fine.</div></article>";
        let prompt = "<div class=guest><h4>Join the conversation</h4><p>You must \
             <a href='/index.php?action=login'>log in</a> to reply to this thread.</p></div>";
        let ask = "<div class=notice><p>Start asking to get answers</p><p>Find the answer to \
             your question by asking.</p><a href='/questions/ask'>Ask question</a></div>";
        let posts: String = (0..4).map(post).collect();
        let page = |head: &str| {
            format!(
                "<html><head>{head}</head><body><div id=thread>{posts}{short}{prompt}{ask}</div></body></html>"
            )
        };
        assert_thread_rule(
            page,
            &["Post 0:", "Post 3:", "Same here since May"],
            &[
                "Join the conversation",
                "You must",
                "to reply to this thread",
                "Start asking",
                "Ask question",
            ],
            &["You must", "Post 3:", "Start asking"],
        );
    }

    /// A thread's posts lose their controls' labels (a script's links and spans that act as
    /// buttons) and the boxes a framework's class always folds; a control inside a sentence
    /// keeps its words. A page that declares no discussion keeps labels that do not recur.
    #[test]
    fn a_thread_s_control_labels_and_folded_boxes_are_no_content() {
        let post = |n: usize| {
            format!(
                "<article class=post><p>Post {n}: the router drops the line every night, see \
                 <a class=selflink>Portage</a> for the logs it keeps.</p></article>"
            )
        };
        // Once each: no line repeats for the post chrome rules to find.
        let quoting = "<article class=post><blockquote><p>It drops at nine.</p>\
             <div class=expand><a role=button tabindex=0>Click to expand...</a></div></blockquote>\
             <p>Same here since May, and the provider says the line is fine, though the \
             logs show it drops at nine every night and comes back a minute later.</p>\
             <div class=ipsHide><p>Share this post</p><p>https://forum.example/p/9</p></div>\
             <span role=button>Quote</span></article>";
        let posts: String = (0..3).map(post).collect();
        let page = |head: &str| {
            format!(
                "<html><head>{head}</head><body><div id=thread>{quoting}{posts}</div></body></html>"
            )
        };
        assert_thread_rule(
            page,
            &[
                "Post 0:",
                "Post 2:",
                "see Portage for the logs",
                "It drops at nine",
                "Same here",
            ],
            &[
                "Click to expand",
                "Share this post",
                "forum.example/p/9",
                "Quote",
            ],
            &["Click to expand", "It drops at nine"],
        );
    }

    /// A popover (HTML's `popover` attribute) is not shown until a control opens it: no
    /// content, wherever it stands in what the view keeps.
    #[test]
    fn popovers_are_not_content() {
        let para = "The council approved the new cycle lanes on Tuesday evening after a long debate, and the first two streets get them in May. ".repeat(4);
        let html = format!(
            "<html><body><main><h1>Cycle lanes</h1><p>{para}</p>\
             <div popover id=app><p>View in the app</p><p>A better way to browse</p></div>\
             <p>{para}</p></main></body></html>"
        );
        let text = view_text(&html);
        assert!(text.contains("first two streets"), "{text}");
        assert!(!text.contains("View in the app"), "{text}");
    }

    /// The label that every card of a grid repeats on a control is no content on any page
    /// ("Add to cart" five times and more); a control that stands alone keeps its words.
    #[test]
    fn repeated_control_labels_are_no_content() {
        let card = |n: usize| {
            format!(
                "<li><h3>Oak chair {n}</h3><p>Solid oak, oiled by hand in our workshop, with a \
                 woven seat that lasts for decades of daily use.</p>\
                 <a class='button add' href='/cart?add={n}'>Add to cart</a></li>"
            )
        };
        let cards: String = (0..6).map(card).collect();
        let html = format!(
            "<html><body><main><h1>Chairs</h1><p>Every chair we make is built to order from \
             timber felled within forty miles of the workshop.</p><ul class=grid>{cards}</ul>\
             <a class=btn href=/guide>Read the care guide</a></main></body></html>"
        );
        let text = view_text(&html);
        assert!(text.contains("Oak chair 5"), "{text}");
        assert!(text.contains("Read the care guide"), "{text}");
        assert!(!text.contains("Add to cart"), "{text}");
    }

    /// An article of its own beside reader comments is the content: the comments do not
    /// tip the page into the spread view as a thread's replies would (a thread's first post
    /// is short, or the page declares a discussion). Nothing is chrome here, so only the
    /// comments could.
    #[test]
    fn an_article_is_not_spread_over_its_comments() {
        let article = "The council approved the new cycle lanes on Tuesday evening after a long debate, and the first two streets get them in May. ".repeat(6);
        let comment = |n: usize| {
            format!(
                "<li class=comment><p>Reader {n}: I cycle this way to work every day, and a lane of our own would make the school run far safer for the children.</p></li>"
            )
        };
        let comments: String = (0..12).map(comment).collect();
        let page = |first: &str| {
            format!(
                "<html><body><div class=story><p>{first}</p></div>\
                 <div class=comments><ol>{comments}</ol></div></body></html>"
            )
        };
        let nothing_is_chrome = |html: &str| {
            let doc = crate::dom::parse_str(html);
            let c = choose_view(&doc, &ContentConfig::default(), None, |_| {
                vec![false; doc.len()]
            });
            content_text(&doc, c.root.unwrap(), &|id| c.is_content(id))
        };
        let text = nothing_is_chrome(&page(&article));
        assert!(text.contains("first two streets"), "{text}");
        assert!(!text.contains("Reader 3"), "{text}");
        // A thread: a short first post, its replies named comments, is read whole.
        let thread = nothing_is_chrome(&page("Will the new lanes reach the station?"));
        assert!(thread.contains("Reader 3"), "{thread}");
    }

    /// An article beside a news site's link lists is the content before the detectors run
    /// (they may keep the lists, which look like a listing's cards); beside the same lists
    /// half in links, the detectors decide.
    #[test]
    fn an_article_beside_link_lists_is_read_without_the_detectors() {
        let story = [
            "The bridge over the river reopened on Monday, after two years of repairs that cost more than planned.",
            "Engineers found the old steel weaker than the surveys had said, and the council paid for new beams.",
            "Buses return to the route next week; cyclists get a lane of their own on the northern side.",
            "Shops on both banks had lost trade while the crossing was shut, and some of them closed for good.",
            "The mayor thanked the residents for their patience and promised a festival in the summer.",
            "A plaque at the south end lists the names of the workers who rebuilt it, forty of them in all.",
        ]
        .join(" ");
        let page = |aside: &[String]| {
            format!(
                "<html><body><div class=story><h1>Bridge reopens</h1><p>{story}</p><p>{story}</p></div>{}</body></html>",
                aside.concat()
            )
        };
        let list = |class: &str, title: &str, linked: bool| {
            let items: String = (0..12)
                .map(|i| {
                    let (title, rest) = (
                        format!("{title} story number {i}"),
                        "of the day in the county",
                    );
                    match linked {
                        true => format!("<li><a href=/{class}/{i}>{title} {rest}</a></li>"),
                        false => format!("<li><a href=/{class}/{i}>{title}</a> {rest}</li>"),
                    }
                })
                .collect();
            format!("<div class={class}><h3>{title}</h3><ul>{items}</ul></div>")
        };
        let lists = |linked| {
            page(&[
                list("latest", "Latest", linked),
                list("popular", "Most read", linked),
                list("sections", "More news", linked),
            ])
        };
        let links = lists(true);
        let doc = crate::dom::parse_str(&links);
        let c = choose_view(&doc, &ContentConfig::default(), None, |_| {
            panic!("the detectors ran beside link lists")
        });
        let text = content_text(&doc, c.root.unwrap(), &|id| c.is_content(id));
        assert!(text.contains("two years of repairs"), "{text}");
        assert!(!text.contains("story number"), "{text}");

        let doc = crate::dom::parse_str(&lists(false));
        let ran = std::cell::Cell::new(false);
        choose_view(&doc, &ContentConfig::default(), None, |_| {
            ran.set(true);
            vec![false; doc.len()]
        });
        assert!(ran.get(), "beside text half in links the detectors decide");
    }

    /// A listing whose container holds its introduction only is read whole; the same page
    /// declared an article keeps the container; `spread: 0` turns the view off.
    #[test]
    fn a_page_that_spreads_its_content_is_read_whole() {
        // Cards without a shared first class (generated class names): the container's list
        // of records does not see them.
        let cards: String = (1..=20)
            .map(|i| {
                format!(
                    "<div class=\"t{i} tile\"><a href=/p/{i}>Walnut table number {i}</a> \
                     <a href=/b/{i}>Oakworks</a> <a href=/c/{i}>Tables</a> {i}9.99</div>"
                )
            })
            .collect();
        let page = |head: &str| {
            format!(
                "<html><head>{head}<title>Tables</title></head><body>\
                 <div class=menu><a href=/>Home</a> <a href=/shop>Shop</a></div>\
                 <div class=intro><p>Our tables are made by hand, in small batches, from \
                 reclaimed wood; no two are alike.</p></div><div class=grid>{cards}</div>\
                 <div class=related-searches><a href=/s/1>Oak desks</a> <a href=/s/2>Stools</a></div>\
                 <div class=\"signup-modal is-closed\"><p>Join our mailing list for ten percent off \
                 your first order.</p></div>\
                 <div class=foot><a href=/terms>Terms</a></div></body></html>"
            )
        };
        let text = menu_and_foot_are_chrome;
        let config = ContentConfig::default();
        let listing = text(&page(""), &config);
        assert!(listing.contains("made by hand"), "{listing}");
        assert!(listing.contains("Walnut table number 17"), "{listing}");
        // Related links and a dialog are no page's content, not even a listing's.
        assert!(!listing.contains("Oak desks"), "{listing}");
        assert!(!listing.contains("mailing list"), "{listing}");
        let off = ContentConfig {
            spread: 0.0,
            ..config.clone()
        };
        let container = text(&page(""), &off);
        assert!(!container.contains("Walnut table number 17"), "{container}");
        // Declared an article, the page reads whole while its container holds next to
        // nothing, and keeps the container once that holds an article's words.
        let article = page("<meta property=og:type content=article>");
        let short = text(&article, &config);
        assert!(short.contains("Walnut table number 17"), "{short}");
        let long = "Every table starts as a beam from a barn or a mill, dried for a year in \
                    our yard, then planed, jointed and glued by one maker from start to \
                    finish. ";
        let longer = article.replace(
            "no two are alike.",
            &format!("no two are alike. {long}{long}"),
        );
        let kept = text(&longer, &config);
        assert!(!kept.contains("Walnut table number 17"), "{kept}");
        assert!(kept.contains("dried for a year"), "{kept}");
    }

    /// A service page: the container is the hero's prose, the rest is sections under their
    /// headings with few links, so the page is read whole; the same rest as links (related
    /// pages) leaves the container alone.
    #[test]
    fn a_container_beside_sections_of_prose_is_one_section() {
        let hero = "We build data platforms for companies of every size, from the first \
                    warehouse to real-time analytics across the whole business. Our engineers \
                    work beside yours, and what we build stays yours. We have done this for \
                    twelve years, in banking, retail and logistics, and we plan, build and \
                    run the platform with you until your team can run it alone.";
        let page = |rest: &str| {
            format!(
                "<html><body><div class=menu><a href=/>Home</a> <a href=/s>Services</a></div>\
                 <main><section class=hero><h1>Data platforms</h1><p>{hero}</p></section>\
                 <div class=features>{rest}</div></main>\
                 <div class=foot><a href=/terms>Terms</a></div></body></html>"
            )
        };
        let section = |h: &str| {
            format!(
                "<div class=card><h3>{h}</h3><ul><li>Fixed price</li><li>Agreed up front</li>\
                 <li>Two weeks</li><li>One team</li></ul></div>"
            )
        };
        let sections: String = ["Assessment", "Design", "Delivery", "Support"]
            .map(section)
            .concat();
        let text = |html: &str| menu_and_foot_are_chrome(html, &ContentConfig::default());
        let whole = text(&page(&sections));
        assert!(
            whole.contains("twelve years") && whole.contains("Delivery"),
            "{whole}"
        );
        assert!(!whole.contains("Terms"), "{whole}");
        let related: String = ["Assessment", "Design", "Delivery", "Support"]
            .map(|h| {
                format!(
                    "<div class=card><h3>{h}</h3><ul><li><a href=/a>Fixed price</a></li>\
                     <li><a href=/b>Agreed up front</a></li><li><a href=/c>Two weeks</a></li>\
                     </ul></div>"
                )
            })
            .concat();
        let one = text(&page(&related));
        assert!(
            one.contains("twelve years") && !one.contains("Delivery"),
            "{one}"
        );
    }

    #[test]
    fn outside_content_spares_content_and_its_wrappers() {
        let doc = crate::dom::parse_str(
            "<body><div id=w><nav>menu</nav><main><p>text</p></main></div><footer>f</footer></body>",
        );
        let find = |tag: &str| {
            doc.elements()
                .find(|e| doc.tag(*e).is_some_and(|t| &**t == tag))
                .unwrap()
        };
        let mut keep = vec![false; doc.len()];
        for id in doc.subtree(find("main")) {
            keep[id as usize] = true;
        }
        let t = outside_content(&doc, &keep);
        let is = |tag: &str| t[find(tag).index()];
        assert!(is("nav") && is("footer"));
        assert!(!is("main") && !is("p") && !is("div") && !is("body"));
    }

    #[test]
    fn empty_input_gives_empty_content_and_binary_input_an_error() {
        let (hints, config, budget) = (
            PageHints::default(),
            ContentConfig::default(),
            Budget::default(),
        );
        let c = extract_page(b"", &hints, &config, &budget).unwrap();
        assert!(c.text().trim().is_empty());
        let e = extract_page(&[0u8, 159, 146, 150, 0, 1], &hints, &config, &budget).unwrap_err();
        assert_eq!(e.code(), "not_html");
        let pdf = extract_page(b"%PDF-1.7\n...", &hints, &config, &budget).unwrap_err();
        assert_eq!(pdf, PageError::NotHtml("a PDF document"));
    }

    #[test]
    fn budgets_are_named_in_errors() {
        let (hints, config) = (PageHints::default(), ContentConfig::default());
        let page = "<p>Some words of text.</p>".repeat(1000);
        let small = Budget {
            max_bytes: 100,
            ..Budget::default()
        };
        let e = extract_page(page.as_bytes(), &hints, &config, &small).unwrap_err();
        assert_eq!(
            e,
            PageError::TooLarge {
                bytes: page.len(),
                limit: 100
            }
        );
        assert!(e.to_string().contains("100 bytes"), "{e}");
        let few = Budget {
            max_nodes: 500,
            ..Budget::default()
        };
        let e = extract_page(page.as_bytes(), &hints, &config, &few).unwrap_err();
        assert_eq!(e, PageError::TooManyNodes { limit: 500 });
        let no_time = Budget {
            max_time: std::time::Duration::ZERO,
            ..Budget::default()
        };
        let e = extract_page(page.as_bytes(), &hints, &config, &no_time).unwrap_err();
        assert_eq!(e.code(), "timed_out");
        // Within budget, the same page gives its text.
        let c = extract_page(page.as_bytes(), &hints, &config, &Budget::default()).unwrap();
        assert!(c.text().contains("Some words of text."));
    }
}
