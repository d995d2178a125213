"""Choosing an evaluator for an evaluation request by associative matching.

Among the library's tasks with subtype ``"evaluator"``, the one whose ``criteria``
and ``description`` share the most words with the request's criteria wins
(case-insensitive; common words do not count; ties go to the first registered).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...datatypes import MString, Pair, Symbol
from ...errors import SchemeError
from ..errors import validation_error
from ..records import TaskDefinition

WORD = re.compile(r"[a-z0-9]+")
#: Words too common to say anything about what an evaluator checks.
STOP_WORDS = frozenset(
    "a an and are as at be by for from in into is it its of on or the this that to with".split()  # noqa: SIM905
)


def words(text: str) -> set[str]:
    """The meaningful lower-case words of ``text``."""
    return {w for w in WORD.findall(text.lower()) if w not in STOP_WORDS}


def criteria_words(criteria: Any) -> set[str]:
    """The words of a request's criteria: a string, or a list of words or phrases."""
    if isinstance(criteria, (str, MString, Symbol)):
        return words(criteria.name if isinstance(criteria, Symbol) else str(criteria))
    if isinstance(criteria, (list, tuple, Pair)):
        out: set[str] = set()
        for item in criteria:
            out |= criteria_words(item)
        return out
    raise validation_error(
        "evaluation request: criteria must be a string or a list of words", "notes.evaluation_request.criteria"
    )


def score(definition: TaskDefinition, wanted: set[str]) -> int:
    """How many of the wanted words a task's criteria and description mention."""
    return len(wanted & words(f"{definition.criteria} {definition.description}"))


def select_evaluator(definitions: Iterable[TaskDefinition], criteria: Any) -> TaskDefinition:
    """The best-matching evaluator; none matching is an error listing the evaluators there are."""
    wanted = criteria_words(criteria)
    evaluators = [d for d in definitions if d.subtype == "evaluator"]
    best: TaskDefinition | None = None
    best_score = 0
    for definition in evaluators:
        points = score(definition, wanted)
        if points > best_score:
            best, best_score = definition, points
    if best is None:
        listed = ", ".join(f"{d.name} ({d.criteria or d.description or 'no criteria'})" for d in evaluators)
        shown = " ".join(sorted(wanted)) or "nothing"
        raise SchemeError(
            f"with-evaluation: no evaluator matches the criteria {shown!r} (evaluators: {listed or 'none'})",
            kind="value-error",
            details={"criteria": sorted(wanted), "evaluators": [d.name for d in evaluators]},
        )
    return best
