"""A procedure bound by ``letrec``, a named let or an internal ``define`` that calls itself
by that name, in tail position, loops without reading the name (``Emitter.calls_itself``).

The name is known to hold the running closure while nothing in its region assigns it and
no ``set!`` found at run time (a task run in its caller's frame) has written a local
frame. Results, step counts, limits and the cases that break the assumption keep their
meaning.

A global procedure's loop compares the global's value with the closure the last round found
there (``Emitter.kept_self``); assigning the global is followed at the next round.
"""

from __future__ import annotations

import re

import pytest
from helpers import step_limit_strikes_at, value_and_steps
from test_trmc import SHAPES as TRMC_SHAPES

from interpreter import Interpreter
from interpreter.compiler import body
from interpreter.printer import write_string

SHAPES = {
    "letrec loop": (
        """(define (count-up n)
             (letrec ((loop (lambda (i acc) (if (= i n) acc (loop (+ i 1) (+ acc i))))))
               (loop 0 0)))""",
        "(count-up 50)",
        sum(range(50)),
    ),
    "internal define": (
        """(define (evens l)
             (define (keep l acc) (cond ((null? l) (reverse acc))
                                        ((even? (car l)) (keep (cdr l) (cons (car l) acc)))
                                        (else (keep (cdr l) acc))))
             (keep l '()))""",
        "(length (evens (iota 50)))",
        25,
    ),
    "letrec filter with a tail cons (sieve)": (
        TRMC_SHAPES["argument that is itself a call (sieve)"][0],
        "(length (sieve (iota 60 2)))",
        18,  # the primes from 2 to 61
    ),
    "named let outside tail position (a closure of its own)": (
        """(define (sum-to n)
             (+ 1 (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (+ acc i))))))""",
        "(sum-to 40)",
        1 + sum(range(40)),
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_self_call_loops_without_reading_its_name(shape: str, sources: list[str]) -> None:
    definitions, call, expected = SHAPES[shape]
    interp = Interpreter()
    interp.eval(definitions)
    assert interp.eval(call) == expected
    # the loop arm tests the interpreter's flag (a name ``okme…``, or the local that
    # holds it: hoist.py), not the operator's value
    assert any(re.search(r"(if (.* and )?|inv\d+ = )okme\d+\n", source) for source in sources)


@pytest.mark.parametrize("shape", SHAPES)
def test_steps_and_the_step_limit_are_those_of_the_ordinary_call(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    definitions, call, expected = SHAPES[shape]
    value, steps = value_and_steps(definitions, call)
    with monkeypatch.context() as patch:
        patch.setattr(body.Emitter, "calls_itself", lambda self, node: False)
        assert value_and_steps(definitions, call) == (value, steps)
    assert value == expected and steps > 20
    assert step_limit_strikes_at(definitions, call, steps) == expected


def test_a_name_assigned_in_its_region_is_read_at_each_call() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (run n)
             (letrec ((loop (lambda (i)
                              (if (= i 2) (set! loop (lambda (i) (list 'replaced i))))
                              (if (= i 0) 'done (loop (- i 1))))))
               (loop n)))"""
    )
    assert write_string(interp.eval_scheme("(run 5)")) == "(replaced 1)"


def test_an_internal_define_assigned_later_is_read_at_each_call() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (run n)
             (define (loop i) (if (= i 0) 'done (begin (if (= i 2) (set! loop list)) (loop (- i 1)))))
             (loop n))"""
    )
    assert write_string(interp.eval_scheme("(run 5)")) == "(1)"


def test_a_task_that_sets_the_callers_binding_is_honoured() -> None:
    """A task run in its caller's frame may ``set!`` the name: found only at run time."""
    interp = Interpreter()
    interp.eval(
        """(define-task (swap-loop!) (context (inherit full))
             (set! loop (lambda (i) (list 'swapped i))))
           (define (run n)
             (letrec ((loop (lambda (i)
                              (if (= i 3) (swap-loop!))
                              (if (= i 0) 'done (loop (- i 1))))))
               (loop n)))"""
    )
    assert write_string(interp.eval_scheme("(run 6)")) == "(swapped 2)"
    # the interpreter no longer trusts such names; another interpreter still does
    assert interp.runtime.lexical_self.value is False
    assert Interpreter().runtime.lexical_self.value is True


def test_the_loop_runs_in_constant_depth() -> None:
    interp = Interpreter(max_depth=50)
    interp.eval(SHAPES["letrec loop"][0])
    assert interp.eval("(count-up 5000)") == sum(range(5000))


def test_under_parallel_map() -> None:
    interp = Interpreter(max_steps=10**7)
    interp.eval(SHAPES["letrec filter with a tail cons (sieve)"][0])
    assert (
        write_string(interp.eval_scheme("(parallel-map (lambda (n) (length (sieve (iota n 2)))) '(30 60 100))"))
        == "(11 18 26)"
    )


#: A global procedure's loops: a tail call of itself, and a cons of a call of itself (trmc).
GLOBAL_LOOPS = {
    "tail call": ("(define (count-up i n acc) (if (= i n) acc (count-up (+ i 1) n (+ acc i))))", "(count-up 0 60 0)"),
    "tail cons": ("(define (upto i n) (if (= i n) '() (cons i (upto (+ i 1) n))))", "(apply + (upto 0 60))"),
}


@pytest.mark.parametrize("shape", GLOBAL_LOOPS)
def test_a_global_loop_keeps_the_closure_it_found(
    shape: str, sources: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round compares the global's value with the closure the last round found there
    (``Emitter.kept_self``): the same value and steps as without."""
    definitions, call = GLOBAL_LOOPS[shape]
    value, steps = value_and_steps(definitions, call)
    assert value == sum(range(60))
    assert any(re.search(r"if o\d+ is me\d+", source) for source in sources)
    monkeypatch.setattr(body.Emitter, "kept_self", lambda self, node: None)
    assert value_and_steps(definitions, call) == (value, steps)


@pytest.mark.parametrize(
    ("replacement", "expected"),
    [
        ("(lambda (n acc) (list 'other n acc))", "(other 4 6)"),  # another procedure
        ("(make-loop 100)", "(done 110)"),  # another closure of the same lambda (another frame)
    ],
)
def test_a_global_loop_follows_its_name_when_it_is_assigned(replacement: str, expected: str) -> None:
    interp = Interpreter()
    interp.eval(
        f"""(define (make-loop bonus)
              (lambda (n acc)
                (if (= n 5) (set! f {replacement}))
                (if (= n 0) (list 'done (+ acc bonus)) (f (- n 1) (+ acc 1)))))
            (define f (make-loop 0))"""
    )
    assert write_string(interp.eval_scheme("(f 10 0)")) == expected


def test_a_global_list_loop_follows_its_name_when_it_is_assigned() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (upto i n)
             (if (= i 3) (set! upto (lambda (i n) (list 'other i))))
             (if (= i n) '() (cons i (upto (+ i 1) n))))"""
    )
    assert write_string(interp.eval_scheme("(upto 0 6)")) == "(0 1 2 3 other 4)"


def test_a_round_drops_the_frame_only_if_it_may_have_made_it(sources: list[str]) -> None:
    """A round that made the body's frame (a closure over the parameters) drops it before
    the next; a round that cannot have made it goes round without the store."""
    interp = Interpreter()
    interp.eval(
        """(define (collect l)
             (letrec ((walk (lambda (l acc)
                              (if (null? l) acc
                                  (if (even? (car l))
                                      (walk (cdr l) (cons (lambda () (car l)) acc))
                                      (walk (cdr l) acc))))))
               (walk l '())))"""
    )
    assert interp.eval("(map (lambda (p) (p)) (collect '(1 2 3 4 5 6 7 8)))") == [8, 6, 4, 2]
    source = "\n".join(sources)
    rounds = re.findall(r"\n( +)if (?:inv\d+|True):\n((?:\1 .*\n)*?)\1    continue", source)
    dropping = ["env = None" in body for _pad, body in rounds]
    assert True in dropping and False in dropping, source


def test_a_specialized_branch_is_taken_under_the_self_flag_too(sources: list[str]) -> None:
    """A branch specialized on its test (``Emitter.specialize``) whose arms call the
    procedure itself is taken while ``lexical_self`` is up as well: its self calls then
    loop with no test of that flag. A task that assigns the name takes the flag down, and
    the ordinary arms read the name again."""
    interp = Interpreter()
    interp.eval(
        """(define-task (swap-walk!) (context (inherit full))
             (set! walk (lambda (l n) (list 'swapped n))))
           (define (count-odd l)
             (letrec ((walk (lambda (l n)
                              (if (null? l) n
                                  (if (odd? (car l))
                                      (walk (cdr l) (+ n 1))
                                      (begin (if (= (car l) 4) (swap-walk!)) (walk (cdr l) n)))))))
               (walk l 0)))"""
    )
    assert interp.eval("(count-odd '(1 3 5 2 7))") == 4
    source = "\n".join(sources)
    guard = re.search(r"if type\(arg0\) is Pair and type\(t\d+ := \(arg0\.car\)\) is int and (.*):", source)
    assert guard is not None, source
    flags = [re.search(rf"\n *{name} = (.*)\n", source) for name in guard[1].split(" and ")]
    assert any(found is not None and "okme" in found[1] for found in flags), source
    assert write_string(interp.eval_scheme("(count-odd '(1 4 3 5))")) == "(swapped 1)"
