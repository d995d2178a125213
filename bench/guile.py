"""The external comparison: the same Scheme programs in taskscheme and in Guile 3.0's interpreter.

    python bench/guile.py            # best of 3 each
    python bench/guile.py --quick    # one repetition each
    python bench/guile.py -k fib     # only programs whose title contains "fib"
    python bench/guile.py --clock wall --repeat 5

Each program is one text both implementations run unchanged (fib, tak, a named-let loop,
deep recursion, nqueens, string ports, association lists, hash tables (SRFI-69), merge
sort, and a higher-order pipeline). taskscheme runs it embedded (a default ``Interpreter()``,
as a host would); Guile runs it with ``guile --no-auto-compile``, so the program is never
compiled to bytecode and Guile's own interpreter (``primitive-eval``) runs it. Both sides
time the call alone, the best of N inside one process after a first run, so neither side's
start-up, reading or compilation is counted: in the process's CPU time by default (every
thread's; steady on a busy machine), ``--clock wall`` for elapsed time. The column "ratio"
is taskscheme / Guile (below 1.0: taskscheme is faster); the table ends with the geometric
mean. Without ``guile`` on the PATH (``apt-get install guile-3.0``) the Guile column says
so. Wall-clock figures on a shared machine move by 10-30% between runs.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from timing import best  # noqa: E402

from interpreter import Interpreter  # noqa: E402

sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))


class Program(NamedTuple):
    title: str
    definitions: str  # portable Scheme: R7RS small, SRFI-1's fold/filter/iota, SRFI-69 tables
    call: str  # an expression whose value is an exact integer


PROGRAMS = [
    Program("fib 25", "(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))", "(fib 25)"),
    Program(
        "tak 18 12 6",
        """(define (tak x y z)
             (if (not (< y x)) z
                 (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))""",
        "(tak 18 12 6)",
    ),
    Program(
        "named-let loop, 1,000,000",
        "(define (loop-sum n) (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (+ acc i)))))",
        "(loop-sum 1000000)",
    ),
    Program(
        # taskscheme runs (+ 1 (count …)) as a loop (tail recursion modulo +, compiler/trmp.py);
        # Guile recurses. Real deep recursion, (+ (count …) 1), is bench/run.py's row.
        "count 100000, (+ 1 (count (- n 1)))",
        "(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))",
        "(count 100000)",
    ),
    Program(
        "nqueens 8",
        """(define (queens board-size)
             (define (ok? row dist placed)
               (or (null? placed)
                   (and (not (= (car placed) (+ row dist)))
                        (not (= (car placed) (- row dist)))
                        (not (= (car placed) row))
                        (ok? row (+ dist 1) (cdr placed)))))
             (define (try x y z)
               (if (null? x)
                   (if (null? y) 1 0)
                   (+ (if (ok? (car x) 1 z) (try (append (cdr x) y) '() (cons (car x) z)) 0)
                      (try (cdr x) (cons (car x) y) z))))
             (try (iota board-size 1) '() '()))""",
        "(queens 8)",
    ),
    Program(
        "string port writes, 100,000",
        """(define (port-writes n)
             (let ((port (open-output-string)))
               (do ((i 0 (+ i 1))) ((= i n) (string-length (get-output-string port)))
                 (write-char (integer->char (+ 97 (modulo i 26))) port)
                 (display "ab" port)
                 (display i port))))""",
        "(port-writes 100000)",
    ),
    Program(
        "assoc (string keys), 20,000 lookups",
        """(define keys (map (lambda (i) (string-append "key-" (number->string i))) (iota 100)))
           (define table (map (lambda (k i) (cons k i)) keys (iota 100)))
           (define (lookups n)
             (let loop ((i 0) (acc 0) (ks keys))
               (cond ((= i n) acc)
                     ((null? ks) (loop i acc keys))
                     (else (loop (+ i 1) (+ acc (cdr (assoc (car ks) table))) (cdr ks))))))""",
        "(lookups 20000)",
    ),
    Program(
        "hash tables, 100,000 sets and refs",
        """(define (hash-work n)
             (let ((t (make-hash-table)))
               (do ((i 0 (+ i 1))) ((= i n))
                 (hash-table-set! t i (* i 2)))
               (let loop ((i 0) (acc 0))
                 (if (= i n) acc (loop (+ i 1) (+ acc (hash-table-ref/default t i 0)))))))""",
        "(hash-work 100000)",
    ),
    Program(
        "merge sort of 20,000 numbers",
        """(define (merge a b)
             (cond ((null? a) b)
                   ((null? b) a)
                   ((< (car a) (car b)) (cons (car a) (merge (cdr a) b)))
                   (else (cons (car b) (merge a (cdr b))))))
           (define (split l)
             (if (or (null? l) (null? (cdr l)))
                 (values l '())
                 (let-values (((a b) (split (cddr l))))
                   (values (cons (car l) a) (cons (cadr l) b)))))
           (define (merge-sort l)
             (if (or (null? l) (null? (cdr l)))
                 l
                 (let-values (((a b) (split l))) (merge (merge-sort a) (merge-sort b)))))
           (define numbers (let loop ((i 0) (x 1) (acc '()))
                             (if (= i 20000) acc (loop (+ i 1) (modulo (+ (* x 7919) 13) 100003) (cons x acc)))))
           (define (sorted-checksum)
             (let loop ((l (merge-sort numbers)) (i 0) (acc 0))
               (if (null? l) acc (loop (cdr l) (+ i 1) (modulo (+ acc (* i (car l))) 1000000007)))))""",
        "(sorted-checksum)",
    ),
    Program(
        "hof: fold/filter/map over 300,000",
        "(define (hof n) (fold + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))))",
        "(hof 300000)",
    ),
]

#: What Guile needs before the programs: SRFI-1 (fold, filter, iota), SRFI-11 (let-values) and
#: SRFI-69 (hash tables).
GUILE_PRELUDE = "(use-modules (srfi srfi-1) (srfi srfi-11) (srfi srfi-69))\n"

GUILE_TIMER = """
(define (time-best thunk repeat)
  (let loop ((i 0) (best #f) (value #f))
    (if (= i repeat)
        (cons best value)
        (let* ((start ({clock}))
               (v (thunk))
               (elapsed (/ (- ({clock}) start) (exact->inexact internal-time-units-per-second))))
          (loop (+ i 1) (if (or (not best) (< elapsed best)) elapsed best) v)))))
(let ((result (time-best (lambda () {call}) {repeat})))
  (display (car result)) (newline) (display (cdr result)) (newline))
"""


#: The clocks of ``--clock``: (Python's, Guile's). ``cpu`` is the process's CPU time on both
#: sides (every thread: deep recursion runs on threads of its own), steady on a busy machine;
#: ``wall`` the elapsed time, which counts the other processes' share of the cores too.
CLOCKS = {
    "cpu": (time.process_time, "get-internal-run-time"),
    "wall": (time.perf_counter, "get-internal-real-time"),
}


def guile_time(guile: str, program: Program, repeat: int, clock: str = "cpu") -> tuple[float, int]:
    """Best seconds of ``program.call`` in Guile's interpreter (after a first run), and its value."""
    source = GUILE_PRELUDE + program.definitions + "\n" + program.call + "\n"
    source += GUILE_TIMER.format(call=program.call, repeat=repeat, clock=CLOCKS[clock][1])
    with tempfile.NamedTemporaryFile("w", suffix=".scm", delete=False) as file:
        file.write(source)
    try:
        command = [guile, "--no-auto-compile", "-s", file.name]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    finally:
        Path(file.name).unlink()
    if done.returncode != 0:
        raise SystemExit(f"guile failed on {program.title}:\n{done.stderr[-2000:]}")
    seconds, value = done.stdout.split()[-2:]
    return float(seconds), int(value)


def ours_time(program: Program, repeat: int, clock: str = "cpu") -> tuple[float, int]:
    """Best seconds of ``program.call`` in a default ``Interpreter()`` (after a first run), and its value.

    The call is a procedure's body called through ``Interpreter.call``, as Guile's side calls a
    ``(lambda () call)``: ``Interpreter.eval`` would also read the text and check its names each
    time (~0.1 ms a run, ~1% of the shortest rows)."""
    interp = Interpreter()
    interp.eval(program.definitions)
    interp.eval(f"(define (bench-call) {program.call})")
    value = interp.call("bench-call")  # the first run compiles the bodies it calls
    return best(lambda: interp.call("bench-call"), repeat, CLOCKS[clock][0]), value


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per program (best of them)")
    parser.add_argument("--quick", action="store_true", help="one repetition each")
    parser.add_argument("-k", default="", help="only programs whose title contains this text")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="process CPU time or wall clock")
    opts = parser.parse_args()
    repeat = 1 if opts.quick else opts.repeat
    guile = shutil.which("guile")
    version = ""
    if guile is not None:
        version = subprocess.run([guile, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print(f"taskscheme (Python {sys.version.split()[0]}) beside {version or 'no guile on the PATH'}"
          f" (--no-auto-compile: interpreted); {opts.clock} time, best of {repeat}\n")
    print("| program | taskscheme (s) | Guile interpreter (s) | ratio |")
    print("|---|---:|---:|---:|")
    ratios = []
    for program in PROGRAMS:
        if opts.k.lower() not in program.title.lower():
            continue
        ours, value = ours_time(program, repeat, opts.clock)
        if guile is None:
            print(f"| {program.title} | {ours:.3f} | (no guile) | |", flush=True)
            continue
        theirs, their_value = guile_time(guile, program, repeat, opts.clock)
        assert value == their_value, f"{program.title}: taskscheme {value!r} != Guile {their_value!r}"
        ratios.append(ours / theirs)
        print(f"| {program.title} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f}× |", flush=True)
    if ratios:
        print(f"| **geometric mean** | | | **{geometric_mean(ratios):.2f}×** |")


if __name__ == "__main__":
    main()
