"""The higher-order list procedures walk their lists in place (``primitives/loops.py``,
``lists.rows``): a closure is called inline, anything else through ``evaluator.caller``;
improper and circular lists are refused before the procedure is first called; a list
shortened while it is walked is a type error; steps, depth and parallel branches are
accounted as for any call."""

from __future__ import annotations

import pytest
from helpers import assert_error, same

from interpreter import Interpreter

IMPROPER = "(cons 1 (cons 2 3))"
CIRCULAR = "(let ((x (list 1 2 3))) (set-cdr! (cddr x) x) x)"

#: Calls of a counting procedure ``f`` over the list ``l`` (and a proper list of 3).
WALKS = [
    "(map f l)",
    "(map f l '(1 2 3))",
    "(map f '(1 2 3) l)",
    "(for-each f l)",
    "(for-each f '(1 2 3) l)",
    "(filter f l)",
    "(remove f l)",
    "(fold-left f 0 l)",
    "(fold-left f 0 l '(1 2 3))",
    "(fold f 0 l)",
    "(fold f 0 '(1 2 3) l)",
    "(fold-right f 0 l)",
    "(fold-right f 0 l '(1 2 3))",
    "(reduce f 0 l)",
    "(any f l)",
    "(any f l '(1 2 3))",
    "(every f l)",
    "(every f '(1 2 3) l)",
    "(count f l)",
    "(filter-map f l '(1 2 3))",
    "(append-map f l)",
    "(partition f l)",
]

COUNTER = "(define calls 0) (define (f . xs) (set! calls (+ calls 1)) (car xs))"


#: A circular list beside a proper one is endless, so the walk stops at the proper one
#: (R7RS; tests/test_circular_data.py): only a walk over the circular list alone refuses it.
BAD_WALKS = [(call, IMPROPER) for call in WALKS] + [(call, CIRCULAR) for call in WALKS if "'(1 2 3)" not in call]


#: One-list ``for-each`` checks its list as it goes (``polling.ONE_PASS``): the calls on the
#: elements before an improper end, and on a circular list those until it comes round to
#: the pair it marked (rounds 1, 2, 4 …: Brent's method), are made before the error.
CALLS_BEFORE_THE_ERROR = {("(for-each f l)", IMPROPER): 2, ("(for-each f l)", CIRCULAR): 7}


@pytest.mark.parametrize(("call", "bad"), BAD_WALKS)
def test_bad_lists_are_refused_before_any_call(call: str, bad: str) -> None:
    interp = Interpreter()
    interp.eval_scheme(COUNTER)
    message = "circular list" if bad == CIRCULAR else "proper list"
    assert_error(interp, f"(let ((l {bad})) {call})", message, "type-error")
    assert interp.eval("calls") == CALLS_BEFORE_THE_ERROR.get((call, bad), 0)


@pytest.mark.parametrize("procedure", ["f", "(lambda (x) (f x))", "car"])
def test_one_list_for_each_checks_as_it_goes(procedure: str) -> None:
    """The ordinary walk and the compiled inline loop (a lambda, a built-in by name) make the
    same calls before the same error; a long circular list ends with an error, not a hang."""
    interp = Interpreter()
    interp.eval_scheme(COUNTER)
    interp.eval_scheme(f"(define (walk l) (for-each {procedure} l))")
    for _ in range(3):  # compiled after its first calls
        assert_error(
            interp,
            "(walk (cons '(1) (cons '(2) 3)))" if procedure == "car" else f"(walk {IMPROPER})",
            "expected a proper list, got",
            "type-error",
        )
    interp.eval_scheme("(define long (map list (iota 100000))) (set-cdr! (last-pair long) long) (set! calls 0)")
    assert_error(interp, "(walk long)", "got a circular list", "type-error")
    if procedure != "car":  # (car counts nothing)
        assert 100000 <= interp.eval("calls") <= 3 * 100000
    interp.eval_scheme("(define l (list 1 2 3 4)) (define (cut x) (set-cdr! l '()))")
    assert interp.eval("(begin (for-each cut l) 'done)") == interp.eval("'done")  # ends where the list now ends


#: Walks whose procedure cuts the list being walked after the first element (``cut``
#: returns #f, ``keep`` #t, ``cut2`` takes two arguments).
CUTS = ["(map cut l)", "(for-each cut2 l '(1 2 3 4))", "(filter cut l)", "(remove keep l)", "(any cut l)", "(every keep l)", "(map cut2 l l)"]


@pytest.mark.parametrize("call", CUTS)
def test_a_list_cut_while_walked_is_a_type_error(call: str) -> None:
    interp = Interpreter()
    interp.eval_scheme(
        "(define l (list 1 2 3 4)) (define (cut x) (set-cdr! l '()) #f) (define (keep x) (set-cdr! l '()) #t)"
        " (define (cut2 x y) (set-cdr! l '()) x)"
    )
    assert_error(interp, call, "the list changed", "type-error")


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # the inline closure path, a rest-parameter closure, a primitive, a continuation
        ("(map (lambda (x) (* x x)) '(1 2 3))", "(1 4 9)"),
        ("(map (lambda xs xs) '(1 2) '(a b c))", "((1 a) (2 b))"),
        ("(map + '(1 2 3) '(10 20) '(100 200 300))", "(111 222)"),
        ("(let ((seen '())) (for-each (lambda (x y) (set! seen (cons (list x y) seen))) '(1 2) '(a b)) seen)", "((2 b) (1 a))"),
        ("(filter (lambda (x) (> x 1)) '(1 2 3 0 5))", "(2 3 5)"),
        ("(remove (lambda (x) (> x 1)) '(1 2 3 0 5))", "(1 0)"),
        ("(remove odd? '(1 2 3 4))", "(2 4)"),
        ("(fold-left (lambda (acc x) (cons x acc)) '() '(1 2 3))", "(3 2 1)"),
        ("(fold (lambda (x acc) (+ acc x)) 0 '(1 2 3))", "6"),
        ("(fold (lambda (x y acc) (cons (list x y) acc)) '() '(1 2 3) '(a b))", "((2 b) (1 a))"),
        ("(fold-right (lambda (x y acc) (cons (+ x y) acc)) '() '(1 2 3) '(10 20))", "(11 22)"),
        ("(reduce (lambda (x acc) (- x acc)) 0 '(1 2 3 4))", "2"),
        ("(reduce + 'none '())", "none"),
        ("(reduce + 'none '(7))", "7"),
        ("(any (lambda (x) (and (> x 1) (* 10 x))) '(1 2 3))", "20"),
        ("(any (lambda (x) (> x 5)) '(1 2 3))", "#f"),
        ("(any (lambda (x y) (and (< x y) (list x y))) '(3 1 0) '(2 2))", "(1 2)"),
        ("(every (lambda (x) (and (> x 0) (* 2 x))) '(1 2 3))", "6"),
        ("(every (lambda (x) (> x 1)) '(2 1 3))", "#f"),
        ("(every (lambda (x) #f) '())", "#t"),
        ("(every < '(1 2) '(2 3 0))", "#t"),
        # built in place as the elements come: append-map copies every result (the last too)
        ("(append-map (lambda (x) (list x (* x x))) '(1 2 3))", "(1 1 2 4 3 9)"),
        ("(append-map (lambda (x y) (if (odd? x) '() (list x y))) '(1 2 3 4) '(a b c d))", "(2 b 4 d)"),
        ("(let* ((last (list 'z)) (r (append-map (lambda (x) (if (= x 2) last (list x))) '(1 2)))) (set-car! last 'y) r)", "(1 z)"),
        ("(call-with-values (lambda () (partition even? '(1 2 3 4 6 7))) list)", "((2 4 6) (1 3 7))"),
        ("(call-with-values (lambda () (partition even? '())) list)", "(() ())"),
        # a closure whose body ends in a call of another closure: a pending tail call
        ("(define (g x) (* 2 x)) (map (lambda (x) (g x)) '(1 2 3))", "(2 4 6)"),
        ("(define (g x) (> x 1)) (filter (lambda (x) (g x)) '(1 2 3))", "(2 3)"),
        ("(define (g a x) (+ a x)) (fold-left (lambda (a x) (g a x)) 0 '(1 2 3))", "6"),
        ("(call/cc (lambda (k) (every (lambda (x) (if (> x 1) (k (list 'out x)) #t)) '(1 2 3))))", "(out 2)"),
    ],
)
def test_walk_results(src: str, expected: str) -> None:
    assert same(Interpreter().eval_scheme(src), expected), src


@pytest.mark.parametrize(
    "call",
    [
        "(map (lambda (x) x) L)",
        "(filter (lambda (x) #t) L)",
        "(remove (lambda (x) #t) L)",
        "(map (lambda (x y) x) L L)",
        "(fold-left (lambda (a x) a) 0 L)",
        "(fold (lambda (x a) a) 0 L)",
        "(reduce (lambda (x a) a) 0 L)",
        "(any (lambda (x) #f) L)",
        "(every (lambda (x) #t) L)",
        "(for-each (lambda (x y) x) L L)",
    ],
)
def test_inline_closure_calls_count_steps(call: str) -> None:
    """Each call of the closure is a step, as through ``apply``: the step limit ends the walk."""
    interp = Interpreter(max_steps=1000)
    interp.define("L", list(range(5000)))
    assert_error(interp, call, "step limit exceeded", "resource-exhaustion")
    assert Interpreter(max_steps=100_000).eval(f"(begin (define L (iota 5000)) (length (list {call})))") == 1


def test_inline_closure_calls_go_deep_and_keep_the_depth_limit() -> None:
    src = "(define (down n) (if (= n 0) 0 (+ 1 (down (- n 1))))) (map (lambda (n) (down n)) '(1 30000))"
    assert same(Interpreter().eval_scheme(src), "(1 30000)")
    src2 = "(define (down n) (if (= n 0) 0 (+ 1 (down (- n 1))))) (fold-left (lambda (a n) (+ a (down n))) 0 '(1 30000))"
    assert Interpreter().eval(src2) == 30001
    assert_error(Interpreter(max_depth=500), src, "recursion depth limit exceeded", "resource-exhaustion")
    # the depth is back where it was after the walk: a recursion right after it still fits
    interp = Interpreter(max_depth=500)
    assert interp.eval("(define (d n) (if (= n 0) 0 (+ 1 (d (- n 1))))) (map (lambda (x) (d 400)) '(1 2)) (d 480)") == 480


def test_walks_under_parallel_map() -> None:
    """Branches walk their own lists with closures called inline; each branch's calls are
    counted (the step limit is the run's)."""
    interp = Interpreter()
    src = (
        "(parallel-map (lambda (n) (fold-left (lambda (a x) (+ a x)) 0"
        " (filter (lambda (x) (even? x)) (map (lambda (x) (* x 3)) (iota n))))) '(1000 2000 3000))"
    )
    expected = [sum(x for x in (3 * i for i in range(n)) if x % 2 == 0) for n in (1000, 2000, 3000)]
    assert interp.eval(src) == expected
    limited = Interpreter(max_steps=5000)
    assert_error(limited, src, "step limit exceeded", "resource-exhaustion")


def test_append_map_refuses_a_result_that_is_not_a_proper_list() -> None:
    interp = Interpreter()
    assert_error(interp, "(append-map (lambda (x) (cons x 5)) '(1 2))", "append-map", "type-error")


#: One-argument walks with the value their procedure returns (so that none stops early).
STEP_WALKS = [
    ("(map F L)", "k"),
    ("(for-each F L)", "k"),
    ("(filter F L)", "#t"),
    ("(remove F L)", "#f"),
    ("(any F L)", "#f"),
    ("(every F L)", "#t"),
]


@pytest.mark.parametrize(("walk", "value"), STEP_WALKS)
@pytest.mark.parametrize("limit", [700, 1001, 2345])
def test_the_step_limit_strikes_at_the_call_apply_would_strike_at(walk: str, value: str, limit: int) -> None:
    """A closure called inline counts its step where ``apply_procedure`` would: the
    closure of a fixed count (inline) and one with a rest parameter (through
    ``evaluator.caller``, i.e. ``apply_procedure``) have made as many calls when the
    step limit ends the walk."""
    made = []
    for params in ("(x)", "args"):
        interp = Interpreter(max_steps=limit)
        interp.eval_scheme(f"(define k 0) (define L (iota 5000)) (define F (lambda {params} (set! k (+ k 1)) {value}))")
        assert_error(interp, walk, "step limit exceeded", "resource-exhaustion")
        made.append(interp.eval("k"))
    assert made[0] == made[1] and 0 < made[0] < 5000, made


@pytest.mark.parametrize(
    "walk",
    ["(map F L)", "(for-each F L)", "(filter F L)", "(any H L)", "(every F L)", "(fold-left G 0 L)", "(fold K 0 L)"],
)
@pytest.mark.parametrize("max_steps", [None, 10_000_000])
def test_an_interruption_reaches_the_next_call_of_a_walk(walk: str, max_steps: int | None) -> None:
    """Without a step limit the walk counts no steps (as the inline calls of compiled
    bodies); a timeout, ``max_memory``, Ctrl-C or a cancellation reach it through
    ``Runtime.attend``: the very next call of the procedure stops the walk."""
    interp = Interpreter(max_steps=max_steps)
    interp.define_primitive("poke", lambda: interp.runtime.interrupt())
    interp.eval_scheme(
        "(define k 0) (define L (iota 100))"
        "(define (F x) (set! k (+ k 1)) (if (= x 5) (poke)) #t)"
        "(define (H x) (set! k (+ k 1)) (if (= x 5) (poke)) #f)"
        "(define (G a x) (set! k (+ k 1)) (if (= x 5) (poke)) a)"
        "(define (K x a) (G a x))"
    )
    assert_error(interp, walk, "interrupted", "resource-exhaustion")
    assert interp.eval("k") == 6


def test_the_depth_is_back_after_every_way_out_of_a_walk() -> None:
    """``rt.depth`` is put back at every return of a walk (early ones included)."""
    interp = Interpreter(max_depth=500)
    interp.eval("(define (d n) (if (= n 0) 0 (+ 1 (d (- n 1)))))")
    for walk in [
        "(any (lambda (x) (d 400)) '(1 2))",
        "(every (lambda (x) (= (d 400) 0)) '(1 2))",
        "(for-each (lambda (x) (d 400)) '(1 2))",
        "(filter (lambda (x) (d 400)) '(1 2))",
        "(fold (lambda (x a) (d 400)) 0 '(1 2))",
        "(map (lambda (x) (d 400)) '())",
    ]:
        interp.eval(walk)
        assert interp.eval("(d 480)") == 480, walk
        assert interp.runtime.depth == 0
