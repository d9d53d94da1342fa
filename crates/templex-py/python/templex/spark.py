"""templex over WARC collections on Apache Spark.

A crawl spreads each site's pages over many WARC files, and templex learns templates per
site, so the job brings each site's records together before extracting::

    WARC paths ──(one task per file: the tolerant reader)──▶ (site, file, offset) → record
      ──(partitioned by site, sorted by file and offset)──▶ one templex.Batch per site
      ──▶ Parquet: one row per input record (+ the learned templates, optionally)

Run it in local mode with ``python -m templex.spark PATHS.txt OUT/`` or on a cluster with
``spark-submit`` (docs/python.md, "Spark: python -m templex.spark"). Every decision depends
on the records and their order alone, and that order is fixed (site, file, offset), so a task
that Spark retries gives the same rows: Parquet output has no duplicates and loses nothing.

Sites with more than ``max_site_records`` records are split into shards by a hash of the
URL: each shard is a uniform sample of its site and learns the site's templates from its own
pages (a shard holds thousands of pages, far more than learning samples), so no single task
holds a giant site. Only the first shard's templates go to the templates table.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import shutil
import sys
import tempfile
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import urlparse

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pyspark import RDD
    from pyspark.sql import DataFrame, Row, SparkSession
    from pyspark.sql.types import StructType

log = logging.getLogger("templex.spark")

#: The columns of the output table, in order.
RECORD_COLUMNS: list[tuple[str, str]] = [
    ("url", "string"),
    ("site", "string"),
    ("warc_file", "string"),
    ("warc_offset", "long"),
    ("status", "string"),
    ("error", "string"),
    ("error_code", "string"),
    ("learn_group", "string"),
    ("cluster", "string"),
    ("method", "string"),
    ("template_share", "double"),
    ("title", "string"),
    ("author", "string"),
    ("date", "string"),
    ("language", "string"),
    ("text", "string"),
    ("markdown", "string"),
    ("rest", "string"),
]

#: The columns of the templates table: ``templex.Batch.templates()`` rows.
TEMPLATE_COLUMNS: list[tuple[str, str]] = [
    ("site", "string"),
    ("cluster", "long"),
    ("method", "string"),
    ("scheme", "long"),
    ("hash_scheme", "long"),
    ("pages", "long"),
    ("core", "binary"),
    ("params", "string"),
    ("model", "binary"),
    ("content", "string"),
]


@dataclass(frozen=True)
class JobConfig:
    """Settings of one run of the job."""

    method: str = "tablechunk"
    """The batch method (as ``templex batch --method``)."""
    partitions: Optional[int] = None
    """Partitions of the site shuffle (default: twice Spark's default parallelism)."""
    max_site_records: int = 100_000
    """Sites with more records are split into shards of about this many (0: never)."""
    markdown: bool = False
    """Write each page's content as Markdown too."""
    rest: bool = False
    """Write each page minus its template too (the ``rest`` column)."""
    threads_per_task: int = 1
    """Threads templex uses inside one Spark task (Spark runs one task per core)."""
    batch_options: dict[str, Any] = field(default_factory=dict)
    """Further ``templex.Batch`` settings (``site_sample``, ``min_pages``, ``protect``…)."""


def _spark_schema(columns: list[tuple[str, str]]) -> StructType:
    from pyspark.sql.types import (
        BinaryType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    types = {
        "string": StringType(),
        "long": LongType(),
        "double": DoubleType(),
        "binary": BinaryType(),
    }
    return StructType([StructField(n, types[t], True) for n, t in columns])


def record_schema() -> StructType:
    """The Spark schema of the output table."""
    return _spark_schema(RECORD_COLUMNS)


def template_schema() -> StructType:
    """The Spark schema of the templates table."""
    return _spark_schema(TEMPLATE_COLUMNS)


def stable_hash(text: str) -> int:
    """A hash that is the same in every process and on every run (Python's ``hash`` of a
    string is salted per process, so Spark's default partitioner must not see strings)."""
    return zlib.crc32(text.encode("utf-8"))


def site_of(url: Optional[str]) -> str:
    """The site a record is learned with (``templex.site``), or ``""`` when it has none."""
    import templex

    if not url:
        return ""
    try:
        return templex.site(url)
    except ValueError:
        return ""


def _local_path(path: str) -> Optional[str]:
    """The local file system path of a plain path or a ``file://`` URI; None for other
    schemes."""
    parsed = urlparse(path)
    if parsed.scheme == "file":
        return parsed.path
    return path if parsed.scheme == "" else None


def _local_copy(path: str, tmp: str) -> str:
    """A local file holding ``path``: local paths and ``file://`` URIs as they are; other
    schemes (``s3://``, ``hdfs://``, ``gs://``…) copied through fsspec, when installed."""
    local = _local_path(path)
    if local is not None:
        return local
    parsed = urlparse(path)
    try:
        import fsspec  # type: ignore[import-not-found]
    except ImportError as e:
        raise OSError(
            f"{path}: reading {parsed.scheme}:// paths needs fsspec and its {parsed.scheme} "
            "driver (e.g. pip install s3fs) on the executors"
        ) from e
    local = os.path.join(tmp, os.path.basename(parsed.path) or "input.warc")
    with fsspec.open(path, "rb") as src, open(local, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    return local


Key = tuple[str, str, int]
"""A record's sort key: learning group (its site, or ``site#shard``), WARC file, offset."""


def read_warc_file(path: str) -> Iterator[tuple[Key, tuple[Any, ...]]]:
    """The records of one WARC file as ``((site, path, offset), (url, body, content_type))``;
    a file that cannot be read is one record with an error (so that it is reported, not
    lost): ``(("", path, -1), (None, None, message))``."""
    import templex

    with tempfile.TemporaryDirectory(prefix="templex-warc-") as tmp:
        try:
            reader = templex.read_warc(_local_copy(path, tmp))
            for url, body, headers in reader:
                offset = reader.offset if reader.offset is not None else -1
                yield (site_of(url), path, offset), (url, body, headers.get("Content-Type"))
            if reader.problems:
                log.warning("%s: %d damaged spots skipped", path, reader.problems)
        except (OSError, templex.TemplexError) as e:
            yield ("", path, -1), (None, None, f"cannot read {path}: {e}")


def shard_key(key: Key, url: Optional[str], shards: dict[str, int]) -> Key:
    """The key of a record of a giant site: its site and shard (``site#n``)."""
    n = shards.get(key[0], 1)
    if n <= 1 or not url:
        return key
    return (f"{key[0]}#{stable_hash(url) % n}", key[1], key[2])


def shard_of(group: str) -> Optional[int]:
    """The shard number of a learning group (``site#n``), ``None`` for a whole site."""
    _, sep, n = group.rpartition("#")
    return int(n) if sep and n.isdigit() else None


def _out_row(key: Key, meta: tuple[Any, ...], out: dict[str, Any]) -> tuple[Any, ...]:
    error = out.get("error")
    site = out.get("site") or (key[0].split("#", 1)[0] or None)
    values = {
        "url": out.get("url") or meta[0],
        "site": site,
        "warc_file": key[1],
        "warc_offset": key[2],
        "status": "error" if error else "ok",
        "error": error,
        "error_code": out.get("error_code"),
        "learn_group": key[0] or None,
        "cluster": out.get("cluster"),
        "method": out.get("method"),
        "template_share": out.get("template_share"),
        "title": out.get("title"),
        "author": out.get("author"),
        "date": out.get("date"),
        "language": out.get("language"),
        "text": out.get("text"),
        "markdown": out.get("markdown"),
        "rest": out.get("rest"),
    }
    return tuple(values[c] for c, _ in RECORD_COLUMNS)


def _error_row(key: Key, url: Optional[str], message: str) -> tuple[Any, ...]:
    return _out_row(key, (url,), {"error": message})


TEMPLATE_TAG = 0
RECORD_TAG = 1


def extract_group(
    group: str,
    items: Iterable[tuple[Key, tuple[Any, ...]]],
    config: JobConfig,
    keep_templates: bool,
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """One learning group's records (template rows first, then records in key order)
    through one ``templex.Batch``: ``("record", row)`` per record, then ``("template",
    row)`` per template it holds when ``keep_templates``."""
    import templex

    items = iter(items)
    stored: list[dict[str, Any]] = []
    first = next(items, None)
    while first is not None and first[1][0] == TEMPLATE_TAG:
        stored.append(first[1][1])
        first = next(items, None)
    records = itertools.chain([first], items) if first is not None else iter(())
    pending: deque[tuple[Key, tuple[Any, ...]]] = deque()

    def feed() -> Iterator[tuple[Any, ...]]:
        for key, (_, value) in records:
            url, body, content_type = value
            pending.append((key, value))
            headers = {"Content-Type": content_type} if content_type else None
            yield (url, body, headers)

    with templex.Batch(
        method=config.method, markdown=config.markdown, rest=config.rest, **config.batch_options
    ) as b:
        if stored:
            b.add_templates(stored)
        for out in b.process(feed()):
            key, value = pending.popleft()
            yield "record", _out_row(key, value, out)
        if keep_templates and shard_of(group) in (None, 0):
            for t in b.templates():
                yield "template", tuple(t[c] for c, _ in TEMPLATE_COLUMNS)


def extract_partition(
    rows: Iterable[tuple[Key, tuple[int, Any]]],
    config: JobConfig,
    keep_templates: bool,
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """A sorted partition: its learning groups one after another (see
    :func:`extract_group`); records without a site are extracted page-level, and unreadable
    files give error rows."""
    os.environ.setdefault("RAYON_NUM_THREADS", str(max(1, config.threads_per_task)))
    for group, items in itertools.groupby(rows, key=lambda kv: kv[0][0]):
        if group:
            yield from extract_group(group, items, config, keep_templates)
            continue
        # No site: unreadable files, and records whose URL has no host.
        for key, (tag, value) in items:
            if tag != RECORD_TAG:
                continue
            url, body, message = value
            if body is None:
                yield "record", _error_row(key, url, message)
            else:
                yield from extract_group("", [(key, (tag, value))], config, False)


def _fail_first_attempts(rows: Iterator[Any], marks: str) -> Iterator[Any]:
    """Testing: the first attempt of every task fails after its first row, leaving a mark
    in the directory ``marks``; Spark retries it, and the job's output must not change."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    for i, row in enumerate(rows):
        if ctx is not None and ctx.attemptNumber() == 0 and i == 1:
            open(os.path.join(marks, f"failed-{ctx.partitionId()}"), "w").close()
            raise RuntimeError("templex.spark: injected failure (first attempt)")
        yield row


@dataclass
class JobResult:
    """What a run wrote."""

    records: int
    errors: int
    sites: int
    templates: Optional[int]
    split_sites: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        """The summary printed by the command line."""
        return asdict(self)


def read_paths(spark: SparkSession, paths_file: str) -> list[str]:
    """The WARC paths listed in a text file (one per line; blank lines and ``#`` comments
    ignored; a path listed twice is read once)."""
    lines = spark.sparkContext.textFile(paths_file).collect()
    seen: dict[str, None] = {}
    for line in lines:
        p = line.strip()
        if p and not p.startswith("#"):
            seen.setdefault(p, None)
    return list(seen)


def existing_outputs(spark: SparkSession, paths: Iterable[Optional[str]]) -> list[str]:
    """Which of ``paths`` exist, asked of the Hadoop file system Spark writes each to (any
    scheme it can write)."""
    sc: Any = spark.sparkContext
    conf = sc._jsc.hadoopConfiguration()
    taken = []
    for p in paths:
        if p is None:
            continue
        hadoop_path = sc._jvm.org.apache.hadoop.fs.Path(p)
        if hadoop_path.getFileSystem(conf).exists(hadoop_path):
            taken.append(p)
    return taken


def _refuse_existing(taken: list[str]) -> None:
    if taken:
        raise FileExistsError(
            f"output already exists: {', '.join(taken)} (replace it with mode='overwrite', "
            "--overwrite on the command line)"
        )


def run_job(
    spark: SparkSession,
    warc_paths: list[str],
    output: str,
    config: JobConfig,
    *,
    templates_out: Optional[str] = None,
    templates_in: Optional[str] = None,
    mode: str = "errorifexists",
    _fail_once: Optional[str] = None,
) -> JobResult:
    """Extract every record of ``warc_paths`` into Parquet at ``output`` (see the module
    docs); ``templates_out`` writes the learned templates, ``templates_in`` reuses the
    templates of an earlier run (pages of their sites are not learned again). With ``mode``
    ``errorifexists``, an existing output or templates directory is a ``FileExistsError``
    before any record is read, not after the work."""
    from pyspark import StorageLevel

    if mode == "errorifexists":
        _refuse_existing(existing_outputs(spark, [output, templates_out]))
    sc = spark.sparkContext
    partitions = config.partitions or max(2, 2 * sc.defaultParallelism)
    paths = sc.parallelize(warc_paths, max(1, len(warc_paths)))
    keyed = paths.flatMap(read_warc_file)

    shards: dict[str, int] = {}
    if config.max_site_records > 0:
        # A first read counts each site's records: reading again costs less than keeping
        # every record on disk between the two passes.
        limit = config.max_site_records
        counts = (
            paths.flatMap(lambda p: ((key[0], 1) for key, _ in read_warc_file(p)))
            .reduceByKey(lambda a, b: a + b)
            .filter(lambda kv: kv[0] != "" and kv[1] > limit)
            .collectAsMap()
        )
        shards = {s: -(-n // limit) for s, n in counts.items()}
        for s, n in sorted(shards.items()):
            log.info("site %s: %d records, split into %d shards", s, counts[s], n)
    shards_b = sc.broadcast(shards)

    def tag_record(kv: tuple[Key, tuple[Any, ...]]) -> tuple[Key, tuple[int, Any]]:
        return shard_key(kv[0], kv[1][0], shards_b.value), (RECORD_TAG, kv[1])

    tagged: RDD[tuple[Key, tuple[int, Any]]] = keyed.map(tag_record)
    if templates_in:
        columns = [c for c, _ in TEMPLATE_COLUMNS]

        def tag_template(row: Row) -> Iterator[tuple[Key, tuple[int, Any]]]:
            t = {c: row[c] for c in columns}
            t["core"], t["model"] = bytes(t["core"]), bytes(t["model"])
            n = shards_b.value.get(t["site"], 1)
            groups = [t["site"]] if n <= 1 else [f"{t['site']}#{i}" for i in range(n)]
            for g in groups:
                # Sorted before the group's records ("" < any path).
                yield (g, "", -1 - int(t["cluster"])), (TEMPLATE_TAG, t)

        stored = spark.read.parquet(templates_in).rdd.flatMap(tag_template)
        tagged = tagged.union(stored)

    grouped = tagged.repartitionAndSortWithinPartitions(
        partitions, partitionFunc=lambda key: stable_hash(key[0])
    )
    keep = templates_out is not None

    def run_partition(rows: Iterator[Any]) -> Iterator[tuple[str, tuple[Any, ...]]]:
        return extract_partition(rows, config, keep)

    out = grouped.mapPartitions(run_partition)
    if _fail_once is not None:
        marks = _fail_once
        out = out.mapPartitions(lambda rows: _fail_first_attempts(rows, marks))
    if keep:
        # Records and templates are two tables of one computation.
        out = out.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        # The rows are built here to the schema: checking each one again costs a fifth.
        records = spark.createDataFrame(
            out.filter(lambda t: t[0] == "record").map(lambda t: t[1]),
            record_schema(),
            verifySchema=False,
        )
        records.write.mode(mode).parquet(output)
        written = spark.read.parquet(output)
        n = written.count()
        errors = written.filter("status = 'error'").count()
        sites = written.select("site").distinct().count()
        n_templates = None
        if templates_out is not None:
            templates: DataFrame = spark.createDataFrame(
                out.filter(lambda t: t[0] == "template").map(lambda t: t[1]),
                template_schema(),
                verifySchema=False,
            )
            templates.write.mode(mode).parquet(templates_out)
            n_templates = spark.read.parquet(templates_out).count()
    finally:
        out.unpersist()
    return JobResult(n, errors, sites, n_templates, shards)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m templex.spark``."""
    p = argparse.ArgumentParser(
        prog="python -m templex.spark",
        description="Extract the content of every record of a WARC collection with templex on "
        "Spark: each site's records meet in one task, which learns its templates.",
    )
    p.add_argument("paths", help="text file of WARC paths or URIs, one per line")
    p.add_argument("output", help="output directory (Parquet, one row per input record)")
    p.add_argument("--method", default="tablechunk", help="batch method (default: tablechunk)")
    p.add_argument("--partitions", type=int, help="partitions of the site shuffle")
    p.add_argument(
        "--max-site-records",
        type=int,
        default=JobConfig.max_site_records,
        help="split sites with more records into shards of about this many (0: never)",
    )
    p.add_argument("--markdown", action="store_true", help="write a markdown column too")
    p.add_argument(
        "--rest", action="store_true", help="write the page minus its template too (rest column)"
    )
    p.add_argument("--templates-out", help="write the learned templates here (Parquet)")
    p.add_argument("--templates-in", help="reuse the templates an earlier run wrote")
    p.add_argument("--threads-per-task", type=int, default=1, help="templex threads per Spark task")
    p.add_argument("--site-sample", type=int, help="pages of a learning round's sample")
    p.add_argument("--min-pages", type=int, help="smallest template cluster learned")
    p.add_argument("--overwrite", action="store_true", help="replace existing output")
    p.add_argument("--master", help="Spark master when not run by spark-submit (default: local[*])")
    return p


def _refused(e: FileExistsError) -> int:
    print(f"python -m templex.spark: {e}", file=sys.stderr)
    return 2


def main(argv: Optional[list[str]] = None) -> int:
    """Run the job from the command line; prints a JSON summary."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if not args.overwrite:
        # Local outputs are checked before a JVM starts; run_job checks the others.
        local = [(p, _local_path(p)) for p in (args.output, args.templates_out) if p]
        try:
            _refuse_existing([p for p, lp in local if lp is not None and os.path.exists(lp)])
        except FileExistsError as e:
            return _refused(e)
    # Local mode's Python workers must import this same templex.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("templex")
    # spark-submit starts the JVM (and names the master) before this runs.
    if args.master or "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master(args.master or "local[*]")
    spark = builder.getOrCreate()
    options = {
        k: v
        for k, v in {"site_sample": args.site_sample, "min_pages": args.min_pages}.items()
        if v is not None
    }
    config = JobConfig(
        method=args.method,
        partitions=args.partitions,
        max_site_records=args.max_site_records,
        markdown=args.markdown,
        rest=args.rest,
        threads_per_task=args.threads_per_task,
        batch_options=options,
    )
    try:
        paths = read_paths(spark, args.paths)
        log.info("%d WARC files", len(paths))
        result = run_job(
            spark,
            paths,
            args.output,
            config,
            templates_out=args.templates_out,
            templates_in=args.templates_in,
            mode="overwrite" if args.overwrite else "errorifexists",
        )
    except FileExistsError as e:
        return _refused(e)
    finally:
        spark.stop()
    print(json.dumps(result.as_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
