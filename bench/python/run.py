#!/usr/bin/env python3
"""The Python package against its peers, in-process, and against the CLI.

    cargo build --release -p templex-cli
    bash bench/peers/setup.sh                                   # the peers' throwaway venv
    bench/peers/.venv/bin/pip install ./crates/templex-py       # the release wheel, same venv
    bench/peers/.venv/bin/python bench/python/run.py [--repeat 3] [--datasets aeb,wcxb,daniel] [--tools templex,resiliparse] [--batch]

For each data set (scrapinghub-aeb, WCXB dev, daniel-dev), every page is decoded once to a str (the peer
benchmark's decoder) and each tool is called the same way on the same strings, in the same
process, one after the other, `--repeat` times (the median pass is reported):
templex.extract, trafilatura.extract, rs_trafilatura.extract and resiliparse's
extract_plain_text(main_content=True). Then `templex.extract(bytes)` is compared with
`templex content --format jsonl` (the release CLI) on every page: text, title and method.

--batch: `templex batch` (the CLI) and `templex.Batch().process_files` over the same WARC of
all site mirrors, wall time median of `--repeat`, pages per second, and the outputs compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "peers"))
import run as peers  # noqa: E402  (the shared decoder and data location)

import templex  # noqa: E402


def pages(ds: str, ddir: Path) -> list[Path]:
    if ds == "aeb":
        return sorted((ddir / "pagelevel/scrapinghub-aeb/html").glob("*.html.gz"))
    if ds == "wcxb":
        return sorted((ddir / "pagelevel/wcxb-dev/html").glob("*.html.gz"))
    if ds == "daniel":
        return sorted((ddir / "pagelevel/daniel-dev/html").glob("*.html.gz"))
    raise SystemExit(f"unknown data set {ds}")


def tools() -> dict[str, Callable[[str], str]]:
    out: dict[str, Callable[[str], str]] = {"templex": lambda h: templex.extract(h)}
    from trafilatura import extract as traf

    out["trafilatura"] = lambda h: traf(
        h, include_comments=False, include_tables=True, include_formatting=False
    ) or ""
    try:
        import rs_trafilatura

        out["rs-trafilatura"] = lambda h: rs_trafilatura.extract(h).main_content or ""
    except ImportError:
        peers.log("rs-trafilatura not installed: skipped")
    from resiliparse.extract.html2text import extract_plain_text

    out["resiliparse"] = lambda h: extract_plain_text(h, main_content=True)
    return out


def speed(ds: str, files: list[Path], repeat: int, only: set[str]) -> dict[str, float]:
    docs = [peers.decode_html(peers.read_bytes(f))[0] for f in files]
    ms: dict[str, list[float]] = {}
    fns = [(k, f) for k, f in tools().items() if not only or k in only]
    for r in range(repeat):
        # Interleaved rounds, each tool leading in turn: drift of the machine (heat, other
        # load) falls on every tool alike.
        for name, fn in fns[r % len(fns):] + fns[: r % len(fns)]:
            t = time.perf_counter()
            for d in docs:
                try:
                    fn(d)
                except Exception:  # a peer's failure on a page is its own business
                    pass
            ms.setdefault(name, []).append((time.perf_counter() - t) * 1e3 / len(docs))
    med = {k: statistics.median(v) for k, v in ms.items()}
    print(f"\n### {ds}: {len(docs)} pages, in-process ms/page (median of {repeat} passes)\n")
    print("| tool | ms/page | templex / tool |")
    print("|---|---|---|")
    for k, v in sorted(med.items(), key=lambda kv: kv[1]):
        print(f"| {k} | {v:.2f} | {med['templex'] / v:.2f}× |")
    return med


def same_as_cli(ds: str, files: list[Path], binary: Path) -> None:
    proc = subprocess.run(
        [binary, "content", "--format", "jsonl", *files], capture_output=True, check=False
    )
    recs = {json.loads(l)["input"]: json.loads(l) for l in proc.stdout.splitlines()}
    diff = 0
    for f in files:
        want = recs[str(f)]
        got = templex.extract(peers.read_bytes(f), format="json")
        if (got["text"], got["title"], got["method"]) != (
            want.get("text"),
            want.get("title"),
            want["method"],
        ):
            diff += 1
            peers.log(f"differs: {f}")
    print(f"\n{ds}: templex.extract(bytes) equals `templex content` on "
          f"{len(files) - diff} of {len(files)} pages")


def batch(ddir: Path, binary: Path, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "all.warc.gz"
        subprocess.run([binary, "warc", "--data", ddir, "--out", warc], check=True,
                       capture_output=True)
        cli_s, py_s = [], []
        for i in range(repeat):
            out, store = Path(tmp) / f"o{i}.jsonl", Path(tmp) / f"c{i}.sqlite"
            t = time.perf_counter()
            subprocess.run([binary, "batch", warc, "--out", out, "--store", store],
                           check=False, capture_output=True)
            cli_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            with templex.Batch(Path(tmp) / f"p{i}.sqlite") as b:
                got = list(b.process_files([warc]))
            py_s.append(time.perf_counter() - t)
        want = [json.loads(l) for l in out.read_text().splitlines()]
        n = len(want)
        c, p = statistics.median(cli_s), statistics.median(py_s)
        print(f"\n### batch over a WARC of all site mirrors ({n} records, median of {repeat})\n")
        print("| run | seconds | pages/s |")
        print("|---|---|---|")
        print(f"| `templex batch` (CLI) | {c:.2f} | {n / c:,.0f} |")
        print(f"| `templex.Batch().process_files` | {p:.2f} | {n / p:,.0f} |")
        print(f"\nPython / CLI pages per second: {c / p:.2f}; outputs identical: {got == want}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--datasets", default="aeb,wcxb,daniel")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--tools", default="", help="comma list of the tools to time (default: all)")
    ap.add_argument("--bin", type=Path, default=REPO / "target/release/templex")
    a = ap.parse_args()
    ddir = peers.data_dir()
    print(f"templex {templex.__version__} (Python {sys.version.split()[0]})")
    for ds in filter(None, a.datasets.split(",")):
        files = pages(ds, ddir)
        speed(ds, files, a.repeat, set(filter(None, a.tools.split(","))))
        same_as_cli(ds, files, a.bin)
    if a.batch:
        batch(ddir, a.bin, a.repeat)


if __name__ == "__main__":
    main()
