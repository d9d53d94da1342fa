#!/usr/bin/env python3
"""Write a STAND-IN for `templex eval --gold GOLD --export-content FILE.jsonl`.

Only for testing run.py's dev-gold code path while templex cannot export the content text
itself. Same shape, one JSON object per line:
    {"site", "page", "path" (absolute path of the HTML file), "url", "content_text"}

content_text here = the text of the elements matched by the gold file's `content` selectors
(outermost matches only, in document order), read with lxml's libxml2 HTML parser — NOT the
WHATWG tree the gold standard is defined on, so a page whose markup the two parsers repair
differently can get a different text than templex's export. Never publish scores computed on
this file as dev-gold results.

    .venv/bin/python bench/peers/devgold_standin.py OUT.jsonl [--pages 2 | --all]
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import data_dir, decode_html, html_fragment_to_text, read_bytes  # noqa: E402


def page_url(prefixes, page):
    page = page.replace("\\", "/")
    m = re.match(r"^(.*?)(?:index\.html)?@(.*?)(?:\.html)?$", page)
    if m:  # wget's Windows-safe name for path?query
        return prefixes[0].rstrip("/") + "/" + m.group(1) + "?" + m.group(2)
    if page.endswith("index.html"):
        page = page[: -len("index.html")]
    return prefixes[0].rstrip("/") + "/" + page


def content_text(raw, selectors):
    import lxml.html
    from lxml.cssselect import CSSSelector

    html, _ = decode_html(raw)
    root = lxml.html.document_fromstring(html.encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8"))
    matched = set()
    for sel in selectors:
        for el in CSSSelector(sel)(root):
            matched.add(el)
    outer = []
    for el in root.iter():
        if el in matched and not any(a in matched for a in el.iterancestors()):
            outer.append(el)
    return "\n".join(html_fragment_to_text(el) for el in outer).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--pages", type=int, default=2, help="how many key pages (default 2)")
    ap.add_argument("--all", action="store_true", help="every key page of every gold file")
    args = ap.parse_args()
    ddir = data_dir()
    rows = []
    for gf in sorted((ddir / "gold").glob("*.json")):
        gold = json.loads(gf.read_text(encoding="utf-8"))
        site_dir = ddir / gold["dir"]
        for kp in gold["key_pages"]:
            path = (site_dir / kp["page"]).resolve()
            rows.append(
                {
                    "site": gold["site"],
                    "page": kp["page"],
                    "path": os.fspath(path),
                    "url": page_url(gold["url_prefixes"], kp["page"]),
                    "content_text": content_text(read_bytes(path), kp["content"]),
                    "standin": True,  # run.py labels results computed on this file
                }
            )
    if not args.all:
        rows = rows[: args.pages]
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} stand-in dev-gold pages to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
