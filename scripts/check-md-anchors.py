#!/usr/bin/env python3
"""Check links to Markdown files and their #anchors (GitHub-style heading slugs).

Usage: scripts/check-md-anchors.py [FILE...]   (default: every tracked .md, .rs, .py, .sh,
.json file). Finds Markdown links to a .md file (with or without an anchor), links to an
anchor of the same page, and bare mentions of a .md path followed by "#" and an anchor; it
resolves the path against the file's folder (then the repository root) and checks that the
file exists and has a heading with that slug. Exit code 1 if any link does not resolve.
"""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def slug(heading: str) -> str:
    s = re.sub(r"<[^>]+>", "", heading)  # inline HTML
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)  # links keep their text
    s = s.strip().lower()
    out: list[str] = []
    for ch in s:
        cat = unicodedata.category(ch)
        if ch in " -" or cat[0] in "LMN" or cat == "Pc":
            out.append(ch)
    return "".join(out).replace(" ", "-")


_anchors: dict[Path, set[str]] = {}


def anchors(path: Path) -> set[str]:
    if path not in _anchors:
        seen: dict[str, int] = {}
        found: set[str] = set()
        fence: str | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\s*(`{3,}|~{3,})", line)
            if m:
                mark = m.group(1)[0]
                if fence is None:
                    fence = mark
                elif fence == mark:
                    fence = None
                continue
            if fence:
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                found.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
        _anchors[path] = found
    return _anchors[path]


LINK = re.compile(
    r"\]\(([^)\s]*?)(?:\s+\"[^\"]*\")?\)|(?<![\w/.-])([\w./-]+\.md#[\w%-]+)"
)


def check(file: Path) -> list[tuple[int, str, str]]:
    bad: list[tuple[int, str, str]] = []
    text = file.read_text(encoding="utf-8", errors="replace")
    for no, line in enumerate(text.splitlines(), 1):
        for m in LINK.finditer(line):
            target = m.group(1) or m.group(2)
            if not target or re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            if path and not path.endswith(".md"):
                if (
                    file.suffix == ".md"
                    and m.group(1)
                    and not (file.parent / path).exists()
                    and not (ROOT / path).exists()
                ):
                    bad.append((no, target, "no such file"))
                continue
            if path:
                dest = (file.parent / path).resolve()
                if not dest.exists():
                    dest = (ROOT / path).resolve()
                if not dest.exists():
                    bad.append((no, target, "no such file"))
                    continue
            else:
                if file.suffix != ".md":
                    continue
                dest = file
            if anchor and anchor.lower() not in anchors(dest):
                bad.append((no, target, f"no heading '#{anchor}' in {dest}"))
    return bad


def main(args: list[str]) -> int:
    if args:
        files = [Path(a).resolve() for a in args]
    else:
        listed = subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "ls-files",
                "*.md",
                "*.rs",
                "*.py",
                "*.sh",
                "*.json",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        files = [ROOT / f for f in listed.stdout.split()]
    failed = 0
    for f in files:
        for no, target, why in check(f):
            where = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
            print(f"{where}:{no}: {target}: {why}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
