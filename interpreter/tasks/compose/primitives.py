"""Composition primitives: ``record-with``, ``structured-answer``; the quality gate
(stdlib/lazy/quality.scm) loaded on first use; ``run-script`` traced."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pydantic

from ...datatypes import MString, sym
from ...errors import SchemeError, type_error
from ...forms.syntax import autoload_names
from ...primitives.registry import installer, make_primitive, primitive
from ...printer import display_string
from .. import primitives as _tasks  # noqa: F401 - its installer (run-script) must run before this module's
from ..errors import from_validation
from ..records import SchemeRecord, TaskResult
from ..values import key_name, to_python, to_scheme

if TYPE_CHECKING:
    from ..library import TaskHost

QUALITY = "lazy/quality.scm"
QUALITY_NAMES = ["quality-gate"]


@primitive("record-with")
def record_with(record: Any, *fields: Any) -> SchemeRecord:
    """``(record-with r 'status "ESCALATE" …)``: a validated copy of a record with fields replaced."""
    if not isinstance(record, SchemeRecord):
        raise type_error("record-with", "a task record", record)
    if len(fields) % 2:
        raise SchemeError("record-with: expected field value pairs after the record", kind="arity-error")
    data = record.model_dump()
    known = {name.replace("_", "-"): name for name in data}
    for key, value in zip(fields[::2], fields[1::2]):
        name = known.get(key_name(key).replace("_", "-"))
        if name is None:
            raise SchemeError(
                f"record-with: no field {key_name(key)} in the record (fields: {', '.join(known)})", kind="value-error"
            )
        data[name] = to_python(value, "record-with")
    try:
        return type(record).model_validate(data)
    except pydantic.ValidationError as exc:
        raise from_validation(exc, "record-with") from None


@primitive("structured-answer")
def structured_answer(answer: Any) -> Any:
    """An answer as data: JSON text (fenced or not) or a task result's JSON content becomes an
    association list; association lists, hash tables and records are returned as they are."""
    if isinstance(answer, TaskResult):
        if "success" in answer.notes or not answer.content.strip():
            return answer
        answer = answer.content
    if isinstance(answer, (str, MString)):
        from ..evaluation import find_json  # json loads on first use

        try:
            return to_scheme(find_json(str(answer)))
        except ValueError:
            text = str(answer)
            raise SchemeError(
                f"structured-answer: not JSON: {text[:77] + '...' if len(text) > 80 else text!r}", kind="value-error"
            ) from None
    return answer


@installer
def install(interp: TaskHost) -> None:
    """The lazily loaded quality gate, and script events for ``run-script``."""
    autoload_names(interp.analyzer.macros, QUALITY, QUALITY_NAMES)
    _trace_run_script(interp)


def _trace_run_script(interp: TaskHost) -> None:
    """Wrap the ``run-script`` primitive so each run is a ``script`` event."""
    original = interp.global_env.vars.get(sym("run-script"))
    if original is None:
        return
    run = original.fn
    hub = interp.events

    def run_script(command: Any, *options: Any) -> Any:
        if not hub.active:
            return run(command, *options)
        start = hub.open("script", display_string(command))
        try:
            result = run(command, *options)
        except SchemeError as err:
            hub.finish("script", display_string(command), start, "error", error=err)
            raise
        hub.finish("script", display_string(command), start, f"exit {result.exit_code}", info=hub.script_info(result))
        return result

    wrapped = make_primitive("run-script", run)
    wrapped.fn = run_script
    interp.global_env.vars[sym("run-script")] = wrapped
