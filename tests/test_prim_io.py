"""Ports: writing to the current output, string ports, reading."""

from __future__ import annotations

import io

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.datatypes import EOF, Char
from interpreter.ports import InputPort, OutputPort


@pytest.fixture()
def out() -> io.StringIO:
    return io.StringIO()


@pytest.fixture()
def interp(out: io.StringIO) -> Interpreter:
    return Interpreter(stdout=out, stdin=io.StringIO("first line\nsecond\n"))


OUTPUT = [
    ("(display 42)", "42"),
    ('(display "hi")', "hi"),
    ('(write "hi")', '"hi"'),
    ("(display #\\a)", "a"),
    ("(write #\\a)", "#\\a"),
    ('(display \'(1 "two" #\\3))', "(1 two 3)"),
    ('(write \'(1 "two"))', '(1 "two")'),
    ("(display 'sym)", "sym"),
    ("(display 1/2)", "1/2"),
    ("(display 2.5)", "2.5"),
    ("(display #t)", "#t"),
    ("(newline)", "\n"),
    ("(begin (display 1) (newline) (display 2))", "1\n2"),
    ('(write-string "abc")', "abc"),
    ('(write-string "abcdef" (current-output-port) 2 4)', "cd"),
    ("(write-char #\\z)", "z"),
    ("(write-shared '(1 2))", "(1 2)"),
    ('(write-simple "q")', '"q"'),
    ('(display "x" (current-output-port))', "x"),
    ('(begin (display "ab") (fresh-line) (fresh-line) (display "c"))', "ab\nc"),
    ("(flush-output-port)", ""),
    ("(display (make-string 2 #\\m))", "mm"),
]


@pytest.mark.parametrize(("src", "expected"), OUTPUT)
def test_output(interp: Interpreter, out: io.StringIO, src: str, expected: str) -> None:
    interp.eval(src)
    assert out.getvalue() == expected


VALUES = [
    ('(with-output-to-string (lambda () (display "a") (write \'b) (newline)))', "ab\n"),
    ("(with-output-to-string (lambda () #f))", ""),
    ('(call-with-output-string (lambda (p) (display 1 p) (write "s" p)))', '1"s"'),
    ('(let ((p (open-output-string))) (write-string "ab" p) (write-char #\\c p) (get-output-string p))', "abc"),
    ("(let ((p (open-output-string))) (display 1 p) (get-output-string p) (display 2 p) (get-output-string p))", "12"),
    ('(read-line (open-input-string "one\\ntwo"))', "one"),
    ('(let ((p (open-input-string "one\\ntwo"))) (read-line p) (read-line p))', "two"),
    ('(let ((p (open-input-string "ab"))) (read-char p) (string (read-char p)))', "b"),
    ('(let ((p (open-input-string "ab"))) (peek-char p) (string (read-char p)))', "a"),
    ('(read-string 3 (open-input-string "abcdef"))', "abc"),
    ('(read-string 10 (open-input-string "abc"))', "abc"),
    ('(read-string (open-input-string "abcdef") 2)', "ab"),
    ('(with-input-from-string "xyz\\nmore" read-line)', "xyz"),
    ('(with-input-from-string "xy" (lambda () (read-char) (string (read-char))))', "y"),
    ('(call-with-input-string "hello" (lambda (p) (read-string 4 p)))', "hell"),
    ("(read-line)", "first line"),
    ("(begin (read-line) (read-line))", "second"),
    ('(with-output-to-string (lambda () (write (with-output-to-string (lambda () (display "in"))))))', '"in"'),
    ('(symbol->string (read (open-input-string "foo bar")))', "foo"),
]


@pytest.mark.parametrize(("src", "expected"), VALUES)
def test_value(interp: Interpreter, src: str, expected: str) -> None:
    assert str(interp.eval(src)) == expected


PREDICATES = [
    ("(eof-object? (eof-object))", True),
    ('(eof-object? "")', False),
    ('(eof-object? (read-char (open-input-string "")))', True),
    ('(eof-object? (peek-char (open-input-string "")))', True),
    ('(eof-object? (read-line (open-input-string "")))', True),
    ('(eof-object? (read-string 2 (open-input-string "")))', True),
    ('(let ((p (open-input-string "a"))) (read-line p) (eof-object? (read-line p)))', True),
    ('(eof-object? (read (open-input-string "  ")))', True),
    ('(input-port? (open-input-string ""))', True),
    ("(input-port? (open-output-string))", False),
    ("(output-port? (open-output-string))", True),
    ("(output-port? (current-output-port))", True),
    ("(input-port? (current-input-port))", True),
    ("(output-port? (current-error-port))", True),
    ("(port? (open-output-string))", True),
    ("(port? 5)", False),
    ('(textual-port? (open-input-string ""))', True),
    ('(binary-port? (open-input-string ""))', False),
    ('(char-ready? (open-input-string "a"))', True),
    ('(let ((p (open-input-string "a"))) (close-port p) (input-port-open? p))', False),
    ("(let ((p (open-output-string))) (close-output-port p) (output-port-open? p))", False),
    ('(input-port-open? (open-input-string "a"))', True),
]


@pytest.mark.parametrize(("src", "expected"), PREDICATES)
def test_predicate(interp: Interpreter, src: str, expected: bool) -> None:
    assert interp.eval(src) is expected


ERRORS = [
    ("(display 1 5)", "display: expected an output port, got 5", "type-error"),
    ('(display 1 (open-input-string ""))', "display: expected an output port", "type-error"),
    ("(write-string 5)", "write-string: expected a string", "type-error"),
    ('(write-char "a")', "write-char: expected a character", "type-error"),
    ("(read-line 5)", "read-line: expected an input port", "type-error"),
    ("(read-char (open-output-string))", "read-char: expected an input port", "type-error"),
    ("(let ((p (open-output-string))) (close-port p) (display 1 p))", "display: output port is closed", "value-error"),
    (
        '(let ((p (open-input-string "x"))) (close-input-port p) (read-char p))',
        "read-char: input port is closed",
        "value-error",
    ),
    ('(get-output-string (open-input-string ""))', "get-output-string: expected a string output port", "type-error"),
    ("(open-input-string 5)", "open-input-string: expected a string", "type-error"),
    ("(with-output-to-string 5)", "with-output-to-string: expected a procedure", "type-error"),
    ('(read-string -1 (open-input-string ""))', "read-string", "type-error"),
    ("(close-port 5)", "close-port: expected a port", "type-error"),
]


@pytest.mark.parametrize(("src", "message", "kind"), ERRORS)
def test_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    with pytest.raises(SchemeError) as info:
        interp.eval(src)
    assert message in info.value.message
    assert info.value.kind == kind


def test_with_output_to_string_restores_port_after_error(interp: Interpreter, out: io.StringIO) -> None:
    with pytest.raises(SchemeError):
        interp.eval('(with-output-to-string (lambda () (display "lost") (car 1)))')
    interp.eval('(display "after")')
    assert out.getvalue() == "after"


def test_with_input_from_string_restores_port(interp: Interpreter) -> None:
    interp.eval('(with-input-from-string "zzz" read-char)')
    assert interp.eval("(read-line)") == "first line"


def test_current_output_port_is_a_parameter(interp: Interpreter) -> None:
    src = (
        "(let ((p (open-output-string)))"
        ' (parameterize ((current-output-port p)) (display "in p")) (get-output-string p))'
    )
    assert interp.eval(src) == "in p"


def test_read_char_values(interp: Interpreter) -> None:
    assert interp.eval('(read-char (open-input-string "q"))') == Char("q")
    assert interp.eval('(read-char (open-input-string ""))') is EOF
    assert isinstance(interp.eval("(current-output-port)"), OutputPort)
    assert isinstance(interp.eval('(open-input-string "")'), InputPort)


LINE_COUNTER = """
(define (count-lines port)
  (let loop ((lines 0) (chars 0))
    (let ((line (read-line port)))
      (if (eof-object? line)
          (list lines chars)
          (loop (+ lines 1) (+ chars (string-length line)))))))
"""


def test_read_line_reads_a_long_text_line_by_line() -> None:
    interp = Interpreter()
    interp.eval(LINE_COUNTER)
    src = """
    (define text
      (call-with-output-string
        (lambda (p)
          (do ((i 0 (+ i 1))) ((= i 100000))
            (write-string "line " p) (write i p) (newline p)))))
    (count-lines (open-input-string text))
    """
    chars = sum(len(f"line {i}") for i in range(100_000))
    assert interp.eval(src) == [100_000, chars]


class _CountingText(str):
    """A text that counts the characters a port slices out of it and searches through."""

    looked_at = 0

    def find(self, sub: str, start: int = 0, *args: int) -> int:  # type: ignore[override]
        found = super().find(sub, start, *args)
        _CountingText.looked_at += (len(self) if found < 0 else found) - start
        return found

    def __getitem__(self, key: object) -> str:  # type: ignore[override]
        piece = super().__getitem__(key)  # type: ignore[index]
        _CountingText.looked_at += len(piece)
        return piece

    def __contains__(self, sub: object) -> bool:
        _CountingText.looked_at += len(self)
        return super().__contains__(sub)  # type: ignore[operator]


def test_read_line_looks_at_each_character_a_bounded_number_of_times() -> None:
    text = "".join(f"line {i}\n" for i in range(20_000)) + "no newline at the end"
    port = InputPort(_CountingText(text))
    _CountingText.looked_at = 0
    lines = []
    while (line := port.read_line()) is not None:
        lines.append(line)
    assert lines == text.split("\n")
    assert _CountingText.looked_at <= 3 * len(text)  # re-slicing the rest per line: ~20,000 x


def test_read_line_joins_a_line_that_arrives_in_many_chunks() -> None:
    pieces = ["x" * 1000] * 200 + ["end\n", "second\n"]
    calls = []

    class Chunks(io.StringIO):
        def readline(self, *args: object) -> str:
            calls.append(1)
            return pieces[len(calls) - 1] if len(calls) <= len(pieces) else ""

    interp = Interpreter(stdin=Chunks())
    interp.eval(LINE_COUNTER)
    assert interp.eval("(string-length (read-line))") == 200_003
    assert interp.eval("(count-lines (current-input-port))") == [1, 6]
