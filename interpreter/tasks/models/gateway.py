"""The one door every model call goes through: limits, replay, the response cache,
retries, streaming, recording, llm's log, usage and the ``model`` trace event.

Every backend (llm, DSL, Python, replay) is reached through :meth:`ModelGateway.complete`,
so retries and the cache wrap them all alike:

    limits → replay? → cache hit? → attempts (retried when transient) → schema check
           → cache store → usage, recording, llm's log, trace event

Limits come from a stack of activations: the interpreter's own at the bottom, then
one per running task that sets any. A call counts one turn in every activation;
each activation's ``max_turns``, ``max_context`` and ``timeout`` must hold.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic

from ...capabilities import permission_denied
from ...errors import SchemeError
from ...evaluator import PASS_THROUGH, Branch, Runtime
from ...limits import Watchdog
from ..errors import TaskError, from_validation, resource_exhausted, task_failure
from ..observe.limit_warnings import announce, crossed
from ..observe.usage import Usage
from ..records import Limits, RetryPolicy
from .backends import LlmModel, ModelRegistry, ModelResponse, OnText, TransientModelError, accepts, is_transient
from .cache import ModelRequest, ResponseCache
from .inflight import run_coroutine, run_in_thread
from .journaled import MODEL_CALLS, model_request
from .llm_log import LlmLog
from .providers import provider_failure
from .ratelimit import RateLimits, Turn
from .replay import CallRecord, CallUsage, Recorder, ReplayBook
from .schemas import structured


def model_error(message: str, transient: bool) -> TaskError:
    """A TASK_FAILURE (reason ``model_error``) of one attempt; ``notes.transient`` says it is worth retrying."""
    err = task_failure("model_error", message)
    err.record.notes["transient"] = transient  # type: ignore[attr-defined]
    return err


PROGRAM = "<program>"


@dataclass(eq=False)  # one activation is itself only: the stack leaves it by identity
class Activation:
    """A running task (or the program) with its limits and the turns used under it."""

    task: str
    limits: Limits
    turns: int = 0
    #: ``(context (warning-threshold f))``: warn past this fraction of a limit (:mod:`.limit_warnings`).
    warning_threshold: float | None = None
    warned: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Deadline:
    """When a call must have answered: ``seconds`` after ``start`` (``time.monotonic()``)."""

    start: float
    seconds: float

    @property
    def at(self) -> float:
        return self.start + self.seconds

    def left(self) -> float:
        return self.at - time.monotonic()


class _Activated:
    """The context of :meth:`ModelGateway.activation` (a class: cheaper than a generator per task call)."""

    __slots__ = ("entry", "stack")

    def __init__(self, stack: list[Activation], entry: Activation) -> None:
        self.stack, self.entry = stack, entry

    def __enter__(self) -> Activation:
        self.stack.append(self.entry)
        return self.entry

    def __exit__(self, *exc: object) -> None:
        stack, entry = self.stack, self.entry
        if stack and stack[-1] is entry:  # the usual case: the innermost task leaves
            stack.pop()
        else:
            stack.remove(entry)


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
        self.events: Any = None  # the interpreter's EventHub
        #: Retries for calls whose task says nothing (``Interpreter(retries=…)``, ``--retries``).
        self.retry = RetryPolicy.model_construct(retries=0, backoff=1.0, max_backoff=60.0)
        #: The response cache, when enabled for every call (``--cache``) or None.
        self.cache: ResponseCache | None = None
        #: Where a ``(cache #t)`` task's cache lives when no cache is enabled for every call.
        self.cache_path: Any = None
        #: A ``(cache #t)`` task may open the default cache file (the host granted files).
        self.may_write_files = False
        #: ``--no-cache``: no call uses the cache, whatever its task says.
        self.cache_disabled = False
        self._task_cache: ResponseCache | None = None
        #: ``--log``: calls to llm models go into llm's logs database.
        self.llm_log: Any = None
        self.random = random.Random()
        # Defaults need no validation; model_construct keeps pydantic's validators (and its
        # plugin scan) out of start-up.
        self.usage = Usage.model_construct()
        self.lock = threading.Lock()  # usage sums and turn counts: branches of a parallel form call at once
        #: Where warnings about limits go (a line each): the interpreter's error port.
        self.warn: Callable[[str], None] | None = None
        #: Requests and tokens per minute, per model (``rate-limit``, ``rate_limits=``, ``--rate-limit``).
        self.rate_limits = RateLimits()
        #: Stream every call that its task does not say ``(stream #f)`` of (``--stream``).
        self.stream = False
        #: The host's callback for streamed text (``Interpreter(on_text=…)``): called with each piece.
        self.on_text: Callable[[str], None] | None = None
        runtime.activations = [Activation(PROGRAM, limits or Limits.model_construct())]

    @property
    def stack(self) -> list[Activation]:
        """The calling context's running tasks, the program's own activation first
        (a parallel branch has its own list, sharing its parent's entries)."""
        return self.runtime.current().activations

    @property
    def limits(self) -> Limits:
        """The interpreter-wide limits."""
        return self.runtime.activations[0].limits

    def activation(self, task: str, limits: Limits, warning_threshold: float | None = None) -> _Activated:
        """Run a task under its own limits (and attribute its calls to it): ``with gateway.activation(…)``."""
        return _Activated(self.stack, Activation(task, limits, warning_threshold=warning_threshold))

    # -- the call --------------------------------------------------------------------
    def complete(
        self,
        model: str | None,
        prompt: str,
        system: str | None = None,
        options: dict[str, Any] | None = None,
        *,
        schema: dict[str, Any] | None = None,
        retry: RetryPolicy | None = None,
        cache: bool | None = None,
        attachments: tuple[str, ...] = (),
        stream: bool | None = None,
    ) -> tuple[str, ModelResponse]:
        """(model name, response) for one call, after checking every limit.

        ``retry``, ``cache`` and ``stream`` are the task's own settings (None: the interpreter's).
        With a ``schema`` the response's ``data`` is the parsed, validated answer."""
        name = model or self.registry.default_name()
        request = ModelRequest(name, prompt, system, dict(options or {}), schema, tuple(attachments))
        estimate = estimate_tokens(prompt) + estimate_tokens(system) if system else estimate_tokens(prompt)
        stack = self.stack
        watched = _watched(stack)  # does any running task warn near its limits? (most do not)
        self._take_turn(stack, watched)
        self._check_context(estimate, stack, watched)
        timeout = None
        for activation in stack:
            limit = activation.limits.timeout
            if limit is not None and (timeout is None or limit < timeout):
                timeout = limit
        task = stack[-1].task
        hub = self.events if self.events is not None and self.events.active else None  # None: nobody listens
        span = hub.open("model", name, self._call_info(request, task)) if hub is not None else None
        start = time.monotonic()
        deadline = None if timeout is None else Deadline(start, timeout)
        attempts, cached, counted = 0, False, False
        answer: str | None = None  # the model's text, kept for the event when a later check fails
        try:
            store = self._cache_for(cache)
            if self.replay is not None:
                response = self._replayed(request)
            else:  # a durable run's journal answers before the cache and the backend (docs/durable.md)
                policy = retry or self.retry
                fresh = lambda: self._answer(request, store, policy, deadline, span, estimate, stream)
                response = MODEL_CALLS(lambda: model_request(request), fresh)
                attempts, cached = response.attempts, response.cached
            duration = (response.duration_s or 0.0) if response.replayed else time.monotonic() - start
            answer = response.text
            response = self._counted(response, estimate)
            assert response.input_tokens is not None and response.output_tokens is not None
            if cached:  # Usage takes its own lock: branches of a parallel form add at once
                self.usage.add_cached(task, name)
            else:
                self.usage.add(task, name, response.input_tokens, response.output_tokens, duration, max(attempts, 1))
            if response.rate_wait_s:
                self.usage.add_wait(task, name, response.rate_wait_s)
            meter = self.runtime.current().meter  # a batch item's own usage
            if meter is not None:
                meter.add(response.input_tokens, response.output_tokens, cached=cached, attempts=attempts)
            counted = True
            if self.recorder is not None:
                self._record(request, response)
            if schema is not None:
                response.data = structured(response.text, schema, f"model {name}")
            if store is not None and not cached and self.replay is None and not response.replayed:
                store.put(request, response.text, response.input_tokens, response.output_tokens)
            if self.llm_log is not None and response.raw is not None:
                self.llm_log.write(response.raw)
        except BaseException as err:
            if attempts == 0 and isinstance(err, TaskError):
                attempts = int(err.record.notes.get("attempts", 0)) if hasattr(err.record, "notes") else 0
            if attempts and not counted:
                self.usage.add_failed(task, name, attempts)
                if waited := getattr(err, "rate_wait_s", 0.0):
                    self.usage.add_wait(task, name, waited)
            if hub is not None:
                status = "error" if isinstance(err, SchemeError) else "interrupted"
                info = {"attempts": attempts, "cached": cached}
                if answer is not None:  # e.g. an answer that does not match the schema
                    info["response"] = answer
                hub.finish("model", name, span, status, info=info, error=err)
            raise
        response.__dict__.update(attempts=attempts, cached=cached)  # trusted values: no validation
        if hub is not None:
            tokens = {"input_tokens": response.input_tokens, "output_tokens": response.output_tokens}
            info = {"response": response.text, "attempts": attempts, "cached": cached}
            if cached:  # nothing was spent: the stored call's tokens are shown apart
                info["cached_usage"] = tokens
            hub.finish("model", name, span, "ok", usage=None if cached else tokens, info=info)
        if timeout is not None and duration > timeout and not cached:
            raise self._timed_out(name, duration, timeout)
        if not cached and watched:
            self._near_limits("time", round(duration, 3), stack)
        if response.input_tokens is not None and not cached:
            self._check_context(response.input_tokens, stack, watched)
        return name, response

    @staticmethod
    def _call_info(request: ModelRequest, task: str) -> dict[str, Any]:
        info: dict[str, Any] = {
            "task": task,
            "model": request.model,
            "system": request.system,
            "prompt": request.prompt,
            "options": request.options,
        }
        if request.schema is not None:
            info["schema"] = request.schema
        if request.attachments:
            info["attachments"] = list(request.attachments)
        return info

    @staticmethod
    def _counted(response: ModelResponse, estimate: int) -> ModelResponse:
        """``response`` with token counts filled in by estimate where the backend gave none."""
        fields = response.__dict__  # trusted values: no validation
        if fields["input_tokens"] is None:
            fields["input_tokens"] = estimate
        if fields["output_tokens"] is None:
            fields["output_tokens"] = estimate_tokens(response.text)
        return response

    def _answer(
        self,
        request: ModelRequest,
        store: ResponseCache | None,
        policy: RetryPolicy,
        deadline: Deadline | None,
        span: Any,
        estimate: int,
        stream: bool | None,
    ) -> ModelResponse:
        """The response cache's answer, else the backend's (retried as ``policy`` says)."""
        if store is not None and (hit := store.get(request)) is not None:
            text, tokens_in, tokens_out = hit.text, hit.input_tokens, hit.output_tokens
            return ModelResponse(text=text, input_tokens=tokens_in, output_tokens=tokens_out, cached=True)
        response, attempts = self._attempts(request, policy, deadline, span, estimate, stream)
        response.__dict__["attempts"] = attempts  # a trusted count: no validation
        return response

    def _replayed(self, request: ModelRequest) -> ModelResponse:
        assert self.replay is not None
        recorded = self.replay.answer(request.model, request.system, request.prompt, request.options)
        return ModelResponse(
            text=recorded.response,
            input_tokens=recorded.usage.input_tokens,
            output_tokens=recorded.usage.output_tokens,
        )

    def _record(self, request: ModelRequest, response: ModelResponse) -> None:
        assert self.recorder is not None
        usage = CallUsage(input_tokens=response.input_tokens, output_tokens=response.output_tokens)
        self.recorder.write(
            CallRecord(
                model=request.model,
                system=request.system,
                prompt=request.prompt,
                options=request.options,
                response=response.text,
                usage=usage,
            )
        )

    # -- the cache -------------------------------------------------------------------
    def _cache_for(self, wanted: bool | None) -> ResponseCache | None:
        """The cache this call uses: none under ``--no-cache`` or ``(cache #f)``; the
        interpreter's; or, for a ``(cache #t)`` task, one opened on first use."""
        if self.cache_disabled or wanted is False:
            return None
        if self.cache is not None or not wanted:
            return self.cache
        if self._task_cache is None:
            if self.cache_path is None and not self.may_write_files:
                raise permission_denied("(cache #t)", "allow_files", "writing the response cache")
            self._task_cache = ResponseCache(self.cache_path)
            self._task_cache.max_bytes = getattr(self, "max_file_bytes", None)  # disk.cap_files
        return self._task_cache

    # -- attempts and retries --------------------------------------------------------
    def _attempts(
        self,
        request: ModelRequest,
        policy: RetryPolicy,
        deadline: Deadline | None,
        span: Any,
        estimate: int,
        stream: bool | None,
    ) -> tuple[ModelResponse, int]:
        """Call the backend, retrying transient failures as ``policy`` says; (response, attempts).

        Each attempt is one request to the provider: it first waits its turn under the
        model's rate limit (if any). A retry waits what the provider asked (``Retry-After``)
        or the policy's backoff, never past the call's deadline."""
        hub = self.events if self.events is not None and self.events.active else None
        failures: list[str] = []
        limiter = self.rate_limits.get(request.model)
        if limiter is not None:
            self.registry.get(request.model)  # found (and llm's plugins loaded) before the first turn is taken
        waited = 0.0
        for attempt in range(1, policy.retries + 2):
            turn = Turn(limiter, estimate) if limiter is not None else None
            label, info, attempt_span = "", {}, None
            if hub is not None:
                label, info = f"{request.model}#{attempt}", {"attempt": attempt}
                attempt_span = hub.open("attempt", label, dict(info))
            try:
                response = self._call(request, deadline, span, estimate, stream, turn)
            except TaskError as err:
                waited += self._waited(turn, info)
                err.rate_wait_s = waited  # type: ignore[attr-defined]
                if hub is not None:
                    hub.finish("attempt", label, attempt_span, "error", info=info, error=err)
                failures.append(err.record.message)  # type: ignore[attr-defined]
                notes = getattr(err.record, "notes", {})
                if not notes.get("transient") or attempt > policy.retries:
                    raise self._final(err, attempt, failures) from None
                asked = notes.get("retry_after")
                delay = asked if asked is not None else policy.delay(attempt, self.random.random())
                if deadline is not None and delay >= deadline.left():
                    # the wait (the provider's Retry-After, or our backoff) outlasts the task's timeout
                    failures[-1] += f"; a retry would wait {delay:g} s, past the timeout of {deadline.seconds:g} s"
                    raise self._final(err, attempt, failures) from None
                self._wait(delay)
                continue
            if turn is not None:
                waited += self._waited(turn, info)
            if hub is not None:
                hub.finish("attempt", label, attempt_span, "ok", info=info)
            if limiter is not None and response.input_tokens is not None:
                limiter.settle(estimate, response.input_tokens + (response.output_tokens or 0))
            if waited:
                response.__dict__["rate_wait_s"] = waited
            return response, attempt
        raise AssertionError("unreachable")

    @staticmethod
    def _waited(turn: Turn | None, info: dict[str, Any]) -> float:
        """Seconds an attempt waited for its turn (also put in its event's ``info``)."""
        if turn is None:
            return 0.0
        info["rate_wait_s"] = round(turn.waited or 0.0, 6)
        return turn.waited or 0.0

    @staticmethod
    def _final(err: TaskError, attempts: int, failures: list[str]) -> TaskError:
        """The error that ends a call: ``err``, with the attempts in its notes when it is a TASK_FAILURE."""
        record = err.record
        if not hasattr(record, "notes"):
            return err
        record.notes = {**record.notes, "attempts": attempts, "errors": failures}  # type: ignore[attr-defined]
        if attempts > 1:
            record.message = f"{record.message} (after {attempts} attempts)"  # type: ignore[attr-defined]
            err.message = f"{record.type}: {record.message}"  # type: ignore[attr-defined]
        return err

    def _wait(self, seconds: float) -> None:
        """Sleep before a retry, in short slices so limits and Ctrl-C still end the program."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(left, 0.05))
            self.runtime.poll()

    def _take_turn(self, stack: list[Activation], watched: bool) -> None:
        with self.lock:
            self._count_turn(stack)
            if not watched:
                return
            found = [(a.turns, crossed([a], "turns", a.turns)) for a in stack if a.warning_threshold is not None]
        for turns, crossing in found:
            announce(crossing, "turns", turns, self.events, self.warn)

    def _near_limits(self, resource: str, used: float, stack: list[Activation]) -> None:
        """Warn of the activations whose warning threshold ``used`` crosses (:mod:`.limit_warnings`)."""
        with self.lock:  # branches of a parallel form share their parents' activations
            found = crossed(stack, resource, used)
        announce(found, resource, used, self.events, self.warn)

    @staticmethod
    def _count_turn(stack: list[Activation]) -> None:
        for activation in stack:
            limit = activation.limits.max_turns
            if limit is not None and activation.turns + 1 > limit:
                where = "the program" if activation.task == PROGRAM else f"task {activation.task}"
                raise resource_exhausted(
                    "turns",
                    f"max-turns of {where} exceeded by model call {activation.turns + 1}",
                    activation.turns + 1,
                    limit,
                )
        for activation in stack:
            activation.turns += 1

    def _check_context(self, tokens: int, stack: list[Activation], watched: bool) -> None:
        for activation in stack:
            limit = activation.limits.max_context
            if limit is not None and tokens > limit:
                where = "the program" if activation.task == PROGRAM else f"task {activation.task}"
                raise resource_exhausted(
                    "context", f"prompt of {tokens} tokens exceeds the max-context of {where}", tokens, limit
                )
        if watched:
            self._near_limits("context", tokens, stack)

    def _timed_out(self, name: str, duration: float, timeout: float) -> SchemeError:
        return resource_exhausted(
            "time", f"model {name} did not answer within the timeout of {timeout:g} s", round(duration, 3), timeout
        )

    def _poll(self, name: str, deadline: Deadline | None) -> None:
        """Check the caller's limits while a call is under way, and the call's deadline."""
        self.runtime.poll()
        if deadline is not None and deadline.left() < 0:
            raise self._timed_out(name, time.monotonic() - deadline.start, deadline.seconds)

    def _call(
        self,
        request: ModelRequest,
        deadline: Deadline | None,
        span: Any,
        estimate: int,
        stream: bool | None,
        turn: Turn | None = None,
    ) -> ModelResponse:
        """One attempt, once its ``turn`` under the rate limit has come: the backend's
        answer, or a TASK_FAILURE (see :func:`model_error`)."""
        name = request.model
        model = self.registry.get(name)
        extra: dict[str, Any] = {}
        if request.schema is not None and accepts(model.complete, "schema"):
            extra["schema"] = request.schema
        if request.attachments:
            if not accepts(model.complete, "attachments"):
                raise task_failure("model_error", f"model {name} takes no attachments")
            extra["attachments"] = request.attachments
        on_text = self._streamer(span, stream)
        if on_text is not None and accepts(model.complete, "on_text"):
            extra["on_text"] = on_text
        arguments = (request.prompt, request.system, request.options)
        in_interpreter = getattr(model, "runs_in_interpreter", False)
        is_llm = isinstance(model, LlmModel)
        uses_loop = is_llm and model.async_model is not None
        if turn is not None and not uses_loop:
            turn.take(lambda: self._poll(name, deadline))
        if deadline is None and (in_interpreter or (not is_llm and not isinstance(self.runtime.current(), Branch))):
            # nothing to honour while it runs: no hand-off, no closures (Ctrl-C reaches it here too)
            try:
                response = model.complete(*arguments, **extra)
            except Exception as exc:
                raise self._failure(exc, name, model, estimate) from None
            if not in_interpreter:
                self.runtime.poll()  # an interrupt that came while it ran ends the program now, as it would have
            return response

        def run() -> ModelResponse:
            try:
                return model.complete(*arguments, **extra)
            except Exception as exc:
                raise self._failure(exc, name, model, estimate) from None

        if in_interpreter:
            return self._with_deadline(run, name, deadline)  # type: ignore[arg-type]

        async def run_async() -> ModelResponse:
            assert isinstance(model, LlmModel)
            if turn is not None:
                await turn.take_async()
            try:
                return await model.complete_async(*arguments, **extra)
            except Exception as exc:
                raise self._failure(exc, name, model, estimate) from None

        def poll() -> None:
            self._poll(name, deadline)

        if uses_loop:
            return run_coroutine(run_async, poll)
        return run_in_thread(run, poll)

    @staticmethod
    def _failure(exc: Exception, name: str, model: Any, estimate: int) -> BaseException:
        """The TASK_FAILURE for what a backend raised (control flow and the program's limits pass as they are)."""
        if isinstance(exc, PASS_THROUGH) and not isinstance(exc, SchemeError):
            return exc
        if isinstance(exc, TransientModelError):
            return model_error(f"model {name} failed: {exc.message}", True)
        if isinstance(exc, SchemeError):
            if exc.kind == "resource-exhaustion" or isinstance(exc, TaskError):
                return exc  # the program's own limits, and task errors a model raises on purpose
            failure = model_error(f"model {name} failed: {exc.full_message()}", False)
            failure.span, failure.frames = exc.span, list(exc.frames)
            failure.__cause__ = exc
            return failure
        if isinstance(model, LlmModel):
            found = provider_failure(exc, name, model.model, estimate)
            if found is not None:
                return found
        return model_error(f"model {name} failed: {type(exc).__name__}: {exc}", is_transient(exc))

    def _streamer(self, span: Any, stream: bool | None) -> OnText | None:
        """Where the text of a call goes as it arrives, or None when the call does not stream.

        A call streams when its task says ``(stream #t)``, or says nothing and the
        interpreter streams (``--stream``, ``on_text``) or a terminal's progress display
        shows model text. The text goes to that display and to the host's ``on_text``."""
        hub = self.events
        progress = hub.progress if hub is not None and span is not None else None
        shows = progress is not None and progress in hub.watchers and progress.stream_models
        if not (stream if stream is not None else self.stream or shows):
            return None
        sinks: list[OnText] = []
        if shows:
            sinks.append(lambda chunk: progress.stream_text(span, chunk))
        if self.on_text is not None:
            sinks.append(self.on_text)
        if len(sinks) <= 1:
            return sinks[0] if sinks else _ignore
        return lambda chunk: _each(sinks, chunk)

    def _with_deadline(self, run: Callable[[], ModelResponse], name: str, deadline: Deadline) -> ModelResponse:
        """Run DSL code with an extra deadline checked by the calling context."""
        rt = self.runtime.current()
        previous = rt.extra_check

        def check() -> None:
            if previous is not None:
                previous()
            if deadline.left() < 0:
                raise self._timed_out(name, time.monotonic() - deadline.start, deadline.seconds)

        rt.extra_check = check
        watchdog = Watchdog(rt, max(0.0, deadline.left()))  # the runtime checks at its next call once it passes
        try:
            return run()
        finally:
            watchdog.stop()
            rt.extra_check = previous


def _watched(stack: list[Activation]) -> bool:
    """Whether any running task warns near its limits (most run none: no lock, no search)."""
    for activation in stack:  # noqa: SIM110 -- a loop: any() over a generator costs twice as much here
        if activation.warning_threshold is not None:
            return True
    return False


def _ignore(chunk: str) -> None:
    """A streaming call's text with nowhere to go (``(stream #t)`` with no display or callback)."""


def _each(sinks: list[OnText], chunk: str) -> None:
    for sink in sinks:
        sink(chunk)


def configure_gateway(
    gateway: ModelGateway,
    *,
    retries: int | RetryPolicy | dict[str, Any] | None = None,
    cache: Any = None,
    log: Any = False,
    rate_limits: dict[str, Any] | None = None,
    stream: bool | None = None,
    on_text: Callable[[str], None] | None = None,
) -> None:
    """Apply the interpreter's model-call settings: ``retries`` (a count, a
    :class:`RetryPolicy` or its fields), ``cache`` (True: the default file; a path;
    False/None: off), ``log`` (True: llm's logs database; a path: that database),
    ``rate_limits`` (``{"MODEL": {"rpm": N, "tpm": M}}``), ``stream`` (stream every call;
    None: when ``on_text`` is given) and ``on_text`` (called with streamed text)."""
    if isinstance(retries, int) and not isinstance(retries, bool):
        retries = {"retries": retries}
    if isinstance(retries, dict):
        try:
            retries = RetryPolicy(**retries)
        except pydantic.ValidationError as exc:
            raise from_validation(exc, "retries") from None
    if retries is not None:
        gateway.retry = retries
    if cache is not None and cache is not False:
        gateway.cache = ResponseCache(None if cache is True else cache)
    if log:
        gateway.llm_log = LlmLog(None if log is True else log)
    if rate_limits:
        gateway.rate_limits.update(rate_limits)
    gateway.on_text = on_text
    gateway.stream = stream if stream is not None else on_text is not None
