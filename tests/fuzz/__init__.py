"""A fuzzer for untrusted programs: random and mutated programs, deep nesting and huge
numbers, run under limits. Each program must end in a value or a taskscheme error
(never a Python exception: a *leak*), using at most its timeout plus half a second of
CPU time (else an *overrun*; CPU time, so that a loaded machine does not make one), and
never hang (still running 10 s past its timeout on the wall clock: a *hang*). Each
program's CPU and wall time, collector passes, time past its deadline and time to drop
its result are measured (:class:`Measure`); a program past its timeout but inside the
bound is reported as *slow*.

    python -m tests.fuzz --count 100000 --seed 1      # a long run (chunks: --start N)
    python -m tests.fuzz --count 2000                 # what CI runs (tests/test_fuzz.py)

Programs come from one ``random.Random(seed)``, so a finding is reproduced by its seed
and index (``--show N`` prints program N).
"""

from __future__ import annotations

import gc
import io
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from interpreter import Interpreter, SchemeError, SchemeExit
from interpreter.collector import settle

TIMEOUT = 0.5
#: How far past its timeout a program may end (the issue's bound).
OVERRUN = 0.5
#: Past this a program counts as hung and is abandoned.
HANG = 10.0
LIMITS: dict[str, Any] = {
    "max_steps": 20_000,
    "timeout": TIMEOUT,
    "max_depth": 300,
    "max_output": 5_000,
    "max_memory": 128 * 2**20,
}

NAMES = ["x", "y", "f", "lst", "loop", "k", "err", "v", "s", "h"]
PRIMITIVES = [
    "+", "-", "*", "/", "quotient", "modulo", "expt", "sqrt", "exact-integer-sqrt", "abs", "min", "max",
    "exact->inexact", "exact", "number->string", "string->number", "=", "<", "eq?", "equal?", "not",
    "null?", "pair?", "car", "cdr", "cons", "list", "length", "reverse", "append", "list-ref", "map",
    "for-each", "apply", "assoc", "member", "sort", "vector", "make-vector", "vector-ref", "vector-set!",
    "list->vector", "vector->list", "vector-append", "make-string", "string-append", "string-length",
    "substring", "string-upcase", "symbol->string", "string->symbol", "string->list", "list->string",
    "make-equal-hash-table", "hash-table-set!", "hash-table-ref", "display", "write", "newline", "error",
    "raise", "iota", "make-list", "string-join", "open-output-string", "write-string", "get-output-string",
    "read-line", "read", "exit", "square", "gcd", "lcm", "exact-rational?", "char->integer",
]  # fmt: skip
ATOMS = [
    "0", "1", "-1", "7", "1000", "1/3", "-2/7", "1.5", "-0.0", "+inf.0", "+nan.0", "1e308", "#t", "#f",
    "'()", "#\\a", '"ab"', '""', "'sym", "'(1 2 3)", "#(1 2)", "(list 1 2)", '"text\\n"',
    "#e1e400", "#e1.5e-30", "(expt 10 400)", "(expt 2 100000)", "99999999999999999999999999",
    "#x" + "f" * 40, "(make-string 1000 #\\z)", "(iota 1000)",
]  # fmt: skip
HUGE = ["#e1e999999999", "#e1e60000", "1" * 60_000, "(expt 10 (expt 10 10))", "(expt 7 70000)"]
RUNAWAYS = [
    "(let loop () (loop))",
    "(define (down n) (+ 1 (down n))) (down 0)",
    '(let loop () (display "flood") (loop))',
    '(let loop ((s "ab")) (loop (string-append s s)))',
    "(let loop ((l (list 1))) (loop (append l l)))",
    "(define (f) (map (lambda (x) (f)) '(1 2))) (f)",
    "(let loop ((n 2)) (loop (* n n)))",
    "(make-vector (expt 10 12))",
    "(let loop ((acc '())) (loop (cons (make-vector 100000 0) acc)))",
    "(define h (make-equal-hash-table)) (let loop ((i 0)) (hash-table-set! h i i) (loop (+ i 1)))",
    "(define l (iota 1000000)) (define m (iota 1000000)) (let loop () (equal? l m) (loop))",
    "(define-syntax dbl (syntax-rules () ((_ () x) x) ((_ (n . ns) x) (dbl ns (begin x x)))))"
    "(define (g) (dbl (1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26) (display 1)))",
]
NESTING_OPS = ["+", "-", "*", "string-append", "car", "not", "list", "if", "let", "and", "vector"]
MUTATIONS = "()'\"#\\ ;`,@.[]|"


class Generator:
    """Programs drawn from one random stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def atom(self) -> str:
        r = self.rng.random()
        if r < 0.03:
            return self.rng.choice(HUGE)
        if r < 0.25:
            return str(self.rng.randint(-(2**70), 2**70))
        if r < 0.5:
            return self.rng.choice(NAMES)
        return self.rng.choice(ATOMS)

    def expr(self, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.atom()
        sub = lambda: self.expr(depth - 1)
        name = rng.choice(NAMES)
        forms = [
            lambda: f"({rng.choice(PRIMITIVES)} {' '.join(sub() for _ in range(rng.randint(0, 3)))})",
            lambda: f"(if {sub()} {sub()} {sub()})",
            lambda: f"(let (({name} {sub()})) {sub()})",
            lambda: f"(lambda ({name}) {sub()})",
            lambda: f"({sub()} {sub()})",
            lambda: f"(begin {sub()} {sub()})",
            lambda: f"(define {name} {sub()})",
            lambda: f"(set! {name} {sub()})",
            lambda: f"(define ({name} x) {sub()})",
            lambda: f"(let loop ((x {sub()})) (if {sub()} (loop {sub()}) x))",
            lambda: f"(guard (err (#t {sub()})) {sub()})",
            lambda: f"(call/cc (lambda (k) {sub()}))",
            lambda: f"(do ((i 0 (+ i 1))) ((> i {sub()}) {sub()}))",
            lambda: f"(quote {sub()})",
            lambda: f"(with-exception-handler (lambda (e) {sub()}) (lambda () {sub()}))",
            lambda: self.nested(rng.randint(5, 60)),
        ]
        return rng.choice(forms)()

    def nested(self, depth: int) -> str:
        """One operator nested ``depth`` deep around a variable."""
        op = self.rng.choice(NESTING_OPS)
        expr = "x"
        for _ in range(depth):
            if op == "if":
                expr = f"(if (< x 0) 0 {expr})"
            elif op == "let":
                expr = f"(let ((y (+ x 1))) {expr})"
            elif op == "and":
                expr = f"(and (pair? (list x)) {expr})"
            elif op in ("car", "not"):
                expr = f"({op} (list {expr}))"
            else:
                expr = f"({op} {expr} {self.atom()})"
        return f"(define (nest x) {expr}) (nest {self.atom()})"

    def program(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.05:
            return self.expr(3) + " " + rng.choice(RUNAWAYS)
        if r < 0.1:
            return "".join(rng.choice("()[]'`,@#\\\";.| \nabcxyz0123-+/*?!=<>λ") for _ in range(rng.randint(0, 60)))
        text = "\n".join(self.expr(rng.randint(1, 5)) for _ in range(rng.randint(1, 4)))
        if r < 0.4:
            text = self.mutate(text)
        return text

    def mutate(self, text: str) -> str:
        rng = self.rng
        for _ in range(rng.randint(1, 4)):
            if not text:
                break
            i = rng.randrange(len(text))
            j = min(len(text), i + rng.randint(0, 8))
            action = rng.choice(("delete", "insert", "duplicate"))
            if action == "delete":
                text = text[:i] + text[j:]
            elif action == "insert":
                text = text[:i] + rng.choice(MUTATIONS) + text[i:]
            else:
                text = text[:j] + text[i:j] + text[j:]
        return text


def programs(count: int, seed: int, start: int = 0) -> Iterator[str]:
    """Programs ``start`` to ``start + count - 1`` of ``seed``'s stream (the ones before
    are drawn and dropped, so program N is the same whatever the chunking)."""
    generator = Generator(random.Random(seed))
    for _ in range(start):
        generator.program()
    for _ in range(count):
        yield generator.program()


@dataclass
class Finding:
    index: int
    kind: str  # "leak", "overrun", "hang"; or "slow": past its timeout but inside the bound
    program: str
    detail: str

    def line(self) -> str:
        return f"[{self.kind}] #{self.index}: {self.detail}\n    {self.program[:300]!r}"


@dataclass
class Report:
    count: int = 0
    seconds: float = 0.0
    slowest: float = 0.0  # most CPU seconds one program used
    slowest_wall: float = 0.0
    settled: float = 0.0  # most seconds one settle() between two programs took (the host's cost)
    collecting: float = 0.0  # most seconds the collector ran during one program
    full_freed: int = 0  # most objects the full collections during one program freed
    slow: list[Finding] = field(default_factory=list)  # past TIMEOUT in CPU, or past the bound on the wall clock
    findings: list[Finding] = field(default_factory=list)

    def of(self, kind: str) -> int:
        return sum(1 for f in self.findings if f.kind == kind)

    def summary(self) -> str:
        return (
            f"{self.count} programs in {self.seconds:.1f} s: {self.of('leak')} leaks, {self.of('overrun')} overruns, "
            f"{self.of('hang')} hangs (most CPU {self.slowest:.2f} s, longest wall {self.slowest_wall:.2f} s, "
            f"timeout {TIMEOUT} s; {len(self.slow)} slow but inside the bound; "
            f"collector: at most {self.collecting:.2f} s and {self.full_freed} objects freed by full passes "
            f"in one program, at most {self.settled:.2f} s between programs)"
        )


def fresh(**settings: Any) -> Interpreter:
    """An interpreter with the fuzzer's :data:`LIMITS` (``settings`` override them)."""
    return Interpreter(stdout=io.StringIO(), **{**LIMITS, **settings})


class CollectorLog:
    """A ``gc.callbacks`` entry that adds up, per generation, the collector's passes, their
    seconds and the objects they freed, until :meth:`reset`."""

    def __init__(self) -> None:
        self.passes = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self.collected = [0, 0, 0]
        self._began = 0.0

    def reset(self) -> None:
        self.passes, self.seconds, self.collected = [0, 0, 0], [0.0, 0.0, 0.0], [0, 0, 0]

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        generation = info["generation"]
        self.passes[generation] += 1
        self.seconds[generation] += time.perf_counter() - self._began
        self.collected[generation] += info["collected"]

    def __enter__(self) -> CollectorLog:
        self.reset()
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


@dataclass
class Measure:
    """What one program cost. ``cpu`` is the process's CPU time from the start of the
    eval until its value or error was dropped (the program's thread, and the threads deep
    recursion hops to; nothing else runs meanwhile), ``wall`` the same span on the clock;
    ``past_deadline`` the wall seconds from the run's deadline until the eval returned;
    ``drop`` the seconds it took to drop the value or error afterwards; ``gc`` the
    collector's passes, seconds and freed objects per generation in between."""

    cpu: float = 0.0
    wall: float = 0.0
    past_deadline: float = 0.0
    drop: float = 0.0
    gc_passes: list[int] = field(default_factory=lambda: [0, 0, 0])
    gc_seconds: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    gc_collected: list[int] = field(default_factory=lambda: [0, 0, 0])

    def line(self) -> str:
        gcs = ", ".join(
            f"gen{g} {n}x {s:.2f} s {c} freed"
            for g, (n, s, c) in enumerate(zip(self.gc_passes, self.gc_seconds, self.gc_collected))
            if n
        )
        return (
            f"{self.cpu:.2f} s of CPU, {self.wall:.2f} s wall, {self.past_deadline:.2f} s past the deadline, "
            f"{self.drop:.2f} s to drop the result; collector: {gcs or 'none'}"
        )


COLLECTOR = CollectorLog()


def run_one(interp: Interpreter, source: str) -> tuple[str | None, str, Measure]:
    """``(finding kind or None, detail, measure)`` for one program on ``interp``.

    An *overrun* is a program that used more than ``TIMEOUT + OVERRUN`` seconds of CPU
    (:class:`Measure`): the CPU a program uses is its own work whatever else the machine
    is doing, while its wall-clock time also counts the time it waited for a core. A
    program still running ``HANG`` seconds past its timeout on the wall clock is a *hang*
    (the backstop)."""
    outcome: list[BaseException | None] = []
    measure = Measure()

    def work() -> None:
        result: Any = None
        failure: BaseException | None = None
        try:
            result = interp.eval(source)
        except (SchemeError, SchemeExit) as exc:
            failure = exc
        except BaseException as exc:  # what the fuzzer looks for
            outcome.append(exc)
        returned = time.monotonic()
        deadline = interp.runtime.deadline
        measure.past_deadline = max(0.0, returned - deadline) if deadline is not None else 0.0
        del result, failure  # the program's value or error, and what it holds
        measure.drop = time.monotonic() - returned
        outcome.append(None)

    with COLLECTOR:
        start, cpu_start = time.monotonic(), time.process_time()
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(TIMEOUT + HANG)
        measure.wall = time.monotonic() - start
        measure.cpu = time.process_time() - cpu_start
        measure.gc_passes, measure.gc_seconds = list(COLLECTOR.passes), list(COLLECTOR.seconds)
        measure.gc_collected = list(COLLECTOR.collected)
    if worker.is_alive():
        # Stop the abandoned program at its next check, or it keeps a core busy for the
        # rest of the run and makes every later program look slow.
        interp.runtime.interrupt()
        return "hang", f"still running after {measure.wall:.1f} s", measure
    if outcome and outcome[0] is not None:
        return "leak", f"{type(outcome[0]).__name__}: {outcome[0]}"[:300], measure
    if measure.cpu > TIMEOUT + OVERRUN:
        return "overrun", measure.line(), measure
    return None, "", measure


def fuzz(count: int, seed: int = 0, progress: Any = None, start: int = 0) -> Report:
    """Run programs ``start`` … ``start + count - 1`` of ``seed``; a new interpreter every
    200 programs (counted from 0, so a chunk runs as the whole run would) and after a hang
    or an overrun; :func:`interpreter.collector.settle` before each. ``progress`` gets each finding, each slow program (:class:`Report`)
    with its :class:`Measure`, and a line every 1,000 programs."""
    report = Report()
    began = time.monotonic()
    interp = fresh()
    for index, source in enumerate(programs(count, seed, start), start):
        if index != start and index % 200 == 0:
            interp.close()  # its data freed now, not in a full collection during a later program
            interp = fresh()
        # The garbage earlier programs left, collected between programs when due, as a
        # long-lived host may do (else the next eval does it before its deadline starts).
        report.settled = max(report.settled, settle())
        kind, detail, measure = run_one(interp, source)
        report.count += 1
        report.slowest = max(report.slowest, measure.cpu)
        report.slowest_wall = max(report.slowest_wall, measure.wall)
        report.collecting = max(report.collecting, sum(measure.gc_seconds))
        report.full_freed = max(report.full_freed, measure.gc_collected[2])
        if kind is None and (measure.cpu > TIMEOUT or measure.wall > TIMEOUT + OVERRUN):
            kind, detail = "slow", measure.line()
        if kind is not None:
            finding = Finding(index, kind, source, detail)
            (report.slow if kind == "slow" else report.findings).append(finding)
            if progress is not None:
                progress(finding.line())
            if kind in ("hang", "overrun"):
                if not interp.runtime.running:  # else a hung program's thread still holds it
                    interp.close()
                interp = fresh()
        if progress is not None and (index + 1 - start) % 1000 == 0:
            progress(f"{index + 1 - start}/{count}: {len(report.findings)} findings so far")
    report.seconds = time.monotonic() - began
    return report
