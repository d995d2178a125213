"""AST nodes of the task forms: ``define-task`` and ``define-model``.

The analyzer parses clauses once (:class:`TaskSpec`); the node builds and validates
the :class:`TaskDefinition` each time it runs, so a bad definition is a catchable
VALIDATION_ERROR pointing at the form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pydantic

from ..datatypes import VOID, Procedure, Span, Symbol
from ..env import Env
from ..errors import SchemeError, type_error
from ..nodes.core import Lambda, Node
from .context import DslBody
from .errors import from_validation
from .records import ContextManagement, Limits, ScriptSpec, TaskDefinition, TaskParam, context_for

if TYPE_CHECKING:
    from .library import TaskHost


@dataclass
class TaskSpec:
    """What the clauses of one ``define-task`` say, before validation."""

    name: str
    params: list[str] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)
    script: dict[str, Any] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)
    #: Model-call settings: ``options``, ``output_schema``, ``retry``, ``cache``.
    model: dict[str, Any] = field(default_factory=lambda: {"options": {}})
    subset: tuple[Symbol, ...] = ()
    type: str = "procedure"
    source: str = ""

    @property
    def inherit(self) -> str:
        return str(self.context.get("inherit_context", "full"))


def validated(who: str, prefix: str, build: Callable[[], Any]) -> Any:
    """``build()``, with a pydantic failure turned into a VALIDATION_ERROR whose path starts at ``prefix``."""
    try:
        return build()
    except pydantic.ValidationError as exc:
        err = from_validation(exc, who if not prefix else f"{who}: {prefix}")
        if prefix:
            record = err.record
            record.path = f"{prefix}.{record.path}" if record.path else prefix  # type: ignore[attr-defined]
        raise err from None


def build_definition(spec: TaskSpec, params: list[TaskParam]) -> TaskDefinition:
    """Validate a spec into a :class:`TaskDefinition`."""
    who = f"define-task {spec.name}"
    subtype = spec.fields.get("subtype")
    context: ContextManagement = validated(
        who, "context_management", lambda: context_for(spec.type, subtype, spec.context)
    )
    limits: Limits = validated(who, "limits", lambda: Limits(**spec.limits))
    script = validated(who, "script", lambda: ScriptSpec(**spec.script)) if spec.type == "script" else None
    body = {"atomic": spec.fields.get("prompt"), "script": spec.fields.get("script")}.get(spec.type, spec.source)
    return validated(
        who,
        "",
        lambda: TaskDefinition(
            name=spec.name,
            type=spec.type,
            subtype=subtype,
            params=params,
            description=spec.fields.get("description", ""),
            criteria=spec.fields.get("criteria", ""),
            model=spec.fields.get("model"),
            system=spec.fields.get("system"),
            context_management=context,
            body=body,
            limits=limits,
            script=script,
            **spec.model,
        ),
    )


class DefineTask(Node):
    """Registers a task (replacing one of the same name, like ``define``)."""

    __slots__ = ("defaults", "interp", "lambda_node", "spec", "top_level")

    def __init__(
        self,
        spec: TaskSpec,
        defaults: list[Node | None],
        lambda_node: Lambda | None,
        interp: TaskHost,
        span: Span | None,
        top_level: bool = False,
    ) -> None:
        self.spec, self.defaults, self.lambda_node, self.interp, self.span = spec, defaults, lambda_node, interp, span
        self.top_level = top_level

    def compile(self, tail: bool) -> Callable[[Env], Any]:
        spec, interp, span = self.spec, self.interp, self.span
        place = str(span) if span is not None else None
        checked = self.top_level  # a file's top level defines each task once; a procedure may redefine
        defaults = [d.compile(False) if d is not None else None for d in self.defaults]
        make_closure = self.lambda_node.compile(False) if self.lambda_node is not None else None

        def define_task(env: Env) -> Any:
            try:
                params = [
                    TaskParam(name=name, required=d is None, default=d(env) if d is not None else None)
                    for name, d in zip(spec.params, defaults)
                ]
                definition = build_definition(spec, params)
                body = None
                if make_closure is not None:
                    closure = make_closure(interp.global_env)
                    body = DslBody(spec.name, closure, spec.subset, spec.inherit)
                if checked and interp.loading:
                    remedy = "a file defines each task once: rename one of them; the REPL replaces with a note"
                    interp.tasks.check_redefinition(spec.name, place, "define-task", remedy)
                interp.tasks.register(definition, body, replace=True, place=place)
            except SchemeError as err:
                if err.span is None:
                    err.span = span
                raise
            return VOID

        return define_task


class DefineModel(Node):
    """Registers a DSL procedure as a model under a name."""

    __slots__ = ("interp", "name", "value")

    def __init__(self, name: str, value: Node, interp: TaskHost, span: Span | None) -> None:
        self.name, self.value, self.interp, self.span = name, value, interp, span

    def compile(self, tail: bool) -> Callable[[Env], Any]:
        name, interp, span = self.name, self.interp, self.span
        value = self.value.compile(False)

        def define_model(env: Env) -> Any:
            proc = value(env)
            if not isinstance(proc, Procedure):
                err = type_error(f"define-model {name}", "a procedure (lambda (prompt system) ...)", proc)
                err.span = span
                raise err
            interp.tasks.models.register(name, proc)
            return VOID

        return define_model
