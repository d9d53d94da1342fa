#!/usr/bin/env python3
"""Load test of `templex serve` on loopback with wrk (Debian's package: `apt-get install wrk`).

    python3 bench/serve/run.py [--bin target/release/templex] [--requests 20000]
                               [--connections 64] [--threads 2] [--check]

1. A server with the default limits gets POST /v1/content requests, each the raw HTML of one
   scrapinghub-aeb page (the 181 pages in turn), from `--connections` connections until at
   least `--requests` are answered: requests, errors (non-2xx, socket errors), p50/p90/p99
   latency, the server's peak RSS (VmHWM) and its RSS at rest before and after.
2. Overload: a server with one worker and no queue gets the same load: the requests beyond
   its limit are answered 503 at once (counted), none hangs (wrk's timeouts), and the server
   still answers /v1/health afterwards.

`--check` (the server's end-to-end tests run it, bounded: a few thousand requests, short
runs and rests, without the allocator variant) exits 1 unless every request under the
default limits got a 2xx, none failed or timed out in either server, the overloaded one
answered 503s, both still answer /v1/health, and memory at rest did not climb from run to
run.

Nothing leaves the machine: the server binds 127.0.0.1 on a free port.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

LUA = r"""
local bodies = {}
local n = 0
local i = 0
local dir = os.getenv("TEMPLEX_BODIES")
local list = io.open(dir .. "/list.txt")
for name in list:lines() do
  local f = io.open(dir .. "/" .. name, "rb")
  n = n + 1
  bodies[n] = f:read("*a")
  f:close()
end
list:close()

-- Statuses, counted per thread and summed in done().
s503 = 0
sother = 0
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

response = function(status, headers, body)
  if status == 503 then
    s503 = s503 + 1
  elseif status >= 300 then
    sother = sother + 1
  end
end

request = function()
  i = i % n + 1
  return wrk.format("POST", "/v1/content?url=https://example.com/" .. i,
                    {["Content-Type"] = "text/html"}, bodies[i])
end

done = function(summary, latency, requests)
  local n503, nother = 0, 0
  for _, t in ipairs(threads) do
    n503 = n503 + t:get("s503")
    nother = nother + t:get("sother")
  end
  io.write(string.format(
    "RESULT requests=%d non2xx=%d s503=%d sother=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, summary.errors.status, n503, nother, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout))
  for _, p in pairs({50, 90, 99, 99.9}) do
    io.write(string.format("LATENCY p%s=%.2f\n", p, latency:percentile(p) / 1000.0))
  end
  io.write(string.format("LATENCY max=%.2f\n", latency.max / 1000.0))
end
"""


def data_dir() -> Path:
    env = os.environ.get("TEMPLEX_DATA")
    d = Path(env) if env else REPO.parent / "shared" / "data"
    if not (d / "pagelevel" / "scrapinghub-aeb").is_dir():
        sys.exit(f"scrapinghub-aeb not found under {d} (set TEMPLEX_DATA)")
    return d


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status_kb(pid: int, field: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    m = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(m.group(1)) if m else 0


def wait_health(port: int, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not come up")


def run_wrk(port: int, bodies: Path, lua: Path, args: argparse.Namespace, rate_s: float) -> dict:
    # wrk runs for a duration: long enough for --requests at the rate measured in a warm-up.
    seconds = max(args.min_seconds, int(args.requests / max(rate_s, 1.0) * 1.4) + 1)
    env = dict(os.environ, TEMPLEX_BODIES=str(bodies))
    out = subprocess.run(
        [
            "wrk",
            f"-t{args.threads}",
            f"-c{args.connections}",
            f"-d{seconds}s",
            "--timeout",
            "30s",
            "-s",
            str(lua),
            f"http://127.0.0.1:{port}",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    line = out.split("RESULT", 1)[1].splitlines()[0]
    res: dict = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
    for k, v in re.findall(r"LATENCY (p[\d.]+|max)=([\d.]+)", out):
        res[k] = float(v)
    res["seconds"] = seconds
    return res


def serve(binary: Path, port: int, extra: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [str(binary), "serve", "--addr", f"127.0.0.1:{port}", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, **env),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bin", type=Path, default=REPO / "target/release/templex")
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--check", action="store_true", help="bounded run that fails on a problem")
    args = ap.parse_args()
    # Short runs (warm-up, memory) and the rests between them, in seconds.
    args.min_seconds, rest_s = (2, 2) if args.check else (5, 5)
    if shutil.which("wrk") is None:
        sys.exit("wrk not found: apt-get install wrk")
    aeb = data_dir() / "pagelevel" / "scrapinghub-aeb" / "html"
    with tempfile.TemporaryDirectory() as tmp:
        bodies = Path(tmp) / "bodies"
        bodies.mkdir()
        names = []
        for i, f in enumerate(sorted(aeb.glob("*.html.gz"))):
            (bodies / f"{i}.html").write_bytes(gzip.decompress(f.read_bytes()))
            names.append(f"{i}.html")
        (bodies / "list.txt").write_text("\n".join(names) + "\n")
        lua = Path(tmp) / "content.lua"
        lua.write_text(LUA)

        print(
            f"## `templex serve` under load: {args.connections} connections, "
            f"POST /v1/content, {len(names)} AEB pages in turn\n"
        )
        short = argparse.Namespace(
            requests=0,
            threads=args.threads,
            connections=args.connections,
            min_seconds=args.min_seconds,
        )
        configs = [
            ("default limits", [], {}),
            ("default limits, MIMALLOC_PURGE_DELAY=0", [], {"MIMALLOC_PURGE_DELAY": "0"}),
            ("overload: --workers 1 --queue 0", ["--workers", "1", "--queue", "0"], {}),
        ]
        if args.check:
            del configs[1]
        problems = []
        for title, extra, env in configs:
            port = free_port()
            proc = serve(args.bin, port, extra, env)
            try:
                wait_health(port)
                rest = [status_kb(proc.pid, "VmRSS")]
                # Warm-up: the rate, for the run's duration.
                warm = run_wrk(port, bodies, lua, short, 1.0)
                res = run_wrk(port, bodies, lua, args, warm["requests"] / warm["seconds"])
                peak = status_kb(proc.pid, "VmHWM")
                time.sleep(rest_s)
                rest.append(status_kb(proc.pid, "VmRSS"))
                # More load after rest: memory at rest must not climb from run to run.
                for _ in range(3):
                    run_wrk(port, bodies, lua, short, 1.0)
                    time.sleep(rest_s)
                    rest.append(status_kb(proc.pid, "VmRSS"))
                try:
                    wait_health(port, 5)
                except RuntimeError:
                    problems.append(f"{title}: /v1/health did not answer after the load")
            finally:
                proc.terminate()
                proc.wait(timeout=30)
            errors = res["connect"] + res["read"] + res["write"] + res["timeout"]
            print(f"### {title}\n")
            print(
                "| requests | req/s | 503 | socket errors + timeouts | p50 ms | p90 ms | "
                "p99 ms | max ms | peak RSS | RSS at rest: start, after the run, after 3 more |"
            )
            print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
            rests = ", ".join(f"{r / 1024:.0f}" for r in rest)
            print(
                f"| {res['requests']:,} | {res['requests'] / res['seconds']:,.0f} | "
                f"{res['s503']:,} | {errors} | {res['p50']:.1f} | {res['p90']:.1f} | "
                f"{res['p99']:.1f} | {res['max']:.1f} | {peak / 1024:.0f} MB | {rests} MB |\n",
                flush=True,
            )
            if errors:
                problems.append(f"{title}: {errors} requests failed or timed out")
            overload = "--workers" in extra
            if not overload and res["non2xx"]:
                problems.append(f"{title}: {res['non2xx']} answers were not 2xx")
            if overload and not res["s503"]:
                problems.append(f"{title}: no request was refused with 503")
            if res["sother"]:
                problems.append(f"{title}: {res['sother']} answers were neither 2xx nor 503")
            # At rest after the last run against after the first, with room for noise.
            if rest[-1] > rest[1] * 1.5 + 32 * 1024:
                problems.append(f"{title}: memory at rest climbed: {rests} MB")
        if args.check:
            for p in problems:
                print(f"FAILED: {p}", file=sys.stderr)
            sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
