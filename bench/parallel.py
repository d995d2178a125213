"""Parallel task calls and batch runs beside a serial run of the same work, in one run.

    python bench/parallel.py              # every figure (about 40 s: the serial runs take their time)
    python bench/parallel.py --no-cluster # without the Dask LocalCluster

Model latency is a sleep (the work is waiting, as it is for a real model), made in
the DSL through Python's time.sleep so that the program travels to cluster workers
as text. Prints a Markdown table: the target, the parallel time, the serial time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import Interpreter  # noqa: E402

PROGRAM = """
(define sleep (let ((f (python-ref (python-import "time") "sleep"))) (lambda (s) (python-call f s))))
(define-model (slow prompt) (sleep 0.2) (string-append "re: " prompt))
(define-task (ask topic) (model "slow") (prompt "tell me about {{topic}}"))
(define (item n) (sleep 0.05) (* n n))
(define topics (map number->string (iota 32)))
"""


def interpreter() -> Interpreter:
    interp = Interpreter(allow_python=True)
    interp.eval(PROGRAM)
    return interp


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-cluster", action="store_true", help="skip the Dask LocalCluster figure")
    opts = parser.parse_args()
    interp = interpreter()
    rows: list[tuple[str, str, float, float]] = []

    serial_calls = timed(lambda: interp.eval("(map ask topics)"))
    wide = timed(lambda: interp.eval("(parallel-map ask topics #:max-concurrency 32)"))
    rows.append(("32 calls of a 200 ms model, cap 32", "≤ 0.3 s", wide, serial_calls))
    narrow = timed(lambda: interp.eval("(parallel-map ask topics #:max-concurrency 4)"))
    rows.append(("32 calls of a 200 ms model, cap 4", "≈ 1.6 s", narrow, serial_calls))

    inputs = [{"n": i} for i in range(200)]
    ideal = 200 * 0.05 / 8
    serial_batch = timed(lambda: [interp.call("item", i) for i in range(200)])
    threads = timed(lambda: list(interp.batch("item", inputs, workers=8)))
    target = f"≤ {1.3 * ideal:.2f} s (1.3 × {ideal:.2f})"
    rows.append(("batch of 200 items of 50 ms, 8 threads", target, threads, serial_batch))
    if not opts.no_cluster:
        cluster = timed(lambda: list(interp.batch("item", inputs, cluster="local:2")))
        rows.append(("the same batch on a LocalCluster of 2 processes", "(start-up included)", cluster, serial_batch))

    print("| work | target | parallel (s) | serial (s) |")
    print("|---|---|---:|---:|")
    for name, target, took, serial in rows:
        print(f"| {name} | {target} | {took:.2f} | {serial:.2f} |")


if __name__ == "__main__":
    main()
