"""Task forms: ``define-task`` and ``define-model``.

``(define-task (name param … (param default) …) clause … body …)`` where clauses
are ``description``, ``system``, ``model``, ``prompt``, ``script``, ``subtype``,
``criteria``, ``context``, ``max-turns``, ``max-context``, ``timeout``, and for model
calls ``options``, ``schema``, ``retries``, ``cache``, ``attachments`` and ``stream`` (docs/models.md). A
``prompt`` makes an atomic task, a ``script`` a script task, other body forms a
procedure task whose value is its last form.
"""

from __future__ import annotations

from typing import Any

from ..analyzer import Analyzer, Scope, elements, list_items, special_form, syntax_error
from ..datatypes import NIL, S_QUOTE, Pair, Span, Symbol, list_end
from ..errors import SchemeError
from ..forms.core import make_lambda
from ..nodes.core import Lambda, Node
from ..printer import write_string
from .compose.forms import CONTEXT_FIELDS
from .models.schemas import schema_from
from .names import TASK_CLAUSES as CLAUSES
from .nodes import DefineModel, DefineTask, TaskSpec
from .records import CONTEXT_DEFAULTS

TEXT_CLAUSES = {"description", "system", "prompt", "criteria"}
NAME_CLAUSES = {"model", "subtype"}
LIMIT_CLAUSES = {"max-turns": "max_turns", "max-context": "max_context", "timeout": "timeout"}
SCRIPT_OPTIONS = ("timeout", "input", "shell", "cwd")


@special_form("define-task")
def define_task(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3 or type(items[1][0]) is not Pair or type(items[1][0].car) is not Symbol:
        raise syntax_error("define-task: expected (define-task (name param ...) clause-or-body ...)", form.span)
    header = items[1][0]
    name = header.car.name
    who = f"define-task {name}"
    spec = TaskSpec(name)
    defaults: list[Node | None] = []
    for param, span in list(elements(header))[1:]:
        param_name, default = _param(param, span, who)
        spec.params.append(param_name)
        defaults.append(an.analyze(default[0], scope, default[1]) if default is not None else None)
    if list_end(header, "define-task") is not NIL:
        raise syntax_error(f"{who}: rest parameters are not supported", form.span)
    body: list[tuple[Any, Span | None]] = []
    seen: set[str] = set()
    for item, span in items[2:]:
        clause = _clause_name(an, item, scope)
        if clause is None:
            body.append((item, span))
            continue
        if clause in seen:
            raise syntax_error(f"{who}: duplicate ({clause} …) clause", span)
        seen.add(clause)
        _parse_clause(spec, clause, item, span, who)
    lambda_node = _task_type(an, spec, body, scope, form.span, who)
    return DefineTask(spec, defaults, lambda_node, an.interp, form.span, top_level=scope is None)


def _param(param: Any, span: Span | None, who: str) -> tuple[str, tuple[Any, Span | None] | None]:
    if type(param) is Symbol:
        return param.name, None
    parts = list(elements(param)) if type(param) is Pair else []
    if len(parts) != 2 or type(parts[0][0]) is not Symbol:
        raise syntax_error(f"{who}: a parameter is a name or (name default), got {write_string(param)}", span)
    return parts[0][0].name, parts[1]


def _clause_name(an: Analyzer, item: Any, scope: Scope | None) -> str | None:
    if type(item) is not Pair or type(item.car) is not Symbol or item.car.name not in CLAUSES:
        return None
    return item.car.name if an.resolve(item.car, scope) is None else None


def _one(item: Pair, span: Span | None, who: str) -> Any:
    parts = list_items(item)
    if len(parts) != 2:
        raise syntax_error(f"{who}: expected ({item.car.name} value)", span)
    return parts[1][0]


def _parse_clause(spec: TaskSpec, clause: str, item: Pair, span: Span | None, who: str) -> None:
    if clause in TEXT_CLAUSES or clause in NAME_CLAUSES:
        value = _one(item, span, who)
        if clause in NAME_CLAUSES and type(value) is Symbol:
            value = value.name
        if not isinstance(value, str):
            raise syntax_error(f"{who}: ({clause} …) takes a string, got {write_string(value)}", span)
        spec.fields[clause] = value
    elif clause in LIMIT_CLAUSES:
        spec.limits[LIMIT_CLAUSES[clause]] = _one(item, span, who)
    elif clause == "script":
        _parse_script(spec, item, span, who)
    elif clause in MODEL_CLAUSES:
        MODEL_CLAUSES[clause](spec, item, span, who)
    else:
        _parse_context(spec, item, span, who)


def _parse_script(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    parts = list_items(item)
    if len(parts) < 2 or not isinstance(parts[1][0], str):
        raise syntax_error(f'{who}: expected (script "command" (option value) ...)', span)
    spec.fields["script"] = parts[1][0]
    for option, option_span in parts[2:]:
        if type(option) is not Pair or type(option.car) is not Symbol or option.car.name not in SCRIPT_OPTIONS:
            known = ", ".join(f"({o} …)" for o in SCRIPT_OPTIONS)
            raise syntax_error(f"{who}: unknown script option {write_string(option)} (options: {known})", option_span)
        spec.script[option.car.name] = _one(option, option_span, who)


# -- model-call clauses: (options …) (schema …) (retries N (backoff S)) (cache #t) --------------
def _parse_options(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    for option, option_span in list_items(item)[1:]:
        parts = list_items(option) if type(option) is Pair else []
        if len(parts) != 2 or type(parts[0][0]) is not Symbol:
            raise syntax_error(f"{who}: expected (options (name value) ...), got {write_string(option)}", option_span)
        value = parts[1][0]
        if not isinstance(value, bool | int | float | str):
            raise syntax_error(f"{who}: option {parts[0][0].name} takes a number, string or boolean", option_span)
        spec.model["options"][parts[0][0].name.replace("-", "_")] = value


def _parse_schema(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    try:
        spec.model["output_schema"] = schema_from(_one(item, span, who), who)
    except SchemeError as err:
        raise syntax_error(err.message.removeprefix("VALIDATION_ERROR: "), span) from None


def _parse_retries(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    parts = list_items(item)
    usage = f"{who}: expected (retries N) or (retries N (backoff SECONDS))"
    if len(parts) not in (2, 3) or type(parts[1][0]) is not int or parts[1][0] < 0:
        raise syntax_error(usage, span)
    policy: dict[str, Any] = {"retries": parts[1][0]}
    if len(parts) == 3:
        backoff = parts[2][0]
        if type(backoff) is not Pair or backoff.car is not Symbol.intern("backoff"):
            raise syntax_error(usage, parts[2][1])
        seconds = _one(backoff, parts[2][1], who)
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
            raise syntax_error(f"{who}: (backoff …) takes a number of seconds, got {write_string(seconds)}", span)
        policy["backoff"] = float(seconds)
    spec.model["retry"] = policy


def _parse_cache(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    value = _one(item, span, who)
    if not isinstance(value, bool):
        raise syntax_error(f"{who}: (cache …) takes #t or #f, got {write_string(value)}", span)
    spec.model["cache"] = value


def _parse_stream(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    value = _one(item, span, who)
    if not isinstance(value, bool):
        raise syntax_error(f"{who}: (stream …) takes #t or #f, got {write_string(value)}", span)
    spec.model["stream"] = value


def _parse_attachments(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    items = [x for x, _ in list_items(item)[1:]]
    if not items or not all(isinstance(x, str) for x in items):
        raise syntax_error(f'{who}: expected (attachments "path-or-url" ...), templates like "{{{{image}}}}"', span)
    spec.model["attachments"] = items


MODEL_CLAUSES = {
    "attachments": _parse_attachments,
    "options": _parse_options,
    "schema": _parse_schema,
    "retries": _parse_retries,
    "cache": _parse_cache,
    "stream": _parse_stream,
}


def _parse_context(spec: TaskSpec, item: Pair, span: Span | None, who: str) -> None:
    for setting, setting_span in list_items(item)[1:]:
        if type(setting) is not Pair or type(setting.car) is not Symbol:
            raise syntax_error(f"{who}: expected (context (setting value) ...)", setting_span)
        key = setting.car.name
        if key == "subset":
            names = [x for x, _ in list_items(setting)[1:]]
            if not all(type(x) is Symbol for x in names):
                raise syntax_error(f"{who}: (subset name ...) lists names", setting_span)
            spec.subset = tuple(names)
            spec.context["subset"] = [x.name for x in names]
        elif key in CONTEXT_FIELDS:
            value = _one(setting, setting_span, who)
            spec.context[CONTEXT_FIELDS[key]] = value.name.replace("-", "_") if type(value) is Symbol else value
        elif key == "warning-threshold":  # seed 004: warn past this fraction of the task's limits
            spec.context["warning_threshold"] = _one(setting, setting_span, who)
        else:
            known = ", ".join([*CONTEXT_FIELDS, "subset", "warning-threshold"])
            raise syntax_error(f"{who}: unknown context setting {key} (settings: {known})", setting_span)


def _task_type(
    an: Analyzer, spec: TaskSpec, body: list[tuple[Any, Span | None]], scope: Scope | None, span: Span | None, who: str
) -> Lambda | None:
    """Decide the task's type; for a procedure task, analyse its body in the scope its context gives."""
    has_prompt, has_script = "prompt" in spec.fields, "script" in spec.fields
    if has_prompt and has_script:
        raise syntax_error(f"{who}: a task has a (prompt …) or a (script …), not both", span)
    if (has_prompt or has_script) and body:
        kind = "prompt" if has_prompt else "script"
        raise syntax_error(
            f"{who}: a task with a ({kind} …) has no other body, got {write_string(body[0][0])[:40]}", body[0][1]
        )
    if has_prompt or has_script:
        spec.type = "atomic" if has_prompt else "script"
        return None
    if not body:
        raise syntax_error(f"{who}: needs a (prompt …), a (script …) or a body", span)
    spec.type = "procedure"
    spec.source = " ".join(write_string(x) for x, _ in body)
    inherit = spec.context.get("inherit_context", CONTEXT_DEFAULTS["procedure"]["inherit_context"])
    params = tuple(Symbol.intern(p) for p in spec.params)
    copied = tuple(s for s in spec.subset if s not in params) if inherit == "subset" else ()
    names = params + copied
    if len(set(names)) != len(names):
        raise syntax_error(f"{who}: duplicate parameter name", span)
    spec.subset = copied
    spec.context.setdefault("inherit_context", inherit)
    inner = Scope(dict.fromkeys(names, False), None, spec.name, dynamic=inherit == "full")
    body_node = an.body(body, inner, span)
    defines = tuple(k for k, checked in inner.vars.items() if checked)
    return Lambda(names, None, body_node, spec.name, an.rt, defines, span)


@special_form("define-model")
def define_model(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    """``(define-model "name" procedure)`` or ``(define-model (name prompt system) body ...)``."""
    items = list_items(form)
    target = items[1][0] if len(items) > 1 else None
    if type(target) is Pair and target.car is S_QUOTE and type(target.cdr) is Pair:  # (define-model 'name proc)
        items[1] = (target.cdr.car, items[1][1])
    elif len(items) >= 3 and type(target) is Pair and type(target.car) is Symbol:
        header = items[1][0]
        node: Node = make_lambda(an, header.cdr, items[2:], scope, header.car.name, form.span)
        return DefineModel(header.car.name, node, an.interp, form.span)
    if len(items) != 3 or not isinstance(items[1][0], (str, Symbol)):
        raise syntax_error(
            'define-model: expected (define-model "name" procedure) or (define-model (name prompt system) body ...)',
            form.span,
        )
    name = items[1][0] if isinstance(items[1][0], str) else items[1][0].name
    return DefineModel(name, an.analyze(items[2][0], scope, items[2][1]), an.interp, form.span)
