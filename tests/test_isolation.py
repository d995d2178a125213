"""Isolation: interpreters share no state, and eight of them in eight threads agree with one at a time."""

from __future__ import annotations

import io
import threading
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError


def test_definitions_tasks_models_usage_and_output_are_separate() -> None:
    out_a, out_b = io.StringIO(), io.StringIO()
    a, b = Interpreter(stdout=out_a), Interpreter(stdout=out_b)
    a.eval("(define shared 'a) (define-record-type thing (make-thing x) thing? (x thing-x))")
    a.models.register("m", lambda prompt, system: "from a")
    a.eval('(define-task (ask q) (model "m") (prompt "{{q}}")) (ask "x") (display "to a")')
    with pytest.raises(SchemeError, match="unbound variable: shared"):
        b.eval("shared")
    with pytest.raises(SchemeError, match="unbound variable: make-thing"):
        b.eval("(make-thing 1)")
    assert "ask" in a.tasks and "ask" not in b.tasks
    assert a.models.names() == ["m"] and b.models.names() == []
    assert a.usage.total.calls == 1 and b.usage.total.calls == 0
    assert out_a.getvalue() == "to a" and out_b.getvalue() == ""


def test_rebinding_a_builtin_stays_in_its_interpreter() -> None:
    a, b = Interpreter(), Interpreter()
    a.eval("(define (+ x y) (* x y)) (define (car x) 'mine)")
    assert a.eval("(list (+ 3 4) (car '(1)))") == [12, a.eval("'mine")]
    assert b.eval("(list (+ 3 4) (car '(1)))") == [7, 1]


def test_limits_and_capabilities_are_separate() -> None:
    limited, free = Interpreter(max_steps=1000), Interpreter(allow_scripts=True)
    with pytest.raises(SchemeError):
        limited.eval("(let loop ((i 0)) (if (< i 100000) (loop (+ i 1)) i))")
    assert free.eval("(let loop ((i 0)) (if (< i 100000) (loop (+ i 1)) i))") == 100000
    with pytest.raises(SchemeError, match="allow_scripts"):
        limited.eval('(run-script "true")')


#: Exercises closures, tail calls, deep recursion (which hops threads), macros, call/cc,
#: dynamic-wind, records, hash tables, strings, output, errors, tasks and a model.
WORKLOAD = """
(define seed {seed})
(define-syntax swap! (syntax-rules () ((_ a b) (let ((t a)) (set! a b) (set! b t)))))
(define-record-type cell (make-cell v) cell? (v cell-v set-cell-v!))
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))
(define (count-up n) (let loop ((i 0) (acc '())) (if (= i n) (reverse acc) (loop (+ i 1) (cons (* i seed) acc)))))
(define table (make-equal-hash-table))
(for-each (lambda (k) (hash-table-set! table k (* k k seed))) (count-up 50))
(define x 1) (define y seed)
(swap! x y)
(define c (make-cell seed))
(set-cell-v! c (+ (cell-v c) 1))
(define escaped (call/cc (lambda (k) (dynamic-wind (lambda () #f) (lambda () (k (* seed 3))) (lambda () #f)))))
(define caught (guard (e (#t (condition/report-string e))) (vector-ref (vector seed) 5)))
(define-task (echo text) (model "echo") (prompt "{{text}}"))
(display (string-append "seed " (number->string seed) "\\n"))
(list seed (fib 15) (deep 3000) (hash-table-ref table (* 7 seed)) x y (cell-v c) escaped caught
      (get (echo (number->string seed)) 'content) (apply + (count-up 200)))
"""


def run_workload(seed: int) -> tuple[Any, str, int]:
    out = io.StringIO()
    interp = Interpreter(stdout=out, max_steps=5_000_000, timeout=60)
    interp.models.register("echo", lambda prompt, system: f"echo {prompt}")
    value = interp.eval(WORKLOAD.format(seed=seed))
    return value, out.getvalue(), interp.usage.total.calls


def test_eight_threads_give_the_same_results_as_one_at_a_time() -> None:
    seeds = [3, 5, 7, 11, 13, 17, 19, 23]
    expected = {seed: run_workload(seed) for seed in seeds}
    results: dict[int, Any] = {}
    barrier = threading.Barrier(len(seeds))

    def worker(seed: int) -> None:
        barrier.wait()
        try:
            results[seed] = run_workload(seed)
        except BaseException as exc:  # reported below
            results[seed] = exc

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in seeds]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert results == expected
    value, output, calls = expected[7]
    assert value[:3] == [7, 610, 3000] and output == "seed 7\n" and calls == 1


def test_threads_sharing_nothing_but_running_limits_at_once() -> None:
    """Limits in one thread's interpreter never stop another's program."""
    outcomes: dict[str, Any] = {}

    def limited() -> None:
        try:
            Interpreter(max_steps=2000).eval("(let loop () (loop))")
        except SchemeError as err:
            outcomes["limited"] = err.kind

    def free() -> None:
        outcomes["free"] = Interpreter().eval("(let loop ((i 0)) (if (< i 200000) (loop (+ i 1)) i))")

    threads = [threading.Thread(target=limited), threading.Thread(target=free)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcomes == {"limited": "resource-exhaustion", "free": 200000}
