"""Proper tail calls in every tail position, and deep non-tail recursion without a crash."""

from __future__ import annotations

import sys
import threading
import time
import tracemalloc

import pytest

from interpreter import Interpreter, SchemeError

N = 1_000_000


@pytest.mark.parametrize(
    "loop",
    [
        "(define (f n) (if (= n 0) 'done (f (- n 1))))",
        "(define (f n) (cond ((= n 0) 'done) (else (f (- n 1)))))",
        "(define (f n) (cond ((= n 0) 'done) ((- n 1) => f)))",
        "(define (f n) (case n ((0) 'done) (else (f (- n 1)))))",
        "(define (f n) (and #t (if (= n 0) 'done (f (- n 1)))))",
        "(define (f n) (or (and (= n 0) 'done) (f (- n 1))))",
        "(define (f n) (when #t (if (= n 0) 'done (f (- n 1)))))",
        "(define (f n) (unless #f (if (= n 0) 'done (f (- n 1)))))",
        "(define (f n) (let ((m (- n 1))) (if (< m 0) 'done (f m))))",
        "(define (f n) (let* ((m (- n 1))) (if (< m 0) 'done (f m))))",
        "(define (f n) (letrec ((m (- n 1))) (if (< m 0) 'done (f m))))",
        "(define (f n) (begin 1 (if (= n 0) 'done (f (- n 1)))))",
        "(define (f n) (if (= n 0) 'done (apply f (list (- n 1)))))",
        "(define (f n) (let-values (((m) (values (- n 1)))) (if (< m 0) 'done (f m))))",
        "(define g (case-lambda ((n) (if (= n 0) 'done (g (- n 1)))))) (define (f n) (g n))",
        "(define (f n) (if (= n 0) 'done (call-with-values (lambda () (- n 1)) f)))",
    ],
)
def test_tail_position(loop: str) -> None:
    interp = Interpreter()
    interp.eval(loop)
    assert interp.eval("(f 100000)").name == "done"


def peak_memory(interp: Interpreter, source: str) -> int:
    tracemalloc.start()
    try:
        interp.eval(source)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_tail_loop_memory_does_not_grow_with_iterations() -> None:
    interp = Interpreter()
    loop = "(let loop ((i 0)) (if (= i {n}) i (loop (+ i 1))))"
    small = peak_memory(interp, loop.format(n=10_000))
    large = peak_memory(interp, loop.format(n=300_000))
    assert large < small + 100_000


def test_ten_million_iteration_named_let() -> None:
    assert Interpreter().eval("(let loop ((i 0)) (if (= i 10000000) i (loop (+ i 1))))") == 10_000_000


def test_mutual_recursion_one_million() -> None:
    interp = Interpreter()
    interp.eval("(define (my-even? n) (if (= n 0) #t (my-odd? (- n 1))))")
    interp.eval("(define (my-odd? n) (if (= n 0) #f (my-even? (- n 1))))")
    assert interp.eval(f"(my-even? {N})") is True
    assert interp.eval(f"(my-odd? {N + 1})") is True


def test_do_loop_runs_long() -> None:
    assert Interpreter().eval("(do ((i 0 (+ i 1)) (s 0 (+ s i))) ((= i 1000000) s))") == sum(range(N))


@pytest.mark.parametrize("n", [100_000, N])
def test_deep_non_tail_recursion(n: int) -> None:
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    assert interp.eval(f"(count {n})") == n


def test_deep_recursion_makes_no_frame_object_per_level() -> None:
    """Measuring the Python stack at each depth mark must not walk ``f_back`` over it:
    that makes a frame object (about 300 bytes here) for every level, kept while it runs.
    What is left per level is the two integers a level holds (its argument and depth)."""
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    n = 50_000
    assert peak_memory(interp, f"(count {n})") < 120 * n


def test_deep_recursion_threads_go_back_to_a_small_pool() -> None:
    """The hop threads are bare ``_thread`` threads (no ``threading.Thread``): counted by
    ``_thread._count()``, not listed by ``threading.enumerate()``."""
    import _thread

    from interpreter.stack import MAX_IDLE

    interp = Interpreter()
    interp.define("threads", lambda: (_thread._count(), len(threading.enumerate())))
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    interp.eval("(define (bottom n) (if (= n 0) (threads) (car (list (bottom (- n 1))))))")
    running, listed = _thread._count(), len(threading.enumerate())
    at_bottom = interp.eval("(bottom 100000)")
    assert at_bottom[0] > 100 and at_bottom[1] == listed  # ~800 levels a thread, idle ones reused
    for _ in range(200):
        if _thread._count() <= running + MAX_IDLE:
            break
        time.sleep(0.05)  # the threads past the pool end as they come back
    assert _thread._count() <= running + MAX_IDLE
    assert interp.eval("(count 100000)") == 100_000


def test_deep_recursion_under_a_low_host_recursion_limit() -> None:
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        box: list[object] = []
        thread = threading.Thread(target=lambda: box.append(_count_in_a_fresh_interpreter(20_000)))
        thread.start()
        thread.join(120)
    finally:
        sys.setrecursionlimit(before)
    assert box == [20_000]


def _count_in_a_fresh_interpreter(n: int) -> object:
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    interp.eval("(define (tree n) (if (= n 0) '() (list (tree (- n 1)))))")
    interp.eval("(define (height t) (if (null? t) 0 (+ 1 (apply max (map height t)))))")
    assert interp.eval(f"(height (tree {n // 4}))") == n // 4  # three Python frames a level
    return interp.eval(f"(count {n})")


def test_non_tail_recursive_map_over_long_list() -> None:
    interp = Interpreter()
    interp.eval("(define (my-map f l) (if (null? l) '() (cons (f (car l)) (my-map f (cdr l)))))")
    assert interp.eval("(length (my-map (lambda (x) (* x 2)) (iota 100000)))") == 100_000


def test_deep_recursion_through_builtin_higher_order_procedures() -> None:
    interp = Interpreter()
    interp.eval("(define (nest n) (if (= n 0) '() (list (nest (- n 1)))))")
    interp.eval("(define (depth t) (if (null? t) 0 (+ 1 (apply max (map depth t)))))")
    assert interp.eval("(depth (nest 20000))") == 20_000


def test_depth_limit_is_a_clean_error_and_the_interpreter_survives() -> None:
    interp = Interpreter(max_depth=5000)
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    with pytest.raises(SchemeError) as info:
        interp.eval("(count 100000)")
    assert info.value.kind == "resource-exhaustion"
    assert "max_depth = 5000" in info.value.message
    assert interp.eval("(count 1000)") == 1000


def test_infinite_recursion_hits_the_depth_limit() -> None:
    interp = Interpreter(max_depth=200_000)
    with pytest.raises(SchemeError) as info:
        interp.eval("(define (f) (+ 1 (f))) (f)")
    assert info.value.kind == "resource-exhaustion"


def test_deep_recursion_leaves_the_host_recursion_limit_alone() -> None:
    before = sys.getrecursionlimit()
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    interp.eval("(count 200000)")
    assert sys.getrecursionlimit() == before


def test_deep_recursion_from_a_host_thread() -> None:
    box: list[object] = []

    def work() -> None:
        interp = Interpreter()
        interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
        box.append(interp.eval("(count 100000)"))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(120)
    assert box == [100_000]


def test_errors_cross_deep_recursion_with_their_location() -> None:
    interp = Interpreter()
    interp.eval("(define (down n) (if (= n 0) (car n) (+ 1 (down (- n 1)))))", filename="deep.scm")
    with pytest.raises(SchemeError) as info:
        interp.eval("(down 50000)")
    assert "deep.scm:1:30" in info.value.format()


def test_escape_from_deep_recursion_with_call_cc() -> None:
    interp = Interpreter()
    interp.eval("(define (deep n k) (if (= n 0) (k 'out) (+ 1 (deep (- n 1) k))))")
    assert interp.eval("(call/cc (lambda (k) (deep 100000 k)))").name == "out"


def test_guard_catches_error_from_deep_recursion() -> None:
    interp = Interpreter()
    interp.eval("(define (down n) (if (= n 0) (raise 'bottom) (+ 1 (down (- n 1)))))")
    assert interp.eval("(guard (e ((symbol? e) e)) (down 100000))").name == "bottom"
    assert interp.eval("(+ 1 2)") == 3
