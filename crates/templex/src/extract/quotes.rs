//! Text the content repeats, counted once where it was first written: quotations of what
//! it already holds (a reply quoting the post it answers), and a whole content shown again
//! (a responsive page laid out once per screen size).

use markup5ever::local_name;

use crate::dom::{Document, NodeId, deadline};

use super::blocks::scan_words;
use super::lines::Lines;

/// Words of a quotation that must repeat what came before for it to count as a repeat: a
/// quote of a few words ("Thanks!") says too little to tell.
const QUOTE_MIN_WORDS: usize = 6;

/// Share of a quotation's words that must sit in text kept before it for the quote to be a
/// repeat: a summary box that rephrases its section shares many trigrams with it, but not
/// nine words in ten (at a majority, scrapinghub-aeb lost such boxes; BENCHMARKS.md, "Held-out figures and the thresholds chosen by cross-validation").
const QUOTE_REPEATS: f64 = 0.9;

/// Drops from the content under `root` every `<blockquote>` that repeats text kept before it:
/// a forum reply quoting the post it answers, a pull quote restating the article. Readers
/// (and WCXB's gold) count that text once, where it was first written; a quote of something
/// that is not on the page stays. A quote repeats when [`QUOTE_REPEATS`] of its words sit in
/// a word trigram already kept. Words and trigrams are hashed, so the pass is linear in the
/// content's words; only the outermost quote of a nest is weighed.
pub(crate) fn drop_repeated_quotes(doc: &Document, root: NodeId, keep: &mut [bool]) {
    // Past the last kept quote nothing more can be dropped, so the words after it need no
    // hashing; most pages keep no quote at all, and skip the pass.
    let kept = |id: NodeId| keep.get(id.index()).copied().unwrap_or(false);
    let is_quote = |id: NodeId| doc.tag(id).is_some_and(|t| *t == local_name!("blockquote"));
    let mut ids = doc.subtree(root).rev().map(NodeId);
    let Some(last_quote) = ids.find(|id| kept(*id) && is_quote(*id)) else {
        return;
    };
    let trigram = |w: &[u64]| w[0].rotate_left(42) ^ w[1].rotate_left(21) ^ w[2];
    let mut seen = rustc_hash::FxHashSet::<u64>::default();
    // The last three words kept, for the trigrams that span text nodes.
    let mut last = [0u64; 3];
    let mut count = 0usize;
    let mut drop = Vec::new();
    let mut weighed_until = 0u32;
    let mut walk = doc.visible_descendants(root);
    while let Some(id) = walk.next() {
        if id > last_quote {
            break;
        }
        if !kept(id) {
            continue;
        }
        if id.0 >= weighed_until && is_quote(id) {
            let words: Vec<u64> = doc
                .visible_descendants(id)
                .filter(|d| kept(*d))
                .filter_map(|d| doc.text(d))
                .flat_map(word_hashes)
                .collect();
            let mut covered = vec![false; words.len()];
            for (i, w) in words.windows(3).enumerate() {
                if seen.contains(&trigram(w)) {
                    covered[i..i + 3].fill(true);
                }
            }
            let n = covered.iter().filter(|c| **c).count();
            if words.len() >= QUOTE_MIN_WORDS && n as f64 >= QUOTE_REPEATS * words.len() as f64 {
                drop.push(id);
                walk.skip_subtree(id);
                continue;
            }
            weighed_until = doc.subtree(id).end;
        }
        for w in doc.text(id).into_iter().flat_map(word_hashes) {
            last = [last[1], last[2], w];
            count += 1;
            if count >= 3 {
                seen.insert(trigram(&last));
            }
        }
    }
    for q in drop {
        for i in doc.subtree(q) {
            if deadline::due(i as usize) {
                break;
            }
            if let Some(k) = keep.get_mut(i as usize) {
                *k = false;
            }
        }
    }
}

/// Words a text block needs for its repeat to count: short lines ("Read more", "Not valid
/// with other offers.") recur on pages that show them once per item.
const COPY_MIN_WORDS: u32 = 8;

/// Blocks of [`COPY_MIN_WORDS`] or more that a copy repeats with no new block between them:
/// a content shown twice repeats long runs of its blocks, a page of items repeats a line or
/// two per item (a webcam's credit, an offer's terms, a meal plan's dish of the day) between
/// lines of their own.
const COPY_RUN: usize = 3;

/// Share of the content's words in copied runs from which the content holds copies of
/// itself: a page laid out once per screen size (Framer and Webflow sites render every
/// breakpoint, CSS shows one) repeats most of its text.
const COPY_SHARE: f64 = 0.3;

/// Drops from the content the copies of itself it shows: runs of its `lines` (inline runs
/// between block-level boundaries, [`Lines`]) that repeat, word for word, lines kept before
/// them, [`COPY_RUN`] of them of [`COPY_MIN_WORDS`] or more words, when such runs hold
/// [`COPY_SHARE`] of the content's words. A reader reads the content once. Lines are hashed
/// word by word, so the pass is linear in the content's words.
pub(crate) fn drop_repeated_copies(doc: &Document, lines: &Lines, keep: &mut [bool]) {
    // Each line's words and whether it repeats a line before it that stands in another
    // container: a copy is laid out apart from what it copies, while the paragraphs an
    // author writes twice in one container (a meal plan's dish on two days) are read twice.
    let mut seen = rustc_hash::FxHashMap::<u64, Option<NodeId>>::default();
    let mut total = 0u64;
    let mut measured: Vec<(u32, bool)> = Vec::with_capacity(lines.lines.len());
    let mut panels = TabPanels::default();
    for (line, &block) in lines.iter().zip(&lines.block) {
        // A tab panel's lines are its own: a reader opens one tab at a time (a quickstart's
        // steps, told again for each language).
        let (mut words, mut hash) = (0u32, u64::from(panels.of(doc, block)));
        for &id in line {
            words += doc.text(id).map_or(0, |t| fold_words(t, &mut hash));
        }
        total += u64::from(words);
        let repeat = words > 0 && {
            let home = doc.parent(block);
            *seen.entry(hash).or_insert(home) != home
        };
        measured.push((words, repeat));
    }
    // Runs of long repeated lines with no long new line between them (short lines neither
    // count nor break: a heading may be new, "Read more" may repeat); a run of
    // [`COPY_RUN`] is a copy, with the short repeated lines inside it and just before it
    // (the copy's headings). Lines without words neither count nor break.
    let repeat = |i: usize| measured[i].1;
    let long = |i: usize| measured[i].0 >= COPY_MIN_WORDS;
    let skip = |i: usize| measured[i].0 == 0;
    let mut copies: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < measured.len() {
        if !repeat(i) || !long(i) {
            i += 1;
            continue;
        }
        let (mut end, mut n) = (i, 0);
        while end < measured.len() && (repeat(end) || !long(end)) {
            n += usize::from(long(end));
            end += 1;
        }
        if n >= COPY_RUN {
            let mut start = i;
            while start > 0 && (skip(start - 1) || (repeat(start - 1) && !long(start - 1))) {
                start -= 1;
            }
            copies.extend((start..end).filter(|&l| repeat(l)));
        }
        i = end;
    }
    let copied: u64 = copies.iter().map(|&l| u64::from(measured[l].0)).sum();
    if copied == 0 || (copied as f64) < COPY_SHARE * total as f64 {
        return;
    }
    for l in copies {
        for id in &lines.nodes[lines.lines[l].clone()] {
            if let Some(k) = keep.get_mut(id.index()) {
                *k = false;
            }
        }
    }
}

/// The tab panel (`role="tabpanel"`) each element stands in, the innermost, as its id plus
/// one (0: none), found by walking up from it and remembered for every element walked: the
/// lines' blocks share their ancestors, so each is looked at once.
#[derive(Default)]
struct TabPanels(rustc_hash::FxHashMap<NodeId, u32>);

impl TabPanels {
    fn of(&mut self, doc: &Document, id: NodeId) -> u32 {
        let mut walked = Vec::new();
        let mut at = Some(id);
        let found = loop {
            let Some(node) = at else { break 0 };
            if let Some(&p) = self.0.get(&node) {
                break p;
            }
            let panel = doc
                .element(node)
                .and_then(|e| e.attr("role"))
                .is_some_and(|r| r.eq_ignore_ascii_case("tabpanel"));
            if panel {
                self.0.insert(node, node.0 + 1);
                break node.0 + 1;
            }
            walked.push(node);
            at = doc.parent(node);
        };
        for node in walked {
            self.0.insert(node, found);
        }
        found
    }
}

/// Folds the words of `text` ([`scan_words`]), lower-cased and each ended by a mark ("ab c"
/// is not "a bc"), into `hash`, and returns how many there are.
fn fold_words(text: &str, hash: &mut u64) -> u32 {
    let h = std::cell::Cell::new(*hash);
    let mix = |x: u64| h.set((h.get() ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut words = 0u32;
    scan_words(
        text,
        |c| {
            if c.is_ascii() {
                mix(u64::from(c.to_ascii_lowercase()));
            } else {
                c.to_lowercase().for_each(|l| mix(u64::from(l)));
            }
        },
        || {
            words += 1;
            mix(0x100);
        },
        || {},
    );
    *hash = h.get();
    words
}

/// A hash of each word (run of alphanumerics) of `text`, lower-cased.
fn word_hashes(text: &str) -> impl Iterator<Item = u64> + '_ {
    use std::hash::Hasher;
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut h = rustc_hash::FxHasher::default();
            for c in w.chars().flat_map(char::to_lowercase) {
                h.write_u32(c as u32);
            }
            h.finish()
        })
}
