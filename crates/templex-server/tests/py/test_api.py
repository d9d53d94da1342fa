"""`templex serve` answers what the CLI prints, on the example site and the dev data."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import DATA_SITES, EXAMPLE, KEY, PREFIX, Server, start_server, stop_server

VOLATILE = {"timings", "timings_ms", "input"}
# `/v1/content` records carry fingerprints; `templex content`'s only when asked.
FP = ["--fingerprint"]


def stable(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in VOLATILE}


def run_cli(cli: Path, *args: object) -> bytes:
    proc = subprocess.run([str(cli), *map(str, args)], capture_output=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return proc.stdout


def read_page(path: Path) -> bytes:
    raw = path.read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def test_template_and_site_content_equal_the_cli_on_the_example(server: Server, cli: Path) -> None:
    page = EXAMPLE / "garden" / "compost-guide.html"
    for method in ["hybex", "temex", "sitelevel", "pagelevel", "tablechunk", "maincontent"]:
        expected = json.loads(
            run_cli(
                cli,
                "template",
                page,
                "--site",
                EXAMPLE,
                "--url-prefix",
                PREFIX,
                "--format",
                "json",
                "--method",
                method,
            )
        )
        got = server.post("/v1/template", {"url": KEY, "method": method})
        assert stable(got) == stable(expected), method
    expected = json.loads(
        run_cli(cli, "content", page, "--site", EXAMPLE, "--url-prefix", PREFIX, "--format", "jsonl", *FP)
    )
    assert stable(server.post("/v1/content", {"url": KEY})) == stable(expected)


def test_content_equals_the_cli_on_the_page_level_sets(server: Server, cli: Path, data: Path) -> None:
    pages = data / "pagelevel" / "scrapinghub-aeb" / "html"
    lines = run_cli(cli, "content", "--format", "jsonl", *FP, pages).decode().splitlines()
    assert len(lines) > 100
    for line in lines:
        expected = json.loads(line)
        status, _, body = server.request("/v1/content", read_page(Path(expected["input"])), "text/html")
        assert status == 200, body
        assert stable(json.loads(body)) == stable(expected), expected["input"]


def test_gold_key_pages_equal_the_cli(server: Server, cli: Path, data: Path) -> None:
    checked = 0
    for name in DATA_SITES:
        gold = json.loads((data / "gold" / f"{name}.json").read_text())
        site = data / gold["dir"]
        prefixes = [a for p in gold["url_prefixes"] for a in ("--url-prefix", p)]
        for key in gold["key_pages"]:
            url = gold["url_prefixes"][0].rstrip("/") + "/" + key["page"]
            expected = json.loads(
                run_cli(cli, "template", site / key["page"], "--site", site, *prefixes, "--format", "json")
            )
            got = server.post("/v1/template", {"url": url})
            assert stable(got) == stable(expected), url
            expected = json.loads(
                run_cli(
                    cli, "content", site / key["page"], "--site", site, *prefixes, "--format", "jsonl", *FP
                )
            )
            assert stable(server.post("/v1/content", {"url": url})) == stable(expected), url
            checked += 1
    assert checked >= 5


def test_errors_and_metrics(server: Server) -> None:
    status, _, body = server.request("/v1/content", b"{bad", "application/json")
    assert status == 400 and json.loads(body)["code"] == "bad_request"
    status, _, body = server.request("/v1/template", json.dumps({"url": PREFIX + "nope.html"}).encode())
    assert status == 404 and json.loads(body)["code"] == "not_found"
    status, _, body = server.request("/v1/content", b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
    assert status == 422 and json.loads(body)["code"] == "not_html"
    status, _, metrics = server.request("/metrics")
    assert status == 200
    text = metrics.decode()
    assert 'templex_http_requests_total{endpoint="/v1/content",status="422"}' in text
    assert "templex_pages_loaded_total" in text


def test_body_limit_and_overload_over_real_sockets() -> None:
    s = start_server(
        [
            "--site",
            str(EXAMPLE),
            "--url-prefix",
            PREFIX,
            "--max-body",
            "2000",
            "--workers",
            "1",
            "--queue",
            "0",
        ]
    )
    try:
        status, _, body = s.request("/v1/content", b"<p>" + b"x" * 5000, "text/html")
        assert status == 413 and json.loads(body)["code"] == "too_large"
        # Many at once against one worker and no queue: some are refused with 503 and
        # Retry-After, none hangs, every one is answered.
        from concurrent.futures import ThreadPoolExecutor

        page = (EXAMPLE / "garden" / "compost-guide.html").read_bytes()[:1900]
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda _: s.request("/v1/content", page, "text/html"), range(64)))
        statuses = {a[0] for a in answers}
        assert statuses <= {200, 503}, statuses
        assert 200 in statuses
        for status, headers, _ in answers:
            if status == 503:
                assert headers.get("retry-after") == "1"
    finally:
        assert stop_server(s) == 0
