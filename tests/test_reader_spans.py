"""The reader's spans and its lexer's pattern, as properties.

Spans round-trip: the text at a datum's span reads back to that datum, for every pair
of every list (the first pair's span is where its list opens, a later pair's where its
element starts), whatever whitespace, comments and multi-line strings lie between.
The lexer's quick order of alternatives lexes exactly as Lark's order does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.datatypes import Pair, Span
from interpreter.equality import is_equal
from interpreter.ports import InputPort
from interpreter.reader import ReadError, _reader, read_from_port, read_with_spans

ROOT = Path(__file__).resolve().parent.parent

_ATOMS = ["x", "list->vector", "+", "-", "...", "42", "-7", "1.5", "1/3", "#xff", '"s"', '"two\nlines"',
          '"esc\\"aped\\n"', "#\\a", "#\\space", "#t", "#false", "|bar\nsym|", "#:key", "'q", "`(a ,b ,@c)"]
_GAPS = [" ", "\n", "  \n\t", " ; comment\n", " #| block\n #| nested |# comment |# ", " #;(skipped\n datum) ",
         "\n\n   ", "\t"]


def _datum(depth: int) -> st.SearchStrategy[str]:
    """Scheme text of one datum, nested at most ``depth`` deep, with varied gaps inside."""
    atom = st.sampled_from(_ATOMS)
    if depth == 0:
        return atom
    inner = _datum(depth - 1)
    items = st.lists(st.tuples(st.sampled_from(_GAPS), inner), max_size=5)

    def bracket(parts: list[tuple[str, str]], opener: str, gap: str) -> str:
        return opener + "".join(g + d for g, d in parts) + gap + ("]" if opener == "[" else ")")

    lists = st.builds(bracket, items, st.sampled_from(["(", "[", "#("]), st.sampled_from(_GAPS))
    return st.one_of(atom, lists, lists.map(lambda text: "'" + text))


def _offset(text: str, span: Span) -> int:
    """The offset of ``span`` (1-based line and column) in ``text``."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: span.line - 1]) + span.col - 1


def _pairs(datum: Any) -> list[Pair]:
    """Every pair inside ``datum`` (lists and vectors, nested), each once."""
    out, stack, seen = [], [datum], set()
    while stack:
        x = stack.pop()
        if type(x) is list:
            stack.extend(x)
        while type(x) is Pair and id(x) not in seen:
            seen.add(id(x))
            out.append(x)
            stack.append(x.car)
            x = x.cdr
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_GAPS), _datum(3)), min_size=1, max_size=4))
def test_the_text_at_each_span_reads_back_to_its_datum(pieces: list[tuple[str, str]]) -> None:
    text = "".join(gap + datum for gap, datum in pieces)
    for datum, span in read_with_spans(text, "t.scm"):
        assert is_equal(read_from_port(InputPort(text[_offset(text, span) :])), datum)
        for pair in _pairs(datum):
            at = read_from_port(InputPort(text[_offset(text, pair.span) :]))
            first = is_equal(at, pair) and (type(at) is Pair)  # a list's first pair: where it opens
            assert first or is_equal(at, pair.car), (pair.span, at, pair.car)


def _plain_pattern() -> re.Pattern[str]:
    """The lexer's pattern with its alternatives in Lark's order of preference."""
    lexer = _reader().lexer
    return re.compile(lexer.lark_order, lexer.pattern.flags)


def _lexed(pattern: re.Pattern[str], text: str) -> list[tuple[str | None, tuple[int, int]]]:
    return [(m.lastgroup, m.span(m.lastgroup or 0)) for m in pattern.finditer(text)]


_PIECES = [*"()[]#\\|\"';`,@.:u8 \n\tabcxe0129/+-;λ{}", "#|", "|#", "#;", "#\\", "#u8(", "#x", "#e", "#t", "#0=",
           "#0#", "#!fold-case", "#:", ",@", "+inf.0", "..."]


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join), st.text(max_size=40)))
def test_the_quick_order_of_alternatives_lexes_as_larks_order(text: str) -> None:
    assert _lexed(_reader().lexer.pattern, text) == _lexed(_plain_pattern(), text)


def test_the_quick_order_lexes_the_repositorys_code_as_larks_order() -> None:
    for path in sorted(ROOT.glob("**/*.scm")):
        if ".git" not in path.parts:
            text = path.read_text(encoding="utf-8")
            assert _lexed(_reader().lexer.pattern, text) == _lexed(_plain_pattern(), text), path


@given(st.lists(st.sampled_from(_GAPS + _ATOMS), max_size=8).map(" ".join), st.sampled_from(['"open', "|open", ")"]))
@settings(max_examples=150, deadline=None)
def test_an_error_after_multiline_tokens_points_at_its_line(before: str, bad: str) -> None:
    text = before + " " + bad
    try:
        read_with_spans(text, "t.scm")
    except ReadError as exc:
        assert exc.span == Span("t.scm", text.count("\n") + 1, len(text) - len(bad) - text.rfind("\n"))
    else:
        raise AssertionError("no read-error")
