#!/usr/bin/env python3
"""Run templex and peer content extractors side by side on the same pages and score them
all with the same code.

    bash bench/peers/setup.sh && bench/peers/.venv/bin/python bench/peers/run.py
    bench/peers/.venv/bin/python bench/peers/run.py --datasets aeb --tools templex,trafilatura --limit 10

Datasets (from TEMPLEX_DATA or ../shared/data beside the repository):
  aeb       pagelevel/scrapinghub-aeb: 181 articles, AEB shingle metric against articleBody
  trafeval  pagelevel/trafilatura-eval: 990 pages, with/without snippet metric
  wcxb      pagelevel/wcxb-dev: 1,358 pages of 7 types (article, forum, product, listing,
            collection, service, documentation), WCXB's word-level metric, overall and per type
  mozilla   pagelevel/mozilla-readability-testpages: 130 pages of Readability.js's regression
            suite, its expected output as gold (text of expected.html), AEB shingle metric: a
            check on pages no rule was tuned on (a peer's output, not human gold)
  devgold   the dev gold key pages (gold/*.json), AEB shingle metric against the content text
            that `templex eval --export-content` writes (or --devgold-jsonl FILE)

Tools: templex (the release binary, one process per dataset or per site) and the peers
trafilatura, readability, justext, resiliparse, boilerpy3, rs-trafilatura (in-process).
See bench/peers/README.md for the metrics and the caveats.
"""

from __future__ import annotations

import argparse
import codecs
import gzip
import html.parser
import json
import logging
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

ALL_DATASETS = ["aeb", "trafeval", "wcxb", "daniel", "mozilla", "devgold"]
PEERS = ["trafilatura", "readability", "justext", "resiliparse", "boilerpy3", "rs-trafilatura", "chromerag"]
ALL_TOOLS = ["templex", *PEERS]
DIST_NAMES = {
    "trafilatura": "trafilatura",
    "readability": "readability-lxml",
    "justext": "jusText",
    "resiliparse": "Resiliparse",
    "boilerpy3": "boilerpy3",
    "rs-trafilatura": "rs-trafilatura",
    "chromerag": "chromerag",
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def data_dir():
    env = os.environ.get("TEMPLEX_DATA")
    return Path(env).resolve() if env else (REPO.parent / "shared" / "data").resolve()


# --------------------------------------------------------------------------------------
# Input: bytes and one decoded string shared by every peer
# --------------------------------------------------------------------------------------


def read_bytes(path):
    path = Path(path)
    raw = path.read_bytes()
    if path.suffix == ".gz" or raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw


_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_:.\-]+)", re.I)
# WHATWG label mapping for the labels these corpora use: Latin-1/ASCII mean windows-1252, etc.
_WHATWG = {
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "l1": "cp1252", "us-ascii": "cp1252", "ascii": "cp1252", "windows-1252": "cp1252",
    "iso-8859-9": "cp1254", "latin5": "cp1254", "tis-620": "cp874", "iso-8859-11": "cp874",
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "euc-kr": "cp949",
    "shift_jis": "cp932", "x-sjis": "cp932", "sjis": "cp932",
}


def decode_html(raw):
    """One decoded string for all peers: BOM, else UTF-8 if the bytes are valid UTF-8, else the
    first <meta> charset (WHATWG label mapping), else UTF-8 with replacement characters.
    Returns (text, how)."""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if raw.startswith(bom):
            return raw[len(bom):].decode(enc, "replace"), "bom:" + enc
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    m = _META_CHARSET.search(raw)
    if m:
        label = m.group(1).decode("ascii", "replace").strip().lower()
        name = _WHATWG.get(label, label)
        if not name.startswith("utf-16"):  # a utf-16 label in ASCII-compatible bytes means utf-8
            try:
                codecs.lookup(name)
                return raw.decode(name, "replace"), "meta:" + name
            except LookupError:
                pass
    return raw.decode("utf-8", "replace"), "utf-8-replace"


_BLOCK = {
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
    "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "li", "main", "menu",
    "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
}
_CELL = {"td", "th"}
_SKIP = {"script", "style", "noscript", "template", "head"}


def html_fragment_to_text(node):
    """Text of an lxml element (or an HTML string) with a line break at every block boundary and
    a space between table cells, unlike lxml's text_content(), which glues
    `<li>a</li><li>b</li>` into one token "ab"."""
    import lxml.html
    from lxml import etree

    if isinstance(node, str):
        if not node.strip():
            return ""
        node = lxml.html.fromstring(node)
    parts = []
    skip = 0
    for ev, n in etree.iterwalk(node, events=("start", "end")):
        is_el = isinstance(n.tag, str)
        tag = n.tag.lower() if is_el else ""
        if ev == "start":
            if not is_el or tag in _SKIP:
                skip += 1
                continue
            if skip:
                continue
            if tag in _BLOCK or tag == "br":
                parts.append("\n")
            elif tag in _CELL:
                parts.append(" ")
            if n.text:
                parts.append(n.text)
        else:
            if not is_el or tag in _SKIP:
                skip -= 1
            elif not skip:
                if tag in _BLOCK:
                    parts.append("\n")
                elif tag in _CELL:
                    parts.append(" ")
            if not skip and n is not node and n.tail:
                parts.append(n.tail)
    text = "".join(parts)
    text = re.sub(r"[^\S\n]+", " ", text)
    text = re.sub(r" ?\n[\n ]*", "\n", text)
    return text.strip()


# --------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------

# The AEB evaluate.py tokenizer, verbatim: no lowercasing (IGNORECASE is a no-op for \w+).
_TOKEN_RE = re.compile(r"\w+", re.UNICODE | re.MULTILINE | re.IGNORECASE | re.DOTALL)


def shingles(text, n=4):
    """Multiset of n-token shingles. Like AEB's _ngrams: a text with fewer than n tokens (but at
    least one) is one shingle of all its tokens; a text without tokens has no shingle."""
    tokens = _TOKEN_RE.findall(text or "")
    return Counter(tuple(tokens[i:i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens)


def shingle_match(true, pred, n=4):
    """(tp, fp, fn) over 4-token shingles, normalised to sum to 1 (all 0 when both are empty)."""
    t, p = shingles(true, n), shingles(pred, n)
    tp = fp = fn = 0.0
    for key in t.keys() | p.keys():
        tc, pc = t.get(key, 0), p.get(key, 0)
        tp += min(tc, pc)
        fp += max(0, pc - tc)
        fn += max(0, tc - pc)
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s > 0 else (0.0, 0.0, 0.0)


def _prec(tp, fp, fn):
    return 1.0 if fp == fn == 0 else (0.0 if tp == fp == 0 else tp / (tp + fp))


def _rec(tp, fp, fn):
    return 1.0 if fp == fn == 0 else (0.0 if tp == fn == 0 else tp / (tp + fn))


def aeb_scores(tpfpfn):
    """AEB metrics_from_tp_fp_fns: mean precision over pages with tp+fp > 0, mean recall over
    pages with tp+fn > 0, F1 = harmonic mean of the two means. A mean over no page is 0 here
    (AEB's own script would raise)."""
    ps = [_prec(*x) for x in tpfpfn if x[0] + x[1] > 0]
    rs = [_rec(*x) for x in tpfpfn if x[0] + x[2] > 0]
    p = statistics.fmean(ps) if ps else 0.0
    r = statistics.fmean(rs) if rs else 0.0
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"precision": p, "recall": r, "f1": f1}


def aeb_bootstrap(tpfpfn, n_boot, seed=0):
    """1.96 x bootstrap standard deviation, as AEB reports (± 95% CI)."""
    if n_boot < 2 or len(tpfpfn) < 2:
        return {}
    rng = random.Random(seed)
    vals = {"precision": [], "recall": [], "f1": []}
    n = len(tpfpfn)
    for _ in range(n_boot):
        s = aeb_scores([tpfpfn[rng.randrange(n)] for _ in range(n)])
        for k in vals:
            vals[k].append(s[k])
    return {k + "_ci": 1.96 * statistics.stdev(v) for k, v in vals.items()}


_WORD_RE = re.compile(r"\w+")


def token_prf(gold, pred, pattern):
    """WCXB's page score over the lower-cased tokens `pattern` finds: precision =
    |pred & gold| / |pred|, recall = |pred & gold| / |gold| over token multisets, F1 from
    those. An empty gold scores 1 only for an empty prediction; an empty prediction of a
    non-empty gold scores 0."""
    g = Counter(pattern.findall((gold or "").lower()))
    p = Counter(pattern.findall((pred or "").lower()))
    if not g:
        return (1.0, 1.0, 1.0) if not p else (0.0, 0.0, 0.0)
    if not p:
        return (0.0, 0.0, 0.0)
    common = sum((g & p).values())
    prec, rec = common / sum(p.values()), common / sum(g.values())
    return (prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0)


def wcxb_prf(gold, pred):
    """WCXB's page score: `\\w+` tokens (see token_prf)."""
    return token_prf(gold, pred, _WORD_RE)


# DAnIEL: every Han, kana or hangul character is a token of its own (`\w+` would make a
# whole Chinese sentence one token); `\w+` runs otherwise.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_DANIEL_RE = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")


def daniel_prf(gold, pred):
    """WCXB's page score (see token_prf) over DAnIEL's tokens."""
    return token_prf(gold, pred, _DANIEL_RE)


def wcxb_scores(per, types):
    """Macro averages over pages of precision, recall and F1, overall and per page type."""
    def mean(rows):
        return {k: statistics.fmean(r[i] for r in rows) if rows else 0.0
                for i, k in enumerate(("precision", "recall", "f1"))}
    out = mean(per)
    by_type = {}
    for t, row in zip(types, per):
        by_type.setdefault(t, []).append(row)
    out["types"] = {t: {**mean(rows), "pages": len(rows)} for t, rows in sorted(by_type.items())}
    return out


def norm_ws(text):
    return re.sub(r"\s+", " ", text).strip()


def snippet_counts(item, text):
    """trafilatura tests/eval_common.count_item: whitespace-normalised, case-sensitive substring
    match. Returns (tp, fp, fn, tn) for one page."""
    res = norm_ws(text or "")
    tp = sum(1 for w in item["with"] if norm_ws(w) in res)
    fp = sum(1 for w in item["without"] if norm_ws(w) in res)
    return tp, fp, len(item["with"]) - tp, len(item["without"]) - fp


def snippet_scores(counts):
    tp = sum(c[0] for c in counts)
    fp = sum(c[1] for c in counts)
    fn = sum(c[2] for c in counts)
    tn = sum(c[3] for c in counts)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    total = tp + fp + fn + tn
    return {
        "precision": p,
        "recall": r,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0,
        "accuracy": (tp + tn) / total if total else 0.0,
        "without_accuracy": tn / (tn + fp) if tn + fp else 0.0,
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
    }


# --------------------------------------------------------------------------------------
# Peers (in-process, on the decoded string)
# --------------------------------------------------------------------------------------


def make_peer(name, opts):
    """Return fn(html: str, url: str | None) -> str. Imports lazily; ImportError = unavailable."""
    if name == "trafilatura":
        from trafilatura import extract

        # trafilatura's own benchmark settings (tests/eval_common.EXTRACT_OPTS), default
        # (non-fast) mode with its readability/jusText fallbacks, default favor settings.
        def run(html, url):
            return extract(html, url=url, include_comments=False, include_tables=True,
                           include_formatting=False) or ""
        return run
    if name == "readability":
        from readability import Document

        def run(html, url):
            return html_fragment_to_text(Document(html).summary(html_partial=True))
        return run
    if name == "justext":
        import justext

        if opts.justext_stoplist == "all":
            stop = frozenset().union(*(justext.get_stoplist(lang) for lang in justext.get_stoplists()))
        else:
            stop = justext.get_stoplist("English")

        # the parameters AEB's run_justext.py and trafilatura's evaluate.py both use
        def run(html, url):
            pars = justext.justext(html, stop, 50, 200, 0.1, 0.2, 0.2, 200, True)
            return "\n".join(p.text for p in pars if not p.is_boilerplate)
        return run
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text

        def run(html, url):
            return extract_plain_text(html, main_content=True)
        return run
    if name == "boilerpy3":
        from boilerpy3 import extractors

        ext = extractors.ArticleExtractor()

        def run(html, url):
            return ext.get_content(html) or ""
        return run
    if name == "rs-trafilatura":
        import rs_trafilatura

        def run(html, url):
            return rs_trafilatura.extract(html, url=url).main_content or ""
        return run
    if name == "chromerag":
        from chromerag import ChromeRAG

        cr = ChromeRAG()

        def run(html, url):
            return markdown_to_text(cr.extract(html, url=url).markdown or "")
        return run
    raise ValueError(name)


_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def markdown_to_text(md):
    """A peer's Markdown read as text: the front matter dropped, links and images as their
    text (the targets are not text a reader sees)."""
    return _MD_LINK.sub(r"\1", _FRONT_MATTER.sub("", md, count=1))


def dist_version(name):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DIST_NAMES[name])
    except PackageNotFoundError:
        return None


# --------------------------------------------------------------------------------------
# templex (the binary, one process per call)
# --------------------------------------------------------------------------------------


def templex_bin():
    env = os.environ.get("TEMPLEX_BIN")
    return Path(env) if env else REPO / "target" / "release" / "templex"


def templex_version(binary):
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or None
    except Exception:
        return None


def _total_ms(obj):
    t = obj.get("timings")
    if isinstance(t, dict):
        v = t.get("total_ms")
        if isinstance(v, (int, float)):
            return float(v)
    return None


def run_templex(binary, options, files, timeout):
    """`templex content OPTIONS --format jsonl -- FILES...` once. Returns (per-file results,
    wall seconds). A result is {"text", "error", "total_ms", "method"}; results are matched to
    files by the `input` key, else by line order."""
    cmd = [str(binary), "content", *options, "--format", "jsonl", "--", *map(str, files)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=timeout)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or b"", (e.stderr or b"") + f"\ntimed out after {timeout}s".encode()
    except OSError as e:
        rc, out, err = "oserror", b"", str(e).encode()
    wall = time.perf_counter() - t0
    err_line = next((l for l in reversed(err.decode("utf-8", "replace").strip().splitlines()) if l.strip()), "")
    objs = []
    for line in out.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            o = json.loads(line)
            objs.append(o if isinstance(o, dict) else {"error": f"not an object: {line[:80]}"})
        except json.JSONDecodeError:
            objs.append({"error": f"unparsable line: {line[:80]}"})
    by_input = {o["input"]: o for o in objs if isinstance(o.get("input"), str)}
    results = []
    for i, f in enumerate(files):
        o = by_input.get(str(f))
        if o is None and len(objs) == len(files):
            o = objs[i]
        if o is None:
            why = f"no output line (exit {rc}: {err_line})" if rc != 0 else "no output line"
            results.append({"text": "", "error": why, "total_ms": None, "method": None})
            continue
        e = o.get("error")
        results.append({
            "text": "" if e else (o.get("text") or ""),
            "error": str(e) if e else None,
            "total_ms": _total_ms(o),
            "method": o.get("method"),
        })
    return results, wall, rc, err_line


# --------------------------------------------------------------------------------------
# Datasets
# --------------------------------------------------------------------------------------


@dataclass
class Page:
    id: str
    path: Path            # the file templex reads (.gz allowed)
    url: str | None
    gold: object          # str (AEB and WCXB metrics) or {"with", "without"} (snippet metric)
    site: str | None = None
    kind: str | None = None  # WCXB page type
    html: str = ""        # decoded once, shared by all peers
    decode: str = ""


@dataclass
class Dataset:
    name: str
    metric: str           # "aeb", "snippets" or "wcxb"
    pages: list
    # templex calls: list of (options, [page indices])
    templex_calls: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def load_aeb(ddir, limit):
    base = ddir / "pagelevel" / "scrapinghub-aeb"
    gt = json.loads((base / "ground-truth.json").read_text(encoding="utf-8"))
    pages = [Page(k, base / "html" / f"{k}.html.gz", v.get("url"), v.get("articleBody") or "")
             for k, v in sorted(gt.items())]
    pages = pages[:limit] if limit else pages
    return Dataset("aeb", "aeb", pages, [([], list(range(len(pages))))])


_TEXT_BLOCKS = frozenset({"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "blockquote",
                          "br", "table", "ul", "ol", "dl", "dt", "dd", "figure", "figcaption", "section"})


class _TextOf(html.parser.HTMLParser):
    """The text of an HTML fragment, blocks on lines of their own, scripts and styles left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in _TEXT_BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in _TEXT_BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_text(markup):
    """The text of `markup` ([`_TextOf`]), whitespace runs in a line collapsed."""
    t = _TextOf()
    t.feed(markup)
    t.close()
    lines = (" ".join(line.split()) for line in "".join(t.parts).splitlines())
    return "\n".join(line for line in lines if line)


def load_mozilla(ddir, limit):
    base = ddir / "pagelevel" / "mozilla-readability-testpages" / "test" / "test-pages"
    pages = []
    for d in sorted(p for p in base.iterdir() if (p / "source.html.gz").is_file()):
        expected = d / "expected.html.gz"
        gold = html_text(gzip.decompress(expected.read_bytes()).decode("utf-8", "replace")) if expected.is_file() else ""
        pages.append(Page(d.name, d / "source.html.gz", None, gold))
    pages = pages[:limit] if limit else pages
    return Dataset("mozilla", "aeb", pages, [([], list(range(len(pages))))])


def load_trafeval(ddir, limit):
    base = ddir / "pagelevel" / "trafilatura-eval" / "tests"
    ev = json.loads((base / "evaldata.json").read_text(encoding="utf-8"))
    pages, missing = [], 0
    for url, item in ev.items():
        # trafilatura's eval_common.resolve order: cache/, then eval/
        path = next((p for p in (base / "cache" / (item["file"] + ".gz"), base / "eval" / (item["file"] + ".gz"))
                     if p.is_file()), None)
        if path is None:
            missing += 1
            continue
        pages.append(Page(item["file"], path, url, {"with": item["with"], "without": item["without"]}))
    pages = pages[:limit] if limit else pages
    ds = Dataset("trafeval", "snippets", pages, [([], list(range(len(pages))))])
    if missing:
        ds.notes.append(f"{missing} evaldata entries without an HTML file were left out")
    return ds


WCXB_TYPES = ["article", "forum", "product", "listing", "collection", "service", "documentation"]


def load_wcxb(ddir, limit):
    base = ddir / "pagelevel" / "wcxb-dev"
    pages = []
    for gf in sorted((base / "ground-truth").glob("*.json")):
        g = json.loads(gf.read_text(encoding="utf-8"))
        kind = ((g.get("_internal") or {}).get("page_type") or {}).get("primary") or "unknown"
        kind = "collection" if kind == "category" else kind
        gt = g.get("ground_truth") or {}
        pages.append(Page(gf.stem, base / "html" / f"{gf.stem}.html.gz", g.get("url"),
                          gt.get("main_content") or "", kind=kind))
    pages = pages[:limit] if limit else pages
    return Dataset("wcxb", "wcxb", pages, [([], list(range(len(pages))))])


DANIEL_LANGUAGES = ["chinese", "english", "greek", "polish", "russian"]


def load_daniel(ddir, limit):
    """daniel-dev: multilingual news pages with hand-cleaned main text; the language is the
    page type. The pages carry no URL: templex and the peers get none."""
    base = ddir / "pagelevel" / "daniel-dev"
    pages = []
    for gf in sorted((base / "ground-truth").glob("*.json")):
        g = json.loads(gf.read_text(encoding="utf-8"))
        kind = ((g.get("_internal") or {}).get("page_type") or {}).get("primary") or "unknown"
        gt = g.get("ground_truth") or {}
        pages.append(Page(gf.stem, base / "html" / f"{gf.stem}.html.gz", None,
                          gt.get("main_content") or "", site=g.get("site"), kind=kind))
    pages = pages[:limit] if limit else pages
    return Dataset("daniel", "daniel", pages, [([], list(range(len(pages))))])


def export_devgold(binary, ddir, out_path):
    cmd = [str(binary), "eval", "--gold", str(ddir / "gold"), "--data", str(ddir), "--export-content", str(out_path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{' '.join(cmd[1:3])} ... failed: {e}"
    if proc.returncode != 0 or not Path(out_path).is_file() or Path(out_path).stat().st_size == 0:
        last = (proc.stderr.strip().splitlines() or [""])[-1]
        return f"`templex eval --export-content` failed (exit {proc.returncode}): {last}"
    return None


def load_devgold(ddir, limit, jsonl, binary):
    notes = []
    tmp = None
    if jsonl is None:
        if not binary.is_file():
            log("devgold: no --devgold-jsonl and no templex binary to export the content text; skipped")
            return None
        tmp = tempfile.NamedTemporaryFile(prefix="devgold-", suffix=".jsonl", delete=False)
        tmp.close()
        err = export_devgold(binary, ddir, tmp.name)
        if err:
            os.unlink(tmp.name)
            log(f"devgold: {err}; skipped (pass --devgold-jsonl FILE to use an existing export)")
            return None
        jsonl = Path(tmp.name)
        notes.append("gold content text exported by `templex eval --export-content` in this run")
    else:
        notes.append(f"gold content text read from {jsonl}")
    rows = [json.loads(l) for l in Path(jsonl).read_text(encoding="utf-8").splitlines() if l.strip()]
    if any(r.get("standin") for r in rows):
        notes.append("STAND-IN gold written by devgold_standin.py (lxml parser), not templex's export: "
                     "provisional figures, do not publish")
    if tmp is not None:
        os.unlink(tmp.name)
    golds = {}
    for gf in sorted((ddir / "gold").glob("*.json")):
        g = json.loads(gf.read_text(encoding="utf-8"))
        golds[g["site"]] = g
    pages = []
    for r in rows:
        path = Path(r["path"])
        if not path.is_absolute():
            path = (ddir / golds[r["site"]]["dir"] / r["page"]) if r.get("site") in golds else ddir / path
        pages.append(Page(f"{r['site']}/{r['page']}", path, r.get("url"), r.get("content_text") or "", site=r["site"]))
    pages = pages[:limit] if limit else pages
    calls, unknown = [], []
    by_site = {}
    for i, p in enumerate(pages):
        by_site.setdefault(p.site, []).append(i)
    for site, idx in by_site.items():
        g = golds.get(site)
        if g is None:
            unknown.append(site)
            calls.append(([], idx))  # page-level only: no site information
            continue
        opts = ["--site", str((ddir / g["dir"]).resolve())]
        if g.get("url_prefixes"):
            opts += ["--url-prefix", *g["url_prefixes"]]
        calls.append((opts, idx))
    if unknown:
        notes.append(f"no gold file for sites {unknown}: templex ran without --site there")
    return Dataset("devgold", "aeb", pages, calls, notes)


# --------------------------------------------------------------------------------------
# Running and scoring
# --------------------------------------------------------------------------------------


def score_tool(ds, texts):
    if ds.metric in ("wcxb", "daniel"):
        prf = wcxb_prf if ds.metric == "wcxb" else daniel_prf
        per = [prf(p.gold, t) for p, t in zip(ds.pages, texts)]
        return per, wcxb_scores(per, [p.kind for p in ds.pages])
    if ds.metric == "aeb":
        per = [shingle_match(p.gold, t) for p, t in zip(ds.pages, texts)]
        return per, aeb_scores(per)
    per = [snippet_counts(p.gold, t) for p, t in zip(ds.pages, texts)]
    return per, snippet_scores(per)


def run_dataset(ds, tools, peers, args, binary):
    n = len(ds.pages)
    decode_stats = Counter()
    for p in ds.pages:
        p.html, p.decode = decode_html(read_bytes(p.path))
        decode_stats[p.decode.split(":")[0] if p.decode.startswith("meta") else p.decode] += 1
    out = {"pages": n, "metric": ds.metric, "notes": ds.notes, "decode": dict(decode_stats), "tools": {}}
    for tool in tools:
        texts = [""] * n
        errors = [None] * n
        info = {}
        if tool == "templex":
            if not binary.is_file():
                log(f"{ds.name}: templex binary {binary} missing (build it: cargo build --release -p templex-cli); skipped")
                out["tools"]["templex"] = {"skipped": f"binary {binary} missing"}
                continue
            wall = 0.0
            total_ms = []
            methods = Counter()
            proc_errors = []
            for opts, idx in ds.templex_calls:
                log(f"{ds.name}: templex content {' '.join(opts)} on {len(idx)} pages ...")
                opts = [*opts, *args.templex_args.split()]
                with tempfile.TemporaryDirectory() as tmp:
                    # The pages' addresses, as the peers that take one get them.
                    if args.urls and "--site" not in opts:
                        listed = [(ds.pages[i].path, ds.pages[i].url) for i in idx if ds.pages[i].url]
                        if listed:
                            tsv = Path(tmp) / "page-urls.tsv"
                            tsv.write_text("".join(f"{f}\t{u}\n" for f, u in listed), encoding="utf-8")
                            opts = [*opts, "--page-urls", str(tsv)]
                    res, w, rc, err_line = run_templex(binary, opts, [ds.pages[i].path for i in idx],
                                                       args.templex_timeout)
                wall += w
                if rc != 0:
                    proc_errors.append(f"exit {rc}: {err_line}")
                for i, r in zip(idx, res):
                    texts[i], errors[i] = r["text"], r["error"]
                    if r["total_ms"] is not None:
                        total_ms.append(r["total_ms"])
                    if r["method"] is not None:
                        methods[str(r["method"])] += 1
            info = {
                "version": templex_version(binary),
                "ms_per_page": 1000 * wall / n if n else 0.0,
                "wall_s": wall,
                "processes": len(ds.templex_calls),
                "timings_total_ms_mean": statistics.fmean(total_ms) if total_ms else None,
                "timings_total_ms_pages": len(total_ms),
                "methods": dict(methods),
                "process_errors": proc_errors,
            }
        else:
            fn = peers.get(tool)
            if fn is None:
                continue
            # Timed from the file, as templex is (it reads, unzips and decodes its inputs):
            # reading and decoding again here, then the extraction alone.
            secs = 0.0
            extract_secs = 0.0
            for i, p in enumerate(ds.pages):
                t0 = time.perf_counter()
                html, _ = decode_html(read_bytes(p.path))
                t1 = time.perf_counter()
                try:
                    texts[i] = fn(html, p.url if args.urls else None) or ""
                except Exception as e:  # a crash is an empty extraction, counted as an error
                    texts[i], errors[i] = "", f"{type(e).__name__}: {str(e)[:200]}"
                t2 = time.perf_counter()
                secs += t2 - t0
                extract_secs += t2 - t1
                if (i + 1) % 100 == 0:
                    log(f"{ds.name}: {tool} {i + 1}/{n}")
            info = {"version": dist_version(tool), "ms_per_page": 1000 * secs / n if n else 0.0, "wall_s": secs,
                    "extract_ms_per_page": 1000 * extract_secs / n if n else 0.0}
        per, scores = score_tool(ds, texts)
        if ds.metric == "aeb":
            scores.update(aeb_bootstrap(per, args.bootstrap))
        errs = [(ds.pages[i].id, e) for i, e in enumerate(errors) if e]
        info.update({
            "scores": scores,
            "errors": len(errs),
            "error_examples": [f"{pid}: {e}" for pid, e in errs[:5]],
            "empty": sum(1 for t in texts if not t.strip()),
            "per_page": {p.id: ([round(x, 4) for x in c] if ds.metric != "snippets" else list(c))
                         for p, c in zip(ds.pages, per)},
        })
        out["tools"][tool] = info
        s = scores
        log(f"{ds.name}: {tool:<15} P={s['precision']:.3f} R={s['recall']:.3f} F1={s['f1']:.3f} "
            f"{info['ms_per_page']:.1f} ms/page errors={len(errs)}")
        if args.dump:
            d = Path(args.dump) / ds.name
            d.mkdir(parents=True, exist_ok=True)
            with open(d / f"{tool}.jsonl", "w", encoding="utf-8") as f:
                for p, t, e in zip(ds.pages, texts, errors):
                    f.write(json.dumps({"id": p.id, "text": t, "error": e}, ensure_ascii=False) + "\n")
    return out


TITLES = {
    "aeb": "scrapinghub-aeb (article body, 4-gram shingle P/R/F1)",
    "trafeval": "trafilatura-eval (with/without snippets)",
    "devgold": "dev gold content text (4-gram shingle P/R/F1)",
    "mozilla": "mozilla-readability-testpages (Readability.js's expected output as gold, 4-gram shingle P/R/F1)",
    "wcxb": "WCXB dev (word-level P/R/F1, macro over pages)",
    "daniel": "daniel-dev (word-level P/R/F1, one token per CJK character, macro over pages)",
}


def ms_cell(tool, t):
    """ms/page from the file, and in parentheses the extraction alone (templex: the mean of
    its own `timings.total_ms`)."""
    ms = f"{t['ms_per_page']:.1f}"
    alone = t.get("timings_total_ms_mean") if tool == "templex" else t.get("extract_ms_per_page")
    return ms + (f" ({alone:.1f})" if alone is not None else "")


def markdown_wcxb(res, name="wcxb"):
    tools = [(t, v) for t, v in res["tools"].items() if "skipped" not in v]
    kinds = WCXB_TYPES if name == "wcxb" else DANIEL_LANGUAGES
    types = [k for k in kinds if any(k in v["scores"]["types"] for _, v in tools)]
    counts = {k: next(v["scores"]["types"][k]["pages"] for _, v in tools if k in v["scores"]["types"]) for k in types}
    lines = [f"### {TITLES[name]} — {res['pages']} pages", ""]
    head = ("| tool | version | P | R | F1 | " + " | ".join(f"{k} ({counts[k]})" for k in types)
            + " | ms/page | errors | empty |")
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for tool, t in tools:
        s = t["scores"]
        cells = [tool, t.get("version") or "?", f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}"]
        cells += [f"{s['types'][k]['f1']:.3f}" if k in s["types"] else "—" for k in types]
        cells += [ms_cell(tool, t), str(t["errors"]), str(t["empty"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"- per-{'type' if name == 'wcxb' else 'language'} columns: F1 (pages)"]
    lines += [f"- {t}: skipped ({v['skipped']})" for t, v in res["tools"].items() if "skipped" in v]
    lines.append(f"- decoding of the pages for the peers: {res['decode']}")
    return "\n".join(lines)


def markdown(name, res):
    if res["metric"] in ("wcxb", "daniel"):
        return markdown_wcxb(res, res["metric"])
    snip = res["metric"] == "snippets"
    lines = [f"### {TITLES.get(name, name)} — {res['pages']} pages", ""]
    if snip:
        head = "| tool | version | P | R | F1 | acc. `without` | acc. all | ms/page | errors | empty |"
    else:
        head = "| tool | version | P | R | F1 | F1 95% CI | ms/page | errors | empty |"
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    foot = []
    for tool, t in res["tools"].items():
        if "skipped" in t:
            foot.append(f"- {tool}: skipped ({t['skipped']})")
            continue
        s = t["scores"]
        ms = ms_cell(tool, t)
        cells = [tool, t.get("version") or "?", f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}"]
        if snip:
            cells += [f"{s['without_accuracy']:.3f}", f"{s['accuracy']:.3f}"]
        else:
            cells += [f"± {s['f1_ci']:.3f}" if "f1_ci" in s else "—"]
        cells += [ms, str(t["errors"]), str(t["empty"])]
        lines.append("| " + " | ".join(cells) + " |")
        if tool == "templex":
            foot.append(f"- templex: ms/page = wall time of {t['processes']} `templex content` process(es) / pages"
                        + " (reading, unzipping, decoding, extracting, writing JSON lines)"
                        + (f"; in parentheses the mean of its own `timings.total_ms` over {t['timings_total_ms_pages']} pages"
                           if t.get("timings_total_ms_mean") is not None else "; no `timings.total_ms` in its output"))
            for pe in t.get("process_errors", [])[:3]:
                foot.append(f"- templex process error: {pe}")
        for ex in t["error_examples"][:2]:
            foot.append(f"- {tool} error e.g. {ex}")
    foot.append("- peers: ms/page = reading, unzipping and decoding the file, then extracting, in this"
                " process; in parentheses the extraction alone")
    lines += [""] + foot + [f"- note: {n}" for n in res.get("notes", [])]
    lines.append(f"- decoding of the pages for the peers: {res['decode']}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(ALL_DATASETS), help=f"comma list of {ALL_DATASETS}")
    ap.add_argument("--tools", default=",".join(ALL_TOOLS), help=f"comma list of {ALL_TOOLS}")
    ap.add_argument("--limit", type=int, default=0, help="first N pages of each dataset (0 = all)")
    ap.add_argument("--out", default=str(HERE / "results.json"), help="results JSON (default bench/peers/results.json)")
    ap.add_argument("--devgold-jsonl", type=Path, help="use this content export instead of running `templex eval --export-content`")
    ap.add_argument("--dump", help="write every extraction to DIR/<dataset>/<tool>.jsonl")
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap samples for the AEB-metric CI (0 = none)")
    ap.add_argument("--templex-args", default="",
                    help="extra options for every `templex content` call (experiments: '--spread 0')")
    ap.add_argument("--templex-timeout", type=int, default=3600, help="seconds per templex process")
    ap.add_argument("--no-urls", dest="urls", action="store_false",
                    help="do not pass page URLs to the tools that take one (templex, trafilatura, rs-trafilatura, ChromeRAG)")
    ap.add_argument("--justext-stoplist", choices=["english", "all"], default="english",
                    help="jusText stoplist: English (default) or the union of all its languages")
    args = ap.parse_args()

    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    for d in datasets:
        if d not in ALL_DATASETS:
            ap.error(f"unknown dataset {d!r}; choose from {ALL_DATASETS}")
    for t in tools:
        if t not in ALL_TOOLS:
            ap.error(f"unknown tool {t!r}; choose from {ALL_TOOLS}")

    logging.disable(logging.CRITICAL)  # trafilatura & co. log per page
    warnings.filterwarnings("ignore")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))

    ddir = data_dir()
    if not ddir.is_dir():
        sys.exit(f"data directory {ddir} not found (set TEMPLEX_DATA)")
    binary = templex_bin()
    if "templex" in tools and not binary.is_file():
        log(f"templex binary {binary} missing: build it with `cargo build --release -p templex-cli`; templex skipped")

    peers, unavailable = {}, {}
    warm = "<html><head><title>t</title></head><body><p>" + "Some warm-up text for the extractor. " * 20 + "</p></body></html>"
    for t in tools:
        if t == "templex":
            continue
        try:
            fn = make_peer(t, args)
        except ImportError as e:
            unavailable[t] = f"not installed ({e})"
            log(f"{t}: not installed, skipped ({e}); run bench/peers/setup.sh")
            continue
        try:
            fn(warm, "https://example.com/a")  # pay imports and one-time set-up before timing
        except Exception:
            pass
        peers[t] = fn

    results = {
        "meta": {
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
            "data_dir": str(ddir),
            "templex_bin": str(binary),
            "templex_version": templex_version(binary) if binary.is_file() else None,
            "peer_versions": {t: dist_version(t) for t in PEERS if t in tools},
            "unavailable": unavailable,
            "options": {"limit": args.limit, "urls_to_peers": args.urls, "justext_stoplist": args.justext_stoplist,
                        "bootstrap": args.bootstrap},
        },
        "datasets": {},
    }
    tables = []
    for d in datasets:
        if d == "aeb":
            ds = load_aeb(ddir, args.limit)
        elif d == "trafeval":
            ds = load_trafeval(ddir, args.limit)
        elif d == "wcxb":
            ds = load_wcxb(ddir, args.limit)
        elif d == "daniel":
            ds = load_daniel(ddir, args.limit)
        elif d == "mozilla":
            ds = load_mozilla(ddir, args.limit)
        else:
            ds = load_devgold(ddir, args.limit, args.devgold_jsonl, binary)
            if ds is None:
                results["datasets"][d] = {"skipped": "no dev-gold content export (see log)"}
                continue
        log(f"== {d}: {len(ds.pages)} pages")
        res = run_dataset(ds, tools, peers, args, binary)
        for t, why in unavailable.items():
            res["tools"][t] = {"skipped": why}
        results["datasets"][d] = res
        tables.append(markdown(d, res))
        print(tables[-1] + "\n", flush=True)

    text = json.dumps(results, indent=1, ensure_ascii=False)
    text = re.sub(r"\[\s+([-\d.e,\s]+?)\s+\]", lambda m: "[" + re.sub(r"\s+", "", m.group(1)) + "]", text)
    Path(args.out).write_text(text, encoding="utf-8")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
