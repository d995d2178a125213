"""Arguments of task calls and keyword-taking primitives: positional values and ``#:name value`` pairs."""

from __future__ import annotations

from typing import Any

from ..datatypes import Keyword
from ..errors import SchemeError, arity_error
from ..keywords import check_keywords, normal_name, split_keywords
from .records import TaskDefinition

__all__ = ["bind_arguments", "check_keywords", "split_keywords"]  # the keyword helpers live in keywords.py


def bind_arguments(definition: TaskDefinition, args: list[Any]) -> dict[str, Any]:
    """Parameter name → value for a call of the task, defaults filled in.

    Too many arguments, a missing required one, an unknown keyword or one given
    twice is an arity error naming the task.
    """
    params = definition.params
    if len(args) == len(params) and not any(type(a) is Keyword for a in args):  # every one by position
        return {p.name: a for p, a in zip(params, args, strict=True)}
    task = definition.name
    names = [p.name for p in params]
    positional, keywords = split_keywords(f"task {task}", args)
    if len(positional) > len(params):
        raise arity_error(f"task {task}", f"at most {len(params)} argument{'s' if len(params) != 1 else ''}", len(args))
    values: dict[str, Any] = dict(zip(names, positional))
    by_normal = {normal_name(n): n for n in names}
    for key, value in keywords.items():
        name = by_normal.get(normal_name(key))
        if name is None:
            listed = ", ".join(names) or "none"
            raise SchemeError(
                f"task {task}: unknown keyword argument #:{key} (parameters: {listed})", kind="arity-error"
            )
        if name in values:
            raise SchemeError(f"task {task}: argument {name} given twice", kind="arity-error")
        values[name] = value
    for p in params:
        if p.name not in values:
            if p.required:
                what = f" ({p.description})" if p.description else ""
                raise SchemeError(f"task {task}: missing required argument {p.name}{what}", kind="arity-error")
            values[p.name] = p.default
    return {n: values[n] for n in names}
