#!/usr/bin/env python3
"""Choose between templex variants by cross-validation by domain, from their page dumps.

    for v in a b c; do
      bench/peers/.venv/bin/python bench/peers/run.py --datasets wcxb,daniel --tools templex \\
        --bootstrap 0 --dump /tmp/x-$v --out /tmp/x-$v.json --templex-args "..."   # one run per variant
    done
    python3 bench/peers/dumpcv.py a=/tmp/x-a b=/tmp/x-b c=/tmp/x-c

Each variant is a `--dump` directory of `bench/peers/run.py` over WCXB dev and daniel-dev (a
build with another constant, or other `--templex-args`). In 5 folds by registrable domain
(daniel-dev's by host, as `viewcv.py` folds them), the variant with the best mean of the two
sets' F1 on four folds scores the fifth. Prints each fold's choice, the held-out F1 of each
set, and every variant's in-sample F1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run
import viewcv

FOLDS = 5


def main(argv: list[str]) -> int:
    if not argv or any("=" not in a for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    variants = dict(a.split("=", 1) for a in argv)
    data = run.data_dir()
    sets = {
        "wcxb": (run.load_wcxb(data, 0), run.wcxb_prf),
        "daniel": (run.load_daniel(data, 0), run.daniel_prf),
    }
    # variant -> set -> [(fold, F1)] per page
    scores: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for name, folder in variants.items():
        for s, (ds, prf) in sets.items():
            with open(Path(folder) / s / "templex.jsonl", encoding="utf-8") as f:
                texts = {r["id"]: r["text"] for r in map(json.loads, f)}
            scores.setdefault(name, {})[s] = [
                (viewcv.fold_of(p), prf(p.gold, texts.get(p.id, ""))[2])
                for p in ds.pages
            ]

    def mean(name: str, s: str, fold: int | None, held: bool) -> float:
        v = [f1 for k, f1 in scores[name][s] if fold is None or (k == fold) == held]
        return sum(v) / len(v) if v else 0.0

    held_out: dict[str, list[float]] = {s: [] for s in sets}
    for fold in range(FOLDS):
        best = max(variants, key=lambda n: sum(mean(n, s, fold, False) for s in sets))
        print(f"fold {fold}: {best}")
        for s in sets:
            held_out[s] += [f1 for k, f1 in scores[best][s] if k == fold]
    for s, v in held_out.items():
        print(f"{s} held out: {sum(v) / len(v):.4f}")
    for name in variants:
        print(
            f"{name} in-sample: "
            + ", ".join(f"{s} {mean(name, s, None, True):.4f}" for s in sets)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
