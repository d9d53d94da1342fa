//! The vote of TemEx and HybEx on hand-made pages: what mapped nodes are template, and
//! HybEx's page-level region.

use super::TemplateRule;
use super::protect::{all_text_everywhere, narrow_region, protected_in_region};
use super::vote::{Ballot, decide, vote};
use crate::dom::{Document, NodeId, parse_str};
use crate::extract::{ContentConfig, page_content};
use crate::mapping::{MapIndex, Mapping, etdm};
use crate::template::TemplateConfig;

/// The key page's template against `others`, each page a `<body>`'s inner HTML.
fn template_of(config: &TemplateConfig, key: &str, others: &[&str]) -> (Document, Vec<bool>) {
    let page = |b: &str| {
        parse_str(&format!(
            "<html><head><title>t</title></head><body>{b}</body></html>"
        ))
    };
    let doc = page(key);
    let docs: Vec<Document> = others.iter().map(|b| page(b)).collect();
    let index = MapIndex::new(&doc);
    let indexes: Vec<MapIndex<'_>> = docs.iter().map(MapIndex::new).collect();
    let maps: Vec<Mapping> = indexes
        .iter()
        .map(|o| etdm(&index, o, &config.mapping.equality))
        .collect();
    let refs: Vec<&Mapping> = maps.iter().collect();
    let (template, _) = vote(&index, &refs, config, None);
    (doc, template)
}

fn by_id(doc: &Document, id: &str) -> NodeId {
    doc.ids()
        .find(|n| doc.element(*n).is_some_and(|e| e.id() == Some(id)))
        .unwrap_or_else(|| panic!("no #{id}"))
}

fn temex() -> TemplateConfig {
    let mut config = TemplateConfig::temex();
    config.mapping.prior = false;
    config
}

const NAV: &str = r#"<div id="nav"><a href="/">Home</a> <a href="/about">About us</a></div>"#;

/// A forum page: the page-level container is the board's body, which holds the thread
/// and, after it, the board's jump box, a cluster of links every page shares.
fn board_page(n: u32) -> String {
    let posts: String = (1..=3)
        .map(|p| {
            format!(
                r#"<div class="post" id="post{p}"><p>Reply {p} to thread {n}: the batch file reads each line of the input, splits it at the commas and writes the third field, which is what the question in thread {n} asked for. It works on every version since Windows XP, as far as I can tell.</p></div>"#
            )
        })
        .collect();
    format!(
        r#"{NAV}<ul id="boards">{boards}</ul><div id="page-body"><h2 id="title">Thread {n}</h2><div class="post" id="pinned"><p>Please read the rules of the board before you post: one question per thread, show the code you tried, and say which version of Windows runs it.</p></div>{posts}<div id="jump"><a href="/f/1">General discussion</a> <a href="/f/2">Announcements</a> <a href="/f/3">Help and support</a> <a href="/f/4">Batch scripts</a></div></div><div id="foot">Footer line</div>"#,
        boards = (1..=8)
            .map(|b| format!(r#"<li><a href="/f/{b}">Board number {b}</a></li>"#))
            .collect::<String>()
    )
}

#[test]
fn parts_of_the_region_the_page_level_step_drops_are_voted() {
    let config = TemplateConfig::hybex();
    let (doc, t) = template_of(&config, &board_page(1), &[&board_page(2), &board_page(3)]);
    let c = page_content(&doc, &ContentConfig::default());
    let region = c.root.expect("a container");
    let jump = by_id(&doc, "jump");
    assert!(
        doc.subtree(region).any(|i| i == jump.0) && !c.is_content(jump),
        "the container holds the jump box and drops it: {}",
        doc.dom_path(region)
    );
    for id in ["nav", "boards", "foot", "jump"] {
        assert!(t[by_id(&doc, id).index()], "#{id} is template");
    }
    for id in ["title", "post1", "post3"] {
        assert!(!t[by_id(&doc, id).index()], "#{id} is content");
    }
}

#[test]
fn the_region_is_protected_where_both_page_level_views_call_it_content() {
    let doc = parse_str(
        r#"<body><div id="r"><div id="kept"><p id="p">Text</p><div id="box">Jump</div></div><div id="dropped">Links</div><div id="pager"><a id="page">Page</a><a id="last">7</a></div></div></body>"#,
    );
    let root = by_id(&doc, "r");
    // The container keeps itself, the first part and its paragraph.
    let mut keep = vec![false; doc.len()];
    keep[root.index()] = true;
    keep[by_id(&doc, "kept").index()] = true;
    for i in doc.subtree(by_id(&doc, "p")) {
        keep[i as usize] = true;
    }
    // Text that no compared page has: the pager's page count.
    let last = by_id(&doc, "last");
    let own = |id: NodeId| doc.parent(id) == Some(last);
    let mut chrome = vec![false; doc.len()];
    for i in doc.subtree(by_id(&doc, "box")) {
        chrome[i as usize] = true;
    }
    let is = |p: &[bool], id: &str| p[by_id(&doc, id).index()];
    // Nothing protected is voted template: PAGELEVEL is not asked.
    let voted = vec![false; doc.len()];
    let p = protected_in_region(&doc, root, &keep, own, &voted, || panic!("not asked"));
    assert!(is(&p, "r") && is(&p, "p") && is(&p, "box"));
    assert!(!is(&p, "dropped"), "a part the container drops whole");
    assert!(
        is(&p, "pager") && is(&p, "page"),
        "a dropped part with text of its own"
    );
    let voted = vec![true; doc.len()];
    let p = protected_in_region(&doc, root, &keep, own, &voted, || &chrome[..]);
    assert!(is(&p, "r") && is(&p, "kept") && is(&p, "p"));
    assert!(!is(&p, "box"), "what PAGELEVEL calls chrome");
    assert!(!is(&p, "dropped") && is(&p, "pager"));
}

#[test]
fn script_and_style_text_is_no_evidence() {
    let body = |n: u32| {
        format!(
            r#"{NAV}<div id="w"><style id="s">.p{n} {{ color: red }}</style><script id="j">var page = {n};</script></div><p id="c">Text number {n}</p>"#
        )
    };
    let (doc, t) = template_of(&temex(), &body(1), &[&body(2), &body(3)]);
    for id in ["nav", "w", "s", "j"] {
        assert!(t[by_id(&doc, id).index()], "#{id} is template");
    }
    assert!(!t[by_id(&doc, "c").index()]);
}

#[test]
fn links_to_the_previous_and_next_page_are_content() {
    let body = |n: u32| {
        format!(
            r#"{NAV}<p>Text number {n}</p><div id="pager"><a id="prev" rel="prev" href="/{}">Previous</a> <a id="next" rel="next" href="/{}">Next</a></div>"#,
            n - 1,
            n + 1
        )
    };
    let (doc, t) = template_of(&temex(), &body(2), &[&body(5), &body(8)]);
    assert!(t[by_id(&doc, "nav").index()]);
    for id in ["pager", "prev", "next"] {
        assert!(!t[by_id(&doc, id).index()], "#{id} is content");
    }
    // TemEx as published: mapped is template, the series links too.
    let mut published = temex();
    published.mapping.rule = TemplateRule::Mapped;
    let (doc, t) = template_of(&published, &body(2), &[&body(5), &body(8)]);
    for id in ["nav", "pager", "prev", "next"] {
        assert!(t[by_id(&doc, id).index()], "#{id} is template");
    }
}

#[test]
fn a_submenu_under_a_template_item_is_template() {
    // Each page expands its own entry of the menu, as documentation sidebars do.
    let menu = |current: usize| {
        let items: String = (0..3)
            .map(|i| {
                let sub = if i == current {
                    format!(
                        r##"<ul id="sub"><li id="sub-item"><a href="#s{i}">Section {i}</a></li></ul>"##
                    )
                } else {
                    String::new()
                };
                format!(r#"<li><a href="/p{i}">Page {i}</a>{sub}</li>"#)
            })
            .collect();
        format!(
            r#"<ul id="menu">{items}</ul><div><ul id="list"><li>Point {current}</li></ul></div>"#
        )
    };
    let (doc, t) = template_of(&temex(), &menu(0), &[&menu(1), &menu(2)]);
    for id in ["menu", "sub", "sub-item"] {
        assert!(t[by_id(&doc, id).index()], "#{id} is template");
    }
    assert!(
        !t[by_id(&doc, "list").index()],
        "a content list stays content"
    );
}

#[test]
fn what_shows_nothing_among_template_is_template_between_content_not() {
    let key = format!(
        r#"{NAV}<h2 id="h">A heading</h2><hr id="rule"><p>Key text</p><div id="cards"><div id="card1"></div><div id="card2"><span id="inner"></span></div></div><div id="foot">Footer line</div>"#
    );
    let other = |n: u32| {
        format!(
            r#"{NAV}<h2>Heading {n}</h2><p>Other text {n}</p><div id="cards"></div><div id="foot">Footer line</div>"#
        )
    };
    let (doc, t) = template_of(&temex(), &key, &[&other(1), &other(2)]);
    for id in ["cards", "card1", "card2", "inner"] {
        assert!(t[by_id(&doc, id).index()], "#{id} is template");
    }
    assert!(
        !t[by_id(&doc, "rule").index()],
        "a rule between content is content"
    );
    assert!(!t[by_id(&doc, "h").index()]);
}

#[test]
fn text_of_the_removed_main_content_is_no_evidence() {
    // HybEx removes the page-level main content before the vote: the wrappers around it
    // hold no other text, so they are layout.
    let article = |n: u32| {
        format!(
            r#"{NAV}<div id="wrap"><div id="inner"><main id="main"><article id="art"><h1>Article {n}</h1><p>Text of article {n}.</p></article></main></div><ul id="share"><li><a href="/share">Share</a></li></ul></div><div id="foot">Footer line</div>"#
        )
    };
    let page = |b: &str| parse_str(&format!("<body>{b}</body>"));
    let doc = page(&article(1));
    let docs = [page(&article(2)), page(&article(3))];
    let config = temex();
    let index = MapIndex::new(&doc);
    let maps: Vec<Mapping> = docs
        .iter()
        .map(|d| etdm(&index, &MapIndex::new(d), &config.mapping.equality))
        .collect();
    let refs: Vec<&Mapping> = maps.iter().collect();
    let art = by_id(&doc, "art");
    let ballot = Ballot::new(&index, &refs, config.mapping.rule);
    let with = decide(&index, &ballot, 2, Some(art));
    let without = decide(&index, &ballot, 2, None);
    for id in ["inner", "main"] {
        let i = by_id(&doc, id).index();
        assert!(with[i] && !without[i], "#{id}");
    }
    for id in ["nav", "wrap", "share", "foot"] {
        let i = by_id(&doc, id).index();
        assert!(with[i] && without[i], "#{id}");
    }
}

/// A key page and two siblings written by `body` (numbered 1, 2, 3), and the key page
/// mapped onto each sibling.
fn mapped_pages(body: impl Fn(u32) -> String) -> (Document, [Document; 2], Vec<Mapping>) {
    let page = |b: &str| parse_str(&format!("<body>{b}</body>"));
    let doc = page(&body(1));
    let docs = [page(&body(2)), page(&body(3))];
    let index = MapIndex::new(&doc);
    let eq = temex().mapping.equality;
    let maps = docs
        .iter()
        .map(|d| etdm(&index, &MapIndex::new(d), &eq))
        .collect();
    (doc, docs, maps)
}

#[test]
fn a_region_whose_text_every_page_has_is_not_main_content() {
    let body = |n: u32| {
        format!(
            r#"{NAV}<div id="main"><p>Text number {n}</p></div><div id="empty"><img src="/a.png"></div>"#
        )
    };
    let (doc, _, maps) = mapped_pages(body);
    let index = MapIndex::new(&doc);
    let refs: Vec<&Mapping> = maps.iter().collect();
    assert!(all_text_everywhere(&index, &refs, by_id(&doc, "nav")));
    assert!(!all_text_everywhere(&index, &refs, by_id(&doc, "main")));
    assert!(
        !all_text_everywhere(&index, &refs, by_id(&doc, "empty")),
        "no text at all"
    );
}

#[test]
fn the_region_narrows_to_the_slot_the_compared_pages_agree_on() {
    let body = |n: u32| {
        format!(
            r#"{NAV}<div id="content"><main id="main"><article id="art"><p>Text number {n}</p></article></main></div>"#
        )
    };
    let (doc, docs, maps) = mapped_pages(body);
    let refs: Vec<&Mapping> = maps.iter().collect();
    let root = by_id(&doc, "content");
    let art = by_id(&doc, "art");
    let theirs = |i: usize, id: &str| Some(by_id(&docs[i], id));
    // The regions of the compared pages, and how many of them were asked for.
    let asked = std::cell::Cell::new(0);
    let narrow = |regions: [Option<NodeId>; 2]| {
        asked.set(0);
        narrow_region(&doc, root, &refs, |j| {
            asked.set(asked.get() + 1);
            regions[j]
        })
    };
    assert_eq!(narrow([theirs(0, "art"), theirs(1, "art")]), art);
    // A page whose detector chose the menu abstains.
    assert_eq!(narrow([theirs(0, "nav"), theirs(1, "art")]), art);
    // Disagreement, or a page agreeing with the region, keeps it.
    assert_eq!(narrow([theirs(0, "main"), theirs(1, "art")]), root);
    assert_eq!(narrow([theirs(0, "art"), theirs(1, "main")]), root);
    assert_eq!(asked.get(), 2);
    assert_eq!(narrow([theirs(0, "content"), theirs(1, "art")]), root);
    // Once a page maps to the region itself, the other pages' regions are not looked for.
    assert_eq!(asked.get(), 1);
    assert_eq!(narrow([None, None]), root);
}

#[test]
fn each_method_keeps_its_defaults() {
    use crate::template::{MappingConfig, SampleConfig};
    let (t, h) = (TemplateConfig::temex(), TemplateConfig::hybex());
    assert_eq!(
        (t.search.size, t.mapping.votes, t.mapping.prior),
        (3, None, true)
    );
    assert_eq!((t.mapping.guard, t.mapping.fallback), (0.2, true));
    assert_eq!(
        (h.search.size, h.mapping.votes, h.mapping.prior),
        (3, Some(2), false)
    );
    assert_eq!(h.search, t.search);
    assert_eq!(MappingConfig::default(), h.mapping);
    for method in crate::Method::ALL {
        let c = TemplateConfig::for_method(method);
        assert_eq!(c.method, method);
        assert_eq!(c.sample, SampleConfig { pages: 50, seed: 1 });
        if method != crate::Method::HybEx {
            assert_eq!(c.mapping, t.mapping, "{method}");
        }
    }
}
