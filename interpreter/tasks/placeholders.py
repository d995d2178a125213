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
    table = {normal_name(k): v for k, v in values.items()}

    def fill(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return "{{"
        key = normal_name(match.group(1))
        return show(table[key]) if key in table else match.group(0)

    return PLACEHOLDER.sub(fill, text)
