"""Running a task call: bind the arguments, then run it by type.

- atomic: render the prompt and system text, send them through the model gateway,
  return a :class:`TaskResult` (an :class:`EvaluationResult` for an evaluator);
- script: render the command, run it through the script runner, return a
  :class:`TaskResult` whose notes hold the script output (a failure is status FAILED);
- procedure: run the body in a frame made by the task's context management.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..capabilities import check_file_access, require_scripts
from ..datatypes import Pair, Span, TailCall
from ..env import Env
from ..errors import SchemeError
from ..evaluator import apply_procedure
from ..printer import display_string
from .arguments import bind_arguments
from .errors import task_failure
from .evaluation import parse_verdict, with_script_result
from .memory.store import FRESH, MemoryMatch, fresh_context, match_notes, with_matches
from .observe.tracing import trace_task
from .placeholders import render
from .records import EvaluationResult, ScriptTaskResult, TaskDefinition, TaskResult, prompt_text
from .scripts import failure_message, run_script, split_command, timeout_or_default

if TYPE_CHECKING:
    from .library import Task, TaskLibrary


def has_limits(definition: TaskDefinition) -> bool:
    limits = definition.limits
    return limits.max_turns is not None or limits.max_context is not None or limits.timeout is not None


class TaskRunner:
    """Runs calls of the tasks of one library."""

    def __init__(self, library: TaskLibrary) -> None:
        self.library = library

    def call(self, task: Task, args: list[Any], caller: Env | None = None) -> Any:
        """Run ``task`` on ``args``; ``caller`` is the frame of the call (None: the global frame)."""
        events = getattr(self.library.interp, "events", None)
        if events is not None and events.active:  # traced: a ``task`` event with the usage of the call
            return trace_task(events, self.library.usage, task.definition.name, lambda: self.run(task, args, caller))
        return self.run(task, args, caller)

    def run(self, task: Task, args: list[Any], caller: Env | None = None) -> Any:
        """``call`` without its event."""
        definition = task.definition
        bound = bind_arguments(definition, args)
        if definition.type == "atomic":
            return self.atomic(definition, bound)
        if definition.type == "script":
            return self.script(definition, bound)
        if task.implementation is None:
            raise SchemeError(f"task {definition.name}: {definition.type} tasks cannot be run here", kind="value-error")
        return self.procedure(task, bound, caller)

    # -- atomic ----------------------------------------------------------------------
    def atomic(self, definition: TaskDefinition, bound: dict[str, Any]) -> TaskResult:
        prompt = render(definition.body or "", bound, prompt_text)
        if definition.subtype == "evaluator":  # in a loop's evaluator phase it sees the script's result
            prompt = with_script_result(definition.body or "", prompt, bound)
        system = render(definition.system, bound, prompt_text) if definition.system else None
        matches = self.fresh_matches(definition, prompt)
        prompt = with_matches(prompt, matches)
        gateway = self.library.gateway
        start = time.monotonic()
        with gateway.activation(definition.name, definition.limits, definition.context.warning_threshold):
            model, response = gateway.complete(
                definition.model,
                prompt,
                system,
                definition.options,  # the gateway's request copies it
                schema=definition.output_schema,
                retry=definition.retry,
                cache=definition.cache,
                attachments=self.attachments(definition, bound) if definition.attachments else (),
                stream=definition.stream,
            )
        usage = {
            "input_tokens": response.input_tokens,
            "output_tokens": response.output_tokens,
            "peak_context_tokens": response.input_tokens,  # seed 004's ResourceMetrics, for this call
            "last_turn_at": time.time(),
        }
        notes: dict[str, Any] = {
            "model": model,
            "usage": usage,
            "duration_s": round((time.monotonic() - start) * 1e6) / 1e6,  # whole µs; round(x, 6) is ~10x dearer
            "attempts": response.attempts,
            "cached": response.cached,
        }
        if matches:
            notes["context_matches"] = match_notes(matches)
        if definition.subtype == "evaluator":
            verdict = parse_verdict(definition.name, response.text)
            for key, value in notes.items():
                setattr(verdict, key, value)
            return EvaluationResult(content=response.text, notes=verdict)
        if definition.output_schema is not None:
            notes["text"] = response.text
            return TaskResult(content=response.data, status="COMPLETE", notes=notes)
        return TaskResult(content=response.text, status="COMPLETE", notes=notes)

    def fresh_matches(self, definition: TaskDefinition, prompt: str) -> list[MemoryMatch]:
        """What the memory holds for ``prompt`` when fresh context is on: the task's own
        ``(context (fresh enabled))``, or that of the innermost form or task it runs in."""
        if definition.context_management.fresh_context != "enabled" and not FRESH.get():
            return []
        memory = getattr(self.library.interp, "memory", None)
        return memory.recall(prompt) if memory is not None else []

    def attachments(self, definition: TaskDefinition, bound: dict[str, Any]) -> tuple[str, ...]:
        """The rendered ``(attachments …)``: URLs as they are, files checked against ``allow_files``."""
        out = []
        for template in definition.attachments:
            target = render(template, bound, prompt_text).strip()
            if not target.startswith(("http://", "https://")):
                who = f"task {definition.name}: attachment"
                path = check_file_access(self.library.interp.allow_files, Path(target), who)
                if not path.is_file():
                    raise SchemeError(f"{who} {target}: no such file", kind="file-error")
                target = str(path)
            out.append(target)
        return tuple(out)

    # -- script ----------------------------------------------------------------------
    def script(self, definition: TaskDefinition, bound: dict[str, Any]) -> TaskResult:
        require_scripts(self.library.interp, f"task {definition.name}")
        spec = definition.script
        shell = spec.shell if spec else False
        command = self.command(definition, bound, shell)
        timeout = timeout_or_default(spec.timeout if spec and spec.timeout is not None else definition.limits.timeout)
        stdin = render(spec.input, bound, prompt_text) if spec and spec.input is not None else None
        started = self.library.interp.events.open("script", definition.name)
        result = run_script(
            command,
            input=stdin,
            timeout=timeout,
            cwd=spec.cwd if spec else None,
            shell=shell,
            poll=self.library.interp.runtime.poll,
        )
        events = self.library.interp.events
        events.finish("script", definition.name, started, f"exit {result.exit_code}", info=events.script_info(result))
        failure = failure_message(result, timeout)
        notes: dict[str, Any] = {
            "script_output": result.model_dump(),
            "timed_out": result.timed_out,
            "truncated": result.truncated,
            "duration_s": result.duration_s,
        }
        if failure is not None:
            notes["error"] = {"type": "TASK_FAILURE", "reason": "script_failed", "message": failure}
        return ScriptTaskResult(
            content=result.stdout,
            status="COMPLETE" if failure is None else "FAILED",
            notes=notes,
            stdout=result.stdout,
            stderr=result.stderr,
            exit_code=result.exit_code,
        )

    def command(self, definition: TaskDefinition, bound: dict[str, Any], shell: bool) -> str | list[str]:
        """The command a script task runs: its ``command`` argument (when it takes one), else its
        own command template, else the loader's ``#:script``, else the interpreter's
        ``target_script``; a task with none of them is a TASK_FAILURE at its definition."""
        spec = definition.script
        given = bound.get(spec.command_param) if spec is not None and spec.command_param else None
        if given is not None and given is not False:
            if isinstance(given, (list, Pair)):
                return [display_string(x) for x in given]
            return display_string(given) if shell else split_command(display_string(given))
        template = definition.body or (spec.fallback if spec is not None else None) or ""
        if not template:
            default = getattr(self.library.interp, "target_script", None)
            if default:
                return default if isinstance(default, str) and shell else split_command(default)
            err = task_failure(
                "no_command",
                f"script task {definition.name} has no command: give it a #:command argument or a <command>, "
                "load its template with #:script, or set the interpreter's target_script (--target-script)",
            )
            err.span = _source_span(definition)
            raise err
        if shell:
            return render(template, bound, show=_quoted)
        return [render(part, bound, prompt_text) for part in split_command(template)]

    # -- procedure -------------------------------------------------------------------
    def procedure(self, task: Task, bound: dict[str, Any], caller: Env | None) -> Any:
        """Run the body; without limits its value may be a tail call for the trampoline."""
        implementation = task.implementation
        assert implementation is not None
        if getattr(implementation, "uses_caller_frame", False):
            frame = caller if caller is not None else self.library.interp.global_env
            run = lambda: implementation(bound, frame)
        else:
            run = lambda: implementation(bound)
        definition = task.definition
        fresh = definition.context_management.fresh_context == "enabled"
        if not has_limits(definition) and not fresh:
            return run()
        threshold = definition.context.warning_threshold
        with (
            self.library.gateway.activation(definition.name, definition.limits, threshold),
            fresh_context(fresh or FRESH.get()),
        ):
            result = run()
            if type(result) is TailCall:
                result = apply_procedure(result.proc, result.args)
            return result


def _quoted(value: Any) -> str:
    return shlex.quote(display_string(value))


def _source_span(definition: TaskDefinition) -> Span | None:
    """Where a task was defined, from its ``metadata.source`` (``file:line:col``), or None."""
    source = str(definition.metadata.get("source", ""))
    file, _, rest = source.rpartition(":")
    file, _, line = file.rpartition(":")
    if not (file and line.isdigit() and rest.isdigit()):
        return None
    return Span(file, int(line), int(rest))
