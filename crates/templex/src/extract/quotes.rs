//! Quotations that repeat what the content already holds (a reply quoting the post it
//! answers), counted once where they were first written.

use markup5ever::local_name;

use crate::dom::{Document, NodeId, deadline};

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
