"""Structured output: JSON schemas given to a task, and model answers checked against them.

A schema is JSON text, llm's concise form (``"name, age int, bio: a short bio"``), or
Scheme data (an association list or hash table) standing for the JSON object.
Answers are parsed as JSON (a surrounding Markdown code fence is allowed) and
validated with ``jsonschema``; an answer that does not match is a TASK_FAILURE
giving the reason.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ...datatypes import MString
from ..errors import task_failure, validation_error
from ..values import to_python
from .providers import llm_package

FENCE = "```"


def unfenced(text: str) -> str:
    """The body of an answer that is one fenced block (```json, lines, ```), else the text.

    One pass over the text: the regex it replaces backtracked for minutes on a fence
    followed by a few thousand newlines."""
    inner = text.strip()
    if len(inner) < 2 * len(FENCE) or not (inner.startswith(FENCE) and inner.endswith(FENCE)):
        return text
    tag, newline, rest = inner[len(FENCE) : -len(FENCE)].partition("\n")
    body, last, tail = rest.rpartition("\n")
    if not newline or not last or tail.strip() or not (tag.strip().isalpha() or not tag.strip()):
        return text
    return body


def schema_from(value: Any, who: str) -> dict[str, Any]:
    """``value`` (JSON text, llm's concise schema text, or Scheme data) as a checked JSON schema."""
    # start-up laziness: jsonschema took 4 s on the loaded 2-core machine (rfc3987_syntax builds a Lark grammar)
    from jsonschema import Draft202012Validator, SchemaError

    if isinstance(value, str | MString):
        text = str(value)
        try:
            schema = json.loads(text)
        except json.JSONDecodeError:
            schema = _concise(text, who)
    else:
        schema = to_python(value, who)
    if not isinstance(schema, dict):
        raise validation_error(f"{who}: a schema must be a JSON object, got {json.dumps(schema)[:60]}", "schema")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise validation_error(f"{who}: not a valid JSON schema: {exc.message}", "schema") from None
    return schema


def _concise(text: str, who: str) -> dict[str, Any]:
    try:
        return llm_package().schema_dsl(text)
    except Exception as exc:
        raise validation_error(f"{who}: schema is neither JSON nor llm's concise form: {exc}", "schema") from None


def structured(text: str, schema: dict[str, Any], who: str) -> Any:
    """The data in a model's answer ``text``, checked against ``schema``."""
    from jsonschema import Draft202012Validator  # start-up laziness, as in schema_from

    body = unfenced(text)
    shown = text if len(text) <= 200 else text[:200] + "…"
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise task_failure("schema_mismatch", f"{who}: the answer is not JSON ({exc.msg}): {shown}") from None
    except ValueError:  # Python reads no integer longer than sys.get_int_max_str_digits()
        limit = f"{sys.get_int_max_str_digits():,}"
        reason = f"it holds an integer of more than {limit} digits"
        raise task_failure("schema_mismatch", f"{who}: the answer cannot be read as JSON ({reason}): {shown}") from None
    except RecursionError:
        reason = "it is nested too deeply"
        raise task_failure("schema_mismatch", f"{who}: the answer cannot be read as JSON ({reason}): {shown}") from None
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "the answer"
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise task_failure(
            "schema_mismatch", f"{who}: the answer does not match the schema: {where}: {first.message}{more}"
        )
    return data
