//! The table text chunk method: handwritten sites (table layouts, duplicated navigation
//! bars, coincidental content chunks, images, entities), robustness, the model's storage
//! form, the bundled example site and a floor on the dev gold.

use crate::test_support as common;

use std::path::PathBuf;

use crate::dom::{parse_bytes, parse_str, select};
use crate::source::MirrorSource;
use crate::template::tablechunk::{
    Boundaries, ChunkKeys, Chunking, TableChunkConfig, TableChunkModel, learn, page_chunks,
};
use crate::{Document, NodeId};
use crate::{Method, TemplateConfig, extract_template};

/// The first element matching `css`.
fn one(doc: &Document, css: &str) -> NodeId {
    let ids = select(doc, css).unwrap();
    assert!(!ids.is_empty(), "{css} matches nothing");
    ids[0]
}

/// Every element matching `css`, and every element below them, is template.
fn all_template(doc: &Document, mask: &[bool], css: &str) -> bool {
    select(doc, css).unwrap().iter().all(|id| {
        doc.subtree(*id)
            .all(|n| doc.element(NodeId(n)).is_none() || mask[n as usize])
    })
}

/// No element matching `css`, nor anything below them, is template.
fn none_template(doc: &Document, mask: &[bool], css: &str) -> bool {
    select(doc, css)
        .unwrap()
        .iter()
        .all(|id| doc.subtree(*id).all(|n| !mask[n as usize]))
}

fn table_config() -> TableChunkConfig {
    TableChunkConfig {
        chunking: Chunking {
            boundaries: Boundaries::Table,
            ..Chunking::default()
        },
        ..TableChunkConfig::default()
    }
}

/// A table-layout page of the early web: a navigation table, a content cell beside a menu
/// cell, a footer table.
fn table_page(title: &str, body: &str) -> Document {
    parse_str(&format!(
        r#"<html><head><title>{title}</title></head><body>
        <table id=nav width=100%><tr>
          <td><a href=/>Home</a></td><td><a href=/news>News</a></td><td><a href=/shop>Shop</a></td>
        </tr></table>
        <table id=layout><tr>
          <td id=menu width=150><a href=/a>Products</a><br><a href=/b>Support</a></td>
          <td id=content><h1>{title}</h1><p>{body}</p></td>
        </tr></table>
        <table id=footer><tr><td>Copyright &copy; 2003 Example Corp. All rights reserved.</td></tr></table>
        </body></html>"#
    ))
}

fn table_site() -> Vec<Document> {
    vec![
        table_page("Blue widgets", "Our blue widgets are the best in town."),
        table_page("Red widgets", "Red widgets ship within two days."),
        table_page(
            "Green widgets",
            "Green widgets are made of recycled plastic.",
        ),
        table_page("Returns", "Send it back within thirty days for a refund."),
        table_page("Careers", "We are hiring engineers and sales people."),
    ]
}

#[test]
fn table_layout_site_nav_and_footer_are_template() {
    let pages = table_site();
    for config in [table_config(), TableChunkConfig::default()] {
        let model = learn(&pages, &config);
        assert_eq!(model.pages, 5);
        for doc in &pages {
            let mask = model.template_mask(doc);
            for css in ["#nav", "#footer", "#menu"] {
                assert!(all_template(doc, &mask, css), "{css} {config:?}");
            }
            assert!(none_template(doc, &mask, "#content"), "{config:?}");
            assert!(!mask[doc.body().unwrap().index()]);
        }
        // A page of the cluster that was not learned from (pass 2 only).
        let unseen = table_page("Yellow widgets", "Yellow ones are sold out.");
        let mask = model.template_mask(&unseen);
        assert!(all_template(&unseen, &mask, "#nav"));
        assert!(all_template(&unseen, &mask, "#footer"));
        assert!(none_template(&unseen, &mask, "#content"));
        let share = model.template_share(&unseen);
        assert!(share > 0.5 && share < 1.0, "share {share}");
    }
}

#[test]
fn paper_boundaries_cut_only_at_table_nodes() {
    let doc = &table_site()[0];
    let texts: Vec<String> = page_chunks(doc, &table_config().chunking)
        .into_iter()
        .map(|c| c.text)
        .collect();
    assert_eq!(
        texts,
        [
            "Home",
            "News",
            "Shop",
            "Products Support",
            "Blue widgets Our blue widgets are the best in town.",
            "Copyright © 2003 Example Corp. All rights reserved."
        ]
    );
}

/// The same navigation bar at the top and the bottom of every page, in table cells with one
/// tag path, and a page whose bottom bar is missing.
#[test]
fn duplicate_navigation_bar_is_template_twice() {
    let bar = "<table class=bar><tr><td><a href=/>Home</a> | <a href=/faq>FAQ</a> | <a href=/contact>Contact</a></td></tr></table>";
    let page = |i: usize, bottom: bool| {
        parse_str(&format!(
            "<body>{bar}<table><tr><td class=text>Article {i}: a text of its own about topic {i}.</td></tr></table>{}</body>",
            if bottom { bar } else { "" }
        ))
    };
    let pages: Vec<Document> = (0..6).map(|i| page(i, true)).collect();
    for keys in [
        ChunkKeys::Text,
        ChunkKeys::TextPath,
        ChunkKeys::TextOccurrence,
        ChunkKeys::TextPathOccurrence,
    ] {
        for boundaries in [Boundaries::Table, Boundaries::Block] {
            let config = TableChunkConfig {
                chunking: Chunking {
                    keys,
                    boundaries,
                    ..Chunking::default()
                },
                ..TableChunkConfig::default()
            };
            let model = learn(&pages, &config);
            // Both bars of a learned page and of a new page are template, the text is not.
            for doc in [&pages[2], &page(99, true)] {
                let mask = model.template_mask(doc);
                let bars = select(doc, "table.bar").unwrap();
                assert_eq!(bars.len(), 2);
                for b in bars {
                    assert!(mask[b.index()], "{keys:?} {boundaries:?}");
                }
                assert!(none_template(doc, &mask, "td.text"), "{keys:?}");
            }
            // A page with the top bar only: still template.
            let doc = page(100, false);
            let mask = model.template_mask(&doc);
            assert!(all_template(&doc, &mask, "table.bar"), "{keys:?}");
        }
    }
    // With occurrence keys the bottom bar is a template chunk of its own: learned from
    // pages that mostly lack it, it is not template (an optional part below threshold).
    let mixed: Vec<Document> = (0..6).map(|i| page(i, i == 0)).collect();
    let model = learn(&mixed, &TableChunkConfig::default());
    let doc = page(7, true);
    let mask = model.template_mask(&doc);
    let bars = select(&doc, "table.bar").unwrap();
    assert!(mask[bars[0].index()]);
    assert!(!mask[bars[1].index()]);
}

/// A short content chunk equal to a template chunk ("Home", "Contact") must not be
/// removed: with the paper's text-only keys it is; with templex's keys it is not, both in a
/// `div` layout (other tag path) and in the content cell of a layout table (same tag path as
/// the menu cell, later occurrence).
#[test]
fn coincidental_content_chunk_stays_content() {
    let div_page = |i: usize, extra: &str| {
        parse_str(&format!(
            "<body><nav><ul><li><a href=/>Home</a></li><li><a href=/c>Contact</a></li></ul></nav>\
             <main><h1>Title {i}</h1><p>Body text number {i} of this page.</p>{extra}</main></body>"
        ))
    };
    let table_page = |i: usize, extra: &str| {
        parse_str(&format!(
            "<body><table><tr><td><a href=/>Home</a></td><td><a href=/c>Contact</a></td></tr>\
             <tr><td>Body text number {i}.</td><td>{extra}</td></tr></table></body>"
        ))
    };
    type Page<'a> = &'a dyn Fn(usize, &str) -> Document;
    let layouts: [(Page<'_>, &str); 2] = [
        (&div_page, "main p.x"),
        (&table_page, "tr:nth-child(2) td:nth-child(2)"),
    ];
    for (page, css) in layouts {
        let mut pages: Vec<Document> = (0..5).map(|i| page(i, "")).collect();
        // One learned page has the coincidence too; so does a new page.
        pages.push(page(5, "<p class=x>Home</p>"));
        let new = page(6, "<p class=x>Contact</p>");
        for boundaries in [Boundaries::Table, Boundaries::Block] {
            let chunking = Chunking {
                boundaries,
                ..Chunking::default()
            };
            if boundaries == Boundaries::Table && css.starts_with("main") {
                continue; // a div page is one chunk under table boundaries
            }
            let config = TableChunkConfig {
                chunking,
                ..TableChunkConfig::default()
            };
            let model = learn(&pages, &config);
            for doc in [&pages[5], &new] {
                let mask = model.template_mask(doc);
                assert!(none_template(doc, &mask, css), "{css} {boundaries:?}");
                // The menu's own "Home" and "Contact" stay template.
                let home = select(doc, "a[href='/']").unwrap()[0];
                assert!(mask[home.index()]);
            }
            // The paper's keys remove the coincidental chunk.
            let paper = TableChunkConfig {
                chunking: Chunking {
                    keys: ChunkKeys::Text,
                    ..chunking
                },
                ..config
            };
            let model = learn(&pages, &paper);
            let mask = model.template_mask(&new);
            assert!(!none_template(&new, &mask, css), "{css} {boundaries:?}");
        }
    }
}

#[test]
fn image_alt_text_and_names_are_chunk_text() {
    // An image-only navigation bar (buttons with file names, one with ALT text), spacers.
    let page = |i: usize, img: &str| {
        parse_str(&format!(
            "<body><div id=bar><a href=/><img src='/i/home-button.gif'></a><img src=/i/spacer.gif>\
             <a href=/s><img src=/i/nav_shop.png alt='Our shop'></a><img src=/i/img9.gif></div>\
             <div id=main><p>Story {i} is told here.</p>{img}</div></body>"
        ))
    };
    let pages: Vec<Document> = (0..4).map(|i| page(i, "")).collect();
    let chunking = Chunking::default();
    let texts: Vec<String> = page_chunks(&pages[0], &chunking)
        .into_iter()
        .map(|c| c.text)
        .collect();
    assert_eq!(texts, ["home button Our shop", "Story 0 is told here."]);
    let model = learn(&pages, &TableChunkConfig::default());
    // A content image named like nothing in the template is content; its own chunk.
    let doc = page(9, "<img src='/uploads/harvest-festival-crowd.jpg'>");
    let mask = model.template_mask(&doc);
    assert!(all_template(&doc, &mask, "#bar"));
    assert!(none_template(&doc, &mask, "#main"));
    // Without image text the bar has no chunks: it follows its parent (layout under body).
    let no_images = TableChunkConfig {
        chunking: Chunking {
            images: false,
            ..chunking
        },
        ..TableChunkConfig::default()
    };
    let texts: Vec<String> = page_chunks(&pages[0], &no_images.chunking)
        .into_iter()
        .map(|c| c.text)
        .collect();
    assert_eq!(texts, ["Story 0 is told here."]);
    // An image-only template of another site: different image names, different chunks.
    let other = parse_str("<body><div id=bar><img src=/i/contact-us.gif></div></body>");
    assert_eq!(page_chunks(&other, &chunking)[0].text, "contact us");
}

/// A template block whose image changes on every page (a rotating sponsor logo) stays
/// template: image-only chunks are evidence for the template, never against it.
#[test]
fn rotating_template_images_stay_template() {
    let page = |i: usize| {
        parse_str(&format!(
            "<body><nav><a href=/>Home</a> <a href=/t>Tickets</a></nav>\
             <aside><h2>Our sponsor</h2><a href=/s{i}><img src='/logos/acme-{}.png' alt='Sponsor {}'></a></aside>\
             <main><p>Session {i} is about caching.</p><img src=/img/speaker-photo-{}.jpg alt='Speaker {}'></main></body>",
            ["tools", "bakery", "garage", "florist"][i % 4],
            ["Tools", "Bakery", "Garage", "Florist"][i % 4],
            ["anna", "bert", "cleo", "dave", "emil"][i % 5],
            ["Anna", "Bert", "Cleo", "Dave", "Emil"][i % 5],
        ))
    };
    let pages: Vec<Document> = (0..8).map(page).collect();
    let model = learn(&pages, &TableChunkConfig::default());
    for doc in [&pages[3], &page(11)] {
        let mask = model.template_mask(doc);
        assert!(all_template(doc, &mask, "aside"));
        assert!(all_template(doc, &mask, "nav"));
        assert!(none_template(doc, &mask, "main"));
    }
    // Symmetric image evidence: the changing logo is content.
    let symmetric = TableChunkConfig {
        rules: super::MaskRules {
            image_chunks_template_only: false,
            ..Default::default()
        },
        ..TableChunkConfig::default()
    };
    let model = learn(&pages, &symmetric);
    let mask = model.template_mask(&pages[3]);
    assert!(!mask[one(&pages[3], "aside a").index()]);
    assert!(!mask[one(&pages[3], "aside img").index()]);
    assert!(mask[one(&pages[3], "aside h2").index()]);
}

#[test]
fn entities_and_whitespace_are_normalized() {
    let variants = [
        "<p class=f>Terms&nbsp;&amp;&nbsp;Conditions &middot; Privacy</p>",
        "<p class=f>Terms &#38; Conditions\n   &#183;\tPrivacy</p>",
        "<p class=f>  Terms\u{a0}&amp; Conditions \u{b7} Privacy\u{200b}</p>",
        "<p class=f>Terms <b>&amp;</b> Conditions · Privacy</p>",
    ];
    let pages: Vec<Document> = variants
        .iter()
        .enumerate()
        .map(|(i, f)| parse_str(&format!("<body><div>Text {i}</div>{f}</body>")))
        .collect();
    let keys: Vec<u64> = pages
        .iter()
        .map(|d| page_chunks(d, &Chunking::default())[1].key)
        .collect();
    assert!(keys.windows(2).all(|w| w[0] == w[1]), "{keys:?}");
    assert_eq!(
        page_chunks(&pages[0], &Chunking::default())[1].text,
        "Terms & Conditions · Privacy"
    );
    let model = learn(&pages, &TableChunkConfig::default());
    for doc in &pages {
        let mask = model.template_mask(doc);
        assert!(mask[one(doc, "p.f").index()]);
        assert!(!mask[one(doc, "div").index()]);
    }
}

#[test]
fn very_deep_page_does_not_overflow() {
    let depth = 100_000;
    // Parsing dominates (html5ever scans its open-element stack): parse once, clone.
    let deep = parse_str(&format!(
        "<body><p>menu</p>{}deep text{}</body>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    ));
    let pages = [
        deep.clone(),
        deep.clone(),
        parse_str("<body><p>menu</p><div>shallow text</div></body>"),
    ];
    let half = TableChunkConfig {
        fraction: 0.5,
        ..TableChunkConfig::default()
    };
    let model = learn(&pages, &half);
    assert_eq!(model.len(), 2, "menu and the deep text");
    let mask = model.template_mask(&deep);
    assert!(mask[one(&deep, "p").index()]);
    let innermost = NodeId(deep.len() as u32 - 2);
    assert!(mask[innermost.index()], "{:?}", deep.node(innermost));
    let shallow = model.template_mask(&pages[2]);
    assert!(!shallow[one(&pages[2], "div").index()]);
    // Under table boundaries the page is one chunk, on 2 of the 3 pages.
    let model = learn(
        &pages,
        &TableChunkConfig {
            fraction: 0.5,
            ..table_config()
        },
    );
    assert_eq!(model.template_mask(&deep).len(), deep.len());
    assert!(model.template_share(&deep) > 0.0);
}

#[test]
fn empty_and_garbage_pages_do_not_panic() {
    let garbage: Vec<Document> = [
        &b""[..],
        b"   ",
        b"\x00\x01\xff\xfe\x00garbage\xc3\x28",
        b"<<<>>></></td></tr></table>&&&;&#xffffffff;&#0;",
        b"<table><td><tr><th><caption><tbody>unclosed",
        b"<img src><img alt><img src='?#'><img src='data:,x'><area alt=x><input type=image>",
        b"<frameset><frame src=a.html></frameset>",
        b"<svg><text>not text</text></svg><script>var x;</script>",
    ]
    .iter()
    .map(|b| parse_bytes(b, None))
    .collect();
    for config in [TableChunkConfig::default(), table_config()] {
        let model = learn(&garbage, &config);
        for doc in &garbage {
            let mask = model.template_mask(doc);
            assert_eq!(mask.len(), doc.len());
            let share = model.template_share(doc);
            assert!((0.0..=1.0).contains(&share));
        }
        // No pages at all, and absurd fractions.
        let empty = learn(std::iter::empty::<&Document>(), &config);
        assert!(empty.is_empty());
        assert!(empty.template_mask(&garbage[3]).iter().all(|t| !t));
        for fraction in [f64::NAN, -1.0, 0.0, 7.0, f64::INFINITY] {
            let m = learn(&garbage, &TableChunkConfig { fraction, ..config });
            assert!(m.threshold >= 2);
            let _ = m.template_mask(&garbage[4]);
        }
    }
}

#[test]
fn model_serde_round_trip() {
    let pages = table_site();
    let model = learn(&pages, &TableChunkConfig::default());
    assert!(!model.is_empty());
    assert!(model.chunks.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(model.chunks.iter().all(|(_, df)| *df >= model.threshold));
    let json = serde_json::to_string(&model).unwrap();
    let back: TableChunkModel = serde_json::from_str(&json).unwrap();
    assert_eq!(back, model);
    for doc in &pages {
        assert_eq!(back.template_mask(doc), model.template_mask(doc));
    }
    // Compact: no chunk text is stored.
    assert!(!json.contains("Copyright"));
    assert!(json.len() < 300 + 32 * model.len(), "{}", json.len());
}

fn example() -> MirrorSource {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site");
    MirrorSource::new(dir, &["https://www.riverbend-garden.example/"]).unwrap()
}

#[test]
fn example_site_template_is_the_chrome() {
    let source = example();
    let url = source.base_url().join("news/spring-planting.html").unwrap();
    let r = extract_template(&source, &url, &TemplateConfig::tablechunk()).unwrap();
    assert_eq!(r.method, Method::TableChunk);
    assert!(r.loads.loaded >= 5, "loads {:?} {:?}", r.loads, r.notes);
    for css in [
        "#masthead",
        "#main-menu",
        "body > div > footer",
        "#sidebar h2",
    ] {
        assert!(
            all_template(&r.doc, &r.template, css),
            "{css} should be template"
        );
    }
    for css in ["main article p", "main h1"] {
        assert!(
            none_template(&r.doc, &r.template, css),
            "{css} should be content"
        );
    }
    // The reusable template keeps the page frame and the chrome, not the article.
    let html = crate::output::template_html(&r.doc, &r.template, &r.key_url);
    assert!(html.contains("<body") && html.contains("main-menu"));
    assert!(!html.contains("entry-title"));
    // The content is the main content (the article's text, not its byline line) with the
    // site's evidence behind it.
    let (keep, name) = r.content_mask(&Default::default());
    assert_eq!(name, Method::TableChunk);
    assert!(keep[one(&r.doc, "main article .entry-content p").index()]);
    assert!(!keep[one(&r.doc, "#main-menu").index()]);
    // The print page has a template of its own: no sampled page shares it.
    let url = source
        .base_url()
        .join("print/garden-guide-print.html")
        .unwrap();
    let r = extract_template(&source, &url, &TemplateConfig::tablechunk()).unwrap();
    assert!(r.template.iter().all(|t| !t));
    assert!(
        r.notes.iter().any(|n| n.contains("no template")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.content_mask(&Default::default()).1, Method::MainContent);
}

/// Floors on the whole dev gold with the method's defaults (measured: template F1 0.963,
/// content F1 0.971 with 50 sampled pages, every page at least 0.73 / 0.80; BENCHMARKS.md, "Table chunks").
#[test]
fn dev_gold_floors_tablechunk() {
    let Some(report) = common::eval_dev_gold(&TemplateConfig::tablechunk()) else {
        return;
    };
    let m = &report.macro_avg;
    assert_eq!(m.pages, 32);
    assert_eq!(m.errors, 0);
    assert!(m.template.f1 >= 0.94, "template F1 {}", m.template.f1);
    assert!(m.content.f1 >= 0.95, "content F1 {}", m.content.f1);
    for row in &report.rows {
        assert!(
            row.template.f1 >= 0.6 && row.content.f1 >= 0.7,
            "{} {}: template F1 {} content F1 {}",
            row.site,
            row.page,
            row.template.f1,
            row.content.f1
        );
    }
}
