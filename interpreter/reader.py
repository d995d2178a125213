"""The reader: Scheme text to Scheme data, with source spans.

The syntax lives in ``grammar.lark``. Lark builds its LALR(1) table; one loop lexes the text
with ``reader_lexer.SchemeLexer``'s pattern and runs the table (``reader_parser.LalrLoop.read``),
calling :class:`_Builder` for the terminals and rules it does not build itself (symbols, short
integers and lists it does), so values are built during the parse and no tree is walked
afterwards: nesting depth is limited only by memory.
Inside the parse every datum travels as a ``(value, Span)`` pair so that lists can
give each of their pairs a span.

Every failure is a ``SchemeError`` of kind ``read-error`` with the span of the
offending place (for an unclosed list: where it opened).

Datum labels (``#0=`` and ``#0#``, R7RS 2.4): a reference to a label whose datum is
still being read (``#0=(a . #0#)``) becomes the :class:`_Label` itself as a
placeholder; when the top-level datum ends, one iterative walk replaces every
placeholder by the label's datum. Text without such references never pays for it.
``#!fold-case`` / ``#!no-fold-case`` (R7RS 2.1) are followed by the lexer.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any, NoReturn

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import LexerState

from . import collector
from .bignum import DIGITS
from .datatypes import (
    EOF,
    NIL,
    S_QUASIQUOTE,
    S_QUOTE,
    S_UNQUOTE,
    S_UNQUOTE_SPLICING,
    Char,
    Keyword,
    Pair,
    Span,
    Symbol,
    cons,
)
from .errors import SchemeError
from .number_syntax import NUMBER_START, NumberTooLarge, parse_number, parse_prefixed_number
from .ports import InputPort
from .printer import write_string
from .reader_cache import cache_folder, cache_key
from .reader_lexer import ReadError, SchemeLexer, Source, Tok
from .reader_parser import LalrLoop

__all__ = ["ReadError", "is_complete", "read_all", "read_from_port", "read_with_spans"]

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")


# ---------------------------------------------------------------------------------
# Atoms: numbers, characters, strings
# ---------------------------------------------------------------------------------

CHAR_NAMES: dict[str, str] = {
    "space": " ",
    "newline": "\n",
    "linefeed": "\n",
    "tab": "\t",
    "nul": "\0",
    "null": "\0",
    "return": "\r",
    "alarm": "\a",
    "backspace": "\b",
    "delete": "\x7f",
    "rubout": "\x7f",
    "escape": "\x1b",
    "altmode": "\x1b",
    "page": "\f",
}

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "0": "\0", "\\": "\\", '"': '"', "|": "|"}
_ESCAPE_RE = re.compile(r"\\(?:x([0-9a-fA-F]+);|[ \t]*\r?\n[ \t]*|(.))", re.DOTALL)


def _char_from_code(code: int) -> str | None:
    """The character with this code point, or None for surrogates and out-of-range codes."""
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


def _offset_span(tok: Tok, file: str, offset: int) -> Span:
    """The span ``offset`` characters into the text of ``tok``."""
    before = tok.value[:offset]
    newlines = before.count("\n")
    if newlines:
        return Span(file, tok.line + newlines, offset - before.rindex("\n"))
    return Span(file, tok.line, tok.column + offset)


def _unescape(tok: Tok, file: str, what: str) -> str:
    """The body of a string or |symbol| token with its escapes replaced."""
    body = tok.value[1:-1]
    if "\\" not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        hex_digits, single = match.group(1), match.group(2)
        if hex_digits is not None:
            ch = _char_from_code(int(hex_digits, 16))
            if ch is not None:
                return ch
            problem = f"\\x{hex_digits}; is not a character"
        elif single is None:
            return ""  # line continuation
        elif single in _ESCAPES:
            return _ESCAPES[single]
        elif single == "x":
            problem = "\\x escape needs hex digits and a closing ';'"
        else:
            problem = f"unknown escape \\{single}"
        raise ReadError(f"bad {what}: {problem}", _offset_span(tok, file, match.start() + 1))

    return _ESCAPE_RE.sub(replace, body)


def char_from_name(name: str) -> str | None:
    """The character ``#\\<name>`` denotes, or None."""
    if len(name) == 1:
        return name
    ch = CHAR_NAMES.get(name) or CHAR_NAMES.get(name.lower())
    if ch is not None:
        return ch
    if name[0] in "xXuU" and re.fullmatch(r"[0-9a-fA-F]+", name[1:]):
        return _char_from_code(int(name[1:], 16))
    return None


# ---------------------------------------------------------------------------------
# The builder: Lark calls these while parsing
# ---------------------------------------------------------------------------------


#: What a datum comment leaves behind; lists drop it.
SKIP = object()


class _Label:
    """A datum label ``#n=``: its datum once read. A reference ``#n#`` met while the datum is
    still being read stands for it as this object, replaced when the top-level datum ends."""

    __slots__ = ("done", "number", "tok", "value")

    def __init__(self, number: str, tok: Tok) -> None:
        self.number = number
        self.tok = tok
        self.value: Any = None
        self.done = False

    def __repr__(self) -> str:
        return f"#{self.number}#"


def _final(value: Any) -> Any:
    """``value`` with placeholders of labels already read replaced by their data."""
    while type(value) is _Label and value.done:
        value = value.value
    return value


def _resolve(root: Any) -> None:
    """Replace every label placeholder inside ``root`` (pairs and vectors) by its datum.

    Iterative, and it visits each pair and vector once, so deep and circular data are fine.
    """
    seen: set[int] = set()
    stack = [root]
    while stack:
        x = stack.pop()
        while True:
            t = type(x)
            if t is Pair:
                if id(x) in seen:
                    break
                seen.add(id(x))
                car = x.car
                if type(car) is _Label:
                    x.car = car = _final(car)
                if type(car) is Pair or type(car) is list:
                    stack.append(car)
                cdr = x.cdr
                if type(cdr) is _Label:
                    x.cdr = cdr = _final(cdr)
                x = cdr
            elif t is list:
                if id(x) not in seen:
                    seen.add(id(x))
                    for index, item in enumerate(x):
                        if type(item) is _Label:
                            x[index] = item = _final(item)
                        if type(item) is Pair or type(item) is list:
                            stack.append(item)
                break
            else:
                break


_OPENERS = {"LPAREN": "(", "LBRACKET": "[", "VECTOR_OPEN": "#(", "BYTEVECTOR_OPEN": "#u8("}
_CLOSERS = {"RPAREN": ")", "RBRACKET": "]"}
_PREFIXES = {
    "QUOTE": "'",
    "QUASIQUOTE": "`",
    "UNQUOTE": ",",
    "UNQUOTE_SPLICING": ",@",
    "DATUM_COMMENT": "#;",
    "LABEL_DEF": "#n=",
}
_ABBREVIATIONS = {
    "QUOTE": S_QUOTE,
    "QUASIQUOTE": S_QUASIQUOTE,
    "UNQUOTE": S_UNQUOTE,
    "UNQUOTE_SPLICING": S_UNQUOTE_SPLICING,
}
#: Prefixes that make one datum of the datum after them.
_WRAPPERS = frozenset([*_ABBREVIATIONS, "LABEL_DEF"])

Datum = tuple[Any, Span]

#: ``_new_span(Span, (file, line, column))`` makes a Span without the Python-level
#: ``__new__`` a NamedTuple call goes through (the reader makes one per datum).
_new_span = tuple.__new__


class _Builder:
    """Lark callbacks: terminals and rules to ``(value, span)`` pairs."""

    def __init__(self) -> None:
        self.file = "<string>"
        self.reset()

    def reset(self) -> None:
        """Forget the datum labels of the last top-level datum."""
        self.labels: dict[str, _Label] = {}  # by number, as digits without leading zeros
        self.unresolved = False  # a placeholder was handed out in this top-level datum

    def _span(self, tok: Tok) -> Span:
        return _new_span(Span, (self.file, tok.line, tok.column))

    def _fail(self, message: str, tok: Tok, offset: int = 0) -> NoReturn:
        raise ReadError(message, _offset_span(tok, self.file, offset) if offset else self._span(tok))

    # -- terminals -------------------------------------------------------------------
    def _number(self, tok: Tok, parse: Any) -> Any:
        """``parse(tok.value)``: a number, or None when the text is no number; a bad one fails."""
        if len(tok.value) > DIGITS.get() + 64:  # too long for any number max_digits allows
            if tok.type == "SYMBOL":
                return None
            self._fail(f"bad number: {tok.value[:37]}...: too long for max_digits = {DIGITS.get()}", tok)
        try:
            return parse(tok.value)
        except NumberTooLarge as exc:
            shown = tok.value if len(tok.value) <= 40 else tok.value[:37] + "..."
            self._fail(f"bad number: {shown}: {exc}", tok)
        except (ZeroDivisionError, OverflowError, ValueError):
            self._fail(f"bad number: {tok.value}", tok)

    def NUMBER(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        text = tok.value
        if len(text) < 16 and text.isdigit() and text.isascii() and len(text) <= DIGITS.get():
            return int(text), _new_span(Span, (self.file, tok.line, tok.column))  # the common case
        value = self._number(tok, parse_number)
        if value is None:
            self._fail(f"bad number: {tok.value}", tok)
        return value, self._span(tok)

    def PREFIXED_NUMBER(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        value = self._number(tok, parse_prefixed_number)
        if value is None:
            self._fail(f"bad number: {tok.value}", tok)
        return value, self._span(tok)

    def BOOLEAN(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        return tok.value in ("#t", "#true"), self._span(tok)

    def CHARACTER(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        ch = char_from_name(tok.value[2:])
        if ch is None:
            self._fail(f"unknown character name: {tok.value}", tok)
        return Char(ch), self._span(tok)

    def STRING(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        return _unescape(tok, self.file, "string"), _new_span(Span, (self.file, tok.line, tok.column))

    def SYMBOL(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        text = tok.value
        if text[0] in NUMBER_START and len(text) > 1:
            # the numbers the NUMBER terminal leaves to us: 1+2i, +i, 1@2, +INF.0, 1s2
            value = self._number(tok, parse_number)
            if value is not None:
                return value, self._span(tok)
        return Symbol.intern(text), _new_span(Span, (self.file, tok.line, tok.column))

    def BAR_SYMBOL(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        return Symbol.intern(_unescape(tok, self.file, "symbol")), self._span(tok)

    def KEYWORD(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        return Keyword.intern(tok.value[2:]), self._span(tok)

    def LABEL_DEF(self, tok: Tok) -> _Label:  # noqa: N802 (Lark calls it by terminal name)
        number = tok.value[1:-1].lstrip("0") or "0"
        if number in self.labels:
            self._fail(f"datum label #{number}= is defined twice in one datum", tok)
        label = self.labels[number] = _Label(number, tok)
        return label

    def LABEL_REF(self, tok: Tok) -> Datum:  # noqa: N802 (Lark calls it by terminal name)
        number = tok.value[1:-1].lstrip("0") or "0"
        label = self.labels.get(number)
        if label is None:
            self._fail(f"undefined datum label #{number}# (define it first with #{number}=)", tok)
        if label.done:
            return label.value, self._span(tok)
        self.unresolved = True
        return label, self._span(tok)

    def BAD_HASH(self, tok: Tok) -> NoReturn:  # noqa: N802 (Lark calls it by terminal name)
        if tok.value == "#\\":
            self._fail("expected a character after #\\", tok)
        if tok.value == "#":
            self._fail("bad syntax: '#' must be followed by something (#t, #(, #\\a, ...)", tok)
        self._fail(f"bad syntax: unknown # form {tok.value}", tok)

    # -- rules -----------------------------------------------------------------------
    def start(self, items: list[Any]) -> list[Datum]:
        return [item for item in items if item is not SKIP]

    def top(self, children: list[Any]) -> Datum:
        if self.labels:
            if self.unresolved:
                _resolve(children[0][0])
            self.reset()
        return children[0]

    def top_comment(self, children: list[Any]) -> object:
        if self.labels:
            self.reset()
        return SKIP

    def labeled(self, children: list[Any]) -> Datum:
        label: _Label = children[0]
        value, span = children[-1]
        if _final(value) is label:
            self._fail(f"datum label #{label.number}= labels only itself", label.tok)
        label.value = value
        label.done = True
        return value, span

    def datum_comment(self, children: list[Any]) -> object:
        return SKIP

    def items(self, children: list[Any]) -> list[Datum]:
        if len(children) == 2:  # [the items so far, one more datum]
            items = children[0]
            items.append(children[1])
            return items
        return children  # [the first datum]: Lark hands each callback a new list

    def items_comment(self, children: list[Any]) -> list[Datum]:
        return children[0] if len(children) == 2 else []

    def list(self, children: list[Any]) -> Datum:
        opener = children[0]
        span = _new_span(Span, (self.file, opener.line, opener.column))
        if len(children) == 2:
            return NIL, span
        result = _chain(children[1], NIL)
        if result is not NIL:
            result._span = span
        return result, span

    def dotted_list(self, children: list[Any]) -> Datum:
        opener, *inside, _closer = children
        dot_at = 0 if type(inside[0]) is Tok else 1
        dot = inside[dot_at]
        before = inside[0] if dot_at else []
        after = inside[dot_at + 1] if len(inside) > dot_at + 1 else []
        if len(after) != 1:
            self._fail("bad dotted list: '.' must be followed by exactly one datum", dot)
        if not before:
            self._fail("bad dotted list: '.' must come after at least one datum", dot)
        result = _chain(before, after[0][0])
        span = result.span = self._span(opener)
        return result, span

    def vector(self, children: list[Any]) -> Datum:
        items = children[1] if len(children) == 3 else []
        return [value for value, _span in items], self._span(children[0])

    def bytevector(self, children: list[Any]) -> Datum:
        out = bytearray()
        for value, span in children[1] if len(children) == 3 else []:
            if type(value) is not int or not 0 <= value <= 255:
                shown = repr(value) if type(value) is _Label else write_string(value)
                message = f"bytevector element must be an exact integer 0..255, got {shown}"
                raise ReadError(message, span)
            out.append(value)
        return out, self._span(children[0])

    def abbreviation(self, children: list[Any]) -> Datum:
        span = self._span(children[0])
        value, value_span = children[-1]
        return cons(_ABBREVIATIONS[children[0].type], cons(value, NIL, value_span), span), span


def _chain(items: list[Datum], tail: Any) -> Any:
    """Pairs for ``items`` ending in ``tail``, each spanned by its element."""
    result = tail
    for value, span in reversed(items):
        cell = Pair()  # inline: a call of cons per element costs half again
        cell.car = value
        cell.cdr = result
        cell._span = span  # the slot itself: the ``span`` property's setter is a Python call
        result = cell
    return result


# ---------------------------------------------------------------------------------
# The parser, built once per process
# ---------------------------------------------------------------------------------


class _Reader:
    """The Lark parser with its builder and lexer; parsing is serialised by a lock."""

    def __init__(self) -> None:
        self.builder = _Builder()
        self.lark = Lark(
            GRAMMAR_PATH.read_text(encoding="utf-8"),
            parser="lalr",
            lexer=SchemeLexer,
            transformer=self.builder,
            propagate_positions=False,
            maybe_placeholders=False,
            cache=str(cache_file()) if cache_file() is not None else False,
        )
        self.lexer: SchemeLexer = self.lark.parser.lexer
        _plain_rule_names(self.lark)
        lists, chains = frozenset(["items"]), frozenset(["list"])  # as _Builder.items and .list do
        self.loop = LalrLoop(self.lark, lists=lists, ignored=SchemeLexer.ACTED_ON, chains=chains)
        self.lock = threading.RLock()

    def parse(
        self,
        text: str,
        file: str,
        start: int = 0,
        end: int | None = None,
        fold_case: bool = False,
        at: tuple[int, int] | None = None,
    ) -> list[Datum]:
        """Every datum in ``text[start:end]`` with its span; ``fold_case`` as if the text
        began with ``#!fold-case``; ``at`` is the (line, line start) of ``start`` if known.
        Afterwards ``self.lexer.fold_case`` is the state the text's directives left (read
        it under ``self.lock``)."""
        stop = len(text) if end is None else end
        with self.lock, collector.paused():  # all it allocates lives until the parse ends
            self.builder.file = self.lexer.file = file
            self.builder.reset()
            self.lexer.fold_case = fold_case
            try:
                return self.loop.read(self.lexer, Source.of(text, start, stop, at), file)
            except SchemeError:
                raise
            except UnexpectedInput as exc:
                raise _translate(exc, text, file) from None
            except Exception as exc:  # a bug in the reader must still be a read-error
                span = Span(file, 1, 1)
                raise ReadError(f"reader failure: {type(exc).__name__}: {exc}", span) from None

    def tokens(self, text: str, start: int, file: str, at: tuple[int, int] | None = None) -> Any:
        """The raw tokens of ``text[start:]`` (atoms unchecked); ``at`` as for :meth:`parse`."""
        self.lexer.file = file
        return self.lexer.lex(LexerState(Source.of(text, start, len(text), at)), None)  # type: ignore[arg-type]


def _plain_rule_names(lark: Lark) -> None:
    """Make each rule's name a plain ``str``.

    Lark keeps the names it read from the grammar as ``lark.Token`` (a ``str`` subclass
    with a Python ``__eq__``), and after every reduction its LALR parser looks the rule's
    name up in a table keyed by plain strings: each lookup then runs that ``__eq__``.
    A plain name finds its entry by identity or C comparison (a tenth of ``read_all``)."""
    for rule in lark.rules:
        rule.origin.name = str(rule.origin.name)


def cache_file() -> Path | None:
    """Where Lark keeps its grammar analysis between runs: the user's cache folder
    (``reader_cache.cache_folder``), in a file named by a hash of the reader's sources, so
    two versions of taskscheme on one machine do not overwrite each other's file at every
    start (Lark rebuilds the table, 0.1-0.2 s, when the file is another version's); None
    when the folder cannot be created. Lark checks the grammar and its own version too."""
    folder = cache_folder()
    return folder / f"grammar-{cache_key('')[:16]}.lark-cache" if folder is not None else None


_READER: _Reader | None = None
_READER_LOCK = threading.Lock()


def _reader() -> _Reader:
    """The process-wide reader, built on first use."""
    global _READER
    if _READER is None:
        with _READER_LOCK:
            if _READER is None:
                _READER = _Reader()
    return _READER


# ---------------------------------------------------------------------------------
# Lark errors to read-errors
# ---------------------------------------------------------------------------------


def _translate(exc: UnexpectedInput, text: str, file: str) -> ReadError:
    """A ReadError for a Lark error, pointing at the most useful place."""
    if isinstance(exc, UnexpectedToken):
        if exc.token.type == "$END":
            outermost = _outermost_open(exc)
            if outermost is not None and outermost.type in _OPENERS:
                return ReadError(_unclosed_form(outermost, text), Span(file, outermost.line, outermost.column), True)
        return _unexpected_token(exc, file)
    if isinstance(exc, UnexpectedCharacters):
        span = Span(file, exc.line, exc.column)
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        if ch == '"':
            return ReadError("unterminated string (string opened here)", span, incomplete=True)
        if ch == "|":
            return ReadError("unterminated |symbol| (opened here)", span, incomplete=True)
        return ReadError(f"unexpected character {ch!r}", span)
    return ReadError(f"syntax error: {exc}", Span(file, getattr(exc, "line", 1), getattr(exc, "column", 1)))


def _innermost_open(exc: UnexpectedToken) -> Tok | None:
    """The innermost opening bracket or prefix still waiting when the parse failed."""
    state = getattr(exc, "state", None)
    stack = getattr(state, "value_stack", None) or []
    for value in reversed(stack):
        if type(value) is _Label:
            return value.tok
        if type(value) is Tok and (value.type in _OPENERS or value.type in _PREFIXES):
            return value
    return None


def _outermost_open(exc: UnexpectedToken) -> Tok | None:
    """The outermost opening bracket still waiting when the input ended."""
    state = getattr(exc, "state", None)
    for value in getattr(state, "value_stack", None) or []:
        if type(value) is Tok and value.type in _OPENERS:
            return value
    return None


_HEAD_WORD = re.compile(r"\s*([^\s()\[\]\";'`,|]+)")
_TOP_LEVEL_LINE = re.compile(r"^[^\s;]", re.MULTILINE)


def _unclosed_form(opener: Tok, text: str) -> str:
    """The message for input that ends inside the form ``opener`` opens: the form by its
    head word, and, when a later line starts at column 0 (a new top-level form, as people
    write them), the likely place of the missing close bracket (as Racket reports it)."""
    closer = ")" if opener.value.endswith("(") else "]"
    head = _HEAD_WORD.match(text, opener.end_pos)
    form = f"'{opener.value}{head.group(1)} …'" if head else f"'{opener.value}'"
    kind = "vector" if opener.type == "VECTOR_OPEN" else "bytevector" if opener.type == "BYTEVECTOR_OPEN" else "form"
    message = f"unclosed {form} ({kind} opened here): it needs a '{closer}'"
    next_line = text.find("\n", opener.start_pos)
    later = _TOP_LEVEL_LINE.search(text, next_line + 1) if next_line >= 0 else None
    if later is not None:
        line = text.count("\n", 0, later.start()) + 1
        message += f"; a '{closer}' is probably missing before line {line}, which starts at column 0"
    return message


def _unexpected_token(exc: UnexpectedToken, file: str) -> ReadError:
    """Messages for an unexpected end of input, close bracket or dot."""
    tok = exc.token
    opener = _innermost_open(exc)
    where = Span(file, tok.line, tok.column)
    if tok.type == "$END":
        if opener is None:
            return ReadError("unexpected end of input", where, incomplete=True)
        return ReadError(_unfinished(opener), Span(file, opener.line, opener.column), incomplete=True)
    found = f"'{tok.value}'"
    if opener is not None and opener.type == "LABEL_DEF":
        message = f"datum label '{opener.value}' must be followed by a datum, found {found}"
        return ReadError(message, Span(file, opener.line, opener.column))
    if opener is not None and opener.type in _PREFIXES:
        return ReadError(f"expected a datum after '{opener.value}', found {found}", where)
    if tok.type in _CLOSERS:
        if opener is None:
            return ReadError(f"unexpected {found} (no list is open)", where)
        at = f"{opener.line}:{opener.column}"
        return ReadError(f"{found} does not match the '{opener.value}' opened at {at}", where)
    if tok.type == "DOT":
        if opener is None:
            return ReadError("unexpected '.' outside a list", where)
        if opener.type in ("VECTOR_OPEN", "BYTEVECTOR_OPEN"):
            return ReadError("'.' is not allowed in a vector", where)
        return ReadError("unexpected '.': a list has at most one dot", where)
    return ReadError(f"unexpected {found}", where)


def _unfinished(opener: Tok) -> str:
    """The message for input that ends while ``opener`` still waits."""
    if opener.type == "DATUM_COMMENT":
        return "'#;' at end of input: expected a datum to comment out"
    if opener.type in _PREFIXES:
        return f"'{opener.value}' at end of input: expected a datum after it"
    kind = "vector" if opener.type == "VECTOR_OPEN" else "bytevector" if opener.type == "BYTEVECTOR_OPEN" else "list"
    return f"unclosed '{opener.value}' ({kind} opened here)"


# ---------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------


def _blank_shebang(text: str) -> str:
    """A ``#!/...`` or ``#! ...`` first line (a script's interpreter line) read as a comment;
    a byte-order mark read as a space."""
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    if text.startswith(("#!/", "#! ")):
        end = text.find("\n")
        return " " * (len(text) if end < 0 else end) + ("" if end < 0 else text[end:])
    return text


def read_with_spans(text: str, filename: str = "<string>") -> list[tuple[Any, Span]]:
    """Every datum in ``text`` with the span where it starts."""
    return _reader().parse(_blank_shebang(text), filename)


def read_all(text: str, filename: str = "<string>") -> list[Any]:
    """Every datum in ``text``."""
    return [value for value, _span in read_with_spans(text, filename)]


def is_complete(text: str) -> bool:
    """False when ``text`` stops inside an unfinished datum (so a REPL should read more).

    Any other syntax error counts as complete: the REPL should evaluate and show it.
    """
    try:
        read_with_spans(text)
    except ReadError as exc:
        return not exc.incomplete
    except SchemeError:
        return True
    return True


def read_from_port(port: InputPort, filename: str = "<port>") -> Any:
    """Read one datum from ``port`` and leave the port just past it; EOF at the end."""
    reader = _reader()
    while True:
        at = port.position()
        end, complete = _first_datum_end(reader, port.text, port.pos, filename, at)
        if (complete and end < len(port.text)) or not _fill(port):
            break
    if end < 0:  # only whitespace and comments
        port.pos = len(port.text)
        _FOLDING_PORTS.pop(id(port), None)
        return EOF
    start, port.pos = port.pos, end  # on a read-error the bad text is consumed too
    folding = _FOLDING_PORTS.get(id(port)) is port
    with reader.lock:
        data = reader.parse(port.text, filename, start, end, folding, at)
        if reader.lexer.fold_case != folding:
            if folding:
                del _FOLDING_PORTS[id(port)]
            else:
                _FOLDING_PORTS[id(port)] = port
    return data[0][0] if data else EOF


#: Input ports a ``#!fold-case`` directive left folding (until ``#!no-fold-case`` or their end).
#: Keyed by id, holding the port (ports have no room for an attribute nor a weak reference).
_FOLDING_PORTS: dict[int, InputPort] = {}


def _fill(port: InputPort) -> bool:
    """Ask the port for more text; False when there is none."""
    fill = getattr(port, "_fill", None)
    return bool(fill()) if fill is not None and port.more is not None else False


def _first_datum_end(reader: _Reader, text: str, start: int, file: str, at: tuple[int, int]) -> tuple[int, bool]:
    """Where the first datum of ``text[start:]`` ends, and whether it certainly ended.

    Follows brackets and prefixes token by token. When the text runs out or is wrong
    before a datum is complete, the end is ``len(text)`` (parsing that slice raises the
    proper error) with ``complete`` False; ``-1`` means there is no datum at all.
    """
    pending: list[str] = []
    try:
        with reader.lock:
            for tok in reader.tokens(text, start, file, at):
                kind = tok.type
                if kind in _OPENERS or kind in _PREFIXES:
                    pending.append(kind)
                    continue
                if kind == "DOT":
                    if not pending:
                        return tok.end_pos, True  # parsing this far reports the error
                    continue
                if kind in _CLOSERS:
                    if not pending or pending[-1] not in _OPENERS:
                        return tok.end_pos, True  # parsing this far reports the error
                    pending.pop()
                if _datum_done(pending):
                    return tok.end_pos, True
    except ReadError:  # (a limit's error is no syntax problem: it goes on up)
        return len(text), False
    except UnexpectedInput:
        return len(text), False
    return (len(text), False) if pending else (-1, False)


def _datum_done(pending: list[str]) -> bool:
    """A datum just ended: settle the prefixes it completes; True if it is a top-level datum."""
    while pending and pending[-1] in _WRAPPERS:
        pending.pop()
    if pending and pending[-1] == "DATUM_COMMENT":
        pending.pop()
        return False
    return not pending
