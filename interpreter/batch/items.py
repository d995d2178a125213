"""One batch item: call the task with the input's arguments and describe what happened.

A record is ``{"index", "input", "status", "result", "error", "usage", "seconds"}``:
status ``COMPLETE`` or ``FAILED`` (an error, or a FAILED TaskResult/LoopResult), the
result as JSON data, the error as ``{type, message, location}``, and the model usage
the item caused (``calls``, ``input_tokens``, ``output_tokens``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..datatypes import Keyword, Symbol, sym
from ..errors import SchemeError

if TYPE_CHECKING:
    from ..interpreter import Interpreter

ItemRecord = dict[str, Any]


@dataclass
class Meter:
    """Model usage of one item; the gateway charges the meter of the calling context."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, input_tokens: int, output_tokens: int) -> None:
        with self.lock:
            self.calls += 1
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens

    def figures(self) -> dict[str, int]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


def task_procedure(interp: Interpreter, task: str) -> Any:
    """The procedure bound to ``task``, else the task of that name (an error names similar ones)."""
    proc = interp.global_env.vars.get(sym(task))
    return proc if proc is not None else interp.tasks.procedure(task)


def arguments(interp: Interpreter, proc: Any, given: Mapping[str, Any]) -> list[Any]:
    """A JSON object of arguments by name: a procedure's in the order of its parameters
    (``max_len`` or ``max-len`` for ``max-len``), a task's as ``#:name value`` pairs."""
    from ..evaluator import Closure

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
    interp: Interpreter, task: str, index: int, given: Any, call: Callable[[Any, list[Any]], Any]
) -> ItemRecord:
    """Run one item with ``call(proc, args)`` (which charges the item's meter) and describe it."""
    start = time.monotonic()
    meter = Meter()
    record: ItemRecord = {"index": index, "input": given, "status": "COMPLETE", "result": None, "error": None}
    try:
        if not isinstance(given, Mapping):
            raise SchemeError(f"batch input {index}: expected a JSON object of arguments by name", kind="type-error")
        proc = task_procedure(interp, task)
        value = call(proc, arguments(interp, proc, given), meter)
        record["result"] = jsonable(interp, value)
        failure = failed_result_error(value)
        if failure is not None:
            record["status"], record["error"] = "FAILED", failure
    except SchemeError as err:
        from ..evaluator import Interrupted
        from ..tasks.sequence import error_info

        if isinstance(err, Interrupted):  # Ctrl-C or a cancelled batch: no record, the batch stops
            raise

        record["status"], record["error"] = "FAILED", error_info(err)
    record["usage"] = meter.figures()
    record["seconds"] = round(time.monotonic() - start, 6)
    return record


def failed_result_error(value: Any) -> dict[str, Any] | None:
    """``{type, message}`` when ``value`` is a FAILED result record, else None."""
    from ..tasks.sequence import failed_status, failure_info

    return failure_info(value) if failed_status(value) else None


def jsonable(interp: Interpreter, value: Any) -> Any:
    """``value`` as JSON data: records as their fields, symbols as names, anything else written."""
    from ..conversion import check_unfolded

    data = interp.converter.to_python(value)
    check_unfolded(data, "result")  # shared parts stay shared in Python; JSON writes each use
    return json.loads(json.dumps(data, default=_json_default))


def _json_default(x: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(x, BaseModel):
        return x.model_dump(mode="json")
    if isinstance(x, (Symbol, Keyword)):
        return x.name
    if isinstance(x, (set, frozenset)):
        return sorted(x, key=str)
    from ..printer import write_string

    return write_string(x)
