"""Limits: max_steps, timeout, max_depth, max_output and memory bombs; the interpreter survives each."""

from __future__ import annotations

import io
import time
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.limits import MAX_ELEMENTS, MAX_STRING

LOOP = "(let loop ((i 0)) (loop (+ i 1)))"
DEEP = "(define (down n) (+ 1 (down n))) (down 0)"
# Tree recursion, 30 deep: only non-tail calls inside a compiled body, none through the
# trampoline, and too shallow to reach the depth mark.
TREE = "(define (tree n) (if (= n 0) 0 (+ (tree (- n 1)) (tree (- n 1))))) (tree 30)"


class Clock:
    """Wall-clock and CPU seconds since it was made.

    A limit that does not hold shows as CPU time: the program keeps computing past its
    timeout. On a loaded machine the wall clock runs on while the process waits for a
    core, so tests bound the process's CPU time by the configured timeout plus slack, and
    the wall clock only by a generous figure that catches a program that never stops."""

    #: CPU seconds a run may use past its timeout (the issue's bound is 0.5 s).
    SLACK = 1.0
    #: Wall-clock seconds past which a run counts as not stopped at all.
    NEVER = 60.0

    def __init__(self) -> None:
        self.wall = time.monotonic()
        self.cpu = time.process_time()

    def within(self, seconds: float) -> None:
        """Assert the run used at most ``seconds`` + SLACK of CPU and ended at all."""
        cpu = time.process_time() - self.cpu
        wall = time.monotonic() - self.wall
        assert cpu < seconds + self.SLACK, f"{cpu:.2f} s of CPU for a bound of {seconds} s"
        assert wall < seconds + self.NEVER, f"{wall:.2f} s of wall clock"


def exhausted(interp: Interpreter, source: str) -> SchemeError:
    with pytest.raises(SchemeError) as info:
        interp.eval(source)
    assert info.value.kind == "resource-exhaustion", info.value.message
    return info.value


def survives(interp: Interpreter) -> None:
    """Definitions made before the limit are intact and the interpreter still runs programs."""
    assert interp.eval("kept") == "yes"
    assert interp.eval("(let loop ((i 0)) (if (< i 100) (loop (+ i 1)) i))") == 100


@pytest.mark.parametrize(
    ("settings", "source", "names"),
    [
        ({"max_steps": 5000}, LOOP, "max_steps = 5000"),
        ({"timeout": 0.3}, LOOP, "timeout = 0.3 s"),
        ({"max_steps": 5000}, TREE, "max_steps = 5000"),
        ({"timeout": 0.3}, TREE, "timeout = 0.3 s"),
        ({"timeout": 0.3}, DEEP, "timeout = 0.3 s"),
        ({"max_depth": 200}, DEEP, "max_depth = 200"),
        ({"max_output": 50}, '(let loop () (display "abc") (loop))', "max_output = 50 characters"),
    ],
)
def test_each_limit_names_itself_and_leaves_the_interpreter_usable(
    settings: dict[str, Any], source: str, names: str
) -> None:
    interp = Interpreter(stdout=io.StringIO(), **settings)
    interp.eval('(define kept "yes")')
    err = exhausted(interp, source)
    assert names in err.message
    assert err.details["limit"] == next(iter(settings.values()))
    survives(interp)


@pytest.mark.parametrize("source", [LOOP, TREE, DEEP])
def test_timeout_stops_every_shape_of_program_on_time(source: str) -> None:
    interp = Interpreter(timeout=0.3)
    clock = Clock()
    exhausted(interp, source)
    clock.within(0.3)


@pytest.mark.parametrize("source", ["(define (f i) (f (+ i 1))) (f 0)", TREE])
def test_max_steps_is_exact_enough(source: str) -> None:
    interp = Interpreter(max_steps=100)
    err = exhausted(interp, source)
    assert err.details["used"] <= 101


def test_max_steps_counts_the_whole_source() -> None:
    interp = Interpreter(max_steps=3000)
    interp.eval("(define (count n) (if (> n 0) (count (- n 1)) 'done))")
    assert interp.eval("(count 2000)") is not None
    exhausted(interp, "(count 2000) (count 2000)")


def test_max_depth_allows_deep_tail_calls_and_shallow_recursion() -> None:
    interp = Interpreter(max_depth=300)
    assert interp.eval("(let loop ((i 0)) (if (< i 100000) (loop (+ i 1)) i))") == 100000
    assert interp.eval("(define (sum n) (if (= n 0) 0 (+ n (sum (- n 1))))) (sum 250)") == 250 * 251 // 2
    exhausted(interp, "(sum 400)")


def test_timeout_stops_slow_steps_soon() -> None:
    """A loop whose every step is a big primitive still stops near its timeout."""
    interp = Interpreter(timeout=0.5)
    clock = Clock()
    exhausted(
        interp, "(let loop ((s (make-string 100000 #\\a)) (i 0)) (string-length (string-copy s)) (loop s (+ i 1)))"
    )
    clock.within(0.5)


def test_timeout_covers_a_running_script() -> None:
    interp = Interpreter(allow_scripts=True, timeout=0.5)
    start = time.monotonic()
    err = exhausted(interp, '(run-script "sleep 20")')
    assert "timeout = 0.5 s" in err.message
    # waiting costs no CPU, so the wall clock is the measure: well short of the script's 20 s
    assert time.monotonic() - start < 10.0


def test_output_limit_writes_up_to_the_limit() -> None:
    out = io.StringIO()
    interp = Interpreter(stdout=out, max_output=10)
    exhausted(interp, '(display "0123456789abc")')
    assert out.getvalue() == "0123456789"
    interp.eval('(display "again")')  # the budget is per run
    assert out.getvalue().endswith("again")


def test_output_limit_counts_the_error_port(monkeypatch: pytest.MonkeyPatch) -> None:
    errors = io.StringIO()
    monkeypatch.setattr("sys.stderr", errors)
    interp = Interpreter(stdout=io.StringIO(), max_output=20)
    exhausted(interp, '(let loop () (write-string "e" (current-error-port)) (loop))')
    assert errors.getvalue() == "e" * 20


def test_limits_can_be_caught_by_the_program_but_are_still_limits() -> None:
    interp = Interpreter(max_steps=10_000)
    got = interp.eval(
        f"(guard (e ((eq? (error-object-kind e) 'resource-exhaustion) (condition/report-string e))) {LOOP})"
    )
    assert "max_steps = 10000" in got


# -- memory bombs ----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    "source",
    [
        "(make-vector 1e12)",
        "(make-vector (expt 10 12))",
        "(make-string 1e12)",
        "(make-string (expt 10 12))",
        "(make-list (expt 10 12))",
        "(make-bytevector (expt 10 12))",
        "(expt 10 (expt 10 10))",
        "(expt 2.5 (expt 10 10))",
        "(iota (expt 10 12))",
        '(let loop ((s "ab")) (loop (string-append s s)))',
        '(let loop ((s "ab")) (loop (string-join (list s s) "")))',
        "(let loop ((l (list 1 2))) (loop (append l l)))",
        "(let loop ((v (vector 1 2))) (loop (vector-append v v)))",
        "(let loop ((b (bytevector 1 2))) (loop (bytevector-append b b)))",
        "(let loop ((n 2)) (loop (* n n)))",
    ],
)
def test_memory_bombs_are_refused(source: str) -> None:
    interp = Interpreter(timeout=10)
    interp.eval('(define kept "yes")')
    clock = Clock()
    try:
        value = interp.eval(source)
    except SchemeError as err:
        expected = "type-error" if "1e12" in source else "resource-exhaustion"  # sizes must be exact
        assert err.kind == expected, err.message
    else:
        assert isinstance(value, float)  # (expt 2.5 huge) is +inf.0, not a bomb
    clock.within(7)  # refused or ended by memory, not by the 10 s timeout
    survives(interp)


def test_allocation_caps_are_documented_figures() -> None:
    interp = Interpreter()
    err = exhausted(interp, f"(make-vector {MAX_ELEMENTS + 1})")
    assert f"limit {MAX_ELEMENTS}" in err.message
    assert interp.eval(f"(vector-length (make-vector {MAX_ELEMENTS}))") == MAX_ELEMENTS
    assert MAX_STRING >= MAX_ELEMENTS


def test_deeply_nested_source_is_an_error_not_a_crash() -> None:
    interp = Interpreter()
    for source in ["(" * 50_000 + ")" * 50_000, "'" + "(" * 50_000 + ")" * 50_000]:
        with pytest.raises(SchemeError):
            interp.eval(source)
    assert interp.eval("(+ 1 1)") == 2


def test_converting_a_value_cannot_expand_it_without_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shared structure stays shared when converted (a doubled value is 80 pairs, not 2^40
    elements); distinct elements past the cap are refused."""
    monkeypatch.setattr("interpreter.conversion.MAX_ELEMENTS", 10_000)
    interp = Interpreter()
    interp.eval('(define kept "yes")')
    doubled = interp.eval("(let loop ((x '()) (n 0)) (if (= n 40) x (loop (list x x) (+ n 1))))")
    assert doubled[0] is doubled[1]
    err = exhausted(interp, "(iota 20000)")
    assert "limit 10000" in err.message
    assert len(interp.eval("(make-list 5000 0)")) == 5000
    survives(interp)


def test_a_tiny_timeout_limits_the_program_not_the_interpreters_own_set_up() -> None:
    interp = Interpreter(timeout=1e-9)  # loading the stdlib is not the program's time
    with pytest.raises(SchemeError) as info:
        interp.eval("(list-tabulate 3 (lambda (i) (let loop () (loop))))")
    assert info.value.details["resource"] == "time"


@pytest.mark.slow
def test_the_largest_vector_converts_and_a_refusal_counts_the_elements_made() -> None:
    interp = Interpreter()
    assert len(interp.eval(f"(make-vector {MAX_ELEMENTS} 0)")) == MAX_ELEMENTS
    shared = interp.eval("(let ((v (make-vector 3000000 0))) (list v v))")
    assert shared[0] is shared[1]  # one vector, converted once
    err = exhausted(interp, "(list (make-vector 3000000 0) (make-vector 3000000 0))")
    # 2 list elements + 3,000,000 + 3,000,000: the first count past the cap
    assert err.message == f"conversion: number of elements 6000002 is too large (limit {MAX_ELEMENTS})"


def test_loop_rounds_are_steps_only_under_a_step_limit() -> None:
    """Without max_steps (or max_memory) a round of a compiled loop only looks for attention,
    as a call does; the timeout, Ctrl-C and cancellation reach it through ``attend`` (the
    tests above). Under max_steps every round is a step."""
    source = "(define (sum-to n) (let loop ((i 0) (s 0)) (if (= i n) s (loop (+ i 1) (+ s i)))))"
    counted = {}
    for name, interp in (("free", Interpreter()), ("limited", Interpreter(max_steps=10**6))):
        interp.eval(source)
        before = interp.runtime.steps
        assert interp.eval("(sum-to 10000)") == sum(range(10000))
        counted[name] = interp.runtime.steps - before
    assert counted["free"] < 10 and counted["limited"] > 10000
