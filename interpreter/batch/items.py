"""One batch item: call the task with the input's arguments and describe what happened.

A record is ``{"index", "input", "status", "result", "error", "usage", "seconds"}``:
status ``COMPLETE`` or ``FAILED`` (an error, or a FAILED TaskResult/LoopResult), the
result as JSON data, the error as ``{type, message, location}``, and the model usage
the item caused (``calls``, ``input_tokens``, ``output_tokens``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..conversion import check_unfolded
from ..datatypes import Keyword, sym
from ..errors import SchemeError
from ..evaluator import Closure, Interrupted
from ..tasks.compose.sequence import error_info, failed_status, failure_info
from .json_result import to_json
from .metric import score

if TYPE_CHECKING:
    from ..facade import Facade

ItemRecord = dict[str, Any]


@dataclass
class Meter:
    """Model usage of one item; the gateway charges the meter of the calling context.
    A call answered from the cache counts as a cache hit, not a call; ``retries`` counts
    the attempts after the first of the calls made."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hits: int = 0
    retries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, input_tokens: int, output_tokens: int, cached: bool = False, attempts: int = 1) -> None:
        with self.lock:
            if cached:
                self.cache_hits += 1
                return
            self.calls += 1
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
            self.retries += max(attempts - 1, 0)

    def figures(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
        }


def task_procedure(interp: Facade, task: str) -> Any:
    """The procedure bound to ``task``, else the task of that name (an error names similar ones)."""
    proc = interp.global_env.vars.get(sym(task))
    return proc if proc is not None else interp.tasks.procedure(task)


def arguments(interp: Facade, proc: Any, given: Mapping[str, Any]) -> list[Any]:
    """A JSON object of arguments by name: a procedure's in the order of its parameters
    (``max_len`` or ``max-len`` for ``max-len``), a task's as ``#:name value`` pairs."""
    if type(proc) is Closure and proc.rest is None:
        by_name = {str(k).replace("_", "-"): v for k, v in given.items()}
        names = [p.name for p in proc.params]
        unknown = sorted(set(by_name) - set(names))
        missing = [n for n in names if n not in by_name]
        if unknown or missing:
            problem = f"unknown {', '.join(unknown)}" if unknown else f"missing {', '.join(missing)}"
            raise SchemeError(f"{proc.name}: arguments ({' '.join(names)}): {problem}", kind="arity-error")
        return [interp.converter.to_scheme(by_name[n]) for n in names]
    flat: list[Any] = []
    for key, value in given.items():
        flat += [Keyword.intern(str(key)), interp.converter.to_scheme(value)]
    return flat


def run_item(
    interp: Facade,
    task: str,
    index: int,
    given: Any,
    call: Callable[[Any, list[Any], Meter], Any],
    metric: Any = None,
) -> ItemRecord:
    """Run one item with ``call(proc, args, meter)`` (which charges the item's meter) and
    describe it; with a ``metric`` procedure (:mod:`.metric`), score what it returned."""
    start = time.monotonic()
    meter = Meter()
    took: float | None = None
    record: ItemRecord = {"index": index, "input": given, "status": "COMPLETE", "result": None, "error": None}
    if metric is not None:
        record["metric"] = None
    try:
        if not isinstance(given, Mapping):
            raise SchemeError(f"batch input {index}: expected a JSON object of arguments by name", kind="type-error")
        proc = task_procedure(interp, task)
        value = call(proc, arguments(interp, proc, given), meter)
        record["result"] = jsonable(interp, value)
        failure = failed_result_error(value)
        if failure is not None:
            record["status"], record["error"] = "FAILED", failure
        took = time.monotonic() - start  # the item's time leaves the metric out
        if metric is not None:
            record["metric"], problem = score(interp, metric, given, value, call, meter)
            if problem is not None:
                record["metric_error"] = problem
    except SchemeError as err:
        if isinstance(err, Interrupted):  # Ctrl-C or a cancelled batch: no record, the batch stops
            raise

        record["status"], record["error"] = "FAILED", error_info(err)
    record["usage"] = meter.figures()
    record["seconds"] = round(took if took is not None else time.monotonic() - start, 6)
    return record


def failed_result_error(value: Any) -> dict[str, Any] | None:
    """``{type, message}`` when ``value`` is a FAILED result record, else None."""
    return failure_info(value) if failed_status(value) else None


def jsonable(interp: Facade, value: Any) -> Any:
    """``value`` as JSON data, faithfully and without ever failing (:mod:`.json_result`); a value
    that written out as a tree would be too large is refused (resource-exhaustion: the item fails)."""
    check_unfolded(value, "result")  # shared parts written at each use: refused before expanding
    return to_json(value)
