"""Score near-duplicate detection on the set that build_set.py makes: fingerprints of the raw
HTML, of the whole page's text, of trafilatura's text and of templex's content, all clustered
by the same `templex dedup` (MinHash over word shingles, LSH, the Jaccard threshold), so that
only the text differs.

    python bench/dedup/run.py [--set /tmp/templex-dedup-set] [--templex target/release/templex]
                              [--threshold 0.8] [--json OUT.json]

A pair is predicted a duplicate when both documents land in one cluster; precision, recall
and F1 are over the labelled pairs. Needs trafilatura (a throwaway virtualenv).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trafilatura


def raw_html(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def whole_page(b: bytes) -> str:
    return trafilatura.html2txt(b.decode("utf-8", "replace")) or ""


def trafilatura_text(b: bytes) -> str:
    return trafilatura.extract(b.decode("utf-8", "replace")) or ""


def dedup(templex: str, records: Path, threshold: float) -> dict[str, int]:
    """Document id → cluster, from `templex dedup`."""
    out = subprocess.run(
        [templex, "dedup", str(records), "--threshold", str(threshold)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    clusters = {}
    for line in out.splitlines():
        r = json.loads(line)
        key = r.get("url") or Path(r["input"]).name.removesuffix(".html")
        # A record without content is a cluster of its own.
        clusters[key] = r.get("cluster", -1 - r["id"])
    return clusters


def score(pairs: list[dict[str, Any]], clusters: dict[str, int]) -> dict[str, Any]:
    tp = fp = fn = 0
    kinds: dict[str, list[int]] = {}
    for p in pairs:
        same = clusters[p["a"]] == clusters[p["b"]]
        k = kinds.setdefault(p["kind"], [0, 0])
        k[0] += int(same)
        k[1] += 1
        if p["label"] and same:
            tp += 1
        elif p["label"]:
            fn += 1
        elif same:
            fp += 1
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {
        "precision": prec,
        "recall": rec,
        "f1": f1,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        # Share of each kind's pairs put in one cluster (recall for positive kinds, the
        # false-positive rate for negative ones).
        "together": {k: v[0] / v[1] for k, v in sorted(kinds.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", type=Path, default=Path("/tmp/templex-dedup-set"))
    ap.add_argument("--templex", default="target/release/templex")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    docs = [
        json.loads(line) for line in (args.set / "docs.jsonl").read_text().splitlines()
    ]
    pairs = [
        json.loads(line) for line in (args.set / "pairs.jsonl").read_text().splitlines()
    ]
    work = args.set / "runs"
    work.mkdir(exist_ok=True)
    results: dict[str, Any] = {}
    texts: dict[str, Callable[[bytes], str]] = {
        "raw HTML": raw_html,
        "whole-page text": whole_page,
        "trafilatura": trafilatura_text,
    }
    for name, fn in texts.items():
        path = work / (name.replace(" ", "-") + ".jsonl")
        t0 = time.perf_counter()
        with open(path, "w") as f:
            for d in docs:
                body = (args.set / "docs" / f"{d['id']}.html").read_bytes()
                f.write(json.dumps({"url": d["id"], "text": fn(body)}) + "\n")
        secs = time.perf_counter() - t0
        results[name] = score(pairs, dedup(args.templex, path, args.threshold))
        results[name]["text_s"] = secs
    # templex: content records with their fingerprints, straight from `templex content`.
    path = work / "templex.jsonl"
    t0 = time.perf_counter()
    with open(path, "w") as f:
        subprocess.run(
            [args.templex, "content", str(args.set / "docs"), "--format", "jsonl", "--fingerprint"],
            check=True,
            stdout=f,
        )
    secs = time.perf_counter() - t0
    results["templex content"] = score(pairs, dedup(args.templex, path, args.threshold))
    results["templex content"]["text_s"] = secs

    n_pos = sum(p["label"] for p in pairs)
    print(
        f"{len(docs)} documents, {len(pairs)} pairs ({n_pos} positive), threshold {args.threshold}"
    )
    print(
        "| fingerprints of | precision | recall | F1 | "
        + " | ".join(sorted(results["raw HTML"]["together"]))
        + " |"
    )
    print("|---|---:|---:|---:|" + "---:|" * len(results["raw HTML"]["together"]))
    for name, r in results.items():
        cells = " | ".join(f"{v:.3f}" for v in r["together"].values())
        print(
            f"| {name} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} | {cells} |"
        )
    base = results["whole-page text"]["f1"]
    print(
        f"gain of templex content over whole-page text: {results['templex content']['f1'] - base:+.3f} F1"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
