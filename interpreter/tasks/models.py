"""The model interface and its backends.

Every backend answers ``complete(prompt, system, options) -> ModelResponse``:

- :class:`LlmModel` wraps any model of the ``llm`` library (by id or alias);
- :class:`FunctionModel` wraps a Python callable ``fn(prompt, system) -> str``;
- :class:`ProcedureModel` wraps a DSL procedure ``(lambda (prompt system) …)``.

:class:`ModelRegistry` finds a model by name: registered names first, then ``llm``.
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
import os
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from ..datatypes import MString, Procedure
from .errors import invalid_output, task_failure

#: Environment variable naming the default model.
MODEL_ENV = "TASKSCHEME_MODEL"


class ModelResponse(BaseModel):
    """A model's answer; token counts are None when the backend does not report them."""

    model_config = ConfigDict(defer_build=True)  # validators built on first use: fast start-up

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None


@runtime_checkable
class Model(Protocol):
    """The one model interface every backend implements."""

    name: str

    def complete(self, prompt: str, system: str | None, options: dict[str, Any]) -> ModelResponse: ...


class LlmModel:
    """A model of the ``llm`` library."""

    runs_in_interpreter = False

    def __init__(self, name: str, model: Any) -> None:
        self.name = name
        self.model = model

    def complete(self, prompt: str, system: str | None, options: dict[str, Any]) -> ModelResponse:
        response = self.model.prompt(prompt, system=system or None, **options)
        text = response.text()
        usage = response.usage() if hasattr(response, "usage") else None
        return ModelResponse(
            text=text,
            input_tokens=getattr(usage, "input", None),
            output_tokens=getattr(usage, "output", None),
        )


class FunctionModel:
    """A Python callable ``fn(prompt, system)`` (or ``fn(prompt, system, options)``) as a model."""

    runs_in_interpreter = False

    def __init__(self, name: str, fn: Callable[..., Any]) -> None:
        self.name = name
        self.fn = fn
        self.wants_options = _positional_count(fn) >= 3

    def complete(self, prompt: str, system: str | None, options: dict[str, Any]) -> ModelResponse:
        args = (prompt, system, options) if self.wants_options else (prompt, system)
        return as_response(self.name, self.fn(*args))


class ProcedureModel:
    """A DSL procedure as a model: called with the prompt and the system text ("" when none),
    or with the prompt alone if it takes one argument."""

    runs_in_interpreter = True

    def __init__(self, name: str, proc: Procedure) -> None:
        self.name = name
        self.proc = proc

    def complete(self, prompt: str, system: str | None, options: dict[str, Any]) -> ModelResponse:
        from ..evaluator import apply_procedure

        params = getattr(self.proc, "params", None)
        rest = getattr(self.proc, "rest", None)
        args = [prompt] if params is not None and len(params) == 1 and rest is None else [prompt, system or ""]
        return as_response(self.name, apply_procedure(self.proc, args))


def as_response(name: str, value: Any) -> ModelResponse:
    """A backend's return value as a :class:`ModelResponse`; anything but text is INVALID_OUTPUT."""
    if isinstance(value, ModelResponse):
        return value
    if isinstance(value, (str, MString)):
        return ModelResponse(text=str(value))
    from ..printer import write_string

    shown = write_string(value)[:80]
    raise invalid_output(
        f"model {name} returned {shown}, expected a string", [f"model output must be a string, got {shown}"]
    )


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class ModelRegistry:
    """Models by name: those registered here, then any ``llm`` model by id or alias."""

    def __init__(self, default: str | None = None) -> None:
        self.default = default
        self._models: dict[str, Model] = {}

    def register(self, name: str, model: Model | Callable[..., Any]) -> Model:
        """Register ``model`` (a :class:`Model`, a DSL procedure or a Python callable) as ``name``."""
        if isinstance(model, Procedure):
            wrapped: Model = ProcedureModel(name, model)
        elif isinstance(model, Model):
            wrapped = model
        elif callable(model):
            wrapped = FunctionModel(name, model)
        else:
            raise TypeError(f"model {name}: expected a model, a procedure or a callable, got {model!r}")
        self._models[name] = wrapped
        return wrapped

    def names(self) -> list[str]:
        """The names registered here (``llm`` models are not listed)."""
        return list(self._models)

    def default_name(self) -> str:
        """The default model: the interpreter's ``model``, then $TASKSCHEME_MODEL, then llm's default."""
        if self.default:
            return self.default
        if os.environ.get(MODEL_ENV):
            return os.environ[MODEL_ENV]
        import llm

        return str(llm.get_default_model())

    def get(self, name: str) -> Model:
        """The model called ``name``; an unknown name is a TASK_FAILURE listing similar ones."""
        found = self._models.get(name)
        if found is not None:
            return found
        import llm

        try:
            model = llm.get_model(name)
        except llm.UnknownModelError:
            raise self._unknown(name) from None
        wrapped = LlmModel(name, model)
        self._models[name] = wrapped
        return wrapped

    def _unknown(self, name: str) -> Exception:
        import llm

        known = list(self._models)
        with contextlib.suppress(Exception):  # a broken plugin must not hide the real problem
            known += [alias for m in llm.get_models_with_aliases() for alias in (m.model.model_id, *m.aliases)]
        similar = difflib.get_close_matches(name, known, n=5, cutoff=0.6)
        hint = f"; did you mean: {', '.join(similar)}?" if similar else ""
        return task_failure("unknown_model", f"unknown model {name}{hint}")
