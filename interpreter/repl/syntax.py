"""Lexical help for the REPL's editor: which brackets are still open, and how far to indent.

This is a small scanner, not the reader: it must cope with unfinished input
(an open string, a half-typed form) and it runs on every key press.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Forms whose body is indented by two spaces from their opening bracket (Lisp style);
#: other calls line their arguments up under the first argument.
BODY_FORMS = frozenset(
    (
        "lambda", "case-lambda", "named-lambda", "let", "let*", "letrec", "letrec*", "let-values",
        "let*-values", "fluid-let", "parameterize", "when", "unless", "do", "begin", "guard",
        "dynamic-wind", "with-exception-handler", "syntax-rules", "call-with-current-continuation",
        "call/cc", "call-with-values", "call-with-output-string",
    )
)  # fmt: skip
#: Any operator starting with ``define`` is a body form too.

_OPEN = "([{"
_CLOSE = ")]}"
_DELIMITERS = set(" \t\r\n()[]{}\";'`,")


@dataclass(slots=True)
class OpenBracket:
    """An unclosed bracket: its character, 0-based line and column, and the operator after it."""

    char: str
    line: int
    col: int
    head: str = ""
    first_arg_col: int | None = None  # column of the first argument when it is on the bracket's line
    items: int = 0


class _Scanner:
    """Walks text once, tracking strings, comments and the stack of open brackets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.stack: list[OpenBracket] = []
        self.in_string = False

    def run(self) -> None:
        text = self.text
        i, n = 0, len(text)
        line, col = 0, 0
        block_depth = 0
        while i < n:
            c = text[i]
            if c == "\n":
                line, col, i = line + 1, 0, i + 1
                continue
            if self.in_string:
                if c == "\\":
                    i, col = i + 2, col + 2
                    continue
                if c == '"':
                    self.in_string = False
                i, col = i + 1, col + 1
                continue
            if block_depth:
                if text.startswith("|#", i):
                    block_depth -= 1
                    i, col = i + 2, col + 2
                elif text.startswith("#|", i):
                    block_depth += 1
                    i, col = i + 2, col + 2
                else:
                    i, col = i + 1, col + 1
                continue
            if c == ";":
                end = text.find("\n", i)
                end = n if end < 0 else end
                col += end - i
                i = end
                continue
            if text.startswith("#|", i):
                block_depth = 1
                i, col = i + 2, col + 2
                continue
            if c == '"':
                self._item(line, col)
                self.in_string = True
                i, col = i + 1, col + 1
                continue
            if c in _OPEN:
                self._item(line, col)
                self.stack.append(OpenBracket(c, line, col))
                i, col = i + 1, col + 1
                continue
            if c in _CLOSE:
                if self.stack:
                    self.stack.pop()
                i, col = i + 1, col + 1
                continue
            if c in " \t\r'`,@":
                i, col = i + 1, col + 1
                continue
            # an atom: a symbol, a number, #t, or a character such as #\( or #\space
            start = i
            if text.startswith("#\\", i):
                i += 3
            while i < n and text[i] not in _DELIMITERS:
                i += 1
            self._item(line, col, text[start:i])
            col += i - start

    def _item(self, line: int, col: int, atom: str | None = None) -> None:
        """Note an item inside the innermost open bracket (its head, then its first argument)."""
        if not self.stack:
            return
        top = self.stack[-1]
        if top.items == 0 and atom is not None:
            top.head = atom
        elif top.items == 1 and line == top.line:
            top.first_arg_col = col
        top.items += 1


def open_brackets(text: str) -> list[OpenBracket]:
    """The brackets left open at the end of ``text``, outermost first."""
    scanner = _Scanner(text)
    scanner.run()
    return scanner.stack


def in_string(text: str) -> bool:
    """True when ``text`` ends inside a string literal."""
    scanner = _Scanner(text)
    scanner.run()
    return scanner.in_string


def _is_operator(atom: str) -> bool:
    """False for atoms that cannot name a procedure (numbers, ``#t``, characters): a data list."""
    return not (atom[0].isdigit() or atom[0] == "#" or (atom[0] in "+-." and atom[1:2].isdigit()))


def continuation_indent(text: str) -> int:
    """Columns of indentation for a new line typed after ``text``.

    Inside ``(define …``, ``(let …`` and other body forms: the bracket's column plus two.
    Inside a call whose first argument is on the bracket's line: that argument's column.
    Otherwise the bracket's column plus one (data lists, ``((``) or plus two (a call
    with nothing after the operator yet).
    """
    scanner = _Scanner(text)
    scanner.run()
    if scanner.in_string or not scanner.stack:
        return 0
    top = scanner.stack[-1]
    if not top.head or not _is_operator(top.head):
        return top.col + 1
    if top.head in BODY_FORMS or top.head.startswith("define"):
        return top.col + 2
    if top.first_arg_col is not None:
        return top.first_arg_col
    return top.col + 2 if top.char == "(" else top.col + 1
