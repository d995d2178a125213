"""``equal?`` and the two-argument string and character comparisons take a short path
(``primitives/booleans.py``, ``primitives/comparisons.py``): the same answers and errors as
the general ones, for literal, made and changed (mutated) strings."""

from __future__ import annotations

import pytest
from helpers import assert_error

from interpreter import Interpreter

MADE = '(define made (string-append "ab" "c")) (define changed (string-copy "xbc")) (string-set! changed 0 #\\a)'


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ('(equal? made "abc")', True),
        ('(equal? "abc" made)', True),
        ("(equal? made changed)", True),
        ('(equal? changed "abd")', False),
        ("(equal? made 'abc)", False),
        ("(equal? 'abc made)", False),
        ("(equal? made #\\a)", False),
        ("(equal? 1 1)", True),
        ("(equal? 1 #t)", False),
        ("(equal? #t 1)", False),
        ("(equal? 1 1.0)", False),
        ("(equal? (expt 10 30) (expt 10 30))", True),
        ('(equal? (list made 1) (list "abc" 1))', True),
        ('(string=? made "abc")', True),
        ("(string=? changed made)", True),
        ('(string=? changed "abd")', False),
        ('(string<? changed "abd")', True),
        ('(string>=? "abd" changed)', True),
        ('(string=? made "abc" changed)', True),
        ('(string=? made "abc" "x")', False),
        ('(string-ci=? made "ABC")', True),
        ("(string=? made)", True),
        ("(char=? #\\a #\\a)", True),
        ("(char<? #\\a #\\b)", True),
        ("(char<? #\\a #\\b #\\a)", False),
        ("(char-ci=? #\\a #\\A)", True),
    ],
)
def test_two_argument_comparisons_answer_as_the_general_ones(expr: str, expected: bool) -> None:
    interp = Interpreter()
    interp.eval(MADE)
    assert interp.eval(expr) is expected


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("(string=? made 5)", "string=?"),
        ('(string=? 5 "a")', "string=?"),
        ("(string<? 'a made)", "string<?"),
        ("(char=? #\\a 1)", "char=?"),
    ],
)
def test_two_argument_comparisons_name_themselves_in_their_errors(expr: str, message: str) -> None:
    interp = Interpreter()
    interp.eval(MADE)
    assert_error(interp, expr, message, "type-error")
