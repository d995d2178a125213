"""The seeds' JavaScript-like conditions, translated to DSL expressions.

XML templates write termination conditions and ``<case test=…>`` as in the seeds:
``evaluation.success === true``, ``output.errors > 0 && !done``. The subset:

- property paths ``a.b.c`` (snake_case names become kebab-case variables; a missing
  property is ``#f``, as JavaScript's ``undefined`` is falsy), read with ``result-field``:
  a task result's fields, else its content's JSON fields, else its notes (``output.valid``
  where ``output`` is the previous step's result); on ``evaluation``, a property other than
  ``content``/``status``/``notes`` is read from its notes (``evaluation.success``);
- ``=== !== == != < <= > >=``, ``&& || !`` and parentheses;
- literals: numbers, strings in single or double quotes, ``true``, ``false``, ``null``.

Anything else is a :class:`ConditionError` naming the line and column where it starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...datatypes import NIL, Span, Symbol, cons

S = Symbol.intern
TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
      | (?P<op>===|!==|==|!=|<=|>=|&&|\|\||[<>!().-])""",
    re.VERBOSE,
)
EQUALITY = ("===", "!==", "==", "!=")
RELATIONAL = ("<", "<=", ">", ">=")
LITERALS = {"true": True, "false": False, "null": False, "undefined": False}
RECORD_FIELDS = ("content", "status", "notes")
#: Longest condition, and deepest nesting of parentheses and ``!``, translated.
MAX_CHARS = 10_000
MAX_DEPTH = 32
SUBSET = "property paths, === !== < <= > >=, && || !, parentheses, numbers, strings, true, false, null"


class ConditionError(Exception):
    """A condition outside the subset; ``line`` and ``col`` are where the problem starts."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


@dataclass
class Token:
    kind: str
    text: str
    line: int
    col: int


def tokens(text: str, line: int, col: int) -> list[Token]:
    """The tokens of ``text``, whose first character is at ``line``:``col``."""
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        match = TOKEN.match(text, pos)
        here_line, here_col = _position(text, pos, line, col)
        if match is None:
            raise ConditionError(f"unexpected {text[pos]!r} (conditions use {SUBSET})", here_line, here_col)
        kind = match.lastgroup or ""
        if kind != "space":
            out.append(Token(kind, match.group(), here_line, here_col))
        pos = match.end()
    end_line, end_col = _position(text, len(text), line, col)
    out.append(Token("end", "", end_line, end_col))
    return out


def _position(text: str, pos: int, line: int, col: int) -> tuple[int, int]:
    before = text[:pos]
    newlines = before.count("\n")
    if not newlines:
        return line, col + pos
    return line + newlines, pos - before.rfind("\n")


def translate(text: str, filename: str, line: int, col: int) -> Any:
    """The DSL datum for the condition ``text`` (starting at ``line``:``col`` of ``filename``)."""
    if len(text) > MAX_CHARS:
        raise ConditionError(f"the condition is longer than {MAX_CHARS} characters", line, col)
    parser = Parser(tokens(text, line, col), filename)
    datum = parser.expression()
    parser.expect_end()
    return datum


class Parser:
    """Recursive descent over the tokens, lowest precedence first: ``||``, ``&&``, equality,
    comparison, ``!``, then operands."""

    def __init__(self, toks: list[Token], filename: str) -> None:
        self.toks, self.pos, self.file = toks, 0, filename
        self.depth = 0

    def peek(self) -> Token:
        return self.toks[self.pos]

    def take(self) -> Token:
        token = self.toks[self.pos]
        self.pos += 1
        return token

    def at(self, token: Token, *items: Any) -> Any:
        span = Span(self.file, token.line, token.col)
        result: Any = NIL
        for item in reversed(items):
            result = cons(item, result, span)
        return result

    def fail(self, token: Token, wanted: str) -> ConditionError:
        found = f"{token.text!r}" if token.kind != "end" else "the end of the condition"
        return ConditionError(f"expected {wanted}, found {found} (conditions use {SUBSET})", token.line, token.col)

    def expect_end(self) -> None:
        token = self.peek()
        if token.kind != "end":
            raise self.fail(token, "an operator or the end")

    def binary(self, operators: tuple[str, ...], operand: Callable[[], Any], build: Callable[..., Any]) -> Any:
        left = operand()
        while self.peek().kind == "op" and self.peek().text in operators:
            token = self.take()
            left = build(token, left, operand())
        return left

    def expression(self) -> Any:
        return self.binary(("||",), self.conjunction, lambda t, a, b: self.at(t, S("or"), a, b))

    def conjunction(self) -> Any:
        return self.binary(("&&",), self.equality, lambda t, a, b: self.at(t, S("and"), a, b))

    def equality(self) -> Any:
        def build(token: Token, a: Any, b: Any) -> Any:
            same = self.at(token, self.same(token), a, b)
            return same if token.text in ("===", "==") else self.at(token, S("not"), same)

        return self.binary(EQUALITY, self.comparison, build)

    def same(self, token: Token) -> Any:
        """``(lambda (a b) …)``: numbers compare by value (1 === 1.0), the rest with ``equal?``."""
        a, b = S("a"), S("b")
        numbers = self.at(token, S("and"), self.at(token, S("number?"), a), self.at(token, S("number?"), b))
        test = self.at(token, S("if"), numbers, self.at(token, S("="), a, b), self.at(token, S("equal?"), a, b))
        return self.at(token, S("lambda"), self.at(token, a, b), test)

    def comparison(self) -> Any:
        """``(lambda (a b) (and (real? a) (real? b) (< a b)))``: a missing value compares false."""

        def build(token: Token, left: Any, right: Any) -> Any:
            a, b = S("a"), S("b")
            test = self.at(
                token,
                S("and"),
                self.at(token, S("real?"), a),
                self.at(token, S("real?"), b),
                self.at(token, S(token.text), a, b),
            )
            return self.at(token, self.at(token, S("lambda"), self.at(token, a, b), test), left, right)

        return self.binary(RELATIONAL, self.unary, build)

    def nested(self, token: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ConditionError(f"the condition nests deeper than {MAX_DEPTH} levels", token.line, token.col)

    def unary(self) -> Any:
        token = self.peek()
        if token.kind == "op" and token.text == "!":
            self.take()
            self.nested(token)
            inner = self.unary()
            self.depth -= 1
            return self.at(token, S("not"), inner)
        if token.kind == "op" and token.text == "-":
            self.take()
            number = self.take()
            if number.kind != "number":
                raise self.fail(number, "a number after '-'")
            return -_number(number.text)
        return self.operand()

    def operand(self) -> Any:
        token = self.take()
        if token.kind == "number":
            return _number(token.text)
        if token.kind == "string":
            return _string(token)
        if token.kind == "op" and token.text == "(":
            self.nested(token)
            inner = self.expression()
            self.depth -= 1
            closing = self.take()
            if closing.text != ")":
                raise self.fail(closing, "')'")
            return inner
        if token.kind == "name":
            if token.text in LITERALS:
                return LITERALS[token.text]
            return self.path(token)
        raise self.fail(token, "a value, a property path or '('")

    def path(self, root: Token) -> Any:
        keys: list[str] = []
        while self.peek().kind == "op" and self.peek().text == ".":
            self.take()
            name = self.take()
            if name.kind != "name":
                raise self.fail(name, "a property name after '.'")
            keys.append(name.text)
        after = self.peek()
        if after.kind == "op" and after.text == "(":
            raise ConditionError(f"calls are not supported (conditions use {SUBSET})", after.line, after.col)
        variable = S(root.text.replace("_", "-"))
        if not keys:
            return variable
        if root.text == "evaluation" and keys[0] not in RECORD_FIELDS:
            keys.insert(0, "notes")
        quoted = [self.at(root, S("quote"), S(k)) for k in keys]
        return self.at(root, S("result-field"), variable, *quoted)


def _number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)


def _string(token: Token) -> str:
    body = token.text[1:-1]
    escapes = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1]
            if nxt not in escapes:
                raise ConditionError(f"unknown escape \\{nxt} in a string", token.line, token.col + i + 1)
            out.append(escapes[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)
