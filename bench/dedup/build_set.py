"""Build the near-duplicate evaluation set from the dev site mirrors, reproducibly.

    python bench/dedup/build_set.py [--data ../shared/data] [--out /tmp/templex-dedup-set]

Nothing here is stored in the repository: the set is made from the mirrors each time
(fixed seed, sorted file lists), into OUT/docs/<id>.html, with OUT/pairs.jsonl
(`{"a", "b", "label": 1|0, "kind"}`) and OUT/docs.jsonl (`{"id", "site", "source", "how"}`).

The content of a page is its content region: the largest element matched by the site's gold
content selectors (`gold/<site>.json`, so the 8 sites with gold) holding at least 80 words
and at least 90 % of the words that all the selectors match (else the page is not used).

Positives (the same content, templates differ):
- `transplant`: an article's content region placed into the content region of a page of
  another site (that site's template around it), for two other sites; pairs original/copy
  and copy/copy;
- `url-variant`: mirror pages reachable under more than one URL: different files (not byte
  identical) with the same `<link rel=canonical>` (not the site's root) and the same title;
- `template-changed`: an article's content placed into another page of its own site (that
  page's sidebars, dates, related lists), with dates changed, a menu item removed, a menu
  reordered and a sidebar block added.
Negatives (the same template, different content):
- `same-site`: two articles of one site whose content regions share under half their words;
- `same-host`: a transplanted copy and the page whose template it was put into.

Needs lxml and cssselect (a throwaway virtualenv; never project dependencies).
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import random
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from lxml.cssselect import CSSSelector
from lxml.etree import ParserError

SEED = 20261125
MIN_WORDS = 80
ARTICLES_PER_SITE = 14
URL_GROUPS_PER_SITE = 40
WORD = re.compile(r"\w+", re.UNICODE)
YEAR = re.compile(r"\b(19|20)\d\d\b")
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\b")


def read(path: Path) -> bytes:
    b = path.read_bytes()
    return gzip.decompress(b) if b[:2] == b"\x1f\x8b" else b


def parse(b: bytes) -> Any:
    try:
        return lxml.html.document_fromstring(b)
    except (ParserError, ValueError):
        return None


def words(el: Any) -> list[str]:
    return WORD.findall(" ".join(el.itertext()).lower())


def content_region(root: Any, selectors: list[CSSSelector]) -> Any:
    """The largest element the selectors match, if it holds enough words and nearly all of
    the content: a page whose content is spread over several regions (dostips.com's heading,
    summary and tables) cannot have it moved by moving one, and would be mislabelled."""
    matched = {
        el for sel in selectors for el in sel(root) if el.tag not in ("html", "body")
    }
    # Outermost matches only: nested ones are counted with their ancestor.
    outer = [el for el in matched if not any(a in matched for a in el.iterancestors())]
    sizes = {el: len(words(el)) for el in outer}
    if not sizes:
        return None
    best = max(sizes, key=lambda el: sizes[el])
    total = sum(sizes.values())
    return best if sizes[best] >= MIN_WORDS and sizes[best] >= 0.9 * total else None


def jaccard(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    return len(sa & sb) / max(1, len(sa | sb))


def serialize(root: Any) -> bytes:
    """UTF-8 HTML with one `<meta charset=utf-8>` (the originals declare other charsets)."""
    for m in root.xpath("//meta[@charset] | //meta[@http-equiv]"):
        if m.get("charset") or (m.get("http-equiv") or "").lower() == "content-type":
            m.getparent().remove(m)
    head = root.find("head")
    if head is None:
        head = lxml.html.Element("head")
        root.insert(0, head)
    meta = lxml.html.Element("meta")
    meta.set("charset", "utf-8")
    head.insert(0, meta)
    return b"<!DOCTYPE html>\n" + lxml.html.tostring(root, encoding="utf-8")


def region_path(root: Any, el: Any) -> str:
    return root.getroottree().getpath(el)


def put_content(host_root: Any, host_region: Any, article_region: Any) -> None:
    """Replace the host region's children with copies of the article region's."""
    for child in list(host_region):
        host_region.remove(child)
    host_region.text = article_region.text
    for child in article_region:
        host_region.append(copy.deepcopy(child))


def change_template(
    root: Any, region: Any, rng: random.Random, filler: list[str]
) -> None:
    """Dates changed, a menu item removed, a menu reordered, a sidebar block added; all
    outside the content region."""
    inside = set(region.iter())
    for el in root.iter():
        if el in inside or not isinstance(el.tag, str) or el.tag in ("script", "style"):
            continue
        for attr in ("text", "tail"):
            t = getattr(el, attr)
            if t and (YEAR.search(t) or MONTH.search(t)):
                t = YEAR.sub(lambda _m: str(rng.randint(2001, 2025)), t)
                t = MONTH.sub(lambda _m: rng.choice(MONTHS), t)
                setattr(el, attr, t)
    lists = [
        ul
        for ul in root.iter("ul", "ol")
        if ul not in inside and len(ul.findall("li")) >= 3
    ]
    if lists:
        ul = rng.choice(lists)
        items = ul.findall("li")
        ul.remove(rng.choice(items))
    if len(lists) > 1:
        ul = rng.choice(lists)
        items = ul.findall("li")
        for li in items:
            ul.remove(li)
        for li in reversed(items):
            ul.append(li)
    body = root.find("body")
    if body is not None:
        aside = lxml.html.Element("aside")
        aside.set("class", "widget sidebar-latest")
        h = lxml.html.Element("h3")
        h.text = "Latest posts"
        aside.append(h)
        for k in range(3):
            p = lxml.html.Element("p")
            a = lxml.html.Element("a")
            a.set("href", f"/latest/{k}")
            a.text = " ".join(filler[k * 12 : k * 12 + 12])
            p.append(a)
            aside.append(p)
        body.insert(rng.randint(0, len(body)), aside)


def load_gold_sites(data: Path) -> list[dict[str, Any]]:
    sites = []
    for g in sorted((data / "gold").glob("*.json")):
        gold = json.loads(g.read_text())
        sels = sorted({s for kp in gold["key_pages"] for s in kp["content"]})
        sites.append(
            {"site": gold["site"], "dir": data / gold["dir"], "selectors": sels}
        )
    return sites


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("TEMPLEX_DATA", "../shared/data")),
    )
    ap.add_argument("--out", type=Path, default=Path("/tmp/templex-dedup-set"))
    args = ap.parse_args()
    rng = random.Random(SEED)
    out_docs = args.out / "docs"
    out_docs.mkdir(parents=True, exist_ok=True)
    for old in out_docs.glob("*.html"):
        old.unlink()
    docs: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []

    def add_doc(site: str, source: str, how: str, body: bytes) -> str:
        doc_id = f"d{len(docs):05d}"
        (out_docs / f"{doc_id}.html").write_bytes(body)
        docs.append({"id": doc_id, "site": site, "source": source, "how": how})
        return doc_id

    # Each site's articles: (path, bytes, content words).
    pools: dict[str, list[tuple[Path, bytes, list[str]]]] = {}
    sites = load_gold_sites(args.data)
    for s in sites:
        sels = []
        for css in s["selectors"]:
            try:
                sels.append(CSSSelector(css))
            except Exception as e:  # noqa: BLE001 - a selector lxml cannot compile is skipped
                print(f"{s['site']}: selector {css!r} skipped: {e}")
        s["compiled"] = sels
        files = sorted(
            p for p in s["dir"].rglob("*") if p.is_file() and ".htm" in p.name.lower()
        )
        pool = []
        seen_text: set[str] = set()
        for p in files:
            b = read(p)
            root = parse(b)
            if root is None:
                continue
            region = content_region(root, sels)
            if region is None:
                continue
            w = words(region)
            key = " ".join(w)
            if key in seen_text:  # the same article under two URLs: not a negative
                continue
            seen_text.add(key)
            pool.append((p, b, w))
        rng.shuffle(pool)
        pools[s["site"]] = pool[:ARTICLES_PER_SITE]
        print(
            f"{s['site']}: {len(pool)} pages with a content region, {len(pools[s['site']])} used"
        )

    by_site = {s["site"]: s for s in sites}
    names = sorted(pools)
    original: dict[tuple[str, Path], str] = {}
    for site in names:
        for p, b, _w in pools[site]:
            original[(site, p)] = add_doc(
                site, str(p.relative_to(args.data)), "original", b
            )

    for site in names:
        pool = pools[site]
        others = [n for n in names if n != site and pools[n]]
        for i, (p, b, w) in enumerate(pool):
            a_id = original[(site, p)]
            a_root = parse(b)
            a_region = content_region(a_root, by_site[site]["compiled"])
            # Transplants into two other sites' templates.
            copies = []
            for target in rng.sample(others, min(2, len(others))):
                hp, hb, hw = rng.choice(pools[target])
                h_root = parse(hb)
                h_region = content_region(h_root, by_site[target]["compiled"])
                put_content(h_root, h_region, a_region)
                c_id = add_doc(
                    target,
                    str(p.relative_to(args.data)),
                    f"transplant into {hp.relative_to(args.data)}",
                    serialize(h_root),
                )
                copies.append(c_id)
                pairs.append({"a": a_id, "b": c_id, "label": 1, "kind": "transplant"})
                if jaccard(w, hw) < 0.5:
                    pairs.append(
                        {
                            "a": c_id,
                            "b": original[(target, hp)],
                            "label": 0,
                            "kind": "same-host",
                        }
                    )
            if len(copies) == 2:
                pairs.append(
                    {"a": copies[0], "b": copies[1], "label": 1, "kind": "transplant"}
                )
            # The same content in another page of its own site, template parts changed.
            hosts = [x for x in pool if x[0] != p]
            if hosts:
                hp, hb, hw = rng.choice(hosts)
                h_root = parse(hb)
                h_region = content_region(h_root, by_site[site]["compiled"])
                put_content(h_root, h_region, a_region)
                filler = rng.choice(hosts)[2][:36]
                change_template(h_root, h_region, rng, filler)
                t_id = add_doc(
                    site,
                    str(p.relative_to(args.data)),
                    f"template changed, from {hp.relative_to(args.data)}",
                    serialize(h_root),
                )
                pairs.append(
                    {"a": a_id, "b": t_id, "label": 1, "kind": "template-changed"}
                )
            # Negatives: other articles of the site.
            for q, _qb, qw in rng.sample(pool[i + 1 :], min(3, len(pool) - i - 1)):
                if jaccard(w, qw) < 0.5:
                    pairs.append(
                        {
                            "a": a_id,
                            "b": original[(site, q)],
                            "label": 0,
                            "kind": "same-site",
                        }
                    )

    # Pages of the mirrors under more than one URL (every mirror, gold or not).
    canon = re.compile(rb"<link[^>]+rel=[\"']canonical[\"'][^>]*>", re.IGNORECASE)
    href = re.compile(rb"href=[\"']([^\"']+)[\"']", re.IGNORECASE)
    title = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
    for site_dir in sorted((args.data / "sites").iterdir()):
        groups: dict[tuple[bytes, bytes], list[tuple[Path, bytes]]] = {}
        for p in sorted(
            x for x in site_dir.rglob("*") if x.is_file() and ".htm" in x.name.lower()
        ):
            b = read(p)
            m = canon.search(b)
            h = href.search(m.group(0)) if m else None
            t = title.search(b)
            if not h or not t:
                continue
            target = h.group(1)
            path = urlsplit(target.decode("utf-8", "replace")).path.strip("/")
            if path in ("", "index.html", "index.php"):  # the site's root names no page
                continue
            groups.setdefault((target, t.group(1).strip()), []).append((p, b))
        variants = 0
        multi = [g for g in groups.values() if len({b for _p, b in g}) >= 2]
        for group in rng.sample(multi, min(URL_GROUPS_PER_SITE, len(multi))):
            distinct = {b: p for p, b in group}
            ids = [
                add_doc(site_dir.name, str(p.relative_to(args.data)), "url variant", b)
                for b, p in list(distinct.items())[:3]
            ]
            for x in range(len(ids)):
                for y in range(x + 1, len(ids)):
                    pairs.append(
                        {"a": ids[x], "b": ids[y], "label": 1, "kind": "url-variant"}
                    )
                    variants += 1
        if variants:
            print(f"{site_dir.name}: {variants} url-variant pairs")

    with open(args.out / "docs.jsonl", "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    with open(args.out / "pairs.jsonl", "w") as f:
        f.writelines(json.dumps(pr) + "\n" for pr in pairs)
    kinds: dict[str, int] = {}
    for pr in pairs:
        kinds[pr["kind"]] = kinds.get(pr["kind"], 0) + 1
    print(
        f"{len(docs)} documents, {len(pairs)} pairs: {json.dumps(kinds)} -> {args.out}"
    )


if __name__ == "__main__":
    main()
