"""What the host layer's services use of the ``Interpreter`` facade, as a Protocol.

The facade (:mod:`.interpreter`) imports its services: the embedding API (:mod:`.embedding`),
process isolation (:mod:`.isolation`), batch runs (:mod:`.batch`) and the command line's program
run (:mod:`.program_run`). They take the interpreter they serve as a :class:`Facade`, so none of
them imports the facade back and the host layer has no import circle (docs/architecture.md).
``Interpreter`` satisfies the protocol structurally. Where a service must *make* an interpreter
(a batch's worker process, the isolated child) the facade hands it the class to call.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .conversion import Converter
    from .datatypes import Parameter, Span
    from .env import Env
    from .evaluator import Runtime
    from .tasks.library import TaskLibrary
    from .tasks.models.backends import ModelRegistry
    from .tasks.observe.tracing import EventHub
    from .tasks.observe.usage import Usage


class Facade(Protocol):
    """An interpreter as the host layer's services see it."""

    #: The keyword arguments that rebuild this interpreter elsewhere (a worker, the child).
    settings: dict[str, Any]
    #: The program the host gave it, as (text, file name) pairs, in order.
    program_sources: list[tuple[str, str]]
    global_env: Env
    runtime: Runtime
    converter: Converter
    tasks: TaskLibrary
    models: ModelRegistry
    usage: Usage
    events: EventHub
    tasks_made: bool
    output: Parameter
    error_output: Parameter
    command_line: list[str]
    on_top_level_value: Callable[[Any, Span | None], None] | None

    def eval(self, source: str, *, filename: str = ...) -> Any: ...

    def when_tasks_start(self, hook: Callable[[], None]) -> None: ...

    def eval_scheme(
        self, source: str, *, filename: str = ..., whole: bool = ..., check: bool = ..., cached: bool = ...
    ) -> Any: ...

    def eval_file(self, path: str | Path) -> Any: ...

    def eval_datum(self, datum: Any, span: Span | None = ...) -> Any: ...

    def check_unbound(self, forms: list[tuple[Any, Span]], whole: bool = ...) -> str | None: ...

    def whole_run(self, program: str = ...) -> AbstractContextManager[None]: ...

    def run_scheme(self, thunk: Callable[[], Any]) -> Any: ...
