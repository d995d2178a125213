"""Task primitives: the library, records, ``get``, task errors, usage and ``run-script``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pydantic

from ..capabilities import require_scripts
from ..datatypes import NIL, VOID, MString, Pair, Symbol, cons, list_to_python, make_list, sym
from ..errors import SchemeError, type_error
from ..primitives.registry import installer, primitive
from ..printer import display_string
from .access import get_path, result_field
from .arguments import check_keywords, split_keywords
from .errors import TaskError, from_validation, make_task_error
from .library import TaskProcedure
from .models.backends import TransientModelError
from .records import EvaluationResult, SchemeRecord, ScriptResult, TaskResult
from .values import key_name, to_python, to_scheme

if TYPE_CHECKING:
    from .library import TaskHost


# -- model errors ------------------------------------------------------------------
@primitive("transient-error")
def transient_error(message: Any) -> Any:
    """Raise a model error worth retrying: a DSL model's rate limit or overload (see ``(retries N)``)."""
    raise TransientModelError(display_string(message))


# -- records -----------------------------------------------------------------------
@primitive("make-task-result")
def make_task_result(content: Any, status: Any = "COMPLETE", notes: Any = None) -> TaskResult:
    """A task result: content, status (COMPLETE, CONTINUATION, WAITING or FAILED) and notes."""
    return _record(
        "make-task-result",
        lambda: TaskResult(
            content=_text("make-task-result", content),
            status=key_name(status).upper(),
            notes=to_python(notes, "make-task-result") if notes is not None else {},
        ),
    )


@primitive("make-evaluation")
def make_evaluation(success: Any, feedback: Any, details: Any = None) -> EvaluationResult:
    """An evaluation result: success (a boolean), feedback text and optional details (an alist;
    ``'()``, the empty one, and ``#f`` mean none)."""
    if type(success) is not bool:
        raise type_error("make-evaluation", "a boolean", success)
    text = _text("make-evaluation", feedback)
    notes: dict[str, Any] = {"success": success, "feedback": text}
    if details is not None and details is not False and details is not NIL:
        notes["details"] = to_python(details, "make-evaluation")
    return _record("make-evaluation", lambda: EvaluationResult(content=text, notes=notes))


def _record(who: str, build: Any) -> Any:
    try:
        return build()
    except pydantic.ValidationError as exc:
        raise from_validation(exc, who) from None


def _text(who: str, x: Any) -> str:
    if isinstance(x, (str, MString)):
        return str(x)
    raise type_error(who, "a string", x)


@primitive("task-result?")
def is_task_result(x: Any) -> bool:
    return isinstance(x, TaskResult)


@primitive("evaluation?")
def is_evaluation(x: Any) -> bool:
    return isinstance(x, EvaluationResult)


@primitive("script-result?")
def is_script_result(x: Any) -> bool:
    return isinstance(x, ScriptResult)


@primitive("record->alist")
def record_to_alist(record: Any) -> Any:
    """A record's fields as an association list (nested records stay records)."""
    if not isinstance(record, SchemeRecord):
        raise type_error("record->alist", "a task record", record)
    return make_list(cons(sym(name.replace("_", "-")), to_scheme(v)) for name, v in record.fields().items())


# -- get ---------------------------------------------------------------------------
@primitive("get")
def get(record: Any, field: Any, *more: Any) -> Any:
    """``(get record 'field …)``: follow a path of fields (kebab-case or snake_case)."""
    return get_path(record, [field, *more])


@primitive("get/default")
def get_default(record: Any, field: Any, *more: Any) -> Any:
    """``(get/default record 'field … default)``: like ``get``, with a default for a missing field."""
    if not more:
        raise SchemeError("get/default: expected (get/default record field ... default)", kind="arity-error")
    *rest, default = more
    return get_path(record, [field, *rest], default, who="get/default")


@primitive("result-field")
def result_field_(value: Any, field: Any, *more: Any) -> Any:
    """``(result-field value 'field …)``: a path as the seeds' conditions read it (``output.valid``):
    a result's JSON content or notes; anything missing is ``#f``."""
    return result_field(value, [field, *more])


# -- task errors -------------------------------------------------------------------
@primitive("task-error?")
def is_task_error(x: Any) -> bool:
    """True of the condition raised by a task error (RESOURCE_EXHAUSTION, TASK_FAILURE …)."""
    return isinstance(x, TaskError)


@primitive("task-error-type")
def task_error_type(e: Any) -> Symbol:
    """The type of a task error as a symbol, such as ``RESOURCE_EXHAUSTION``."""
    if not isinstance(e, TaskError):
        raise type_error("task-error-type", "a task error", e)
    return sym(e.error_type)


@primitive("task-error-details")
def task_error_details(e: Any) -> SchemeRecord:
    """The record of a task error (read it with ``get``)."""
    if not isinstance(e, TaskError):
        raise type_error("task-error-details", "a task error", e)
    return e.record


@primitive("make-task-error")
def make_task_error_(error_type: Any, message: Any, *fields: Any) -> TaskError:
    """``(make-task-error 'TASK_FAILURE "message" #:reason "…")``: a task error to ``raise``."""
    positional, keywords = split_keywords("make-task-error", list(fields))
    if positional:
        raise SchemeError("make-task-error: fields after the message are #:name value pairs", kind="arity-error")
    values = {k.replace("-", "_"): to_python(v, "make-task-error") for k, v in keywords.items()}
    return make_task_error(key_name(error_type), {"message": _text("make-task-error", message), **values})


# -- interpreter-bound -------------------------------------------------------------
@installer
def install(interp: TaskHost) -> None:
    """Define the primitives that need this interpreter's task library."""
    library = interp.tasks

    def name_of(who: str, x: Any) -> str:
        if isinstance(x, (Symbol, str, MString)):
            return key_name(x)
        raise type_error(who, "a task name (symbol or string)", x)

    def task_ref(name: Any) -> TaskProcedure:
        """The task ``name`` as a procedure (for ``map``, ``apply`` …)."""
        return library.procedure(name_of("task-ref", name))

    def task_names() -> Any:
        """The names of the registered tasks, as symbols."""
        return make_list(sym(n) for n in library.names())

    def describe_task(name: Any) -> Any:
        """The definition of the task ``name`` as a record."""
        return library.describe(name_of("describe-task", name))

    def is_task(x: Any) -> bool:
        return isinstance(x, TaskProcedure)

    def model_names() -> Any:
        """The names of the models defined with define-model or from Python."""
        return make_list(library.models.names())

    def usage() -> Any:
        """Model usage so far: total, by task and by model."""
        return library.usage

    def run_script_(command: Any, *options: Any) -> ScriptResult:
        """``(run-script command [#:input text] [#:timeout s] [#:cwd dir] [#:env alist] [#:shell #t])``."""
        from .scripts import MAX_OUTPUT, run_script, timeout_or_default  # subprocess loads on first use

        require_scripts(interp, "run-script")
        positional, keywords = split_keywords("run-script", list(options))
        if positional:
            raise SchemeError("run-script: options are #:name value pairs", kind="arity-error")
        opts = check_keywords("run-script", keywords, ["input", "timeout", "cwd", "env", "shell", "max-output"])
        return run_script(
            _command(command),
            input=_text("run-script", opts["input"]) if "input" in opts else None,
            timeout=timeout_or_default(_seconds(opts.get("timeout"))),
            cwd=_text("run-script", opts["cwd"]) if "cwd" in opts else None,
            env=_environment(opts.get("env")),
            shell=opts.get("shell", False) is not False,
            max_output=_count("run-script", opts.get("max_output", MAX_OUTPUT)),
            poll=interp.runtime.poll,
        )

    def rate_limit(model: Any, *options: Any) -> Any:
        """``(rate-limit "MODEL" #:requests-per-minute N #:tokens-per-minute M)``: calls to MODEL
        from now on wait their turn (shared by every branch and thread of this interpreter)."""
        positional, keywords = split_keywords("rate-limit", list(options))
        if positional:
            raise SchemeError("rate-limit: options are #:name value pairs", kind="arity-error")
        opts = check_keywords("rate-limit", keywords, ["requests-per-minute", "tokens-per-minute"])
        rates = {key: _rate(opts.get(key)) for key in ("requests_per_minute", "tokens_per_minute")}
        library.gateway.rate_limits.set(name_of("rate-limit", model), *rates.values())
        return VOID

    for name, fn in [
        ("rate-limit", rate_limit),
        ("task-ref", task_ref),
        ("task-names", task_names),
        ("describe-task", describe_task),
        ("task?", is_task),
        ("model-names", model_names),
        ("usage", usage),
        ("run-script", run_script_),
    ]:
        interp.define_primitive(name, fn)


def _command(command: Any) -> str | list[str]:
    if isinstance(command, (str, MString)):
        return str(command)
    if type(command) is Pair:
        return [display_string(x) for x in list_to_python(command)]
    raise type_error("run-script", "a command string or a list of arguments", command)


def _rate(value: Any) -> float | None:
    if value is None or value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise type_error("rate-limit", "a positive number per minute", value)
    return float(value)


def _seconds(value: Any) -> float | None:
    if value is None or value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise type_error("run-script", "a positive number of seconds for #:timeout", value)
    return float(value)


def _count(who: str, value: Any) -> int:
    if type(value) is not int or value < 0:
        raise type_error(who, "a non-negative integer for #:max-output", value)
    return value


def _environment(alist: Any) -> dict[str, str] | None:
    if alist is None or alist is False:
        return None
    data = to_python(alist, "run-script")
    if not isinstance(data, dict):
        raise type_error("run-script", "an association list for #:env", alist)
    return {key: display_string(value) if not isinstance(value, str) else value for key, value in data.items()}
