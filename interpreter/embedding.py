"""Host functions inside the DSL: ``@interp.primitive``, ``@interp.task`` and ``aeval``.

A host function sees Python values and returns one (see :mod:`.conversion`); its
arity comes from its signature, and an exception it raises becomes a taskscheme
error the program can ``guard`` (the original is in the error's ``details["exception"]``).
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import typing
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .datatypes import Keyword, Primitive, arity_text
from .errors import arity_error
from .evaluator import call_host
from .keywords import normal_name, split_keywords
from .limits import CancelToken
from .primitives.registry import signature_arity

if TYPE_CHECKING:
    import asyncio

    import pydantic

    from .conversion import Converter
    from .facade import Facade


def dsl_name(fn: Callable[..., Any]) -> str:
    """The DSL name of a Python function: ``word_count`` → ``word-count``."""
    return getattr(fn, "__name__", "host-function").strip("_").replace("_", "-") or "host-function"


def _takes_keywords(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in params)


def _arity(fn: Callable[..., Any]) -> tuple[int, int | None]:
    try:
        return signature_arity(fn)
    except (TypeError, ValueError):  # some built-ins have no signature
        return 0, None


def host_procedure(convert: Converter, fn: Callable[..., Any], name: str | None = None, doc: str = "") -> Primitive:
    """``fn`` as a DSL procedure: arguments converted to Python, the result back to Scheme.

    A function with keyword parameters also accepts ``#:name value`` arguments.
    """
    who = name or dsl_name(fn)
    lo, hi = _arity(fn)
    keywords = _takes_keywords(fn)
    to_python, to_scheme = convert.to_python, convert.to_scheme

    def call(*args: Any) -> Any:
        kwargs: dict[str, Any] = {}
        positional = list(args)
        if keywords and any(type(a) is Keyword for a in args):
            positional, named = split_keywords(who, positional)
            kwargs = {normal_name(k): to_python(v) for k, v in named.items()}
        n = len(positional)
        if n < lo or (hi is not None and n > hi):
            raise arity_error(who, arity_text(lo, hi), n)
        return to_scheme(call_host(who, fn, [to_python(a) for a in positional], kwargs))

    call.host_callable = fn  # type: ignore[attr-defined]
    text = doc or (inspect.getdoc(fn) or "").split("\n")[0]
    return Primitive(who, call, lo, None if keywords else hi, text)


# -- tasks ---------------------------------------------------------------------------
def _parameter_model(name: str, fn: Callable[..., Any]) -> tuple[type[pydantic.BaseModel], list[inspect.Parameter]]:
    """A pydantic model whose fields are ``fn``'s parameters, typed by its hints."""
    import pydantic  # reason: start-up laziness: pydantic and pydantic_core are ~25 ms a start never needs

    from .tasks.errors import validation_error  # reason: start-up laziness: the task runtime and its records (~40 ms)

    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unresolvable forward references: validate what can be
        hints = getattr(fn, "__annotations__", {})
    params = list(inspect.signature(fn).parameters.values())
    fields: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise validation_error(f"task {name}: *{p.name} parameters are not supported in tasks", p.name)
        annotation = hints.get(p.name, Any)
        fields[p.name] = (annotation, ... if p.default is p.empty else p.default)
    config = pydantic.ConfigDict(arbitrary_types_allowed=True, protected_namespaces=())
    model = pydantic.create_model(f"{name}-parameters", __config__=config, **fields)
    return model, params


def host_task(interp: Facade, fn: Callable[..., Any], name: str | None = None, description: str = "") -> None:
    """Register ``fn`` as a procedure task whose arguments pydantic validates from its type hints.

    A bad argument is a ``VALIDATION_ERROR`` whose path names the parameter.
    """
    import pydantic  # reason: start-up laziness, as in _parameter_model

    from .tasks.errors import from_validation  # reason: start-up laziness: the task runtime (~40 ms)
    from .tasks.records import TaskDefinition, TaskParam  # reason: as above

    task = name or dsl_name(fn)
    model, params = _parameter_model(task, fn)
    convert = interp.converter
    definition = TaskDefinition(
        name=task,
        type="procedure",
        description=description or (inspect.getdoc(fn) or "").split("\n")[0],
        params=[
            TaskParam(name=p.name.replace("_", "-"))
            if p.default is p.empty
            else TaskParam(name=p.name.replace("_", "-"), required=False, default=convert.to_scheme(p.default))
            for p in params
        ],
    )

    def run(bound: dict[str, Any]) -> Any:
        values = {normal_name(k): convert.to_python(v) for k, v in bound.items()}
        try:
            checked = model.model_validate(values)
        except pydantic.ValidationError as exc:
            raise from_validation(exc, f"task {task}") from None
        kwargs = {p.name: getattr(checked, p.name) for p in params}
        return convert.to_scheme(call_host(f"task {task}", fn, [], kwargs))

    run.takes_bound_arguments = True  # type: ignore[attr-defined]
    interp.tasks.register(definition, run, replace=True)


# -- asynchronous evaluation -----------------------------------------------------------
async def evaluate_async(interp: Facade, source: str, filename: str) -> Any:
    """Evaluate on a worker thread; cancelling the awaiting task stops the program.

    On cancellation the program is stopped at its next check (a running script is
    killed), and the coroutine waits for the worker to finish before re-raising
    :class:`asyncio.CancelledError`, so the interpreter is idle and usable again.
    """
    token = CancelToken()
    import asyncio  # here, not at import: asyncio costs start-up time every CLI run would pay

    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def finish(ok: bool, value: Any) -> None:
        if not done.done():
            done.set_exception(value) if not ok else done.set_result(value)

    def work() -> None:
        try:
            result = (True, _eval_until_cancelled(interp, token, source, filename))
        except BaseException as exc:  # handed to the awaiting coroutine
            result = (False, exc)
        with contextlib.suppress(RuntimeError):  # the loop may have closed
            loop.call_soon_threadsafe(finish, *result)

    worker = threading.Thread(target=work, name="taskscheme-aeval", daemon=True)
    worker.start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        token.cancel()
        interp.runtime.interrupt()
        await _settle(done)
        raise


_LOCKS: weakref.WeakKeyDictionary[Facade, threading.Lock] = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def _eval_until_cancelled(interp: Facade, token: CancelToken, source: str, filename: str) -> Any:
    """``interp.eval`` with ``token`` checked at each runtime check; one at a time per interpreter."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(interp, threading.Lock())
    with lock:
        token.check()
        rt = interp.runtime
        previous = rt.extra_check

        def check() -> None:
            token.check()
            if previous is not None:
                previous()

        rt.extra_check = check
        try:
            return interp.eval(source, filename=filename)
        finally:
            rt.extra_check = previous


async def _settle(done: asyncio.Future[Any]) -> None:
    """Wait for the cancelled program to stop, whatever else is cancelled meanwhile."""
    import asyncio  # lazy, as in evaluate_async: asyncio costs start-up time every CLI run would pay

    while not done.done():
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            continue
        except BaseException:
            break
    if done.done() and not done.cancelled():
        done.exception()  # mark it retrieved
