"""Model calls over HTTP, through llm's own OpenAI plugin, to the loopback provider of the
tests (tests/provider_server.py), beside plain ``llm`` on the same server, in one run.

    python bench/providers.py              # the three figures (about 25 s: the rate-limited run takes 10 s)
    python bench/providers.py --calls 200  # more calls for the overhead row

1. 64 calls at 100 ms latency under ``#:max-concurrency 16`` (target ≤ 0.6 s; best of 3), beside 64
   plain ``llm`` calls on 16 threads.
2. The overhead of one task call over a bare ``model.prompt(...).text()``, serially, at
   zero latency (target ≤ 2 ms), as the median of many calls.
3. 100 calls under ``(rate-limit "fake" #:requests-per-minute 600)`` (target: 10 s ± 5%,
   never more than 11 requests in any second the server saw), beside the same calls with
   no limit.

Prints a Markdown table. The machine may be shared: wall-clock figures move between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from provider_server import write_models  # noqa: E402

from interpreter import Interpreter  # noqa: E402

#: The server runs in a process of its own, as a provider does (in this one it would share the GIL).
SERVE = """
import json, sys, time
sys.path.insert(0, {tests!r})
from provider_server import ProviderServer
server = ProviderServer().start()
server.configure(delay={delay!r})
print(server.port, flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
print(json.dumps([r.at for r in server.requests]), flush=True)
"""


class Server:
    """A provider server in a child process: its ``base_url``, then the requests' arrival times."""

    def __init__(self, delay: float) -> None:
        code = SERVE.format(tests=str(ROOT / "tests"), delay=delay)
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.base_url = f"http://127.0.0.1:{int(self.process.stdout.readline())}/v1"

    def stop(self) -> list[float]:
        """Stop the server; the (monotonic) arrival time of every request it saw."""
        out, _ = self.process.communicate("", timeout=30)
        return json.loads(out.strip().splitlines()[-1])


@contextmanager
def served(home: Path, delay: float) -> Iterator[Server]:
    """A server answering after ``delay`` seconds, as llm's model ``fake`` in ``home``."""
    server = Server(delay)
    write_models(home, server.base_url, ["fake"])
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()

ASK = '(define-task (ask x) (model "fake") (prompt "say {{x}}"))'


def most_in_a_second(times: list[float]) -> int:
    """The most requests that arrived within any one second."""
    ordered = sorted(times)
    most, low = 0, 0
    for high, at in enumerate(ordered):
        while at - ordered[low] >= 1.0:
            low += 1
        most = max(most, high - low + 1)
    return most


def interp() -> Interpreter:
    it = Interpreter(allow_models=True)
    it.eval(ASK)
    it.eval('(ask "warm up")')  # llm's plugins, the SDK and its client loaded
    return it


def best_of(runs: int, run: Callable[[], object]) -> float:
    """The fastest of ``runs`` timed runs, in seconds (the first pays for opening connections)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def parallel(rows: list[tuple[str, str, str, str]]) -> None:
    import llm

    it = interp()
    ours = best_of(3, lambda: it.eval("(parallel-map ask (map number->string (iota 64)) #:max-concurrency 16)"))
    model = llm.get_model("fake")
    model.prompt("warm up").text()

    def plain_run() -> None:
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda n: model.prompt(f"say {n}").text(), range(64)))

    plain = best_of(3, plain_run)
    rows.append(("64 calls, 100 ms latency, 16 at once", f"{ours:.2f} s", f"{plain:.2f} s", "≤ 0.6 s"))


def overhead(calls: int, rows: list[tuple[str, str, str, str]]) -> None:
    import llm

    it = interp()
    model = llm.get_model("fake")
    model.prompt("warm up").text()
    ours, plain = [], []
    for n in range(calls):  # interleaved, so both see the same load on a shared machine
        start = time.perf_counter()
        it.eval(f'(ask "{n}")')
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        model.prompt(f"say {n}").text()
        plain.append(time.perf_counter() - start)
    mine, bare = statistics.median(ours), statistics.median(plain)
    rows.append(
        (
            "one call, no latency (median)",
            f"{mine * 1000:.2f} ms",
            f"{bare * 1000:.2f} ms",
            f"overhead {(mine - bare) * 1000:+.2f} ms (≤ 2 ms)",
        )
    )


def rate_limited(home: Path, rows: list[tuple[str, str, str, str]]) -> None:
    with served(home, 0.0) as server:
        it = interp()
        it.eval('(rate-limit "fake" #:requests-per-minute 600)')
        it.eval('(ask "first")')  # the bucket's first turn taken: 100 more calls are 100 spaced turns
        start = time.perf_counter()
        it.eval("(parallel-map ask (map number->string (iota 100)) #:max-concurrency 16)")
        ours = time.perf_counter() - start
        free = interp()
        start = time.perf_counter()
        free.eval("(parallel-map ask (map number->string (iota 100)) #:max-concurrency 16)")
        plain = time.perf_counter() - start
        times = server.stop()
    most = most_in_a_second(times[2:102])  # the warm-up call and the first turn left out
    rows.append(
        (
            "100 calls at 600 requests/minute",
            f"{ours:.2f} s, ≤ {most} in any second",
            f"{plain:.2f} s (no limit)",
            "10 s ± 5%, ≤ 11 in any second",
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="calls for the overhead row")
    parser.add_argument("--no-rate", action="store_true", help="skip the 10 s rate-limited row")
    opts = parser.parse_args()
    home = tempfile.mkdtemp(prefix="llm-home-")
    os.environ["LLM_USER_PATH"] = home
    rows: list[tuple[str, str, str, str]] = []
    with served(Path(home), 0.1):
        parallel(rows)
    with served(Path(home), 0.0):
        overhead(opts.calls, rows)
    if not opts.no_rate:
        rate_limited(Path(home), rows)
    print("| what | taskscheme | plain llm | target |")
    print("|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
