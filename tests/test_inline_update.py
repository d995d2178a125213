"""``hash-table-update!/default`` with a literal lambda runs the lambda's body inline in the
compiled body (``interpreter/compiler/inline_update.py``): values, errors and their backtrace,
steps, a rebinding of the built-in and ``parallel-map`` are those of the ordinary call."""

from __future__ import annotations

import pytest
from test_compiled_equivalence import Ways
from test_fused import Reference

from interpreter import Interpreter, SchemeError, tables
from interpreter.printer import write_string

#: The built-in rebound to a procedure that calls it: nothing is inline.
WRAPPED = "(define hash-table-update!/default (let ((p hash-table-update!/default)) (lambda xs (apply p xs))))"

#: Each count ``a``'s elements into a table, ``b`` the step; the table's sorted counts.
UPDATES = [
    "(let ((t (make-equal-hash-table))) (for-each (lambda (k) (hash-table-update!/default t k (lambda (c) (+ c b)) 0)) a)"
    " (sort (hash-table-values t) <))",
    # the body makes a closure over its parameter: each update's own binding
    "(let ((t (make-equal-hash-table))) (for-each (lambda (k) (hash-table-update!/default t 'k"
    " (lambda (old) (lambda () (cons k (if (procedure? old) (old) '())))) b)) a) ((hash-table-ref t 'k)))",
    # an error inside the body (car of a number), and a table that is not one
    "(let ((t (make-strong-eqv-hash-table))) (hash-table-update!/default t 1 (lambda (c) (car c)) b) t)",
    "(hash-table-update!/default a 1 (lambda (c) c) b)",
]

ARGUMENTS = [("'(1 2 1 3 1)", "1"), ("'()", "2"), ("'(x y x)", "'(0)"), ("7", "1"), ("'((1) (1) 2)", "1.5")]


@pytest.mark.parametrize("expr", UPDATES)
def test_an_inline_update_agrees_with_the_ordinary_call(expr: str) -> None:
    ways, reference = Ways(), Reference(WRAPPED)
    for a, b in ARGUMENTS:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_the_body_runs_inline(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (count-all l) (let ((t (make-equal-hash-table))) (for-each (lambda (w) (hash-table-update!/default t w (lambda (c) (+ c 1)) 0)) l) t))")
    assert write_string(interp.eval_scheme("(hash-table-ref (count-all '(a b a)) 'a)")) == "2"
    body = next(source for source in sources if "check_table(" in source)
    inline = body.split("check_table(")[1].split(" = VOID")[0]  # the update's inline arm
    assert ".entries[" in inline and ".set(" in inline and "+ 1" in inline and "apply_with_caller" not in inline


def test_an_error_in_the_body_has_the_calls_backtrace() -> None:
    interp = Interpreter()
    interp.eval("(define (bump t) (hash-table-update!/default t 'k (lambda (c) (car c)) 0))")
    with pytest.raises(SchemeError) as caught:
        interp.eval("(bump (make-equal-hash-table))")
    frames = [frame.expr for frame in caught.value.frames]
    assert frames[0] == "(car c)"
    assert frames[1].startswith("(hash-table-update!/default t 'k") and frames[2] == "(bump (make-equal-hash-table))"
    with pytest.raises(SchemeError, match="hash-table-update!/default: expected a hash table, got 5"):
        interp.eval("(bump 5)")


def test_each_update_is_a_step() -> None:
    interp = Interpreter(max_steps=3_000)
    interp.eval("(define (count-all l) (let ((t (make-equal-hash-table))) (for-each (lambda (w) (hash-table-update!/default t w (lambda (c) (+ c 1)) 0)) l) (hash-table-size t)))")
    assert interp.eval("(count-all (iota 500))") == 500
    with pytest.raises(SchemeError, match="step limit"):
        interp.eval("(count-all (iota 5000))")


def test_a_rebinding_of_the_builtin_is_seen() -> None:
    interp = Interpreter()
    interp.eval(
        "(define real hash-table-update!/default)"
        " (define (bump t) (hash-table-update!/default t 'k (lambda (c) (+ c 1)) 0) (hash-table-ref/default t 'k #f))"
    )
    assert interp.eval("(bump (make-equal-hash-table))") == 1
    interp.eval("(set! hash-table-update!/default (lambda (t k f d) (hash-table-set! t k 'mine)))")
    assert write_string(interp.eval_scheme("(bump (make-equal-hash-table))")) == "mine"
    interp.eval("(set! hash-table-update!/default real)")
    assert interp.eval("(bump (make-equal-hash-table))") == 1


def test_inline_updates_under_parallel_map() -> None:
    interp = Interpreter()
    interp.eval(
        "(define (tally n) (let ((t (make-equal-hash-table)))"
        " (for-each (lambda (i) (hash-table-update!/default t (modulo i 3) (lambda (c) (+ c i)) 0)) (iota n))"
        " (hash-table-ref/default t 0 0)))"
    )
    serial = interp.eval("(map tally (iota 30))")
    assert interp.eval("(parallel-map tally (iota 30))") == serial
    assert serial[7] == 0 + 3 + 6


@pytest.mark.parametrize("inline", [True, False])
def test_an_update_of_a_key_the_table_holds_reserves_nothing(monkeypatch: pytest.MonkeyPatch, inline: bool) -> None:
    """At 4,096 entries (a power of two) a new key's store reserves the dict's next doubling;
    an update of a key the table holds stores in place (the dict does not grow), in the inline
    update and the primitive alike (``(apply …)`` of the primitive: no inline arm)."""
    reserved: list[int] = []
    monkeypatch.setattr(tables, "reserve", reserved.append)
    interp = Interpreter()
    call = "(hash-table-update!/default t k (lambda (c) (+ c 1)) 0)"
    if not inline:
        call = "(apply hash-table-update!/default (list t k (lambda (c) (+ c 1)) 0))"
    interp.eval(f"(define t (make-equal-hash-table)) (define (bump k) {call})")
    interp.eval("(do ((i 0 (+ i 1))) ((= i 4096)) (hash-table-set! t i i))")
    reserved.clear()
    for _ in range(3):
        interp.eval("(bump 7)")
    assert reserved == [] and interp.eval("(hash-table-ref t 7)") == 10
    interp.eval("(bump 'new)")
    assert reserved == [4096 * tables.TABLE_GROWTH_BYTES] and interp.eval("(hash-table-ref t 'new)") == 1
