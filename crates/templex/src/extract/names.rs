//! Class and id names as hints: words that name chrome (`comment-list`, `site-footer`),
//! content (`entry-content`) or a state (`menu-open`), looked up at the ends of a name.

use markup5ever::local_name;

use crate::dom::{Document, NodeId, deadline};

/// Words that mark boilerplate when they head or end a class or id (`comment-list`,
/// `post-comments`, `relatedPosts`), plurals included.
const NEGATIVE_HINTS: &[&str] = &[
    "comment",
    "share",
    "sharing",
    "social",
    "related",
    "sidebar",
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
    "modal",
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
    "meta",
    "metadata",
    "tags",
    "tag-list",
    "tag-cloud",
    "recommend",
    "outbrain",
    "taboola",
    "disqus",
    "author",
    "author-bio",
    "author-box",
    "author-info",
    "bio",
    "copyright",
    "print",
    "rating",
    "reviews",
    "signature",
];

/// Words that mark boilerplate when they head a class or id: at its end they name a
/// component that page builders also use for content (`elementor-widget`).
const NEGATIVE_HEADS: &[&str] = &["widget"];

/// Words that mark boilerplate anywhere in a class or id (`rp4wp-related-post-content`):
/// no content wrapper is named after them.
const NEGATIVE_ANYWHERE: &[&str] = &["related", "subscribe"];

/// First words of names that describe a layout state, not a role (`has-sidebar`).
const STATE_WORDS: &[&str] = &["has", "with", "without", "no"];

/// Last words of names that describe a state of a component, not the element's role
/// (`modal-enabled`, `menu-open`: put on the page wrapper while the menu is open).
const STATE_SUFFIXES: &[&str] = &[
    "enabled", "disabled", "active", "open", "opened", "closed", "visible", "loaded", "ready",
];

/// Whole class names that mark text no reader sees on screen.
const HIDDEN_NAMES: &[&str] = &[
    "hidden",
    "is-hidden",
    "sr-only",
    "screen-reader-text",
    "visually-hidden",
    "visuallyhidden",
];

/// Words that mark content when they end a class or id (`entry-content`, `articleBody`).
const POSITIVE_HINTS: &[&str] = &[
    "article", "content", "entry", "main", "post", "story", "text", "body", "blog", "prose",
];

/// [`NameHints::hint`] of one element, without a memo.
#[cfg(test)]
pub(crate) fn name_hint(doc: &Document, id: NodeId) -> i8 {
    NameHints::default().hint(doc, id)
}

/// Class/id hints of a page's elements, with verdicts remembered: a page repeats a few
/// dozen class lists over thousands of elements, and their tokens over many lists.
#[derive(Default)]
pub(crate) struct NameHints<'d> {
    /// Verdict per whole attribute value (`class="post-item card col-6"`).
    values: rustc_hash::FxHashMap<&'d str, i8>,
    /// Verdict per token.
    tokens: rustc_hash::FxHashMap<&'d str, i8>,
    scratch: String,
    /// Whether component words ([`NEGATIVE_HEADS`]) head no boilerplate on this page: a
    /// page builder's blocks ([`components_hold_page`]), not a sidebar's.
    builder_page: bool,
}

impl<'d> NameHints<'d> {
    /// Hints for a page whose content is built of components named like a sidebar's
    /// widgets ([`components_hold_page`]): the component word is no hint there.
    pub(crate) fn for_builder_page(builder_page: bool) -> Self {
        NameHints {
            builder_page,
            ..Self::default()
        }
    }

    /// Class/id hint of an element: -1 boilerplate-like, +1 content-like, 0 neither.
    ///
    /// Only the first and the last word of a name count: naming schemes put the role there
    /// (`comment-list`, `site-footer`), while words in the middle qualify something else
    /// (`elementor-widget-text-editor`, `field--label-hidden`, `m-nav-content-inner`).
    pub(crate) fn hint(&mut self, doc: &'d Document, id: NodeId) -> i8 {
        let Some(e) = doc.element(id) else { return 0 };
        let mut positive = false;
        for a in &e.attrs {
            if !matches!(
                a.name.local,
                local_name!("class") | local_name!("id") | local_name!("role")
            ) {
                continue;
            }
            // Documentation generators make section ids from their titles
            // (`sharing-with-a-single-developer`): a sentence, not a role.
            if a.name.local == local_name!("id") && is_slug(&a.value) {
                continue;
            }
            let h = match self.values.get(&*a.value) {
                Some(h) => *h,
                None => {
                    let h = self.value_hint(&a.value);
                    self.values.insert(&a.value, h);
                    h
                }
            };
            if h < 0 {
                return -1;
            }
            positive |= h > 0;
        }
        i8::from(positive)
    }

    /// The verdict on an attribute value: any boilerplate token wins, then any content one.
    fn value_hint(&mut self, value: &'d str) -> i8 {
        let mut positive = false;
        for name in value.split_ascii_whitespace() {
            let h = match self.tokens.get(name) {
                Some(h) => *h,
                None => {
                    let h = token_hint(name, &mut self.scratch, !self.builder_page);
                    self.tokens.insert(name, h);
                    h
                }
            };
            if h < 0 {
                return -1;
            }
            positive |= h > 0;
        }
        i8::from(positive)
    }
}

/// Words whose element is no page's content, not even on a page that spreads its content
/// over the whole page, when they head or end a class or id (`related-posts`,
/// `cookie-notice`, `newsletter-signup`, `share-bar`, a forum post's `message-signature`).
const NEVER_CONTENT: &[&str] = &[
    "related",
    "subscribe",
    "newsletter",
    "cookie",
    "consent",
    "share",
    "sharing",
    "social",
    "advert",
    "sponsor",
    "outbrain",
    "taboola",
    "popup",
    "modal",
    "signature",
];

/// Words whose element is no product's content when they head or end a class or id, on a
/// page that declares itself a product: what customers say of it (`product-reviews`), the
/// other products it shows (`carousel`, `recs`) and its fine print (`disclaimer`). On other
/// pages they name content (a review article, a service page's slides, a study's caveats).
const PRODUCT_ASIDES: &[&str] = &["review", "carousel", "disclaimer", "recs"];

/// Words whose element is a page's fine print when they head or end a class or id: its
/// disclaimers and legal notes, below a service's offer or a fund's figures.
const FINE_PRINT: &[&str] = &["disclaimer", "legal"];

/// Whether an element's class or id names fine print ([`FINE_PRINT`] heading or ending it).
pub(crate) fn fine_print(doc: &Document, id: NodeId) -> bool {
    // Most elements' names hold neither word: the names are split only when one does.
    doc.element(id).is_some_and(|e| {
        e.attrs.iter().any(|a| {
            (matches!(a.name.local, local_name!("class") | local_name!("id"))
                || is_test_id(&a.name.local))
                && FINE_PRINT
                    .iter()
                    .any(|w| super::verdicts::contains_ignore_case(&a.value, w))
        })
    }) && named(doc, id, FINE, false)
}

/// Words whose element holds readers' comments when they head or end a class or id.
const REPLY_NAMES: &[&str] = &["comment"];

/// Whether an element's class or id names readers' comments ([`REPLY_NAMES`] heading or
/// ending it, plurals included: Vanilla's `CommentsWrap`, `ItemComment`).
pub(crate) fn names_replies(doc: &Document, id: NodeId) -> bool {
    named(doc, id, REPLIES, false)
}

/// Whether an element's class or id names something that is no page's content
/// ([`NEVER_CONTENT`] heading or ending it; `related` and `subscribe` anywhere in it).
pub(crate) fn never_content(doc: &Document, id: NodeId) -> bool {
    named(doc, id, NEVER, true)
}

/// Class names of text that only screen readers announce (`sr-only`, WordPress's
/// `screen-reader-text`, the frameworks' own): a sighted reader never sees it, whatever the
/// page's script does.
/// Four of them are among [`HIDDEN_NAMES`] too, whose hints the shipped models were trained
/// on: that list also holds `hidden`, a state a script lifts (tabs), and growing it would
/// move the models' inputs.
const SCREEN_READER_NAMES: &[&str] = &[
    "sr-only",
    "screen-reader-text",
    "screen-reader-only",
    "visually-hidden",
    "visuallyhidden",
    "a11y-hidden",
    // XenForo, Foundation, GOV.UK's design system. (Not Drupal 7's `element-invisible`:
    // trafilatura-eval's gold keeps the "(link is external)" it hides.)
    "u-srOnly",
    "show-for-sr",
    "govuk-visually-hidden",
];

/// Whether an element carries a class of [`SCREEN_READER_NAMES`] (the whole name, any case).
pub(crate) fn screen_reader_only(doc: &Document, id: NodeId) -> bool {
    doc.element(id)
        .and_then(|e| e.attr("class"))
        .is_some_and(|c| {
            c.split_ascii_whitespace().any(|n| {
                SCREEN_READER_NAMES
                    .iter()
                    .any(|s| n.eq_ignore_ascii_case(s))
            })
        })
}

/// Whether a class names the taxonomy term a CMS files the page under (WordPress's
/// `category-legal`, `tag-social`): the post's subject, not a part of the page.
fn is_taxonomy(name: &str) -> bool {
    ["category-", "tag-"].iter().any(|p| {
        name.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    })
}

/// Whether an element's class or id names something that is no product's content
/// ([`PRODUCT_ASIDES`] heading or ending it).
pub(crate) fn product_aside(doc: &Document, id: NodeId) -> bool {
    named(doc, id, PRODUCT, false)
}

/// Whether one of the element's class, id or test-id names ([`is_test_id`]) is headed or
/// ended by a word of role `flag`, plurals included (or, `anywhere`, holds a word that
/// marks boilerplate wherever it stands); names of a state do not count. The class/id hints
/// the models read ([`NameHints`]) leave test ids out: read there, they moved six WCXB dev
/// pages, net −0.00003, before the retraining they would need.
fn named(doc: &Document, id: NodeId, flag: u16, anywhere: bool) -> bool {
    let Some(e) = doc.element(id) else {
        return false;
    };
    let mut scratch = String::new();
    e.attrs.iter().any(|a| {
        (matches!(a.name.local, local_name!("class") | local_name!("id"))
            || is_test_id(&a.name.local))
            && a.value.split_ascii_whitespace().any(|name| {
                if is_taxonomy(name) {
                    return false;
                }
                let ends = name_ends(name, &mut scratch);
                (!names_state(&ends)
                    && (word_flags(ends[0], true) & flag != 0
                        || word_flags(ends[1], true) & flag != 0))
                    || (anywhere && names_anywhere(&ends))
            })
    })
}

/// Whether the outermost elements whose class or id a component word heads
/// ([`NEGATIVE_HEADS`]: `widget widget_text`) hold more than `share` of the body's words
/// outside links (`words` and `link_words` per element). WordPress names its sidebar's
/// boxes so, and page builders (SiteOrigin, a university's CMS) every block of the page:
/// blocks that hold most of the page are its content, not a sidebar.
pub(crate) fn components_hold_page(
    doc: &Document,
    body: NodeId,
    words: &[u32],
    link_words: &[u32],
    share: f64,
) -> bool {
    let mut scratch = String::new();
    // A page repeats a few class lists over many elements: each is read once.
    let mut verdicts: rustc_hash::FxHashMap<&str, bool> = rustc_hash::FxHashMap::default();
    let mut held = 0u32;
    let end = doc.subtree(body).end;
    let mut i = body.0 + 1;
    while i < end {
        let id = NodeId(i);
        i += 1;
        if deadline::due(id.index()) {
            break;
        }
        let Some(e) = doc.element(id) else { continue };
        let component = e.attrs.iter().any(|a| {
            matches!(a.name.local, local_name!("class") | local_name!("id"))
                && HEAD_FINDERS
                    .iter()
                    .any(|f| f.find(a.value.as_bytes()).is_some())
                && *verdicts.entry(&a.value).or_insert_with(|| {
                    a.value.split_ascii_whitespace().any(|name| {
                        let ends = name_ends(name, &mut scratch);
                        !names_state(&ends) && word_flags(ends[0], true) & HEAD != 0
                    })
                })
        });
        if component {
            held += words[id.index()].saturating_sub(link_words[id.index()]);
            i = doc.subtree(id).end;
        }
    }
    let total = words[body.index()].saturating_sub(link_words[body.index()]);
    f64::from(held) > share * f64::from(total)
}

/// Searchers for the component words ([`NEGATIVE_HEADS`]) past their first letter, which
/// camelCase capitalizes (`myWidget`): a quick look at a class or id value before its
/// names are split.
static HEAD_FINDERS: std::sync::LazyLock<Vec<memchr::memmem::Finder<'static>>> =
    std::sync::LazyLock::new(|| {
        NEGATIVE_HEADS
            .iter()
            .map(|w| memchr::memmem::Finder::new(w.get(1..).unwrap_or(w).as_bytes()))
            .collect()
    });

/// Attributes that name an element for a site's own tests (`data-testid`, Cypress's
/// `data-cy`, `data-qa`, `data-test`): sites whose classes are generated hashes
/// (CSS-in-JS's `css-1x2y3z`) still name their parts there (`related-articles`).
fn is_test_id(attr: &str) -> bool {
    matches!(
        attr,
        "data-testid" | "data-test-id" | "data-cy" | "data-qa" | "data-test"
    )
}

/// An id of four or more words: a slug of a title.
fn is_slug(id: &str) -> bool {
    id.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count()
        >= 4
}

/// The hint of one class or id token; `heads`: whether component words
/// ([`NEGATIVE_HEADS`]) heading it mark boilerplate.
fn token_hint(name: &str, scratch: &mut String, heads: bool) -> i8 {
    let ends = name_ends(name, scratch);
    if names_state(&ends) {
        return 0;
    }
    if word_flags(ends[4], false) & HIDDEN != 0
        || ends[..4]
            .iter()
            .any(|w| word_flags(w, true) & NEGATIVE != 0)
        || (heads && word_flags(ends[0], true) & HEAD != 0)
        || names_anywhere(&ends)
    {
        -1
    } else {
        // A content word heads page-type and part names (`ArticlePage-below`,
        // `post-meta`): only the last word names the content itself.
        i8::from(word_flags(ends[1], true) & POSITIVE != 0)
    }
}

/// Whether a name's ends ([`name_ends`]) describe a layout state (`has-sidebar`,
/// `menu-open`), not a role.
fn names_state(ends: &[&str; 5]) -> bool {
    word_flags(ends[0], false) & STATE != 0 || word_flags(ends[1], false) & STATE_END != 0
}

/// Whether a name holds, anywhere, a word that marks boilerplate wherever it stands.
fn names_anywhere(ends: &[&str; 5]) -> bool {
    ends[4]
        .split('-')
        .any(|w| word_flags(w, true) & ANYWHERE != 0)
}

// Roles of a word in the hint lists.
const NEGATIVE: u16 = 1;
const HEAD: u16 = 2;
const ANYWHERE: u16 = 4;
const POSITIVE: u16 = 8;
const STATE: u16 = 16;
const HIDDEN: u16 = 32;
const STATE_END: u16 = 64;
const NEVER: u16 = 128;
const PRODUCT: u16 = 256;
const FINE: u16 = 512;
const REPLIES: u16 = 1024;

/// The hint lists as one table: a class name is looked up a handful of times, not compared
/// with every hint.
static LEXICON: std::sync::LazyLock<rustc_hash::FxHashMap<&'static str, u16>> =
    std::sync::LazyLock::new(|| {
        let mut m = rustc_hash::FxHashMap::default();
        for (list, flag) in [
            (NEGATIVE_HINTS, NEGATIVE),
            (NEGATIVE_HEADS, HEAD),
            (NEGATIVE_ANYWHERE, ANYWHERE),
            (POSITIVE_HINTS, POSITIVE),
            (STATE_WORDS, STATE),
            (STATE_SUFFIXES, STATE_END),
            (HIDDEN_NAMES, HIDDEN),
            (NEVER_CONTENT, NEVER),
            (PRODUCT_ASIDES, PRODUCT),
            (FINE_PRINT, FINE),
            (REPLY_NAMES, REPLIES),
        ] {
            for w in list {
                *m.entry(*w).or_insert(0) |= flag;
            }
        }
        m
    });

/// The roles of `word`; with `plural`, also those of the word without a final `s`
/// (`comments`, `tags`), for the hint lists that allow it.
fn word_flags(word: &str, plural: bool) -> u16 {
    let get = |w: &str| LEXICON.get(w).copied().unwrap_or(0);
    let mut f = get(word);
    if plural {
        if let Some(w) = word.strip_suffix('s') {
            f |=
                get(w) & (NEGATIVE | HEAD | ANYWHERE | POSITIVE | NEVER | PRODUCT | FINE | REPLIES);
        }
    }
    f
}

/// The ends of a class or id, lower-cased, words joined by `-` (words are separated by
/// non-alphanumerics and by camelCase humps): the first word, the last word, the first two
/// and the last two (for two-word hints such as `author-bio`), and the whole name.
fn name_ends<'s>(name: &str, scratch: &'s mut String) -> [&'s str; 5] {
    scratch.clear();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower {
                scratch.push('-');
            }
            prev_lower = !c.is_ascii_uppercase();
            scratch.push(c.to_ascii_lowercase());
        } else if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                scratch.push('-');
            }
            prev_lower = c.is_lowercase() || c.is_numeric();
            scratch.extend(c.to_lowercase());
        } else {
            if !scratch.is_empty() && !scratch.ends_with('-') {
                scratch.push('-');
            }
            prev_lower = false;
        }
    }
    while scratch.ends_with('-') {
        scratch.pop();
    }
    // Numbered variants name the same role (`sidebar1`, `footer-2`).
    let named = scratch
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
        .len();
    if named > 0 {
        scratch.truncate(named);
    }
    let s: &'s str = scratch;
    let cut = |n: usize| s.match_indices('-').nth(n).map_or(s, |(i, _)| &s[..i]);
    let tail = |n: usize| s.rmatch_indices('-').nth(n).map_or(s, |(i, _)| &s[i + 1..]);
    [cut(0), tail(0), cut(1), tail(1), s]
}
