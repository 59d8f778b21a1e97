#!/usr/bin/env python3
"""`make bench`: screens-pipe against the loops a user would write instead, on the same data.

Starts the release binary's sandbox portal with a generated list (pages of 1000), then measures
in one run:
  - end to end: `screens-pipe run` vs a Python http.client loop vs a `curl | jq -c` loop,
    all writing the same JSON lines (checked), with ratios against the baselines;
  - peak RSS of screens-pipe at 100k and 1M rows (must stay flat);
  - JSON parse/write MB/s and filter rows/s (screens-pipe-bench);
  - cache-only replay rows/s (a cached run, then --policy cache-only);
  - prefetch speedup at 100 ms latency (50 pages, prefetch 1 vs 4).

    python3 scripts/bench.py --bin .build/release [--quick] [--rows N] [--runs K]
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINE = os.path.join(ROOT, "Benchmarks/pipelines/generated.yaml")
CACHED_PIPELINE = os.path.join(ROOT, "Benchmarks/pipelines/generated-cached.yaml")
PAGE = 1000
FIRST_ID = 9007199254740993  # the sandbox's generated row i has entryId FIRST_ID + i


class Sandbox:
    """`screens-pipe sandbox --port 0 ...` in the background; the URL is read from stderr."""

    def __init__(self, binary, *flags):
        self.process = subprocess.Popen(
            [binary, "sandbox", "--port", "0", *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        self.url = None
        while self.url is None:
            line = self.process.stderr.readline()
            if not line or time.monotonic() > deadline:
                self.stop()
                raise SystemExit("bench: the sandbox did not start")
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                self.url = found.group(1)
        # Keep draining stderr so the sandbox never blocks on a full pipe.
        self.drain = subprocess.Popen(["cat"], stdin=self.process.stderr, stdout=subprocess.DEVNULL)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def timed(command, env=None, stdout=subprocess.DEVNULL):
    """Runs a command to completion; returns (wall seconds, peak RSS in MiB)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    stderr = process.stderr.read().decode(errors="replace")
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"bench: {' '.join(command)} exited {process.returncode}\n{stderr}")
    return elapsed, usage.ru_maxrss / 1024


def best(runs, command, env=None):
    """The fastest of `runs` runs (the least disturbed one) and the largest peak RSS seen."""
    results = [timed(command, env) for _ in range(runs)]
    return min(r[0] for r in results), max(r[1] for r in results)


def digest(path):
    # Streamed: this process must stay small, because a child's ru_maxrss starts from the
    # parent's RSS at fork time on Linux, which would distort the RSS figures.
    hash = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            hash.update(chunk)
    return hash.hexdigest()


def same_rows_as_jq(reference, jq_output):
    """jq 1.6 reads numbers as doubles, so ids beyond 2^53 come back rounded. Compares the parsed
    rows with that rounding applied to both sides; returns (same, rows whose ids jq altered)."""
    def rounded(row):
        return {k: float(v) if isinstance(v, int) and abs(v) >= 2**53 else v for k, v in row.items()}

    altered = 0
    with open(reference, "rb") as ours, open(jq_output, "rb") as theirs:
        for index, (a, b) in enumerate(zip(ours, theirs)):
            if a == b:
                continue
            if rounded(json.loads(a)) != rounded(json.loads(b)):
                return False, f"row {index} differs"
            altered += 1
    if sum(1 for _ in open(reference, "rb")) != sum(1 for _ in open(jq_output, "rb")):
        return False, "line counts differ"
    return True, altered


def check_ids(path, rows):
    """Every generated row exactly once, in order: entryId FIRST_ID + i on line i."""
    count = 0
    with open(path, "rb") as file:
        for index, line in enumerate(file):
            if json.loads(line)["entryId"] != FIRST_ID + index:
                raise SystemExit(f"bench: line {index} of {path} is not row {index}")
            count += 1
    if count != rows:
        raise SystemExit(f"bench: {path} has {count} rows, expected {rows}")


def bench_tool(binary, arguments):
    output = subprocess.run([binary, *arguments], check=True, capture_output=True, text=True).stdout
    return output


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release"), help="folder with the release binaries")
    parser.add_argument("--quick", action="store_true", help="100k rows, one run each, smaller micro-benchmarks")
    parser.add_argument("--rows", type=int, help="rows of the end-to-end list (default 1,000,000; --quick 100,000)")
    parser.add_argument("--runs", type=int, help="runs per end-to-end contender, best kept (default 3; --quick 1)")
    options = parser.parse_args()
    rows = options.rows or (100_000 if options.quick else 1_000_000)
    small = 100_000 if rows > 100_000 else rows // 10
    runs = options.runs or (1 if options.quick else 3)
    binary = os.path.join(options.bin, "screens-pipe")
    bench_binary = os.path.join(options.bin, "screens-pipe-bench")
    for tool in ("jq", "curl"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bench: {tool} is required (make setup installs jq)")

    work = tempfile.mkdtemp(prefix="screens-pipe-bench-")
    env = dict(os.environ, SCREENS_PIPE_CACHE_DIR=os.path.join(work, "cache"), BENCH_CACHE=os.path.join(work, "bench.sqlite"))
    figures = []  # (measure, value, note)

    def report(measure, value, note=""):
        figures.append((measure, value, note))
        print(f"  {measure:<40} {value:>16}  {note}", flush=True)

    print(f"bench: {rows:,} generated rows in pages of {PAGE}, best of {runs} run(s), {os.cpu_count()} cores", flush=True)
    sandbox = Sandbox(binary, "--generate", str(rows))
    try:
        env["LIFERAY_SERVER"] = sandbox.url
        run = lambda *extra: [binary, "run", PIPELINE, "--progress", "never", *extra]

        # (a) screens-pipe, (b) Python loop, (c) curl | jq, on the same list; outputs checked.
        ours_file = os.path.join(work, "screens-pipe.jsonl")
        ours, rss_large = best(runs, run("--output", ours_file), env)
        check_ids(ours_file, rows)
        # Peak RSS: the same pipeline over 100k rows vs the full list.
        if rows > small:
            # The same pipeline over a sandbox serving a 100k list.
            small_sandbox = Sandbox(binary, "--generate", str(small))
            try:
                _, rss_small = best(1, run("--output", os.path.join(work, "small.jsonl")), dict(env, LIFERAY_SERVER=small_sandbox.url))
            finally:
                small_sandbox.stop()
        else:
            rss_small = rss_large
        python_file = os.path.join(work, "python.jsonl")
        python, _ = best(runs, [sys.executable, os.path.join(ROOT, "scripts/bench_python_loop.py"), sandbox.url, python_file, str(PAGE)])
        if digest(python_file) != digest(ours_file):
            raise SystemExit("bench: the Python loop wrote other lines than screens-pipe")
        jq_file = os.path.join(work, "jq.jsonl")
        jq, _ = best(1, ["bash", os.path.join(ROOT, "scripts/bench_curl_jq.sh"), sandbox.url, jq_file, str(PAGE)])
        same, altered = same_rows_as_jq(ours_file, jq_file)
        if not same:
            raise SystemExit(f"bench: curl | jq wrote other rows than screens-pipe: {altered}")
        jq_note = "same rows" + (f"; jq 1.6 rounded {altered:,} ids > 2^53" if altered else ", same lines")

        report("screens-pipe run (s)", f"{ours:.2f}", f"{rows / ours:,.0f} rows/s, output = Python loop byte for byte")
        report("Python http.client loop (s)", f"{python:.2f}", f"screens-pipe {python / ours:.1f}x faster (target 2x)")
        report("curl \\| jq -c loop (s)", f"{jq:.2f}", f"screens-pipe {jq / ours:.1f}x faster (target 3x); {jq_note}")

        report(f"peak RSS {small:,} rows (MiB)", f"{rss_small:.1f}")
        report(f"peak RSS {rows:,} rows (MiB)", f"{rss_large:.1f}", f"growth {rss_large - rss_small:+.1f} MiB (target < 10)")

        # Cache: fill with a remote-only run (stores every page), then replay with cache-only.
        cached_run = [binary, "run", CACHED_PIPELINE, "--progress", "never"]
        fill, _ = best(1, cached_run + ["--policy", "remote-only", "--output", os.path.join(work, "fill.jsonl")], env)
        replay_file = os.path.join(work, "replay.jsonl")
        replay, _ = best(runs, cached_run + ["--policy", "cache-only", "--output", replay_file], env)
        if digest(replay_file) != digest(ours_file):
            raise SystemExit("bench: the cache-only replay wrote other lines than the remote run")
        report("remote run storing in the cache (s)", f"{fill:.2f}", f"{rows / fill:,.0f} rows/s")
        report("cache-only replay (rows/s)", f"{rows / replay:,.0f}", f"{replay:.2f} s, same lines")
    finally:
        sandbox.stop()

    # Prefetch at 100 ms latency: 50 pages of 1000, one page in flight vs four.
    slow = Sandbox(binary, "--generate", str(50 * PAGE), "--latency", "100ms")
    try:
        slow_env = dict(env, LIFERAY_SERVER=slow.url)
        one, _ = best(1, [binary, "run", PIPELINE, "--progress", "never", "--output", os.devnull, "--set", "source.pagination.prefetch=1"], slow_env)
        four, _ = best(1, [binary, "run", PIPELINE, "--progress", "never", "--output", os.devnull, "--set", "source.pagination.prefetch=4"], slow_env)
        report("50 pages at 100 ms, prefetch 1 (s)", f"{one:.2f}")
        report("50 pages at 100 ms, prefetch 4 (s)", f"{four:.2f}", f"speedup {one / four:.1f}x")
    finally:
        slow.stop()

    # Micro-benchmarks of the hot components.
    json_rows = 20_000 if options.quick else 100_000
    text = bench_tool(bench_binary, ["json", "--rows", str(json_rows), "--iterations", "3" if options.quick else "5"])
    parse = re.search(r"json\.parse\s+([\d.]+) MB/s(.*)", text)
    write = re.search(r"json\.write\s+([\d.]+) MB/s(.*)", text)
    report("JSON parse (MB/s)", parse.group(1), parse.group(2).strip())
    report("JSON write (MB/s)", write.group(1), write.group(2).strip())
    text = bench_tool(bench_binary, ["filter"])
    for index, line in enumerate(re.finditer(r"filter: (\d+) rows/s over \d+ rows \((\d+) selected\) for (.*)", text)):
        report(f"filter rows/s, expression {index + 1}", f"{int(line.group(1)):,}", line.group(3))

    shutil.rmtree(work, ignore_errors=True)
    print("\n| measure | value | note |\n|---|---:|---|")
    for measure, value, note in figures:
        print(f"| {measure} | {value} | {note} |")


if __name__ == "__main__":
    main()
