"""Compiled code reads a global it calls or uses from the binding's cell
(``GlobalBindings.cell``, ``interpreter/mirrors.Cell``): every write of the binding, from
any thread, reaches the cell, which ends equal to the last write."""

from __future__ import annotations

import threading

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.datatypes import Symbol


def test_a_redefined_procedure_is_called_from_then_on() -> None:
    interp = Interpreter()
    interp.eval("(define (g x) (+ x 1)) (define (f x) (* 2 (g x)))")
    assert interp.eval("(f 1)") == 4
    interp.eval("(define (g x) (- x 1))")
    assert interp.eval("(f 1)") == 0


def test_a_procedure_redefined_while_a_loop_calls_it() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (step x) (+ x 1))
           (define (run n acc)
             (if (= n 0) acc
                 (begin (if (= n 5) (set! step (lambda (x) (+ x 100))))
                        (run (- n 1) (step acc)))))"""
    )
    assert interp.eval("(run 10 0)") == 5 + 5 * 100


def test_a_global_value_read_inline_follows_set() -> None:
    interp = Interpreter()
    interp.eval("(define limit 3) (define (over? x) (> x limit))")
    assert interp.eval("(over? 4)") is True
    interp.eval("(set! limit 10)")
    assert interp.eval("(over? 4)") is False


def test_an_unbound_global_is_reported_then_found_once_defined() -> None:
    interp = Interpreter()
    interp.eval("(define (f x) (later x))")
    with pytest.raises(SchemeError, match="unbound variable: later"):
        interp.eval("(f 1)")
    interp.eval("(define (later x) (list x))")
    assert interp.eval("(f 1)") == [1]


def test_writes_from_parallel_branches_leave_the_cell_equal_to_the_binding() -> None:
    interp = Interpreter()
    interp.eval("(define shared 0) (define (read-shared) shared)")
    assert interp.eval("(read-shared)") == 0
    for _round in range(5):
        interp.eval("(parallel-map (lambda (i) (set! shared i) i) (iota 64))")
        assert interp.eval("(read-shared)") == interp.global_env.vars[Symbol.intern("shared")]


def test_racing_writes_from_threads_leave_the_cell_equal_to_the_binding() -> None:
    interp = Interpreter()
    interp.eval("(define shared 0) (define (read-shared) shared)")
    interp.eval("(read-shared)")  # compiled: it reads the binding from its cell
    gvars = interp.global_env.vars
    key = Symbol.intern("shared")

    def write(offset: int) -> None:
        for i in range(2000):
            gvars[key] = offset + i

    threads = [threading.Thread(target=write, args=(n * 10_000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert interp.eval("(read-shared)") == gvars[key]


def test_one_cell_per_global_shared_by_every_body() -> None:
    interp = Interpreter()
    interp.eval("(define (g x) x) (define (f1 x) (g x)) (define (f2 x) (g (g x)))")
    assert interp.eval("(list (f1 1) (f2 2))") == [1, 2]
    gvars = interp.global_env.vars
    cell = gvars.cell(Symbol.intern("g"))
    assert cell is gvars.cell(Symbol.intern("g"))
    for body in ("f1", "f2"):
        assert cell in interp.eval_scheme(body).run.__globals__.values()
    assert cell.value is gvars[Symbol.intern("g")]
