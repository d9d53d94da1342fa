"""Reference implementation of templex's content fingerprints (scheme 1), from the
specification in crates/templex/src/dedup/fingerprint.rs, written independently of the Rust
code so that the values pinned by its tests are checked by a second implementation.

    python fingerprint_ref.py "some text"      # prints the fingerprint as JSON

Needs the `xxhash` package (a throwaway virtualenv; never a project dependency).
"""

from __future__ import annotations

import json
import sys

import xxhash

MASK = (1 << 64) - 1
MINHASH_SEED = 0x74656D706C657801


def splitmix64(state: int) -> tuple[int, int]:
    """SplitMix64: (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def single_char_word(c: str) -> bool:
    o = ord(c)
    return (
        0x3040 <= o <= 0x30FF
        or 0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF
        or 0xF900 <= o <= 0xFAFF
        or 0x20000 <= o <= 0x2FA1F
    )


def words(text: str) -> list[str]:
    """Alphanumeric runs, lower-cased; CJK characters one word each. (Python's isalnum is
    close to Rust's is_alphanumeric; they differ on a few numeric symbols.)"""
    out: list[str] = []
    cur: list[str] = []
    for c in text:
        if single_char_word(c):
            if cur:
                out.append("".join(cur))
                cur = []
            out.append(c)
        elif c.isalnum():
            cur.append(c.lower())
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def fingerprint(text: str, minhash: int = 128, shingle: int = 5) -> dict[str, object]:
    """The fingerprint record templex writes for `text`."""
    ws = words(text)
    wh = [xxhash.xxh3_64_intdigest(w.encode()) for w in ws]
    shingles: list[int] = []
    if ws:
        k = min(shingle, len(ws))
        for i in range(len(wh) - k + 1):
            b = b"".join(h.to_bytes(8, "little") for h in wh[i : i + k])
            shingles.append(xxhash.xxh3_64_intdigest(b))
    empty = 0xFFFFFFFF
    sig = [empty] * minhash
    votes = [0] * 64
    for h in shingles:
        j = (h * minhash) >> 64
        sig[j] = min(sig[j], h & 0xFFFFFFFF)
        for bit in range(64):
            votes[bit] += 1 if (h >> bit) & 1 else -1
    filled = [v != empty for v in sig]
    if any(filled):
        for j in range(minhash):
            if filled[j]:
                continue
            t = 0
            while True:
                _, y = splitmix64(MINHASH_SEED ^ ((j << 32) | t))
                k = (y * minhash) >> 64
                if filled[k]:
                    sig[j] = sig[k]
                    break
                t += 1
    simhash = sum(1 << bit for bit in range(64) if votes[bit] > 0)
    content = xxhash.xxh3_64_intdigest(" ".join(ws).encode())
    return {
        "scheme": 1,
        "words": len(ws),
        "shingle": shingle,
        "content_hash": f"{content:016x}",
        "simhash": f"{simhash:016x}",
        "minhash": sig,
    }


if __name__ == "__main__":
    print(json.dumps(fingerprint(sys.argv[1])))
