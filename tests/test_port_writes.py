"""Writes to a string port compiled inline (``fastpath.PORT_STATEMENTS``): guarded by the
name's intact flag, like every inline built-in (``io.install_io`` watches the interpreter's
own port procedures), and with a constant operand's text known when the body is compiled."""

from __future__ import annotations

import pytest
from helpers import compiled_sources

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string

LOOP = """(define (writes n)
  (let ((p (open-output-string)))
    (do ((i 0 (+ i 1))) ((= i n) (get-output-string p))
      (write-char #\\< p)
      (display "a{b}" p)
      (display 42 p)
      (write-string "c" p)
      (write-char (integer->char (+ 97 i)) p)
      (display i p))))"""


def compiled_writes(interp: Interpreter) -> str:
    with compiled_sources() as seen:
        interp.eval_scheme(LOOP)
        assert interp.eval("(writes 2)") == "<a{b}42ca0<a{b}42cb1"
    return "".join(seen)


def test_constant_operands_are_appended_as_known_text() -> None:
    source = compiled_writes(Interpreter())
    for text in ("'<'", "'a{b}'", "'42'", "'c'"):
        assert f".parts.append({text})" in source
    # only the port is tested before a constant's append: no type test of the constant
    assert "type(c" not in source


def test_the_operator_is_not_read_at_each_write() -> None:
    source = compiled_writes(Interpreter())
    # the name's intact flag stands for the comparison of the operator with the built-in
    assert " is b" not in source


@pytest.mark.parametrize("name", ["display", "write-char", "write-string"])
def test_a_port_procedure_rebound_after_compiling_is_called(name: str) -> None:
    interp = Interpreter()
    interp.eval_scheme(LOOP)
    assert interp.eval("(writes 1)") == "<a{b}42ca0"
    interp.eval_scheme(f"(define seen '()) (define ({name} x p) (set! seen (cons x seen)))")
    interp.eval("(writes 1)")
    assert write_string(interp.eval_scheme("seen")) != "()"
    interp.eval_scheme(f"(set! {name} (lambda (x p) (newline p)))")
    assert "\n" in interp.eval("(writes 1)")


def test_writes_to_a_closed_or_other_port_take_the_primitive_with_its_error() -> None:
    interp = Interpreter()
    interp.eval_scheme('(define (put p) (display "ab" p) (display 7 p) (write-char #\\c p))')
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(let ((p (open-output-string))) (close-port p) (put p))")
    assert info.value.frames and info.value.frames[0].expr == '(display "ab" p)'
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(put 5)")
    assert "display" in info.value.message
    # not a string port: the primitive writes to it
    assert interp.eval_scheme("(call-with-output-string put)") == "ab7c"


def test_each_interpreter_watches_its_own_port_procedures() -> None:
    first, second = Interpreter(), Interpreter()
    for interp in (first, second):
        interp.eval_scheme(LOOP)
    assert first.eval("(writes 1)") == second.eval("(writes 1)") == "<a{b}42ca0"
    first.eval_scheme("(define (display x p) (write-string \"D\" p))")
    assert first.eval("(writes 1)") == "<DDcaD"
    assert second.eval("(writes 1)") == "<a{b}42ca0"
