"""The comparison families of characters and strings (``char<?``, ``string-ci=?`` …):
five orders, each with and without case, registered from one description per kind."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from .registry import primitive

#: The orders, by the suffix of their names.
ORDERS: dict[str, Callable[[str, str], bool]] = {
    "=?": operator.eq,
    "<?": operator.lt,
    ">?": operator.gt,
    "<=?": operator.le,
    ">=?": operator.ge,
}


def register_comparisons(kind: str, plural: str, text_of: Callable[[str, Any], str], min_args: int) -> None:
    """Register ``KIND=?``, ``KIND-ci=?`` … for every order: ``text_of(who, x)`` gives an
    argument's text (or raises the type error naming ``who``); ``min_args`` is 1 or 2."""
    for suffix, test in ORDERS.items():
        for ci in (False, True):
            name = f"{kind}-ci{suffix}" if ci else f"{kind}{suffix}"
            primitive(name)(_comparison(name, plural, text_of, test, ci, min_args))


def _comparison(
    name: str,
    plural: str,
    text_of: Callable[[str, Any], str],
    test: Callable[[str, str], bool],
    ci: bool,
    min_args: int,
) -> Callable[..., bool]:
    # the body written out in both shapes: no call between the primitive and the loop
    if min_args == 2:

        def compare(a: Any, b: Any, *rest: Any) -> bool:
            if not rest and not ci:  # the usual call: no list, no generator
                return test(text_of(name, a), text_of(name, b))
            texts = [text_of(name, x) for x in (a, b, *rest)]
            if ci:
                texts = [t.casefold() for t in texts]
            return all(test(texts[i], texts[i + 1]) for i in range(len(texts) - 1))
    else:

        def compare(a: Any, *rest: Any) -> bool:  # type: ignore[misc]
            if len(rest) == 1 and not ci:  # the usual call: two arguments, no list, no generator
                return test(text_of(name, a), text_of(name, rest[0]))
            texts = [text_of(name, x) for x in (a, *rest)]
            if ci:
                texts = [t.casefold() for t in texts]
            return all(test(texts[i], texts[i + 1]) for i in range(len(texts) - 1))

    compare.__doc__ = f"Compare {plural}{' ignoring case' if ci else ''} ({name})."
    compare.__name__ = name
    compare.__module__ = text_of.__module__  # listed with the module that registers it (reference)
    return compare
