"""Errors that point to the fix: symbols and lists quoted in messages, the TaskResult hint,
and literal ``{{`` in prompt templates."""

from __future__ import annotations

import pytest
from helpers import assert_error

from interpreter import Interpreter, SchemeError

ECHO_TASK = """
(define-model (echo-model prompt) prompt)
(define-task (ask q) (model echo-model) (prompt "{{q}}"))
"""


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("(car 'done)", "car: expected a pair, got 'done"),
        ("(vector-ref '(1 2) 0)", "vector-ref: expected a vector, got '(1 2)"),
        ("(string-length '())", "string-length: expected a string, got '()"),
        ("(+ 1 \"2\")", '+: expected a number, got "2"'),
        ("(error \"bad state\" 'done '(1 2) \"s\" 3)", "bad state 'done '(1 2) \"s\" 3"),
    ],
)
def test_symbols_and_lists_are_quoted_in_messages(interp: Interpreter, src: str, message: str) -> None:
    with pytest.raises(Exception) as info:
        interp.eval(src)
    assert message in str(info.value)


def test_a_task_result_given_to_a_string_procedure_gets_the_hint(interp: Interpreter) -> None:
    interp.eval(ECHO_TASK)
    assert_error(interp, '(string-append "Q: " (ask "hi"))', "use its text with (get result 'content)", "type-error")
    assert_error(interp, "(string-length (ask \"hi\"))", "a TaskResult is not a string", "type-error")
    assert interp.eval("(string-append \"Q: \" (get (ask \"hi\") 'content))") == "Q: hi"


def test_a_prompt_template_can_hold_a_literal_double_brace(interp: Interpreter) -> None:
    interp.eval(ECHO_TASK)
    interp.eval('(define-task (json q) (model echo-model) (prompt "Answer {{q}} as \\\\{{\\"answer\\": …}}"))')
    assert interp.eval("(get (json \"why\") 'content)") == 'Answer why as {{"answer": …}}'


def test_an_escaped_placeholder_is_not_a_parameter(interp: Interpreter) -> None:
    interp.eval(ECHO_TASK)
    interp.eval('(define-task (show) (model echo-model) (prompt "write \\\\{{name}} in a template"))')
    assert interp.eval("(get (show) 'content)") == "write {{name}} in a template"


@pytest.mark.parametrize(
    ("src", "where"),
    [
        ("(if (define x 1) 2 3)", "<string>:1:5"),
        ("(list 1\n  (define y 2))", "<string>:2:3"),
        ("(define z (define w 3))", "<string>:1:11"),
        ("(display (define-values (a b) (values 1 2)))", "<string>:1:10"),
        ("((define f car) '(1))", "<string>:1:2"),
    ],
)
def test_define_in_an_expression_position_is_a_syntax_error_with_its_location(
    interp: Interpreter, src: str, where: str
) -> None:
    with pytest.raises(SchemeError) as info:
        interp.eval(src)
    assert info.value.kind == "syntax-error"
    assert "a definition cannot be used as an expression" in info.value.message
    assert str(info.value.span) == where


def test_definitions_where_they_belong_still_work(interp: Interpreter) -> None:
    src = """(define (f) (define a 1) (begin (define b 2)) (+ a b))
             (begin (define c 3))
             (let () (define d 4) (list (f) c d))"""
    assert interp.eval(src) == [3, 3, 4]
