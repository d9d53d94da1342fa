"""The Python package gives what the CLI gives, on the dev data and the example site."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import templex
from conftest import EXAMPLE, PREFIX, run_cli


def read_page(path: Path) -> bytes:
    raw = path.read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


@pytest.mark.parametrize(
    "subdirs",
    [
        ["scrapinghub-aeb/html"],
        ["trafilatura-eval/tests/eval", "trafilatura-eval/tests/cache"],
        ["wcxb-dev/html"],
    ],
)
def test_extract_equals_cli_content(data: Path, cli: Path, subdirs: list[str]) -> None:
    dirs = [data / "pagelevel" / s for s in subdirs]
    lines = run_cli(cli, "content", "--format", "jsonl", *dirs).stdout.decode().splitlines()
    assert len(lines) > 100
    for line in lines:
        rec = json.loads(line)
        got = templex.extract(read_page(Path(rec["input"])), format="json")
        assert got["text"] == rec.get("text"), rec["input"]
        for key in ("title", "author", "date", "language"):
            assert got[key] == rec.get(key), (key, rec["input"])
        assert got["method"] == rec["method"]


def test_spread_equals_cli_spread(data: Path, cli: Path) -> None:
    """`spread=0` keeps the main container, as `templex content --spread 0` does; on WCXB's
    listings and threads that differs from the default."""
    pages = sorted((data / "pagelevel" / "wcxb-dev" / "html").glob("*.html.gz"))[:200]
    assert pages
    out = run_cli(cli, "content", "--spread", "0", "--format", "jsonl", *pages).stdout
    differ = 0
    for line in out.decode().splitlines():
        rec = json.loads(line)
        page = read_page(Path(rec["input"]))
        container = templex.extract(page, spread=0)
        assert container == rec.get("text"), rec["input"]
        differ += container != templex.extract(page)
    assert differ > 0


def test_template_equals_cli_template(cli: Path) -> None:
    page = EXAMPLE / "garden" / "compost-guide.html"
    args = ["--site", EXAMPLE, "--url-prefix", PREFIX]
    for method in templex.METHODS:
        out = run_cli(cli, "template", page, *args, "--format", "json", "--method", method)
        want = json.loads(out.stdout)
        got = templex.template(str(page), site=EXAMPLE, url_prefix=[PREFIX], method=method)
        report = got.report()
        for k in ("timings_ms",):
            want.pop(k)
            report.pop(k)
        assert report == want, method
        text = run_cli(cli, "template", page, *args, "--format", "annotated", "--method", method)
        assert got.annotated_html() + "\n" == text.stdout.decode(), method


# Four mirrors of different kinds (a shop beside pages, a blog, a tiny site, a small shop):
# the Rust tests run batch over all of them; here the binding must give the CLI's lines.
SITES = ["abc-lang.com", "whizzy.org", "firelab-uoft", "classicturkishtowels.com"]


def test_batch_over_mirrors_equals_cli_batch(data: Path, cli: Path, tmp_path: Path) -> None:
    warc = tmp_path / "some.warc.gz"
    run_cli(cli, "warc", *[data / "sites" / s for s in SITES], "--out", warc)
    out = tmp_path / "out.jsonl"
    run_cli(cli, "batch", warc, "--out", out, "--store", tmp_path / "cli.sqlite")
    want = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(want) > 500
    with templex.Batch(tmp_path / "py.sqlite") as batch:
        got = list(batch.process_files([warc]))
    assert got == want
    # Records fed from Python (the tolerant reader's pages) get the same content.
    by_url = {r["url"]: r for r in want if "url" in r}
    with templex.Batch() as batch:
        fed = list(batch.process(templex.read_warc(warc)))
    assert len(fed) == len(by_url)
    for r in fed:
        w = by_url[r["url"]]
        assert (r.get("text"), r.get("method"), r.get("cluster")) == (
            w.get("text"),
            w.get("method"),
            w.get("cluster"),
        ), r["url"]


def test_batch_rest_equals_cli_batch_rest(cli: Path, tmp_path: Path) -> None:
    """`Batch(rest=True)` gives `templex batch --rest`'s lines: the main content and the
    page minus its template, apart."""
    warc = tmp_path / "example.warc.gz"
    run_cli(cli, "warc", EXAMPLE, "--url-prefix", PREFIX, "--out", warc)
    out = tmp_path / "out.jsonl"
    run_cli(cli, "batch", warc, "--out", out, "--store", tmp_path / "cli.sqlite", "--rest")
    want = [json.loads(line) for line in out.read_text().splitlines()]
    assert any("rest" in r and r["rest"] != r["text"] for r in want)
    with templex.Batch(tmp_path / "py.sqlite", rest=True) as batch:
        got = list(batch.process_files([warc]))
    assert got == want
