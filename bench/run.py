"""Core benchmarks: taskscheme beside the same algorithm in plain Python, in one run.

    python bench/run.py            # every benchmark, best of 3
    python bench/run.py --quick    # one repetition each

Prints a Markdown table (times in seconds, ratio = taskscheme / Python), the peak
memory of ``(count 1000000)`` beside Python's own recursion (each in a fresh process; ``count``
adds after its recursive call, ``(+ (count (- n 1)) 1)``, so it stays a real recursion: the other
order, ``(+ 1 (count …))``, the compiler runs as a loop, see ``compiler/trmp.py``),
and the cold start of ``python repl.py -e '(display 1)'``, as this environment runs it
and with bytecode cached.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import Interpreter  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from programs import py_merge_iter as py_merge  # noqa: E402
from timing import best  # noqa: E402

sys.setrecursionlimit(max(sys.getrecursionlimit(), 200_000))  # for the plain-Python side only

SCHEME = """
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (loop-sum n) (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (+ acc i)))))
(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))
(define (merge a b)
  (let loop ((a a) (b b) (acc '()))
    (cond ((null? a) (append (reverse acc) b))
          ((null? b) (append (reverse acc) a))
          ((< (car a) (car b)) (loop (cdr a) b (cons (car a) acc)))
          (else (loop a (cdr b) (cons (car b) acc))))))
(define (split lst)
  (let loop ((slow lst) (fast lst) (front '()))
    (if (or (null? fast) (null? (cdr fast)))
        (values (reverse front) slow)
        (loop (cdr slow) (cddr fast) (cons (car slow) front)))))
(define (merge-sort lst)
  (if (or (null? lst) (null? (cdr lst)))
      lst
      (call-with-values (lambda () (split lst))
        (lambda (front back) (merge (merge-sort front) (merge-sort back))))))
(define (let-loop n acc)
  (if (= n 0) acc (let ((x (* n 2)) (y (+ n 1))) (let-loop (- n 1) (+ acc (* x y))))))
(define (build-string n)
  (let ((port (open-output-string)))
    (do ((i 0 (+ i 1))) ((= i n) (string-length (get-output-string port)))
      (write-char (integer->char (+ 97 (modulo i 26))) port))))
"""


def py_fib(n: int) -> int:
    return n if n < 2 else py_fib(n - 1) + py_fib(n - 2)


def py_loop_sum(n: int) -> int:
    i = acc = 0
    while i != n:
        acc += i
        i += 1
    return acc


def py_let_loop(n: int, acc: int) -> int:
    while n != 0:
        x, y = n * 2, n + 1
        n, acc = n - 1, acc + x * y
    return acc


def py_count(n: int) -> int:
    return 0 if n == 0 else py_count(n - 1) + 1


def py_merge_sort(xs: list[int]) -> list[int]:
    if len(xs) < 2:
        return xs
    mid = len(xs) // 2
    return py_merge(py_merge_sort(xs[:mid]), py_merge_sort(xs[mid:]))


def py_build_string(n: int) -> int:
    parts = []
    for i in range(n):
        parts.append(chr(97 + i % 26))
    return len("".join(parts))


def cold_start(repeat: int, cached: bool) -> float:
    """Best time of ``python repl.py -e '(display 1)'`` in a fresh process.

    ``cached=False`` runs it in this environment as it is: where PYTHONDONTWRITEBYTECODE
    is set (as on the CI machines) and no ``__pycache__`` exists, taskscheme's own modules
    are compiled at every start. ``cached=True`` lets Python keep bytecode (in a temporary
    folder, after one warm-up run), as a normal install does."""
    cmd = [sys.executable, str(ROOT / "repl.py"), "-e", "(display 1)"]
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if cached:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
            subprocess.run(cmd, check=True, capture_output=True, env=env)
        return best(lambda: subprocess.run(cmd, check=True, capture_output=True, env=env), max(repeat, 5))


#: Run in a fresh process: the peak resident memory (ru_maxrss) of one deep recursion.
PEAK_SCRIPT = """
import resource, sys
sys.path.insert(0, {root!r})
n = 1_000_000
if sys.argv[1] == "python":
    sys.setrecursionlimit(n + 1000)
    def count(n):
        return 0 if n == 0 else count(n - 1) + 1
    assert count(n) == n
else:
    from interpreter import Interpreter
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))")
    assert interp.eval(f"(count {{n}})") == n
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_memory(side: str) -> float:
    """Peak resident memory in MB of ``(count 1000000)`` (``side`` "taskscheme") or of the
    same recursion in plain Python (``side`` "python"), each in a fresh process."""
    script = PEAK_SCRIPT.format(root=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script, side], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1]) / 1024  # Linux reports kilobytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one repetition each")
    repeat = 1 if parser.parse_args().quick else 3
    interp = Interpreter()
    interp.eval(SCHEME)
    data = [random.Random(7).randrange(1_000_000) for _ in range(100_000)]
    interp.define("data", _scheme_list(data))
    cases: list[tuple[str, str, Callable[[], object]]] = [
        ("fib 25 (naive)", "(fib 25)", lambda: py_fib(25)),
        ("named-let loop, 1,000,000 iterations", "(loop-sum 1000000)", lambda: py_loop_sum(1_000_000)),
        ("deep recursion (count 100000)", "(count 100000)", lambda: py_count(100_000)),
        ("loop binding two let variables, 300,000 iterations", "(let-loop 300000 0)", lambda: py_let_loop(300_000, 0)),
        ("merge sort of 100,000 numbers", "(length (merge-sort data))", lambda: len(py_merge_sort(data))),
        ("build a 100,000-character string", "(build-string 100000)", lambda: py_build_string(100_000)),
    ]
    print("| benchmark | taskscheme (s) | Python (s) | ratio |")
    print("|---|---:|---:|---:|")
    for title, source, python in cases:
        assert interp.eval(source) == python(), title
        ours = best(lambda source=source: interp.eval(source), repeat)
        theirs = best(python, repeat)
        print(f"| {title} | {ours:.3f} | {theirs:.4f} | {ours / theirs:.1f}× |")
    ours_mb, theirs_mb = peak_memory("taskscheme"), peak_memory("python")
    print(f"\npeak memory of (count 1000000) (target <= 300 MB): {ours_mb:.0f} MB", end="")
    print(f", Python's own recursion {theirs_mb:.0f} MB")
    as_is, cached = cold_start(repeat, cached=False), cold_start(repeat, cached=True)
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    print(f"\ncold start `python repl.py -e '(display 1)'` (target < 0.4 s): {as_is:.3f} s in this environment", end="")
    print(f" (PYTHONDONTWRITEBYTECODE={flag!r}), {cached:.3f} s with bytecode cached")


def _scheme_list(items: list[int]) -> object:
    from interpreter.datatypes import make_list

    return make_list(items)


if __name__ == "__main__":
    main()
