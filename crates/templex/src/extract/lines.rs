//! The content's lines — its kept text grouped by the block-level element it sits in, as a
//! reader sees it rendered — and the lines no reader reads: runs of machine identifiers,
//! and the chrome a thread repeats around every post.
//!
//! The passes over the rendered content ([`drop_repeated_copies`](super::drop_repeated_copies),
//! [`drop_identifier_lines`]) weigh lines, not elements: one line can span many inline
//! elements (eBay spells "Sponsored" one letter per `<span>`, between spans of UUIDs that
//! its stylesheet hides).

use std::ops::Range;

use crate::dom::tags::is_block;
use markup5ever::local_name;

use crate::dom::{Document, LocalName, NodeData, NodeId, deadline};

/// The kept text nodes under a root, in document order, and the lines they make: the
/// runs of them between block-level boundaries.
pub(crate) struct Lines {
    /// The kept text nodes that hold more than whitespace.
    pub(crate) nodes: Vec<NodeId>,
    /// Each line, a range of [`Lines::nodes`].
    pub(crate) lines: Vec<Range<usize>>,
    /// Per line, whether it sits in code (`<pre>`, `<code>`, `<samp>`, `<kbd>`).
    pub(crate) code: Vec<bool>,
    /// Per line, the innermost block-level element holding it (the root when none does).
    pub(crate) block: Vec<NodeId>,
}

impl Lines {
    /// The lines of what `keep` keeps under `root`, as a reader sees them (invisible
    /// elements left out). `None` when the deadline passed before the end.
    pub(crate) fn of(doc: &Document, root: NodeId, keep: &[bool]) -> Option<Lines> {
        let kept = |id: NodeId| keep.get(id.index()).copied().unwrap_or(false);
        // The open block elements and their subtree ends.
        let mut open: Vec<(NodeId, u32)> = Vec::new();
        let mut out = Lines {
            nodes: Vec::new(),
            lines: Vec::new(),
            code: Vec::new(),
            block: Vec::new(),
        };
        // Where the outermost open code element ends, and whether the current line's first
        // text stands inside one (read in the walk: a deep page asks no ancestors).
        let (mut code_to, mut line_code) = (0u32, false);
        let mut start = 0usize;
        let flush =
            |out: &mut Lines, start: &mut usize, line_code: bool, open: &[(NodeId, u32)]| {
                if out.nodes.len() > *start {
                    out.lines.push(*start..out.nodes.len());
                    out.code.push(line_code);
                    out.block.push(open.last().map_or(root, |o| o.0));
                }
                *start = out.nodes.len();
            };
        for id in doc.visible_descendants(root) {
            if deadline::due(id.index()) {
                return None;
            }
            while open.last().is_some_and(|&(_, end)| end <= id.0) {
                flush(&mut out, &mut start, line_code, &open);
                open.pop();
            }
            match &doc.node(id).data {
                NodeData::Element(e) => {
                    if is_block(&e.name.local) && id != root {
                        flush(&mut out, &mut start, line_code, &open);
                        open.push((id, doc.node(id).end.0));
                    }
                    if id.0 >= code_to && is_code(&e.name.local) {
                        code_to = doc.node(id).end.0;
                    }
                }
                NodeData::Text(r)
                    if kept(id) && !doc.text_buffer()[r.clone()].trim().is_empty() =>
                {
                    if out.nodes.len() == start {
                        line_code = id.0 < code_to;
                    }
                    out.nodes.push(id);
                }
                _ => {}
            }
        }
        flush(&mut out, &mut start, line_code, &open);
        Some(out)
    }

    /// The text nodes of each line.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[NodeId]> {
        self.lines.iter().map(|r| &self.nodes[r.clone()])
    }
}

/// Share of a line's visible characters in machine identifiers from which it is no text: a
/// line of prose that quotes an identifier ("Take note of the UUID, e.g. ba5b7f3a-…"), a
/// command with one in it, stay well under.
const IDENTIFIER_SHARE: f64 = 0.9;

/// Identifiers a line must hold to be a run of them, not one value shown alone (a table
/// cell, a field of a form).
const IDENTIFIER_RUN: usize = 2;

/// Drops from `keep` the lines that are runs of machine identifiers: [`IDENTIFIER_RUN`] or
/// more UUIDs making up [`IDENTIFIER_SHARE`] of the line's visible characters. No reader
/// reads them; they are what a page's stylesheet hides (eBay interleaves the letters of
/// "Sponsored" with spans of UUIDs its CSS hides, 115 "words" a line) or what a script
/// reads. Code blocks keep theirs: a listing of identifiers can be an example.
///
/// A line that is one machine value goes too: a timestamp (ISO 8601 with its `T`:
/// `2019-01-21T21:40:59Z`) or a picture's address (`https://cdn…/5001_TEE_BONE.jpg`). Pages
/// show readers their dates in words or short numbers and their pictures as pictures; the
/// values are kept for scripts, in elements the stylesheet hides (Stack Exchange's
/// `<time class="d-none">`, a shop's table of thumbnails per colour).
pub(crate) fn drop_identifier_lines(doc: &Document, lines: &Lines, keep: &mut [bool]) {
    for (line, &code) in lines.iter().zip(&lines.code) {
        if code {
            continue;
        }
        if let [one] = line
            && doc
                .text(*one)
                .is_some_and(|t| is_timestamp(t.trim()) || is_image_address(t.trim()))
        {
            if let Some(k) = keep.get_mut(one.index()) {
                *k = false;
            }
            continue;
        }
        let ids: usize = line
            .iter()
            .filter_map(|&id| doc.text(id))
            .map(|t| uuids(t.as_bytes()))
            .sum();
        // Most lines hold no UUID: their characters need no counting.
        if ids < IDENTIFIER_RUN {
            continue;
        }
        let chars: usize = line
            .iter()
            .filter_map(|&id| doc.text(id))
            .map(|t| t.bytes().filter(|b| !b.is_ascii_whitespace()).count())
            .sum();
        if ((ids * UUID_LEN) as f64) < IDENTIFIER_SHARE * chars as f64 {
            continue;
        }
        for id in line {
            if let Some(k) = keep.get_mut(id.index()) {
                *k = false;
            }
        }
    }
}

/// Whether `s` is one address of a picture: an `http(s)://` or `//` URL without spaces whose
/// path ends in an image file's extension.
fn is_image_address(s: &str) -> bool {
    let Some(rest) = ["https://", "http://", "//"].iter().find_map(|p| {
        s.get(..p.len())
            .filter(|h| h.eq_ignore_ascii_case(p))
            .map(|_| &s[p.len()..])
    }) else {
        return false;
    };
    if rest.is_empty() || rest.contains(char::is_whitespace) {
        return false;
    }
    let path = rest.split(['?', '#']).next().unwrap_or(rest);
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    ["jpg", "jpeg", "png", "gif", "webp", "avif", "svg"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
}

/// Whether `s` is one ISO 8601 date and time (`2019-01-21T21:40:59.620`, a zone or an offset
/// after it): `YYYY-MM-DDThh:mm`, then only the characters of seconds, fractions and zones.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    b.len() >= 16
        && b.len() <= 40
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16..]
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b':' | b'.' | b'+' | b'-' | b'Z'))
}

/// Words up to which a line that carries `©` is a copyright notice or a picture's credit
/// ("© 2012 «Независимое Бюро Новостей».", "Copyright © 2023 NPR. All rights reserved.",
/// "Foto © Peter Steiger"); a paragraph that mentions the sign is longer.
const COPYRIGHT_WORDS: usize = 30;

/// Drops from `keep` the lines (outside code) of up to [`COPYRIGHT_WORDS`] words that carry
/// the copyright sign: a site's notice or a credit, in any language, never what a reader
/// came for. The container's pruning leaves out such blocks when they end without a
/// sentence; this catches the notices written as sentences, in either view.
pub(crate) fn drop_copyright_lines(doc: &Document, lines: &Lines, keep: &mut [bool]) {
    for (line, &code) in lines.iter().zip(&lines.code) {
        if code
            || !line
                .iter()
                .filter_map(|&id| doc.text(id))
                .any(|t| t.contains('\u{a9}'))
        {
            continue;
        }
        let words: usize = line
            .iter()
            .filter_map(|&id| doc.text(id))
            .map(super::blocks::text_words)
            .sum();
        if words > COPYRIGHT_WORDS {
            continue;
        }
        for id in line {
            if let Some(k) = keep.get_mut(id.index()) {
                *k = false;
            }
        }
    }
}

/// Times a short line must recur for it to be a post's chrome rather than a name or a
/// phrase a thread repeats ([`drop_post_chrome`]).
const POST_CHROME_REPEATS: usize = 3;

/// The share of the most repeated line's count that a line must reach to be a post's
/// chrome: labels recur once per post, a user's name once per post of theirs.
const POST_CHROME_SHARE: f64 = 0.5;

/// Words up to which a repeated line can be a post's chrome ("Reply With Quote", "Joined",
/// "Re: <the thread's title>"); a repeated sentence is a quote, not a label.
const POST_CHROME_WORDS: usize = 8;

/// Drops from `keep` a thread's post chrome: the short lines (up to [`POST_CHROME_WORDS`]
/// words, outside code) that recur word for word [`POST_CHROME_REPEATS`] times or more and
/// at least [`POST_CHROME_SHARE`] as often as the line recurring most. Forum software frames
/// every post with the same labels and controls — "Joined", "Messages", "Reaction score",
/// "Reply With Quote", "permalink embed save report", "Share on other sites", each post's
/// "Re: <title>" — once per post, while a poster's name recurs once per post of theirs.
/// Only for a page that declares a discussion: elsewhere a repeated short line is a
/// listing's price or a comparison's "Yes".
pub(crate) fn drop_post_chrome(doc: &Document, lines: &Lines, keep: &mut [bool]) {
    let kept = |id: &NodeId| keep.get(id.index()).copied().unwrap_or(false);
    // Each short line's words joined by single spaces; `None` for the others, for code and
    // for a line an earlier pass dropped (a copy of the content is no post's frame).
    let keys: Vec<Option<String>> = lines
        .iter()
        .zip(&lines.code)
        .map(|(line, &code)| {
            if code || !line.iter().any(kept) {
                return None;
            }
            let (mut text, mut words) = (String::new(), 0);
            for t in line.iter().filter_map(|&id| doc.text(id)) {
                words += super::blocks::text_words(t);
                if words > POST_CHROME_WORDS {
                    return None;
                }
                for w in t.split_whitespace() {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(w);
                }
            }
            (words > 0).then_some(text)
        })
        .collect();
    let mut counts: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for k in keys.iter().flatten() {
        *counts.entry(k.as_str()).or_default() += 1;
    }
    let most = counts.values().copied().max().unwrap_or(0);
    if most < POST_CHROME_REPEATS {
        return;
    }
    let chrome = |n: usize| n >= POST_CHROME_REPEATS && n as f64 >= POST_CHROME_SHARE * most as f64;
    for (line, key) in lines.iter().zip(&keys) {
        if key
            .as_deref()
            .and_then(|k| counts.get(k))
            .is_some_and(|&n| chrome(n))
        {
            for id in line {
                if let Some(k) = keep.get_mut(id.index()) {
                    *k = false;
                }
            }
        }
    }
}

/// Words from which a line is a post's text: the runs between such lines are the posts'
/// frames ([`drop_post_slots`]).
const POST_TEXT_WORDS: usize = 10;

/// Short lines a slot may hold per post's frame: a card's few fields, not a post's own list.
const SLOT_LINES_PER_FRAME: usize = 4;

/// Drops from `keep` the lines of a thread's post frames whose words vary from post to
/// post (a poster's title, "Posts: 4958", a town, "spartan14 2 years ago"), which
/// [`drop_post_chrome`] misses because it matches words. A line's slot is its block
/// element's tag and classes with its parent's; a slot is a frame's when all its lines are
/// short (up to [`POST_CHROME_WORDS`] words, so no slot of a post's text qualifies), at
/// least [`POST_CHROME_REPEATS`] of them with two texts or more, falling in as many runs
/// between lines of post text ([`POST_TEXT_WORDS`] words) at least, at most
/// [`SLOT_LINES_PER_FRAME`] per run. Its lines go but lines that are all link (a poster's
/// linked name, which the golds keep) and dated lines (the dateline rule weighs them).
pub(crate) fn drop_post_slots(doc: &Document, root: NodeId, lines: &Lines, keep: &mut [bool]) {
    let kept = |id: &NodeId| keep.get(id.index()).copied().unwrap_or(false);
    // Whether each node of the root's subtree sits in a link (one pass, parents first).
    let mut in_link = vec![false; doc.len()];
    for id in doc.subtree(root).map(NodeId) {
        if deadline::due(id.index()) {
            return;
        }
        in_link[id.index()] = doc.parent(id).is_some_and(|p| in_link[p.index()])
            || doc.element(id).is_some_and(|e| e.is(&local_name!("a")));
    }
    let name = |id: NodeId| {
        doc.element(id).map_or(String::new(), |e| {
            let mut classes: Vec<&str> = e.classes().collect();
            classes.sort_unstable();
            format!("{}.{}", e.name.local, classes.join(" "))
        })
    };
    struct Slot {
        lines: Vec<usize>,
        runs: Vec<usize>,
        long: bool,
    }
    let mut slots: rustc_hash::FxHashMap<String, Slot> = rustc_hash::FxHashMap::default();
    let mut texts: Vec<(String, bool)> = Vec::with_capacity(lines.lines.len());
    let mut run = 0usize;
    for (i, (line, &code)) in lines.iter().zip(&lines.code).enumerate() {
        let words: usize = line
            .iter()
            .map(|&id| super::blocks::node_words(doc, id))
            .sum();
        let text = line
            .iter()
            .filter_map(|&id| doc.text(id))
            .flat_map(str::split_whitespace)
            .collect::<Vec<_>>()
            .join(" ");
        let droppable = !code
            && line.iter().any(kept)
            && !line.iter().all(|id| in_link[id.index()])
            && !super::prune::has_date(&text);
        texts.push((text, droppable));
        let block = lines.block[i];
        if block != root && !code {
            let slot = format!(
                "{}<{}",
                name(block),
                doc.parent(block).map_or(String::new(), name)
            );
            let entry = slots.entry(slot).or_insert(Slot {
                lines: Vec::new(),
                runs: Vec::new(),
                long: false,
            });
            if words > POST_CHROME_WORDS {
                entry.long = true;
            } else if words > 0 {
                entry.lines.push(i);
                if entry.runs.last() != Some(&run) {
                    entry.runs.push(run);
                }
            }
        }
        if words >= POST_TEXT_WORDS {
            run += 1;
        }
    }
    for slot in slots.values() {
        let drop: Vec<usize> = slot.lines.iter().copied().filter(|&i| texts[i].1).collect();
        let distinct: rustc_hash::FxHashSet<&str> =
            drop.iter().map(|&i| texts[i].0.as_str()).collect();
        if slot.long
            || drop.len() < POST_CHROME_REPEATS
            || distinct.len() < 2
            || slot.runs.len() < POST_CHROME_REPEATS
            || slot.lines.len() > SLOT_LINES_PER_FRAME * slot.runs.len()
        {
            continue;
        }
        for i in drop {
            for id in &lines.nodes[lines.lines[i].clone()] {
                if let Some(k) = keep.get_mut(id.index()) {
                    *k = false;
                }
            }
        }
    }
}

/// Bytes of a UUID: 8-4-4-4-12 hexadecimal digits.
const UUID_LEN: usize = 36;

/// How many UUIDs `text` holds, wherever they stand. Found from their first dash: most
/// text has few dashes, and memchr skips the rest.
fn uuids(text: &[u8]) -> usize {
    const LEN: usize = UUID_LEN;
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    let is_uuid = |s: &[u8]| {
        s.iter().enumerate().all(|(i, b)| {
            if DASHES.contains(&i) {
                *b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
    };
    let (mut n, mut from) = (0, 0);
    while let Some(d) = memchr::memchr(b'-', &text[from..]).map(|d| from + d) {
        match d
            .checked_sub(8)
            .filter(|&s| s >= from && s + LEN <= text.len())
        {
            Some(s) if is_uuid(&text[s..s + LEN]) => {
                n += 1;
                from = s + LEN;
            }
            _ => from = d + 1,
        }
    }
    n
}

/// Code: a block (`<pre>`) or inline (`<code>`, `<samp>`, `<kbd>`).
pub(super) fn is_code(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("pre") | local_name!("code") | local_name!("samp") | local_name!("kbd")
    )
}

#[cfg(test)]
mod tests {
    use super::{is_image_address, is_timestamp, uuids};

    #[test]
    fn image_addresses_are_urls_of_picture_files() {
        for t in [
            "https://cdn11.bigcommerce.com/s-1/images/160x160/5001_TEE_BONE_THUMB_1.jpg",
            "//img.example.com/a/b.WEBP?v=3",
            "http://example.com/logo.svg#mark",
        ] {
            assert!(is_image_address(t), "{t}");
        }
        for t in [
            "https://example.com/gallery/",
            "https://example.com/photo.jpg is the one",
            "photo.jpg",
            "https://example.com/image.jpg.html",
            "https://",
        ] {
            assert!(!is_image_address(t), "{t}");
        }
    }

    #[test]
    fn timestamps_are_iso_dates_with_their_time() {
        for t in [
            "2019-01-21T21:40:59.620",
            "2019-01-21T21:40",
            "2020-03-02T08:15:00+01:00",
            "2024-05-01T00:00:00Z",
        ] {
            assert!(is_timestamp(t), "{t}");
        }
        for t in [
            "2019-01-21",
            "2019-01-21 21:40:59",
            "2019-01-21T21:40 UTC",
            "Jan 21, 2019",
            "2019-01-21T21:4",
            "",
        ] {
            assert!(!is_timestamp(t), "{t}");
        }
    }

    #[test]
    fn uuids_are_found_wherever_they_stand() {
        assert_eq!(uuids(b"ba5b7f3a-54d2-4325-80e5-e7a159900d3f"), 1);
        assert_eq!(
            uuids(b"Sf2f260c3-bf1f-466a-b856-6f031758a086p16207f0d-5442-4472-ad51-162a45a841c3"),
            2
        );
        assert_eq!(uuids(b"ba5b7f3a-54d2-4325-80e5-e7a159900d3"), 0);
        assert_eq!(uuids(b"ba5b7f3a_54d2-4325-80e5-e7a159900d3f"), 0);
        assert_eq!(uuids("é".as_bytes()), 0);
    }
}
