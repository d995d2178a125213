"""The dynamic director-evaluator loop: a director asks for evaluation with a CONTINUATION.

A director returns a :class:`TaskResult` with status ``CONTINUATION`` and
``notes.evaluation_request {type, criteria, target}``. :func:`evaluation_rounds`
picks an evaluator (:mod:`.selection`), runs ``target`` first for a
``bash_script`` request, calls the evaluator with only the arguments it names, binds
its verdict as ``last-evaluator-output`` and runs the director again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...capabilities import require_scripts
from ...datatypes import Keyword, MString
from ...env import Env
from ...errors import SchemeError
from ...evaluator import apply_procedure
from ..errors import validation_error
from ..placeholders import normal_name
from ..records import ScriptOutput, TaskDefinition, TaskResult
from ..scripts import run_script
from ..values import to_scheme
from .loop import LAST_EVALUATOR_OUTPUT, as_evaluation, with_script_output
from .selection import select_evaluator
from .sequence import content_of

if TYPE_CHECKING:
    from ..library import TaskHost

DEFAULT_MAX_ROUNDS = 5


def evaluation_request(result: Any) -> dict[str, Any] | None:
    """The evaluation request of a CONTINUATION result, validated; None when there is none."""
    if not isinstance(result, TaskResult) or result.status != "CONTINUATION":
        return None
    notes = result.notes if isinstance(result.notes, dict) else {}
    request = notes.get("evaluation_request")
    if request is None:
        return None
    path = "notes.evaluation_request"
    if not isinstance(request, dict):
        raise validation_error("with-evaluation: evaluation_request must be a record {type, criteria, target}", path)
    if "criteria" not in request:
        raise validation_error("with-evaluation: evaluation_request has no criteria", f"{path}.criteria")
    kind = request.get("type", "")
    if not isinstance(kind, str):
        raise validation_error("with-evaluation: evaluation_request type must be a string", f"{path}.type")
    if kind == "bash_script" and not isinstance(request.get("target"), str):
        raise validation_error("with-evaluation: a bash_script request needs a target command", f"{path}.target")
    return request


def evaluation_rounds(run: Callable[[Env], Any], env: Env, max_rounds: Any, interp: TaskHost) -> Any:
    """Run the director (``run`` in a frame holding ``last-evaluator-output``) until it stops asking."""
    if max_rounds is None:
        max_rounds = DEFAULT_MAX_ROUNDS
    if type(max_rounds) is not int or max_rounds < 0:
        raise SchemeError(f"with-evaluation: (max-rounds …) must be a non-negative integer, got {max_rounds!r}")
    hub = interp.events
    rounds: list[dict[str, Any]] = []
    result = run(Env({LAST_EVALUATOR_OUTPUT: False}, env))
    while len(rounds) < max_rounds:
        request = evaluation_request(result)
        if request is None:
            break
        interp.runtime.poll()
        start = hub.open("evaluation", "with-evaluation")
        evaluator = select_evaluator(
            (interp.tasks.describe(name) for name in interp.tasks.names()), request["criteria"]
        )
        content = result.content
        script = _run_target(interp, request, content) if request.get("type") == "bash_script" else None
        answer = _call_evaluator(interp, evaluator, content, request, script)
        evaluation = as_evaluation(answer, f"with-evaluation: evaluator {evaluator.name}")
        if script is not None:
            evaluation = with_script_output(evaluation, script)
        rounds.append(
            {
                "round": len(rounds) + 1,
                "evaluator": evaluator.name,
                "request": request,
                "evaluation": evaluation,
            }
        )
        hub.finish(
            "evaluation",
            evaluator.name,
            start,
            "success" if evaluation.notes.success else "continue",
            info={"round": len(rounds)},
        )
        result = run(Env({LAST_EVALUATOR_OUTPUT: evaluation}, env))
    return _with_rounds(result, rounds)


def _run_target(interp: TaskHost, request: dict[str, Any], solution: str) -> ScriptOutput:
    """Run a ``bash_script`` request's target with the director's output on standard input,
    as the static loop's script stage does."""
    require_scripts(interp, "with-evaluation")
    start = interp.events.open("script", str(request["target"]))
    result = run_script(
        request["target"], input=solution, timeout=float(request.get("timeout", 300)), poll=interp.runtime.poll
    )
    interp.events.finish("script", str(request["target"]), start, f"exit {result.exit_code}")
    return result.output()


def _call_evaluator(
    interp: TaskHost, evaluator: TaskDefinition, content: str, request: dict[str, Any], script: ScriptOutput | None
) -> Any:
    """Call the evaluator with the arguments its parameters name (the solution by default).

    Only these values reach it: nothing of the director's frame carries over.
    """
    available: dict[str, Any] = {
        "solution": content,
        "content": content,
        "output": content,
        "target": request.get("target", content),
        "criteria": to_scheme(request["criteria"]),
        "request": to_scheme(request),
        "evaluation_request": to_scheme(request),
    }
    if script is not None:
        available.update(
            script_stdout=script.stdout,
            script_stderr=script.stderr,
            script_exit_code=script.exit_code,
            script_output=script,
        )
    args: list[Any] = []
    for index, param in enumerate(evaluator.params):
        key = normal_name(param.name)
        if key in available:
            args += [Keyword.intern(param.name), available[key]]
        elif index == 0:
            args.insert(0, content if script is None else script.stdout)
    return apply_procedure(interp.tasks.procedure(evaluator.name), args)


def _with_rounds(result: Any, rounds: list[dict[str, Any]]) -> Any:
    if isinstance(result, TaskResult):
        return result.model_copy(update={"notes": {**result.notes, "evaluation_rounds": rounds}})
    if not rounds:
        return result
    text = str(result) if isinstance(result, (str, MString)) else content_of(result)
    return TaskResult(content=text, status="COMPLETE", notes={"evaluation_rounds": rounds})
