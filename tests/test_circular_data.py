"""Circular and self-sharing data never hangs a primitive, the analyzer or a record.

A program (perhaps written by a model) can build a circular list with ``set-cdr!``
or read one with datum labels (``#0=(a . #0#)``). Primitives run as single Python
calls that the time limit cannot cut short, so each must finish on such input: with
its answer where R7RS gives one (``equal?``), else with a clear error.
"""

from __future__ import annotations

import threading
import time

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string

CYCLE = "(define l (list 1 2 3)) (set-cdr! (cddr l) l) "
CAR_CYCLE = "(define l (list 'f 1)) (set-car! (cdr l) l) (define (f x) x) "


def outcome(source: str, seconds: float = 10.0) -> str:
    """The value or error of ``source``, run on a thread that must finish in ``seconds``."""
    box: list[str] = []

    def run() -> None:
        try:
            box.append("value " + write_string(Interpreter(timeout=2).eval_scheme(source)))
        except SchemeError as err:
            box.append(f"error {err.kind}: {err.message}")

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"did not finish: {source}"
    return box[0]


@pytest.mark.parametrize(
    ("call", "who"),
    [
        ("(list-copy l)", "list-copy"),
        ("(apply + l)", "list"),
        ("(last-pair l)", "last-pair"),
        ("(member 9 l)", "member"),
        ("(memv 9 l)", "memv"),
        ("(memq 9 l)", "memq"),
        ("(eval l)", "syntax"),
    ],
)
def test_list_primitives_refuse_a_circular_list(call: str, who: str) -> None:
    assert outcome(CYCLE + call) == f"error type-error: {who}: expected a proper list, got a circular list"


def test_association_lookups_refuse_a_circular_alist() -> None:
    setup = "(define l (list (cons 'a 1) (cons 'b 2))) (set-cdr! (cdr l) l) "
    for who in ["assq", "assv", "assoc"]:
        assert outcome(setup + f"({who} 'z l)") == f"error type-error: {who}: expected a proper list, got a circular list"
    assert outcome(setup + "(assq 'b l)") == "value (b . 2)"


def test_equal_compares_circular_lists_by_their_unfolding() -> None:
    two = "(define a (list 1 2)) (set-cdr! (cdr a) a) "
    assert outcome(two + "(define b (list 1 2 1 2)) (set-cdr! (cdddr b) b) (equal? a b)") == "value #t"
    assert outcome(two + "(define b (list 1 2 3)) (set-cdr! (cddr b) b) (equal? a b)") == "value #f"
    assert outcome(two + "(equal? a (list 1 2 1 2))") == "value #f"


def test_equal_on_shared_structure_is_not_exponential() -> None:
    double = "(define (grow x n) (if (= n 0) x (grow (cons x x) (- n 1)))) "
    assert outcome(double + "(equal? (grow 1 60) (grow 1 60))") == "value #t"
    assert outcome(double + "(equal? (grow 1 60) (grow 2 60))") == "value #f"


def test_a_circular_hash_key_is_refused() -> None:
    got = outcome(CYCLE + "(hash-table-set! (make-equal-hash-table) l 1)")
    assert got.startswith("error resource-exhaustion: hash table key: a circular structure")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(eval '#0=(begin 1 . #0#))", "error type-error: syntax: expected a proper list, got a circular list"),
        ("#0=(if #t 1 . #0#)", "error type-error: syntax: expected a proper list, got a circular list"),
        ("(eval '(lambda #0=(a . #0#) a))", "error type-error: lambda: expected a proper list, got a circular list"),
        ("(eval '(define #0=(#0#) 1))", "error syntax-error: define: the header contains itself"),
        ("(cond . #0=((#f 1) . #0#))", "error type-error: syntax: expected a proper list, got a circular list"),
        (
            "(define-syntax m (syntax-rules () ((_ x ...) (list x ...)))) (eval '#0=(m 1 . #0#))",
            "error type-error: syntax: expected a proper list, got a circular list",
        ),
        (
            "(define-syntax m (syntax-rules () ((_) #0=(list . #0#)))) (m)",
            "error type-error: syntax-rules: expected a proper list, got a circular list",
        ),
        (
            "(define-macro (bad) (let ((l (list 'begin 1))) (set-cdr! (cdr l) l) l)) (bad)",
            "error type-error: syntax: expected a proper list, got a circular list",
        ),
        ("(eval '#0=(quasiquote (a . #0#)))", "value #0=(a quasiquote #0#)"),
        ("'#0=(a . #0#)", "value #0=(a . #0#)"),
    ],
)
def test_circular_code_is_an_error_and_circular_data_a_value(source: str, expected: str) -> None:
    assert outcome(source) == expected


def test_code_circular_through_the_car_is_a_clean_error() -> None:
    assert outcome(CAR_CYCLE + "(eval l)").startswith("error resource-exhaustion: ")


def test_a_macro_whose_expansion_explodes_meets_the_time_limit() -> None:
    """Each use expands to two uses on a shorter list: 2^40 expansions, 40 deep."""
    interp = Interpreter(timeout=0.5)
    interp.eval("(define-syntax fan (syntax-rules () ((_ ()) 0) ((_ (a . rest)) (+ (fan rest) (fan rest)))))")
    start = time.monotonic()
    with pytest.raises(SchemeError) as info:
        interp.eval(f"(fan ({' 1' * 40}))")
    assert "time limit exceeded: timeout = 0.5 s" in info.value.message
    assert time.monotonic() - start < 5


DOUBLED = "(define (grow x n) (if (= n 0) x (grow (cons x x) (- n 1)))) (define g (grow 1 60)) "


@pytest.mark.parametrize(
    "call",
    [
        "(string-length (with-output-to-string (lambda () (write g))))",
        "(string-length (with-output-to-string (lambda () (display g))))",
        "(vector-length (vector g g))",
        "(get (sequential (step a g)) 'status)",
    ],
)
def test_structure_shared_exponentially_prints_with_labels(call: str) -> None:
    assert outcome(DOUBLED + call).startswith("value ")


def test_structure_shared_exponentially_writes_text_that_reads_back_equal() -> None:
    source = DOUBLED + "(equal? g (read (open-input-string (with-output-to-string (lambda () (write g))))))"
    assert outcome(source) == "value #t"


def test_small_shared_structure_still_prints_unfolded() -> None:
    """R7RS write labels cycles only: modest sharing is printed in full."""
    assert outcome("(define x (list 1 2)) (list x x)") == "value ((1 2) (1 2))"


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        # chibi's example: R7RS stops at the shortest list, a circular one being endless
        ("(map + '(1 2 3 4 5 6) l)", "value (2 4 6 5 7 9)"),
        ("(map (lambda (x y z) (+ x y z)) '(1 2 3 4 5 6) l '(100 200))", "value (102 204)"),
        ("(let ((out '())) (for-each (lambda (x y) (set! out (cons (* x y) out))) l '(10 20 30 40)) out)",
         "value (40 90 40 10)"),
        ("(fold-left (lambda (acc x y) (+ acc (* x y))) 0 '(1 1 1 1 1) l)", "value 9"),
        ("(map + l l)", "error type-error: map: expected a proper list, got only circular lists"),
        ("(for-each + l l)", "error type-error: for-each: expected a proper list, got only circular lists"),
        ("(map + '(1 . 2) l)", "error type-error: map: expected a proper list, got '(1 . 2)"),
    ],
)
def test_walks_over_several_lists_stop_at_the_shortest_a_circular_one_being_endless(call: str, expected: str) -> None:
    assert outcome(CYCLE + call) == expected


def test_chibis_example_of_map_over_a_circular_list() -> None:
    circular = "(define (circular . xs) (let ((l (list-copy xs))) (set-cdr! (last-pair l) l) l)) "
    call = "(map * '(1 2 3 4 5 6) (circular 10 100 1000))"
    assert outcome(circular + call) == "value (10 200 3000 40 500 6000)"
