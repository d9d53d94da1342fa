"""Fixtures of the server's end-to-end tests: a `templex serve` process on loopback, the CLI,
the dev data, and headless Chromium driven by Selenium."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[4]
EXAMPLE = REPO / "examples" / "site"
PREFIX = "https://www.riverbend-garden.example/"
KEY = PREFIX + "garden/compost-guide.html"
# Sites of the dev data the end-to-end tests serve (all pages, gold key pages).
DATA_SITES = ["whizzy.org", "abc-lang.com", "firelab-uoft"]


def data_dir() -> Path | None:
    env = os.environ.get("TEMPLEX_DATA")
    for c in [Path(env)] if env else [REPO.parent / "shared" / "data"]:
        if (c / "sites.json").is_file():
            return c
    return None


def cli_path() -> Path:
    env = os.environ.get("TEMPLEX_BIN")
    for c in ([Path(env)] if env else []) + [
        REPO / "target" / "debug" / "templex",
        REPO / "target" / "release" / "templex",
    ]:
        if c.is_file():
            return c
    found = shutil.which("templex")
    if found:
        return Path(found)
    pytest.fail("the templex binary was not found (cargo build, or set TEMPLEX_BIN)")


@pytest.fixture(scope="session")
def cli() -> Path:
    return cli_path()


@pytest.fixture(scope="session")
def data() -> Path:
    d = data_dir()
    if d is None:
        if os.environ.get("TEMPLEX_REQUIRE_DATA"):
            pytest.fail("TEMPLEX_REQUIRE_DATA is set but the shared data was not found")
        warnings.warn("NOTICE: skipping: shared data not found (set TEMPLEX_DATA)", stacklevel=2)
        pytest.skip("shared evaluation data not found")
    return d


@dataclass
class Server:
    """A running `templex serve`."""

    base: str
    proc: subprocess.Popen[bytes]

    def request(
        self, path: str, body: bytes | None = None, content_type: str = "application/json"
    ) -> tuple[int, dict[str, str], bytes]:
        req = urllib.request.Request(
            self.base + path, data=body, method="POST" if body is not None else "GET"
        )
        if body is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        status, _, body = self.request(path, json.dumps(payload).encode())
        assert status == 200, body.decode(errors="replace")
        return json.loads(body)


def start_server(args: list[str], cwd: Path | None = None) -> Server:
    """Start `templex serve` on a free loopback port; wait (bounded) for its one line."""
    proc = subprocess.Popen(
        [str(cli_path()), "serve", "--addr", "127.0.0.1:0", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        cwd=cwd,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    line = b""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if b"serving on " in line or not line:
            break
    if b"serving on " not in line:
        proc.kill()
        pytest.fail(f"templex serve did not start: {line!r}")
    base = line.decode().split("serving on ", 1)[1].strip().rstrip("/")
    return Server(base=base, proc=proc)


def stop_server(server: Server) -> int:
    """SIGTERM, then a bounded wait: a graceful shutdown exits 0."""
    server.proc.send_signal(signal.SIGTERM)
    try:
        return server.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        return -1


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """The example site, and the dev data's sites when present. The server runs in the repository
    and has the example as `examples/site`, so the viewer (and its screenshot) shows no folder
    of this machine."""
    args = ["--site", str(EXAMPLE.relative_to(REPO)), "--url-prefix", PREFIX]
    d = data_dir()
    if d is not None:
        for name in DATA_SITES:
            gold = json.loads((d / "gold" / f"{name}.json").read_text())
            args += ["--site", str((d / gold["dir"]).resolve())]
            for p in gold["url_prefixes"]:
                args += ["--url-prefix", p]
    s = start_server(args, cwd=REPO)
    yield s
    assert stop_server(s) == 0, "templex serve did not shut down cleanly on SIGTERM"
