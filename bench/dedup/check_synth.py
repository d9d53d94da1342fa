"""Score `templex dedup` output on synth.py's records against the planted copies.

    python bench/dedup/check_synth.py records.jsonl clusters.jsonl

Recall: copies put in their original's cluster. False merges: clusters that join records of
different originals (each extra original counts once).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main() -> None:
    with open(sys.argv[1]) as f:
        roots = [json.loads(line)["copy_of"] for line in f]
    with open(sys.argv[2]) as f:
        clusters = [json.loads(line)["cluster"] for line in f]
    cluster_of_root = {i: clusters[i] for i in set(roots)}
    copies = [i for i, r in enumerate(roots) if r != i]
    found = sum(clusters[i] == cluster_of_root[roots[i]] for i in copies)
    members: defaultdict[int, set[int]] = defaultdict(set)
    for i, c in enumerate(clusters):
        members[c].add(roots[i])
    merges = sum(len(rs) - 1 for rs in members.values())
    print(
        f"{len(roots)} records, {len(copies)} planted copies, {found} found "
        f"(recall {found / max(1, len(copies)):.5f}), {merges} false merges"
    )


if __name__ == "__main__":
    main()
