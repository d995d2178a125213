"""Pairs, lists, equivalence predicates and the higher-order list procedures."""

from __future__ import annotations

import pytest
from helpers import assert_error, same

from interpreter import Interpreter

CASES = [
    # booleans and equivalence
    ("(not #f)", "#t"),
    ("(not 0)", "#f"),
    ("(not '())", "#f"),
    ("(boolean? #f)", "#t"),
    ("(boolean? 0)", "#f"),
    ("(boolean=? #t #t)", "#t"),
    ("(boolean=? #t #f)", "#f"),
    ("(boolean=? #f #f #f)", "#t"),
    ("(eq? 'a 'a)", "#t"),
    ("(eq? '() '())", "#t"),
    ("(eq? (list 1) (list 1))", "#f"),
    ("(let ((x (list 1))) (eq? x x))", "#t"),
    ("(eqv? 1.0 1.0)", "#t"),
    ("(eqv? 1 1.0)", "#f"),
    ("(eqv? #\\a #\\a)", "#t"),
    ("(eqv? 100000000000000000000 100000000000000000000)", "#t"),
    ('(equal? (list 1 (vector 2 "x")) (list 1 (vector 2 "x")))', "#t"),
    ('(equal? "abc" (string-copy "abc"))', "#t"),
    ("(equal? 1 1.0)", "#f"),
    ("(equal? '(1 2) '(1 2 3))", "#f"),
    # pairs
    ("(cons 1 2)", "(1 . 2)"),
    ("(car '(1 2))", "1"),
    ("(cdr '(1 2))", "(2)"),
    ("(cadr '(1 2 3))", "2"),
    ("(cddr '(1 2 3))", "(3)"),
    ("(caar '((1) 2))", "1"),
    ("(cdar '((1 5) 2))", "(5)"),
    ("(caddr '(1 2 3))", "3"),
    ("(cdddr '(1 2 3 4))", "(4)"),
    ("(cadddr '(1 2 3 4))", "4"),
    ("(caadr '(1 (2)))", "2"),
    ("(cddddr '(1 2 3 4 5))", "(5)"),
    ("(let ((p (cons 1 2))) (set-car! p 10) p)", "(10 . 2)"),
    ("(let ((p (cons 1 2))) (set-cdr! p '(3)) p)", "(1 3)"),
    # construction and predicates
    ("(list)", "()"),
    ("(list 1 2 3)", "(1 2 3)"),
    ("(cons* 1 2 '(3 4))", "(1 2 3 4)"),
    ("(cons* 1 2 3)", "(1 2 . 3)"),
    ("(cons* 1)", "1"),
    ("(make-list 3 'x)", "(x x x)"),
    ("(make-list 0 'x)", "()"),
    ("(length (make-list 3))", "3"),
    ("(pair? '(1))", "#t"),
    ("(pair? '())", "#f"),
    ("(null? '())", "#t"),
    ("(null? '(1))", "#f"),
    ("(list? '(1 2))", "#t"),
    ("(list? '())", "#t"),
    ("(list? '(1 . 2))", "#f"),
    ("(list? 5)", "#f"),
    ("(let ((x (list 1 2))) (set-cdr! (cdr x) x) (list? x))", "#f"),
    ("(length '())", "0"),
    ("(length '(1 2 3))", "3"),
    ("(append)", "()"),
    ("(append '(1))", "(1)"),
    ("(append '(1 2) '(3) '() '(4 5))", "(1 2 3 4 5)"),
    ("(append '(1) 2)", "(1 . 2)"),
    ("(append '() 5)", "5"),
    ("(let* ((a (list 1 2)) (b (append a '(3)))) (set-car! a 99) b)", "(1 2 3)"),
    ("(reverse '(1 2 3))", "(3 2 1)"),
    ("(reverse '())", "()"),
    ("(list-tail '(1 2 3 4) 2)", "(3 4)"),
    ("(list-tail '(1 2) 2)", "()"),
    ("(list-ref '(a b c) 1)", "b"),
    ("(let ((l (list 1 2 3))) (list-set! l 1 'x) l)", "(1 x 3)"),
    ("(list-copy '(1 2 3))", "(1 2 3)"),
    ("(list-copy '(1 2 . 3))", "(1 2 . 3)"),
    ("(let* ((a (list 1 2)) (b (list-copy a))) (set-car! b 9) a)", "(1 2)"),
    ("(last-pair '(1 2 3))", "(3)"),
    ("(last '(1 2 3))", "3"),
    ("(take '(1 2 3 4) 2)", "(1 2)"),
    ("(drop '(1 2 3 4) 2)", "(3 4)"),
    # searching
    ("(memq 'c '(a b c d))", "(c d)"),
    ("(memq 'z '(a b c))", "#f"),
    ("(memv 2 '(1 2 3))", "(2 3)"),
    ("(memv 2.0 '(1 2 3))", "#f"),
    ("(member '(1) '((0) (1) (2)))", "((1) (2))"),
    ('(member "b" \'("a" "b"))', '("b")'),
    ("(member 2.0 '(1 2 3) =)", "(2 3)"),
    ("(member 5 '(1 2 3) <)", "#f"),
    ("(assq 'b '((a 1) (b 2)))", "(b 2)"),
    ("(assq 'z '((a 1)))", "#f"),
    ("(assv 2 '((1 . one) (2 . two)))", "(2 . two)"),
    ('(assoc "b" \'(("a" . 1) ("b" . 2)))', '("b" . 2)'),
    ("(assoc '(k) '(((k) . 1)))", "((k) . 1)"),
    ("(assoc 2.0 '((1 . a) (2 . b)) =)", "(2 . b)"),
    # higher order
    ("(map (lambda (x) (* x x)) '(1 2 3))", "(1 4 9)"),
    ("(map + '(1 2 3) '(10 20 30))", "(11 22 33)"),
    ("(map + '(1 2 3) '(10 20))", "(11 22)"),
    ("(map car '())", "()"),
    ("(let ((acc '())) (for-each (lambda (x) (set! acc (cons x acc))) '(1 2 3)) acc)", "(3 2 1)"),
    ("(let ((n 0)) (for-each (lambda (a b) (set! n (+ n (* a b)))) '(1 2) '(3 4)) n)", "11"),
    ("(filter odd? '(1 2 3 4 5))", "(1 3 5)"),
    ("(remove odd? '(1 2 3 4 5))", "(2 4)"),
    ("(call-with-values (lambda () (partition odd? '(1 2 3 4))) list)", "((1 3) (2 4))"),
    ("(reduce + 0 '(1 2 3 4))", "10"),
    ("(reduce + 0 '())", "0"),
    ("(reduce cons '() '(1 2 3))", "(3 2 . 1)"),
    ("(reduce max 0 '(3 9 2))", "9"),
    ("(reduce-right append '() '((1) (2) (3)))", "(1 2 3)"),
    ("(fold cons '() '(1 2 3))", "(3 2 1)"),
    ("(fold + 0 '(1 2 3))", "6"),
    ("(fold cons* '() '(a b c) '(1 2 3))", "(c 3 b 2 a 1)"),
    ("(fold-left cons '() '(1 2 3))", "(((() . 1) . 2) . 3)"),
    ("(fold-left - 0 '(1 2 3))", "-6"),
    ("(fold-left list '() '(1 2) '(3 4))", "((() 1 3) 2 4)"),
    ("(fold-right cons '() '(1 2 3))", "(1 2 3)"),
    ("(fold-right - 0 '(1 2 3))", "2"),
    ("(fold-right list 'end '(1 2) '(3 4))", "(1 3 (2 4 end))"),
    ("(delete 2 '(1 2 3 2))", "(1 3)"),
    ("(delete '(a) '((a) (b)))", "((b))"),
    ("(delete 3 '(1 2 3 4) <)", "(1 2 3)"),
    ("(delete-duplicates '(1 2 1 3 2 4))", "(1 2 3 4)"),
    ("(delete-duplicates '((a) (b) (a)))", "((a) (b))"),
    ("(delete-duplicates '(1 1.0 1))", "(1 1.0)"),
    ("(delete-duplicates '(1 2 3 4) (lambda (a b) (= (modulo a 2) (modulo b 2))))", "(1 2)"),
    ("(iota 5)", "(0 1 2 3 4)"),
    ("(iota 3 1)", "(1 2 3)"),
    ("(iota 3 0 2)", "(0 2 4)"),
    ("(iota 3 0 0.5)", "(0.0 0.5 1.0)"),
    ("(iota 0)", "()"),
    ("(list-index even? '(1 3 4 5))", "2"),
    ("(list-index even? '(1 3))", "#f"),
    ("(any odd? '(2 4 5))", "#t"),
    ("(any (lambda (x) (and (> x 2) (* x 10))) '(1 2 3 4))", "30"),
    ("(any odd? '())", "#f"),
    ("(any < '(1 5) '(2 4))", "#t"),
    ("(every odd? '(1 3 5))", "#t"),
    ("(every odd? '(1 2 3))", "#f"),
    ("(every odd? '())", "#t"),
    ("(every (lambda (x) (* x 2)) '(1 2 3))", "6"),
    ("(append-map (lambda (x) (list x x)) '(1 2))", "(1 1 2 2)"),
    ("(append-map list '(1 2) '(a b))", "(1 a 2 b)"),
    ("(filter-map (lambda (x) (and (odd? x) (* x x))) '(1 2 3))", "(1 9)"),
    ("(find even? '(1 3 4 6))", "4"),
    ("(find even? '(1 3))", "#f"),
    ("(find-tail even? '(1 4 5))", "(4 5)"),
    ("(count odd? '(1 2 3))", "2"),
    # sorting
    ("(sort '(3 1 2) <)", "(1 2 3)"),
    ("(sort < '(3 1 2))", "(1 2 3)"),
    ("(sort '() <)", "()"),
    ("(sort (vector 5 3 9 1) <)", "#(1 3 5 9)"),
    ('(sort \'("pear" "apple" "fig") string<?)', '("apple" "fig" "pear")'),
    (
        "(sort '((b . 1) (a . 2) (c . 1) (d . 0)) (lambda (x y) (< (cdr x) (cdr y))))",
        "((d . 0) (b . 1) (c . 1) (a . 2))",
    ),
    ("(sort '(3 1 2) >)", "(3 2 1)"),
    ("(list-sort < '(2 1))", "(1 2)"),
    ("(let ((v (vector 3 1 2))) (sort! v <) v)", "#(1 2 3)"),
    ("(let ((l (list 3 1 2))) (sort! l <) l)", "(1 2 3)"),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_value(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected), src


ERRORS = [
    ("(car 5)", "car: expected a pair, got 5", "type-error"),
    ("(car '())", "car: expected a pair, got '()", "type-error"),
    ("(cdr #f)", "cdr: expected a pair, got #f", "type-error"),
    ("(cadr '(1))", "cadr", "type-error"),
    ("(caddr '(1 2))", "caddr", "type-error"),
    ("(set-car! '() 1)", "set-car!: expected a pair", "type-error"),
    ("(car)", "car: expected 1 argument, given 0", "arity-error"),
    ("(cons 1)", "cons", "arity-error"),
    ("(length '(1 2 . 3))", "length: expected a proper list, got '(1 2 . 3)", "type-error"),
    ("(length 5)", "length: expected a proper list, got 5", "type-error"),
    ("(let ((x (list 1 2))) (set-cdr! (cdr x) x) (length x))", "circular list", "type-error"),
    ("(append '(1 . 2) '(3))", "append: expected a proper list", "type-error"),
    ("(append 1 '(3))", "append: expected a proper list", "type-error"),
    ("(reverse '(1 . 2))", "reverse: expected a proper list", "type-error"),
    ("(list-ref '(1 2) 5)", "list-ref: index 5 out of range for list of length 2", "index-error"),
    ("(list-ref '(1 2) -1)", "list-ref: index -1 out of range", "index-error"),
    ("(list-ref '(1 2) 1.0)", "list-ref: expected an exact integer index", "type-error"),
    ("(list-tail '(1 2) 3)", "list-tail: index 3 out of range", "index-error"),
    ("(list-set! (list 1) 1 'x)", "list-set!: index 1 out of range", "index-error"),
    ("(make-list -1)", "make-list: expected a non-negative exact integer", "type-error"),
    ("(make-list 1000000000)", "make-list: size 1000000000 is too large", "resource-exhaustion"),
    ("(iota 1000000000)", "iota", "resource-exhaustion"),
    ("(iota 'a)", "iota", "type-error"),
    ("(map 5 '(1 2))", "map: expected a procedure, got 5", "type-error"),
    ("(map car 5)", "map: expected a proper list", "type-error"),
    ("(for-each display '(1 . 2))", "for-each: expected a proper list", "type-error"),
    ("(filter odd? 7)", "filter: expected a proper list", "type-error"),
    ("(fold + 0 'x)", "fold: expected a proper list", "type-error"),
    ("(assq 'a '(1 2))", "assq: expected an association list", "type-error"),
    ("(memq 'a 5)", "memq: expected a proper list", "type-error"),
    ("(sort 5 <)", "sort: expected a list or vector", "type-error"),
    ("(sort '(1 a) <)", "<: expected a real number, got 'a", "type-error"),
    ("(last-pair '())", "last-pair: expected a pair", "type-error"),
    ("(boolean=? 1 #t)", "boolean=?: expected a boolean", "type-error"),
]


@pytest.mark.parametrize(("src", "message", "kind"), ERRORS)
def test_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    assert_error(interp, src, message, kind)


BIG = 200_000


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (f"(length (iota {BIG}))", BIG),
        (f"(length (append (iota {BIG}) (iota {BIG})))", 2 * BIG),
        (f"(car (reverse (iota {BIG})))", BIG - 1),
        (f"(vector-length (list->vector (iota {BIG})))", BIG),
        (f"(length (list-copy (iota {BIG})))", BIG),
        (f"(length (map (lambda (x) x) (iota {BIG})))", BIG),
        (f"(length (filter even? (iota {BIG})))", BIG // 2),
        (f"(fold-right + 0 (iota {BIG}))", BIG * (BIG - 1) // 2),
        (f"(equal? (iota {BIG}) (iota {BIG}))", True),
        (f"(car (sort (reverse (iota {BIG})) <))", 0),
        (f"(length (delete-duplicates (append (iota {BIG}) (iota {BIG}))))", BIG),
        (f"(list-ref (iota {BIG}) {BIG - 1})", BIG - 1),
        (f"(car (last-pair (iota {BIG})))", BIG - 1),
    ],
)
def test_long_lists_are_iterative(interp: Interpreter, src: str, expected: object) -> None:
    assert interp.eval_scheme(src) == expected


def test_sort_is_stable(interp: Interpreter) -> None:
    src = "(map cdr (sort (map (lambda (i) (cons (modulo i 3) i)) (iota 30)) (lambda (a b) (< (car a) (car b)))))"
    result = list(interp.eval_scheme(src))
    assert result == [i for k in range(3) for i in range(30) if i % 3 == k]


def test_sort_does_not_mutate_its_argument(interp: Interpreter) -> None:
    assert same(interp.eval_scheme("(let ((l (list 3 1 2))) (sort l <) l)"), "(3 1 2)")


def test_map_calls_in_order(interp: Interpreter) -> None:
    src = "(let ((seen '())) (map (lambda (x) (set! seen (cons x seen)) x) '(1 2 3)) seen)"
    assert same(interp.eval_scheme(src), "(3 2 1)")


# -- higher-order procedures call closures and primitives directly (evaluator.caller) ------
DIRECT_CALLS = [
    # a closure whose body ends in a call of another procedure (a pending tail call)
    ("(define (twice x) (* 2 x)) (map (lambda (x) (twice x)) '(1 2 3))", "(2 4 6)"),
    # a closure made and passed before its body was ever compiled, then redefined elsewhere
    ("(let ((f (lambda (x) (+ x 1)))) (list (map f '(1 2)) (map f '(3))))", "((2 3) (4))"),
    ("(map + '(1 2) '(10 20 30))", "(11 22)"),
    ("(map (lambda (a b c) (list a b c)) '(1 2) '(3 4) '(5 6))", "((1 3 5) (2 4 6))"),
    ("(fold-left (lambda (acc x) (cons x acc)) '() '(1 2 3))", "(3 2 1)"),
    ("(fold-left list 0 '(1 2) '(3 4))", "((0 1 3) 2 4)"),
    ("(fold-right cons '() '(1 2 3))", "(1 2 3)"),
    ("(fold-right list 0 '(1 2) '(3 4))", "(1 3 (2 4 0))"),
    ("(fold cons* '() '(a b c) '(1 2 3))", "(c 3 b 2 a 1)"),
    ("(reduce max 0 '(3 9 2))", "9"),
    ("(reduce-right append '() '((1) (2) (3)))", "(1 2 3)"),
    ("(filter-map (lambda (x) (and (odd? x) (* x x))) '(1 2 3))", "(1 9)"),
    ("(append-map (lambda (x) (list x x)) '(1 2))", "(1 1 2 2)"),
    ("(count < '(1 5 2) '(2 3 4))", "2"),
    ("(list-index even? '(1 3 4))", "2"),
    ("(any (lambda (x y) (and (> x y) (list x y))) '(1 5) '(2 3))", "(5 3)"),
    ("(every (lambda (x) (and (> x 0) x)) '(1 2 3))", "3"),
    ("(find (lambda (x) (> x 1)) '(1 2 3))", "2"),
    ("(call-with-values (lambda () (partition odd? '(1 2 3))) list)", "((1 3) (2))"),
    ("(vector-map (lambda (x y) (+ x y)) #(1 2) #(10 20))", "#(11 22)"),
    ('(let ((n 0)) (string-for-each (lambda (c) (set! n (+ n 1))) "abc") n)', "3"),
    ('(string-map char-upcase "abc")', '"ABC"'),
    # a procedure that is neither a closure of the right count nor a primitive
    ("(map (lambda args args) '(1 2))", "((1) (2))"),
    ("(map (case-lambda ((x) x) ((x y) y)) '(1 2) '(3 4))", "(3 4)"),
    # continuations escape from inside a callback
    ("(call/cc (lambda (k) (for-each (lambda (x) (if (> x 1) (k x))) '(1 2 3)) 'none))", "2"),
]


@pytest.mark.parametrize(("src", "expected"), DIRECT_CALLS)
def test_higher_order_procedures_call_procedures_directly(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected), src


@pytest.mark.parametrize(
    ("src", "message", "kind"),
    [
        ("(map (lambda (x y) x) '(1 2))", "expected 2 arguments, given 1", "arity-error"),
        ("(map car '(1 2))", "car: expected a pair, got 1", "type-error"),
        ("(fold-left cons)", "fold-left", "arity-error"),
        ("(for-each (lambda (x) (vector-ref (vector) x)) '(0))", "vector-ref", "index-error"),
        ("(assoc 1 '((2 . 3)) (lambda (a) #t))", "expected 1 argument, given 2", "arity-error"),
    ],
)
def test_errors_inside_direct_calls(interp: Interpreter, src: str, message: str, kind: str) -> None:
    assert_error(interp, src, message, kind)


def test_direct_calls_count_steps_and_go_deep() -> None:
    limited = Interpreter(max_steps=1000)
    assert_error(limited, "(for-each (lambda (x) x) (iota 5000))", "step limit exceeded", "resource-exhaustion")
    interp = Interpreter()
    # a callback that recurses deeply (the runtime moves to a fresh stack as it goes)
    src = "(define (down n) (if (= n 0) 0 (+ 1 (down (- n 1))))) (map down '(1 30000))"
    assert same(interp.eval_scheme(src), "(1 30000)")
    assert_error(Interpreter(max_depth=500), src, "recursion depth limit exceeded", "resource-exhaustion")


# -- member, memv, assoc, assv, assq: eqv? and equal? without a call per element -------------
SEARCHES = [
    ("(assv 2 '((1 . a) (2 . b)))", "(2 . b)"),
    ("(assv 2.0 '((2 . exact) (2.0 . inexact)))", "(2.0 . inexact)"),
    ("(assv 0.0 '((-0.0 . negative) (0.0 . positive)))", "(0.0 . positive)"),
    ("(assv 1/2 '((0.5 . inexact) (1/2 . exact)))", "(1/2 . exact)"),
    ("(assv 100000000000000000000 '((100000000000000000000 . big)))", "(100000000000000000000 . big)"),
    ("(assv #\\b '((#\\a . 1) (#\\b . 2)))", "(#\\b . 2)"),
    ('(assv "" \'(("" . empty)))', "(\"\" . empty)"),
    ("(assq 'b '((a . 1) (b . 2)))", "(b . 2)"),
    ("(assq 'z '((a . 1)))", "#f"),
    ('(assoc "b" \'(("a" . 1) ("b" . 2)))', '("b" . 2)'),
    ('(assoc (string-copy "b") \'(("a" . 1) ("b" . 2)))', '("b" . 2)'),
    ('(assoc "b" (list (cons (string-copy "b") 2)))', '("b" . 2)'),
    # a mutated string compares by its characters (its text is rebuilt on demand)
    ('(let ((k (string-copy "ab"))) (string-set! k 0 #\\x) (assoc "xb" (list (cons "ab" 0) (cons k 1))))', '("xb" . 1)'),
    ('(let ((k (string-copy "ab"))) (string-set! k 0 #\\x) (member k (list "ab" "xb")))', '("xb")'),
    ("(assoc '(1 2) '(((1 2) . pair) (x . y)))", "((1 2) . pair)"),
    ("(assoc #(1) '((#(1) . vec)))", "(#(1) . vec)"),
    ("(assoc 2.0 '((2 . exact) (2.0 . inexact)))", "(2.0 . inexact)"),
    ("(assoc 2 '((1 . a) (3 . b)) (lambda (k x) (< k x)))", "(3 . b)"),
    ("(member 2.0 '(2 2.0 3))", "(2.0 3)"),
    ("(member '(a) '(b (a) c))", "((a) c)"),
    ('(member "b" (list "a" (string-copy "b")))', '("b")'),
    ("(member 2 '(1 3 4) <)", "(3 4)"),
    ("(memv 3 '(1 2 3 4))", "(3 4)"),
    ("(memv 3 '(1 2 3.0))", "#f"),
    ("(memq 'c '(a b c d))", "(c d)"),
    ("(memq 'x '())", "#f"),
    ("(memv 1 '(1 . 2))", "(1 . 2)"),
]


@pytest.mark.parametrize(("src", "expected"), SEARCHES)
def test_searches(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected), src


@pytest.mark.parametrize("who", ["memv", "member", "memq"])
def test_searches_end_on_improper_and_circular_lists(interp: Interpreter, who: str) -> None:
    assert_error(interp, f"({who} 9 '(1 2 . 3))", f"{who}: expected a proper list", "type-error")
    circular = "(let ((x (list 1 2 3))) (set-cdr! (cddr x) x) x)"
    assert_error(interp, f"({who} 9 {circular})", "circular list", "type-error")
    assert_error(interp, "(assv 9 (list (cons 1 2) (cons 3 4) 5))", "association list", "type-error")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 16383, 16384, 16385, 32767, 32768, 32769])
def test_length_counts_every_pair_across_chunks(n: int) -> None:
    """``list_length`` takes its count from the index of a two-pair round: odd, even and
    chunk-boundary lengths; an improper tail after each of them is refused."""
    interp = Interpreter()
    assert interp.eval(f"(length (iota {n}))") == n
    assert interp.eval(f"(list? (append (iota {n}) 5))") is False
    assert interp.eval(f"(list? (iota {n}))") is True


@pytest.mark.parametrize(("lead", "cycle"), [(0, 1), (0, 2), (1, 1), (2, 3), (3, 2), (5, 16385)])
def test_length_refuses_circular_lists(lead: int, cycle: int) -> None:
    interp = Interpreter()
    src = f"(let* ((c (iota {cycle})) (l (append (iota {lead}) c))) (set-cdr! (last-pair c) c) (list? l))"
    assert interp.eval(src) is False
    assert_error(interp, src.replace("(list? l)", "(length l)"), "circular", "type-error")


SEARCH_LISTS = [
    "'(1 2 3)",
    "'(1.0 2 #t 1 3)",
    "(list 1.0 2.0 (expt 10 30) 2 #t 1)",
    "'(a b c d)",
    "(list \"a\" (string-append \"b\") 'b \"b\")",
    "(let ((s (string-copy \"b\"))) (string-set! s 0 #\\b) (list \"a\" 1 s \"b\"))",
    "'(x 1 . 2)",
    "(let ((l (list 1 2 3))) (set-cdr! (cddr l) l) l)",
    "(append (iota 20000) '(b 20000 \"b\" #t))",
    "(let ((l (iota 20000))) (set-cdr! (last-pair l) (cdr l)) (cons 'a l))",
]
SEARCH_ALISTS = [
    "'((1 . one) (2 . two))",
    "(list (cons 1.0 'f) (cons #t 't) (cons 1 'one) (cons 2 'two))",
    "(list (cons \"a\" 1) (cons (string-append \"b\") 2) (cons 'b 3))",
    "(let ((s (string-copy \"b\"))) (string-set! s 0 #\\b) (list (cons 'b 0) (cons s 1)))",
    "'((a . 1) b (c . 2))",
    "'((a . 1) . 5)",
    "(let ((l (list (cons 1 1) (cons 'a 2)))) (set-cdr! (cdr l) l) l)",
    "(append (map (lambda (i) (cons i i)) (iota 20000)) (list (cons 'b 0) (cons \"b\" 1) (cons 20000 2)))",
    "(let ((l (map (lambda (i) (cons i i)) (iota 20000)))) (set-cdr! (last-pair l) (cdr l)) l)",
]
SEARCH_KEYS = ["1", "2", "1.0", "#t", "'b", "\"b\"", "(string-append \"b\")", "20000", "19999", "'zz", "(expt 10 30)"]


@pytest.mark.parametrize("lst", SEARCH_LISTS)
@pytest.mark.parametrize("who", ["memq", "memv", "member"])
def test_member_searches_agree_with_the_general_walk(who: str, lst: str) -> None:
    """The first pass written for a kind of key (exact integers, strings, symbols and
    booleans) gives what the general walk (``lists._search``) gives, errors included."""
    _agree(who, lst, False)


@pytest.mark.parametrize("alist", SEARCH_ALISTS)
@pytest.mark.parametrize("who", ["assq", "assv", "assoc"])
def test_association_searches_agree_with_the_general_walk(who: str, alist: str) -> None:
    _agree(who, alist, True)


def _agree(who: str, lst: str, entries: bool) -> None:
    from interpreter.primitives.lists import search as lists

    interp = Interpreter()
    interp.eval(f"(define L {lst})")
    data = interp.eval_scheme("L")
    for key_src in SEARCH_KEYS:
        key = interp.eval_scheme(key_src)
        try:
            expected = lists._search(who, data, lists._matcher(key, who in ("member", "assoc")), entries)
        except Exception as exc:  # the general walk's error, compared below
            with pytest.raises(type(exc)) as info:
                interp.eval_scheme(f"({who} {key_src} L)")
            assert info.value.message == exc.message, (who, key_src)  # type: ignore[attr-defined]
            continue
        assert interp.eval_scheme(f"({who} {key_src} L)") is expected, (who, key_src)
