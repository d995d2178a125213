"""AST nodes of the composition forms: sequential pipelines, director-evaluator loops, with-evaluation.

Each node compiles its phases once and, when run, makes the frames the analyzer
planned (see :mod:`interpreter.tasks.compose.forms`) and hands them to the run-time
drivers in :mod:`interpreter.tasks.compose.sequence` and :mod:`interpreter.tasks.compose.loop`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...capabilities import require_scripts
from ...datatypes import Span, Symbol
from ...env import ContextBoundary, Env
from ...errors import SchemeError
from ...nodes.core import Node, Run
from ...printer import write_string
from ..memory.store import fresh_context
from ..records import ContextManagement

if TYPE_CHECKING:
    from ..library import TaskHost

PREVIOUS_OUTPUTS = Symbol.intern("previous-outputs")
DEFAULT_MAX_ITERATIONS = 5


@dataclass
class ContextFrame:
    """How a form's base frame is made: its inputs (evaluated where the form is), as a child
    of the enclosing frame, so the phases see what is in scope where they are written.

    ``inherit`` decides what data passed implicitly sees (a called task that inherits its
    caller's frame): under ``full`` the whole chain; otherwise the base frame is a
    :class:`ContextBoundary` whose implicit chain goes on to the global frame, through a
    frame of the ``passed`` names' values under ``subset``."""

    inputs: list[tuple[Symbol, Node]]
    inherit: str
    passed: list[tuple[Symbol, Node]]
    global_env: Env

    def compile(self) -> Callable[[Env], Env]:
        names = [n for n, _ in self.inputs]
        inits = [node.compile(False) for _, node in self.inputs]
        global_env = self.global_env
        if self.inherit == "full":
            return lambda env: Env(dict(zip(names, [init(env) for init in inits])), env)
        passed_names = [n for n, _ in self.passed]
        passed_inits = [node.compile(False) for _, node in self.passed]

        def base(env: Env) -> Env:
            implicit = (
                Env(dict(zip(passed_names, [init(env) for init in passed_inits])), global_env)
                if passed_names
                else global_env
            )
            return ContextBoundary(dict(zip(names, [init(env) for init in inits])), env, implicit)

        return base


def _located(err: SchemeError, span: Span | None) -> SchemeError:
    if err.span is None:
        err.span = span
    return err


class Sequential(Node):
    """``sequential`` / ``sequential/strict``: steps in order with a history."""

    __slots__ = ("context", "frame", "interp", "label", "steps", "strict")

    def __init__(
        self,
        steps: list[tuple[str, Node, Span | None]],
        context: ContextManagement,
        frame: ContextFrame,
        strict: bool,
        interp: TaskHost,
        label: str,
        span: Span | None,
    ) -> None:
        self.steps, self.context, self.frame, self.strict = steps, context, frame, strict
        self.interp, self.label, self.span = interp, label, span

    def compile(self, tail: bool) -> Run:
        from .sequence import Step, run_sequence  # the task runtime loads when a program uses it

        steps = [Step(name, node.compile(False), span) for name, node, span in self.steps]
        base_of = self.frame.compile()
        context, strict, interp, label = self.context, self.strict, self.interp, self.label
        fresh = context.fresh_context == "enabled"

        def usage() -> Any:
            return interp.tasks.usage.total

        def sequential(env: Env) -> Any:
            base = base_of(env)

            def frame(previous: Any) -> Env:
                return Env({PREVIOUS_OUTPUTS: previous}, base)

            with fresh_context(fresh):
                return run_sequence(steps, context, frame, strict, interp.events, label, usage)

        return sequential


@dataclass
class LoopClauses:
    """The analysed clauses of a director-evaluator loop."""

    director: Node
    evaluator: Node
    spans: dict[str, Span | None] = field(default_factory=dict)
    max_iterations: Node | None = None
    termination: Node | None = None
    script_command: Node | None = None
    script_timeout: Node | None = None
    uses_previous: bool = True


class DirectorEvaluatorLoop(Node):
    """``director-evaluator-loop``: generate, evaluate with feedback, repeat."""

    __slots__ = ("clauses", "context", "frame", "interp", "label")

    def __init__(
        self,
        clauses: LoopClauses,
        context: ContextManagement,
        frame: ContextFrame,
        interp: TaskHost,
        label: str,
        span: Span | None,
    ) -> None:
        self.clauses, self.context, self.frame, self.interp = clauses, context, frame, interp
        self.label, self.span = label, span

    def compile(self, tail: bool) -> Run:
        from .loop import LoopPhases, ScriptStage, run_loop  # the task runtime loads when a program uses it

        c, interp = self.clauses, self.interp
        script = None
        if c.script_command is not None:
            script = ScriptStage(
                command=c.script_command.compile(False),
                timeout=c.script_timeout.compile(False) if c.script_timeout is not None else None,
                check_allowed=lambda: require_scripts(interp, "director-evaluator-loop script-execution"),
                events=interp.events,
                poll=interp.runtime.poll,
            )
        phases = LoopPhases(
            director=c.director.compile(False),
            evaluator=c.evaluator.compile(False),
            script=script,
            termination=c.termination.compile(False) if c.termination is not None else None,
            spans=dict(c.spans),
            uses_previous=c.uses_previous,
        )
        limit = c.max_iterations.compile(False) if c.max_iterations is not None else None
        base_of = self.frame.compile()
        context, label, span = self.context, self.label, self.span
        fresh = context.fresh_context == "enabled"
        rt = interp.runtime
        limit_span = c.spans.get("max-iterations")

        def director_evaluator_loop(env: Env) -> Any:
            n = limit(env) if limit is not None else DEFAULT_MAX_ITERATIONS
            if type(n) is not int or n < 1:
                raise SchemeError(
                    f"director-evaluator-loop: (max-iterations …) must be a positive integer, got {write_string(n)}",
                    kind="type-error",
                    span=limit_span or span,
                )
            try:
                base = base_of(env)
            except SchemeError as err:
                raise _located(err, span) from None
            with fresh_context(fresh):
                return run_loop(phases, base, n, context, interp.events, label, rt.poll)

        return director_evaluator_loop


class WithEvaluation(Node):
    """``with-evaluation``: re-run a director while it asks for evaluation."""

    __slots__ = ("body", "interp", "max_rounds")

    def __init__(self, body: Node, max_rounds: Node | None, interp: TaskHost, span: Span | None) -> None:
        self.body, self.max_rounds, self.interp, self.span = body, max_rounds, interp, span

    def compile(self, tail: bool) -> Run:
        # start-up laziness: the runtime (dynamic, loop: 9 ms of imports) loads when a program first uses the form
        from .dynamic import evaluation_rounds

        body = self.body.compile(False)
        limit = self.max_rounds.compile(False) if self.max_rounds is not None else None
        interp, span = self.interp, self.span

        def with_evaluation(env: Env) -> Any:
            try:
                return evaluation_rounds(body, env, limit(env) if limit is not None else None, interp)
            except SchemeError as err:
                raise _located(err, span) from None

        return with_evaluation
