"""``taskscheme trace RUN.jsonl --format chrome``: the Chrome trace-event format (JSON object
form), which Perfetto (ui.perfetto.dev) and ``chrome://tracing`` open. One process per run,
one thread per lane (:mod:`.trace_layout`: parallel branches on threads of their own), a
complete (``X``) event per span with its status, usage, error and details as ``args``."""

from __future__ import annotations

from typing import Any

from .trace_layout import layout
from .trace_tree import Node


def chrome_trace(runs: list[tuple[str, list[Node]]]) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    for pid, (run_id, roots) in enumerate(runs, 1):
        top = next((root.event for root in roots if root.event.get("kind") == "run"), None)
        label = f"run {top.get('name')}" if top else f"run {run_id[:12]}"
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": label}})
        lanes: set[int] = set()
        for span in layout(roots):
            event = span.event
            lanes.add(span.lane)
            args: dict[str, Any] = {"status": event.get("status"), "id": event.get("id")}
            for key in ("usage", "error", "info"):
                if event.get(key):
                    args[key] = event[key]
            events.append(
                {
                    "ph": "X",
                    "name": f"{event.get('kind')} {event.get('name')}",
                    "cat": str(event.get("kind")),
                    "pid": pid,
                    "tid": span.lane,
                    "ts": round(span.node.start * 1e6, 3),
                    "dur": round(max(span.end - span.start, 0.0) * 1e6, 3),
                    "args": args,
                }
            )
        for lane in sorted(lanes):
            name = "main" if lane == min(lanes) else f"lane {lane}"
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": lane, "args": {"name": name}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}
