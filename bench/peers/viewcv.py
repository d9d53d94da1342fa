#!/usr/bin/env python3
"""Choose page-level content's view shares by cross-validation by domain on WCXB dev and daniel-dev.

Page-level content is the main container or the spread view (docs/main-content.md, "Pages that
spread their content"; the values chosen and their held-out figures are in
BENCHMARKS.md#held-out-figures-and-the-thresholds-chosen-by-cross-validation). The spread
view wins when the container holds under ``spread`` of its words, or under ``sections`` of
them while what the view adds has at least ``headings`` headings and under ``links`` of its
words in links; never when the container holds ``nav_words`` words or more, under ``nav_own``
of them in links, and what the view adds is ``nav_links`` or more links, or what it would add
with nothing called chrome ``nav_most`` or more (navigation beside an article). This script
reads both views of every page (``templex content --spread 0`` and
``--spread 1``) and the figures the choice is made from (``-vv``'s "page-level views" line),
then, in 5 folds by registrable domain (daniel-dev's by host), picks the grid point whose mean
of the two sets' F1 is best on four folds and scores the fifth with it. It prints each fold's
choice, the held-out F1 of each set, and scrapinghub-aeb's and trafilatura-eval's scores at
the chosen point (the article sets the choice must not cost).

    cargo build --release -p templex-cli
    TEMPLEX_DATA=../shared/data bench/peers/.venv/bin/python bench/peers/viewcv.py
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import run

BINARY = Path(__file__).resolve().parents[2] / "target" / "release" / "templex"
VIEWS_LINE = re.compile(
    r"page-level views inside=(\S+) inside_words=(\d+) inside_link_words=(\d+) spread_words=(\S+) "
    r"page_words=\S+ rest_headings=(\d+) rest_words=(\d+) rest_link_words=(\d+) "
    r"most_rest_words=(\d+) most_rest_link_words=(\d+)"
)
# The point `page/mod.rs` ships: ContentConfig::spread, SECTIONS_SHARE, Rest::is_sections's
# headings and links, NAVIGATION_WORDS, NAVIGATION_LINKS, NAVIGATION_OWN_LINKS,
# NAVIGATION_MOST_LINKS.
SHIPPED = (0.4, 0.75, 3, 0.1, 100, 0.4, 0.2, 0.5)
GRID = {
    "spread": (0.3, 0.4),
    "sections": (0.5, 0.75),
    "headings": (2, 3, 6),
    "links": (0.1, 0.15, 0.2),
    "nav_words": (50, 100, 200, 10**9),
    "nav_links": (0.4, 0.5, 0.6),
    "nav_own": (0.2, 0.35, 0.5, 1.01),
    "nav_most": (0.4, 0.5, 0.6, 0.7, 1.01),
}


@dataclass
class Views:
    """Both views of a page scored, and the figures the choice between them reads."""

    container: object
    spread: object
    stats: tuple[float, float, int, int, int, int, int, int, int] | None


Point = tuple[float, float, int, float, int, float, float, float]


def texts(files: list[str], share: str) -> list[str]:
    """templex's text of each file with the container share at `share`."""
    cmd = [str(BINARY), "content", "--spread", share, "--format", "jsonl", "--", *files]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    by: dict[str, str] = {}
    for line in out.splitlines():
        if line.strip():
            o = json.loads(line)
            by[o.get("input", "")] = o.get("text", "")
    return [by.get(f, "") for f in files]


def stats(path: str) -> tuple[float, float, int, int, int, int, int, int, int] | None:
    """The container's words, the spread view's, its rest's headings, words and link words,
    the container's block words and link words, and the words and link words of the rest
    with nothing called chrome."""
    err = subprocess.run(
        [str(BINARY), "content", "--spread", "1", "-vv", path],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    ).stderr
    m = VIEWS_LINE.search(err)
    if not m:
        return None
    return (
        float(m[1]), float(m[4]), int(m[5]), int(m[6]), int(m[7]), int(m[2]), int(m[3]),
        int(m[8]), int(m[9]),
    )


def views(ds: run.Dataset) -> list[Views]:
    """Both views of every page of `ds`, scored by the set's metric."""
    files = [str(p.path) for p in ds.pages]
    per = {k: run.score_tool(ds, texts(files, s))[0] for k, s in (("c", "0"), ("s", "1"))}
    with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        st = list(ex.map(stats, files))
    return [Views(per["c"][i], per["s"][i], st[i]) for i in range(len(files))]


def chooser(point: Point) -> Callable[[Views], object]:
    """The choice between the views that a grid point makes."""
    spread, sections, headings, links, nav_words, nav_links, nav_own, nav_most = point

    def choose(v: Views) -> object:
        # No figures: the page declares an article, or its container is the whole page.
        if v.stats is None:
            return v.container
        (inside, words, rest_headings, rest_words, rest_links, own_words, own_links, most_words,
         most_links) = v.stats
        article = inside >= nav_words and own_links < nav_own * own_words
        if article and (rest_links >= nav_links * rest_words or most_links >= nav_most * most_words):
            return v.container
        sectioned = rest_headings >= headings and rest_links < links * rest_words
        if inside < spread * words or (inside < sections * words and sectioned):
            return v.spread
        return v.container

    return choose


def macro_f1(rows: list[Views], choose: Callable[[Views], object]) -> float:
    """Macro F1 over `rows` of the views `choose` picks."""
    return sum(choose(v)[2] for v in rows) / max(len(rows), 1)  # type: ignore[index]


def fold_of(page: run.Page) -> int:
    """The page's fold, by its host's last two labels (a registrable domain's stand-in)."""
    host = page.site or urlparse(page.url or "").hostname or page.id
    domain = ".".join(host.split(".")[-2:])
    return int(hashlib.md5(domain.encode()).hexdigest(), 16) % 5


Set = tuple[str, list[Views], list[int]]


def objective(sets: list[Set], point: Point, held_out: int | None) -> float:
    """The mean over `sets` of the macro F1 at `point` of the pages outside fold `held_out`."""
    choose = chooser(point)
    return sum(
        macro_f1([v for v, k in zip(rows, folds) if k != held_out], choose) for _, rows, folds in sets
    ) / len(sets)


def main() -> None:
    data = run.data_dir()
    sets: list[Set] = []
    for name, load in (("wcxb", run.load_wcxb), ("daniel", run.load_daniel)):
        ds = load(data, 0)
        sets.append((name, views(ds), [fold_of(p) for p in ds.pages]))
    points: list[Point] = list(itertools.product(*GRID.values()))  # type: ignore[arg-type]
    held = {name: 0.0 for name, _, _ in sets}
    for f in range(5):
        best = max(points, key=lambda p: objective(sets, p, f))
        for name, rows, folds in sets:
            held[name] += sum(chooser(best)(v)[2] for v, k in zip(rows, folds) if k == f)  # type: ignore[index]
        print(
            f"fold {f}: spread {best[0]} sections {best[1]} headings {best[2]} links {best[3]}"
            f" nav_words {best[4]} nav_links {best[5]} nav_own {best[6]} nav_most {best[7]}"
        )
    for name, rows, _ in sets:
        print(f"{name} held out: F1 {held[name] / len(rows):.4f}")
    for name, rows, _ in sets:
        print(f"shipped {SHIPPED}: {name} F1 {macro_f1(rows, chooser(SHIPPED)):.4f}")
    best = max(points, key=lambda p: objective(sets, p, None))
    for name, rows, _ in sets:
        print(f"all folds: {best}, {name} in-sample F1 {macro_f1(rows, chooser(best)):.4f}")
    guards = (
        ("aeb", run.load_aeb, run.aeb_scores),
        ("trafeval", run.load_trafeval, run.snippet_scores),
    )
    for name, load, metric in guards:
        ds = load(data, 0)
        choose = chooser(best)
        print(f"{name} at that point: F1 {metric([choose(v) for v in views(ds)])['f1']:.4f}")


if __name__ == "__main__":
    main()
