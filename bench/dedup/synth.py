"""Synthetic content records for `templex dedup` scaling: N JSON lines `{"url", "text"}` of
150 words drawn from a Zipf-like vocabulary of 50,000 words; 10 % are near duplicates of an
earlier record (3 words changed), 5 % exact copies. Fixed seed: the same file every time.

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
    kept: list[list[str]] = []
    out = sys.stdout
    for i in range(n):
        r = rng.random()
        if kept and r < 0.05:
            words = list(rng.choice(kept))
        elif kept and r < 0.15:
            words = list(rng.choice(kept))
            for _ in range(3):
                words[rng.randrange(WORDS)] = rng.choice(vocab)
        else:
            words = rng.choices(vocab, cum_weights=cum, k=WORDS)
        if len(kept) < 10_000:
            kept.append(words)
        else:
            kept[rng.randrange(len(kept))] = words
        out.write(
            json.dumps({"url": f"https://example.com/{i}", "text": " ".join(words)})
        )
        out.write("\n")


if __name__ == "__main__":
    main()
