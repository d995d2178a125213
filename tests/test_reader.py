"""Tests for the reader: every syntax item, spans, errors, deep nesting, is_complete, ports."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.datatypes import EOF, NIL, Char, Keyword, Pair, Span, Symbol, cons, list_to_python
from interpreter.equality import is_equal
from interpreter.errors import SchemeError
from interpreter.ports import InputPort
from interpreter.reader import is_complete, read_all, read_from_port, read_with_spans


def one(text: str) -> Any:
    """The single datum in ``text``."""
    data = read_all(text)
    assert len(data) == 1, data
    return data[0]


def s(name: str) -> Symbol:
    return Symbol.intern(name)


def lst(*items: Any, tail: Any = NIL) -> Any:
    result = tail
    for item in reversed(items):
        result = cons(item, result)
    return result


def read_error(text: str, filename: str = "<string>") -> SchemeError:
    with pytest.raises(SchemeError) as info:
        read_all(text, filename)
    assert info.value.kind == "read-error"
    return info.value


# ---------------------------------------------------------------------------------
# Lists and pairs
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("()", NIL),
        ("[]", NIL),
        ("(a)", lst(s("a"))),
        ("(a b c)", lst(s("a"), s("b"), s("c"))),
        ("(a . b)", lst(s("a"), tail=s("b"))),
        ("(a b . c)", lst(s("a"), s("b"), tail=s("c"))),
        ("(a . (b c))", lst(s("a"), s("b"), s("c"))),
        ("[a b]", lst(s("a"), s("b"))),
        ("[a . b]", lst(s("a"), tail=s("b"))),
        ("(a [b (c)] d)", lst(s("a"), lst(s("b"), lst(s("c"))), s("d"))),
        ("(a.b)", lst(s("a.b"))),
        ("(x .. ...)", lst(s("x"), s(".."), s("..."))),
        ("(1 .5)", lst(1, 0.5)),
    ],
)
def test_lists(text: str, expected: Any) -> None:
    assert is_equal(one(text), expected)


def test_several_data() -> None:
    a, b, c = read_all("a (b) c")
    assert a is s("a") and is_equal(b, lst(s("b"))) and c is s("c")


# ---------------------------------------------------------------------------------
# Symbols
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "foo",
        "Foo",
        "list->vector",
        "+",
        "-",
        "...",
        "->x",
        "<=?",
        "!$%&*/:<=>?^_~",
        "a.b",
        "1+",
        "-a",
        "+a",
        "λ",
        "a#b",
    ],
)
def test_symbols(name: str) -> None:
    assert one(name) is s(name)


def test_symbols_are_case_sensitive_and_interned() -> None:
    a, b, c = read_all("abc ABC abc")
    assert a is c and a is not b


@pytest.mark.parametrize(
    ("text", "name"),
    [("|weird sym|", "weird sym"), ("||", ""), ("|a\\|b|", "a|b"), ("|\\x41;b|", "Ab"), ("|(|", "("), ("|1|", "1")],
)
def test_bar_symbols(text: str, name: str) -> None:
    assert one(text) is s(name)


# ---------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("42", 42),
        ("-7", -7),
        ("+5", 5),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("1/3", Fraction(1, 3)),
        ("-2/6", Fraction(-1, 3)),
        ("4/2", 2),
        ("#xFF", 255),
        ("#xff", 255),
        ("#X-1a", -26),
        ("#b101", 5),
        ("#o17", 15),
        ("#d10", 10),
        ("#e1.5", Fraction(3, 2)),
        ("#e2.0", 2),
        ("#e1e3", 1000),
        ("#x#e10", 16),
        ("#e#x10", 16),
        ("#xA/F", Fraction(2, 3)),
    ],
)
def test_exact_numbers(text: str, expected: Any) -> None:
    value = one(text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.5", 1.5),
        (".5", 0.5),
        ("-.5", -0.5),
        ("1.", 1.0),
        ("1e10", 1e10),
        ("-2.5e-3", -2.5e-3),
        ("1E3", 1000.0),
        ("+inf.0", float("inf")),
        ("-inf.0", float("-inf")),
        ("#i1/3", 1 / 3),
        ("#i5", 5.0),
        ("#x#i10", 16.0),
    ],
)
def test_inexact_numbers(text: str, expected: float) -> None:
    value = one(text)
    assert type(value) is float and value == expected


def test_nan() -> None:
    for text in ("+nan.0", "-nan.0"):
        value = one(text)
        assert type(value) is float and value != value


def test_big_integer_digits() -> None:
    digits = "9" * 6000
    assert one(digits) == 10**6000 - 1


@pytest.mark.parametrize("text", ["1abc", "1/2/3", "1..2", "inf.0", "1e", "--1", "+.", "1/x"])
def test_number_like_symbols(text: str) -> None:
    assert one(text) is s(text)


@pytest.mark.parametrize("text", ["1/0", "#xZZ", "#b102", "#e+inf.0", "#x1.5", "#e", "#x#x1", "#e#i1", "#d1/0"])
def test_bad_numbers(text: str) -> None:
    err = read_error(f"(a {text})")
    assert err.span == Span("<string>", 1, 4)
    assert "bad number" in err.message and text in err.message


# ---------------------------------------------------------------------------------
# Strings
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('""', ""),
        ('"abc"', "abc"),
        (r'"a\nb"', "a\nb"),
        (r'"\t\r\a\b\0"', "\t\r\a\b\0"),
        (r'"a\\b"', "a\\b"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"\x41;\x3bb;"', "A\u03bb"),
        ('"line1\nline2"', "line1\nline2"),
        ('"abc\\\n     def"', "abcdef"),
        ('"abc \\  \n\t def"', "abc def"),
        ('"λ ☃"', "λ ☃"),
        ('"; not a comment #| nor this"', "; not a comment #| nor this"),
    ],
)
def test_strings(text: str, expected: str) -> None:
    value = one(text)
    assert type(value) is str and value == expected


@pytest.mark.parametrize(("text", "col"), [(r'"ab\qc"', 4), (r'"\x41"', 2), (r'"\xD800;"', 2)])
def test_bad_string_escapes(text: str, col: int) -> None:
    err = read_error(text)
    assert err.span == Span("<string>", 1, col)
    assert "bad string" in err.message


def test_bad_escape_position_after_newline() -> None:
    err = read_error('"ab\ncd\\q"')
    assert err.span == Span("<string>", 2, 3)


def test_unterminated_string_points_at_its_start() -> None:
    err = read_error('(display\n  "hello)\n')
    assert err.span == Span("<string>", 2, 3)
    assert "unterminated string" in err.message


# ---------------------------------------------------------------------------------
# Characters, booleans, keywords
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ch"),
    [
        ("#\\a", "a"),
        ("#\\A", "A"),
        ("#\\space", " "),
        ("#\\newline", "\n"),
        ("#\\tab", "\t"),
        ("#\\nul", "\0"),
        ("#\\null", "\0"),
        ("#\\return", "\r"),
        ("#\\linefeed", "\n"),
        ("#\\altmode", "\x1b"),
        ("#\\backspace", "\b"),
        ("#\\delete", "\x7f"),
        ("#\\escape", "\x1b"),
        ("#\\alarm", "\a"),
        ("#\\x41", "A"),
        ("#\\x3bb", "\u03bb"),
        ("#\\x", "x"),
        ("#\\(", "("),
        ("#\\)", ")"),
        ("#\\;", ";"),
        ('#\\"', '"'),
        ("#\\ ", " "),
        ("#\\λ", "λ"),
        ("#\\#", "#"),
        ("#\\\\", "\\"),
    ],
)
def test_characters(text: str, ch: str) -> None:
    assert one(text) == Char(ch)


def test_characters_in_a_list() -> None:
    assert is_equal(one("(#\\( #\\) #\\a)"), lst(Char("("), Char(")"), Char("a")))


@pytest.mark.parametrize("text", ["#\\bogus", "#\\xZZ", "#\\spaces", "#\\xD800"])
def test_bad_character_names(text: str) -> None:
    err = read_error(f"  {text}")
    assert err.span == Span("<string>", 1, 3)
    assert "character" in err.message


@pytest.mark.parametrize(("text", "value"), [("#t", True), ("#f", False), ("#true", True), ("#false", False)])
def test_booleans(text: str, value: bool) -> None:
    assert one(text) is value


def test_keywords() -> None:
    assert one("#:name") is Keyword.intern("name")
    assert is_equal(one("(f #:key 1)"), lst(s("f"), Keyword.intern("key"), 1))


@pytest.mark.parametrize("text", ["#foo", "#tru", "#t1", "#", "#u8", "#u8x", "#:", "#0=", "#!eof"])
def test_bad_hash_syntax(text: str) -> None:
    err = read_error(f"(x {text})")
    assert err.span == Span("<string>", 1, 4)


def test_hash_backslash_at_end_of_text() -> None:
    err = read_error("x #\\")
    assert err.span == Span("<string>", 1, 3)
    assert "character" in err.message


# ---------------------------------------------------------------------------------
# Vectors and bytevectors
# ---------------------------------------------------------------------------------


def test_vectors() -> None:
    assert one("#()") == []
    assert one("#(1 2 3)") == [1, 2, 3]
    value = one("#(a #(b) (c))")
    assert value[0] is s("a") and value[1] == [s("b")] and is_equal(value[2], lst(s("c")))


def test_bytevectors() -> None:
    value = one("#u8(0 127 255)")
    assert type(value) is bytearray and value == bytearray([0, 127, 255])
    assert one("#u8()") == bytearray()


@pytest.mark.parametrize(("text", "col"), [("#u8(1 256)", 7), ("#u8(-1)", 5), ("#u8(1.0)", 5), ("#u8(a)", 5)])
def test_bad_bytevectors(text: str, col: int) -> None:
    err = read_error(text)
    assert err.span == Span("<string>", 1, col)
    assert "bytevector" in err.message


# ---------------------------------------------------------------------------------
# Abbreviations
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "head"),
    [("'x", "quote"), ("`x", "quasiquote"), (",x", "unquote"), (",@x", "unquote-splicing")],
)
def test_abbreviations(text: str, head: str) -> None:
    assert is_equal(one(text), lst(s(head), s("x")))


def test_nested_abbreviations() -> None:
    assert is_equal(one("''a"), lst(s("quote"), lst(s("quote"), s("a"))))
    assert is_equal(one("`(a ,b ,@c)"), one("(quasiquote (a (unquote b) (unquote-splicing c)))"))
    assert is_equal(one("'(1 . 2)"), lst(s("quote"), lst(1, tail=2)))
    assert is_equal(one("' x"), lst(s("quote"), s("x")))


# ---------------------------------------------------------------------------------
# Comments
# ---------------------------------------------------------------------------------


def test_line_comments() -> None:
    assert read_all("; hello\n1 ; one\n2;two\n") == [1, 2]


def test_block_comments() -> None:
    assert read_all("#| a |# 1") == [1]
    assert read_all("1 #| a #| nested |# still |# 2") == [1, 2]
    assert read_all("#|\n(\n|# 3") == [3]
    assert is_equal(one("(a #| x |# b)"), lst(s("a"), s("b")))
    assert read_all('#| "|# 4') == [4]


def test_datum_comments() -> None:
    assert read_all("#;1 2") == [2]
    assert read_all("#; (a b c) 2") == [2]
    assert read_all("#; #; a b c") == [s("c")]
    assert is_equal(one("(a #;b c)"), lst(s("a"), s("c")))
    assert is_equal(one("(a #;b)"), lst(s("a")))
    assert is_equal(one("(a . #;b c)"), lst(s("a"), tail=s("c")))
    assert is_equal(one("(a . c #;d)"), lst(s("a"), tail=s("c")))
    assert one("#(1 #;2 3)") == [1, 3]
    assert one("#u8(1 #;2 3)") == bytearray([1, 3])
    assert is_equal(one("'#;a b"), lst(s("quote"), s("b")))
    assert read_all("#;#;#;1 2 3") == []


def test_shebang_line() -> None:
    ((datum, span),) = read_with_spans("#!/usr/bin/env taskscheme\n(a)")
    assert is_equal(datum, lst(s("a"))) and span == Span("<string>", 2, 1)


def test_empty_and_blank_text() -> None:
    assert read_all("") == []
    assert read_all("  \n\t ; only a comment\n#| block |#") == []


# ---------------------------------------------------------------------------------
# Spans
# ---------------------------------------------------------------------------------


def test_spans_of_top_level_data() -> None:
    data = read_with_spans('1 foo\n  (a b)\n"s" \'q', "f.scm")
    assert [span for _, span in data] == [
        Span("f.scm", 1, 1),
        Span("f.scm", 1, 3),
        Span("f.scm", 2, 3),
        Span("f.scm", 3, 1),
        Span("f.scm", 3, 5),
    ]


def test_spans_of_list_pairs() -> None:
    ((datum, span),) = read_with_spans("(define (f x)\n  (+ x\n     1))", "f.scm")
    assert span == Span("f.scm", 1, 1)
    assert datum.span == Span("f.scm", 1, 1)
    second = datum.cdr
    assert second.span == Span("f.scm", 1, 9)  # the pair holding (f x) has the span of (f x)
    assert second.car.span == Span("f.scm", 1, 9)
    assert second.car.cdr.span == Span("f.scm", 1, 12)
    body = second.cdr.car
    assert body.span == Span("f.scm", 2, 3)
    assert body.cdr.span == Span("f.scm", 2, 6)
    assert body.cdr.cdr.span == Span("f.scm", 3, 6)


def test_spans_of_quote_abbreviation() -> None:
    datum = one("  '(a b)")
    assert datum.span == Span("<string>", 1, 3)
    assert datum.cdr.span == Span("<string>", 1, 4)
    assert datum.cdr.car.span == Span("<string>", 1, 4)


def test_spans_after_block_comments_and_strings() -> None:
    text = '#| one\n two\n |# "a\nb" (x\n y)'
    (_, s1), (datum, s2) = read_with_spans(text)
    assert s1 == Span("<string>", 3, 5)
    assert s2 == Span("<string>", 4, 4)
    assert datum.cdr.span == Span("<string>", 5, 2)


_ATOMS = ["x", "42", "-7", "1.5", '"s"', '"two\nlines"', "#\\a", "#t", "|bar sym|", "'q", "(a b)", "#(1)"]
_GAPS = [" ", "\n", "  \n\t", "; comment\n", " #| block\n comment |# ", " #;(skipped\n datum) ", "\n\n   "]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_GAPS), st.sampled_from(_ATOMS)), min_size=1, max_size=12))
def test_spans_are_the_line_and_column_where_each_datum_starts(pieces: list[tuple[str, str]]) -> None:
    text, expected = "", []
    for gap, atom in pieces:
        text += gap
        line = text.count("\n") + 1
        expected.append(Span("t.scm", line, len(text) - (text.rfind("\n") + 1) + 1))
        text += atom
    assert [span for _, span in read_with_spans(text, "t.scm")] == expected


@pytest.mark.parametrize("gap", ["", "\n\n", "; c\n", "#| b\n |#", "  #;x\n "])
def test_error_after_whitespace_and_comments_points_at_the_bad_token(gap: str) -> None:
    text = f"(a)\n  {gap} (b \"open"
    err = read_error(text)
    bad = text.rindex('"')
    assert err.span == Span("<string>", text.count("\n", 0, bad) + 1, bad - text.rfind("\n", 0, bad))
    assert "unterminated string" in err.message


def test_the_collector_is_back_on_after_a_read_and_after_a_read_error() -> None:
    import gc

    assert gc.isenabled()
    read_all("(a (b c) #(1 2))")
    assert gc.isenabled()
    read_error("(a (b")
    assert gc.isenabled()
    gc.disable()  # a host that turned it off keeps it off
    try:
        read_all("(a b)")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_spans_of_dotted_and_bracketed_lists() -> None:
    datum = one("[a\n . b]")
    assert datum.span == Span("<string>", 1, 1)
    datum = one("(a b . c)")
    assert datum.cdr.span == Span("<string>", 1, 4)


# ---------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        ("(a b", 1, 1, "unclosed '(a …' (form opened here): it needs a ')'"),
        ("(define (f)\n  (g x)", 1, 1, "unclosed '(define …'"),
        ("(a (b\n   (c d)", 1, 1, "unclosed '(a …'"),
        ("[a", 1, 1, "unclosed '[a …' (form opened here): it needs a ']'"),
        ("#(1 2", 1, 1, "unclosed '#(1 …' (vector opened here)"),
        ("#u8(1", 1, 1, "unclosed '#u8(1 …' (bytevector opened here)"),
        ("(define (f x)\n  (let ((y 1))\n    (+ x y))\n\n(define (g) 2)\n(g)", 1, 1,
         "a ')' is probably missing before line 5, which starts at column 0"),
        ("(x\n  ; (comment at column 2)\n;; comment at column 0\n  y", 1, 1, "unclosed '(x …' (form opened here): it needs a ')'"),
        (")", 1, 1, "unexpected ')'"),
        ("(a))", 1, 4, "unexpected ')'"),
        ("(a\n  b]", 2, 4, "does not match"),
        ("[a)", 1, 3, "does not match"),
        ("(]", 1, 2, "does not match"),
        ("(. a)", 1, 2, "'.'"),
        ("(a .)", 1, 4, "'.'"),
        ("(a . b c)", 1, 4, "'.'"),
        ("(a . b . c)", 1, 8, "'.'"),
        (".", 1, 1, "'.'"),
        ("#(a . b)", 1, 5, "vector"),
        ('"abc', 1, 1, "unterminated string"),
        ("x\n  #| a #| b |#", 2, 3, "block comment"),
        ("|abc", 1, 1, "unterminated |symbol|"),
        ("'", 1, 1, "expected a datum"),
        ("(a ')", 1, 5, "expected a datum"),
        ("#;", 1, 1, "#;"),
        ("(#;)", 1, 4, "expected a datum"),
    ],
)
def test_error_positions(text: str, line: int, col: int, words: str) -> None:
    err = read_error(text, "e.scm")
    assert err.span == Span("e.scm", line, col), err.message
    assert words in err.message


def test_errors_are_scheme_errors_with_format() -> None:
    err = read_error("(a")
    assert "unclosed" in err.format()


# ---------------------------------------------------------------------------------
# Deep and big input
# ---------------------------------------------------------------------------------


def test_deep_nesting() -> None:
    depth = 50_000
    datum = one("(" * depth + ")" * depth)
    count = 0
    while datum is not NIL:
        datum = datum.car
        count += 1
    assert count == depth - 1


def test_deep_quotes() -> None:
    depth = 50_000
    datum = one("'" * depth + "a")
    count = 0
    while datum is not s("a"):
        assert datum.car is s("quote")
        datum = datum.cdr.car
        count += 1
    assert count == depth


def test_deep_quoted_list() -> None:
    depth = 50_000
    datum = one("'" + "(" * depth + ")" * depth)
    assert datum.car is s("quote")


def test_deep_unclosed_reports_innermost_open() -> None:
    err = read_error("(" * 30_000 + ")" * 29_999)
    assert err.span == Span("<string>", 1, 1)
    err = read_error("(" * 1000 + "(" + ")" * 1000)
    assert err.span == Span("<string>", 1, 1)


def test_long_list() -> None:
    data = list_to_python(one("(" + " ".join(map(str, range(100_000))) + ")"))
    assert data == list(range(100_000))


# ---------------------------------------------------------------------------------
# is_complete
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",
        "(a b)",
        "(a b))",
        ")",
        "(]",
        '"abc"',
        "'x",
        "#| a |#",
        "; (",
        "(a\n b)",
        "#\\(",
        "#(a . b",
        "#\\bogus (",
        "(a . b c)",
    ],
)
def test_complete(text: str) -> None:
    assert is_complete(text)


@pytest.mark.parametrize(
    "text",
    [
        "(",
        "(a b",
        "(a (b c)",
        "[a",
        "#(1",
        "#u8(1",
        '"abc',
        '(display "a',
        "#| a",
        "#| a #| b |#",
        "'",
        "(a '",
        "`",
        ",@",
        "#;",
        "#; #; a",
        "|abc",
        "(define (f x)\n  (+ x 1)\n",
    ],
)
def test_incomplete(text: str) -> None:
    assert not is_complete(text)


# ---------------------------------------------------------------------------------
# read_from_port
# ---------------------------------------------------------------------------------


def test_read_from_port_reads_one_datum_at_a_time() -> None:
    port = InputPort("42 (a b) 'c #;x\n ; hi\n")
    assert read_from_port(port) == 42
    assert port.text[port.pos] == " "
    assert is_equal(read_from_port(port), lst(s("a"), s("b")))
    assert is_equal(read_from_port(port), lst(s("quote"), s("c")))
    assert read_from_port(port) is EOF
    assert read_from_port(port) is EOF


def test_read_from_port_leaves_rest_unread() -> None:
    port = InputPort("(a) rest of line\n")
    read_from_port(port)
    assert port.read_line() == " rest of line"


def test_read_from_port_ignores_errors_after_the_datum() -> None:
    port = InputPort("(a b) ) (")
    assert is_equal(read_from_port(port), lst(s("a"), s("b")))
    with pytest.raises(SchemeError):
        read_from_port(port)


def test_read_from_port_pulls_more_text() -> None:
    chunks = iter(["(a\n", " b)\n", "12", "34 x", ""])
    port = InputPort("", "stdin", more=lambda: next(chunks))
    assert is_equal(read_from_port(port), lst(s("a"), s("b")))
    assert read_from_port(port) == 1234
    assert read_from_port(port) is s("x")
    assert read_from_port(port) is EOF


def test_read_from_port_spans_count_lines_across_reads_and_refills() -> None:
    """Each datum's span has its line and column in the whole text, though lines are
    counted on from the previous read (linear) and refills drop the text already read."""
    port = InputPort("a\n(b)\n\n  (c d) (e)\n")
    assert read_from_port(port) is s("a")
    assert port.read_char() == "\n"  # other reads in between move the position too
    spans = [read_from_port(port).span for _ in range(3)]
    assert [(sp.line, sp.col) for sp in spans] == [(2, 1), (4, 3), (4, 9)]
    chunks = iter(["x\n(f\n", " g)\n  (h)", "\n(i)", ""])
    port = InputPort("", "stdin", more=lambda: next(chunks))
    assert read_from_port(port) is s("x")
    assert [(d.span.line, d.span.col) for d in (read_from_port(port) for _ in range(3))] == [(2, 1), (4, 3), (5, 1)]
    with pytest.raises(SchemeError) as info:
        read_from_port(InputPort("\n\n  (a"))
    assert (info.value.span.line, info.value.span.col) == (3, 3)


def test_read_from_port_unclosed_is_an_error() -> None:
    port = InputPort("(a b")
    with pytest.raises(SchemeError) as info:
        read_from_port(port)
    assert "unclosed" in info.value.message


# ---------------------------------------------------------------------------------
# Robustness
# ---------------------------------------------------------------------------------

_PIECES = [*"()[]#\\|\"';`,@.:u8 \n\tabcxe0129/+-;λ{}", "#|", "|#", "#;", "#\\", "#u8(", "#x", "#e", "\\x41;"]
_SCHEMEISH = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_SCHEMEISH, st.text(max_size=40)))
def test_random_text_raises_only_scheme_errors(text: str) -> None:
    try:
        read_all(text)
    except SchemeError as err:
        assert err.kind == "read-error"
        assert err.span is not None
    is_complete(text)


# ---------------------------------------------------------------------------------
# Datum labels (R7RS 2.4): #n= and #n#
# ---------------------------------------------------------------------------------


def test_label_makes_a_circular_list() -> None:
    x = one("#0=(a b . #0#)")
    assert x.car is s("a") and x.cdr.car is s("b")
    assert x.cdr.cdr is x


def test_label_shares_one_object() -> None:
    x = one("(#1=(x) #1#)")
    assert x.car is x.cdr.car
    assert is_equal(x.car, lst(s("x")))


def test_labels_in_vectors_and_dotted_tails() -> None:
    v = one("#0=#(1 #0#)")
    assert v[0] == 1 and v[1] is v
    x = one("(a . #0=(b . #0#))")
    assert x.cdr.cdr is x.cdr
    y = one("#0=(#(#0#) . #1=(c #1#))")
    assert y.car[0] is y
    assert y.cdr.cdr.car is y.cdr


def test_labels_under_quote_and_datum_comments() -> None:
    x = one("'#0=(a . #0#)")
    assert x.car is s("quote")
    inner = x.cdr.car
    assert inner.cdr is inner
    y = one("(#0= #;skipped (p) #0# #;#0#)")
    assert y.car is y.cdr.car


def test_label_of_an_atom() -> None:
    assert list_to_python(one("(#3=foo #3# #4=42 #4#)")) == [s("foo"), s("foo"), 42, 42]
    x = one('(#0="text" #0#)')
    assert x.car is x.cdr.car


def test_label_numbers_are_any_non_negative_integer() -> None:
    x = one("(#123456789012345678901234567890=(z) #123456789012345678901234567890#)")
    assert x.car is x.cdr.car
    x = one("(#007=(z) #7#)")
    assert x.car is x.cdr.car


def test_nested_and_chained_labels() -> None:
    x = one("#0=(#1=(a #0# #1#) #2=#3=(b) #3# #2#)")
    first = x.car
    assert first.cdr.car is x and first.cdr.cdr.car is first
    assert x.cdr.car is x.cdr.cdr.car is x.cdr.cdr.cdr.car


def test_labels_are_scoped_to_one_top_level_datum() -> None:
    a, b, c = read_all("#0=(a) #0=(b) (#0=c #0#)")
    assert is_equal(a, lst(s("a"))) and is_equal(b, lst(s("b")))
    assert list_to_python(c) == [s("c"), s("c")]
    err = read_error("#0=(a) #0#")
    assert err.span == Span("<string>", 1, 8)
    err = read_error("#;#0=(a) #0#")
    assert err.span == Span("<string>", 1, 10)


@pytest.mark.parametrize(
    ("text", "col", "words"),
    [
        ("(a #0#)", 4, "undefined datum label #0#"),
        ("(#0# #0=a)", 2, "undefined datum label #0#"),
        ("(#1=a #2#)", 7, "undefined datum label #2#"),
        ("(#0=a #0=b)", 7, "defined twice"),
        ("#0=(#0=a)", 5, "defined twice"),
        ("#0=#0#", 1, "labels only itself"),
        ("#0=#1=#0#", 1, "labels only itself"),
        ("(x #0=)", 4, "must be followed by a datum"),
        ("(x #0#y)", 4, "unknown # form"),
        ("#0=#u8(#0#)", 8, "bytevector element"),
    ],
)
def test_label_errors(text: str, col: int, words: str) -> None:
    err = read_error(text)
    assert err.span == Span("<string>", 1, col)
    assert words in err.message


def test_label_error_span_on_a_later_line() -> None:
    err = read_error("(a\n  b #5#)", "f.scm")
    assert err.span == Span("f.scm", 2, 5)


def test_labels_deep_and_long() -> None:
    depth = 50_000
    x = one("#0=" + "(" * depth + "#0#" + ")" * depth)
    inner = x
    for _ in range(depth - 1):
        inner = inner.car
    assert inner.car is x
    n = 100_000
    y = one("#0=(" + " ".join(map(str, range(n))) + " . #0#)")
    p = y
    for _ in range(n):
        p = p.cdr
    assert p is y
    chain = "".join(f"#{i}=(" for i in range(depth)) + f"#0# #{depth - 1}#" + ")" * depth
    z = inner = one(chain)
    for _ in range(depth - 1):
        inner = inner.car
    assert inner.car is z and inner.cdr.car is inner


def test_labels_complete_and_from_ports() -> None:
    assert is_complete("#0=(a . #0#)")
    assert not is_complete("#0=")
    assert not is_complete("#0=(a")
    port = InputPort("#0=(a . #0#) (#0=(b) #0#) tail")
    x = read_from_port(port)
    assert x.cdr is x
    y = read_from_port(port)
    assert y.car is y.cdr.car
    assert read_from_port(port) is s("tail")


# -- what the printer writes reads back ---------------------------------------------

_ATOMS = st.one_of(st.integers(-5, 5), st.sampled_from([s("a"), s("b"), "str", Char("x"), True, NIL]))
_NODES = st.lists(
    st.tuples(
        st.sampled_from(["pair", "vector"]),
        st.lists(st.one_of(_ATOMS, st.integers(0, 7).map(lambda k: ("node", k))), min_size=2, max_size=4),
    ),
    min_size=1,
    max_size=8,
)


def _build(nodes: list[tuple[str, list[Any]]]) -> Any:
    """Pairs and vectors whose parts are atoms or other nodes (any node: cycles and sharing)."""
    objects: list[Any] = [cons(None, None) if kind == "pair" else [] for kind, _ in nodes]

    def part(item: Any) -> Any:
        return objects[item[1] % len(objects)] if type(item) is tuple else item

    for obj, (_kind, parts) in zip(objects, nodes, strict=True):
        if type(obj) is Pair:
            obj.car, obj.cdr = part(parts[0]), part(parts[1])
        else:
            obj.extend(part(p) for p in parts)
    return objects[0]


@settings(max_examples=300, deadline=None)
@given(_NODES)
def test_written_labels_read_back(nodes: list[tuple[str, list[Any]]]) -> None:
    from interpreter.printer import write_shared_string, write_string

    root = _build(nodes)
    shared = write_shared_string(root)
    assert write_shared_string(one(shared)) == shared
    cyclic = write_string(root)  # labels only where there are cycles
    assert write_string(one(cyclic)) == cyclic


def test_written_labels_read_back_examples() -> None:
    from interpreter.printer import write_shared_string, write_string

    for text in ["#0=(a . #0#)", "(#0=(1) #0#)", "#0=#(1 #0#)", "#0=(#0# . #0#)", "(#0=(x . #1=(y . #0#)) #1#)"]:
        assert write_shared_string(one(text)) == text
    x = one("#0=(a #1=(b) #1# . #0#)")
    assert write_string(x) == "#0=(a (b) (b) . #0#)"


# ---------------------------------------------------------------------------------
# #!fold-case and #!no-fold-case (R7RS 2.1)
# ---------------------------------------------------------------------------------


def test_fold_case_folds_symbols_and_character_names() -> None:
    data = read_all('#!fold-case (DEFINE Straße #\\SPACE #\\A #\\X41 "KEEP" |Bar| ABC) #!no-fold-case (XyZ)')
    assert list_to_python(data[0]) == [
        s("define"),
        s("strasse"),
        Char(" "),
        Char("A"),
        Char("A"),
        "KEEP",
        s("Bar"),
        s("abc"),
    ]
    assert list_to_python(data[1]) == [s("XyZ")]


def test_fold_case_lasts_to_the_end_of_the_text_only() -> None:
    assert read_all("Foo #!fold-case Foo #!fold-case Bar") == [s("Foo"), s("foo"), s("bar")]
    assert read_all("Foo") == [s("Foo")]
    assert read_all("#!no-fold-case Foo") == [s("Foo")]


def test_fold_case_inside_data_and_comments() -> None:
    assert list_to_python(one("(A #!fold-case B)")) == [s("A"), s("b")]
    assert read_all("#| #!fold-case |# ABC ; #!fold-case\nDEF") == [s("ABC"), s("DEF")]
    assert read_all("#;#!fold-case A B") == [s("b")]


def test_fold_case_directive_needs_a_delimiter() -> None:
    read_error("#!fold-cases x")
    read_error("#!FOLD-CASE x")


def test_fold_case_after_a_shebang_line() -> None:
    ((datum, span),) = read_with_spans("#!/usr/bin/env taskscheme\n#!fold-case\n(A)")
    assert is_equal(datum, lst(s("a"))) and span == Span("<string>", 3, 1)
    assert read_all("#!fold-case\nX") == [s("x")]


def test_fold_case_persists_on_a_port() -> None:
    port = InputPort("Aa #!fold-case Bb Cc #!no-fold-case Dd #!fold-case")
    assert [read_from_port(port) for _ in range(5)] == [s("Aa"), s("bb"), s("cc"), s("Dd"), EOF]
    assert read_from_port(InputPort("Ee")) is s("Ee")


_LABEL_PIECES = [*_PIECES, "#0=", "#1=", "#0#", "#1#", "#!fold-case", "#!no-fold-case", "A", "#\\SPACE"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LABEL_PIECES), max_size=40).map("".join))
def test_random_text_with_labels_raises_only_read_errors(text: str) -> None:
    try:
        read_all(text)
    except SchemeError as err:
        assert err.kind == "read-error"
        assert err.span is not None
    is_complete(text)
    port = InputPort(text)
    try:
        while read_from_port(port) is not EOF:
            pass
    except SchemeError as err:
        assert err.kind == "read-error"


class _LimitPassed:
    """A run whose limit is already passed: its poll raises, as a timeout's would."""

    polls = 0

    def poll(self) -> None:
        _LimitPassed.polls += 1
        raise SchemeError("time limit exceeded", kind="resource-exhaustion")


@pytest.mark.parametrize("how", ["read_all", "read_from_port"])
def test_a_long_read_checks_the_run_limits_as_it_goes(how: str) -> None:
    import gc

    from interpreter.polling import RUNTIME

    text = "(" + " ".join(f'(item {i} "text {i}")' for i in range(20_000)) + ")"
    token = RUNTIME.set(_LimitPassed())  # type: ignore[arg-type]
    _LimitPassed.polls = 0
    try:
        with pytest.raises(SchemeError) as info:
            if how == "read_all":
                read_all(text)
            else:
                read_from_port(InputPort(text))
    finally:
        RUNTIME.reset(token)
    assert info.value.kind == "resource-exhaustion"
    assert _LimitPassed.polls == 1  # ended by the first check, a few tens of kilobytes in
    assert gc.isenabled()
    assert len(list_to_python(read_all(text)[0])) == 20_000  # outside a run nothing is checked
