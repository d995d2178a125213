"""The director-evaluator loop at run time: phases, data-flow frames, stopping, the result.

Per iteration the loop extends the environment frame by frame, as the design
describes: the director's frame holds the inputs (in the base frame), the iteration
number and the previous feedback; its value is bound as ``director-result`` and
``solution`` (with the script's output) in a child frame the evaluator runs in;
the evaluation is bound in a last child frame the termination condition sees.
The AST node (:class:`~interpreter.tasks.compose.nodes.DirectorEvaluatorLoop`)
compiles the phases; :func:`run_loop` drives them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pydantic
from pydantic import Field

from ...datatypes import MString, Symbol, make_list
from ...env import Env
from ...errors import SchemeError
from ...primitives.hashtables import HashTable
from ...printer import display_string, write_string
from ..errors import invalid_output, task_failure, type_and_message
from ..evaluation import EVALUATED_SCRIPT, flat_verdict, parse_verdict, verdict_violations
from ..observe.tracing import EventHub, first_line, now
from ..records import (
    ContextManagement,
    EvaluationNotes,
    EvaluationResult,
    SchemeRecord,
    ScriptOutput,
    ScriptResult,
    TaskResult,
)
from ..scripts import failure_message, run_script, timeout_or_default
from ..values import is_alist, to_python
from .sequence import content_of, is_runtime_limit

#: Characters of an evaluator's feedback kept in an iteration's trace event.
FEEDBACK_KEPT = 2000

#: Characters of script output kept in a latest-only history entry.
KEPT_OUTPUT = 200

S = Symbol.intern
CURRENT_ITERATION = S("current-iteration")
EVALUATION_FEEDBACK = S("evaluation-feedback")
EVALUATION_SUCCESS = S("evaluation-success")
PREVIOUS_RESULTS = S("previous-results")
LAST_EVALUATOR_OUTPUT = S("last-evaluator-output")
DIRECTOR_RESULT = S("director-result")
SOLUTION = S("solution")
SCRIPT_STDOUT = S("script-stdout")
SCRIPT_STDERR = S("script-stderr")
SCRIPT_EXIT_CODE = S("script-exit-code")
SCRIPT_OUTPUT = S("script-output")
EVALUATION = S("evaluation")

#: The names of each frame, in the order the phases see them.
DIRECTOR_NAMES = (
    CURRENT_ITERATION,
    EVALUATION_FEEDBACK,
    EVALUATION_SUCCESS,
    EVALUATION,  # the last evaluation (#f at first); the termination condition sees this iteration's
    PREVIOUS_RESULTS,
    LAST_EVALUATOR_OUTPUT,
)
SOLUTION_NAMES = (DIRECTOR_RESULT, SOLUTION, SCRIPT_OUTPUT, SCRIPT_STDOUT, SCRIPT_STDERR, SCRIPT_EXIT_CODE)
EVALUATION_NAMES = (EVALUATION,)

LoopStatus = Literal["COMPLETE", "MAX_ITERATIONS", "FAILED", "ESCALATE"]
StopReason = Literal["evaluator-success", "termination-condition", "max-iterations", "error"]


# -- records -----------------------------------------------------------------------
class LoopIteration(SchemeRecord):
    """One iteration: the director's output, the script's output and the evaluation."""

    iteration: int
    output: TaskResult | None = None
    script_output: ScriptResult | None = None
    evaluation: EvaluationResult | None = None


class LoopError(SchemeRecord):
    """The execution error that ended a loop: in which iteration and phase."""

    type: str
    message: str
    iteration: int
    phase: Literal["director", "script", "evaluator", "termination"]
    location: str | None = None


class LoopResult(SchemeRecord):
    """What a director-evaluator loop returns.

    ``success`` is the final evaluation's success (seed 000: ``evaluationResult.notes.success``).
    Why the loop stopped is ``status``: COMPLETE when the evaluator succeeded or the termination
    condition held, MAX_ITERATIONS when it ran out, FAILED on an execution error (quality gates
    mark an exhausted loop ESCALATE); and ``stop_reason``: evaluator-success,
    termination-condition, max-iterations or error.
    """

    final_output: TaskResult | None = None
    final_evaluation: EvaluationResult | None = None
    success: bool = False
    iterations_completed: int = 0
    iteration_history: list[LoopIteration] = Field(default_factory=list)
    status: LoopStatus = "COMPLETE"
    error: LoopError | None = None
    stop_reason: StopReason = "max-iterations"


# -- values into records ---------------------------------------------------------------
def as_task_result(value: Any) -> TaskResult:
    """A director's value as a TaskResult: results as they are, a plain value wrapped."""
    if isinstance(value, TaskResult):
        return value
    return TaskResult(content=content_of(value), status="COMPLETE", notes={})


def as_evaluation(value: Any, who: str) -> EvaluationResult:
    """An evaluator's answer as an EvaluationResult.

    Accepted: an EvaluationResult; a TaskResult with ``success``/``feedback`` notes (or
    whose content is a JSON verdict); ``#t``/``#f``; a hash table or association list
    with ``success``, ``feedback`` and other details; text holding a JSON object
    (fenced or not). Anything else is INVALID_OUTPUT showing the value.
    """
    if isinstance(value, EvaluationResult):
        return value
    if type(value) is bool:
        notes = EvaluationNotes(success=value, feedback="", details=None, script_output=None)
        return EvaluationResult(content="", status="COMPLETE", notes=notes)
    if isinstance(value, TaskResult):
        if isinstance(value.notes, dict) and "success" in flat_verdict(value.notes):
            return _from_fields(who, flat_verdict(value.notes), value.content, value.status)
        return EvaluationResult(content=value.content, notes=parse_verdict(who, value.content))
    if isinstance(value, (str, MString)):
        text = str(value)
        return EvaluationResult(content=text, notes=parse_verdict(who, text))
    if type(value) is HashTable or is_alist(value) or type(value) is dict:
        data = to_python(value, who)
        fields = flat_verdict(data)
        content = data.get("content") if fields is not data else fields.get("feedback")
        status = data.get("status", "COMPLETE") if fields is not data else "COMPLETE"
        return _from_fields(who, fields, str(content or ""), str(status))
    text = write_string(value)
    shown = text if len(text) <= 80 else text[:77] + "..."
    raise invalid_output(
        f"{who}: cannot read an evaluation from {shown} (expected #t/#f, an evaluation, a task result, "
        "an association list or hash table with success and feedback, or JSON text)",
        [f"unexpected evaluator answer: {shown}"],
    )


def _from_fields(who: str, data: dict[str, Any], content: str, status: str) -> EvaluationResult:
    violations = verdict_violations(data)
    if violations:
        raise invalid_output(f"{who}: evaluator answer is invalid: {'; '.join(violations)}", violations)
    try:
        notes = EvaluationNotes(**data)
        return EvaluationResult(content=content, status=status, notes=notes)  # type: ignore[arg-type]
    except pydantic.ValidationError as exc:
        found = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise invalid_output(f"{who}: evaluator answer is invalid: {'; '.join(found)}", found) from None


def with_script_output(evaluation: EvaluationResult, output: ScriptOutput) -> EvaluationResult:
    """A copy of ``evaluation`` whose notes hold the script's output."""
    notes = evaluation.notes.model_copy(update={"script_output": output})
    return evaluation.model_copy(update={"notes": notes})


def stripped(entry: LoopIteration) -> LoopIteration:
    """An entry with its notes only: no director content, no evaluator text, short script output."""

    def cut(text: str) -> str:
        return text if len(text) <= KEPT_OUTPUT else text[: KEPT_OUTPUT - 1] + "…"

    output = entry.output
    if output is not None and output.content:
        output = output.model_copy(update={"content": ""})
    script = entry.script_output
    if script is not None and (len(script.stdout) > KEPT_OUTPUT or len(script.stderr) > KEPT_OUTPUT):
        script = script.model_copy(update={"stdout": cut(script.stdout), "stderr": cut(script.stderr)})
    evaluation = entry.evaluation
    if evaluation is not None and (evaluation.content or evaluation.notes.script_output is not None):
        notes = evaluation.notes
        if notes.script_output is not None and script is not None:
            notes = notes.model_copy(update={"script_output": script.output()})
        evaluation = evaluation.model_copy(update={"content": "", "notes": notes})
    return LoopIteration(iteration=entry.iteration, output=output, script_output=script, evaluation=evaluation)


# -- running ---------------------------------------------------------------------------
@dataclass
class ScriptStage:
    """The compiled ``script-execution`` clause: the command and its options, each run in the solution frame."""

    command: Callable[[Env], Any]
    timeout: Callable[[Env], Any] | None
    check_allowed: Callable[[], None]
    events: EventHub | None = None
    poll: Callable[[], None] | None = None  # the runtime's limit check, while the script runs


@dataclass
class LoopPhases:
    """A loop's compiled phases."""

    director: Callable[[Env], Any]
    evaluator: Callable[[Env], Any]
    script: ScriptStage | None
    termination: Callable[[Env], Any] | None
    spans: dict[str, Any]
    #: Whether any phase mentions ``previous-results`` (if none does, the list is not built).
    uses_previous: bool = True


class Draft:
    """The iteration being run, filled in as its phases finish (so a failure keeps what was done)."""

    __slots__ = ("evaluation", "iteration", "output", "script_output")

    def __init__(self, iteration: int) -> None:
        self.iteration = iteration
        self.output: TaskResult | None = None
        self.script_output: ScriptOutput | None = None
        self.evaluation: EvaluationResult | None = None

    def record(self) -> LoopIteration:
        return LoopIteration(
            iteration=self.iteration, output=self.output, script_output=self.script_output, evaluation=self.evaluation
        )


class IterationLog:
    """The iteration history a loop keeps: every iteration when it accumulates data, else only
    the latest one (so a latest-only loop runs in constant memory), stripped to its notes when
    the result is made."""

    __slots__ = ("accumulate", "entries", "latest")

    def __init__(self, accumulate: bool) -> None:
        self.accumulate = accumulate
        self.entries: list[LoopIteration] = []
        self.latest: LoopIteration | None = None

    def add(self, record: LoopIteration) -> None:
        if self.accumulate:
            self.entries.append(record)
        else:
            self.latest = record

    def history(self) -> list[LoopIteration]:
        """``iteration_history`` as the result shows it."""
        if self.accumulate:
            return self.entries
        return [stripped(self.latest)] if self.latest is not None else []


class PhaseError(Exception):
    """Carries a phase's SchemeError to the loop's driver."""

    def __init__(self, phase: str, error: SchemeError) -> None:
        super().__init__(error.message)
        self.phase = phase
        self.error = error


def run_loop(
    phases: LoopPhases,
    base: Env,
    max_iterations: int,
    context: ContextManagement,
    hub: EventHub,
    label: str,
    check: Callable[[], None],
) -> LoopResult:
    """Run the loop from the base frame (inputs bound) and return its :class:`LoopResult`."""
    accumulate = context.accumulate_data
    full = context.accumulation_format == "full_output"
    log = IterationLog(accumulate)
    seen: list[Any] = []  # what previous-results shows, oldest first
    last_output: TaskResult | None = None
    last_eval: EvaluationResult | None = None
    completed = 0
    result_status: LoopStatus = "MAX_ITERATIONS"
    reason: StopReason = "max-iterations"
    error: LoopError | None = None
    entry: Draft | None = None
    hub.progress.begin()
    loop_start = hub.open("loop", label)
    try:
        for k in range(max_iterations):
            check()
            start = hub.open("iteration", f"{label}#{k}")
            entry = Draft(k)
            try:
                output, evaluation, stop = _iteration(phases, base, k, accumulate, seen, last_eval, entry)
            except PhaseError as failure:
                err = failure.error
                location = err.span if err.span is not None else phases.spans.get(failure.phase)
                kind, message = type_and_message(err)
                error = LoopError(
                    type=kind,
                    message=message,
                    iteration=k,
                    phase=failure.phase,  # type: ignore[arg-type]
                    location=str(location) if location is not None else None,
                )
                if entry.evaluation is not None:
                    last_eval = entry.evaluation
                if entry.output is not None:
                    last_output = entry.output
                    log.add(entry.record())
                result_status, reason = "FAILED", "error"
                hub.finish(
                    "iteration",
                    f"{label}#{k}",
                    start,
                    "error",
                    info={"iteration": k, "phase": failure.phase},
                    error=err,
                )
                break
            completed += 1
            last_output, last_eval = output, evaluation
            record = entry.record()
            log.add(record)
            if accumulate and phases.uses_previous:
                seen.append(record if full else stripped(record))
            feedback = first_line(evaluation.notes.feedback)
            hub.finish(
                "iteration",
                f"{label}#{k}",
                start,
                "success" if stop else "continue",
                info={
                    "iteration": k,
                    "success": evaluation.notes.success,
                    "feedback": evaluation.notes.feedback[:FEEDBACK_KEPT],
                    **(scores(evaluation) if hub.active else {}),
                },
            )
            hub.progress.update(f"{label}: iteration {k + 1} of {max_iterations} · {feedback}")
            if stop:
                result_status, reason = "COMPLETE", stop
                break
    except SchemeError as limit:  # a runtime limit ends the run: the host keeps what was done
        if entry is None or entry.iteration != completed:  # stopped before the next iteration began
            entry = Draft(completed)
        error = _limit_error(limit, entry, phases)
        inner = limit.partial  # what an inner pipeline had: the director's output so far
        if entry.output is None and isinstance(inner, TaskResult):
            entry.output = inner
        if entry.output is not None:  # the iteration under way, as far as it went
            log.add(entry.record())
            last_output = entry.output
        limit.partial = LoopResult(
            final_output=last_output,
            final_evaluation=last_eval,
            success=False,
            iterations_completed=completed,
            iteration_history=log.history(),
            status="FAILED",
            error=error,
            stop_reason="error",
        )
        raise
    finally:
        hub.progress.end()
    result = LoopResult(
        final_output=last_output,
        final_evaluation=last_eval,
        success=last_eval.notes.success if last_eval is not None else False,
        iterations_completed=completed,
        iteration_history=log.history(),
        status=result_status,
        error=error,
        stop_reason=reason,
    )
    hub.finish("loop", label, loop_start, result_status, info={"iterations": completed, "stop_reason": reason})
    return result


def _limit_error(err: SchemeError, entry: Draft, phases: LoopPhases) -> LoopError:
    """The loop's error for a runtime limit that ended the iteration ``entry``, in the phase it
    had reached."""
    if entry.output is None:
        phase = "director"
    elif phases.script is not None and entry.script_output is None:
        phase = "script"
    elif entry.evaluation is None:
        phase = "evaluator"
    else:
        phase = "termination"
    kind, message = type_and_message(err)
    location = err.span if err.span is not None else phases.spans.get(phase)
    return LoopError(
        type=kind,
        message=message,
        iteration=entry.iteration,
        phase=phase,  # type: ignore[arg-type]
        location=str(location) if location is not None else None,
    )


def _iteration(
    phases: LoopPhases,
    base: Env,
    k: int,
    accumulate: bool,
    seen: list[Any],
    last_eval: EvaluationResult | None,
    entry: Draft,
) -> tuple[TaskResult, EvaluationResult, StopReason | None]:
    """One iteration; fills ``entry`` as phases finish (so a failure keeps what was done)."""
    if last_eval is not None:  # latest-only mode keeps the last evaluation; only the history goes
        feedback, succeeded = last_eval.notes.feedback, last_eval.notes.success
    else:
        feedback, succeeded = "", False
    director_frame = Env(
        {
            CURRENT_ITERATION: k,
            EVALUATION_FEEDBACK: feedback,
            EVALUATION_SUCCESS: succeeded,
            EVALUATION: last_eval if last_eval is not None else False,
            PREVIOUS_RESULTS: make_list(seen),
            LAST_EVALUATOR_OUTPUT: last_eval if last_eval is not None else False,
        },
        base,
    )
    outer = EVALUATED_SCRIPT.set(None)  # a loop in an evaluator phase: its director sees no script
    try:
        output = as_task_result(_phase("director", phases.director, director_frame))
    finally:
        EVALUATED_SCRIPT.reset(outer)
    entry.output = output
    solution = output.content
    solution_frame = Env(
        {
            DIRECTOR_RESULT: output,
            SOLUTION: solution,
            SCRIPT_OUTPUT: False,
            SCRIPT_STDOUT: "",
            SCRIPT_STDERR: "",
            SCRIPT_EXIT_CODE: False,
        },
        director_frame,
    )
    script_output = None
    if phases.script is not None:
        script_output = _run_stage(phases.script, solution_frame, solution, entry)
        values = solution_frame.vars
        values[SCRIPT_OUTPUT] = script_output
        values[SCRIPT_STDOUT] = script_output.stdout
        values[SCRIPT_STDERR] = script_output.stderr
        values[SCRIPT_EXIT_CODE] = script_output.exit_code
    seen = EVALUATED_SCRIPT.set(script_output.output() if script_output is not None else None)
    try:
        answer = _phase("evaluator", phases.evaluator, solution_frame)
    finally:
        EVALUATED_SCRIPT.reset(seen)
    try:
        evaluation = as_evaluation(answer, "director-evaluator-loop evaluator")
    except SchemeError as err:
        raise PhaseError("evaluator", err) from None
    if script_output is not None:
        evaluation = with_script_output(evaluation, script_output.output())
    entry.evaluation = evaluation
    if evaluation.notes.success:
        return output, evaluation, "evaluator-success"
    if phases.termination is not None:
        done = _phase("termination", phases.termination, Env({EVALUATION: evaluation}, solution_frame))
        if done is not False:
            return output, evaluation, "termination-condition"
    return output, evaluation, None


def _phase(name: str, run: Callable[[Env], Any], frame: Env) -> Any:
    try:
        return run(frame)
    except SchemeError as err:
        if is_runtime_limit(err):
            raise
        raise PhaseError(name, err) from None


def _run_stage(stage: ScriptStage, frame: Env, solution: str, entry: Draft) -> ScriptResult:
    """Run the script with the solution on standard input; a non-zero exit is not an error
    (it informs the evaluation), a timeout is (the script phase fails, its output kept)."""
    try:
        stage.check_allowed()
        command = stage.command(frame)
        timeout = stage.timeout(frame) if stage.timeout is not None else timeout_or_default(None)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise SchemeError(
                f"script-execution: (timeout …) must be a positive number of seconds, got {display_string(timeout)}",
                kind="type-error",
            )
        if isinstance(command, (str, MString)):
            argv: str | list[str] = str(command)
        elif isinstance(command, list) or hasattr(command, "car"):
            argv = [display_string(x) for x in command]
        else:
            raise SchemeError(
                f"script-execution: the command must be a string or a list, got {display_string(command)}",
                kind="type-error",
            )
        start = stage.events.open("script", "script-execution") if stage.events is not None else now()
        result = run_script(argv, input=solution, timeout=float(timeout), poll=stage.poll)
        if stage.events is not None:
            shown = argv if isinstance(argv, str) else " ".join(argv)
            status = "timeout" if result.timed_out else f"exit {result.exit_code}"
            stage.events.finish("script", shown, start, status, info=stage.events.script_info(result))
        entry.script_output = result
        if result.timed_out:
            raise task_failure("script_timeout", str(failure_message(result, float(timeout))))
    except SchemeError as err:
        if is_runtime_limit(err):
            raise
        raise PhaseError("script", err) from None
    return result


def scores(evaluation: EvaluationResult) -> dict[str, Any]:
    """An iteration event's ``score`` (the notes' ``score``, else the only metric) and ``metrics``."""
    notes = evaluation.notes
    metrics = dict(notes.details.metrics) if notes.details is not None else {}
    score = (notes.model_extra or {}).get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        score = next(iter(metrics.values())) if len(metrics) == 1 else None
    out: dict[str, Any] = {"score": score} if score is not None else {}
    if metrics:
        out["metrics"] = metrics
    return out
