"""Compiled code inside ``parallel-map`` branches beside the same code run serially, in one run.

    python bench/branches.py            # fib 20 and 25, tak, a map walk; best of 7
    python bench/branches.py --repeat 3

Each branch has registers of its own (``evaluator.Branch``), so a compiled body keeps its
fast call path inside a branch (issue 35, item 5). Each program runs serially, in one
branch (``(parallel-map f (list x))``) and in two branches (``(parallel-map f (list x x))``:
twice the work, on two threads that share the GIL). Times are process CPU time, best of
``--repeat``, the rounds interleaved (steadier than the wall clock on a shared machine);
the two-branch figure is per branch, its time divided by two. Plain Python's serial time
is printed beside them.
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
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (tak x y z) (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))
(define (tak-18 n) (tak 18 12 6))
(define (squares n) (fold-left + 0 (map (lambda (x) (* x x)) (iota n))))
"""


def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def tak(x: int, y: int, z: int) -> int:
    return z if not y < x else tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))


#: (label, the DSL procedure, its argument, the same in plain Python)
CASES: list[tuple[str, str, int, Callable[[], object]]] = [
    ("fib 20", "fib", 20, lambda: fib(20)),
    ("fib 25", "fib", 25, lambda: fib(25)),
    ("tak 18 12 6", "tak-18", 0, lambda: tak(18, 12, 6)),
    ("map + fold over 200,000", "squares", 200_000, lambda: sum(x * x for x in range(200_000))),
]


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(interp: Interpreter, proc: str, arg: int, python: Callable[[], object], repeat: int) -> list[float]:
    """Best process CPU seconds of: serial, one branch, two branches (per branch), plain Python."""
    runs: list[Callable[[], object]] = [
        lambda: interp.eval(f"({proc} {arg})"),
        lambda: interp.eval(f"(parallel-map {proc} (list {arg}))"),
        lambda: interp.eval(f"(parallel-map {proc} (list {arg} {arg}))"),
        python,
    ]
    for run in runs[:3]:
        run()  # compile the bodies and warm the caches first
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, run in enumerate(runs):
            best[i] = min(best[i], cpu(run))
    best[2] /= 2
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="rounds; the best of them is shown (default 7)")
    opts = parser.parse_args()
    interp = Interpreter()
    interp.eval(PROGRAM)
    columns = ["program", "serial", "1 branch", "2 branches (each)", "1 branch / serial", "2 branches / serial"]
    print("| " + " | ".join([*columns, "serial / Python"]) + " |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, proc, arg, python in CASES:
        serial, one, two, plain = measure(interp, proc, arg, python, opts.repeat)
        print(
            f"| {label} | {serial * 1000:.1f} ms | {one * 1000:.1f} ms | {two * 1000:.1f} ms "
            f"| {one / serial:.2f}× | {two / serial:.2f}× | {serial / plain:.1f}× |"
        )


if __name__ == "__main__":
    main()
