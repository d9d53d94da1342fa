//! Content with a site: what a cluster's pages teach, and how it refines a page's content.

use super::*;
use crate::dom::parse_str;
use crate::extract::content_text;
use crate::page::page_level_content;

/// A word of its own for `n` (runs compare digits loosely: numbers alone do not tell pages
/// apart).
fn word(n: usize) -> String {
    const SYLLABLES: [&str; 10] = ["ka", "lo", "mi", "ne", "pu", "ra", "si", "to", "vu", "ze"];
    let mut n = n;
    let mut w = String::new();
    loop {
        w.push_str(SYLLABLES[n % 10]);
        n /= 10;
        if n == 0 {
            return w;
        }
    }
}

/// Prose of its own for page `i`: sentences no other page has ("Story 3 sentence 1" is
/// their label in the assertions).
fn prose(i: usize, sentences: usize) -> String {
    (0..sentences)
        .map(|s| {
            format!(
                "Story {i} sentence {s} tells readers about the {} harvest of the {} field and \
                 the weather that came with it, in words of its own. ",
                word(i),
                word(i * 100 + s)
            )
        })
        .collect()
}

/// A news page: menu, an article with its headline, a standing notice at the article's end
/// and a label between its paragraphs, a teaser column of other stories.
fn news_page(i: usize, article_sentences: usize, teasers: usize) -> String {
    let teasers: String = (0..teasers)
        .map(|t| format!("<p>{}</p>", prose(1000 + i * 10 + t, 2)))
        .collect();
    format!(
        "<html><head><title>Story {i}</title></head><body>\
         <div id=menu><a href=/>Home</a> <a href=/news>News</a> <a href=/sport>Sport</a></div>\
         <div id=main><div class=article><h1>Story {i}</h1>\
         <p>{}</p><h2>Background</h2><p>{}</p>\
         <p>The views expressed in this article are the author's own and not those of the \
         Daily Example.</p></div></div>\
         <div class=teasers>{teasers}</div>\
         <div id=footer>Copyright Daily Example</div></body></html>",
        prose(i, article_sentences),
        prose(i + 500, article_sentences),
    )
}

fn site_of(pages: &[Document]) -> SiteContent {
    learn_from_docs(pages, &ContentConfig::default())
}

fn text(doc: &Document, c: &Content) -> String {
    let root = c.root.unwrap_or(NodeId::ROOT);
    content_text(doc, root, &|id| c.is_content(id))
}

#[test]
fn learns_recurring_runs_and_the_slot() {
    let pages: Vec<Document> = (0..6).map(|i| parse_str(&news_page(i, 6, 1))).collect();
    let site = site_of(&pages);
    assert_eq!(site.pages, 6);
    assert!(site.slot.is_some(), "{site:?}");
    // The notice, the label, the menu's and the footer's lines recur; no story's prose does.
    let doc = &pages[0];
    let recurring: Vec<String> = text_runs(doc, doc.body().unwrap())
        .iter()
        .filter(|r| site.recurs(r.hash))
        .map(|r| {
            r.texts
                .iter()
                .filter_map(|t| doc.text(*t))
                .collect::<String>()
        })
        .collect();
    assert!(
        recurring.iter().any(|r| r.contains("views expressed")),
        "{recurring:?}"
    );
    assert!(recurring.iter().any(|r| r == "Background"), "{recurring:?}");
    assert!(
        !recurring.iter().any(|r| r.contains("Story 0 sentence")),
        "{recurring:?}"
    );
}

#[test]
fn too_few_pages_teach_nothing() {
    let pages: Vec<Document> = (0..2).map(|i| parse_str(&news_page(i, 6, 1))).collect();
    let site = site_of(&pages);
    assert!(site.is_empty() && site.pages == 2, "{site:?}");
}

/// A boilerplate paragraph that recurs on every page inside the article container goes;
/// a recurring label between the page's own paragraphs stays (it structures the content).
#[test]
fn recurring_text_at_the_content_edges_is_dropped() {
    let pages: Vec<Document> = (0..6).map(|i| parse_str(&news_page(i, 6, 1))).collect();
    let site = site_of(&pages);
    let config = ContentConfig::default();
    let doc = &pages[3];
    let page_level = page_level_content(doc, None, &config);
    let before = text(doc, &page_level);
    assert!(before.contains("views expressed"), "{before}");
    let refined = refine(doc, page_level, &site, &config);
    let after = text(doc, &refined);
    assert!(!after.contains("views expressed"), "{after}");
    assert!(after.contains("Background"), "{after}");
    assert!(after.contains("Story 3 sentence 5"), "{after}");
    assert!(after.contains("Story 503 sentence 0"), "{after}");
}

/// A page whose pick is the teaser column (as page-level content takes a column of summaries
/// for the article) moves to the cluster's slot, where its article is.
#[test]
fn a_teaser_column_taken_for_the_article_moves_to_the_slot() {
    let pages: Vec<Document> = (0..6).map(|i| parse_str(&news_page(i, 6, 1))).collect();
    let site = site_of(&pages);
    let config = ContentConfig::default();
    let doc = &pages[2];
    let teasers = doc
        .elements()
        .find(|e| {
            doc.element(*e)
                .is_some_and(|el| el.classes().any(|c| c == "teasers"))
        })
        .unwrap();
    let mut keep = vec![false; doc.len()];
    for i in doc.subtree(teasers) {
        keep[i as usize] = true;
    }
    let mistaken = Content {
        root: Some(teasers),
        keep,
    };
    assert!(text(doc, &mistaken).starts_with("Story 1020 sentence 0"));
    let refined = refine(doc, mistaken, &site, &config);
    let after = text(doc, &refined);
    assert!(after.contains("Story 2 sentence 0"), "{after}");
    assert!(!after.contains("Story 1020"), "{after}");
}

/// A slot that holds less than the page's pick does not take the content: another kind of
/// page of the cluster keeps what page-level content found.
#[test]
fn a_short_slot_does_not_take_the_content() {
    let mut pages: Vec<Document> = (0..5).map(|i| parse_str(&news_page(i, 6, 1))).collect();
    // An index-like page: a line in the article slot, its prose in the column.
    pages.push(parse_str(&news_page(9, 0, 8)));
    let site = site_of(&pages);
    let config = ContentConfig::default();
    let doc = &pages[5];
    let page_level = page_level_content(doc, None, &config);
    let before = text(doc, &page_level);
    assert!(before.contains("Story 1090 sentence 0"), "{before}");
    let after = text(doc, &refine(doc, page_level, &site, &config));
    assert!(after.contains("Story 1090 sentence 0"), "{after}");
    assert!(after.contains("Story 1097 sentence 1"), "{after}");
}

#[test]
fn runs_compare_words_case_and_digits_loosely() {
    let mut a = String::new();
    let mut b = String::new();
    let wa = normalize_into("Posted  on 12 May, by the Editor", &mut a);
    let wb = normalize_into("posted on 31 may — by THE editor", &mut b);
    assert_eq!(a, b);
    assert_eq!(wa, 7);
    assert_eq!(wb, 7);
    let mut c = String::new();
    assert_eq!(normalize_into("新闻中心", &mut c), 4);
    assert_eq!(c, "新 闻 中 心");
}

/// The streaming hash is the stable hash of the normalized text without its trailing space,
/// over text split into nodes anywhere, and grows when normalized text would.
#[test]
fn runs_hash_their_normalized_text() {
    let cases: &[&[&str]] = &[
        &["Posted on 12 May, by the Editor"],
        &["Posted ", "on", " 12 May,", " by ", "the Editor!!"],
        &["  leading", "", "...", "trailing  "],
        &["新闻", "中心：", "２０１２年"],
        &["Hel", "lo", " wörld", "—", "ÉTÉ"],
        &["...", "a"],
        &["a", "..."],
    ];
    for nodes in cases {
        let mut text = String::new();
        let mut run = RunHasher::default();
        let mut words = 0;
        for n in *nodes {
            let before = text.len();
            words += normalize_into(n, &mut text);
            assert_eq!(run.feed(n), text.len() > before, "{nodes:?} at {n:?}");
        }
        let t = text.trim_end();
        assert_eq!(run.started, !t.is_empty(), "{nodes:?}");
        assert_eq!(run.words, words, "{nodes:?}");
        assert_eq!(
            run.hasher.digest(),
            crate::stable_hash::hash_bytes(t.as_bytes()),
            "{nodes:?}: {t:?}"
        );
    }
}

#[test]
fn site_content_round_trips_as_json() {
    let pages: Vec<Document> = (0..4).map(|i| parse_str(&news_page(i, 3, 1))).collect();
    let site = site_of(&pages);
    let json = serde_json::to_string(&site).unwrap();
    assert_eq!(serde_json::from_str::<SiteContent>(&json).unwrap(), site);
}

#[test]
fn pages_without_body_or_text_are_harmless() {
    let empty = parse_str("");
    let site = site_of(&[
        parse_str(""),
        parse_str("<p>x</p>"),
        parse_str("<frameset>"),
    ]);
    let c = page_level_content(&empty, None, &ContentConfig::default());
    let r = refine(&empty, c, &site, &ContentConfig::default());
    assert!(text(&empty, &r).is_empty());
}
