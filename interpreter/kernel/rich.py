"""How a cell's value looks in a notebook: ``text/plain`` as ``write`` prints it (the REPL's
summary), and for a TaskResult or LoopResult also an HTML table: status, content, and the
iteration history with each evaluation's feedback in an expandable ``<details>``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape
from typing import Any

from pydantic import BaseModel

from ..repl.describe import summary
from ..tasks.compose.loop import LoopIteration, LoopResult
from ..tasks.observe.trace_html import html_report
from ..tasks.observe.trace_tree import build_runs
from ..tasks.records import TaskResult

#: Text longer than this is cut in a table cell (the full value stays in text/plain).
CELL_CHARS = 2000
STYLE = "border-collapse:collapse;text-align:left"
#: Every table cell's own style: front ends' stylesheets (JupyterLab right-aligns ``td``) win over
#: what a cell would inherit from its table, so the cell says it.
CELL_STYLE = "text-align:left;vertical-align:top"
PRE_STYLE = "margin:0;padding:0;background:none;text-align:left;white-space:pre-wrap"
#: The height of the inline trace viewer.
TRACE_HEIGHT = "560px"


def mime_bundle(value: Any) -> dict[str, str]:
    """The ``data`` of an ``execute_result`` for ``value``."""
    data = {"text/plain": summary(value)}
    if isinstance(value, LoopResult):
        data["text/html"] = loop_html(value)
    elif isinstance(value, TaskResult):
        data["text/html"] = task_html(value)
    return data


def text(value: Any) -> str:
    """A value for a table cell: strings as they are, anything else as ``write`` prints it."""
    shown = value if isinstance(value, str) else summary(value)
    return shown if len(shown) <= CELL_CHARS else shown[: CELL_CHARS - 1] + "…"


def pre(value: Any) -> str:
    return f'<pre style="{PRE_STYLE}">{escape(text(value))}</pre>'


def rows(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"<tr>{th(escape(key))}{td(cell)}</tr>" for key, cell in pairs)


def th(inner: str) -> str:
    return f'<th style="{CELL_STYLE}">{inner}</th>'


def td(inner: str) -> str:
    return f'<td style="{CELL_STYLE}">{inner}</td>'


def status_cell(status: str) -> str:
    colour = {"COMPLETE": "green", "FAILED": "crimson"}.get(status, "darkorange")
    return f'<b style="color:{colour}">{escape(status)}</b>'


def task_html(result: TaskResult) -> str:
    pairs = [("status", status_cell(result.status)), ("content", pre(result.content))]
    notes = result.notes if isinstance(result.notes, dict) else result.notes.model_dump(exclude_none=True)
    feedback = notes.get("feedback")
    if feedback:
        pairs.append(("feedback", pre(feedback)))
    pairs.extend(
        (label(key), pre(note_text(key, value)))
        for key, value in notes.items()
        if key != "feedback" and value not in (None, "", {}, [])
    )
    return table(type(result).__name__, pairs)


def label(key: str) -> str:
    """A note's name as a reader wants it: ``duration_s`` → ``duration``, ``last_turn_at`` → ``last turn at``."""
    return key.removesuffix("_s").replace("_", " ")


def note_text(key: str, value: Any) -> str:
    """A note as a reader wants it: durations in ms or s, times (``…_at``, ``…_time``, ``timestamp``)
    as UTC dates, yes/no, a task result as its status and the start of its content, a record as
    ``name value`` pairs (a nested one in parentheses), a list one element a line; else as JSON."""
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_none=True)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float) and (key.endswith("_s") or key == "seconds"):
        return f"{value * 1000:.3g} ms" if value < 1 else f"{value:.2f} s"
    if isinstance(value, int | float) and value > 0 and (key.endswith(("_at", "_time")) or key == "timestamp"):
        return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    if isinstance(value, dict):
        if "status" in value and "content" in value:  # a task result
            content = text(value["content"]).replace("\n", " ")
            return f"{value['status']}: {content[:80]}{'…' if len(content) > 80 else ''}"
        return ", ".join(
            f"{label(k)} ({note_text(k, v)})" if isinstance(v, dict | BaseModel) else f"{label(k)} {note_text(k, v)}"
            for k, v in value.items()
            if v not in (None, "", {}, [])
        )
    if isinstance(value, list):
        return "\n".join(note_text("", item) for item in value)
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def table(caption: str, pairs: list[tuple[str, str]]) -> str:
    return f'<table class="taskscheme-result" style="{STYLE}"><caption>{caption}</caption>{rows(pairs)}</table>'


def loop_html(result: LoopResult) -> str:
    content = result.final_output.content if result.final_output is not None else None
    pairs = [
        ("status", status_cell(result.status) + f" ({escape(result.stop_reason)})"),
        ("success", "yes" if result.success else "no"),
        ("iterations", str(result.iterations_completed)),
        ("content", pre(content)),
    ]
    if result.final_evaluation is not None and result.final_evaluation.notes.feedback:
        pairs.append(("feedback", pre(result.final_evaluation.notes.feedback)))
    if result.error is not None:
        where = f" (iteration {result.error.iteration}, {result.error.phase})"
        pairs.append(("error", pre(f"{result.error.type}: {result.error.message}{where}")))
    history = history_html(result.iteration_history)
    return table("LoopResult", pairs) + history


def history_html(history: list[LoopIteration]) -> str:
    """The iterations, oldest first, folded into a ``<details>`` the reader opens."""
    if not history:
        return ""
    head = "<tr>" + "".join(th(name) for name in ("#", "output", "success", "feedback")) + "</tr>"
    body = "".join(iteration_row(entry) for entry in history)
    return (
        f"<details><summary>iteration history ({len(history)})</summary>"
        f'<table class="taskscheme-history" style="{STYLE}">{head}{body}</table></details>'
    )


def iteration_row(entry: LoopIteration) -> str:
    output = entry.output.content if entry.output is not None else None
    evaluation = entry.evaluation
    success = "" if evaluation is None else ("yes" if evaluation.notes.success else "no")
    feedback = "" if evaluation is None else evaluation.notes.feedback
    return "<tr>" + "".join(td(cell) for cell in (str(entry.iteration), pre(output), success, pre(feedback))) + "</tr>"


def trace_bundle(events: list[dict[str, Any]], title: str) -> dict[str, str]:
    """A cell's trace as ``taskscheme trace --html`` draws it, inline: the report in an iframe
    (its script and style stay apart from the notebook's), and a count in text/plain."""
    runs = build_runs(events)
    spans = sum(1 for event in events if event.get("kind") != "run")
    document = html_report(runs, title=title)
    frame = (
        f'<iframe class="taskscheme-trace" title="{escape(title)} trace" srcdoc="{escape(document, quote=True)}" '
        f'style="width:100%;height:{TRACE_HEIGHT};border:1px solid #ccc"></iframe>'
    )
    return {"text/html": frame, "text/plain": f"trace of {title}: {spans} events"}
