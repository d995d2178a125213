"""The one door every model call goes through: limits, replay, recording and usage.

Limits come from a stack of activations: the interpreter's own at the bottom, then
one per running task that sets any. A call counts one turn in every activation;
each activation's ``max_turns``, ``max_context`` and ``timeout`` must hold.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import SchemeError
from ..evaluator import PASS_THROUGH, Runtime
from ..limits import Watchdog
from .errors import TaskError, resource_exhausted, task_failure
from .models import ModelRegistry, ModelResponse
from .records import Limits
from .replay import CallRecord, CallUsage, Recorder, ReplayBook
from .usage import Usage

PROGRAM = "<program>"


@dataclass
class Activation:
    """A running task (or the program) with its limits and the turns used under it."""

    task: str
    limits: Limits
    turns: int = 0


def estimate_tokens(text: str) -> int:
    """A rough token count for backends that report none: one token per four characters."""
    return math.ceil(len(text) / 4)


class ModelGateway:
    """Sends prompts to models and accounts for them."""

    def __init__(
        self,
        registry: ModelRegistry,
        runtime: Runtime,
        limits: Limits | None = None,
        recorder: Recorder | None = None,
        replay: ReplayBook | None = None,
    ) -> None:
        self.registry = registry
        self.runtime = runtime
        self.recorder = recorder
        self.replay = replay
        # Defaults need no validation; model_construct keeps pydantic's validators (and its
        # plugin scan) out of start-up.
        self.usage = Usage.model_construct()
        self.stack: list[Activation] = [Activation(PROGRAM, limits or Limits.model_construct())]

    @property
    def limits(self) -> Limits:
        """The interpreter-wide limits."""
        return self.stack[0].limits

    @contextmanager
    def activation(self, task: str, limits: Limits) -> Iterator[Activation]:
        """Run a task under its own limits (and attribute its calls to it)."""
        entry = Activation(task, limits)
        self.stack.append(entry)
        try:
            yield entry
        finally:
            self.stack.remove(entry)

    # -- the call --------------------------------------------------------------------
    def complete(
        self, model: str | None, prompt: str, system: str | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, ModelResponse]:
        """(model name, response) for one call, after checking every limit."""
        name = model or self.registry.default_name()
        options = options or {}
        estimate = estimate_tokens(prompt) + estimate_tokens(system or "")
        self._take_turn()
        self._check_context(estimate)
        timeout = min((a.limits.timeout for a in self.stack if a.limits.timeout is not None), default=None)
        start = time.monotonic()
        if self.replay is not None:
            recorded = self.replay.answer(name, system, prompt, options)
            response = ModelResponse(
                text=recorded.response,
                input_tokens=recorded.usage.input_tokens,
                output_tokens=recorded.usage.output_tokens,
            )
        else:
            response = self._call(name, prompt, system, options, timeout)
        duration = time.monotonic() - start
        reported_input = response.input_tokens
        response = ModelResponse(
            text=response.text,
            input_tokens=reported_input if reported_input is not None else estimate,
            output_tokens=(
                response.output_tokens if response.output_tokens is not None else estimate_tokens(response.text)
            ),
        )
        assert response.input_tokens is not None and response.output_tokens is not None
        self.usage.add(self.stack[-1].task, name, response.input_tokens, response.output_tokens, duration)
        self._trace(name, duration, response.input_tokens, response.output_tokens)
        if self.recorder is not None:
            usage = CallUsage(input_tokens=response.input_tokens, output_tokens=response.output_tokens)
            record = CallRecord(
                model=name, system=system, prompt=prompt, options=options, response=response.text, usage=usage
            )
            self.recorder.write(record)
        if timeout is not None and duration > timeout:
            raise self._timed_out(name, duration, timeout)
        if reported_input is not None:
            self._check_context(reported_input)
        return name, response

    def _trace(self, name: str, duration: float, input_tokens: int, output_tokens: int) -> None:
        """A ``model`` event for the subscribers of the interpreter's event hub, if any."""
        events = getattr(self, "events", None)
        if events is not None and events.subscribers:
            usage = {"input_tokens": input_tokens, "output_tokens": output_tokens}
            start = time.time() - duration
            events.finish("model", name, start, "ok", usage=usage, info={"task": self.stack[-1].task})

    def _take_turn(self) -> None:
        for activation in self.stack:
            limit = activation.limits.max_turns
            if limit is not None and activation.turns + 1 > limit:
                where = "the program" if activation.task == PROGRAM else f"task {activation.task}"
                raise resource_exhausted(
                    "turns",
                    f"max-turns of {where} exceeded by model call {activation.turns + 1}",
                    activation.turns + 1,
                    limit,
                )
        for activation in self.stack:
            activation.turns += 1

    def _check_context(self, tokens: int) -> None:
        for activation in self.stack:
            limit = activation.limits.max_context
            if limit is not None and tokens > limit:
                where = "the program" if activation.task == PROGRAM else f"task {activation.task}"
                raise resource_exhausted(
                    "context", f"prompt of {tokens} tokens exceeds the max-context of {where}", tokens, limit
                )

    def _timed_out(self, name: str, duration: float, timeout: float) -> SchemeError:
        return resource_exhausted(
            "time", f"model {name} did not answer within the timeout of {timeout:g} s", round(duration, 3), timeout
        )

    def _call(
        self, name: str, prompt: str, system: str | None, options: dict[str, Any], timeout: float | None
    ) -> ModelResponse:
        model = self.registry.get(name)

        def run() -> ModelResponse:
            try:
                return model.complete(prompt, system, options)
            except SchemeError as err:
                if err.kind == "resource-exhaustion" or isinstance(err, TaskError):
                    raise  # the program's own limits, and task errors a model raises on purpose
                failure = task_failure("model_error", f"model {name} failed: {err.full_message()}")
                failure.span, failure.frames = err.span, list(err.frames)
                raise failure from err
            except PASS_THROUGH:
                raise
            except Exception as exc:
                raise task_failure("model_error", f"model {name} failed: {type(exc).__name__}: {exc}") from None

        if timeout is None:
            return run()
        if getattr(model, "runs_in_interpreter", False):
            return self._with_deadline(run, name, timeout)
        return self._in_thread(run, name, timeout)

    def _with_deadline(self, run: Callable[[], ModelResponse], name: str, timeout: float) -> ModelResponse:
        """Run DSL code with an extra deadline checked by the runtime."""
        rt = self.runtime
        previous = rt.extra_check
        start = time.monotonic()
        deadline = start + timeout

        def check() -> None:
            if previous is not None:
                previous()
            if time.monotonic() > deadline:
                raise self._timed_out(name, time.monotonic() - start, timeout)

        rt.extra_check = check
        watchdog = Watchdog(rt, timeout)  # the runtime checks at its next call once the deadline passes
        try:
            return run()
        finally:
            watchdog.stop()
            rt.extra_check = previous

    def _in_thread(self, run: Callable[[], ModelResponse], name: str, timeout: float) -> ModelResponse:
        """Run a Python backend on a worker thread and stop waiting after ``timeout``."""
        box: list[tuple[bool, Any]] = []

        def work() -> None:
            try:
                box.append((True, run()))
            except BaseException as exc:
                box.append((False, exc))

        start = time.monotonic()
        worker = threading.Thread(target=work, name=f"taskscheme-model-{name}", daemon=True)
        worker.start()
        worker.join(timeout)
        if not box:
            raise self._timed_out(name, time.monotonic() - start, timeout)
        ok, value = box[0]
        if ok:
            return value
        raise value
