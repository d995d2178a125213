"""What the Scheme library needs of the interpreter that runs it, as small Protocols.

The library (primitives, parallel forms, conversion) sits below the host facade
(:class:`interpreter.interpreter.Interpreter`) and never imports it: an installer or a
form receives "the host" typed by the protocol here that lists only what it uses, and the
facade satisfies each one structurally. The analysis layer adds what it needs on top
(:class:`interpreter.analyzer.AnalysisHost`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from .datatypes import Parameter, Span
from .env import Env
from .evaluator import Runtime


class PrimitiveHost(Protocol):
    """An interpreter primitives can be defined in (every installer's argument)."""

    def define_primitive(self, name: str, fn: Callable[..., Any], doc: str = "") -> None:
        """Bind ``name`` in the global environment to the primitive ``fn``."""


class ValueConverter(Protocol):
    """Conversion of values across the Python boundary (``conversion.Converter`` is one)."""

    def to_python(self, value: Any) -> Any: ...

    def to_scheme(self, value: Any) -> Any: ...


class SpanSink(Protocol):
    """Where a form reports the span it runs in (``tasks.tracing.EventHub`` is one)."""

    def open(self, kind: str, name: str, info: dict[str, Any] | None = None) -> Any:
        """Begin a span; what :meth:`finish` is handed back (None when nobody listens)."""

    def finish(
        self,
        kind: str,
        name: str,
        start: Any,
        status: str,
        usage: dict[str, int] | None = None,
        info: dict[str, Any] | None = None,
        error: BaseException | dict[str, str] | None = None,
    ) -> None:
        """Close the span ``start`` that :meth:`open` gave."""


class SilentSpans:
    """The span sink of an interpreter nobody can be listening to yet (no event hub made)."""

    def open(self, kind: str, name: str, info: dict[str, Any] | None = None) -> Any:
        return None

    def finish(self, kind: str, name: str, start: Any, status: str, **details: Any) -> None:
        return None


SILENT_SPANS = SilentSpans()


class LibraryHost(PrimitiveHost, Protocol):
    """Everything the Scheme library's installers and parallel forms use of their interpreter:
    its globals and runtime, the current ports, the files it may read and is loading, its
    command line, evaluation of a datum or a file (``eval``, ``load``), the conversion of
    Python values, the trace, and the concurrency settings."""

    global_env: Env
    runtime: Runtime
    input: Parameter
    output: Parameter
    loading: list[Path]
    command_line: list[str]
    converter: ValueConverter
    #: The trace's spans: the event hub once the task runtime is made, else :data:`SILENT_SPANS`.
    span_sink: SpanSink
    max_concurrency: int
    max_threads: int

    def define(self, name: str, value: Any) -> None:
        """Bind ``name`` globally to the Python ``value`` converted to Scheme."""

    def check_file_access(self, path: Path, who: str) -> Path:
        """``path`` resolved, if the program may read it; else a permission error."""

    def eval_datum(self, datum: Any, span: Span | None = None) -> Any:
        """Analyse and evaluate one datum in the global environment."""

    def eval_file(self, path: str | Path) -> Any:
        """Read and evaluate a file (``load``)."""
