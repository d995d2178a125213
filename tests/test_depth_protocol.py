"""The depth protocol of compiled bodies (``compiler.body.TEMPLATE``): a body gets its level as
an argument and keeps no count in the runtime; it publishes its level in ``rt.depth``
before every call out of it, where the runtime reads it.

Each program below calls out one way (a primitive that calls a procedure, a fallback, a
form compiled on its own, a pending tail call, a task …) from a body at some depth, and the
procedure reached recurses to just under ``max_depth`` or past it. Run twice: as it is, and
under ``POISON_DEPTH``, where a body entered and a compiled call returned leave a level past
every ``max_depth`` in ``rt.depth``, so a call out that does not publish the body's level
fails at once instead of counting from a stale one."""

from __future__ import annotations

import pytest
from helpers import assert_error

from interpreter import Interpreter
from interpreter.compiler import emitter

MAX_DEPTH = 300

DEFINITIONS = """
(define (d n) (if (= n 0) 0 (+ 1 (d (- n 1)))))
(define (at k thunk) (if (= k 0) (thunk) (+ 0 (at (- k 1) thunk))))
(define (tail-to-d n) (d n))
(define (trmc n m) (if (= n 0) (tail-to-d m) (cons n (trmc (- n 1) m))))
(define-task (task-d n) (context (inherit none)) (d n))
(define (call-with f n) (+ 0 (f n)))
"""

#: Calls out of a body, each reaching ``(d n)`` (``n`` is filled in). ``at`` puts each 20
#: levels down first.
CALLS_OUT = {
    "primitive calling a closure": "(car (map d (list {n})))",
    "apply": "(apply d (list {n}))",
    "a form compiled on its own": "(guard (e ((string? e) 'caught)) (d {n}))",
    "pending tail call": "(+ 0 (tail-to-d {n}))",
    "pending tail call of a list built in place": "(list-tail (trmc 3 {n}) 3)",
    "a task": "(task-d {n})",
    "a task as a value": "(call-with task-d {n})",
    "dynamic-wind": "(dynamic-wind (lambda () #f) (lambda () (d {n})) (lambda () #f))",
    "call/cc": "(call/cc (lambda (k) (d {n})))",
    "a walk calling a closure": "(fold-left (lambda (a x) (d x)) 0 (list {n}))",
    "a closure in a vector": "((vector-ref (vector d) 0) {n})",
}


def run(program: str, poison: bool, monkeypatch: pytest.MonkeyPatch) -> Interpreter:
    """A fresh interpreter (its bodies compiled under the poison or not) with ``program`` run."""
    monkeypatch.setattr(emitter, "POISON_DEPTH", 10**9 if poison else None)
    interp = Interpreter(max_depth=MAX_DEPTH)
    interp.eval(DEFINITIONS)
    interp.eval(program)
    return interp


@pytest.mark.parametrize("poison", [False, True], ids=["as is", "poisoned"])
@pytest.mark.parametrize("name", list(CALLS_OUT))
def test_a_call_out_counts_from_the_body_level(name: str, poison: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    call = CALLS_OUT[name]
    interp = run("", poison, monkeypatch)
    program = f"(at 20 (lambda () {call}))"
    assert interp.eval(program.format(n=200)) == 200
    # past max_depth: the levels under the call out counted, not lost
    assert_error(interp, program.format(n=MAX_DEPTH), "max_depth = 300", "resource-exhaustion")
    assert interp.eval("(d 280)") == 280  # and counted again from the bottom after the error


@pytest.mark.parametrize("poison", [False, True], ids=["as is", "poisoned"])
def test_a_rebound_inline_built_in_is_called_at_the_body_level(poison: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback of an inline operator (its global rebound) and of an inline walk."""
    interp = run(
        "(define (f n) (+ 1 (abs n))) (define (g n) (car (map (lambda (x) (abs x)) (list n))))", poison, monkeypatch
    )
    interp.eval("(set! abs (lambda (x) (d x)))")
    assert interp.eval("(at 20 (lambda () (f 200)))") == 201
    assert interp.eval("(at 20 (lambda () (g 200)))") == 200
    assert_error(interp, "(at 20 (lambda () (f 300)))", "max_depth = 300", "resource-exhaustion")
    interp.eval("(set! map (lambda (p l) (list (p (car l)))))")
    assert interp.eval("(at 20 (lambda () (g 200)))") == 200


@pytest.mark.parametrize("poison", [False, True], ids=["as is", "poisoned"])
def test_a_list_built_in_place_calls_a_rebound_self_at_its_level(poison: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``(cons x (self …))`` round whose name now holds another procedure calls it the usual way."""
    interp = run("(define (b n m) (if (= n 0) '() (cons n (b (- n 1) m)))) (define b2 b)", poison, monkeypatch)
    interp.eval("(set! b (lambda (n m) (d m)))")
    assert interp.eval("(at 20 (lambda () (cdr (b2 1 200))))") == 200
    assert_error(interp, "(at 20 (lambda () (b2 1 300)))", "max_depth = 300", "resource-exhaustion")


@pytest.mark.parametrize("poison", [False, True], ids=["as is", "poisoned"])
def test_a_consumer_of_the_wrong_arity_gives_its_own_error(poison: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``call-with-values`` inline: a count mismatch applies the consumer (for its error)."""
    interp = run("(define (cv n) (call-with-values (lambda () (values n n)) (lambda (a) a)))", poison, monkeypatch)
    assert_error(interp, "(at 20 (lambda () (cv 1)))", "expected 1 argument, given 2", "arity-error")


@pytest.mark.parametrize("poison", [False, True], ids=["as is", "poisoned"])
def test_a_deep_recursion_still_hops(poison: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the depth marks (fresh stacks), through compiled calls and calls out alike."""
    monkeypatch.setattr(emitter, "POISON_DEPTH", 10**9 if poison else None)
    interp = Interpreter()
    interp.eval(DEFINITIONS)
    interp.eval("(define (m n) (if (= n 0) 0 (+ 1 (car (map m (list (- n 1)))))))")
    assert interp.eval("(d 30000)") == 30000
    assert interp.eval("(m 3000)") == 3000


def test_the_depth_after_a_parallel_form_is_the_one_before_it() -> None:
    """Branches publish their levels in the parked registers: a branch begins, and the form ends, at the level the form began at."""
    interp = Interpreter(max_depth=MAX_DEPTH)
    interp.eval(DEFINITIONS)
    program = "(list (parallel-map (lambda (k) (d 250)) '(1 2 3) #:max-concurrency 1) (d 250))"  # the runtime reads the depth for (d 250)
    assert interp.eval(program) == interp.eval("'((250 250 250) 250)")
