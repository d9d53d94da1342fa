#!/usr/bin/env python3
"""Batch-mode benchmarks: accuracy on the dev gold key pages and crawl throughput.

    cargo build --release -p templex-cli
    bash bench/peers/setup.sh                      # throwaway venv with the peers
    bench/peers/.venv/bin/python bench/batch/run.py [--accuracy] [--throughput] [--scales 1,2,4]

--accuracy: `templex batch` over the dev sites' mirrors and `templex content --site` on their
gold key pages, both scored with the AEB shingle metric against the gold content text (the
same scorer as bench/peers/run.py's devgold set).

--throughput: a WARC of all site mirrors (`templex warc --data`), repeated under new host
names for 2x and 4x (with --same-sites: the same WARC 2 and 4 times over, the same sites
with more pages); for each scale, wall time and peak memory (max RSS of the process) of
`templex batch`, and trafilatura and resiliparse reading the same WARC (FastWARC) and
extracting every page, in as many worker processes as templex has threads; each `--repeat`
times, interleaved, median reported. Pages per second, same run.
"""

import argparse
import json
import multiprocessing as mp
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "peers"))
import run as peers  # noqa: E402  (the shared scorer and decoder)


def templex_bin():
    return Path(os.environ.get("TEMPLEX_BIN", REPO / "target/release/templex"))


def sh(cmd, **kw):
    peers.log("$ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


GNU_TIME = "/usr/bin/time"


def timed(cmd):
    """Run a command; return (wall seconds, peak RSS MiB of that process, its stderr).

    The peak RSS comes from GNU time when it is installed: the rusage of a child forked from
    this (big) Python process would count the fork's memory too."""
    peers.log("$ " + " ".join(str(c) for c in cmd))
    gnu = os.access(GNU_TIME, os.X_OK)
    full = [GNU_TIME, "-f", "MAXRSS_KB=%M", *cmd] if gnu else list(cmd)
    t = time.perf_counter()
    proc = subprocess.Popen([str(c) for c in full], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: some records failed, reported in the output
        raise subprocess.CalledProcessError(code, cmd, stderr=err)
    m = re.search(r"MAXRSS_KB=(\d+)", err) if gnu else None
    rss_kb = int(m.group(1)) if m else usage.ru_maxrss
    return wall, rss_kb / 1024.0, err


# ------------------------------------------------------------------------------------------
# Accuracy
# ------------------------------------------------------------------------------------------


def accuracy(ddir, work, extra=()):
    binary = templex_bin()
    gold_jsonl = work / "gold.jsonl"
    sh([binary, "eval", "--gold", ddir / "gold", "--data", ddir, "--export-content", gold_jsonl])
    gold = [json.loads(l) for l in gold_jsonl.read_text().splitlines() if l.strip()]
    golds = {json.loads(f.read_text())["site"]: json.loads(f.read_text()) for f in (ddir / "gold").glob("*.json")}

    # Batch over the dev mirrors, each with its gold URL prefix.
    out, store = work / "batch.jsonl", work / "batch.sqlite"
    store.unlink(missing_ok=True)  # learn afresh: a store of another setting would be reused
    inputs = [f"{(ddir / g['dir']).resolve()}={g['url_prefixes'][0]}" for g in golds.values()]
    t = time.perf_counter()
    sh([binary, "batch", *inputs, "--out", out, "--store", store, "--overwrite", "--rest", *extra],
       stderr=subprocess.PIPE)
    batch_s = time.perf_counter() - t
    by_path = {}
    for line in out.read_text().splitlines():
        r = json.loads(line)
        by_path[str(Path(r["input"]).resolve())] = r
    # templex content --site on the key pages (one process per site).
    site_text = {}
    for site, g in golds.items():
        pages = [r for r in gold if r["site"] == site]
        cmd = [binary, "content", "--site", (ddir / g["dir"]).resolve(), "--url-prefix", *g["url_prefixes"],
               "--format", "jsonl", "--", *[r["path"] for r in pages]]
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
        for r, line in zip(pages, proc.stdout.splitlines()):
            site_text[r["path"]] = json.loads(line).get("text") or ""
    # Page-level content of the same key pages, no site.
    cmd = [binary, "content", "--format", "jsonl", "--", *[r["path"] for r in gold]]
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    page_text = {r["path"]: json.loads(line).get("text") or "" for r, line in zip(gold, proc.stdout.splitlines())}
    columns = ["batch text", "batch rest", "content --site", "content (page-level)"]
    rows, per = [], {c: [] for c in columns}
    for r in gold:
        b = by_path.get(str(Path(r["path"]).resolve()), {})
        texts = [b.get("text") or "", b.get("rest") or b.get("text") or "", site_text.get(r["path"], ""),
                 page_text.get(r["path"], "")]
        scores = []
        for c, t in zip(columns, texts):
            m = peers.shingle_match(r["content_text"], t)
            per[c].append(m)
            scores.append(peers.aeb_scores([m])["f1"])
        rows.append((r["site"], r["page"], b.get("method"), scores))
    totals = {c: peers.aeb_scores(v) for c, v in per.items()}
    print("\n### Dev gold key pages: batch, `templex content --site` and page-level content "
          "(AEB metric on gold content text)\n")
    print("| site | page | batch method | " + " | ".join(f"{c} F1" for c in columns) + " |")
    print("|---|---|---|" + "---:|" * len(columns))
    for site, page, m, scores in rows:
        print(f"| {site} | {page[-40:]} | {m} | " + " | ".join(f"{f:.3f}" for f in scores) + " |")
    print(f"| **all {len(rows)}** | | | " + " | ".join(
        f"**P {t['precision']:.3f} R {t['recall']:.3f} F1 {t['f1']:.3f}**" for t in totals.values()) + " |")
    print(f"\nbatch over the {len(golds)} dev mirrors ({len(by_path)} pages): {batch_s:.1f} s wall")
    return {"batch": totals["batch text"], "batch_rest": totals["batch rest"],
            "content_site": totals["content --site"], "page_level": totals["content (page-level)"], "rows": rows}


# ------------------------------------------------------------------------------------------
# Throughput
# ------------------------------------------------------------------------------------------


def _peer_worker(args):
    name, warc_path, start, step = args
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    extract = peers.make_peer(name, argparse.Namespace(justext_stoplist="english", no_urls=False))
    n, chars = 0, 0
    with open(warc_path, "rb") as f:
        for i, rec in enumerate(ArchiveIterator(f, record_types=WarcRecordType.response, parse_http=True)):
            if i % step != start:
                continue
            html, _ = peers.decode_html(rec.reader.read())
            url = rec.headers.get("WARC-Target-URI")
            try:
                text = extract(html, url) or ""
            except Exception:  # noqa: BLE001 - a peer's failure is its own
                text = ""
            n += 1
            chars += len(text)
    return n, chars


def peer_throughput(name, warc_path, workers):
    t = time.perf_counter()
    with mp.Pool(workers) as pool:
        parts = pool.map(_peer_worker, [(name, str(warc_path), k, workers) for k in range(workers)])
    wall = time.perf_counter() - t
    return sum(p[0] for p in parts), wall


def _phases(stderr):
    """The learn and apply seconds of templex batch's closing summary line."""
    m = re.search(r"learn ([0-9.]+) s, apply ([0-9.]+) s", stderr)
    return (float(m.group(1)), float(m.group(2))) if m else (None, None)


def throughput(ddir, work, scales, workers, peer_names, repeat, batch_args, once=("trafilatura",),
               same_sites=False):
    """Each scale: templex and every peer `repeat` times, interleaved (the machine's load
    drifts; interleaving spreads it evenly); the median run of each is reported. Peers in
    `once` (tens of times slower) run once. A scale k is the corpus k times under new host
    names (new sites, all learned), or with `same_sites` the 1x WARC k times over (the same
    sites with k times the pages: what a crawl of bigger sites looks like)."""
    binary = templex_bin()
    results = []
    for k in scales:
        if same_sites:
            one = work / "sites-x1.warc.gz"
            if not one.exists():
                sh([binary, "warc", "--data", ddir, "--out", one], stderr=subprocess.DEVNULL)
            warc = work / f"same-x{k}.warc.gz"
            # gzip members concatenate: k copies of the file are one WARC.
            warc.write_bytes(one.read_bytes() * k)
        else:
            warc = work / f"sites-x{k}.warc.gz"
            sh([binary, "warc", "--data", ddir, "--copies", k, "--out", warc], stderr=subprocess.DEVNULL)
        size = warc.stat().st_size / 1e6
        out, store = work / f"x{k}.jsonl", work / f"x{k}.sqlite"
        runs = {"templex": []}
        runs.update({name: [] for name in peer_names})
        for i in range(repeat):
            for p in (out, store):
                p.unlink(missing_ok=True)
            wall, rss, err = timed([binary, "batch", warc, "--out", out, "--store", store, "--threads", workers,
                                    *batch_args])
            runs["templex"].append((wall, rss, _phases(err)))
            for name in peer_names:
                if i > 0 and name in once:
                    continue
                n, w = peer_throughput(name, warc, workers)
                runs[name].append((w, n))
        pages = sum(1 for _ in out.open())
        t_wall, t_rss, (learn, apply) = sorted(runs["templex"])[len(runs["templex"]) // 2]
        row = {"scale": k, "warc_mb": size, "pages": pages, "templex_s": t_wall, "templex_rss_mb": t_rss,
               "templex_learn_s": learn, "templex_apply_s": apply,
               "templex_runs": [r[0] for r in runs["templex"]],
               "templex_rss_runs": [r[1] for r in runs["templex"]]}
        for name in peer_names:
            w, n = sorted(runs[name])[len(runs[name]) // 2]
            row[f"{name}_s"] = w
            row[f"{name}_pages"] = n
            row[f"{name}_runs"] = [r[0] for r in runs[name]]
        results.append(row)
        peers.log(json.dumps(row))
    what = "the same sites k times over" if same_sites else "new sites in each copy"
    print(f"\n### Throughput: WARC of all site mirrors ({what}), {workers} worker(s) each, median of {repeat}\n")
    head = "| scale | pages | WARC MB | templex s (learn + apply) | templex pages/s | templex peak RSS MB |"
    sep = "|---:|---:|---:|---:|---:|---:|"
    for name in peer_names:
        head += f" {name} s | {name} pages/s | templex / {name} speed |"
        sep += "---:|---:|---:|"
    print(head)
    print(sep)
    for r in results:
        phases = f" ({r['templex_learn_s']:.1f} + {r['templex_apply_s']:.1f})" if r["templex_learn_s"] is not None else ""
        line = (f"| {r['scale']}x | {r['pages']} | {r['warc_mb']:.0f} | {r['templex_s']:.2f}{phases} | "
                f"{r['pages'] / r['templex_s']:.0f} | {r['templex_rss_mb']:.0f} |")
        for name in peer_names:
            pps = r[f"{name}_pages"] / r[f"{name}_s"]
            line += f" {r[name + '_s']:.2f} | {pps:.0f} | {(r['pages'] / r['templex_s']) / pps:.2f}x |"
        print(line)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--accuracy", action="store_true")
    ap.add_argument("--throughput", action="store_true")
    ap.add_argument("--scales", default="1,2,4")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--peers", default="resiliparse,trafilatura")
    ap.add_argument("--work", help="directory for WARCs and outputs (default: a temporary one)")
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("--batch-args", default="", help="extra arguments for templex batch (e.g. \"--method sitelevel\")")
    ap.add_argument("--repeat", type=int, default=3, help="throughput runs per tool and scale (median reported)")
    ap.add_argument("--same-sites", action="store_true",
                    help="scale k = the 1x WARC k times over (same sites, k times the pages) instead of new sites")
    args = ap.parse_args()
    if not (args.accuracy or args.throughput):
        args.accuracy = args.throughput = True
    ddir = peers.data_dir()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="templex-batch-"))
    work.mkdir(parents=True, exist_ok=True)
    res = {}
    try:
        if args.accuracy:
            res["accuracy"] = accuracy(ddir, work, args.batch_args.split())
        if args.throughput:
            scales = [int(s) for s in args.scales.split(",")]
            names = [n for n in args.peers.split(",") if n]
            res["throughput"] = throughput(ddir, work, scales, args.workers, names, args.repeat,
                                           args.batch_args.split(), same_sites=args.same_sites)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
