#!/usr/bin/env python3
"""Snapshot of templex's outputs on the dev data, for checking that a refactor changes nothing.

    cargo build --release -p templex-cli
    python3 bench/identity/snapshot.py OUT_DIR [--bin target/release/templex] [--data ../shared/data]
    diff -r OUT_BEFORE OUT_AFTER

Writes, with every timing field removed (they vary run to run):
- content/<set>.jsonl: `templex content --format jsonl` over the page-level gold sets
  (scrapinghub-aeb, trafilatura-eval, wcxb-dev);
- template/<method>.jsonl: `templex template --format json` of every gold key page, per method;
- content-site/<method>.jsonl: `templex content --site` of every gold key page, per method;
- batch/<method>.jsonl: `templex batch` over a WARC of all site mirrors, per method.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent.parent
TEMPLATE_METHODS = ["hybex", "temex", "sitelevel", "pagelevel", "tablechunk"]
CONTENT_SITE_METHODS = ["hybex", "tablechunk"]


def strip_timings(value: Any) -> Any:
    """The value without its timing fields (keys named timings*, *_ms, *_time)."""
    if isinstance(value, dict):
        return {
            k: strip_timings(v)
            for k, v in value.items()
            if not (k.startswith("timings") or k.endswith("_ms") or k.endswith("_time"))
        }
    if isinstance(value, list):
        return [strip_timings(v) for v in value]
    return value


def run(cmd: list[Any]) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stderr}")
    return proc.stdout


def write_jsonl(path: Path, records: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for r in records:
            f.write(json.dumps(strip_timings(r), sort_keys=True, ensure_ascii=False) + "\n")


def key_pages(data: Path) -> list[tuple[Path, list[str], Path]]:
    """(site dir, URL prefixes, key page file) of every gold key page."""
    out = []
    for gold in sorted((data / "gold").glob("*.json")):
        g = json.loads(gold.read_text())
        site = data / g["dir"]
        for kp in g["key_pages"]:
            out.append((site, g["url_prefixes"], site / kp["page"]))
    return out


def site_args(site: Path, prefixes: list[str]) -> list[Any]:
    args: list[Any] = ["--site", site]
    for p in prefixes:
        args += ["--url-prefix", p]
    return args


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--bin", type=Path, default=REPO / "target/release/templex")
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared/data")
    ap.add_argument("--skip-batch", action="store_true")
    a = ap.parse_args()
    binary, data, out = a.bin.resolve(), a.data.resolve(), a.out

    pl = data / "pagelevel"
    sets = {
        "scrapinghub-aeb": [pl / "scrapinghub-aeb/html"],
        "trafilatura-eval": [pl / "trafilatura-eval/tests/eval", pl / "trafilatura-eval/tests/cache"],
        "wcxb-dev": [pl / "wcxb-dev/html"],
    }
    for name, dirs in sets.items():
        lines = run([binary, "content", "--format", "jsonl", *dirs]).splitlines()
        write_jsonl(out / "content" / f"{name}.jsonl", [json.loads(l) for l in lines])
        print(f"content {name}: {len(lines)} pages", file=sys.stderr)

    pages = key_pages(data)
    for method in TEMPLATE_METHODS:
        recs = []
        for site, prefixes, page in pages:
            o = run([binary, "template", page, *site_args(site, prefixes), "--format", "json", "--method", method])
            recs.append(json.loads(o) if o.strip() else {"error": page.name})
        write_jsonl(out / "template" / f"{method}.jsonl", recs)
        print(f"template {method}: {len(recs)} key pages", file=sys.stderr)
    for method in CONTENT_SITE_METHODS:
        recs = []
        for site, prefixes, page in pages:
            o = run([binary, "content", page, *site_args(site, prefixes), "--format", "jsonl", "--method", method])
            recs += [json.loads(l) for l in o.splitlines()]
        write_jsonl(out / "content-site" / f"{method}.jsonl", recs)
        print(f"content --site {method}: {len(recs)} key pages", file=sys.stderr)

    if a.skip_batch:
        return
    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "all.warc.gz"
        run([binary, "warc", "--data", data, "--out", warc])
        for method in ["tablechunk", "hybex", "sitelevel", "page-level"]:
            res = Path(tmp) / f"{method}.jsonl"
            run([binary, "batch", warc, "--out", res, "--store", Path(tmp) / f"{method}.sqlite", "--method", method])
            recs = [json.loads(l) for l in res.read_text().splitlines()]
            for r in recs:  # the temporary directory differs run to run
                r["input"] = r.get("input", "").replace(str(warc), "all.warc.gz")
            write_jsonl(out / "batch" / f"{method}.jsonl", recs)
            print(f"batch {method}: {len(recs)} records", file=sys.stderr)


if __name__ == "__main__":
    main()
