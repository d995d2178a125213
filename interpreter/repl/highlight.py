"""Syntax highlighting for the REPL: the Scheme lexer with taskscheme's forms as keywords,
and colours readable on dark and light terminals alike.

Identifiers keep the terminal's own foreground colour. Every other colour has a
contrast ratio (WCAG 2) of at least 4.5:1 against both black and white, so it stays
readable whatever the terminal's background is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prompt_toolkit.styles import Style
from pygments.lexer import RegexLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace, _TokenType

from ..analyzer import SPECIAL_FORMS
from ..primitives.registry import BUILTINS

#: Token classes and their colours; mid-luminance, so readable on black and on white.
TOKEN_COLOURS: dict[_TokenType, str] = {
    Keyword: "#9e3ffd bold",
    Name.Builtin: "#217ea6",
    String: "#1d881b",
    String.Char: "#ca3d91",
    String.Symbol: "#ca3d91",
    Number: "#b35f12",
    Comment: "#757575 italic",
}


_WORD_END = r"(?=[\s()\[\]\";'`,|]|\Z)"
_NUMBER = r"[+-]?(\d+/\d+|(\d+\.?\d*|\.\d+)([eEsSfFdDlL][+-]?\d+)?|(inf|nan)\.0)([+-].*?i|i|@\S*?)?" + _WORD_END


def _word(lexer: RegexLexer, match: Any) -> Iterator[tuple[int, Any, str]]:
    """An identifier: a keyword if it names a special form (task forms included), a builtin
    if it names a primitive, else a variable."""
    word = match.group(0)
    if any(form.name == word for form in SPECIAL_FORMS):
        token = Keyword
    elif word in BUILTINS:
        token = Name.Builtin
    else:
        token = Name.Variable
    yield match.start(), token, word


class TaskSchemeLexer(RegexLexer):
    """A small Scheme lexer (pygments' own Scheme lexer costs a tenth of a second to import):
    every special form the analyzer knows (``define-task``, ``sequential``,
    ``director-evaluator-loop`` …) is a keyword. Unfinished input (an open string or
    block comment, as while typing) is highlighted as far as it goes."""

    name = "taskscheme"
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r";.*?$", Comment.Single),
            (r"#\|", Comment.Multiline, "block-comment"),
            (r"#;", Comment.Special),
            (r'"(\\.|[^"\\])*("|\Z)', String),
            (r"#\\(x[0-9a-fA-F]+|[a-zA-Z]+|.)", String.Char),
            (r"#(t|f|true|false)" + _WORD_END, Name.Constant),
            (r"#(u8)?\(|[()\[\]]", Punctuation),
            (r"#[xXoObBdDeEiI]\S*?" + _WORD_END, Number),
            (_NUMBER, Number),
            (r"['`]|,@?", Operator),
            (r"#:[^\s()\[\]\";'`,|]+", String.Symbol),
            (r"\|(\\.|[^|\\])*(\||\Z)", Name.Variable),
            (r"[^\s()\[\]\";'`,|]+", _word),
        ],
        "block-comment": [
            (r"#\|", Comment.Multiline, "#push"),
            (r"\|#", Comment.Multiline, "#pop"),
            (r"[^|#]+|.", Comment.Multiline),
        ],
    }


def pygments_style() -> Style:
    """The prompt_toolkit style for the lexer's tokens (other tokens: the terminal's colours)."""
    return Style([(_class_name(token), colour) for token, colour in TOKEN_COLOURS.items()])


def _class_name(token: _TokenType) -> str:
    """prompt_toolkit's class for a pygments token: ``pygments.keyword``, ``pygments.name.builtin``."""
    return "pygments." + ".".join(part.lower() for part in token)


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""

    def channel(hex_pair: str) -> float:
        c = int(hex_pair, 16) / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(colour[i : i + 2]) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
