"""Syntax highlighting for the REPL: the Scheme lexer with taskscheme's forms as keywords,
and colours readable on dark and light terminals alike.

Identifiers keep the terminal's own foreground colour. Every other colour has a
contrast ratio (WCAG 2) of at least 4.5:1 against both black and white, so it stays
readable whatever the terminal's background is.
"""

from __future__ import annotations

from prompt_toolkit.styles import Style
from pygments.token import Comment, Keyword, Name, Number, String, _TokenType

from .. import lexer
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


class TaskSchemeLexer(lexer.TaskSchemeLexer):
    """The package's lexer (:mod:`interpreter.lexer`) with words classified from the registries
    alone, so the first keystroke does not wait for a fresh interpreter: special forms are
    keywords, primitives builtins."""

    def word_token(self, word: str) -> _TokenType:
        if any(form.name == word for form in SPECIAL_FORMS):
            return Keyword
        return Name.Builtin if word in BUILTINS else Name.Variable


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
