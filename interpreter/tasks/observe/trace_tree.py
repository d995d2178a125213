"""``taskscheme trace FILE.jsonl``: the runs of a trace file as indented trees.

Events are grouped by ``run_id`` and hung under their ``parent_id``; children are in
the order they started. Each line shows the kind, the name, the duration, the
status, model tokens, attempts, cache hits and the error, so a loop's iterations
and a pipeline's steps read at a glance. A model call answered at its first attempt
does not show the attempt. Events from before ids existed are listed flat.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .progress import first_line


@dataclass
class Node:
    event: dict[str, Any]
    children: list[Node] = field(default_factory=list)

    @property
    def start(self) -> float:
        return float(self.event.get("start") or 0.0)


def read_events(path: Path) -> list[dict[str, Any]]:
    """The events of a JSON-lines trace; a line that is not JSON is an error naming it."""
    events = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not a trace event: {exc.msg}") from None
        if not isinstance(event, dict) or "kind" not in event:
            raise ValueError(f"{path}:{number}: not a trace event")
        events.append(event)
    return events


def build_runs(events: list[dict[str, Any]]) -> list[tuple[str, list[Node]]]:
    """(run id, root nodes) per run, in the order runs appear; a later record of an id
    (a run's closing event) completes the earlier one."""
    merged: dict[str, dict[str, Any]] = {}
    loose: list[dict[str, Any]] = []
    for event in events:
        key = event.get("id")
        if not key:
            loose.append(event)
        elif key in merged:
            merged[key] = {**merged[key], **{k: v for k, v in event.items() if v is not None}}
            merged[key]["start"] = min(merged[key]["start"], event["start"])
        else:
            merged[key] = dict(event)
    nodes = {key: Node(event) for key, event in merged.items()}
    runs: dict[str, list[Node]] = {}
    for node in nodes.values():
        runs.setdefault(str(node.event.get("run_id") or ""), [])
    for node in nodes.values():
        parent = nodes.get(str(node.event.get("parent_id")))
        if parent is not None and parent is not node:
            parent.children.append(node)
        else:
            runs[str(node.event.get("run_id") or "")].append(node)
    for node in nodes.values():
        node.children.sort(key=lambda n: n.start)
    ordered = [(run_id, sorted(roots, key=lambda n: n.start)) for run_id, roots in runs.items()]
    ordered.sort(key=lambda item: min((n.start for n in item[1]), default=0.0))
    if loose:
        ordered.append(("", [Node(e) for e in loose]))
    return ordered


def describe(event: dict[str, Any]) -> str:
    """One line for an event: kind, name, duration, status, tokens, attempts, cache, error."""
    parts = [f"{event.get('kind')} {event.get('name')}"]
    duration = event.get("duration")
    if isinstance(duration, int | float):
        parts.append(f"{duration:.3f} s" if duration < 10 else f"{duration:.1f} s")
    parts.append(str(event.get("status")))
    usage = event.get("usage") or {}
    if "input_tokens" in usage:
        calls = f"{usage['calls']} calls, " if usage.get("calls", 1) != 1 else ""
        parts.append(f"{calls}{usage['input_tokens']}→{usage.get('output_tokens', 0)} tokens")
    info = event.get("info") or {}
    if event.get("kind") == "run" and info.get("version"):
        parts.append(f"taskscheme {info['version']}, argv: {' '.join(info.get('argv', []))}")
    if isinstance(info.get("attempts"), int) and info["attempts"] > 1:
        parts.append(f"{info['attempts']} attempts")
    if info.get("cached"):
        parts.append("cached")
    if info.get("replayed"):  # answered from a durable run's journal
        parts.append("replayed")
    if event.get("kind") == "iteration":
        if isinstance(info.get("score"), int | float):
            parts.append(f"score {info['score']:g}")
        if info.get("feedback"):
            parts.append(f"· {first_line(str(info['feedback']), 60)}")
    error = event.get("error")
    if error:
        parts.append(f"✗ {error.get('type')}: {error.get('message')}")
    return "  ".join(parts)


def folded(node: Node) -> list[Node]:
    """The children worth showing: a model call's single successful attempt is not."""
    kids = node.children
    if node.event.get("kind") == "model" and len(kids) == 1 and kids[0].event.get("status") == "ok":
        return []
    return kids


#: A loop with more iterations than this shows the first FOLD_HEAD and the last FOLD_TAIL.
FOLD_AT = 6
FOLD_HEAD, FOLD_TAIL = 2, 1


def failed_iteration(node: Node) -> bool:
    """An iteration whose evaluation did not pass, or that ended in an error."""
    event = node.event
    return event.get("status") != "success" and not (event.get("info") or {}).get("success")


def with_folds(kids: list[Node], fold: bool) -> list[Node | str]:
    """``kids``, with the middle of a long run of iterations replaced by a line saying what it held."""
    if not fold:
        return list(kids)
    out: list[Node | str] = []
    index = 0
    while index < len(kids):
        end = index
        while end < len(kids) and kids[end].event.get("kind") == "iteration":
            end += 1
        if end - index > FOLD_AT:
            hidden = kids[index + FOLD_HEAD : end - FOLD_TAIL]
            failed = sum(failed_iteration(n) for n in hidden)
            out += kids[index : index + FOLD_HEAD]
            out.append(f"… {len(hidden)} more iterations, {failed} failed")
            out += kids[end - FOLD_TAIL : end]
            index = end
        else:
            out.append(kids[index])
            index += 1
    return out


def count_below(node: Node) -> int:
    return sum(1 + count_below(child) for child in node.children)


def render(roots: list[Node], out: IO[str], depth: int | None = None, fold: bool = True) -> None:
    """The trees, ``depth`` levels deep (None: all), long loops folded unless ``fold`` is off."""

    def walk(node: Node | str, prefix: str, last: bool, top: bool, level: int) -> None:
        branch = "" if top else ("└─ " if last else "├─ ")
        if isinstance(node, str):
            out.write(f"{prefix}{branch}{node}\n")
            return
        kids = folded(node)
        cut = depth is not None and level + 1 >= depth and kids
        more = f"  (+{sum(1 + count_below(k) for k in kids)} inside)" if cut else ""
        out.write(f"{prefix}{branch}{describe(node.event)}{more}\n")
        if cut:
            return
        inner = prefix if top else prefix + ("   " if last else "│  ")
        shown = with_folds(kids, fold)
        for index, child in enumerate(shown):
            walk(child, inner, index == len(shown) - 1, False, level + 1)

    for root in roots:
        walk(root, "", True, True, 0)


def main(argv: list[str], out: IO[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="taskscheme trace",
        description="Print the runs of a trace file as trees, or write them as an HTML report or Chrome trace JSON.",
    )
    parser.add_argument("file", help="a trace written by --trace FILE.jsonl")
    parser.add_argument("--last", action="store_true", help="only the last run")
    parser.add_argument("--run", metavar="ID", help="only the run whose id starts with ID")
    parser.add_argument("--depth", type=int, metavar="N", help="show N levels of each tree (the rest counted)")
    parser.add_argument("--no-fold", action="store_true", help="show every iteration of long loops")
    parser.add_argument(
        "--html", metavar="FILE", help="write one self-contained HTML report: timeline, tree, per-span details"
    )
    parser.add_argument(
        "--format",
        choices=("text", "chrome"),
        default="text",
        help="text: trees (default); chrome: Chrome trace-event JSON (Perfetto, chrome://tracing)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write --format chrome to FILE (default: stdout)")
    opts = parser.parse_args(argv)
    out = out if out is not None else sys.stdout
    try:
        runs = build_runs(read_events(Path(opts.file)))
    except OSError as exc:
        print(f"error: trace: cannot read {opts.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: trace: {exc}", file=sys.stderr)
        return 2
    if opts.run:
        runs = [run for run in runs if run[0].startswith(opts.run)]
        if not runs:
            print(f"error: trace: no run {opts.run} in {opts.file}", file=sys.stderr)
            return 1
    if opts.last:
        runs = runs[-1:]
    if opts.html or opts.format == "chrome":
        return write_reports(runs, opts, out)
    for index, (run_id, roots) in enumerate(runs):
        if index:
            out.write("\n")
        if run_id and not any(root.event.get("kind") == "run" for root in roots):
            out.write(f"run {run_id[:12]}\n")
        render(roots, out, depth=opts.depth, fold=not opts.no_fold)
    return 0


def write_reports(runs: list[tuple[str, list[Node]]], opts: argparse.Namespace, out: IO[str]) -> int:
    """``--html FILE`` and ``--format chrome``."""
    # a circle in observe/ (its docstring): the report writers read this module's Node
    from .trace_chrome import chrome_trace
    from .trace_html import html_report

    try:
        if opts.html:
            Path(opts.html).write_text(html_report(runs, title=Path(opts.file).name), encoding="utf-8")
            print(f"trace: wrote {opts.html}", file=sys.stderr)
        if opts.format == "chrome":
            text = json.dumps(chrome_trace(runs))
            if opts.output:
                Path(opts.output).write_text(text, encoding="utf-8")
            else:
                out.write(text + "\n")
    except OSError as exc:
        print(f"error: trace: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0
