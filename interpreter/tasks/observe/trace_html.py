"""``taskscheme trace RUN.jsonl --html report.html``: one self-contained HTML file (its
styles, script and data inline, a content security policy that forbids any network use)
showing each run as

- a timeline: one bar per span (model calls, scripts, steps, iterations, parallel
  branches in lanes side by side, :mod:`.trace_layout`), coloured by kind;
- a collapsible tree of the spans, each row with its status, duration and tokens;
- the selected span's details: duration, tokens, status, error, and (unless the trace
  was redacted) prompt, system text, response, feedback and script output;
- per loop, a table with a row per iteration: success, score and feedback.

Data reach the page as JSON inside the document; the script writes every text with
``textContent``, so a prompt holding markup stays text.
"""

from __future__ import annotations

import html
import json
from typing import Any

from .trace_html_assets import SCRIPT, STYLE
from .trace_layout import layout
from .trace_tree import Node

#: Keys of an event copied into the page (the rest of ``info`` goes as it is).
SPAN_KEYS = ("kind", "name", "status", "usage", "error", "info")


def run_data(run_id: str, roots: list[Node]) -> dict[str, Any]:
    """One run as the page's script reads it: its spans in depth-first order, with places."""
    spans = []
    for span in layout(roots):
        event = span.event
        item: dict[str, Any] = {key: event.get(key) for key in SPAN_KEYS if event.get(key) not in (None, {}, "")}
        item.update(
            parent=span.parent,
            children=span.children,
            lane=span.lane,
            depth=span.depth,
            start=round(span.start, 6),
            end=round(span.end, 6),
        )
        spans.append(item)
    top = next((root.event for root in roots if root.event.get("kind") == "run"), None)
    title = f"run {top.get('name')}" if top else f"run {run_id[:12]}"
    return {"id": run_id, "title": title, "spans": spans}


def html_report(runs: list[tuple[str, list[Node]]], title: str = "trace") -> str:
    """The whole report as one HTML document."""
    data = json.dumps([run_data(run_id, roots) for run_id, roots in runs], default=str, ensure_ascii=False)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return TEMPLATE.format(title=html.escape(title), style=STYLE, script=SCRIPT, data=data)


TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · taskscheme trace</title>
<style>{style}</style>
</head>
<body>
<header><h1>{title}</h1><select id="runs" aria-label="run"></select><div id="summary"></div></header>
<section id="timeline-box"><div id="axis"></div><div id="timeline"></div></section>
<main>
  <section id="tree-box"><h2>Spans</h2><div id="tree" role="tree"></div></section>
  <section id="details-box"><h2>Details</h2><div id="details">Click a span.</div></section>
</main>
<section id="loops-box"><h2>Loops</h2><div id="loops"></div></section>
<script type="application/json" id="trace-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
