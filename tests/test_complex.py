"""Complex numbers: reader syntax, printing that reads back, the (scheme complex) procedures,
and sqrt / exp / log / expt / trigonometry into the complex plane. Complex numbers are
Python ``complex``, so they are always inexact."""

from __future__ import annotations

import cmath
import math

import pytest
from helpers import assert_error

from interpreter import Interpreter
from interpreter.printer import write_string


def run(interp: Interpreter, src: str) -> str:
    return write_string(interp.eval_scheme(src))


@pytest.mark.parametrize(
    ("src", "written"),
    [
        ("3+4i", "3.0+4.0i"),
        ("+i", "+1.0i"),
        ("-i", "-1.0i"),
        ("-2.5i", "-2.5i"),
        ("1/2+3/4i", "0.5+0.75i"),
        ("1e2-1e-2i", "100.0-0.01i"),
        ("+inf.0i", "+inf.0i"),
        ("-2.5+0i", "-2.5"),  # an exact zero imaginary part makes a real
        ("-2.5+0.0i", "-2.5+0.0i"),
        ("1@0", "1"),
        ("#x10+Ai", "16.0+10.0i"),
        ("#i1+0i", "1.0"),
        ("'(1+i +i . -i)", "(1.0+1.0i +1.0i . -1.0i)"),
    ],
)
def test_reader_syntax(interp: Interpreter, src: str, written: str) -> None:
    assert run(interp, src) == written


def test_polar_syntax(interp: Interpreter) -> None:
    z = interp.eval_scheme("1@2")
    assert cmath.isclose(z, cmath.rect(1, 2))


@pytest.mark.parametrize("text", ["1+", "+", "-", "...", "->x", "1+2", "i", "+-i", "1@", "@1", "1ii"])
def test_words_that_are_not_numbers_stay_symbols(interp: Interpreter, text: str) -> None:
    assert run(interp, f"(symbol? '{text})") == "#t"


def test_exact_complex_is_refused_with_a_read_error(interp: Interpreter) -> None:
    assert_error(interp, "#e1+2i", "bad number: #e1+2i", "read-error")


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("(make-rectangular 1 2)", "1.0+2.0i"),
        ("(make-rectangular 1.5 0)", "1.5"),
        ("(make-polar 2 0)", "2"),
        ("(real-part 3+4i)", "3.0"),
        ("(imag-part 3+4i)", "4.0"),
        ("(real-part 7)", "7"),
        ("(imag-part 7)", "0"),
        ("(magnitude 3+4i)", "5.0"),
        ("(magnitude -5)", "5"),
        ("(angle -1)", f"{math.pi!r}"),
        ("(angle 1)", "0"),
        ("(angle +i)", f"{math.pi / 2!r}"),
        ("(+ 1+2i 1-2i)", "2.0+0.0i"),
        ("(* +i +i)", "-1.0+0.0i"),
        ("(/ 1+i 2)", "0.5+0.5i"),
        ("(- 1+i)", "-1.0-1.0i"),
        ("(= 1+i (make-rectangular 1 1))", "#t"),
        ("(eqv? 1+i 1+i)", "#t"),
        ("(equal? '(1+i) (list (make-rectangular 1 1)))", "#t"),
        ("(number? 1+i)", "#t"),
        ("(complex? 1+i)", "#t"),
        ("(real? 1+i)", "#f"),
        ("(real? 1.5)", "#t"),
        ("(rational? 1+i)", "#f"),
        ("(integer? 1+i)", "#f"),
        ("(exact? 1+i)", "#f"),
        ("(inexact? 1+i)", "#t"),
        ("(inexact 1+i)", "1.0+1.0i"),
        ("(nan? (make-rectangular +nan.0 1))", "#t"),
        ("(infinite? (make-rectangular 1 +inf.0))", "#t"),
        ("(finite? 1+i)", "#t"),
        ("(zero? (make-rectangular 0.0 0.0))", "#t"),
        ("(number->string 1+2i)", '"1.0+2.0i"'),
        ('(string->number "1+2i")', "1.0+2.0i"),
        ('(string->number "-i")', "-1.0i"),
        ('(string->number "#x1+1i")', "1.0+1.0i"),
        ('(string->number "1+")', "#f"),
        # into the complex plane
        ("(sqrt -4)", "+2.0i"),
        ("(sqrt -1)", "+1.0i"),
        ("(sqrt -2.25)", "+1.5i"),
        ("(sqrt -1/4)", "+0.5i"),
        ("(sqrt 4)", "2"),
        ("(log -1)", f"+{math.pi!r}i"),
        ("(exp 0+0.0i)", "1.0+0.0i"),
        ("(expt -4 1/2)", "1.2246467991473532e-16+2.0i"),
        ("(expt +i 2)", "-1.0+0.0i"),
        ("(expt 0 1+i)", "0"),
        ("(expt 0.0 1+i)", "0.0"),
    ],
)
def test_procedures(interp: Interpreter, src: str, expected: str) -> None:
    assert run(interp, src) == expected


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("(exp +3.141592653589793i)", -1 + 0j),
        ("(log +i)", complex(0, math.pi / 2)),
        ("(log -8 2)", complex(3, math.pi / math.log(2))),
        ("(asin 2)", cmath.asin(2)),
        ("(acos 2)", cmath.acos(2)),
        ("(sin +i)", cmath.sin(1j)),
        ("(cos +i)", cmath.cos(1j)),
        ("(tan +i)", cmath.tan(1j)),
        ("(atan +2i)", cmath.atan(2j)),
        ("(sqrt +2i)", 1 + 1j),
        ("(expt 2 +i)", 2**1j),
        ("(square 1+i)", 2j),
    ],
)
def test_functions_in_the_complex_plane(interp: Interpreter, src: str, expected: complex) -> None:
    value = interp.eval_scheme(src)
    assert type(value) is complex and cmath.isclose(value, expected, abs_tol=1e-12)


@pytest.mark.parametrize(
    ("src", "message", "kind"),
    [
        ("(< 1+i 2)", "<: expected a real number", "type-error"),
        ("(abs 1+i)", "abs: expected a real number", "type-error"),
        ("(floor 1+i)", "floor: expected a real number", "type-error"),
        ("(exact 1+i)", "exact: 1.0+1.0i has no exact representation", "value-error"),
        ("(make-rectangular 1+i 2)", "make-rectangular: expected a real number", "type-error"),
        ("(number->string 1+i 16)", "only written in radix 10", "value-error"),
        ("(/ 1+i 0)", "/: division by zero", "division-by-zero"),
        ("(log 0+0.0i)", "log: division by zero", "division-by-zero"),
        ("(atan 1+i 1)", "atan: expected a real number", "type-error"),
        ("(expt 0 +i)", "expt: division by zero", "division-by-zero"),
    ],
)
def test_errors(interp: Interpreter, src: str, message: str, kind: str) -> None:
    assert_error(interp, src, message, kind)


def test_complex_values_cross_into_python(interp: Interpreter) -> None:
    assert interp.eval("(make-rectangular 1 2)") == 1 + 2j
    interp.define("z", 3 - 4j)
    assert interp.eval("(magnitude z)") == 5.0
