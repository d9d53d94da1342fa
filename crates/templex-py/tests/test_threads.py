"""The GIL is released while the engine works, and results do not depend on threads."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import templex

PAGE = (
    "<html><body><nav><a href='/'>Home</a></nav><div class='wrap'>"
    + "<p>Prose of a long page, sentence after sentence, to keep the engine busy.</p>" * 60_000
    + "</div></body></html>"
)


def test_other_threads_run_while_the_engine_works() -> None:
    done = threading.Event()

    def work() -> None:
        templex.extract(PAGE)
        done.set()

    t = threading.Thread(target=work)
    ticks = 0
    t.start()
    while not done.is_set():
        ticks += 1
    t.join()
    # With the GIL held for the whole extraction, this loop could not run meanwhile.
    assert ticks > 10_000, ticks


def test_parallel_results_equal_serial_ones() -> None:
    pages = [PAGE[: 2_000 * (i + 1)] + "</div></body></html>" for i in range(16)]
    serial = [templex.extract(p) for p in pages]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(templex.extract, pages))
    assert parallel == serial


def test_a_batch_is_shared_between_threads() -> None:
    records = [(f"https://s{i % 3}.example/p{i}", PAGE[: 3_000 + i]) for i in range(30)]
    with templex.Batch() as batch:
        with ThreadPoolExecutor(max_workers=3) as pool:
            runs = list(pool.map(lambda rs: list(batch.process(rs)), [records] * 3))
    assert all(len(r) == len(records) for r in runs)
