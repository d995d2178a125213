"""``map``, ``filter``, ``for-each``, the folds, ``reduce`` and ``vector-map`` with a literal lambda
(or a built-in by name) run as a loop in
the compiled body (``interpreter/compiler/inline_walks.py``): values, errors, the list's checks,
limits and a rebinding of the built-in are those of the ordinary call."""

from __future__ import annotations

import pytest
from test_compiled_equivalence import Ways
from test_fused import Reference

from interpreter import Interpreter, SchemeError
from interpreter.compiler.inline_walks import WALK_FORMS
from interpreter.printer import write_string

#: The walks rebound to procedures that call them: no loop is inline.
WRAPPED = " ".join(f"(define {name} (let ((p {name})) (lambda xs (apply p xs))))" for name in WALK_FORMS)

WALKS = [
    "(map (lambda (x) (* x b)) a)",
    "(filter (lambda (x) (< x b)) a)",
    "(fold-left (lambda (acc x) (+ acc (* x b))) 0 a)",
    "(fold (lambda (x acc) (cons (list x b) acc)) '() a)",  # the element first, then the accumulator
    "(list (any (lambda (x) (and (> x b) (* x 10))) a) (every (lambda (x) (and (< x 9) x)) a))",
    "(list (any (lambda (x) (car x)) a) (every (lambda (x) (pair? x)) a))",  # stops at the first answer
    "(let ((out '())) (for-each (lambda (x) (set! out (cons (list x b) out))) a) out)",
    # closures made in the body capture each element's own binding
    "(map (lambda (t) (t)) (map (lambda (x) (lambda () (list x b))) a))",
    "(map (lambda (x) (filter (lambda (y) (< y x)) a)) a)",
    "(map (lambda (x) (h x)) a)",  # a call out in the body
    "(list (filter (lambda (x) 0) a) (map (lambda (x) #f) a) (fold-left (lambda (s x) 1) 0 a))",  # literal bodies
    "(map (lambda (x) (car x)) a)",  # an error in the body, at the second element
    # the list shortened while it is walked
    "(let ((l (list-copy a))) (map (lambda (x) (if (pair? l) (set-cdr! l '())) x) l))",
    # a right fold (its elements last first), reduce (seeded by the first element), vector-map
    "(fold-right (lambda (x acc) (cons (list x b) acc)) '() a)",
    "(fold-right (lambda (x acc) (+ (* x b) acc)) 0 a)",
    "(reduce (lambda (x acc) (- x acc)) b a)",
    "(reduce (lambda (x acc) (list x acc (h x))) 'none a)",  # a call out: the list measured first
    "(vector-map (lambda (x) (* x b)) (if (pair? a) (list->vector a) a))",
    "(let ((v (if (pair? a) (list->vector a) a))) (vector-map (lambda (x) (vector-set! v 0 b) (list x b)) v))",
    # the operands in the ordinary order, the list last: with a = 7 both fail, and the first names car
    "(fold-right cons (car a) (list (vector-ref b 0) 1))",
    "(fold-left cons (car a) (list (vector-ref b 0) 1))",
    "(fold cons (car a) (list (vector-ref b 0) 1))",
    "(reduce + (car a) (list (vector-ref b 0) 1))",
    "(fold-right + (car a) (list (vector-ref b 0) 1))",
]

ARGUMENTS = [
    ("'(1 2 3)", "2"),
    ("'()", "0"),
    ("'(1 . 2)", "1"),  # an improper list: refused before the first element
    ("7", "1"),
    ("'(1 x 3)", "2"),
    ("'((1) (2))", "3"),
    ("(list 1.5 2 3)", "2.5"),
]


@pytest.mark.slow
@pytest.mark.parametrize("expr", WALKS)
def test_an_inline_walk_agrees_with_the_ordinary_call(expr: str) -> None:
    ways, reference = Ways(), Reference(WRAPPED)
    for a, b in ARGUMENTS:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_the_walk_is_a_loop_in_the_body(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (triple-all l) (map (lambda (x) (* x 3)) l))")
    assert write_string(interp.eval_scheme("(triple-all '(1 2))")) == "(3 6)"
    body = next(source for source in sources if "probing_rounds(" in source)
    # an effect-free body: no pass over the list first, its end and cycles found as it goes
    assert "proper_length(" not in body and "apply_with_caller" not in body.split("else:")[0]


def test_an_error_in_the_body_has_the_calls_backtrace() -> None:
    interp = Interpreter()
    interp.eval("(define (firsts l) (map (lambda (x) (car x)) l))")
    with pytest.raises(SchemeError) as caught:
        interp.eval("(firsts '((1) 2))")
    text = str(caught.value)
    assert "car: expected a pair, got 2" in text
    assert "(car x)" in text and "in lambda" in text and "(map (lambda (x) (car x)) l)" in text


def test_each_element_is_a_step() -> None:
    interp = Interpreter(max_steps=5_000)
    interp.eval("(define (copy l) (map (lambda (x) x) l))")
    assert interp.eval("(length (copy (iota 1000)))") == 1000
    with pytest.raises(SchemeError, match="step limit"):
        interp.eval("(copy (iota 100000))")


def test_a_rebinding_made_by_the_body_is_seen_by_the_next_call() -> None:
    interp = Interpreter()
    interp.eval(
        """(define real-map map)
           (define (f l) (map (lambda (x) (if (= x 2) (set! map (lambda (g l) 'rebound))) x) l))"""
    )
    assert write_string(interp.eval_scheme("(f '(1 2 3))")) == "(1 2 3)"  # the walk goes on
    assert write_string(interp.eval_scheme("(f '(1 2 3))")) == "rebound"
    interp.eval("(set! map real-map)")
    assert write_string(interp.eval_scheme("(f '(4))")) == "(4)"


def test_inline_walks_under_parallel_map() -> None:
    interp = Interpreter()
    interp.eval("(define (squares n) (fold-left (lambda (s x) (+ s (* x x))) 0 (map (lambda (i) (+ i 1)) (iota n))))")
    serial = interp.eval("(map squares (iota 40))")
    assert interp.eval("(parallel-map squares (iota 40))") == serial
    assert serial[3] == 1 + 4 + 9


#: Walks given a built-in by name (``inline_walks.by_name``): run as if the built-in were
#: called from a literal lambda, guarded by both names' intact flags.
BY_NAME_WALKS = [
    "(map car a)",
    "(filter even? a)",
    "(fold-left + b a)",
    "(fold cons '() a)",
    "(list (any odd? a) (every number? a))",
    "(map number->string a)",
    "(for-each vector-length a)",
    "(list (fold-right cons b a) (fold-right + b a))",
    "(list (reduce + b a) (reduce cons 'none a))",
    "(vector-map car (if (pair? a) (list->vector a) a))",
]


@pytest.mark.parametrize("expr", BY_NAME_WALKS)
def test_a_walk_of_a_builtin_by_name_agrees_with_the_ordinary_call(expr: str) -> None:
    ways, reference = Ways(), Reference(WRAPPED)
    for a, b in [*ARGUMENTS, ("(list (vector 1) (vector))", "0")]:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_a_builtin_by_name_runs_its_inline_arm_in_the_loop(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (hof l) (fold-left + 0 (filter even? l)))")
    assert interp.eval("(hof (iota 10))") == 20
    body = next(source for source in sources if "probing_rounds(" in source)
    loops = body.count("in probing_rounds(")  # one: the two walks run as one loop (inline_fusion)
    assert loops == 1 and " % 2 == 0" in body and "apply_with_caller" not in body.split("else:")[0]


def test_a_builtin_by_name_rebound_before_the_walk_is_the_one_called() -> None:
    interp = Interpreter()
    interp.eval("(define (evens l) (filter even? l))")
    assert interp.eval("(evens '(1 2 3 4))") == [2, 4]
    interp.eval("(define real-even? even?) (set! even? odd?)")
    assert interp.eval("(evens '(1 2 3 4))") == [1, 3]
    interp.eval("(set! even? real-even?)")
    assert interp.eval("(evens '(1 2 3 4))") == [2, 4]


def test_an_error_of_a_builtin_by_name_names_the_walk_once() -> None:
    interp = Interpreter()
    interp.eval("(define (firsts l) (map car l))")
    with pytest.raises(SchemeError) as caught:
        interp.eval("(firsts '((1) 2))")
    frames = [frame.expr for frame in caught.value.frames]
    assert frames == ["(map car l)", "(firsts '((1) 2))"]


def test_a_walk_with_effects_measures_its_list_first(sources: list[str]) -> None:
    """A body that may act (here a call out) still has the list refused before its first
    element, as the ordinary walk does (and Guile 3.0's ``map``)."""
    interp = Interpreter()
    interp.eval("(define seen 0) (define (note x) (set! seen (+ seen 1)) x)")
    interp.eval("(define (noted l) (map (lambda (x) (note x)) l))")
    with pytest.raises(SchemeError, match=r"map: expected a proper list, got '\(1 2 \. 3\)"):
        interp.eval("(noted (cons 1 (cons 2 3)))")
    assert interp.eval("seen") == 0
    body = next(source for source in sources if "for _ in ticks(" in source)
    assert "proper_length(" in body and "probing_rounds(" not in body


#: An effect-free body over a bad list: the list's own error, as when it is checked first,
#: even where the body would fail on an element before the end (``*`` of a symbol).
CHECKED_AS_THEY_GO = [
    ("(cons 1 (cons 2 3))", "map: expected a proper list, got '(1 2 . 3)"),
    ("(cons 'a (cons 2 3))", "map: expected a proper list, got '(a 2 . 3)"),
    ("7", "map: expected a proper list, got 7"),
    ("(let ((c (list 1 2 3))) (set-cdr! (cddr c) c) c)", "map: expected a proper list, got a circular list"),
    # a cycle entered after a long lead, longer than a chunk of the limits' polls
    ("(let ((c (iota 40000))) (set-cdr! (list-tail c 39999) (list-tail c 20000)) c)", "got a circular list"),
    ("(let ((c (iota 3))) (set-cdr! (cddr c) (cdr c)) c)", "got a circular list"),
]


@pytest.mark.parametrize(("lst", "message"), CHECKED_AS_THEY_GO)
def test_an_effect_free_walk_checks_its_list_as_it_goes(lst: str, message: str) -> None:
    interp = Interpreter()
    interp.eval("(define (tri l) (map (lambda (x) (* x 3)) l))")
    with pytest.raises(SchemeError) as caught:
        interp.eval(f"(tri {lst})")
    assert message in str(caught.value) and caught.value.kind == "type-error"
    assert caught.value.frames[0].expr == "(map (lambda (x) (* x 3)) l)"
    # a proper list's own error stays the body's
    with pytest.raises(SchemeError, match=r"\*: expected a number"):
        interp.eval("(tri (list 1 'a 3))")


def test_a_cyclic_list_under_a_time_limit_is_refused_not_timed_out() -> None:
    interp = Interpreter(timeout=5)
    interp.eval("(define (evens l) (filter even? l))")
    with pytest.raises(SchemeError, match="circular list"):
        interp.eval("(let ((c (iota 100000))) (set-cdr! (list-tail c 99999) c) (evens c))")


#: ``(definition of w, a call, its value, what its loop reads)``: fold-right walks the Python
#: list its primitive makes (last first), reduce the pairs after the first, vector-map the vector.
SEQUENCE_WALKS = [
    ("(define (w l) (fold-right cons '() l))", "(w '(1 2))", "(1 2)", "to_pylist("),
    ("(define (w l) (fold-right (lambda (x acc) (cons (* 2 x) acc)) '() l))", "(w '(1 2))", "(2 4)", "to_pylist("),
    ("(define (w l) (reduce + 0 l))", "(w '(1 2 3))", "6", "probing_rounds("),
    ("(define (w l) (reduce (lambda (x acc) (- x acc)) 0 l))", "(w '(1 2 3 4))", "2", "probing_rounds("),
    ("(define (w v) (vector-map car v))", "(w (vector '(1) '(2)))", "#(1 2)", "check_vector("),
    ("(define (w v) (vector-map (lambda (x) (* x x)) v))", "(w (vector 1 2))", "#(1 4)", "check_vector("),
]


@pytest.mark.parametrize(("definition", "call", "expected", "loop"), SEQUENCE_WALKS)
def test_fold_right_reduce_and_vector_map_run_as_loops(
    sources: list[str], definition: str, call: str, expected: str, loop: str
) -> None:
    interp = Interpreter()
    interp.eval(definition)
    assert write_string(interp.eval_scheme(call)) == expected
    body = "\n".join(sources)
    assert loop in body and (", True):" in body if "fold-right" in definition else True)
    # the walk rebound after the body was compiled: the ordinary call of the new value
    name = definition.split("(")[3].split()[0]
    interp.eval(f"(define real {name}) (set! {name} (lambda args 'rebound))")
    assert write_string(interp.eval_scheme(call)) == "rebound"
    interp.eval(f"(set! {name} real)")
    assert write_string(interp.eval_scheme(call)) == expected


def test_the_new_walks_under_parallel_map() -> None:
    """Each branch runs the loops with its own locals and polls its own limits; the values are
    the serial ones (for-each checking as it goes, fold-right, reduce, vector-map)."""
    interp = Interpreter()
    interp.eval(
        "(define (g n) (let ((l (iota n)) (s 0)) (for-each (lambda (x) (set! s (+ s x))) l)"
        " (list s (fold-right cons '() l) (reduce + 0 l) (vector-map (lambda (x) (* x x)) (list->vector l)))))"
    )
    serial = interp.eval("(map g (iota 30))")
    assert interp.eval("(parallel-map g (iota 30))") == serial
    assert serial[3][0] == 3 and serial[3][2] == 3
