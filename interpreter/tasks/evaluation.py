"""Reading an evaluator's verdict: JSON ``{"success": bool, "feedback": str, "details": {…}}``.

The JSON may be fenced (```json … ```) or surrounded by prose; anything else is
INVALID_OUTPUT with the violations found.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

import pydantic

from .errors import invalid_output
from .placeholders import normal_name, placeholders
from .records import EvaluationNotes, ScriptOutput

FENCE = "```"

#: The script run of the loop iteration whose evaluator phase is under way (None elsewhere). Seed
#: 001: the Evaluator step "receives the complete environment"; an LLM evaluator called there
#: sees the script's result in its prompt. A context variable: each parallel branch has its own.
EVALUATED_SCRIPT: ContextVar[ScriptOutput | None] = ContextVar("evaluated_script", default=None)
#: The names under which a loop binds the script's result (a template that places one places it itself).
SCRIPT_NAMES = frozenset(("script_output", "script_stdout", "script_stderr", "script_exit_code"))


def with_script_result(template: str, prompt: str, arguments: dict[str, Any]) -> str:
    """An evaluator's rendered ``prompt``, with the script result of the iteration it evaluates
    under a heading, unless there is none or the evaluator places it itself: its ``template``
    names one of :data:`SCRIPT_NAMES`, or one of its ``arguments`` is the script's output."""
    script = EVALUATED_SCRIPT.get()
    if script is None or {normal_name(n) for n in placeholders(template)} & SCRIPT_NAMES:
        return prompt
    streams = {text for text in (script.stdout, script.stderr) if text}
    for value in arguments.values():
        if (isinstance(value, str) and value in streams) or getattr(value, "stdout", None) == script.stdout:
            return prompt
    return (
        f"{prompt}\n\nScript result (script_exit_code: {script.exit_code}):\n"
        f"script_stdout:\n{script.stdout or '(empty)'}\nscript_stderr:\n{script.stderr or '(empty)'}"
    )


def fenced_blocks(text: str) -> list[str]:
    """The bodies of the ```…``` blocks in ``text`` (a leading ``json`` tag dropped), found
    in one pass: a backtracking regex took seconds on a fence followed by spaces."""
    blocks = []
    start = text.find(FENCE)
    while start >= 0:
        end = text.find(FENCE, start + len(FENCE))
        if end < 0:
            break
        body = text[start + len(FENCE) : end]
        blocks.append(body.removeprefix("json").strip())
        start = text.find(FENCE, end + len(FENCE))
    return blocks


def find_json(text: str) -> Any:
    """The first JSON value in ``text``: the whole text, a fenced block, or the outermost {…}."""
    candidates = [text.strip()]
    candidates += fenced_blocks(text)
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        candidates.append(text[first : last + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise ValueError("the output is not JSON")


def flat_verdict(data: dict[str, Any]) -> dict[str, Any]:
    """The verdict fields of an evaluator's answer, flat (``{"success", "feedback", "details"}``)
    or in the seeds' nested shape (``{"content", "status", "notes": {"success", …}}``)."""
    notes = data.get("notes")
    if "success" not in data and isinstance(notes, dict) and "success" in notes:
        return notes
    return data


def parse_verdict(task: str, text: str) -> EvaluationNotes:
    """The evaluation notes in an evaluator task's output."""
    try:
        data = find_json(text)
    except ValueError as exc:
        raise invalid_output(f"task {task}: evaluator output is not JSON: {_short(text)}", [str(exc)]) from None
    if not isinstance(data, dict):
        raise invalid_output(f"task {task}: evaluator output must be a JSON object", ["expected a JSON object"])
    data = flat_verdict(data)
    violations = verdict_violations(data)
    if violations:
        raise invalid_output(f"task {task}: evaluator output is invalid: {'; '.join(violations)}", violations)
    try:
        return EvaluationNotes(**data)
    except pydantic.ValidationError as exc:
        found = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise invalid_output(f"task {task}: evaluator output is invalid: {'; '.join(found)}", found) from None


def _short(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


def verdict_violations(data: dict[str, Any]) -> list[str]:
    """What is wrong with an evaluator's answer fields (``success`` bool, ``feedback`` str)."""
    violations = []
    if not isinstance(data.get("success"), bool):
        violations.append("success must be true or false" if "success" in data else "success is missing")
    if "feedback" in data and not isinstance(data["feedback"], str):
        violations.append("feedback must be a string")
    return violations
