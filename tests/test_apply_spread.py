"""``(apply + numbers)`` and ``(apply string-append strings)`` walk the list once
(``primitives/spread.py``), with the ordinary path's values and errors."""

from __future__ import annotations

import pytest
from helpers import assert_error

from interpreter import Interpreter, SchemeError
from interpreter.primitives import control


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(apply + '())", 0),
        ("(apply + '(7))", 7),
        ("(apply + (iota 40000))", sum(range(40000))),
        ("(apply + '(1 2 3.5 1/2))", 7.0),
        ("(apply + (list (expt 2 100) 1))", 2**100 + 1),
        ("(apply string-append '())", ""),
        ("(apply string-append (list \"a\" (string-copy \"bc\") (number->string 12) \"\"))", "abc12"),
        ("(let ((s (string-copy \"xyz\"))) (string-set! s 0 #\\Q) (apply string-append (list s \"-\" s)))", "Qyz-Qyz"),
        ("(string-length (apply string-append (map number->string (iota 40000))))",
         len("".join(map(str, range(40000))))),
        ("(let ((s (apply string-append (list \"ab\")))) (string-set! s 0 #\\z) s)", "zb"),  # a new mutable string
    ],
)
def test_values(source: str, expected: object) -> None:
    assert Interpreter().eval(source) == expected


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("(apply + '(1 2 . 3))", "apply: expected a proper list as last argument"),
        ("(apply + '(1 a . 3))", "apply: expected a proper list as last argument"),  # the list before the element
        ("(apply + '(1 a 3))", "+: expected a number, got 'a"),
        ("(apply string-append '(\"a\" 1 \"b\"))", "string-append: expected a string, got 1"),
        ("(apply string-append '(\"a\" #(1) \"b\"))", "string-append: expected a string, got #(1)"),
        ("(apply string-append '(\"a\" 1 . \"b\"))", "apply: expected a proper list as last argument"),
        ("(define l (list 1 2 3)) (set-cdr! (cddr l) l) (apply + l)", "circular list"),
        ("(define l (list \"a\" \"b\")) (set-cdr! (cdr l) l) (apply string-append l)", "circular list"),
    ],
)
def test_errors(source: str, message: str) -> None:
    assert_error(Interpreter(), source, message, "type-error")


def test_one_walk_and_no_spread_argument_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """The list forms never spread the list into arguments; other procedures still do."""

    def refuse(_lst: object) -> list[object]:
        raise AssertionError("spread into a Python list")

    monkeypatch.setattr(control, "list_to_python", refuse)
    interp = Interpreter()
    assert interp.eval("(apply + (iota 100))") == 4950
    assert interp.eval("(string-length (apply string-append (map number->string (iota 100))))") == 190
    with pytest.raises(SchemeError, match="spread into a Python list"):
        interp.eval("(apply max (iota 100))")


def test_a_rebound_name_is_applied_the_ordinary_way() -> None:
    interp = Interpreter()
    interp.eval("(define (string-append . xs) (length xs))")
    assert interp.eval("(apply string-append '(\"a\" \"b\" \"c\"))") == 3
