"""The :class:`Interpreter`: one global frame, one analyzer, one runtime.

The REPL, the CLI and Python hosts all go through this object.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from . import forms as _forms  # noqa: F401 - registers the special forms
from . import primitives as _primitives  # noqa: F401 - registers the built-in procedures
from .analyzer import Analyzer
from .datatypes import VOID, Parameter, Span, Symbol, sym
from .env import Env, GlobalBindings
from .errors import SchemeError
from .evaluator import ContinuationInvoked, Runtime
from .nodes.fastpath import BINARY_OPS as INLINE_OPERATORS
from .ports import InputPort, OutputPort
from .primitives.registry import BUILTINS, INSTALLERS, make_primitive
from .tasks.library import LIBRARY_NAME, TaskLibrary
from .tasks.records import Limits

STDLIB_DIR = Path(__file__).resolve().parent.parent / "stdlib"


class Interpreter:
    """A taskscheme interpreter: evaluate source, define names, call procedures."""

    def __init__(
        self,
        *,
        stdout: IO[str] | None = None,
        stdin: IO[str] | None = None,
        max_steps: int | None = None,
        timeout: float | None = None,
        max_depth: int | None = None,
        stdlib: bool = True,
        allow_files: bool | list[str] = False,
        model: str | None = None,
        record: str | Path | None = None,
        replay: str | Path | None = None,
        allow_scripts: bool = False,
        task_limits: Limits | dict[str, Any] | None = None,
    ) -> None:
        self.allow_files = allow_files
        self.allow_scripts = allow_scripts
        self.global_env = Env(GlobalBindings())
        self.runtime = Runtime(max_depth=max_depth, max_steps=max_steps, timeout=timeout)
        self.analyzer = Analyzer(self)
        out = stdout if stdout is not None else sys.stdout
        self.output = Parameter(OutputPort.to_stream(out), name="current-output-port")
        self.error_output = Parameter(OutputPort.to_stream(sys.stderr, "stderr"), name="current-error-port")
        self.input = Parameter(_stdin_port(stdin), name="current-input-port")
        self.command_line: list[str] = ["taskscheme"]
        self.loading: list[Path] = []
        self.global_env.vars.update({sym(name): prim for name, prim in BUILTINS.items()})
        self.global_env.vars.watch({sym(name): BUILTINS[name] for name in INLINE_OPERATORS})
        # Tasks: the library (``task-library``), its models and usage; unbound operators resolve to tasks.
        self.tasks = TaskLibrary(self, model=model, record=record, replay=replay, limits=task_limits)
        self.models = self.tasks.models
        self.usage = self.tasks.usage
        self.global_env.vars[sym(LIBRARY_NAME)] = self.tasks
        self.analyzer.operator_fallback = self.tasks.resolve_operator
        for install in INSTALLERS:
            install(self)
        if stdlib:
            self.load_stdlib()

    # -- defining ------------------------------------------------------------------
    def define(self, name: str, value: Any) -> None:
        """Bind ``name`` in the global environment."""
        self.global_env.vars[sym(name)] = value

    def define_primitive(self, name: str, fn: Callable[..., Any], doc: str = "") -> None:
        """Bind a Python function as a Scheme procedure (arity from its signature)."""
        self.global_env.vars[sym(name)] = make_primitive(name, fn, doc)

    def __getitem__(self, name: str) -> Any:
        try:
            return self.global_env.vars[sym(name)]
        except KeyError:
            raise KeyError(name) from None

    # -- evaluating ----------------------------------------------------------------
    def eval(self, source: str, *, filename: str = "<string>") -> Any:
        """Read and evaluate every expression in ``source``; the last one's value."""
        from .reader import read_with_spans

        result: Any = VOID
        for datum, span in read_with_spans(source, filename):
            result = self.eval_datum(datum, span)
        return result

    def eval_datum(self, datum: Any, span: Span | None = None) -> Any:
        """Analyze and run one datum at top level."""
        node = self.analyzer.analyze(datum, None, span)
        run = node.compile(False)
        rt = self.runtime
        outer_run = rt.running
        if not outer_run:
            rt.begin()
            rt.running = True
        try:
            return run(self.global_env)
        except ContinuationInvoked as jump:
            raise SchemeError(
                "continuation invoked outside the dynamic extent of its call/cc", kind="continuation"
            ) from jump
        except RecursionError:
            raise SchemeError("nesting too deep for the host stack", kind="resource-exhaustion", span=span) from None
        finally:
            if not outer_run:
                rt.running = False
                rt.depth = 0

    def eval_file(self, path: str | Path) -> Any:
        """Evaluate a source file; ``load`` inside it is relative to its folder."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise SchemeError(f"cannot read {path}: {exc.strerror or exc}", kind="file-error") from None
        self.loading.append(file.resolve())
        try:
            return self.eval(text, filename=str(path))
        finally:
            self.loading.pop()

    def call(self, name: str, *args: Any) -> Any:
        """Call the Scheme procedure bound to ``name`` with ``args``."""
        from .evaluator import apply_procedure

        proc = self[name]
        self.runtime.begin()
        return apply_procedure(proc, list(args))

    def check_file_access(self, path: Path, who: str) -> None:
        """Refuse ``path`` unless files are allowed and it lies inside an allowed folder."""
        if self.allow_files is False:
            raise SchemeError(
                f"{who}: permission denied: reading files needs the allow_files capability", kind="permission"
            )
        if self.allow_files is True:
            return
        real = path.resolve()
        for folder in self.allow_files:
            root = Path(folder).resolve()
            if real == root or root in real.parents:
                return
        raise SchemeError(f"{who}: permission denied: {path} is outside the allowed folders", kind="permission")

    def load_stdlib(self) -> None:
        for path in sorted(STDLIB_DIR.glob("*.scm")):
            self.eval(path.read_text(encoding="utf-8"), filename=f"stdlib/{path.name}")

    def user_bindings(self) -> dict[str, Any]:
        """Names the program defined (not the built-ins), for the REPL's ``,env``."""
        return {k.name: v for k, v in self.global_env.vars.items() if BUILTINS.get(k.name) is not v}

    def symbol(self, name: str) -> Symbol:
        return sym(name)


def _stdin_port(stream: IO[str] | None) -> InputPort:
    source = stream if stream is not None else sys.stdin

    def more() -> str:
        try:
            return source.readline() if source is not None else ""
        except (OSError, ValueError):
            return ""

    return InputPort("", "stdin", more)
