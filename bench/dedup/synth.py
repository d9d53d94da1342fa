"""Synthetic content records for `templex dedup` scaling: N JSON lines `{"url", "text",
"copy_of"}` (`copy_of`: the record it copies, else its own number; dedup ignores it) of
150 words drawn from a Zipf-like vocabulary of 50,000 words; 10 % are near duplicates of an
earlier record (one word changed: Jaccard ~0.93), 5 % exact copies; the number of
copies planted goes to stderr (what `templex dedup` should find to drop). Fixed seed: the same file every time.

    python bench/dedup/synth.py N > records.jsonl
"""

from __future__ import annotations

import itertools
import json
import random
import sys

WORDS = 150


def main() -> None:
    n = int(sys.argv[1])
    rng = random.Random(7)
    vocab = [f"w{i:x}" for i in range(50_000)]
    cum = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(vocab))))
    # (the original record's number, words) of records copies may be made of.
    kept: list[tuple[int, list[str]]] = []
    out = sys.stdout
    copies = 0
    for i in range(n):
        r = rng.random()
        root = i
        if kept and r < 0.15:
            copies += 1
            root, words = rng.choice(kept)
            words = list(words)
            if r >= 0.05:
                words[rng.randrange(WORDS)] = rng.choice(vocab)
        else:
            words = rng.choices(vocab, cum_weights=cum, k=WORDS)
        if len(kept) < 10_000:
            kept.append((root, words))
        else:
            kept[rng.randrange(len(kept))] = (root, words)
        rec = {
            "url": f"https://example.com/{i}",
            "text": " ".join(words),
            "copy_of": root,
        }
        out.write(json.dumps(rec))
        out.write("\n")
    print(f"{n} records, {copies} copies of earlier records planted", file=sys.stderr)


if __name__ == "__main__":
    main()
