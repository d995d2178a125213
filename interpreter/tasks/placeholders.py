"""``{{name}}`` templates: find the names a template uses and render it with values.

Names compare in either spelling (``max-words`` and ``max_words`` are the same);
values are inserted as the caller shows them (in a prompt: a task result as its content,
anything else in its ``display`` form). A backslash
before the braces keeps them literal, as in Handlebars: ``\\{{name}}`` renders as
``{{name}}`` (in a Scheme string literal the backslash is doubled: ``"\\\\{{name}}"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from ..keywords import normal_name

#: ``{{name}}`` (group 1 is the name), or an escaped ``\{{`` (no group) that stays literal.
PLACEHOLDER = re.compile(r"\\\{\{|\{\{\s*([^\s{}]+)\s*\}\}")


def placeholders(text: str) -> list[str]:
    """The names used in ``text``, in order of first use."""
    seen: dict[str, None] = {}
    for match in PLACEHOLDER.finditer(text):
        if match.group(1) is not None:
            seen.setdefault(match.group(1), None)
    return list(seen)


def render(text: str, values: Mapping[str, Any], show: Callable[[Any], str]) -> str:
    """``text`` with each ``{{name}}`` replaced by ``show(values[name])`` (for a prompt,
    :func:`~interpreter.tasks.records.prompt_text`).

    A name without a value is left as it is; definitions are checked beforehand.
    """
    pieces = _pieces(text)
    if len(pieces) == 1:
        return pieces[0]  # type: ignore[return-value]  # no placeholder (an escaped one is unescaped)
    table = {normal_name(k): v for k, v in values.items()}
    out = []
    for piece in pieces:
        if type(piece) is str:
            out.append(piece)
        else:
            key, written = piece
            out.append(show(table[key]) if key in table else written)
    return "".join(out)


@lru_cache(maxsize=512)
def _pieces(text: str) -> tuple[str | tuple[str, str], ...]:
    """``text`` cut at its placeholders, parsed once per template: literal text, and for
    each ``{{name}}`` its normal name with the text written (kept when no value is given)."""
    pieces: list[str | tuple[str, str]] = []
    literal, at = [], 0
    for match in PLACEHOLDER.finditer(text):
        literal.append(text[at : match.start()])
        at = match.end()
        if match.group(1) is None:
            literal.append("{{")  # an escaped ``\{{`` stays literal
            continue
        pieces.append("".join(literal))
        literal = []
        pieces.append((normal_name(match.group(1)), match.group(0)))
    literal.append(text[at:])
    pieces.append("".join(literal))
    return tuple(pieces)
