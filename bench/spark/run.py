#!/usr/bin/env python3
"""The Spark job (`python -m templex.spark`) in local mode against `templex batch`.

    python bench/spark/run.py [--copies 1,4] [--parts 8] [--master local[2]]

(run with a Python that has the templex package and pyspark, and Java 17+: e.g. the test
virtualenv that `bash crates/templex-py/scripts/test.sh` makes, `target/py-test-venv`, or
`pip install "./crates/templex-py[spark]"`.)

For each scale K: every site mirror of the dev data written K times under new host names
(`templex warc --data --copies K`), its records dealt round-robin over `--parts` WARC files
(each site's pages in every file, as in a crawl). Then, timed: `templex batch` over the one
WARC, and the Spark job over the parts, whose wall time includes starting Spark. Reported:
pages/s of both, rows written, rows with a template cluster in both, and how many pages get
the same text (the job learns each site from its records in (file, offset) order, the CLI in
file order: learning samples differ, so some texts do).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "crates" / "templex-py" / "tests"))

import templex  # noqa: E402
from warcs import spread  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--copies", default="1,4")
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--bin", type=Path, default=REPO / "target/release/templex")
    args = ap.parse_args()
    data = Path(os.environ.get("TEMPLEX_DATA", REPO.parent / "shared" / "data"))
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    print(f"| copies | pages | `templex batch` s | pages/s | Spark job s ({args.master}, "
          f"{args.parts} files) | pages/s | Spark / CLI | rows | templated CLI / job | "
          "same text |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for copies in [int(c) for c in args.copies.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            whole = t / "whole.warc.gz"
            subprocess.run(
                [args.bin, "warc", "--data", data, "--copies", str(copies), "--out", whole],
                check=True,
                capture_output=True,
            )
            records = [
                (u, b, h.get("Content-Type", "text/html")) for u, b, h in templex.read_warc(whole)
            ]
            (t / "parts").mkdir()
            parts = spread(records, args.parts, t / "parts")
            (t / "paths.txt").write_text("\n".join(map(str, parts)) + "\n")

            start = time.perf_counter()
            subprocess.run(
                [args.bin, "batch", whole, "--out", t / "cli.jsonl", "--store", t / "s.sqlite"],
                check=True,
                capture_output=True,
            )
            cli_s = time.perf_counter() - start
            cli = {}
            for line in (t / "cli.jsonl").read_text().splitlines():
                r = json.loads(line)
                cli[r.get("url")] = r

            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "templex.spark", t / "paths.txt", t / "out",
                 "--master", args.master],
                capture_output=True,
                text=True,
            )
            job_s = time.perf_counter() - start
            if proc.returncode != 0:
                sys.exit(proc.stderr[-3000:])

            spark = SparkSession.builder.master("local[1]").getOrCreate()
            spark.sparkContext.setLogLevel("ERROR")
            rows = [r.asDict() for r in spark.read.parquet(str(t / "out")).collect()]
            spark.stop()
            n = len(records)
            same = sum(1 for r in rows if r["text"] == cli.get(r["url"], {}).get("text"))
            cli_t = sum(1 for r in cli.values() if r.get("cluster"))
            job_t = sum(1 for r in rows if r["cluster"])
            print(f"| {copies} | {n:,} | {cli_s:.1f} | {n / cli_s:,.0f} | {job_s:.1f} | "
                  f"{n / job_s:,.0f} | {cli_s / job_s:.2f}× | {len(rows):,} | "
                  f"{cli_t:,} / {job_t:,} | {same / n:.1%} |", flush=True)


if __name__ == "__main__":
    main()
