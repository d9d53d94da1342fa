#!/usr/bin/env bash
# Build the seed corpora of the fuzz targets under fuzz/corpus/<target>/ from the dev data.
#
#   bash fuzz/seed.sh            # data at ${TEMPLEX_DATA:-../shared/data} (relative to the repo)
#   TEMPLEX_DATA=/path bash fuzz/seed.sh
#
# The corpora are copies of third-party pages: fuzz/corpus is gitignored, never commit it.
# Seeds are added next to what is already there (libFuzzer's own finds are kept); a seed's
# name is the hash of its bytes, so running this twice adds nothing. Needs python3.
#
# What each target gets (every seed starts with the target's control byte, see
# fuzz/fuzz_targets/*.rs):
#   parse, content  ~320 pages (page-level sets and site mirrors), cut at 64 KiB
#   template        ~60 small sites: 4 pages of one mirror directory, each cut at 32 KiB,
#                   joined by the page separator, with and without the harness's menu
#   warc            small WARCs written here (responses, a resource, a redirect, a revisit,
#                   chunked and gzip/deflate-encoded payloads; plain and per-record gzip)
#   batch           pages joined by the separator (the harness writes the WARC), and the
#                   small WARCs above as they are
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"
data="${TEMPLEX_DATA:-../shared/data}"
if [ ! -d "$data/sites" ]; then
    echo "seed.sh: no dev data at $data (set TEMPLEX_DATA); only the built-in seeds are written" >&2
fi
DATA="$data" CORPUS="$here/corpus" python3 - <<'PY'
import gzip, hashlib, io, os, zlib

data = os.environ["DATA"]
corpus = os.environ["CORPUS"]
SEP = b"\0PAGE\0"
added = {}


def put(target, blob):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, hashlib.sha1(blob).hexdigest())
    if not os.path.exists(p):
        with open(p, "wb") as f:
            f.write(blob)
        added[target] = added.get(target, 0) + 1


def read(path, cap):
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw[:cap]


def spread(items, n):
    """n items spread evenly over the sorted list (deterministic)."""
    items = sorted(items)
    if len(items) <= n:
        return items
    return [items[i * len(items) // n] for i in range(n)]


# Pages: the page-level sets and the mirrors.
pagelevel, mirror_dirs = [], {}
for root, _, files in os.walk(os.path.join(data, "pagelevel")):
    pagelevel += [os.path.join(root, f) for f in files if f.endswith((".html", ".html.gz", ".htm"))]
for root, _, files in os.walk(os.path.join(data, "sites")):
    html = [os.path.join(root, f) for f in files if f.endswith((".html", ".htm"))]
    if html:
        mirror_dirs[root] = sorted(html)
mirror_pages = [p for ps in mirror_dirs.values() for p in ps]

pages = spread(pagelevel, 160) + spread(mirror_pages, 160)
small = []
for i, p in enumerate(pages):
    body = read(p, 64 * 1024)
    # parse: the control byte cycles through the transport charsets; content: none, or
    # comments kept / nothing dropped.
    put("parse", bytes([i % 8]) + body)
    put("content", bytes([(0, 8, 16)[i % 3]]) + body)
    if len(body) <= 24 * 1024:
        small.append(body)

# Hand-written pages: the odd corners (no markup, deep nesting, tables, frames, templates,
# foreign content, a BOM, a meta charset the bytes contradict).
extra = [
    b"",
    b"plain text, no markup",
    b"<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>",
    b"<div>" * 600 + b"deep" + b"</div>" * 600,
    b"<table><tr><td>a<td>b<tr><td>c</table><select><option>o<optgroup>g</select>",
    b"<frameset><frame src=a.html><noframes><p>no</p></noframes></frameset>",
    b"<template><p>in template</p></template><svg><foreignObject><p>x</svg><math><mi>y</math>",
    b"\xef\xbb\xbf<meta charset=windows-1252><p>caf\xc3\xa9</p>",
    b"<meta charset=utf-8><p>caf\xe9 cr\xe8me</p>",
    b"\xff\xfe<\x00p\x00>\x00x\x00",
    b"<script>document.write('<p>')</script><style>p{}</style><noscript><p>n</p></noscript>",
    b"<article><h1>Title</h1><p>" + b"word " * 200 + b"</p><figure><img src=a><figcaption>cap</figcaption></figure></article>",
]
for i, body in enumerate(extra):
    put("parse", bytes([i % 8]) + body)
    put("content", bytes([0]) + body)

# template: 4 pages of one mirror directory (siblings more often than not).
dirs = [d for d, ps in sorted(mirror_dirs.items()) if len(ps) >= 4]
for i, d in enumerate(spread(dirs, 30)):
    four = [read(p, 32 * 1024) for p in spread(mirror_dirs[d], 4)]
    joined = SEP.join(four)
    put("template", bytes([0]) + joined)          # HybEx, the site's own links
    put("template", bytes([8 | (i % 8)]) + joined)  # with the menu, every method
for i, body in enumerate(extra[2:]):
    put("template", bytes([8]) + body)


# WARCs: records laid out as templex's WarcWriter writes them, plus what crawlers write
# and the writer does not (chunked and compressed payloads, redirects, revisits, 1.0).
def record(wtype, uri, ctype, block, version=b"WARC/1.1", extra_fields=()):
    rid = hashlib.sha1(wtype.encode() + uri.encode() + block).hexdigest()
    head = [
        version,
        b"WARC-Type: " + wtype.encode(),
        b"WARC-Record-ID: <urn:uuid:" + rid[:8].encode() + b"-0000-0000-0000-" + rid[8:20].encode() + b">",
        b"WARC-Date: 2024-01-01T00:00:00Z",
    ]
    if uri:
        head.append(b"WARC-Target-URI: " + uri.encode())
    head += list(extra_fields)
    head += [b"Content-Type: " + ctype.encode(), b"Content-Length: " + str(len(block)).encode()]
    return b"\r\n".join(head) + b"\r\n\r\n" + block + b"\r\n\r\n"


def http(status, headers, body, length=True):
    lines = [b"HTTP/1.1 %d %s" % (status, b"OK" if status == 200 else b"Found")]
    lines += [k + b": " + v for k, v in headers]
    if length:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def chunked(body, n=700):
    out = b""
    for i in range(0, len(body), n):
        part = body[i:i + n]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def response(uri, body, headers=((b"Content-Type", b"text/html"),), status=200, length=True):
    return record("response", uri, "application/http; msgtype=response", http(status, list(headers), body, length))


warcinfo = record("warcinfo", "", "application/warc-fields", b"software: templex fuzz seeds\r\n")
warcs = []
site_pages = [b for b in small if len(b) <= 12 * 1024]
for i in range(8):
    host = "https://www.seed%d.example/" % i
    chosen = [site_pages[(i * 5 + k) % len(site_pages)] for k in range(4)] if site_pages else [extra[11]] * 4
    recs = [warcinfo]
    for k, body in enumerate(chosen):
        uri = host + "p%d.html" % k
        if i % 4 == 1 and k == 1:
            recs.append(response(uri, chunked(body), [(b"Content-Type", b"text/html; charset=utf-8"), (b"Transfer-Encoding", b"chunked")], length=False))
        elif i % 4 == 2 and k == 1:
            recs.append(response(uri, gzip.compress(body, mtime=0), [(b"Content-Type", b"text/html"), (b"Content-Encoding", b"gzip")]))
        elif i % 4 == 3 and k == 1:
            recs.append(response(uri, zlib.compress(body), [(b"Content-Type", b"text/html"), (b"Content-Encoding", b"deflate")]))
        elif k == 2:
            recs.append(record("resource", uri, "text/html; charset=windows-1252", body))
        else:
            recs.append(response(uri, body, [(b"Content-Type", b"text/html; charset=windows-1252" if k == 3 else b"text/html")]))
    recs.append(response(host + "old.html", b"", [(b"Location", (host + "p0.html").encode())], status=302))
    recs.append(record("revisit", host + "p0.html", "application/http; msgtype=response", b"HTTP/1.1 200 OK\r\n\r\n",
                       extra_fields=[b"WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"]))
    recs.append(record("request", host + "p0.html", "application/http; msgtype=request", b"GET /p0.html HTTP/1.1\r\nHost: x\r\n\r\n", version=b"WARC/1.0"))
    warcs.append(recs)

for i, recs in enumerate(warcs):
    plain = b"".join(recs)
    per_record_gz = b"".join(gzip.compress(r, mtime=0) for r in recs)
    put("warc", bytes([0]) + plain)             # the file as is
    put("warc", bytes([1]) + plain)             # gzipped as one stream by the harness
    put("warc", bytes([2]) + plain)             # gzipped per record by the harness
    put("warc", bytes([0]) + per_record_gz)     # a .warc.gz as is
    put("batch", bytes([1 | ((i % 4) << 2)]) + plain)
    put("batch", bytes([1 | ((i % 4) << 2)]) + per_record_gz)

# batch: pages joined by the separator (the harness writes them to a WARC), every method,
# one and two hosts, plain and gzip.
for i in range(16):
    n = 3 + i % 4
    chosen = [small[(i * 7 + k) % len(small)] for k in range(n)] if small else [extra[11]] * n
    control = ((i % 4) << 2) | (2 if i % 2 else 0) | (16 if i % 3 == 0 else 0)
    put("batch", bytes([control]) + SEP.join(b[:16 * 1024] for b in chosen))
# Pages of one mirror directory: the same template, so batch learns one.
for i, d in enumerate(spread(dirs, 8)):
    six = [read(p, 16 * 1024) for p in spread(mirror_dirs[d], 6)]
    put("batch", bytes([(i % 4) << 2]) + SEP.join(six))

for t in ("parse", "content", "template", "warc", "batch"):
    n = len(os.listdir(os.path.join(corpus, t)))
    print(f"seed.sh: {t}: {added.get(t, 0)} seeds added, {n} files in fuzz/corpus/{t}")
PY
