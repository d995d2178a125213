"""Fuzzing a limited interpreter: random, generated and mutated programs give only taskscheme errors.

Every example runs on a worker thread with a hard wall-clock bound a little past the
interpreter's timeout, so a hang fails the test instead of stalling it.
"""

from __future__ import annotations

import io
import threading
from typing import Any

import pytest

# tests/fuzz as `fuzz`: pytest puts tests/ (no __init__.py) on sys.path, also under -P --installed
from fuzz.findings import FINDINGS, WITHOUT_MEMORY_BUDGET
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import Interpreter, SchemeError, SchemeExit

pytestmark = pytest.mark.slow  # thousands of programs: CI runs them on one Python

TIMEOUT = 1.0
#: Seconds past the timeout an example may take (slow CI machines, one long primitive).
SLACK = 4.0
LIMITS: dict[str, Any] = {"max_steps": 30_000, "timeout": TIMEOUT, "max_depth": 300, "max_output": 5_000}

NAMES = ["x", "y", "f", "lst", "loop", "k", "err", "v"]
PRIMITIVES = [
    "+", "-", "*", "/", "quotient", "modulo", "expt", "sqrt", "abs", "min", "max", "exact->inexact",
    "=", "<", "eq?", "equal?", "not", "null?", "pair?", "car", "cdr", "cons", "list", "length", "reverse",
    "append", "list-ref", "map", "for-each", "apply", "assoc", "member", "vector", "make-vector",
    "vector-ref", "vector-set!", "list->vector", "vector->list", "vector-append", "make-string",
    "string-append", "string-length", "substring", "string-upcase", "number->string", "string->number",
    "symbol->string", "string->symbol", "string->list", "list->string", "make-equal-hash-table",
    "hash-table-set!", "hash-table-ref", "display", "write", "newline", "error", "raise", "get",
    "make-task-result", "iota", "make-list", "string-join", "exit",
]  # fmt: skip

atoms = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.integers().map(str),
    st.sampled_from(["1/3", "-2/7", "1.5", "-0.0", "+inf.0", "+nan.0", "1e308", "#t", "#f", "'()", "#\\a"]),
    st.text(st.sampled_from('ab "\\\n'), max_size=6).map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    ),
    st.sampled_from(NAMES),
    st.sampled_from(["'sym", "'(1 2 3)", "#(1 2)", "(list 1 2)", '"text"']),
)


def compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    name = st.sampled_from(NAMES)
    return st.one_of(
        st.builds(lambda p, args: f"({p} {' '.join(args)})", st.sampled_from(PRIMITIVES), st.lists(inner, max_size=3)),
        st.builds(lambda a, b, c: f"(if {a} {b} {c})", inner, inner, inner),
        st.builds(lambda n, a, b: f"(let (({n} {a})) {b})", name, inner, inner),
        st.builds(lambda n, b: f"(lambda ({n}) {b})", name, inner),
        st.builds(lambda f, a: f"({f} {a})", inner, inner),
        st.builds(lambda a, b: f"(begin {a} {b})", inner, inner),
        st.builds(lambda n, a: f"(define {n} {a})", name, inner),
        st.builds(lambda n, a: f"(set! {n} {a})", name, inner),
        st.builds(lambda n, b: f"(define ({n} x) {b})", name, inner),
        st.builds(lambda a, b, c: f"(let loop ((x {a})) (if {b} (loop {c}) x))", inner, inner, inner),
        st.builds(lambda a, b: f"(guard (err (#t {a})) {b})", inner, inner),
        st.builds(lambda a: f"(call/cc (lambda (k) {a}))", inner),
        st.builds(lambda a, b: f"(do ((i 0 (+ i 1))) ((> i {a}) {b}))", inner, inner),
        st.builds(lambda a: f"(quote {a})", inner),
        st.builds(lambda a, b: f"(with-exception-handler (lambda (e) {a}) (lambda () {b}))", inner, inner),
    )


expressions = st.recursive(atoms, compound, max_leaves=12)

#: Programs that run into a limit, to fuzz each limit's path (doubling a list until the
#: allocation cap takes seconds, so it is in test_limits.py instead).
RUNAWAYS = st.sampled_from(
    [
        "(let loop () (loop))",
        "(define (down n) (+ 1 (down n))) (down 0)",
        '(let loop () (display "flood") (loop))',
        '(let loop ((s "ab")) (loop (string-append s s)))',
        "(let loop ((l (list 1))) (if (< (length l) 5000) (loop (append l l)) l))",
        "(define (f) (map (lambda (x) (f)) '(1 2))) (f)",
        "(let loop ((n 2)) (loop (* n n)))",
        "(make-vector (expt 10 12))",
    ]
)

programs = st.one_of(
    st.lists(expressions, min_size=1, max_size=4).map("\n".join),
    st.tuples(expressions, RUNAWAYS).map(" ".join),
    st.text(st.sampled_from("()[]'`,@#\\\";.| \nabcxyz0123-+/*?!=<>λ"), max_size=60),
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A generated program with a few characters deleted, inserted or duplicated."""
    text = draw(st.lists(expressions, min_size=1, max_size=3).map("\n".join))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = draw(st.integers(i, min(len(text), i + 8)))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            text = text[:i] + text[j:]
        elif action == "insert":
            text = text[:i] + draw(st.sampled_from(list("()'\"#\\ ;`,@."))) + text[i:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


def run_bounded(interp: Interpreter, source: str) -> None:
    """Evaluate ``source``; fail on any non-taskscheme exception or on running past the bound."""
    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            interp.eval(source)
            outcome.append(None)
        except (SchemeError, SchemeExit):
            outcome.append(None)
        except BaseException as exc:  # what the test is looking for
            outcome.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(TIMEOUT + SLACK)
    assert not worker.is_alive(), f"ran past the timeout: {source!r}"
    assert outcome, source
    if outcome[0] is not None:
        raise AssertionError(f"{type(outcome[0]).__name__} escaped for {source!r}") from outcome[0]


def fresh() -> Interpreter:
    return Interpreter(stdlib=False, stdout=io.StringIO(), stdin=io.StringIO(""), **LIMITS)


FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@FUZZ
@given(programs)
def test_random_programs_give_only_taskscheme_errors(source: str) -> None:
    run_bounded(fresh(), source)


@FUZZ
@given(mutated())
def test_mutated_programs_give_only_taskscheme_errors(source: str) -> None:
    run_bounded(fresh(), source)


SHARED = Interpreter(stdout=io.StringIO(), stdin=io.StringIO(""), **LIMITS)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(programs)
def test_one_interpreter_survives_a_stream_of_programs(source: str) -> None:
    """With the standard library, and reusing one interpreter after every limit and error."""
    run_bounded(SHARED, source)
    run_bounded(SHARED, "(car (list 1))")


#: The 2,000 programs in chunks of 400 (a multiple of 200: each chunk makes its interpreters
#: where the whole run would), so ``-n N`` runs them on several workers (tests/scheduling.py).
FUZZ_CHUNK = 400


@pytest.mark.parametrize("start", range(0, 2000, FUZZ_CHUNK))
def test_two_thousand_fuzzed_programs_stay_inside_their_limits(start: int) -> None:
    """tests/fuzz: random, mutated, deeply nested and huge-number programs under limits,
    a fixed seed. No leak (Python exception), no overrun (past timeout + 0.5 s), no hang."""
    from tests.fuzz import fuzz

    report = fuzz(FUZZ_CHUNK, seed=0, start=start)
    assert report.count == FUZZ_CHUNK
    assert not report.findings, "\n".join(
        f"[{f.kind}] #{f.index} {f.detail}: {f.program[:200]!r}" for f in report.findings
    )


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_past_findings_of_the_long_runs_stay_fixed(name: str) -> None:
    """Each program a long fuzz run found (tests/fuzz/findings.py) now ends in a value or
    a taskscheme error, using at most its timeout plus 0.5 s of CPU."""
    from tests.fuzz import fresh, run_one

    interp = fresh(max_memory=None) if name in WITHOUT_MEMORY_BUDGET else fresh()
    kind, detail, _ = run_one(interp, FINDINGS[name])
    assert kind is None, f"{kind}: {detail}"


def test_big_integers_in_messages_are_shortened() -> None:
    interp = Interpreter(stdout=io.StringIO())
    with pytest.raises(SchemeError) as info:
        interp.eval("(list-tail (list 1 2) (- (expt 10 5000)))")
    assert info.value.message == "list-tail: index -1000000000… (5001 digits) out of range"
    with pytest.raises(SchemeError) as info:
        interp.eval("(vector-ref (vector 1) (expt 2 100))")
    assert info.value.kind == "index-error"
    assert "index 1267650600… (31 digits) out of range for vector of length 1" in info.value.message


def test_an_overrun_is_cpu_spent_past_the_bound_and_waiting_is_not() -> None:
    """The fuzzer's rule: more than timeout + 0.5 s of CPU is an overrun, whatever the
    wall clock says; a host function that only waits (no CPU) past the bound is slow, not
    an overrun, so a loaded machine cannot fail the run."""
    import time as clock

    from tests.fuzz import OVERRUN, TIMEOUT, fresh, run_one

    def burn() -> bool:  # a host function: no deadline check inside
        end = clock.process_time() + TIMEOUT + OVERRUN + 0.2
        while clock.process_time() < end:
            pass
        return True

    def wait() -> bool:
        clock.sleep(TIMEOUT + OVERRUN + 0.2)
        return True

    interp = fresh()
    interp.define("burn", burn)
    interp.define("wait", wait)
    kind, detail, measure = run_one(interp, "(burn)")
    assert kind == "overrun" and measure.cpu > TIMEOUT + OVERRUN, detail
    kind, detail, measure = run_one(interp, "(wait)")
    assert kind is None and measure.wall > TIMEOUT + OVERRUN and measure.cpu < TIMEOUT, detail
