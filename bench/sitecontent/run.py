#!/usr/bin/env python3
"""Site-aware content against page-level content on multi-page news hosts.

daniel-dev's hosts with at least `--min-pages` pages (default 10: 18 hosts, 393 pages) are
laid out as site mirrors (one folder per host, each page `<id>.html`, URL prefix
`http://HOST/`). Then, on the same pages:

* `templex batch` over all the mirrors, once per method (`--methods`), field `text` (the
  page's main content) and, where the record has it, `rest` (the page minus its template);
* `templex content` page-level, one process over every page;
* the peers of `bench/peers` (in-process, on the same decoded strings) when their venv is
  there (`bash bench/peers/setup.sh`).

Each page is scored against the hand-cleaned gold with DAnIEL's metric (WCXB's word F1, one
token per Han, kana or hangul character); the table gives the macro average over pages, the
per-host figures and, per method, how many hosts are more than 0.01 below their page-level
score.

    cargo build --release -p templex-cli
    bench/peers/.venv/bin/python bench/sitecontent/run.py            # peers beside
    python3 bench/sitecontent/run.py --peers none                    # templex only
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "peers"))

from run import daniel_prf as prf  # noqa: E402
from run import data_dir, decode_html, make_peer, templex_bin  # noqa: E402

METHODS = ["tablechunk", "hybex", "sitelevel"]
PEERS = ["readability", "trafilatura", "boilerpy3", "rs-trafilatura", "resiliparse", "chromerag"]

def log(msg: str) -> None:
    print(f"[sitecontent] {msg}", file=sys.stderr, flush=True)


def load(ddir: Path, min_pages: int) -> list[dict]:
    base = ddir / "pagelevel" / "daniel-dev"
    pages = []
    for gf in sorted((base / "ground-truth").glob("*.json")):
        g = json.loads(gf.read_text(encoding="utf-8"))
        pages.append({
            "id": gf.stem,
            "site": g["site"],
            "lang": g["_internal"]["page_type"]["primary"],
            "gold": g["ground_truth"]["main_content"],
            "src": base / "html" / f"{gf.stem}.html.gz",
        })
    per_host = Counter(p["site"] for p in pages)
    return [p for p in pages if per_host[p["site"]] >= min_pages]


def lay_out(pages: list[dict], root: Path) -> list[str]:
    """One mirror folder per host; returns the batch inputs `DIR=PREFIX`."""
    inputs = {}
    for p in pages:
        d = root / p["site"]
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{p['id']}.html"
        path.write_bytes(gzip.decompress(p["src"].read_bytes()))
        p["path"] = path
        p["url"] = f"http://{p['site']}/{p['id']}.html"
        inputs[p["site"]] = f"{d}=http://{p['site']}/"
    return sorted(inputs.values())


def run_batch(binary: Path, inputs: list[str], method: str, out: Path, extra: list[str]) -> tuple[dict, float]:
    store = out.with_suffix(".sqlite")
    store.unlink(missing_ok=True)
    cmd = [str(binary), "batch", *inputs, "--out", str(out), "--store", str(store), "--method", method,
           "--overwrite", *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[:3])} … failed ({proc.returncode}): {proc.stderr[-2000:]}")
    recs = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        o = json.loads(line)
        recs[Path(o["input"]).stem] = o
    return recs, wall


def run_content(binary: Path, pages: list[dict]) -> tuple[dict, float]:
    cmd = [str(binary), "content", "--format", "jsonl", "--", *(str(p["path"]) for p in pages)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    recs = {}
    for line in proc.stdout.splitlines():
        o = json.loads(line)
        recs[Path(o["input"]).stem] = o
    return recs, wall


def summarize(pages: list[dict], texts: dict[str, str]) -> dict:
    per = {p["id"]: prf(p["gold"], texts.get(p["id"], "")) for p in pages}
    hosts = defaultdict(list)
    langs = defaultdict(list)
    for p in pages:
        hosts[p["site"]].append(per[p["id"]][2])
        langs[p["lang"]].append(per[p["id"]][2])
    return {
        "precision": statistics.fmean(v[0] for v in per.values()),
        "recall": statistics.fmean(v[1] for v in per.values()),
        "f1": statistics.fmean(v[2] for v in per.values()),
        "hosts": {h: statistics.fmean(v) for h, v in sorted(hosts.items())},
        "languages": {k: statistics.fmean(v) for k, v in sorted(langs.items())},
        "per_page": {k: round(v[2], 4) for k, v in per.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--min-pages", type=int, default=10, help="hosts with at least this many pages")
    ap.add_argument("--methods", default=",".join(METHODS), help=f"batch methods, comma list of {METHODS}")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma list of peers, or none")
    ap.add_argument("--batch-args", default="", help="more arguments for every `templex batch`")
    ap.add_argument("--out", type=Path, default=HERE / "results.json")
    ap.add_argument("--keep", type=Path, help="lay the mirrors out here and keep them (default: a temp dir)")
    args = ap.parse_args()
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))

    binary = templex_bin()
    if not binary.is_file():
        sys.exit(f"{binary} missing: cargo build --release -p templex-cli")
    pages = load(data_dir(), args.min_pages)
    hosts = sorted({p["site"] for p in pages})
    log(f"{len(pages)} pages on {len(hosts)} hosts with {args.min_pages}+ pages")
    tmp = None
    root = args.keep
    if root is None:
        tmp = tempfile.TemporaryDirectory(prefix="templex-sitecontent-")
        root = Path(tmp.name)
    root.mkdir(parents=True, exist_ok=True)
    inputs = lay_out(pages, root / "mirrors")

    rows: dict[str, dict] = {}
    recs, wall = run_content(binary, pages)
    rows["templex content (page-level)"] = {**summarize(pages, {k: r.get("text") or "" for k, r in recs.items()}),
                                            "ms_per_page": 1000 * wall / len(pages)}
    extra = args.batch_args.split()
    for m in [m for m in args.methods.split(",") if m]:
        recs, wall = run_batch(binary, inputs, m, root / f"batch-{m}.jsonl", extra)
        name = f"templex batch --method {m}"
        rows[name] = {**summarize(pages, {k: r.get("text") or "" for k, r in recs.items()}),
                      "ms_per_page": 1000 * wall / len(pages),
                      "methods": dict(Counter(str(r.get("method")) for r in recs.values()))}
        if any("rest" in r for r in recs.values()):
            rows[f"{name}: rest (page minus template)"] = summarize(
                pages, {k: r.get("rest") or "" for k, r in recs.items()})
        log(f"{name}: F1 {rows[name]['f1']:.3f}")

    decoded = {p["id"]: decode_html(gzip.decompress(p["src"].read_bytes()))[0]
               for p in pages}
    for peer in [p for p in args.peers.split(",") if p and p != "none"]:
        try:
            fn = make_peer(peer, argparse.Namespace(justext_stoplist="english"))
        except (ImportError, ValueError) as e:
            log(f"{peer}: unavailable ({e}), skipped")
            continue
        texts = {}
        t0 = time.perf_counter()
        for p in pages:
            try:
                texts[p["id"]] = fn(decoded[p["id"]], p["url"]) or ""
            except Exception:  # a crash is an empty extraction
                texts[p["id"]] = ""
        rows[peer] = {**summarize(pages, texts), "ms_per_page": 1000 * (time.perf_counter() - t0) / len(pages)}
        log(f"{peer}: F1 {rows[peer]['f1']:.3f}")

    base = rows["templex content (page-level)"]["hosts"]
    print(f"### daniel-dev, {len(hosts)} hosts with {args.min_pages}+ pages, {len(pages)} pages\n")
    print("| tool | P | R | F1 | hosts > 0.01 below page-level | ms/page |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        below = sum(1 for h, v in r["hosts"].items() if v < base[h] - 0.01)
        ms = f"{r['ms_per_page']:.1f}" if "ms_per_page" in r else ""
        print(f"| {name} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} | {below} | {ms} |")
    print("\n| host | pages | " + " | ".join(rows) + " |")
    print("|---|---:|" + "---:|" * len(rows))
    n = Counter(p["site"] for p in pages)
    for h in hosts:
        print(f"| {h} | {n[h]} | " + " | ".join(f"{r['hosts'][h]:.3f}" for r in rows.values()) + " |")
    args.out.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "pages": len(pages), "hosts": hosts,
                                    "rows": rows}, indent=1, ensure_ascii=False), encoding="utf-8")
    log(f"wrote {args.out}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
