"""The Python API: behaviour, bad inputs, errors."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

import templex
from conftest import EXAMPLE, PREFIX

ARTICLE = (
    "<html><head><title>Compost at home</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/garden/'>Garden</a></nav>"
    "<article><h1>Compost at home</h1><p>Composting turns kitchen scraps into soil. It takes "
    "a few months, some air and a little water, and the result feeds the garden.</p>"
    "<p>Mix greens and browns, turn the heap now and then, and keep it moist.</p></article>"
    "<footer>© 2024 Riverbend</footer></body></html>"
)


def test_extract_text_from_str_and_bytes() -> None:
    text = templex.extract(ARTICLE)
    assert "Composting turns kitchen scraps into soil." in text
    assert "Home" not in text and "2024" not in text
    assert templex.extract(ARTICLE.encode()) == text


def test_extract_formats() -> None:
    md = templex.extract(ARTICLE, format="markdown")
    assert "Mix greens and browns" in md
    html = templex.extract(ARTICLE, format="html")
    assert "<p>" in html
    rec = templex.extract(ARTICLE, "https://example.com/compost", format="json")
    assert rec["url"] == "https://example.com/compost"
    assert rec["title"] == "Compost at home"
    assert rec["method"] == "maincontent"
    assert "Composting" in rec["text"]
    assert set(rec["timings"]) == {"parse_ms", "extract_ms", "total_ms"}
    assert rec["author"] is None and rec["date"] is None and rec["language"] is None


def test_extract_spread_is_a_share() -> None:
    assert templex.extract(ARTICLE, spread=0) == templex.extract(ARTICLE)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="spread"):
            templex.extract(ARTICLE, spread=bad)


def test_extract_metadata() -> None:
    page = ARTICLE.replace("<html>", "<html lang='en-GB'>").replace(
        "<h1>Compost at home</h1>",
        "<h1>Compost at home</h1><p class='byline'>By <a>Ann Lee</a> · March 3, 2024</p>",
    )
    rec = templex.extract(page, "https://example.com/compost", format="json")
    assert (rec["title"], rec["author"], rec["date"], rec["language"]) == (
        "Compost at home",
        "Ann Lee",
        "2024-03-03",
        "en",
    )


def test_bytes_are_decoded_by_their_charset() -> None:
    page = (
        "<html><head><meta charset='windows-1252'></head><body><p>Crème brûlée, à la carte. "
        "A sentence of prose that is long enough to be content.</p></body></html>"
    )
    assert "Crème brûlée" in templex.extract(page.encode("cp1252"))
    # A str is already text: its meta charset does not apply.
    assert "Crème brûlée" in templex.extract(page)


def test_bad_arguments_raise() -> None:
    with pytest.raises(TypeError, match="str or bytes"):
        templex.extract(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="format"):
        templex.extract(ARTICLE, format="pdf")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="url"):
        templex.extract(ARTICLE, url="not a url")
    with pytest.raises(ValueError, match="method"):
        templex.template(str(EXAMPLE / "index.html"), method="magic")
    with pytest.raises(ValueError, match="batch mode"):
        templex.Batch(method="temex")


def test_junk_and_huge_inputs_do_not_crash() -> None:
    junk = os.urandom(1 << 20)
    with pytest.raises(templex.NotHtmlError, match="not HTML"):
        templex.extract(junk)
    with pytest.raises(templex.NotHtmlError, match="PDF"):
        templex.extract(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    assert templex.extract(b"") == ""
    with pytest.raises(templex.PageError):
        templex.extract("\x00" * 1000)
    # Numbered: a page that repeats one paragraph word for word shows it once.
    huge = "<html><body>" + "".join(
        f"<p>Words of a long page, sentence {i} after another.</p>" for i in range(200_000)
    )
    text = templex.extract(huge + "</body></html>")
    assert text.count("Words of a long page") == 200_000


def test_page_budgets_are_named_in_errors() -> None:
    page = "<p>Some words of text.</p>" * 1000
    with pytest.raises(templex.BudgetError, match="100 bytes"):
        templex.extract(page, max_page_bytes=100)
    with pytest.raises(templex.BudgetError, match="500 nodes"):
        templex.extract(page, max_page_nodes=500)
    with pytest.raises(templex.BudgetError, match="time budget"):
        templex.extract(page, page_timeout=0)
    with pytest.raises(ValueError, match="page_timeout"):
        templex.extract(page, page_timeout=-1)
    assert issubclass(templex.BudgetError, templex.PageError)
    assert issubclass(templex.PageError, templex.TemplexError)
    assert "Some words of text." in templex.extract(page)
    deep = "<div>x" * 100_000 + "</div>" * 100_000
    assert templex.extract(deep, format="json")["timings"]["total_ms"] < 60_000


def test_batch_records_refused_pages_with_a_code() -> None:
    pages = example_records()
    limit = max(len(body) for _, body in pages)
    records = pages + [
        ("https://example.org/logo.png", b"\x89PNG\r\n\x1a\n" + os.urandom(512)),
        ("https://example.org/big", b"<p>" + b"x" * limit + b"</p>"),
    ]
    with templex.Batch(min_pages=2, max_page_bytes=limit) as batch:
        out = list(batch.process(records))
    assert len(out) == len(records)
    png, big = out[-2], out[-1]
    assert png["error_code"] == "not_html" and "PNG" in png["error"]
    assert big["error_code"] == "too_large" and f"{limit} bytes" in big["error"]
    assert all("error" not in r for r in out[:-2])


def test_template_of_the_example_site() -> None:
    t = templex.template(
        str(EXAMPLE / "garden" / "compost-guide.html"), site=EXAMPLE, url_prefix=[PREFIX]
    )
    assert t.method == "hybex"
    assert t.key_url == PREFIX + "garden/compost-guide.html"
    assert len(t.cs_pages) >= 2 and t.pages_loaded >= 3
    assert any("/header[1]" in p for p in t.template_paths)
    assert 'class="template_node"' in t.annotated_html() or "template_node" in t.annotated_html()
    assert "<body" in t.template_html()
    text = t.content()
    assert "compost" in text.lower()
    rec = t.content("json")
    assert rec["method"] == "hybex" and rec["pages_loaded"] == t.pages_loaded
    report = t.report()
    assert report["template_paths"] == t.template_paths
    assert report["cs_pages"] == t.cs_pages


def test_template_methods_and_errors() -> None:
    page = str(EXAMPLE / "garden" / "compost-guide.html")
    for method in templex.METHODS:
        t = templex.template(page, site=EXAMPLE, url_prefix=[PREFIX], method=method)
        assert t.template_paths, method
    with pytest.raises(templex.LoadError):
        templex.template(str(EXAMPLE / "no-such-page.html"))
    with pytest.raises(templex.LoadError, match="fetching is off"):
        templex.template("https://example.com/", fetch=False)
    with pytest.raises(templex.LoadError, match="private|loopback"):
        templex.template("http://127.0.0.1:9/", delay_ms=0, timeout=2)
    assert issubclass(templex.LoadError, templex.TemplexError)


def test_template_budgets_and_time_limit() -> None:
    page = str(EXAMPLE / "garden" / "compost-guide.html")

    def of_site(**kw: float) -> templex.Template:
        return templex.template(page, site=EXAMPLE, url_prefix=[PREFIX], **kw)

    with pytest.raises(templex.BudgetError, match="the call's time limit"):
        of_site(time_limit=0)
    with pytest.raises(templex.BudgetError, match="100 bytes"):
        of_site(max_page_bytes=100)
    with pytest.raises(ValueError, match="time_limit"):
        of_site(time_limit=-1)
    plain = of_site()
    within = of_site(time_limit=600, page_timeout=60)
    assert within.template_paths == plain.template_paths
    assert within.cs_pages == plain.cs_pages


def example_records() -> list[tuple[str, bytes]]:
    return [
        (PREFIX + p.relative_to(EXAMPLE).as_posix(), p.read_bytes())
        for p in sorted(EXAMPLE.rglob("*.html"))
    ]


def test_batch_process_records_in_order() -> None:
    records = example_records()
    bad: list[object] = [("https://x.example/", 7), "not a tuple", ("::", b"<p>x</p>")]
    with templex.Batch(min_pages=2) as batch:
        out = list(batch.process(iter(records + bad)))  # type: ignore[arg-type]
    assert [r["seq"] for r in out] == list(range(len(records) + 3))
    pages = out[: len(records)]
    assert all("error" not in r for r in pages)
    assert [r["url"] for r in pages] == [u for u, _ in records]
    assert any(r["method"] == "tablechunk" for r in pages), pages
    assert all("error" in r for r in out[len(records) :])


def test_batch_store_is_reused_across_runs(tmp_path: Path) -> None:
    store = tmp_path / "t.sqlite"
    with templex.Batch(store, min_pages=2) as batch:
        first = list(batch.process(example_records()))
    assert store.is_file()
    with templex.Batch(store, min_pages=2) as batch:
        again = list(batch.process(example_records()))
    assert [r.get("text") for r in first] == [r.get("text") for r in again]
    with pytest.raises(templex.StoreError):
        templex.Batch(tmp_path / "no" / "such" / "dir" / "t.sqlite")


def test_closed_batch_raises() -> None:
    batch = templex.Batch()
    batch.close()
    with pytest.raises(templex.BatchError, match="closed"):
        list(batch.process(example_records()))


def test_a_failing_record_source_raises_its_exception() -> None:
    def gen():  # noqa: ANN202
        yield example_records()[0]
        raise RuntimeError("source broke")

    with templex.Batch() as batch, pytest.raises(RuntimeError, match="source broke"):
        list(batch.process(gen()))


def test_read_warc_and_gzip_files(tmp_path: Path) -> None:
    with pytest.raises(templex.LoadError):
        templex.read_warc(tmp_path / "missing.warc.gz")
    page = (EXAMPLE / "index.html").read_bytes()
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + page
    rec = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://a.example/\r\n"
        b"WARC-Record-ID: <urn:uuid:1>\r\nContent-Type: application/http; msgtype=response\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
        + b"\r\n\r\n"
    )
    path = tmp_path / "one.warc.gz"
    path.write_bytes(gzip.compress(rec) + gzip.compress(rec[: len(rec) // 2]))
    reader = templex.read_warc(path)
    got = list(reader)
    assert len(got) == 1
    url, body_out, headers = got[0]
    assert url == "https://a.example/" and body_out == page
    assert "charset=utf-8" in headers["Content-Type"]
    assert reader.problems == 1


def test_site_is_the_registrable_domain() -> None:
    assert templex.site("https://news.bbc.co.uk/world/1") == "bbc.co.uk"
    assert templex.site("http://www.Example.COM:8080/a") == "example.com"
    assert templex.site("http://127.0.0.1/x") == "127.0.0.1"
    for bad in ["not a url", "mailto:someone@example.com"]:
        with pytest.raises(ValueError):
            templex.site(bad)


def test_warc_offsets_name_each_record(tmp_path: Path) -> None:
    records = example_records()[:4]
    members = []
    for url, page in records:
        body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + page
        members.append(
            gzip.compress(
                b"WARC/1.0\r\nWARC-Type: response\r\n"
                + f"WARC-Target-URI: {url}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                + body
                + b"\r\n\r\n"
            )
        )
    path = tmp_path / "four.warc.gz"
    path.write_bytes(b"".join(members))
    reader = templex.read_warc(path)
    assert reader.offset is None
    offsets = []
    for url, _, _ in reader:
        offsets.append(reader.offset)
        # The offset is the record's own gzip member: it decompresses alone.
        with path.open("rb") as f:
            f.seek(reader.offset or 0)
            head = gzip.GzipFile(fileobj=f).readline()
        assert head == b"WARC/1.0\r\n", url
    starts = [sum(len(m) for m in members[:i]) for i in range(len(members))]
    assert offsets == starts


def test_batch_markdown() -> None:
    with templex.Batch(min_pages=2, markdown=True) as batch:
        out = list(batch.process(example_records()))
    assert all(r["markdown"].strip() for r in out if r.get("text", "").strip())
    assert any(r["markdown"].startswith("# ") or "\n- " in r["markdown"] for r in out)
    with templex.Batch(min_pages=2) as batch:
        plain = list(batch.process(example_records()))
    assert all("markdown" not in r for r in plain)
    assert [r["text"] for r in out] == [r["text"] for r in plain]


def test_templates_move_between_batches() -> None:
    records = example_records()
    with templex.Batch(min_pages=2) as learner:
        learned = list(learner.process(records))
        rows = learner.templates()
        assert rows and all(r["site"] == "riverbend-garden.example" for r in rows)
        assert learner.templates("no-such.example") == []
    assert {type(r["model"]) for r in rows} == {bytes}
    # Two pages are too few to learn from: only the moved templates give them a cluster.
    few = records[:2]
    with templex.Batch(min_pages=5) as fresh:
        alone = list(fresh.process(few))
    assert all(r["method"] == "maincontent" for r in alone)
    with templex.Batch(min_pages=5) as reuser:
        assert reuser.add_templates(rows) == len(rows)
        reused = list(reuser.process(few))
    assert [r["text"] for r in reused] == [r["text"] for r in learned[:2]]
    assert all(r.get("cluster") for r in reused)
    # Rows of another hash scheme, damaged rows and missing keys are refused whole.
    with templex.Batch() as other:
        stale = [dict(rows[0], hash_scheme=rows[0]["hash_scheme"] + 1)]
        with pytest.raises(templex.StoreError, match="scheme"):
            other.add_templates(stale)
        with pytest.raises(templex.StoreError):
            other.add_templates([dict(rows[0], core=b"\x01\x02\x03")])
        with pytest.raises(ValueError, match="model"):
            other.add_templates([{k: v for k, v in rows[0].items() if k != "model"}])
        # bytearray (as Spark gives binary columns) is taken as bytes.
        as_spark = [dict(r, model=bytearray(r["model"]), core=bytearray(r["core"])) for r in rows]
        assert other.add_templates(as_spark) == len(rows)
        assert other.templates() == rows
