"""Composition forms: ``sequential``, ``sequential/strict``, ``director-evaluator-loop``, ``with-evaluation``.

The clauses are parsed here, once; each phase is an ordinary expression analysed in
a :class:`Scope` holding the names the phase sees (``previous-outputs``; the loop's
``current-iteration``, ``solution``, ``evaluation`` …; the inputs) inside the scope
where the form is written, so variables resolve lexically, as everywhere in Scheme,
and the nodes bind them in matching frames at run time. A form's ``(context …)``
governs only the data passed on implicitly (see :func:`context_frame`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pydantic

from ...analyzer import Analyzer, Scope, elements, list_items, special_form, syntax_error
from ...datatypes import Pair, Span, Symbol
from ...nodes.core import Node
from ...printer import write_string
from ..names import LOOP_CLAUSES
from ..records import ContextManagement, context_for
from .nodes import (
    PREVIOUS_OUTPUTS,
    ContextFrame,
    DirectorEvaluatorLoop,
    LoopClauses,
    Sequential,
    WithEvaluation,
)

Items = list[tuple[Any, Span | None]]

CONTEXT_FIELDS = {
    "inherit": "inherit_context",
    "accumulate": "accumulate_data",
    "format": "accumulation_format",
    "fresh": "fresh_context",
    "max-stored-chars": "max_stored_chars",
}


# -- shared clause parsing ---------------------------------------------------------------
def clause_name(an: Analyzer, item: Any, scope: Scope | None, names: Iterable[str]) -> str | None:
    """The clause ``item`` is, if its head is one of ``names`` and not a local variable."""
    if type(item) is not Pair or type(item.car) is not Symbol or item.car.name not in names:
        return None
    return item.car.name if an.resolve(item.car, scope) is None else None


def parse_context(item: Pair, span: Span | None, task_type: str, who: str) -> tuple[ContextManagement, list[Symbol]]:
    """``(context (inherit …) (accumulate …) (format …) (fresh …) (subset name …))`` over the type's defaults."""
    settings: dict[str, Any] = {}
    subset: list[Symbol] = []
    for setting, setting_span in list_items(item)[1:]:
        if type(setting) is not Pair or type(setting.car) is not Symbol:
            raise syntax_error(f"{who}: expected (context (setting value) ...)", setting_span)
        key = setting.car.name
        parts = list_items(setting)
        if key == "subset":
            names = [x for x, _ in parts[1:]]
            if not all(type(x) is Symbol for x in names):
                raise syntax_error(f"{who}: (subset name ...) lists names", setting_span)
            subset = names
            settings["subset"] = [x.name for x in names]
        elif key in CONTEXT_FIELDS:
            if len(parts) != 2:
                raise syntax_error(f"{who}: expected ({key} value)", setting_span)
            value = parts[1][0]
            settings[CONTEXT_FIELDS[key]] = value.name.replace("-", "_") if type(value) is Symbol else value
        elif key == "warning-threshold":
            raise syntax_error(
                f"{who}: (warning-threshold …) belongs in a define-task's (context …): it watches that task's limits",
                setting_span,
            )
        else:
            known = ", ".join([*CONTEXT_FIELDS, "subset"])
            raise syntax_error(f"{who}: unknown context setting {key} (settings: {known})", setting_span)
    try:
        return context_for(task_type, None, settings), subset
    except pydantic.ValidationError as exc:
        problem = exc.errors()[0]
        message = str(problem["msg"]).removeprefix("Value error, ")
        where = ".".join(str(p) for p in problem["loc"])
        raise syntax_error(f"{who}: context: {where + ': ' if where else ''}{message}", span) from None


def context_frame(
    an: Analyzer,
    scope: Scope | None,
    context: ContextManagement,
    inputs: list[tuple[Symbol, Node]],
    subset: list[Symbol],
    span: Span | None,
    who: str,
) -> tuple[ContextFrame, Scope]:
    """The base frame of a form's phases: its inputs, inside the enclosing scope.

    Lexical scope always holds: the phases see every variable in scope where the form is
    written. ``inherit_context`` governs only what is passed on implicitly (to a called
    task that inherits its caller's frame): everything under ``full``, the listed names
    under ``subset`` (their values when the form starts), nothing under ``none``."""
    names = [n for n, _ in inputs]
    if len(set(names)) != len(names):
        raise syntax_error(f"{who}: an input is named twice", span)
    passed = (
        [(name, an.variable(name, scope, span)) for name in subset] if context.inherit_context == "subset" else []
    )
    base = Scope(dict.fromkeys(names, False), scope)
    frame = ContextFrame(list(inputs), context.inherit_context, passed, an.interp.global_env)
    return frame, base


def label_of(scope: Scope | None, default: str) -> str:
    return scope.procedure if scope is not None and scope.procedure else default


# -- sequential ------------------------------------------------------------------------
@special_form("sequential", "sequential/strict")
def sequential(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    """``(sequential [(context …)] (step name expr …) | expr …)``."""
    who = form.car.name
    items = list_items(form)
    context: ContextManagement | None = None
    subset: list[Symbol] = []
    raw_steps: list[tuple[str, Items, Span | None]] = []
    for item, span in items[1:]:
        if clause_name(an, item, scope, ("context",)):
            if context is not None:
                raise syntax_error(f"{who}: duplicate (context …) clause", span)
            context, subset = parse_context(item, span, "sequential", who)
        elif clause_name(an, item, scope, ("step",)):
            parts = list_items(item)
            if len(parts) < 3 or type(parts[1][0]) not in (Symbol, str):
                raise syntax_error(f"{who}: a step is (step name expr ...)", span)
            name = parts[1][0].name if type(parts[1][0]) is Symbol else parts[1][0]
            raw_steps.append((name, parts[2:], span))
        else:
            raw_steps.append((str(len(raw_steps) + 1), [(item, span)], span))
    if not raw_steps:
        raise syntax_error(f"{who}: expected at least one step", form.span)
    names = [n for n, _, _ in raw_steps]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise syntax_error(f"{who}: two steps are named {duplicate}", form.span)
    context = context or context_for("sequential")
    frame, base = context_frame(an, scope, context, [], subset, form.span, who)
    inner = Scope({PREVIOUS_OUTPUTS: False}, base)
    steps = [(name, an.sequence(body, inner, span), span) for name, body, span in raw_steps]
    label = label_of(scope, who)
    return Sequential(steps, context, frame, who.endswith("/strict"), an.interp, label, form.span)


# -- director-evaluator-loop -------------------------------------------------------------
@special_form("director-evaluator-loop")
def director_evaluator_loop(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    from .loop import DIRECTOR_NAMES, EVALUATION_NAMES, PREVIOUS_RESULTS, SOLUTION_NAMES  # loaded on use

    who = "director-evaluator-loop"
    clauses: dict[str, tuple[Pair, Span | None]] = {}
    for item, span in list_items(form)[1:]:
        name = clause_name(an, item, scope, LOOP_CLAUSES)
        if name is None:
            listed = ", ".join(f"({c} …)" for c in LOOP_CLAUSES)
            raise syntax_error(f"{who}: unknown clause {write_string(item)[:40]} (clauses: {listed})", span)
        if name in clauses:
            raise syntax_error(f"{who}: duplicate ({name} …) clause", span)
        clauses[name] = (item, span)
    for required in ("director", "evaluator"):
        if required not in clauses:
            raise syntax_error(f"{who}: a ({required} expr) clause is required", form.span)
    context, subset = (
        parse_context(*clauses["context"], "director_evaluator_loop", who)
        if "context" in clauses
        else (context_for("director_evaluator_loop"), [])
    )
    inputs = _inputs(an, clauses.get("inputs"), scope, who)
    frame, base = context_frame(an, scope, context, inputs, subset, form.span, who)
    reserved = set(DIRECTOR_NAMES + SOLUTION_NAMES + EVALUATION_NAMES)
    clash = [n.name for n in base.vars if n in reserved]
    if clash:
        raise syntax_error(f"{who}: the input {clash[0]} would hide the loop's own binding of that name", form.span)
    director_scope = Scope(dict.fromkeys(DIRECTOR_NAMES, False), base)
    solution_scope = Scope(dict.fromkeys(SOLUTION_NAMES, False), director_scope)
    evaluation_scope = Scope(dict.fromkeys(EVALUATION_NAMES, False), solution_scope)
    loop = LoopClauses(
        director=_phase(an, clauses["director"], director_scope, who),
        evaluator=_phase(an, clauses["evaluator"], solution_scope, who),
        spans={name: span for name, (_, span) in clauses.items()},
    )
    if "max-iterations" in clauses:
        loop.max_iterations = _single(an, clauses["max-iterations"], scope, who)
    if "termination-condition" in clauses:
        loop.termination = _phase(an, clauses["termination-condition"], evaluation_scope, who)
    if "script-execution" in clauses:
        loop.script_command, loop.script_timeout = _script(an, clauses["script-execution"], solution_scope, who)
    loop.uses_previous = mentions([clauses[c][0] for c in clauses], PREVIOUS_RESULTS)
    return DirectorEvaluatorLoop(loop, context, frame, an.interp, label_of(scope, who), form.span)


def mentions(forms: Iterable[Any], name: Symbol) -> bool:
    """Whether the symbol ``name`` occurs anywhere in ``forms``."""
    stack = list(forms)
    while stack:
        x = stack.pop()
        if x is name:
            return True
        if type(x) is Pair:
            stack += [x.car, x.cdr]
    return False


def _inputs(
    an: Analyzer, clause: tuple[Pair, Span | None] | None, scope: Scope | None, who: str
) -> list[tuple[Symbol, Node]]:
    """``(inputs (name expr) … name …)``: each expression analysed where the loop is written."""
    if clause is None:
        return []
    out = []
    for spec, span in list_items(clause[0])[1:]:
        if type(spec) is Symbol:
            out.append((spec, an.variable(spec, scope, span)))
            continue
        parts = list(elements(spec)) if type(spec) is Pair else []
        if len(parts) != 2 or type(parts[0][0]) is not Symbol:
            raise syntax_error(f"{who}: each input is (name expr) or a name", span)
        out.append((parts[0][0], an.analyze(parts[1][0], scope, parts[1][1])))
    return out


def _phase(an: Analyzer, clause: tuple[Pair, Span | None], scope: Scope, who: str) -> Node:
    item, span = clause
    body = list_items(item)[1:]
    if not body:
        raise syntax_error(f"{who}: ({item.car.name} expr ...) needs an expression", span)
    return an.sequence(body, scope, span)


def _single(an: Analyzer, clause: tuple[Pair, Span | None], scope: Scope | None, who: str) -> Node:
    item, span = clause
    parts = list_items(item)
    if len(parts) != 2:
        raise syntax_error(f"{who}: expected ({item.car.name} value)", span)
    return an.analyze(parts[1][0], scope, parts[1][1])


def _script(an: Analyzer, clause: tuple[Pair, Span | None], scope: Scope, who: str) -> tuple[Node, Node | None]:
    """``(script-execution command [(timeout seconds)])``; the command sees the solution frame."""
    item, span = clause
    parts = list_items(item)
    if len(parts) < 2:
        raise syntax_error(f'{who}: expected (script-execution "command" [(timeout seconds)])', span)
    command = an.analyze(parts[1][0], scope, parts[1][1])
    timeout = None
    for option, option_span in parts[2:]:
        if clause_name(an, option, scope, ("timeout",)) is None:
            raise syntax_error(
                f"{who}: unknown script-execution option {write_string(option)[:40]} (options: (timeout …))",
                option_span,
            )
        timeout = _single(an, (option, option_span), scope, who)
    return command, timeout


# -- with-evaluation ---------------------------------------------------------------------
@special_form("with-evaluation")
def with_evaluation(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    """``(with-evaluation expr [(max-rounds n)])``: ``expr`` sees ``last-evaluator-output``."""
    from .loop import LAST_EVALUATOR_OUTPUT  # the task runtime loads when a program uses it

    who = "with-evaluation"
    items = list_items(form)
    if len(items) not in (2, 3):
        raise syntax_error(f"{who}: expected (with-evaluation expr [(max-rounds n)])", form.span)
    max_rounds = None
    if len(items) == 3:
        if clause_name(an, items[2][0], scope, ("max-rounds",)) is None:
            raise syntax_error(f"{who}: expected (max-rounds n) after the expression", items[2][1])
        max_rounds = _single(an, items[2], scope, who)
    inner = Scope({LAST_EVALUATOR_OUTPUT: False}, scope)
    body = an.analyze(items[1][0], inner, items[1][1])
    return WithEvaluation(body, max_rounds, an.interp, form.span)
