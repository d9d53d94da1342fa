#!/usr/bin/env python3
"""Metadata on WCXB dev: templex's title, author and date beside trafilatura's, same pages.

    cargo build --release -p templex-cli && bash bench/peers/setup.sh
    bench/peers/.venv/bin/python bench/peers/metadata.py [--data DIR] [--json OUT]

templex runs once over all pages (`templex content --format jsonl`, no URLs given: a page's
URL is the canonical one it states); trafilatura's `extract_metadata` runs on each page in
this process. A field matches when the normalised prediction equals the normalised gold:
titles and authors as lower-case words (a leading "by" dropped), dates as `YYYY-MM-DD`. The
rate is over the pages whose gold has the field; "stated where gold is empty" counts
predictions on the other pages.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIELDS: list[tuple[str, str]] = [("title", "title"), ("author", "author"), ("date", "publish_date")]


def norm_text(s: str | None) -> str:
    words = re.sub(r"[\W_]+", " ", (s or "").lower()).split()
    if words[:1] == ["by"]:
        words = words[1:]
    return " ".join(words)


def norm_date(s: str | None) -> str:
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", s or "")
    return "-".join(m.groups()) if m else ""


NORM: dict[str, Callable[[str | None], str]] = {
    "title": norm_text,
    "author": norm_text,
    "date": norm_date,
}


def data_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("TEMPLEX_DATA")
    return Path(env) if env else ROOT.parent / "shared" / "data"


def run_templex(binary: Path, files: list[Path]) -> tuple[dict[str, dict[str, str | None]], float]:
    t0 = time.perf_counter()
    out = subprocess.run(
        [str(binary), "content", "--format", "jsonl", "--", *map(str, files)],
        capture_output=True,
        check=True,
    ).stdout
    wall = time.perf_counter() - t0
    pred: dict[str, dict[str, str | None]] = {}
    for line in out.decode().splitlines():
        rec = json.loads(line)
        pred[Path(rec["input"]).name.split(".")[0]] = {k: rec.get(k) for k, _ in FIELDS}
    return pred, wall


def run_trafilatura(
    files: list[Path], urls: dict[str, str]
) -> tuple[dict[str, dict[str, str | None]], float]:
    from trafilatura import extract_metadata

    pred: dict[str, dict[str, str | None]] = {}
    t0 = time.perf_counter()
    for f in files:
        fid = f.name.split(".")[0]
        try:
            m = extract_metadata(gzip.decompress(f.read_bytes()), default_url=urls[fid], extensive=True)
            pred[fid] = {"title": m.title, "author": m.author, "date": m.date}
        except Exception:  # noqa: BLE001 - a peer's failure on one page is a miss, not a stop
            pred[fid] = {}
    return pred, time.perf_counter() - t0


def score(
    pred: dict[str, dict[str, str | None]], gold: dict[str, dict[str, str]]
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for key, gkey in FIELDS:
        norm = NORM[key]
        hits = total = extra = empty = 0
        for fid, g in gold.items():
            want, got = norm(g.get(gkey)), norm((pred.get(fid) or {}).get(key))
            if want:
                total += 1
                hits += want == got
            else:
                empty += 1
                extra += bool(got)
        out[key] = {"rate": hits / max(total, 1), "pages": total, "stated_where_empty": extra, "empty": empty}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help="the shared data directory (default: TEMPLEX_DATA or ../shared/data)")
    ap.add_argument(
        "--binary", default=os.environ.get("TEMPLEX_BIN", str(ROOT / "target" / "release" / "templex"))
    )
    ap.add_argument("--json", help="write the scores here")
    args = ap.parse_args()
    wcxb = data_dir(args.data) / "pagelevel" / "wcxb-dev"
    if not wcxb.is_dir():
        print(f"NOTICE: {wcxb} not found", file=sys.stderr)
        return 1
    gold: dict[str, dict[str, str]] = {}
    urls: dict[str, str] = {}
    for gf in sorted((wcxb / "ground-truth").glob("*.json")):
        g = json.loads(gf.read_text())
        gold[gf.stem] = g["ground_truth"]
        urls[gf.stem] = g.get("url") or ""
    files = [wcxb / "html" / f"{fid}.html.gz" for fid in gold]
    results = {}
    for name, (pred, wall) in (
        ("templex", run_templex(Path(args.binary), files)),
        ("trafilatura", run_trafilatura(files, urls)),
    ):
        s = score(pred, gold)
        results[name] = {"scores": s, "seconds": wall}
        cells = "  ".join(
            f"{k} {v['rate']:.3f} (of {v['pages']}; stated where gold is empty {v['stated_where_empty']}/{v['empty']})"
            for k, v in s.items()
        )
        print(f"{name:12} {cells}  {wall:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
