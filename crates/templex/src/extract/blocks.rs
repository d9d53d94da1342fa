//! Text blocks: the runs of inline text between block-level boundaries.

use markup5ever::local_name;

use crate::dom::tags::{is_block, is_heading, is_list_item};
use crate::dom::{Document, LocalName, NodeData, NodeId, deadline, is_cjk, is_word_char};

/// What kind of block a text run is, by its owning element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// `h1`–`h6`.
    Heading,
    /// `li`, `dt`, `dd`.
    ListItem,
    /// `td`, `th`, `caption`.
    TableCell,
    /// `pre`.
    Code,
    /// `figcaption`.
    Caption,
    /// `p`, `blockquote` and anything else.
    Paragraph,
}

/// A text block.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// The innermost block-level element holding the run.
    pub owner: NodeId,
    /// Its kind.
    pub kind: BlockKind,
    /// Words in the run.
    pub words: u32,
    /// Words inside links.
    pub link_words: u32,
    /// Sentence punctuation marks (`. , ; : ! ?` and CJK equivalents).
    pub punctuation: u32,
}

fn kind_of(tag: &LocalName) -> BlockKind {
    if is_heading(tag) {
        return BlockKind::Heading;
    }
    if is_list_item(tag) {
        return BlockKind::ListItem;
    }
    match *tag {
        local_name!("td") | local_name!("th") | local_name!("caption") => BlockKind::TableCell,
        local_name!("pre") => BlockKind::Code,
        local_name!("figcaption") => BlockKind::Caption,
        _ => BlockKind::Paragraph,
    }
}

/// Count words (runs of alphanumerics; each CJK character counts as one) and punctuation.
#[inline]
pub(super) fn count(text: &str) -> (u32, u32) {
    let (mut words, mut punct) = (0u32, 0u32);
    scan_words(text, |_| {}, || words += 1, || punct += 1);
    (words, punct)
}

/// The words of `text` as the extractor counts them — runs of alphanumerics, each CJK
/// character a word of its own, a soft hyphen or its kin inside a word leaving it one word
/// ("Mit\u{ad}tel\u{ad}al\u{ad}ter") — met in order: `letter` with each character of a
/// word, `end` after each word, `mark` at each sentence punctuation mark (`. , ; : ! ?` and
/// their CJK equivalents). One pass over the bytes: ASCII, most of the text of most pages,
/// is not decoded.
#[inline(always)]
pub(super) fn scan_words(
    text: &str,
    mut letter: impl FnMut(char),
    mut end: impl FnMut(),
    mut mark: impl FnMut(),
) {
    let mut in_word = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            if b.is_ascii_alphanumeric() {
                in_word = true;
                letter(char::from(b));
            } else {
                if in_word {
                    in_word = false;
                    end();
                }
                if matches!(b, b'.' | b',' | b';' | b':' | b'!' | b'?') {
                    mark();
                }
            }
            continue;
        }
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        if is_cjk(c) {
            if in_word {
                in_word = false;
                end();
            }
            letter(c);
            end();
        } else if crate::dom::is_invisible_format(c) {
            // Inside a word, a break opportunity, not a boundary.
        } else if is_word_char(c) {
            in_word = true;
            letter(c);
        } else {
            if in_word {
                in_word = false;
                end();
            }
            if matches!(c, '。' | '、' | '，' | '！' | '？' | '；' | '：') {
                mark();
            }
        }
    }
    if in_word {
        end();
    }
}

/// Words of `text` as the page-level views weigh them: whitespace-separated tokens, except
/// that every CJK character is a word of its own (a Chinese sentence has no spaces, and one
/// token per sentence made every Chinese article weigh as little as its menu).
pub(crate) fn text_words(text: &str) -> usize {
    // One pass (this runs over every text node of a page several times): a token is a run
    // of non-whitespace characters, worth one word, or its CJK characters plus one when it
    // also holds other word characters. ASCII bytes, most of most pages' text, are judged
    // without decoding a character.
    let (mut total, mut in_token, mut cjk, mut other) = (0usize, false, 0usize, false);
    let end_token = |cjk: usize, other: bool| {
        if cjk == 0 {
            1
        } else {
            cjk + usize::from(other)
        }
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (space, c) = if b < 0x80 {
            i += 1;
            // `char::is_whitespace` on ASCII: tab, line feed, vertical tab, form feed,
            // carriage return and space.
            (matches!(b, b'\t'..=b'\r' | b' '), None)
        } else {
            let Some(c) = text[i..].chars().next() else {
                break;
            };
            i += c.len_utf8();
            (c.is_whitespace(), Some(c))
        };
        if space {
            if in_token {
                total += end_token(cjk, other);
                (in_token, cjk, other) = (false, 0, false);
            }
            continue;
        }
        in_token = true;
        match c {
            None => other |= b.is_ascii_alphanumeric(),
            Some(c) if is_cjk(c) => cjk += 1,
            Some(c) => other |= is_word_char(c),
        }
    }
    if in_token {
        total += end_token(cjk, other);
    }
    total
}

/// [`text_words`] of text node `id` (zero for other nodes), counted once per page: the
/// views weigh the same visible text several times (the body's words, the container's, the
/// spread view's), and on daniel-dev's pages counting words was a tenth of extraction. Only
/// nodes asked for are counted: most of a page's text is never weighed (hidden, in `<head>`).
pub(crate) fn node_words(doc: &Document, id: NodeId) -> usize {
    use std::sync::atomic::{AtomicU32, Ordering};
    const UNCOUNTED: u32 = u32::MAX;
    let Some(t) = doc.text(id) else {
        return 0;
    };
    let cache = doc
        .text_words
        .0
        .get_or_init(|| (0..doc.len()).map(|_| AtomicU32::new(UNCOUNTED)).collect());
    let Some(slot) = cache.get(id.index()) else {
        return text_words(t);
    };
    match slot.load(Ordering::Relaxed) {
        UNCOUNTED => {
            let n = text_words(t);
            // (A count past u32 is not cached: it would read as uncounted.)
            if let Ok(k) = u32::try_from(n) {
                slot.store(k, Ordering::Relaxed);
            }
            n
        }
        k => k as usize,
    }
}

/// Segment `root`'s subtree into text blocks, in document order.
pub(crate) fn segment_blocks(doc: &Document, root: NodeId) -> Vec<Block> {
    let mut out = Vec::new();
    // Stack of open block elements (id, subtree end) and of open links (subtree end).
    let mut open: Vec<(NodeId, u32)> = vec![(root, doc.node(root).end.0)];
    let mut links: Vec<u32> = Vec::new();
    let mut current: Option<Block> = None;
    let flush = |current: &mut Option<Block>, out: &mut Vec<Block>| {
        if let Some(b) = current.take() {
            if b.words > 0 {
                out.push(b);
            }
        }
    };
    for id in doc.visible(root) {
        if deadline::due(id.index()) {
            break;
        }
        while open.len() > 1 && open.last().is_some_and(|&(_, end)| end <= id.0) {
            open.pop();
            flush(&mut current, &mut out);
        }
        while links.last().is_some_and(|&end| end <= id.0) {
            links.pop();
        }
        match &doc.node(id).data {
            NodeData::Element(e) => {
                if is_block(&e.name.local) && id != root {
                    flush(&mut current, &mut out);
                    open.push((id, doc.node(id).end.0));
                }
                // Named anchors (`<a name=…>`, `<a id=…>`) are targets, not links.
                if e.is(&local_name!("a")) && e.attr("href").is_some() {
                    links.push(doc.node(id).end.0);
                }
            }
            NodeData::Text(r) => {
                let (w, p) = count(&doc.text_buffer()[r.clone()]);
                if w > 0 || p > 0 {
                    let owner = open.last().map_or(root, |o| o.0);
                    let b = current.get_or_insert_with(|| Block {
                        owner,
                        kind: doc.tag(owner).map_or(BlockKind::Paragraph, kind_of),
                        words: 0,
                        link_words: 0,
                        punctuation: 0,
                    });
                    b.words += w;
                    b.punctuation += p;
                    if !links.is_empty() {
                        b.link_words += w;
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut current, &mut out);
    out
}
