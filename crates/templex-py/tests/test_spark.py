"""The Spark job (templex.spark) in local mode: every record once, each site's records
meeting in one place, retried tasks, reused templates, giant sites split."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import templex
from conftest import EXAMPLE, PREFIX, run_cli
from warcs import spread, write_warc


def _spark_available() -> str | None:
    """Why the Spark tests cannot run here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (scripts/install-java.sh)"
    return None


_why = _spark_available()
if _why is not None:
    if os.environ.get("TEMPLEX_REQUIRE_SPARK"):
        pytest.fail(f"TEMPLEX_REQUIRE_SPARK is set but {_why}", pytrace=False)
    warnings.warn(f"NOTICE: skipping the Spark tests: {_why}", stacklevel=1)
    pytest.skip(_why, allow_module_level=True)

from pyspark.sql import SparkSession  # noqa: E402

from templex import spark as job  # noqa: E402

# A shop, a blog, a tiny site and a small shop: sites of different kinds.
SITES = ["abc-lang.com", "whizzy.org", "firelab-uoft", "classicturkishtowels.com"]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # local[2, 3]: two cores, and a failed task is tried up to three times.
    session = (
        SparkSession.builder.master("local[2, 3]")
        .appName("templex-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def example_records() -> list[tuple[str, bytes, str]]:
    return [
        (PREFIX + p.relative_to(EXAMPLE).as_posix(), p.read_bytes(), "text/html")
        for p in sorted(EXAMPLE.rglob("*.html"))
    ]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory, data: Path, cli: Path) -> list[Path]:
    """Four mirrors and the example site spread over four WARC files."""
    tmp = tmp_path_factory.mktemp("crawl")
    whole = tmp / "whole.warc.gz"
    run_cli(cli, "warc", *[data / "sites" / s for s in SITES], "--out", whole)
    records = [(u, b, h.get("Content-Type", "text/html")) for u, b, h in templex.read_warc(whole)]
    assert len(records) > 500
    return spread(records + example_records(), 4, tmp)


def read_rows(spark: SparkSession, path: Path) -> list[dict[str, Any]]:
    return [r.asDict() for r in spark.read.parquet(str(path)).collect()]


def by_record(rows: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    keyed = {(r["warc_file"], r["warc_offset"]): r for r in rows}
    assert len(keyed) == len(rows), "a record has two rows"
    return keyed


def input_records(paths: list[Path]) -> dict[tuple[str, int], tuple[str, bytes]]:
    out = {}
    for p in paths:
        reader = templex.read_warc(p)
        for url, body, _ in reader:
            assert reader.offset is not None
            out[(str(p), reader.offset)] = (url, body)
    return out


@pytest.fixture(scope="module")
def first_run(
    spark: SparkSession, crawl: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, list[str]]:
    tmp = tmp_path_factory.mktemp("run")
    inputs = [str(p) for p in crawl] + [str(tmp / "missing.warc.gz")]
    result = job.run_job(
        spark,
        inputs,
        str(tmp / "out"),
        job.JobConfig(partitions=3),
        templates_out=str(tmp / "templates"),
    )
    assert result.records == len(input_records(crawl)) + 1
    assert result.errors == 1
    return tmp / "out", tmp / "templates", inputs


def test_every_record_once_and_sites_meet(
    spark: SparkSession, crawl: list[Path], first_run: tuple[Path, Path, list[str]]
) -> None:
    out, _, inputs = first_run
    rows = by_record(read_rows(spark, out))
    want = input_records(crawl)
    # One row per input record, and one for the file that could not be read.
    missing = inputs[-1]
    assert set(rows) == set(want) | {(missing, -1)}
    assert rows[(missing, -1)]["status"] == "error"
    assert "missing.warc.gz" in rows[(missing, -1)]["error"]
    # Each site's records, from all four files, went through one batch in (file, offset)
    # order: the rows are what templex.Batch gives over them.
    per_site: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for key, (url, _) in want.items():
        per_site[templex.site(url)].append(key)
    for site, keys in per_site.items():
        keys.sort()
        with templex.Batch() as batch:
            expect = list(batch.process((want[k][0], want[k][1]) for k in keys))
        for k, e in zip(keys, expect):
            r = rows[k]
            assert (r["url"], r["site"], r["status"]) == (e["url"], site, "ok")
            assert (r["text"], r["cluster"], r["method"]) == (
                e["text"],
                e.get("cluster"),
                e["method"],
            ), k
    # Templates were learned from pages spread over the files: most pages have one.
    templated = sum(1 for r in rows.values() if r["cluster"])
    assert templated > 0.8 * len(want)


def test_a_retried_task_gives_the_same_rows(
    spark: SparkSession, first_run: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    out, _, inputs = first_run
    again = tmp_path / "again"
    marks = tmp_path / "marks"
    marks.mkdir()
    job.run_job(spark, inputs, str(again), job.JobConfig(partitions=3), _fail_once=str(marks))
    assert len(list(marks.iterdir())) == 3, "every task failed once, after writing a row"
    assert by_record(read_rows(spark, again)) == by_record(read_rows(spark, out))


def test_templates_of_a_run_are_reused(
    spark: SparkSession, first_run: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    out, templates, _ = first_run
    stored = [r.asDict() for r in spark.read.parquet(str(templates)).collect()]
    assert {r["site"] for r in stored} >= {"whizzy.org", "riverbend-garden.example"}
    assert len({(r["site"], r["cluster"]) for r in stored}) == len(stored)
    # Three pages of the example site: too few to learn from, so only reused templates
    # give them a cluster, and then the first run's content.
    few = example_records()[:3]
    warc = tmp_path / "few.warc.gz"
    write_warc(warc, few)
    alone = read_rows_of(spark, [warc], tmp_path / "alone", None)
    assert all(r["method"] == "maincontent" for r in alone)
    reused = read_rows_of(spark, [warc], tmp_path / "reused", templates)
    assert all(r["cluster"] for r in reused), reused
    first = {r["url"]: r["text"] for r in read_rows(spark, out)}
    assert all(r["text"] == first[r["url"]] for r in reused)


def read_rows_of(
    spark: SparkSession, warcs: list[Path], out: Path, templates: Path | None
) -> list[dict[str, Any]]:
    job.run_job(
        spark,
        [str(w) for w in warcs],
        str(out),
        job.JobConfig(partitions=2),
        templates_in=str(templates) if templates else None,
    )
    return read_rows(spark, out)


def test_existing_output_is_refused_before_any_work(
    spark: SparkSession, first_run: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    out, templates, _ = first_run
    # The templates table exists: the run stops before it writes the records table, and
    # before it reads a record (the input does not exist, which would be an error row).
    fresh = tmp_path / "fresh"
    for outputs in [(str(out), None), (str(fresh), str(templates))]:
        with pytest.raises(FileExistsError, match="already exists"):
            job.run_job(
                spark,
                [str(tmp_path / "missing.warc.gz")],
                outputs[0],
                job.JobConfig(partitions=2),
                templates_out=outputs[1],
            )
    assert not fresh.exists()
    assert job.existing_outputs(spark, [str(out), None, fresh.as_uri()]) == [str(out)]


def test_a_giant_site_is_split_into_shards(
    spark: SparkSession, crawl: list[Path], tmp_path: Path
) -> None:
    result = job.run_job(
        spark,
        [str(p) for p in crawl],
        str(tmp_path / "out"),
        job.JobConfig(partitions=4, max_site_records=120, markdown=True),
        templates_out=str(tmp_path / "templates"),
    )
    rows = by_record(read_rows(spark, tmp_path / "out"))
    assert set(rows) == set(input_records(crawl))
    assert result.split_sites, "a mirror has more than 120 pages"
    for site, shards in result.split_sites.items():
        groups = {r["learn_group"] for r in rows.values() if r["site"] == site}
        assert groups == {f"{site}#{i}" for i in range(shards)}
        # Each shard learned templates from its own pages.
        for i in range(shards):
            assert any(r["cluster"] for r in rows.values() if r["learn_group"] == f"{site}#{i}")
    stored = [r.asDict() for r in spark.read.parquet(str(tmp_path / "templates")).collect()]
    assert len({(r["site"], r["cluster"]) for r in stored}) == len(stored)
    assert all(r["markdown"] is not None for r in rows.values())


def test_the_command_line(tmp_path: Path) -> None:
    warcs = spread(example_records(), 2, tmp_path)
    paths = tmp_path / "paths.txt"
    paths.write_text("# the example site\n" + "\n".join(f"file://{w}" for w in warcs) + "\n")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "templex.spark", str(paths), str(out), "--master", "local[1]"],
        capture_output=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    summary = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert summary["records"] == len(example_records())
    assert summary["errors"] == 0
    assert (out / "_SUCCESS").is_file()
    # Without --overwrite, existing output is not replaced.
    again = subprocess.run(
        [sys.executable, "-m", "templex.spark", str(paths), str(out), "--master", "local[1]"],
        capture_output=True,
        timeout=600,
    )
    assert again.returncode == 2
    assert "already exists" in again.stderr.decode() and str(out) in again.stderr.decode()
