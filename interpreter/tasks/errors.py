"""Task errors: SchemeErrors that carry an error-taxonomy record in ``details``.

``guard`` and ``with-exception-handler`` catch them like any error; the DSL reads
them with ``task-error?``, ``task-error-type`` and ``task-error-details``.
"""

from __future__ import annotations

from typing import Any

import pydantic

from ..errors import SchemeError
from ..parallel import HOOKS
from ..printer import write_string
from .records import (
    ERROR_RECORDS,
    InvalidOutput,
    Metrics,
    ResourceExhaustion,
    SchemeRecord,
    TaskFailure,
    TaskResult,
    ValidationFailure,
)

#: The ``error-object-kind`` of each task error type.
KIND_BY_TYPE = {
    "RESOURCE_EXHAUSTION": "resource-exhaustion",
    "INVALID_OUTPUT": "invalid-output",
    "VALIDATION_ERROR": "validation-error",
    "XML_PARSE_ERROR": "xml-parse-error",
    "TASK_FAILURE": "task-failure",
}


class TaskError(SchemeError):
    """A task error; ``record`` is its taxonomy record (also in ``details``)."""

    def __init__(self, record: SchemeRecord) -> None:
        error_type = record.type  # type: ignore[attr-defined]
        super().__init__(f"{error_type}: {record.message}", kind=KIND_BY_TYPE[error_type], details=record)  # type: ignore[attr-defined]

    @property
    def record(self) -> SchemeRecord:
        return self.details

    @property
    def error_type(self) -> str:
        return self.details.type

    def scheme_repr(self, write: bool) -> str:
        return f"#<task-error {self.error_type} {write_string(self.details.message)}>"


def type_and_message(err: SchemeError) -> tuple[str, str]:
    """An error's type (``TASK_FAILURE`` … for a task error, else its kind) and its message
    without that type in front, for records that keep the two apart."""
    if isinstance(err, TaskError):
        return err.error_type, err.details.message
    return err.kind, err.full_message()


def resource_exhausted(resource: str, message: str, used: float, limit: float) -> TaskError:
    text = f"{message} (used {_figure(used)}, limit {_figure(limit)})"
    return TaskError(ResourceExhaustion(resource=resource, message=text, metrics=Metrics(used=used, limit=limit)))


def invalid_output(message: str, violations: list[str]) -> TaskError:
    return TaskError(InvalidOutput(message=message, violations=violations))


def validation_error(message: str, path: str = "") -> TaskError:
    return TaskError(ValidationFailure(message=message, path=path))


def task_failure(reason: str, message: str, partial_results: list[Any] | None = None) -> TaskError:
    return TaskError(TaskFailure(reason=reason, message=message, partial_results=partial_results or []))


def make_task_error(error_type: str, fields: dict[str, Any]) -> TaskError:
    """A task error of ``error_type`` (e.g. ``TASK_FAILURE``) from record fields."""
    cls = ERROR_RECORDS.get(error_type.upper().replace("-", "_"))
    if cls is None:
        raise SchemeError(
            f"unknown task error type {error_type} (types: {', '.join(ERROR_RECORDS)})", kind="value-error"
        )
    try:
        return TaskError(cls(**fields))
    except pydantic.ValidationError as exc:
        raise from_validation(exc, error_type) from None


def from_validation(exc: pydantic.ValidationError, who: str) -> TaskError:
    """A VALIDATION_ERROR for the first problem pydantic found."""
    problem = exc.errors()[0]
    path = ".".join(str(part) for part in problem["loc"])
    message = str(problem["msg"]).removeprefix("Value error, ")
    text = f"{who}: {path}: {message}" if path else f"{who}: {message}"
    return validation_error(text, path)


def _figure(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def error_info(err: SchemeError) -> dict[str, Any]:
    """``{type, message, reason, location}`` of an error (``reason`` where its record has one, so a
    program can test why a step failed: ``(get result 'notes 'error 'reason)``)."""
    kind, message = type_and_message(err)
    info: dict[str, Any] = {"type": kind, "message": message}
    reason = getattr(getattr(err, "record", None), "reason", None)
    if isinstance(reason, str):
        info["reason"] = reason
    if err.span is not None:
        info["location"] = str(err.span)
    return info


def collected_failure(who: str, noun: str, index: int, err: SchemeError) -> TaskResult:
    """The FAILED TaskResult standing for a failed element of a parallel form under
    ``#:on-error 'collect``."""
    info = error_info(err)
    message = f"{who}: {noun} {index} failed: {info['type']}: {err.full_message()}"
    return TaskResult(content=message, status="FAILED", notes={"error": info, "index": index})


HOOKS.own_failures = (TaskError,)
HOOKS.failed_result = collected_failure
