"""Shared fixtures: the repository, the bundled example site, the dev data and the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "site"
PREFIX = "https://www.riverbend-garden.example/"


def _data_dir() -> Path | None:
    env = os.environ.get("TEMPLEX_DATA")
    for c in [Path(env)] if env else [REPO.parent / "shared" / "data"]:
        if (c / "sites.json").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def data() -> Path:
    """The shared evaluation data; skipped with a notice when absent, unless required."""
    d = _data_dir()
    if d is None:
        if os.environ.get("TEMPLEX_REQUIRE_DATA"):
            pytest.fail("TEMPLEX_REQUIRE_DATA is set but the shared data was not found")
        warnings.warn(
            "NOTICE: skipping: shared evaluation data not found (set TEMPLEX_DATA)", stacklevel=2
        )
        pytest.skip("shared evaluation data not found")
    return d


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `templex` binary (TEMPLEX_BIN, else release, else debug in the target directory:
    CARGO_TARGET_DIR or the repository's target/)."""
    env = os.environ.get("TEMPLEX_BIN")
    candidates = [Path(env)] if env else []
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    candidates += [target / "release" / "templex", target / "debug" / "templex"]
    for c in candidates:
        if c.is_file():
            return c
    found = shutil.which("templex")
    if found:
        return Path(found)
    if os.environ.get("TEMPLEX_REQUIRE_DATA"):
        pytest.fail("the templex binary was not found (build it or set TEMPLEX_BIN)")
    pytest.skip("the templex binary was not found")


def run_cli(cli: Path, *args: object) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI; exit codes 0 and 1 (some inputs failed) are results."""
    proc = subprocess.run([str(cli), *map(str, args)], capture_output=True)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return proc
