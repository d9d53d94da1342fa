#!/usr/bin/env python3
"""How far page-level extraction as the tools do it can go on WCXB dev: each tool's F1, and
the F1 of an oracle that takes, page by page, whichever tool's text scored best (of all the
tools dumped, and of every pair with templex). The oracle is a ceiling, not a method: it
reads the gold to choose.

    TEMPLEX_DATA=../shared/data bench/peers/.venv/bin/python bench/peers/run.py --datasets wcxb \\
        --tools templex,rs-trafilatura,trafilatura,resiliparse,readability --dump /tmp/dump
    TEMPLEX_DATA=../shared/data python3 bench/peers/oracle.py /tmp/dump
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import run

TYPES = ["article", "forum", "product", "listing", "collection", "service", "documentation"]


def load(path: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    with path.open() as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                texts[o["id"]] = o.get("text") or ""
    return texts


def row(name: str, kinds: list[str], f1: list[float]) -> str:
    by: dict[str, list[float]] = {t: [] for t in TYPES}
    for k, v in zip(kinds, f1):
        by.setdefault(k, []).append(v)
    cells = [f"{sum(by[t]) / len(by[t]):.3f}" if by[t] else "—" for t in TYPES]
    return f"| {name} | {sum(f1) / len(f1):.3f} | " + " | ".join(cells) + " |"


def main() -> None:
    dump = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/dump") / "wcxb"
    ds = run.load_wcxb(run.data_dir(), 0)
    kinds = ["collection" if p.kind == "category" else p.kind for p in ds.pages]
    per: dict[str, list[float]] = {}
    for f in sorted(dump.glob("*.jsonl")):
        texts = load(f)
        scored, _ = run.score_tool(ds, [texts.get(p.id, "") for p in ds.pages])
        per[f.stem] = [s[2] for s in scored]
    if not per:
        sys.exit(f"no <tool>.jsonl under {dump}")
    print("| F1 | overall | " + " | ".join(TYPES) + " |")
    print("|---|---:|" + "---:|" * len(TYPES))
    for name, f1 in per.items():
        print(row(name, kinds, f1))
    if "templex" in per:
        for other in (k for k in per if k != "templex"):
            best = [max(a, b) for a, b in zip(per["templex"], per[other])]
            print(row(f"best of templex and {other}", kinds, best))
    if len(per) > 1:
        print(row(f"best of all {len(per)}", kinds, [max(v) for v in zip(*per.values())]))


if __name__ == "__main__":
    main()
