"""Building an interpreter: ``Interpreter()`` beside Python defining the same prelude, in one run.

    python bench/construction.py [--repeat N] [--batch B]

An embedding host, a test suite or a batch worker makes many interpreters; each one reads
(from the prelude cache), analyses and defines ``stdlib/prelude.scm`` and installs the
interpreter-bound primitives. Prints the CPU time (``time.process_time``, steadier than the
wall clock on a shared machine) per construction, the best batch of N (default 5) batches
of B (default 200), for:

* plain Python: ``compile`` and ``exec`` of the prelude's 16 definitions written in Python,
  into a fresh module namespace (what Python pays to read and define the same procedures);
* ``Interpreter(stdlib=False)`` and ``Interpreter()``;
* the collector's share: ``Interpreter()`` with the cyclic collector off (each interpreter
  holds cycles, so the full collections that free dropped ones are part of its cost), and
  the collector-tracked objects one interpreter keeps alive.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter import Interpreter

#: ``stdlib/prelude.scm`` in Python, definition for definition.
PRELUDE_PY = '''
def identity(x):
    return x

def constantly(*results):
    return lambda *args: results[0] if len(results) == 1 else results

def compose(*procs):
    if not procs:
        return identity
    rev = procs[::-1]
    def composed(*args):
        result = rev[0](*args)
        for proc in rev[1:]:
            result = proc(result)
        return result
    return composed

def list_tabulate(n, proc):
    return [proc(i) for i in range(n)]

def take_while(pred, lst):
    out = []
    for x in lst:
        if not pred(x):
            break
        out.append(x)
    return out

def drop_while(pred, lst):
    i = 0
    while i < len(lst) and pred(lst[i]):
        i += 1
    return lst[i:]

def zip_(*lists):
    return [list(t) for t in zip(*lists)]

def flatten(tree):
    stack, acc = [tree], []
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            stack.extend(reversed(x))
        else:
            acc.append(x)
    return acc

def sum_(lst):
    return sum(lst)

def product(lst):
    out = 1
    for x in lst:
        out *= x
    return out

def displayln(*items):
    print(*items, sep="")

the_empty_stream = []
def stream_null(s):
    return s == []
def stream_car(s):
    return s[0]
def stream_cdr(s):
    return s[1]()
def stream_head(s, n):
    acc = []
    while n > 0 and s != []:
        acc.append(stream_car(s))
        s, n = stream_cdr(s), n - 1
    return acc
'''


def python_prelude() -> None:
    exec(compile(PRELUDE_PY, "<prelude>", "exec"), {"__name__": "prelude"})


def per_call(fn: Callable[[], object], repeat: int, batch: int) -> float:
    """The best batch's CPU seconds per call of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(batch):
            fn()
        times.append((time.process_time() - start) / batch)
    return min(times)


def tracked_objects() -> int:
    """The collector-tracked objects one more live ``Interpreter()`` adds."""
    gc.collect()
    before = len(gc.get_objects())
    kept = Interpreter()
    gc.collect()
    count = len(gc.get_objects()) - before
    del kept
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--batch", type=int, default=200)
    opts = parser.parse_args()
    Interpreter()  # the first one fills the prelude cache and imports what the rest reuse
    python = per_call(python_prelude, opts.repeat, opts.batch)
    bare = per_call(lambda: Interpreter(stdlib=False), opts.repeat, opts.batch)
    full = per_call(Interpreter, opts.repeat, opts.batch)
    gc.disable()
    try:
        without_gc = per_call(Interpreter, opts.repeat, opts.batch)
    finally:
        gc.enable()
    print("| construction (CPU per call, best batch) | ms | vs Python |")
    print("|---|---:|---:|")
    print(f"| Python: compile + exec of the prelude in Python | {python * 1e3:.3f} | 1.0x |")
    print(f"| `Interpreter(stdlib=False)` | {bare * 1e3:.3f} | {bare / python:.1f}x |")
    print(f"| `Interpreter()` | {full * 1e3:.3f} | {full / python:.1f}x |")
    print(f"| `Interpreter()`, collector off | {without_gc * 1e3:.3f} | {without_gc / python:.1f}x |")
    print(f"\nCollector-tracked objects one live `Interpreter()` holds: {tracked_objects()}")


if __name__ == "__main__":
    main()
