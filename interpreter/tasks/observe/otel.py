"""OpenTelemetry: the trace's spans as nested OpenTelemetry spans (``taskscheme[otel]``).

:class:`OtelExporter` watches an interpreter's event hub: a span starts when a run,
task, model call, attempt, step, iteration or script begins, under its parent's span
(a run under the host's current span), and ends with the event's status, error and
attributes. Model calls use the GenAI semantic-convention names
(``gen_ai.operation.name``, ``gen_ai.request.model``, ``gen_ai.usage.input_tokens`` …);
everything else is under ``taskscheme.*``.

``Interpreter(otel=True)`` reports to the globally configured tracer provider, as a
library should; ``--otel`` (:func:`otlp_exporter`) sets up a provider with the exporter
the standard ``OTEL_TRACES_EXPORTER`` names (``otlp``, configured by the standard
``OTEL_EXPORTER_OTLP_*`` variables; ``console``; ``none``), which never delays the exit
by more than a second.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from ... import __version__
from ...errors import SchemeError
from .tracing import Event, Span

#: llm option names and the GenAI request attributes they map to.
REQUEST_OPTIONS = {
    "temperature": "gen_ai.request.temperature",
    "max_tokens": "gen_ai.request.max_tokens",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed",
}


def _require() -> Any:
    try:
        from opentelemetry import trace  # optional dependency: the [otel] extra
    except ImportError:
        raise SchemeError(
            "OpenTelemetry is not installed: pip install 'taskscheme[otel]'", kind="value-error"
        ) from None
    return trace


def span_name(span: Span) -> str:
    """GenAI convention for model calls (``chat MODEL``); ``KIND NAME`` otherwise."""
    if span.kind == "model":
        return f"chat {span.name}"
    return f"{span.kind} {span.name}"


def start_attributes(span: Span) -> dict[str, Any]:
    attributes: dict[str, Any] = {"taskscheme.kind": span.kind, "taskscheme.name": span.name}
    attributes["taskscheme.run_id"] = span.run_id
    if span.kind == "model":
        attributes["gen_ai.operation.name"] = "chat"
        attributes["gen_ai.request.model"] = span.name
        for option, value in (span.info.get("options") or {}).items():
            if option in REQUEST_OPTIONS and isinstance(value, int | float):
                attributes[REQUEST_OPTIONS[option]] = value
    if span.kind == "run":
        attributes["taskscheme.program"] = span.info.get("program", "")
        attributes["taskscheme.argv"] = list(span.info.get("argv", []))
        attributes["taskscheme.version"] = span.info.get("version", "")
    return attributes


def end_attributes(event: Event) -> dict[str, Any]:
    """Attributes known once the action ended: status, usage, texts (unless redacted), error."""
    attributes: dict[str, Any] = {"taskscheme.status": event.status}
    usage = event.usage or {}
    info = event.info
    if event.kind == "model":
        attributes["gen_ai.response.model"] = event.name
        if "input_tokens" in usage:
            attributes["gen_ai.usage.input_tokens"] = usage["input_tokens"]
            attributes["gen_ai.usage.output_tokens"] = usage.get("output_tokens", 0)
        attributes["taskscheme.attempts"] = int(info.get("attempts", 0))
        attributes["taskscheme.cached"] = bool(info.get("cached", False))
        if info.get("system"):
            attributes["gen_ai.system_instructions"] = json.dumps([{"type": "text", "content": info["system"]}])
        if "prompt" in info:
            message = {"role": "user", "parts": [{"type": "text", "content": info["prompt"]}]}
            attributes["gen_ai.input.messages"] = json.dumps([message])
        if "response" in info:
            message = {"role": "assistant", "parts": [{"type": "text", "content": info["response"]}]}
            attributes["gen_ai.output.messages"] = json.dumps([message])
    elif usage:
        for key, value in usage.items():
            attributes[f"taskscheme.usage.{key}"] = value
    if info.get("replayed"):  # answered from a durable run's journal
        attributes["taskscheme.replayed"] = True
    if event.error:
        attributes["error.type"] = event.error.get("type", "error")
    return attributes


class OtelExporter:
    """A watcher of the event hub that mirrors spans into OpenTelemetry."""

    def __init__(self, tracer_provider: Any = None) -> None:
        trace = _require()
        self._trace = trace
        self.tracer = trace.get_tracer("taskscheme", __version__, tracer_provider=tracer_provider)
        self._open: dict[str, Any] = {}
        self._lock = threading.Lock()

    def opened(self, span: Span) -> None:
        with self._lock:
            parent = self._open.get(span.parent_id or "")
        context = self._trace.set_span_in_context(parent) if parent is not None else None
        started = self.tracer.start_span(
            span_name(span), context=context, start_time=int(span.start * 1e9), attributes=start_attributes(span)
        )
        with self._lock:
            self._open[span.id] = started

    def closed(self, span: Span, event: Event) -> None:
        from opentelemetry.trace import Status, StatusCode  # optional dependency: the [otel] extra

        with self._lock:
            started = self._open.pop(span.id, None)
        if started is None:
            return
        started.set_attributes(end_attributes(event))
        if event.error:
            started.set_status(Status(StatusCode.ERROR, event.error.get("message", "")))
        end = event.end if event.end is not None else event.start
        started.end(end_time=int(end * 1e9))


#: ``OTEL_TRACES_EXPORTER`` values ``--otel`` understands (OpenTelemetry's standard variable).
EXPORTERS = ("otlp", "console", "none")
#: Seconds the exit may wait for the last spans to be sent (``--otel``: a collector that
#: is down or silent never holds the exit up for longer).
EXIT_WAIT = 0.5
#: Seconds one OTLP export may take unless ``OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT`` says.
EXPORT_TIMEOUT = 0.4


def otlp_exporter() -> OtelExporter:
    """``--otel``: a tracer provider exporting as ``OTEL_TRACES_EXPORTER`` says (``otlp``, the
    default, over HTTP to where ``OTEL_EXPORTER_OTLP_*`` say; ``console``: spans as JSON on
    standard error; ``none``), flushed when the process exits, for at most :data:`EXIT_WAIT` s.
    A collector that cannot be reached is warned about once and then left alone."""
    _require()
    try:
        # optional dependency: the [otel] extra (an embedder may bring a tracer provider without the SDK)
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError:
        raise SchemeError(
            "--otel needs the OpenTelemetry SDK: pip install 'taskscheme[otel]'", kind="value-error"
        ) from None
    kind = (os.environ.get("OTEL_TRACES_EXPORTER") or "otlp").split(",")[0].strip().lower()
    if kind not in EXPORTERS:
        raise SchemeError(
            f"--otel: OTEL_TRACES_EXPORTER={kind} is not one of {', '.join(EXPORTERS)}", kind="value-error"
        )
    # shut down by shutdown_within below, not by the SDK's own exit handler (which waits as long as it takes)
    provider = TracerProvider(resource=Resource.create({"service.name": "taskscheme"}), shutdown_on_exit=False)
    if kind == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    late: Callable[[], None] | None = None
    if kind == "otlp":
        exporter = OnceWarned(_otlp())
        provider.add_span_processor(BatchSpanProcessor(exporter))
        late = partial(exporter.warn, f"no answer within {EXIT_WAIT} s, at exit")
    atexit.register(shutdown_within(provider, EXIT_WAIT, late))
    return OtelExporter(provider)


def _otlp() -> Any:
    try:
        # optional dependency: the [otel] extra; only the OTLP exporter needs it (console export does not)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise SchemeError(
            "--otel needs the OTLP exporter: pip install 'taskscheme[otel]' (or OTEL_TRACES_EXPORTER=console)",
            kind="value-error",
        ) from None
    logging.getLogger("opentelemetry.exporter.otlp").setLevel(logging.CRITICAL)  # OnceWarned says it once
    own_timeout = any(os.environ.get(f"OTEL_EXPORTER_OTLP_{k}TIMEOUT") for k in ("", "TRACES_"))
    return OTLPSpanExporter(timeout=None if own_timeout else EXPORT_TIMEOUT)


class OnceWarned:
    """An exporter that warns once when its collector cannot be reached, and from then on
    drops spans at once rather than trying (and waiting) again."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.failed = False
        self._warned = False
        self._lock = threading.Lock()

    def warn(self, reason: str) -> None:
        """Say once (whichever thread asks first) that traces cannot be sent, and why."""
        with self._lock:
            if self._warned:
                return
            self._warned = self.failed = True
        where = getattr(self.inner, "_endpoint", "the OTLP endpoint")
        print(
            f"warning: --otel: cannot send traces to {where} ({reason}); no more are sent "
            "(start a collector, or set OTEL_TRACES_EXPORTER=console or none)",
            file=sys.stderr,
            flush=True,
        )

    def export(self, spans: Any) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult  # optional dependency: the [otel] extra

        if self.failed:
            return SpanExportResult.FAILURE
        try:
            result = self.inner.export(spans)
        except Exception as exc:  # the exporter's own error: the same as a failed export
            result, reason = SpanExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
        else:
            reason = "no answer, or an error answer"
        if result is not SpanExportResult.SUCCESS:
            self.warn(reason)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))


def shutdown_within(provider: Any, seconds: float, late: Callable[[], None] | None = None) -> Callable[[], None]:
    """A function that flushes and shuts ``provider`` down, waiting at most ``seconds``, and
    calls ``late`` if that was not long enough (the last spans were not confirmed sent: the
    user hears of it, even when the export's own failure would come after the exit).

    The daemon thread that does the work starts now, not at exit: from Python 3.12 no
    thread may start once the interpreter is shutting down, when atexit handlers run."""
    go = threading.Event()

    def work() -> None:
        go.wait()
        provider.shutdown()

    worker = threading.Thread(target=work, name="taskscheme-otel-exit", daemon=True)
    worker.start()

    def shut() -> None:
        go.set()
        worker.join(seconds)
        if worker.is_alive() and late is not None:
            late()

    return shut
