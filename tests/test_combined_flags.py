"""An inline expression of several built-ins tests one flag for all of them
(``GlobalBindings.combined``, ``Emitter.settle_flags``): while every name holds its
built-in it computes with no test of its own per operation, and a name rebound at any
moment, in the middle of a loop included, takes the ordinary path at its next use."""

from __future__ import annotations

from interpreter import Interpreter
from interpreter.datatypes import Symbol
from interpreter.printer import write_string

COUNT_MULTIPLES = """
(define (count-multiples l n acc)
  (if (null? l) acc (count-multiples (cdr l) n (if (= (modulo (car l) n) 0) (+ acc 1) acc))))
"""


def combos(interp: Interpreter) -> dict[frozenset[str], bool]:
    gvars = interp.global_env.vars
    return {frozenset(key.name for key in keys): flag.value for keys, flag in gvars.combos.items()}


def test_the_expression_tests_one_flag_for_its_built_ins() -> None:
    interp = Interpreter()
    interp.eval(COUNT_MULTIPLES)
    assert interp.eval("(count-multiples (iota 10) 3 0)") == 4
    assert combos(interp)[frozenset({"=", "modulo", "car"})] is True


def test_a_built_in_rebound_between_runs_is_called() -> None:
    interp = Interpreter()
    interp.eval(COUNT_MULTIPLES)
    assert interp.eval("(count-multiples (iota 10) 3 0)") == 4
    interp.eval("(define modulo (lambda (a b) 0))")  # every number a multiple now
    assert combos(interp)[frozenset({"=", "modulo", "car"})] is False
    assert interp.eval("(count-multiples (iota 10) 3 0)") == 10


def test_a_built_in_rebound_in_the_middle_of_a_loop_is_called_from_the_next_round() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (firsts l acc i)
             (if (null? l) (reverse acc)
                 (begin (if (= i 2) (set! car (lambda (p) 100)))
                        (firsts (cdr l) (cons (+ (car l) 1) acc) (+ i 1)))))"""
    )
    assert write_string(interp.eval_scheme("(firsts '(1 2 3 4) '() 0)")) == "(2 3 101 101)"


def test_a_combined_flag_follows_every_name_it_covers() -> None:
    interp = Interpreter()
    gvars = interp.global_env.vars
    flag = gvars.combined(frozenset({Symbol.intern("car"), Symbol.intern("cdr")}))
    assert flag.value is True
    interp.eval("(define cdr car)")
    assert flag.value is False
    assert gvars.combined(frozenset({Symbol.intern("car"), Symbol.intern("cdr")})) is flag
    assert gvars.combined(frozenset({Symbol.intern("cdr"), Symbol.intern("+")})).value is False
    assert gvars.combined(frozenset({Symbol.intern("car"), Symbol.intern("+")})).value is True
