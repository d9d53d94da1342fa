//! Link ordering of "Web pages sharing the same template" (hyperlink analysis), §3.2–3.3:
//! hyperlink distance (Definition 2), DOM distance (Definition 3), link relevance
//! (Definition 4), DOM relevance (Definition 5) and Algorithm 1 (sortLinks).

use url::Url;

use crate::dom::{Document, NodeId};
use crate::links::Link;

/// A hyperlink in the paper's sense: the directory words of a URL, host first
/// (`www.upv.es/research/maths/` for `https://www.upv.es/research/maths/x.html`).
pub(crate) fn hyperlink_words(url: &Url) -> Vec<String> {
    let mut words = vec![url.host_str().unwrap_or("").to_ascii_lowercase()];
    let path = url.path();
    // The resource name (after the last slash) is ignored: only directories count.
    let dirs = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    words.extend(
        dirs.split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    );
    words
}

/// Definition 2: distance from hyperlink `h` to hyperlink `h2`, both as word sequences.
///
/// 0 when equal, `+|h1|` when `h2 = h·h1`, `-|h1|` when `h = h2·h1` or when both extend a
/// common prefix `h0` with different heads (`h = h0·h1`), and `-|h|` when the heads differ.
pub(crate) fn h_distance<S: AsRef<str>>(h: &[S], h2: &[S]) -> i64 {
    let common = h
        .iter()
        .zip(h2)
        .take_while(|(a, b)| a.as_ref() == b.as_ref())
        .count();
    match (common == h.len(), common == h2.len()) {
        (true, true) => 0,
        (true, false) => (h2.len() - common) as i64,
        (false, _) => -((h.len() - common) as i64),
    }
}

/// Definition 3: DOM distance, the number of edges between two nodes through their lowest
/// common ancestor (0 only for the same node).
pub(crate) fn d_distance(doc: &Document, a: NodeId, b: NodeId) -> usize {
    let (da, db) = (doc.node(a).depth as usize, doc.node(b).depth as usize);
    let (mut x, mut y) = (a, b);
    let (mut dx, mut dy) = (da, db);
    while dx > dy {
        x = doc.parent(x).unwrap_or(x);
        dx -= 1;
    }
    while dy > dx {
        y = doc.parent(y).unwrap_or(y);
        dy -= 1;
    }
    while x != y {
        match (doc.parent(x), doc.parent(y)) {
            (Some(px), Some(py)) => {
                x = px;
                y = py;
                dx -= 1;
            }
            _ => break,
        }
    }
    da + db - 2 * dx
}

/// Definition 4 as a sort key: distance 0 first, then positive distances ascending, then
/// negative distances by increasing magnitude.
pub(crate) fn link_relevance_key(hd: i64) -> (bool, u64) {
    (hd < 0, hd.unsigned_abs())
}

/// Algorithm 1 (sortLinks): links grouped by link relevance to `key`; within a group, each
/// next link is the one farthest (Definition 5, DOM relevance) from the links of the group
/// already chosen; ties go to document order. Returns indices into `links`.
pub(crate) fn sort_links(doc: &Document, key: &Url, links: &[Link]) -> Vec<usize> {
    let key_words = hyperlink_words(key);
    let mut keyed: Vec<(i64, usize)> = links
        .iter()
        .enumerate()
        .map(|(i, l)| (h_distance(&key_words, &hyperlink_words(&l.url)), i))
        .collect();
    keyed.sort_by_key(|(hd, i)| (link_relevance_key(*hd), *i));
    let mut out = Vec::with_capacity(links.len());
    let mut start = 0;
    while start < keyed.len() {
        let hd = keyed[start].0;
        let end = start + keyed[start..].iter().take_while(|(d, _)| *d == hd).count();
        let group: Vec<usize> = keyed[start..end].iter().map(|(_, i)| *i).collect();
        out.extend(dom_spread_order(doc, links, &group));
        start = end;
    }
    out
}

/// Order one relevance group by DOM relevance: repeatedly take the link whose nearest
/// already-taken link is farthest away. Incremental minimum distances keep it O(g²).
fn dom_spread_order(doc: &Document, links: &[Link], group: &[usize]) -> Vec<usize> {
    let mut remaining: Vec<(usize, usize)> = group.iter().map(|&i| (i, usize::MAX)).collect();
    let mut out = Vec::with_capacity(group.len());
    while !remaining.is_empty() {
        // Max distance; on ties the earliest in document order (the group is in that order).
        let mut best = 0;
        for (k, r) in remaining.iter().enumerate() {
            if r.1 > remaining[best].1 {
                best = k;
            }
        }
        let (chosen, _) = remaining.remove(best);
        let chosen_node = links[chosen].node;
        for r in &mut remaining {
            let d = d_distance(doc, chosen_node, links[r.0].node);
            r.1 = r.1.min(d);
        }
        out.push(chosen);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;
    use crate::links::extract_links;

    fn w(s: &str) -> Vec<&str> {
        s.split('/').filter(|x| !x.is_empty()).collect()
    }

    /// The five worked examples under Definition 2.
    #[test]
    fn paper_examples_of_h_distance() {
        assert_eq!(h_distance(&w("research/maths/"), &w("research/maths/")), 0);
        assert_eq!(
            h_distance(&w("research/maths/"), &w("research/maths/geometry/")),
            1
        );
        assert_eq!(h_distance(&w("research/maths/"), &w("research/")), -1);
        // `research/physics/dynamics`: `dynamics` is the resource, so the link is research/physics/.
        let u = Url::parse("http://x/research/physics/dynamics").unwrap();
        let words = hyperlink_words(&u);
        let words: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        assert_eq!(h_distance(&w("research/maths/"), &words), -1);
        assert_eq!(
            h_distance(&w("research/maths/"), &w("www.upv.es/research/")),
            -2
        );
    }

    #[test]
    fn url_words_include_host_and_ignore_resource() {
        let u = Url::parse("https://www.upv.es/research/maths/index.html?x=1").unwrap();
        assert_eq!(hyperlink_words(&u), ["www.upv.es", "research", "maths"]);
        let k = Url::parse("https://www.upv.es/research/maths/").unwrap();
        assert_eq!(
            h_distance(
                &hyperlink_words(&k),
                &hyperlink_words(&Url::parse("https://other.org/research/").unwrap())
            ),
            -3
        );
    }

    #[test]
    fn dom_distance() {
        let doc = parse_str("<ul><li><a id=a></a></li><li><a id=b></a></li></ul><p><a id=c></a>");
        let ids: Vec<_> = doc
            .elements()
            .filter(|e| doc.tag(*e).is_some_and(|t| &**t == "a"))
            .collect();
        assert_eq!(d_distance(&doc, ids[0], ids[0]), 0);
        assert_eq!(d_distance(&doc, ids[0], ids[1]), 4);
        assert_eq!(d_distance(&doc, ids[0], ids[2]), 5);
    }

    #[test]
    fn sort_links_groups_then_spreads() {
        let key = Url::parse("https://s.org/news/today.html").unwrap();
        let doc = parse_str(
            r#"<nav><a href="/a/">a</a><a href="/b/">b</a></nav>
               <div><ul><li><a href="/news/x.html">x</a></li><li><a href="/news/y.html">y</a></li></ul>
               <p><a href="/news/z.html">z</a></p></div>
               <a href="/news/2020/old.html">old</a>"#,
        );
        let links = extract_links(&doc, &key);
        let order: Vec<&str> = sort_links(&doc, &key, &links)
            .into_iter()
            .map(|i| links[i].url.path())
            .collect();
        // Same directory first (x, then z which is farther from x than y is), then the
        // subdirectory, then the parent-level sections.
        assert_eq!(
            order,
            [
                "/news/x.html",
                "/news/z.html",
                "/news/y.html",
                "/news/2020/old.html",
                "/a/",
                "/b/"
            ]
        );
    }
}
