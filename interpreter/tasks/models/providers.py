"""Models of the ``llm`` library as providers: found safely from many threads, with
their SDK's own retries off (ours are the only ones), and their errors turned into
TASK_FAILUREs that say what happened and what to do.

- :func:`resolve` looks a model up under one process-wide lock: llm marks its plugins
  loaded before it has registered them, so two first lookups at once could miss a model.
- :func:`quiet_clients` makes every OpenAI-style client the model builds (``get_client``)
  send each request once (``max_retries = 0``) and remembers it, so an abandoned call can
  close its connection. A plugin that builds its clients another way keeps its SDK's
  retries (docs/models.md says so).
- :func:`provider_failure` reads a provider error: its HTTP status, OpenAI's error code,
  ``Retry-After`` … and gives a TASK_FAILURE with a ``reason`` a program can test:
  ``auth``, ``context_length``, ``not_found``, ``connection``, ``rate_limited``,
  ``server``, ``content_filter`` (anything else: ``model_error``).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import re
import socket
import threading
import time
from typing import Any

from ..errors import TaskError, task_failure

#: One lock around llm's plugin loading and model lookup, for the whole process.
_RESOLVE_LOCK = threading.RLock()

#: The HTTP clients built by the call under way on this context (closed when it is abandoned).
OPEN_CLIENTS: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("taskscheme_clients", default=None)


def llm_package() -> Any:
    """The ``llm`` package, imported when a program first reaches a model of llm's."""
    # start-up laziness: llm and its plugins cost 0.4 s of imports (tests/test_startup_imports.py)
    import llm

    return llm


def resolve(name: str) -> tuple[Any, Any]:
    """(sync model, async model or None) of the ``llm`` model called ``name``, under the lock;
    raises ``llm.UnknownModelError`` when llm knows no such model."""
    llm = llm_package()
    with _RESOLVE_LOCK:
        model = llm.get_model(name)
        try:
            async_model = llm.get_async_model(name)
        except llm.UnknownModelError:
            async_model = None
    for instance in (model, async_model):
        if instance is not None:
            quiet_clients(instance)
    if async_model is not None and hasattr(async_model, "get_client"):
        # made now, on the caller's thread: made by the first call, it would hold up the event loop
        # (and every other call on it) while the SDK builds its client
        with contextlib.suppress(Exception):  # no key yet, say: the call itself will say so
            async_model.get_client(async_model.get_key(None), async_=True)
    return model, async_model


def known_names() -> list[str]:
    """Every model id and alias llm knows (for did-you-mean hints); [] if a plugin is broken."""
    llm = llm_package()
    with _RESOLVE_LOCK, contextlib.suppress(Exception):
        return [alias for m in llm.get_models_with_aliases() for alias in (m.model.model_id, *m.aliases)]
    return []


def quiet_clients(model: Any) -> None:
    """Make ``model`` (an llm model instance of ours) build clients that never retry on their own.

    Async clients are kept and reused (they live on the one event loop, and cancelling a
    request closes its own connection); a sync client is made per call, as llm makes it,
    so that closing an abandoned call's client touches no other call."""
    original = getattr(model, "get_client", None)
    if original is None or getattr(original, "taskscheme_quiet", False):
        return
    kept: dict[Any, Any] = {}

    def get_client(*args: Any, **kwargs: Any) -> Any:
        shared = bool(kwargs.get("async_"))
        key = args[0] if args else kwargs.get("key")  # the API key: one client per key
        if shared and key in kept:
            return kept[key]
        client = original(*args, **kwargs)
        if hasattr(client, "max_retries"):
            client.max_retries = 0  # one request per attempt: our retry policy is the only one
        if shared:
            kept[key] = client
        elif (opened := OPEN_CLIENTS.get()) is not None:
            opened.append(client)
        return client

    get_client.taskscheme_quiet = True  # type: ignore[attr-defined]
    model.get_client = get_client


def close_clients(clients: list[Any]) -> None:
    """Close the HTTP clients of an abandoned call: its connection drops, the provider stops.

    Closing a socket does not wake a thread blocked reading it, so each open connection's
    socket is shut down first (reached through httpx's pool; a client built another way
    is only closed)."""
    for client in clients:
        with contextlib.suppress(Exception):
            pool = getattr(getattr(getattr(client, "_client", client), "_transport", None), "_pool", None)
            for connection in list(getattr(pool, "connections", ())):
                inner = getattr(connection, "_connection", None)
                sock = getattr(getattr(inner, "_network_stream", None), "_sock", None)
                if sock is not None:
                    sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(Exception):
            client.close()


# -- reading provider errors -----------------------------------------------------------
REASONS = ("auth", "context_length", "not_found", "connection", "rate_limited", "server", "content_filter")
#: Class names (in an exception's ancestry) of a connection that failed or was cut.
CONNECTION_NAMES = ("APIConnectionError", "ConnectError", "ConnectionError", "RemoteProtocolError", "ReadError")
TIMEOUT_NAMES = ("Timeout", "TimeoutError")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _status(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int):
            return status
    return None


def _detail(exc: BaseException) -> tuple[str, str | None]:
    """(the provider's own message, its error code) from an SDK error."""
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else None
    message = ""
    code = getattr(exc, "code", None)
    if isinstance(error, dict):
        message = str(error.get("message") or "")
        code = code or error.get("code") or error.get("type")
    return message or str(exc), (str(code) if code else None)


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (``retry-after-ms``, ``Retry-After`` as
    seconds or an HTTP date), if it said."""
    for link in _chain(exc):
        headers = getattr(getattr(link, "response", None), "headers", None)
        if headers is None:
            continue
        with contextlib.suppress(ValueError, TypeError):
            if (ms := headers.get("retry-after-ms")) is not None:
                return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            import email.utils  # start-up: ~4 ms (email's parser and charsets), for an HTTP-date Retry-After only

            with contextlib.suppress(TypeError, ValueError):
                when = email.utils.parsedate_to_datetime(value)
                return max(0.0, when.timestamp() - time.time())
    return None


def _key_advice(model: Any, name: str) -> str:
    needs = getattr(model, "needs_key", None)
    env = getattr(model, "key_env_var", None)
    base = getattr(model, "api_base", None)
    if needs:
        advice = f"it expects the key named {needs!r}: set it with `llm keys set {needs}`"
        if env:
            advice += f" or the {env} environment variable"
        return advice
    if base:
        return (
            f"it is configured with no key (api_base {base}): add `api_key_name: NAME` to its entry in "
            "extra-openai-models.yaml and run `llm keys set NAME`"
        )
    return f"check the key llm uses for {name} (`llm keys list`)"


def _numbers(message: str) -> tuple[int | None, int | None]:
    """(tokens sent, the model's limit) as a context-length message states them."""
    limit = re.search(r"maximum context length is (\d+)", message) or re.search(r"limit of (\d+)", message)
    sent = re.search(r"resulted in (\d+)", message) or re.search(r"(\d+) tokens? (?:>|exceeds)", message)
    return (int(sent.group(1)) if sent else None), (int(limit.group(1)) if limit else None)


def provider_failure(exc: BaseException, name: str, model: Any, estimate: int) -> TaskError | None:
    """The TASK_FAILURE for an error of ``llm`` model ``name`` (``model`` its llm instance;
    ``estimate`` our count of the prompt's tokens), or None when it is not a provider error."""
    llm = llm_package()
    chain = _chain(exc)
    for link in chain:
        if isinstance(link, llm.NeedsKeyException):
            return _failure("auth", f"model {name} has no API key: {_key_advice(model, name)}", False)
    status = next((s for link in chain if (s := _status(link)) is not None), None)
    source = next((link for link in chain if _status(link) is not None), exc)
    if status is not None:
        message, code = _detail(source)
        said = f"{status} {message}".strip()
        lowered = f"{code or ''} {message}".lower()
        if status in (401, 403):
            return _failure(
                "auth", f"model {name}: the provider refused the key ({said}); {_key_advice(model, name)}", False
            )
        if "context_length" in lowered or "maximum context length" in lowered or "too many tokens" in lowered:
            sent, limit = _numbers(message)
            sent_text = f"{sent} tokens" if sent is not None else f"about {estimate} tokens (estimated)"
            limit_text = f"the model's limit is {limit} tokens" if limit is not None else "the model's limit is unknown"
            failure = _failure(
                "context_length",
                f"model {name}: the prompt is too long: {sent_text} were sent and {limit_text}; "
                "shorten the prompt or use a model with a longer context",
                False,
            )
            failure.record.notes.update({"tokens": sent if sent is not None else estimate, "limit": limit})  # type: ignore[attr-defined]
            return failure
        if "content_filter" in lowered or "content management policy" in lowered or "safety" in (code or ""):
            return _failure("content_filter", f"model {name}: the provider's content filter refused it ({said})", False)
        if status == 404:
            return _not_found(name, said)
        if status == 429:
            failure = _failure("rate_limited", f"model {name}: rate limited by the provider ({said})", True)
            failure.record.notes["retry_after"] = retry_after(source)  # type: ignore[attr-defined]
            return failure
        if status >= 500 or status in (408, 409):
            failure = _failure("server", f"model {name}: the provider failed ({said})", True)
            failure.record.notes["retry_after"] = retry_after(source)  # type: ignore[attr-defined]
            return failure
        return None
    names = [cls.__name__ for link in chain for cls in type(link).__mro__]
    base = getattr(model, "api_base", None)
    where = f"api_base {base}" if base else "the provider"
    if any(marker in n for n in names for marker in TIMEOUT_NAMES):
        return _failure("connection", f"model {name}: {where} did not answer in time ({_short(exc)})", True)
    if any(n in CONNECTION_NAMES for n in names) or any(isinstance(link, ConnectionError) for link in chain):
        cut = any(n in ("RemoteProtocolError", "ReadError") for n in names)
        what = "closed the connection before the answer was complete" if cut else "could not be reached"
        return _failure("connection", f"model {name}: {where} {what} ({_short(exc)})", True)
    if any(n in ("JSONDecodeError", "APIResponseValidationError") for n in names):
        return _failure("server", f"model {name}: the provider sent a malformed answer ({_short(exc)})", True)
    return None


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _not_found(name: str, said: str) -> TaskError:
    similar = difflib.get_close_matches(name, [n for n in known_names() if n != name], n=5, cutoff=0.5)
    hint = f"; did you mean: {', '.join(similar)}?" if similar else "; `llm models` lists the models llm knows"
    return _failure("not_found", f"model {name}: the provider has no such model ({said}){hint}", False)


def _failure(reason: str, message: str, transient: bool) -> TaskError:
    err = task_failure(reason, message)
    err.record.notes["transient"] = transient  # type: ignore[attr-defined]
    return err
