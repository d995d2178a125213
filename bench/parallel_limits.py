"""How long parallel forms with very many branches take to end under a timeout, in one run.

    python bench/parallel_limits.py          # best of 3 each (about 40 s)

The figures of issue 33 item 2: a form asking for more threads than ``max_threads``
(clamped to 64), and a million trivial branches that must end within the timeout + 0.5 s.
Beside each, plain Python doing the same calls serially (a list comprehension).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter import Interpreter, SchemeError

CASES = [
    # (branches, #:max-concurrency, timeout)
    (5_000, 5_000, 2.0),
    (100_000, 100_000, 10.0),
    (1_000_000, None, 2.0),
    (1_000_000, 1_000_000, 5.0),
]


def run(branches: int, cap: int | None, timeout: float) -> tuple[float, str]:
    interp = Interpreter(timeout=timeout)
    option = f" #:max-concurrency {cap}" if cap is not None else ""
    start = time.perf_counter()
    try:
        interp.eval(f"(length (parallel-map (lambda (i) i) (iota {branches}){option}))")
        outcome = "done"
    except SchemeError as err:
        outcome = err.message
    return time.perf_counter() - start, outcome


def plain(branches: int) -> float:
    start = time.perf_counter()
    f = lambda i: i
    _ = [f(i) for i in range(branches)]
    return time.perf_counter() - start


def main() -> None:
    print("| branches | max-concurrency | timeout (s) | taskscheme (s, best of 3) | outcome | limit (s) "
          "| plain Python (s) |")
    print("|---:|---:|---:|---:|---|---:|---:|")
    for branches, cap, timeout in CASES:
        runs = [run(branches, cap, timeout) for _ in range(3)]
        took, outcome = min(runs)
        print(
            f"| {branches} | {cap or 'default'} | {timeout} | {took:.2f} | {outcome} | {timeout + 0.5} "
            f"| {min(plain(branches) for _ in range(3)):.3f} |"
        )


if __name__ == "__main__":
    main()
