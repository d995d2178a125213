"""The task records: validated, JSON-serialisable pydantic models shared by Python and the DSL.

Every record prints readably in the REPL (``scheme_repr``) and is read from the DSL
with ``(get record 'field …)`` (see :mod:`.access`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from ..errors import HINTS
from ..printer import display_string, write_string
from .placeholders import normal_name, placeholders
from .values import to_python, to_scheme

Status = Literal["COMPLETE", "CONTINUATION", "WAITING", "FAILED"]
TaskType = Literal["atomic", "script", "sequential", "director_evaluator_loop", "procedure"]
Inherit = Literal["full", "none", "subset"]
AccumulationFormat = Literal["notes_only", "full_output"]
Fresh = Literal["enabled", "disabled"]

#: Longest string shown inside a printed record before it is cut with "…".
PRINT_WIDTH = 200


class SchemeRecord(BaseModel):
    """Base of every record: prints as ``#<kind field: value …>`` in the DSL."""

    # Validators are built on first use, not at import: start-up stays fast.
    model_config = ConfigDict(defer_build=True)

    def scheme_repr(self, write: bool) -> str:
        parts = [f"#<{record_kind(type(self))}"]
        for name, value in self.fields().items():
            if value is None:
                continue
            text = write_string(to_scheme(value))
            if len(text) > PRINT_WIDTH:
                text = text[: PRINT_WIDTH - 1] + "…"
            parts.append(f"{name.replace('_', '-')}: {text}")
        return " ".join(parts) + ">"

    def fields(self) -> dict[str, Any]:
        """Field name to value, declared fields first, then any extra ones."""
        out = {name: getattr(self, name) for name in type(self).model_fields}
        out.update(self.model_extra or {})
        return out


def record_kind(cls: type) -> str:
    """``TaskResult`` → ``task-result``: the name a record prints under."""
    out = []
    for i, ch in enumerate(cls.__name__):
        if ch.isupper() and i:
            out.append("-")
        out.append(ch.lower())
    return "".join(out)


# -- results -----------------------------------------------------------------------
class TaskResult(SchemeRecord):
    """What a task returns: its content, a status, and notes (model, usage, script output …).

    ``content`` is text, or the parsed data of a task with a ``(schema …)``."""

    content: Any
    status: Status = "COMPLETE"
    notes: dict[str, Any] = Field(default_factory=dict)


def _result_for_text(expected: str) -> str:
    """The hint of a type error that got a TaskResult where text was wanted."""
    return "; a TaskResult is not a string: use its text with (get result 'content)" if "string" in expected else ""


HINTS[TaskResult] = _result_for_text


class ScriptOutput(SchemeRecord):
    """The part of a script run kept in an evaluation's notes."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


class EvaluationDetails(SchemeRecord):
    """Structured feedback from an evaluator; other keys are kept too."""

    model_config = ConfigDict(extra="allow")

    metrics: dict[str, float] = Field(default_factory=dict)
    violations: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)


class EvaluationNotes(SchemeRecord):
    """The notes of an :class:`EvaluationResult`; other keys are kept too."""

    model_config = ConfigDict(extra="allow")

    success: bool
    feedback: str = ""
    details: EvaluationDetails | None = None
    script_output: ScriptOutput | None = None


class EvaluationResult(TaskResult):
    """A task result saying whether something passed, with feedback."""

    notes: EvaluationNotes  # type: ignore[assignment]


class ScriptTaskResult(TaskResult):
    """What a script task returns (seed 004's ScriptTaskResult): ``content`` is its standard
    output, with ``stdout``, ``stderr`` and ``exit_code`` beside it (and the run in ``notes``)."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


class ScriptResult(SchemeRecord):
    """One run of an external command."""

    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool = False
    duration_s: float = 0.0
    truncated: bool = False

    def output(self) -> ScriptOutput:
        return ScriptOutput(stdout=self.stdout, stderr=self.stderr, exit_code=self.exit_code)


# -- context management ------------------------------------------------------------
class ContextManagement(SchemeRecord):
    """How a task call's environment relates to its caller's.

    ``subset`` lists the names copied into the task's frame when ``inherit_context``
    is ``subset``.
    """

    inherit_context: Inherit = "full"
    accumulate_data: bool = False
    accumulation_format: AccumulationFormat = "notes_only"
    fresh_context: Fresh = "disabled"
    subset: list[str] = Field(default_factory=list)
    #: Longest output a history keeps; a longer one is cut with a ``…[truncated K chars]`` marker
    #: (the full text stays in the trace).
    max_stored_chars: int = Field(default=100_000, ge=1)
    #: Seed 004's ``warningThreshold``: a task warns (a trace event and a line on the terminal)
    #: when it crosses this fraction of its ``max-turns``, ``max-context`` or ``timeout``.
    warning_threshold: float | None = Field(default=None, gt=0, le=1)

    @model_validator(mode="after")
    def _consistent(self) -> ContextManagement:
        if self.inherit_context == "full" and self.fresh_context == "enabled":
            raise ValueError("inherit_context 'full' cannot be combined with fresh_context 'enabled'")
        if self.subset and self.inherit_context != "subset":
            raise ValueError(f"names to copy (subset) need inherit_context 'subset', not '{self.inherit_context}'")
        return self


#: Context-management defaults by task type (and by subtype for loop components).
CONTEXT_DEFAULTS: dict[str, dict[str, Any]] = {
    "atomic": {"inherit_context": "full", "accumulate_data": False, "fresh_context": "disabled"},
    "sequential": {"inherit_context": "full", "accumulate_data": True, "fresh_context": "disabled"},
    "script": {"inherit_context": "full", "accumulate_data": False, "fresh_context": "disabled"},
    "director_evaluator_loop": {"inherit_context": "none", "accumulate_data": True, "fresh_context": "enabled"},
    "procedure": {"inherit_context": "full", "accumulate_data": False, "fresh_context": "disabled"},
    "director": {"inherit_context": "full", "accumulate_data": False, "fresh_context": "disabled"},
    "evaluator": {"inherit_context": "full", "accumulate_data": False, "fresh_context": "disabled"},
}


def context_for(
    task_type: str, subtype: str | None = None, overrides: dict[str, Any] | None = None
) -> ContextManagement:
    """The default context management of a task type, overridden field by field."""
    key = subtype if subtype in ("director", "evaluator") else task_type
    settings = {"accumulation_format": "notes_only", **CONTEXT_DEFAULTS.get(key, {}), **(overrides or {})}
    return ContextManagement(**settings)


# -- limits and definitions --------------------------------------------------------
class Limits(SchemeRecord):
    """Resource limits for model calls: turns (calls), context tokens, seconds per call."""

    max_turns: int | None = Field(default=None, ge=0)
    max_context: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)


class RetryPolicy(SchemeRecord):
    """How a model call that fails transiently is retried: up to ``retries`` more times,
    waiting ``backoff`` seconds before the first retry and twice as long before each
    next one (at most ``max_backoff``), each wait shortened at random by up to half (jitter)."""

    retries: int = Field(default=0, ge=0, le=100)
    backoff: float = Field(default=1.0, ge=0)
    max_backoff: float = Field(default=60.0, ge=0)

    def delay(self, retry: int, draw: float) -> float:
        """Seconds to wait before retry number ``retry`` (1, 2 …); ``draw`` is uniform in [0, 1)."""
        full = min(self.max_backoff, self.backoff * 2 ** (retry - 1))
        return full * (0.5 + draw / 2)


class TaskParam(SchemeRecord):
    """A parameter: its name, what it is (an XML ``<input>``'s text) and, when optional, its default value."""

    name: str
    required: bool = True
    default: Any = None
    description: str = ""

    @field_serializer("default")
    def _json_default(self, value: Any) -> Any:
        return to_python(value, "default")


class ScriptSpec(SchemeRecord):
    """How a script task runs its command (the command template is the definition's body)."""

    timeout: float | None = Field(default=None, gt=0)
    input: str | None = None
    shell: bool = False
    cwd: str | None = None
    #: The parameter whose value, when given, is the command (an XML script step's ``command`` input).
    command_param: str | None = None
    #: The command when neither that parameter nor the definition gives one (``load-task-templates #:script``).
    fallback: str | None = None


class TaskDefinition(SchemeRecord):
    """A named task. ``body`` is the prompt template (atomic), the command template
    (script) or the source text of the body (procedure)."""

    name: str = Field(min_length=1)
    type: TaskType
    subtype: str | None = None
    params: list[TaskParam] = Field(default_factory=list)
    description: str = ""
    criteria: str = ""
    model: str | None = None
    system: str | None = None
    context_management: ContextManagement | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    body: str | None = None
    limits: Limits = Field(default_factory=Limits)
    script: ScriptSpec | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    retry: RetryPolicy | None = None
    cache: bool | None = None
    #: Stream the model's text as it arrives (None: as the interpreter says).
    stream: bool | None = None
    #: Templates of files (paths) or URLs sent with an atomic task's prompt.
    attachments: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _default_context(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("context_management") is None:
            data = {**data, "context_management": context_for(str(data.get("type")), data.get("subtype"))}
        return data

    @model_validator(mode="after")
    def _complete(self) -> TaskDefinition:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError("duplicate parameter name")
        seen_optional = False
        for p in self.params:
            if p.required and seen_optional:
                raise ValueError(f"required parameter {p.name} follows an optional one")
            seen_optional = seen_optional or not p.required
        finds_command = self.type == "script" and self.script is not None and self.script.command_param is not None
        if self.type in ("atomic", "script") and not self.body and not finds_command:
            what = "prompt" if self.type == "atomic" else "command"
            raise ValueError(f"an {self.type} task needs a {what}")
        self._check_templates(names)
        return self

    def _check_templates(self, names: list[str]) -> None:
        """Every ``{{name}}`` in a prompt, system text or command must be a parameter."""
        known = {normal_name(n) for n in names}
        templates = {"system": self.system}
        if self.type in ("atomic", "script"):
            templates["prompt" if self.type == "atomic" else "script"] = self.body
        if self.script is not None:
            templates["script input"] = self.script.input
        for index, attachment in enumerate(self.attachments):
            templates[f"attachment {index + 1}"] = attachment
        for where, text in templates.items():
            for name in placeholders(text or ""):
                if normal_name(name) not in known:
                    listed = ", ".join(names) or "none"
                    raise ValueError(
                        f"{{{{{name}}}}} in the {where} of task {self.name} is not a parameter (parameters: {listed})"
                    )

    @property
    def context(self) -> ContextManagement:
        assert self.context_management is not None
        return self.context_management


# -- the error taxonomy -----------------------------------------------------------
class Metrics(SchemeRecord):
    """How much of a resource was used against its limit."""

    used: int | float
    limit: int | float


class ResourceExhaustion(SchemeRecord):
    """A limit was passed: model turns, context tokens, output or time."""

    type: Literal["RESOURCE_EXHAUSTION"] = "RESOURCE_EXHAUSTION"
    resource: Literal["turns", "context", "output", "time"]
    message: str
    metrics: Metrics


class InvalidOutput(SchemeRecord):
    """A model or task produced output of the wrong shape."""

    type: Literal["INVALID_OUTPUT"] = "INVALID_OUTPUT"
    message: str
    violations: list[str] = Field(default_factory=list)


class ValidationFailure(SchemeRecord):
    """A definition or value failed validation; ``path`` says where."""

    type: Literal["VALIDATION_ERROR"] = "VALIDATION_ERROR"
    message: str
    path: str = ""


class XmlParseFailure(SchemeRecord):
    """Text that should have been XML could not be parsed."""

    type: Literal["XML_PARSE_ERROR"] = "XML_PARSE_ERROR"
    message: str
    location: str = ""


class TaskFailure(SchemeRecord):
    """A task could not complete: unknown model, missing command, failed backend …"""

    type: Literal["TASK_FAILURE"] = "TASK_FAILURE"
    reason: str
    message: str
    partial_results: list[Any] = Field(default_factory=list)
    notes: dict[str, Any] = Field(default_factory=dict)


ErrorRecord = ResourceExhaustion | InvalidOutput | ValidationFailure | XmlParseFailure | TaskFailure

#: Error records by their type name.
ERROR_RECORDS: dict[str, type[SchemeRecord]] = {
    "RESOURCE_EXHAUSTION": ResourceExhaustion,
    "INVALID_OUTPUT": InvalidOutput,
    "VALIDATION_ERROR": ValidationFailure,
    "XML_PARSE_ERROR": XmlParseFailure,
    "TASK_FAILURE": TaskFailure,
}


def prompt_text(value: Any) -> str:
    """How a value reads in a prompt: a task result as its content, anything else displayed."""
    return value.content if isinstance(value, TaskResult) else display_string(value)
