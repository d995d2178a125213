"""The reader's lexer: the grammar's terminals as one regular expression, plus nested block
comments and ``#!fold-case`` directives (split from ``reader.py``; Lark builds the table from
``grammar.lark``; ``reader_parser.LalrLoop.read`` matches this lexer's pattern itself and drives
the table; :meth:`SchemeLexer.lex` yields the tokens for ``read``'s look for a datum's end).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from lark.lexer import Lexer, LexerState

from .datatypes import Span
from .errors import SchemeError
from .polling import poll_limits


class ReadError(SchemeError):
    """A read-error. ``incomplete`` is true when more text could have completed the datum."""

    def __init__(self, message: str, span: Span, incomplete: bool = False) -> None:
        super().__init__(message, kind="read-error", span=span)
        self.incomplete = incomplete


class Tok(NamedTuple):
    """A token: what Lark's parser and the reader's messages need of one (a ``lark.Token``
    is slower to make). A tuple, so ``tuple.__new__(Tok, (...))`` makes one in C."""

    type: str
    value: str
    start_pos: int
    line: int
    column: int
    end_pos: int

    @property
    def end_line(self) -> int:
        """The line the token starts on (Lark's errors ask for it; no token here spans lines
        but strings, whose end no message needs)."""
        return self.line

    @property
    def end_column(self) -> int:
        return self.column

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r})"


# ---------------------------------------------------------------------------------
# The lexer: Lark's basic lexer, plus nested block comments
# ---------------------------------------------------------------------------------


def block_comment_end(text: str, pos: int, end: int) -> int:
    """Index just past the ``|#`` closing a block comment whose body starts at ``pos``; -1 if none."""
    depth = 1
    while depth:
        close = text.find("|#", pos, end)
        if close < 0:
            return -1
        opening = text.find("#|", pos, close)
        if opening >= 0:
            depth += 1
            pos = opening + 2
        else:
            depth -= 1
            pos = close + 2
    return pos


def fold_case_of(kind: str, value: str) -> str:
    """A SYMBOL or CHARACTER token's text under ``#!fold-case``: a symbol, or a character's
    name (not a single character: ``#\\A`` stays ``A``), case-folded."""
    if kind == "SYMBOL":
        return value.casefold()
    return value if len(value) <= 3 else "#\\" + value[2:].casefold()


class Source(NamedTuple):
    """``text[start:end]`` to read, where ``start`` is on line ``line`` and that line begins
    at offset ``line_start``: the lexer starts there without counting the lines before it
    (as Lark does for a ``TextSlice``), so reading a long port datum by datum stays linear."""

    text: str
    start: int
    end: int
    line: int
    line_start: int

    @classmethod
    def of(cls, text: str, start: int, end: int, at: tuple[int, int] | None) -> Source:
        """The source from ``start``; ``at`` is (line, line_start) there if known."""
        if at is None:
            line = text.count("\n", 0, start) + 1
            at = (line, text.rindex("\n", 0, start) + 1 if line > 1 else 0)
        return cls(text, start, end, *at)


def _first_character(regexp: str) -> str | None:
    """The character every match of ``regexp`` begins with, if it has one (read from the
    pattern's parse tree: a literal, maybe inside groups); None if unknown."""
    try:
        from re import _constants, _parser  # reason: optional: private modules another Python may lack
    except ImportError:  # another Python: no reordering
        return None
    items: Any = _parser.parse(regexp)
    while len(items):
        op, arg = items[0]
        if op is _constants.SUBPATTERN:
            items = arg[-1]
        elif op is _constants.LITERAL:
            return chr(arg)
        else:
            return None
    return None


#: Texts after a literal's character that :func:`_may_begin` tries other patterns on.
_PROBES = ("", " ", ")", "a", "0", "@", ".", "#", '"', "|", "\n")


def _may_begin(tokens: list[Any], char: str, matchers: dict[str, Any]) -> bool:
    """Whether one of ``tokens`` may match text that begins with ``char`` (``matchers``: the
    compiled ``match`` of each pattern token, by name)."""
    texts = [char + probe for probe in _PROBES]
    for t in tokens:
        if t.pattern.type == "str":
            if t.pattern.value.startswith(char):
                return True
        elif any(map(matchers[t.name], texts)):
            return True
    return False


#: Characters the lexer reads between two checks of the run's limits (tens of milliseconds).
POLL_CHARS = 1 << 16


class SchemeLexer(Lexer):
    """The grammar's terminals as one regular expression, in Lark's order of preference
    (priority, then longest pattern) up to reorderings that change no match (see
    :meth:`alternatives`), plus nested ``#| ... |#`` comments.

    The ignored terminals that need no action (whitespace, line comments) are skipped by
    the same match as the token after them, so each token costs one regex match."""

    __future_interface__ = 2

    #: Ignored terminals the lexer acts on: block comments nest, directives switch folding.
    ACTED_ON = frozenset(["BLOCK_COMMENT_OPEN", "DIRECTIVE"])

    def __init__(self, conf: Any) -> None:
        terminals = sorted(
            conf.terminals, key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name)
        )
        skipped = [t for t in terminals if t.name in conf.ignore and t.name not in self.ACTED_ON]
        tokens = [t for t in terminals if t not in skipped]
        # Possessive: what is skipped is never given back, so no skip can backtrack.
        skip = "(?:" + "|".join(t.pattern.to_regexp() for t in skipped) + ")*+"
        alternatives = self.alternatives(tokens)
        self.skip = re.compile(skip, conf.g_regex_flags)
        self.pattern = re.compile(f"{skip}(?:{alternatives}|\\Z)", conf.g_regex_flags)
        #: The same pattern with the alternatives in Lark's order (the tests and the bench compare).
        self.lark_order = f"{skip}(?:{self.alternatives(tokens, quick=False)}|\\Z)"
        self.ignore = frozenset(conf.ignore)
        self.literals = self._literals(terminals)
        #: The terminal each group of the pattern matches, by the group's number.
        self.kinds: list[str | None] = [None] * (self.pattern.groups + 1)
        for name, number in self.pattern.groupindex.items():
            self.kinds[number] = name
        #: Terminals whose text may be one of the literals (``.`` is a DOT, not a SYMBOL).
        self.literal_kinds = frozenset(
            t.name
            for t in tokens
            if t.pattern.type == "re" and any(re.fullmatch(t.pattern.to_regexp(), lit) for lit in self.literals)
        )
        self.file = "<string>"
        #: Whether symbols and character names are case-folded: the state a lex starts in,
        #: and after it the state ``#!fold-case`` / ``#!no-fold-case`` directives left.
        self.fold_case = False

    @staticmethod
    def alternatives(tokens: list[Any], quick: bool = True) -> str:
        """The tokens' patterns as named alternatives, in Lark's order of preference.

        ``quick`` reorders them where no match can change, so that a token tries fewer
        alternatives that fail: a one-character literal that no other token's match can
        begin with (a bracket, a quote: half of all tokens) comes first, and the tokens
        whose every match begins with ``#`` sit behind a single ``(?=#)`` test. The tests
        check that both orders lex the same."""

        def named(t: Any) -> str:
            return f"(?P<{t.name}>{t.pattern.to_regexp()})"

        if not quick:
            return "|".join(map(named, tokens))
        matchers = {t.name: re.compile(t.pattern.to_regexp()).match for t in tokens if t.pattern.type == "re"}
        hashed = [t for t in tokens if _first_character(t.pattern.to_regexp()) == "#"]
        if _may_begin([t for t in tokens if t not in hashed], "#", matchers):
            hashed = []
        first = [
            t
            for t in tokens
            if t.pattern.type == "str"
            and len(t.pattern.value) == 1
            and not _may_begin([other for other in tokens if other is not t], t.pattern.value, matchers)
        ]
        rest = [t for t in tokens if t not in hashed and t not in first]
        behind_hash = ["(?=#)(?:" + "|".join(map(named, hashed)) + ")"] if hashed else []
        return "|".join([*map(named, first), *map(named, rest), *behind_hash])

    @staticmethod
    def _literals(terminals: list[Any]) -> dict[str, str]:
        """Fixed strings that a same-priority pattern also matches (``.`` is a DOT, not a SYMBOL)."""
        out = {}
        for lit in terminals:
            if lit.pattern.type != "str":
                continue
            for t in terminals:
                same = t.pattern.type == "re" and t.priority == lit.priority
                if same and re.fullmatch(t.pattern.to_regexp(), lit.pattern.value):
                    out[lit.pattern.value] = lit.name
        return out

    def lex(self, state: LexerState, parser_state: Any) -> Any:
        source = state.text
        if type(source) is Source:
            text, pos, end, line, line_start = source
        else:
            text, end = source.text, source.end
            counter = state.line_ctr
            pos, line, line_start = counter.char_pos, counter.line, counter.line_start_pos
        match, ignore, literals = self.pattern.match, self.ignore, self.literals
        fold = self.fold_case
        poll_at = pos + POLL_CHARS
        while True:
            m = match(text, pos, end)
            if m is None:
                raise self._no_token(text, pos, end, line, line_start)
            kind = m.lastgroup
            if kind is None:  # only whitespace and comments were left
                return
            start, stop = m.span(kind)
            newlines = text.count("\n", pos, stop)
            if newlines:  # in the whitespace before the token (its own are counted after it)
                before = text.count("\n", pos, start)
                if before:
                    line += before
                    line_start = text.rindex("\n", pos, start) + 1
            if kind not in ignore:
                value = m.group(kind)
                if fold and (kind == "SYMBOL" or kind == "CHARACTER"):
                    value = fold_case_of(kind, value)
                yield Tok(literals.get(value, kind), value, start, line, start - line_start + 1, stop)
            elif kind == "BLOCK_COMMENT_OPEN":
                stop = block_comment_end(text, stop, end)
                if stop < 0:
                    span = Span(self.file, line, start - line_start + 1)
                    raise ReadError("unterminated block comment (#| opened here)", span, incomplete=True)
                newlines = 1  # count the lines in it
            elif kind == "DIRECTIVE":
                fold = self.fold_case = m.group(kind) == "#!fold-case"
            if newlines:
                inside = text.count("\n", start, stop)
                if inside:
                    line += inside
                    line_start = text.rindex("\n", start, stop) + 1
            pos = stop
            if pos > poll_at:  # a long text: check the run's limits (time, memory) as it goes
                poll_limits()
                poll_at = pos + POLL_CHARS

    def _no_token(self, text: str, pos: int, end: int, line: int, line_start: int) -> ReadError:
        """The error for text where no token starts after the whitespace and comments at ``pos``."""
        skipped = self.skip.match(text, pos, end).end()  # type: ignore[union-attr]
        newlines = text.count("\n", pos, skipped)
        if newlines:
            line += newlines
            line_start = text.rindex("\n", pos, skipped) + 1
        return self._bad_character(text, skipped, line, skipped - line_start + 1)

    def _bad_character(self, text: str, pos: int, line: int, column: int) -> ReadError:
        """The error for text where no token starts."""
        span = Span(self.file, line, column)
        ch = text[pos]
        if ch == '"':
            return ReadError("unterminated string (string opened here)", span, incomplete=True)
        if ch == "|":
            return ReadError("unterminated |symbol| (opened here)", span, incomplete=True)
        return ReadError(f"unexpected character {ch!r}", span)
