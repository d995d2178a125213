"""The datums XML templates become: lists that remember where in the XML they come from,
names in the DSL's spelling, context clauses, and the prompts of seed-style components."""

from __future__ import annotations

from typing import Any

from ..datatypes import NIL, Pair, Span, Symbol, cons
from .templates import normal_name, placeholders
from .xml_parse import Element

S = Symbol.intern


def kebab(name: str) -> str:
    return name.strip().replace("_", "-")


def span_of(element: Element, filename: str) -> Span:
    return Span(filename, element.line, element.col)


def at(span: Span, *items: Any) -> Any:
    """A list whose pairs remember ``span`` (so errors in generated code point into the XML)."""
    result: Any = NIL
    for item in reversed(items):
        result = cons(item, result, span)
    return result


def relocate(datum: Any, element: Element, filename: str) -> Any:
    """Point the spans of a datum read from an attribute or text at its XML element."""
    stack = [datum]
    while stack:
        x = stack.pop()
        if type(x) is Pair:
            if x.span is not None:
                x.span = Span(filename, element.line + x.span.line - 1, element.col if x.span.line == 1 else x.span.col)
            stack += [x.car, x.cdr]
    return datum


def context_clause(settings: dict[str, Any], span: Span) -> Any:
    """``(context (inherit …) …)`` for the settings given in XML, or None."""
    names = {
        "inherit_context": "inherit",
        "accumulate_data": "accumulate",
        "accumulation_format": "format",
        "fresh_context": "fresh",
        "max_stored_chars": "max-stored-chars",
    }
    items = []
    for key, value in settings.items():
        shown = value if isinstance(value, (bool, int)) else S(kebab(str(value)))
        items.append(at(span, S(names[key]), shown))
    return at(span, S("context"), *items) if items else None


def described_prompt(description: str, params: list[str]) -> str:
    """The prompt of a seed-style component, which has a ``<description>`` and ``<inputs>`` but no
    ``<instructions>``: the description, then each input it does not mention, labelled, so that
    the model sees the solution it evaluates and the feedback it revises by."""
    used = {normal_name(name) for name in placeholders(description)}
    rest = [p for p in params if normal_name(p) not in used]
    return description + "".join(f"\n\n{normal_name(p)}:\n{{{{{p}}}}}" for p in rest)


def _written(datum: Any) -> str:
    from ..printer import write_string

    return write_string(datum)
