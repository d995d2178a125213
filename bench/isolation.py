"""What ``Interpreter(isolate=True)`` costs: starting the child, one round trip, a host call.

Printed side by side with the same work in-process (and plain Python where there is one):

    python bench/isolation.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import best
from interpreter import Interpreter

LOOP = "(let loop ((i 0)) (if (< i 100000) (loop (+ i 1)) i))"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat

    start = time.perf_counter()
    local = Interpreter()
    local_start = time.perf_counter() - start
    start = time.perf_counter()
    isolated = Interpreter(isolate=True)
    isolated_start = time.perf_counter() - start
    for interp in (local, isolated):
        interp.define("host-add", lambda a, b: a + b)
    rows = [
        ("start-up (Interpreter())", local_start, isolated_start, None),
        ("eval (+ 1 2)", best(lambda: local.eval("(+ 1 2)"), repeat * 20),
         best(lambda: isolated.eval("(+ 1 2)"), repeat * 20), best(lambda: 1 + 2, repeat * 20)),
        ("a host function call", best(lambda: local.eval("(host-add 1 2)"), repeat * 20),
         best(lambda: isolated.eval("(host-add 1 2)"), repeat * 20), None),
        ("named-let loop, 100,000 steps", best(lambda: local.eval(LOOP), repeat),
         best(lambda: isolated.eval(LOOP), repeat), best(lambda: sum(1 for _ in range(100000)), repeat)),
    ]
    print(f"{'':32} {'in-process':>12} {'isolated':>12} {'python':>12}")
    for name, here, there, python in rows:
        plain = f"{python * 1e3:10.3f} ms" if python is not None else f"{'':>12}"
        print(f"{name:32} {here * 1e3:9.3f} ms {there * 1e3:9.3f} ms {plain}")


if __name__ == "__main__":
    main()
