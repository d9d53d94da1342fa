"""WARC files for the Spark job's tests and benchmark: records dealt over several files, as a
crawl spreads each site's pages."""

from __future__ import annotations

import gzip
from pathlib import Path


def write_warc(path: Path, records: list[tuple[str, bytes, str]]) -> None:
    """A .warc.gz of one gzip member per response record, as crawlers write them."""
    with path.open("wb") as f:
        for url, page, content_type in records:
            http = (
                f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(page)}\r\n\r\n"
            ).encode() + page
            head = (
                f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
                "WARC-Date: 2026-01-01T00:00:00Z\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(http)}\r\n\r\n"
            ).encode()
            f.write(gzip.compress(head + http + b"\r\n\r\n"))


def spread(records: list[tuple[str, bytes, str]], parts: int, out: Path) -> list[Path]:
    """The records dealt round-robin into ``parts`` WARC files: every site's pages end up
    in every file, as in a crawl."""
    paths = [out / f"part-{i}.warc.gz" for i in range(parts)]
    for i, p in enumerate(paths):
        write_warc(p, records[i::parts])
    return paths
