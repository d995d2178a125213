"""The model interface and its backends.

Every backend answers ``complete(prompt, system, options) -> ModelResponse``; those
that can also take ``schema=`` (a JSON schema for structured output) and
``on_text=`` (called with each piece of text as it arrives) say so in the signature
of ``complete``, and the gateway passes them only then:

- :class:`LlmModel` wraps any model of the ``llm`` library (by id or alias);
- :class:`FunctionModel` wraps a Python callable ``fn(prompt, system[, options[, schema]])``
  returning text (or an iterable of text pieces, which streams);
- :class:`ProcedureModel` wraps a DSL procedure ``(lambda (prompt system [options [schema]]) …)``.

A backend signals an error worth retrying (a rate limit, an overloaded server) by
raising :class:`TransientModelError`; :func:`is_transient` also knows the HTTP status
codes and connection errors of the provider libraries.

:class:`ModelRegistry` finds a model by name: registered names first, then ``llm``.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
import reprlib
import threading
from collections.abc import Callable, Collection, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Protocol, runtime_checkable

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ...datatypes import MString, Procedure
from ...errors import SchemeError
from ...evaluator import apply_procedure
from ...printer import write_string
from ..errors import task_failure, validation_error
from ..values import to_scheme
from .providers import known_names, llm_package, resolve

#: Called with each piece of a model's text as it arrives.
OnText = Callable[[str], None]

#: Held while an ``llm`` model is looked up (not thread-safe: two first lookups at once lose models).
LLM_LOOKUP = threading.Lock()

#: Environment variable naming the default model.
MODEL_ENV = "TASKSCHEME_MODEL"


class ModelResponse(BaseModel):
    """A model's answer; token counts are None when the backend does not report them.

    ``raw`` is the backend's own response object (an ``llm`` Response), kept for
    ``--log``; it is never stored or compared."""

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)  # validators built on first use

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    raw: Any = Field(default=None, exclude=True, repr=False)
    #: The parsed answer of a call with a schema.
    data: Any = None
    #: How many tries the call took (0 when answered by the cache or a replay file).
    attempts: int = 0
    #: Answered from the response cache.
    cached: bool = False
    #: Answered from a durable run's journal (docs/durable.md), with the time the call took when it was made.
    replayed: bool = False
    duration_s: float | None = None
    #: Seconds the call waited for its turns under the model's rate limit.
    rate_wait_s: float = 0.0


class TransientModelError(SchemeError):
    """A model failure worth retrying: rate limited, overloaded, timed out, connection lost.

    Python models raise it; DSL models call ``(transient-error "message")``."""

    def __init__(self, message: str, kind: str = "transient-model-error", **kwargs: Any) -> None:
        super().__init__(message, kind=kind, **kwargs)


#: HTTP statuses worth retrying: request timeout, conflict, too many requests, server errors.
TRANSIENT_STATUS = frozenset({408, 409, 429})
#: Exception class names (anywhere in the class's ancestry) that mean a connection failed or timed out.
TRANSIENT_NAMES = ("ConnectionError", "ConnectError", "Timeout", "TimeoutError", "RemoteProtocolError")


def http_status(exc: BaseException) -> int | None:
    """The HTTP status an exception of a provider library carries (openai, anthropic, httpx …), if any."""
    for holder in (exc, getattr(exc, "response", None)):
        status = getattr(holder, "status_code", None) or getattr(holder, "status", None)
        if isinstance(status, int):
            return status
    return None


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: :class:`TransientModelError`, HTTP 408/409/429/5xx,
    connection errors and timeouts (checked through the error and its causes)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, TransientModelError | ConnectionError | TimeoutError):
            return True
        status = http_status(seen)
        if status is not None:
            return status in TRANSIENT_STATUS or 500 <= status <= 599
        names = [cls.__name__ for cls in type(seen).__mro__]
        if any(marker in name for name in names for marker in TRANSIENT_NAMES):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def accepts(fn: Callable[..., Any], name: str) -> bool:
    """True when ``fn`` takes a keyword argument ``name`` (or any keyword arguments)."""
    target = getattr(fn, "__func__", fn)
    try:
        names, any_keyword = _keywords(target)
    except TypeError:  # an unhashable callable object: look it up each time
        names, any_keyword = _keywords.__wrapped__(target)
    return any_keyword or name in names


@functools.lru_cache(maxsize=512)
def _keywords(fn: Callable[..., Any]) -> tuple[frozenset[str], bool]:
    """The parameter names of ``fn`` and whether it takes ``**kwargs`` (looked up once per function)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset(), False
    return frozenset(params), any(p.kind is p.VAR_KEYWORD for p in params.values())


@runtime_checkable
class Model(Protocol):
    """The one model interface every backend implements."""

    name: str

    def complete(self, prompt: str, system: str | None, options: dict[str, Any]) -> ModelResponse: ...


class LlmModel:
    """A model of the ``llm`` library: options checked against its ``Options`` class,
    schemas through llm's schema support, text streamed when asked."""

    runs_in_interpreter = False

    def __init__(self, name: str, model: Any, async_model: Any = None) -> None:
        self.name = name
        self.model = model
        #: llm's async form of the model, when it has one: calls then run on the event loop.
        self.async_model = async_model

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` (kebab or snake case) validated by the model's own ``Options`` class;
        a bad one is a VALIDATION_ERROR naming it."""
        cls = self.model.Options
        known = list(cls.model_fields)
        given = {key.replace("-", "_"): value for key, value in options.items()}
        for key in given:
            if key not in known:
                similar = difflib.get_close_matches(key, known, n=3, cutoff=0.6)
                hint = f"; did you mean {', '.join(similar)}?" if similar else ""
                listed = ", ".join(k.replace("_", "-") for k in known) or "none"
                raise validation_error(
                    f"model {self.name} has no option {key.replace('_', '-')}{hint} (its options: {listed})",
                    f"options.{key}",
                )
        try:
            cls(**given)
        except pydantic.ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise validation_error(
                f"model {self.name}: option {where.replace('_', '-')}: {problem['msg']}", f"options.{where}"
            ) from None
        return given

    def _arguments(
        self, options: dict[str, Any], schema: dict[str, Any] | None, attachments: tuple[str, ...]
    ) -> dict[str, Any]:
        """llm's ``prompt()`` keyword arguments for these options, schema and attachments."""
        llm = llm_package()
        extra: dict[str, Any] = {}
        if schema is not None and getattr(self.model, "supports_schema", False):
            extra["schema"] = schema
        if attachments:
            extra["attachments"] = [
                llm.Attachment(url=a) if a.startswith(("http://", "https://")) else llm.Attachment(path=a)
                for a in attachments
            ]
        return {**extra, **self.check_options(options)}

    def complete(
        self,
        prompt: str,
        system: str | None,
        options: dict[str, Any],
        schema: dict[str, Any] | None = None,
        on_text: OnText | None = None,
        attachments: tuple[str, ...] = (),
    ) -> ModelResponse:
        stream = on_text is not None and getattr(self.model, "can_stream", False)
        arguments = self._arguments(options, schema, attachments)
        response = self.model.prompt(prompt, system=system or None, stream=stream, **arguments)
        if stream:
            assert on_text is not None
            for chunk in response:
                on_text(chunk)
        text = response.text()
        return _llm_response(text, response.usage() if hasattr(response, "usage") else None, response)

    async def complete_async(
        self,
        prompt: str,
        system: str | None,
        options: dict[str, Any],
        schema: dict[str, Any] | None = None,
        on_text: OnText | None = None,
        attachments: tuple[str, ...] = (),
    ) -> ModelResponse:
        """``complete`` through llm's async model (see :attr:`async_model`): cancelling it closes the connection."""
        assert self.async_model is not None
        stream = on_text is not None and getattr(self.async_model, "can_stream", False)
        arguments = self._arguments(options, schema, attachments)
        response = self.async_model.prompt(prompt, system=system or None, stream=stream, **arguments)
        if stream:
            assert on_text is not None
            async for chunk in response:
                on_text(chunk)
        text = await response.text()
        return _llm_response(text, await response.usage(), response)


def _llm_response(text: str, usage: Any, raw: Any) -> ModelResponse:
    return ModelResponse(
        text=text,
        input_tokens=getattr(usage, "input", None),
        output_tokens=getattr(usage, "output", None),
        raw=raw,
    )


#: What a Python model may take besides the prompt and the system text.
EXTRAS = ("options", "schema", "attachments")


class FunctionModel:
    """A Python callable ``fn(prompt, system)``, ``fn(prompt, system, options)`` or
    ``fn(prompt, system, options, schema)`` as a model; a function with parameters named
    ``options``, ``schema`` or ``attachments`` (or ``**kwargs``) gets those by keyword.
    It may return text, a :class:`ModelResponse`, or an iterable of text pieces (which streams)."""

    runs_in_interpreter = False

    def __init__(self, name: str, fn: Callable[..., Any]) -> None:
        self.name = name
        self.fn = fn
        #: Extras passed by keyword, when the function names them (or takes ``**kwargs``) …
        self.keywords = [name for name in EXTRAS if accepts(fn, name)]
        #: … else options and schema passed by position, third and fourth.
        self.positional = [] if self.keywords else list(EXTRAS[: max(0, _positional_count(fn) - 2)])

    def complete(
        self,
        prompt: str,
        system: str | None,
        options: dict[str, Any],
        schema: dict[str, Any] | None = None,
        on_text: OnText | None = None,
        attachments: tuple[str, ...] = (),
    ) -> ModelResponse:
        if self.positional or self.keywords:
            extras = {"options": options, "schema": schema, "attachments": list(attachments)}
            args = [prompt, system, *(extras[name] for name in self.positional)]
            value = self.fn(*args, **{name: extras[name] for name in self.keywords})
        else:  # fn(prompt, system): nothing more to build
            value = self.fn(prompt, system)
        if type(value) is str:
            return ModelResponse(text=value)
        if streams(value):
            pieces = []
            for piece in value:
                if not isinstance(piece, str | MString):
                    raise not_text(self.name, piece, True, "a piece of its answer")
                pieces.append(str(piece))
                if on_text is not None:
                    on_text(str(piece))
            value = "".join(pieces)
        return as_response(self.name, value, host=True)


def streams(value: Any) -> bool:
    """Whether a Python model's answer is text in pieces: an iterable that is no text, no
    bytes, and no mapping or set (a dict is not its keys)."""
    if isinstance(value, str | MString | ModelResponse | bytes | bytearray | Mapping | AbstractSet):
        return False
    return hasattr(value, "__iter__")


class ProcedureModel:
    """A DSL procedure as a model: called with the prompt alone if it takes one argument,
    else with the prompt and the system text ("" when none), then the options (an
    association list) and the schema (JSON-like data, #f when none) if it takes them."""

    runs_in_interpreter = True

    def __init__(self, name: str, proc: Procedure) -> None:
        self.name = name
        self.proc = proc

    def complete(
        self, prompt: str, system: str | None, options: dict[str, Any], schema: dict[str, Any] | None = None
    ) -> ModelResponse:
        params = getattr(self.proc, "params", None)
        rest = getattr(self.proc, "rest", None)
        count = len(params) if params is not None else 2
        if rest is not None:
            count = 4
        args: list[Any] = [prompt] if count == 1 else [prompt, system or ""]
        if count >= 3:
            args.append(to_scheme(options))
        if count >= 4:
            args.append(to_scheme(schema) if schema is not None else False)
        return as_response(self.name, apply_procedure(self.proc, args))


def as_response(name: str, value: Any, host: bool = False) -> ModelResponse:
    """A backend's return value as a :class:`ModelResponse`; anything but text is a TASK_FAILURE
    (``host``: a Python model's value, shown as Python shows it)."""
    if isinstance(value, ModelResponse):
        return value
    if isinstance(value, (str, MString)):
        return ModelResponse(text=str(value))
    raise not_text(name, value, host)


def not_text(name: str, value: Any, host: bool, what: str = "") -> SchemeError:
    """The TASK_FAILURE (reason ``not_text``) of a model whose answer (or ``what`` of it) is
    ``value``, no text: it names the value's type and shows the value."""
    kind = type(value).__name__
    try:
        shown = reprlib.repr(value) if host else write_string(value)
    except Exception:  # a value that will not print (an int over 4,300 digits …)
        shown = f"<{kind}>"
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    text = f"model {name} returned {what + ' that is ' if what else ''}{article} {kind}, expected text: {shown}"
    return task_failure("not_text", text)


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class ModelRegistry:
    """Models by name: those registered here, then the ``llm`` models (by id or alias)
    that ``allow`` grants: the ``allow_models`` capability. The host's own default
    model (``Interpreter(model=…)``) is granted with it."""

    def __init__(self, default: str | None = None, allow: bool | Collection[str] = True) -> None:
        self.default = default
        self.allow = allow
        self._models: dict[str, Model] = {}

    def allows(self, name: str) -> bool:
        """Whether an ``llm`` model called ``name`` may be reached."""
        if self.allow is True or name == self.default:
            return True
        return self.allow is not False and name in self.allow

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
        return str(llm_package().get_default_model())

    def get(self, name: str) -> Model:
        """The model called ``name``; an unknown name is a TASK_FAILURE listing similar ones."""
        found = self._models.get(name)
        if found is not None:
            return found
        if not self.allows(name):
            raise self._unknown(name)
        llm = llm_package()
        with LLM_LOOKUP:  # one resolution per name: branches of a parallel form wait for the first
            if (found := self._models.get(name)) is not None:
                return found
            try:
                model, async_model = resolve(name)
            except llm.UnknownModelError:
                raise self._unknown(name) from None
            wrapped = LlmModel(name, model, async_model)
            self._models[name] = wrapped
        return wrapped

    def _unknown(self, name: str) -> Exception:
        known = list(self._models)
        if self.allow is True:  # suggest only what the program may reach (a broken plugin gives none)
            known += known_names()
        similar = difflib.get_close_matches(name, list(dict.fromkeys(known)), n=5, cutoff=0.6)  # each name once
        hint = f"; did you mean: {', '.join(similar)}?" if similar else ""
        if self.allow is not True:  # the same words whether llm has such a model or not
            hint += "; models installed with llm are reachable only with the allow_models capability"
        return task_failure("unknown_model", f"unknown model {name}{hint}")
