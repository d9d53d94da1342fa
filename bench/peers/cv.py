#!/usr/bin/env python3
"""Score the content model's cross-validation output on WCXB dev with the benchmark's metric.

`content_model_cross_validation` (an ignored test of the library;
BENCHMARKS.md#held-out-figures-and-the-thresholds-chosen-by-cross-validation) writes one JSON
line per page, `{"id", "fold", "text"}`, each page's content found with the model trained
on the other folds; this prints the held-out F1 overall and per page type, as run.py does.

    TEMPLEX_CV_OUT=/tmp/cv cargo test --release -p templex --lib -- --ignored \\
        content_model_cross_validation
    python3 bench/peers/cv.py /tmp/cv/cv.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import run


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cv/cv.jsonl")
    texts: dict[str, str] = {}
    with path.open() as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                texts[o["id"]] = o.get("text", "")
    ds = run.load_wcxb(run.data_dir(), 0)
    missing = [p.id for p in ds.pages if p.id not in texts]
    _, scores = run.score_tool(ds, [texts.get(p.id, "") for p in ds.pages])
    types = " ".join(f"{k} {v['f1']:.3f}" for k, v in scores["types"].items())
    print(f"held out: P {scores['precision']:.3f} R {scores['recall']:.3f} F1 {scores['f1']:.4f}")
    print(f"per type: {types}")
    if missing:
        print(f"{len(missing)} pages without a line (scored empty)")


if __name__ == "__main__":
    main()
