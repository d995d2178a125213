"""Numeric primitives, through the DSL."""

from __future__ import annotations

import math

import pytest
from helpers import assert_error, same

from interpreter import Interpreter, SchemeError

CASES = [
    # + - * /
    ("(+)", "0"),
    ("(+ 1)", "1"),
    ("(+ 1 2)", "3"),
    ("(+ 1 2 3 4)", "10"),
    ("(+ 1/2 1/2)", "1"),
    ("(+ 1/2 1/3)", "5/6"),
    ("(+ 1 0.5)", "1.5"),
    # a run of exact integers is summed at once; anything else in it, one by one
    ("(apply + (iota 1000))", "499500"),
    ("(apply + 1 2 (iota 5))", "13"),
    ("(apply + 1 2 '(3 4.5 1/2))", "11.0"),
    ("(apply + 1 2 '(1/3 1/6))", "7/2"),
    ("(*)", "1"),
    ("(* 2 3)", "6"),
    ("(* 2 3 4)", "24"),
    ("(* 2/3 3/2)", "1"),
    ("(* 1.5 2)", "3.0"),
    ("(* 4294967296 4294967296)", "18446744073709551616"),
    ("(* 18446744073709551616 18446744073709551616)", "340282366920938463463374607431768211456"),
    ("(- 5)", "-5"),
    ("(- 5 3)", "2"),
    ("(- 10 1 2 3)", "4"),
    ("(- 1/2)", "-1/2"),
    ("(- 0.5 1)", "-0.5"),
    ("(/ 6 3)", "2"),
    ("(/ 1 3)", "1/3"),
    ("(/ 6 4)", "3/2"),
    ("(/ 2)", "1/2"),
    ("(/ 0.5)", "2.0"),
    ("(/ 1 2 2)", "1/4"),
    ("(/ 1.0 2)", "0.5"),
    ("(/ -6 4)", "-3/2"),
    ("(/ 1.0 0.0)", "+inf.0"),
    ("(/ -1 0.0)", "-inf.0"),
    # integer division
    ("(quotient 17 5)", "3"),
    ("(quotient -17 5)", "-3"),
    ("(quotient 17 -5)", "-3"),
    ("(remainder 17 5)", "2"),
    ("(remainder -17 5)", "-2"),
    ("(remainder 17 -5)", "2"),
    ("(modulo 17 5)", "2"),
    ("(modulo -17 5)", "3"),
    ("(modulo 17 -5)", "-3"),
    ("(modulo -7 -2)", "-1"),
    ("(quotient 7.0 2)", "3.0"),
    ("(floor-quotient -7 2)", "-4"),
    ("(floor-remainder -7 2)", "1"),
    ("(truncate-quotient -7 2)", "-3"),
    ("(truncate-remainder -7 2)", "-1"),
    ("(call-with-values (lambda () (floor/ -7 2)) list)", "(-4 1)"),
    ("(call-with-values (lambda () (truncate/ -7 2)) list)", "(-3 -1)"),
    ("(gcd)", "0"),
    ("(gcd 12 18)", "6"),
    ("(gcd -12 18 27)", "3"),
    ("(lcm)", "1"),
    ("(lcm 4 6)", "12"),
    ("(lcm 4 -6 10)", "60"),
    ("(lcm 3 0)", "0"),
    ("(abs -5)", "5"),
    ("(abs -1/2)", "1/2"),
    ("(abs -2.5)", "2.5"),
    ("(min 3 1 2)", "1"),
    ("(max 3 1 2)", "3"),
    ("(max 1 2.0)", "2.0"),
    ("(min 1 2.0)", "1.0"),
    ("(max 1/2 1/3)", "1/2"),
    # comparisons
    ("(= 1 1)", "#t"),
    ("(= 1 1.0)", "#t"),
    ("(= 1 1 2)", "#f"),
    ("(= 1/2 0.5)", "#t"),
    ("(< 1 2)", "#t"),
    ("(< 1 2 3)", "#t"),
    ("(< 1 3 2)", "#f"),
    ("(< 1)", "#t"),
    ("(> 3 2 1)", "#t"),
    ("(> 3 3)", "#f"),
    ("(<= 1 1 2)", "#t"),
    ("(<= 2 1)", "#f"),
    ("(>= 2 2 1)", "#t"),
    ("(>= 1 2)", "#f"),
    ("(< 1/3 0.34)", "#t"),
    ("(< 1.5 2)", "#t"),
    # predicates
    ("(number? 1)", "#t"),
    ("(number? 1.5)", "#t"),
    ("(number? 'a)", "#f"),
    ("(number? #t)", "#f"),
    ("(complex? 1)", "#t"),
    ("(real? 1/2)", "#t"),
    ("(rational? 1/2)", "#t"),
    ("(rational? 0.5)", "#t"),
    ("(rational? +inf.0)", "#f"),
    ("(integer? 3)", "#t"),
    ("(integer? 3.0)", "#t"),
    ("(integer? 3.5)", "#f"),
    ("(integer? 1/2)", "#f"),
    ('(integer? "3")', "#f"),
    ("(exact-integer? 3)", "#t"),
    ("(exact-integer? 3.0)", "#f"),
    ("(exact? 1/2)", "#t"),
    ("(exact? 0.5)", "#f"),
    ("(inexact? 0.5)", "#t"),
    ("(nan? +nan.0)", "#t"),
    ("(nan? 1)", "#f"),
    ("(infinite? -inf.0)", "#t"),
    ("(infinite? 1e308)", "#f"),
    ("(finite? 1)", "#t"),
    ("(finite? +inf.0)", "#f"),
    ("(zero? 0)", "#t"),
    ("(zero? 0.0)", "#t"),
    ("(zero? 1)", "#f"),
    ("(positive? 1/2)", "#t"),
    ("(positive? 0)", "#f"),
    ("(negative? -0.5)", "#t"),
    ("(odd? 3)", "#t"),
    ("(odd? -3)", "#t"),
    ("(even? 0)", "#t"),
    ("(even? 4.0)", "#t"),
    # exactness and rounding
    ("(exact 2.0)", "2"),
    ("(exact 0.5)", "1/2"),
    ("(exact 1/2)", "1/2"),
    ("(inexact->exact 0.25)", "1/4"),
    ("(inexact 1/4)", "0.25"),
    ("(exact->inexact 1)", "1.0"),
    ("(floor 2.5)", "2.0"),
    ("(floor -2.5)", "-3.0"),
    ("(floor 5/2)", "2"),
    ("(ceiling 2.1)", "3.0"),
    ("(ceiling 5/2)", "3"),
    ("(truncate -2.7)", "-2.0"),
    ("(truncate -5/2)", "-2"),
    ("(round 2.5)", "2.0"),
    ("(round 3.5)", "4.0"),
    ("(round -2.5)", "-2.0"),
    ("(round 5/2)", "2"),
    ("(round 7/2)", "4"),
    ("(round 7)", "7"),
    ("(floor +inf.0)", "+inf.0"),
    ("(numerator 6/4)", "3"),
    ("(denominator 6/4)", "2"),
    ("(denominator 5)", "1"),
    ("(numerator 0.5)", "1.0"),
    ("(denominator 0.5)", "2.0"),
    # powers and roots
    ("(square 5)", "25"),
    ("(square 1/2)", "1/4"),
    ("(sqrt 16)", "4"),
    ("(sqrt 16/9)", "4/3"),
    ("(sqrt 2.25)", "1.5"),
    ("(sqrt 0)", "0"),
    ("(sqrt 100000000000000000000000000000000000000000000000000)", "10000000000000000000000000"),
    ("(call-with-values (lambda () (exact-integer-sqrt 17)) list)", "(4 1)"),
    ("(expt 2 10)", "1024"),
    ("(expt 2 -2)", "1/4"),
    ("(expt 2/3 2)", "4/9"),
    ("(expt 0 0)", "1"),
    ("(expt 0 5)", "0"),
    ("(expt 2.0 3)", "8.0"),
    ("(expt 4 1/2)", "2"),
    ("(expt 8 2/3)", "4"),
    ("(expt 2 0.5)", "1.4142135623730951"),
    ("(expt 1 (expt 10 20))", "1"),
    ("(expt -1 (expt 10 20))", "1"),
    ("(expt 2.0 10000)", "+inf.0"),
    ("(exp 0)", "1"),
    ("(log 1)", "0"),
    ("(sin 0)", "0"),
    ("(cos 0)", "1"),
    ("(atan 0)", "0"),
    ("(log 0)", "-inf.0"),
    # number <-> string
    ("(number->string 42)", '"42"'),
    ("(number->string -42)", '"-42"'),
    ("(number->string 255 16)", '"ff"'),
    ("(number->string 5 2)", '"101"'),
    ("(number->string 8 8)", '"10"'),
    ("(number->string 1/3)", '"1/3"'),
    ("(number->string 1.5)", '"1.5"'),
    ("(number->string 2.0)", '"2.0"'),
    ("(number->string 1e21)", '"1e+21"'),
    ("(number->string 1.5e-7)", '"1.5e-07"'),
    ("(string->number (number->string 1.5e-7))", "1.5e-7"),
    ("(number->string +inf.0)", '"+inf.0"'),
    ("(number->string +nan.0)", '"+nan.0"'),
    ("(string-length (number->string (expt 10 5000)))", "5001"),
    ('(string->number "42")', "42"),
    ('(string->number "-17")', "-17"),
    ('(string->number "+5")', "5"),
    ('(string->number "1/2")', "1/2"),
    ('(string->number "4/2")', "2"),
    ('(string->number "1.5")', "1.5"),
    ('(string->number ".5")', "0.5"),
    ('(string->number "1e3")', "1000.0"),
    ('(string->number "1.5e-3")', "0.0015"),
    ('(string->number "ff" 16)', "255"),
    ('(string->number "#xff")', "255"),
    ('(string->number "#b101")', "5"),
    ('(string->number "#o17")', "15"),
    ('(string->number "#e1.5")', "3/2"),
    ('(string->number "#i1/2")', "0.5"),
    ('(string->number "#x#e10")', "16"),
    ('(string->number "+inf.0")', "+inf.0"),
    ('(string->number "abc")', "#f"),
    ('(string->number "")', "#f"),
    ('(string->number "1/0")', "#f"),
    ('(string->number "1_000")', "#f"),
    ('(string->number " 1")', "#f"),
    ('(string->number "12" 2)', "#f"),
    ('(string->number "#x")', "#f"),
    ('(string->number "1.2.3")', "#f"),
    ("(= (string->number (number->string (expt 7 3000))) (expt 7 3000))", "#t"),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_value(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected), src


INEXACT = [
    ("(exp 1)", math.e),
    ("(log 100 10)", 2.0),
    ("(log 8 2)", 3.0),
    ("(sin 1.0)", math.sin(1.0)),
    ("(cos 1)", math.cos(1)),
    ("(tan 0.5)", math.tan(0.5)),
    ("(asin 1)", math.pi / 2),
    ("(acos 0.5)", math.acos(0.5)),
    ("(atan 1 1)", math.pi / 4),
    ("(atan -1 0)", -math.pi / 2),
    ("(sqrt 2)", math.sqrt(2)),
    ("(exact->inexact 1/3)", 1 / 3),
    ("(log (expt 10 400))", 400 * math.log(10)),
]


@pytest.mark.parametrize(("src", "expected"), INEXACT)
def test_inexact_value(interp: Interpreter, src: str, expected: float) -> None:
    value = interp.eval_scheme(src)
    assert type(value) is float
    assert value == pytest.approx(expected)


ERRORS = [
    ("(+ 1 #t)", "+: expected a number, got #t", "type-error"),
    ('(+ 1 "2")', "+: expected a number", "type-error"),
    ("(- 'a)", "-: expected a number, got 'a", "type-error"),
    ("(* 2 #f)", "*: expected a number", "type-error"),
    ("(< 1 'x)", "<: expected a real number, got 'x", "type-error"),
    ("(= 1 #t)", "=: expected a number", "type-error"),
    ("(<)", "<", "arity-error"),
    ("(/ 1 0)", "/: division by zero", "division-by-zero"),
    ("(/ 0)", "/: division by zero", "division-by-zero"),
    ("(/ 1.5 0)", "/: division by zero", "division-by-zero"),
    ("(quotient 1 0)", "quotient: division by zero", "division-by-zero"),
    ("(modulo 1 0)", "modulo: division by zero", "division-by-zero"),
    ("(remainder 10 0)", "remainder: division by zero", "division-by-zero"),
    ("(quotient 1.5 1)", "quotient: expected an integer", "type-error"),
    ("(expt 0 -1)", "expt: division by zero", "division-by-zero"),
    ("(expt 10 (expt 10 10))", "expt: the result would have", "resource-exhaustion"),
    ("(expt 2 100000000)", "expt", "resource-exhaustion"),
    ("(expt 1/3 -100000000)", "expt", "resource-exhaustion"),
    (
        "(let loop ((x 3) (n 0)) (if (= n 40) x (loop (* x x) (+ n 1))))",
        "*: the result would have",
        "resource-exhaustion",
    ),
    ('(string->number "#e1e999999999")', "string->number", "resource-exhaustion"),
    ("(exact +inf.0)", "exact: +inf.0", "value-error"),
    ("(exact +nan.0)", "exact", "value-error"),
    ("(odd? 1.5)", "odd?: expected an integer", "type-error"),
    ("(even? 'a)", "even?: expected an integer", "type-error"),
    ("(zero? 'a)", "zero?: expected a number", "type-error"),
    ("(positive? #t)", "positive?", "type-error"),
    ("(exact? 'a)", "exact?: expected a number", "type-error"),
    ('(abs "x")', "abs", "type-error"),
    ("(max 1 'a)", "max", "type-error"),
    ("(number->string 'a)", "number->string: expected a number", "type-error"),
    ("(number->string 10 3)", "number->string: radix", "value-error"),
    ("(number->string 1.5 2)", "number->string", "value-error"),
    ("(string->number 5)", "string->number: expected a string", "type-error"),
    ("(exact-integer-sqrt -1)", "exact-integer-sqrt", "type-error"),
    ("(gcd 1.5 2)", "gcd", "type-error"),
    ("(floor 'x)", "floor", "type-error"),
    ("(apply + 1 2 '(3 #t))", "+: expected a number, got #t", "type-error"),
    ("(apply + (iota 5) '(1 2 . 3))", "apply: expected a proper list", "type-error"),
]


@pytest.mark.parametrize(("src", "message", "kind"), ERRORS)
def test_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    assert_error(interp, src, message, kind)


def test_booleans_are_not_numbers(interp: Interpreter) -> None:
    assert interp.eval_scheme("(number? #t)") is False
    with pytest.raises(SchemeError):
        interp.eval_scheme("(< #f 1)")


def test_fraction_normalised_to_int(interp: Interpreter) -> None:
    assert type(interp.eval_scheme("(* 1/2 4)")) is int
    assert type(interp.eval_scheme("(+ 1/3 2/3)")) is int


def test_big_exact_results_below_limit(interp: Interpreter) -> None:
    assert interp.eval_scheme("(expt 2 100000)") == 2**100000
    assert interp.eval_scheme("(exact 1e300)") == int(1e300)


def test_inexact_of_huge_integer_is_infinite(interp: Interpreter) -> None:
    assert interp.eval_scheme("(exact->inexact (expt 10 400))") == math.inf
