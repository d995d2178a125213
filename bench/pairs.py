"""What a pair costs: allocating a ``Pair`` beside a Python tuple, in one run.

    .venv/bin/python bench/pairs.py            # best of 5, 1,000,000 allocations each
    .venv/bin/python bench/pairs.py --quick    # best of 2

Prints nanoseconds per allocation (the loop's own cost subtracted) and the ratio to
building a tuple ``(a, b)``, for:

- ``Pair()`` with its three fields stored inline: what the list primitives' loops
  (``append``, ``map``, ``build_list`` …) and the ``cons`` primitive do;
- ``datatypes.cons(a, b)``: a Python call around the same (compiled ``(cons a b)``, the
  reader, macros);
- ``tuple((a, b))``, as a second reference;

then a list built by consing in a Scheme named-let loop beside the same loop in Python
building nested tuples. For instruction counts (steadier than wall clock on a shared
machine) see docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from timing import best  # noqa: E402

from interpreter import Interpreter  # noqa: E402
from interpreter.datatypes import Pair, cons  # noqa: E402

CASES = {
    "tuple (a, b)": "x = (a, b)",
    "tuple((a, b))": "x = tuple((a, b))",
    "Pair() + 3 stores (inline)": "x = Pair(); x.car = a; x.cdr = b; x.span = None",
    "cons(a, b)": "x = cons(a, b)",
}

SCHEME = "(define (build n) (let loop ((i 0) (acc '())) (if (= i n) acc (loop (+ i 1) (cons i acc)))))"


def py_build(n: int) -> tuple[object, ...]:
    i, acc = 0, ()
    while i != n:
        acc = (i, acc)
        i += 1
    return acc


def per_allocation(statement: str, number: int, repeat: int) -> float:
    """Nanoseconds per execution of ``statement``, the empty loop's cost subtracted."""
    names = {"Pair": Pair, "cons": cons, "a": 1, "b": 2}
    empty = min(timeit.repeat("x = a", globals=names, number=number, repeat=repeat))
    taken = min(timeit.repeat(statement, globals=names, number=number, repeat=repeat))
    return max(taken - empty, 0.0) / number * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="best of 2 instead of 5")
    repeat = 2 if parser.parse_args().quick else 5
    number = 1_000_000
    costs = {title: per_allocation(statement, number, repeat) for title, statement in CASES.items()}
    tuple_ns = costs["tuple (a, b)"]
    print("| allocation | ns | ratio to a tuple |")
    print("|---|---:|---:|")
    for title, ns in costs.items():
        print(f"| {title} | {ns:.1f} | {ns / tuple_ns:.1f}× |")
    interp = Interpreter()
    interp.eval(SCHEME)
    n = 300_000
    ours = best(lambda: interp.eval(f"(build {n})"), repeat)
    theirs = best(lambda: py_build(n), repeat)
    print(f"\nconsing {n:,} pairs in a named-let loop: taskscheme {ours:.3f} s, Python tuples {theirs:.4f} s,", end=" ")
    print(f"ratio {ours / theirs:.1f}×")


if __name__ == "__main__":
    main()
