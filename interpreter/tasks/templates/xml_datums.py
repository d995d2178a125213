"""The datums XML templates become: lists that remember where in the XML they come from,
names in the DSL's spelling, context clauses, and the prompts of seed-style components."""

from __future__ import annotations

from typing import Any

from ...datatypes import NIL, Pair, Span, Symbol, cons
from ...printer import write_string
from ..placeholders import normal_name, placeholders
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


def described_prompt(text: str, params: list[str], described: dict[str, str] | None = None) -> str:
    """The prompt of a template or component: its ``<instructions>`` (or, for the seeds'
    components, its ``<description>``), then each input the text does not place, as a labelled
    section (its description beside its name), so that every input reaches the model: the
    solution an evaluator judges, the feedback a director revises by, the code to analyze."""
    used = {normal_name(name) for name in placeholders(text)}
    rest = [p for p in params if normal_name(p) not in used]
    described = described or {}

    def label(p: str) -> str:
        return f"{normal_name(p)} ({described[p]})" if described.get(p) else normal_name(p)

    return text + "".join(f"\n\n{label(p)}:\n{{{{{p}}}}}" for p in rest)


def _written(datum: Any) -> str:
    return write_string(datum)
