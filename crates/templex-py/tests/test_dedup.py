"""Content fingerprints in the Python API (near-duplicate detection, `templex dedup`)."""

from __future__ import annotations

import templex
from conftest import EXAMPLE

BODY = (
    "<article><h1>Compost at home</h1><p>Composting turns kitchen scraps into soil. It takes "
    "a few months, some air and a little water, and the result feeds the garden.</p>"
    "<p>Mix greens and browns, turn the heap now and then, and keep it moist.</p></article>"
)


def page(template: str) -> str:
    return f"<html><head><title>Compost at home</title></head><body>{template}{BODY}</body></html>"


def test_extract_json_has_fingerprints() -> None:
    rec = templex.extract(page("<nav><a href='/'>Home</a></nav>"), format="json")
    fp = rec["fingerprint"]
    assert fp["scheme"] == 1 and fp["shingle"] == 5
    assert fp["words"] == len(rec["text"].split())
    assert len(fp["minhash"]) == 128 and all(0 <= v < 2**32 for v in fp["minhash"])
    assert len(fp["content_hash"]) == 16 and len(fp["simhash"]) == 16
    # Text output is a str, without fingerprints.
    assert isinstance(templex.extract(page("")), str)


def test_same_content_under_other_templates_has_one_fingerprint() -> None:
    a = templex.extract(page("<nav><a href='/'>Home</a> <a href='/x'>X</a></nav>"), format="json")
    b = templex.extract(
        page("<div class='sidebar'><ul><li><a href='/y'>Other</a></li></ul></div>"), format="json"
    )
    assert a["fingerprint"] == b["fingerprint"]
    other = templex.extract(
        page("").replace("kitchen scraps", "garden waste and leaves"), format="json"
    )
    assert other["fingerprint"]["content_hash"] != a["fingerprint"]["content_hash"]


def test_batch_records_have_fingerprints() -> None:
    prefix = "https://www.riverbend-garden.example/"
    records = [
        (prefix + p.relative_to(EXAMPLE).as_posix(), p.read_bytes())
        for p in sorted(EXAMPLE.rglob("*.html"))
    ]
    with templex.Batch(min_pages=2) as batch:
        out = list(batch.process(records))
    assert out and all(len(r["fingerprint"]["minhash"]) == 128 for r in out)
