"""A small OpenAI-compatible chat server on loopback, for tests that reach a provider
over HTTP through ``llm``'s own OpenAI plugin, exactly as a user's model would.

    server = ProviderServer().start()
    write_models(llm_home, server.base_url, ["fake"])     # extra-openai-models.yaml
    server.fail(2, 429, {"Retry-After": "0"})              # the next two requests
    ...
    server.requests      # every request it received, in order (a list of Request)
    server.hangups       # requests whose client hung up before the answer was complete
    server.stop()

It answers ``POST /v1/chat/completions`` plainly, or by server-sent events when the
request asks to stream (``"stream": true``; ``always_stream`` forces it), with
``usage`` counted in words: the prompt's words in, the answer's words out. The answer
is ``reply(prompt)``; by default ``"echo: " + the last user message``.

It can be told to be slow (``delay`` before answering, ``chunk_delay`` between
streamed pieces), to fail the next k requests with any status, headers and body, to
drop the connection mid-stream, or to send malformed JSON; a model name it does not
serve gets OpenAI's 404, and a prompt longer than ``context_limit`` words gets
OpenAI's 400 ``context_length_exceeded``.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Request:
    """One request the server received."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float  # time.monotonic() when it arrived

    @property
    def prompt(self) -> str:
        """The last user message's text."""
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, list):
                    return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
                return str(content)
        return ""

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))


@dataclass
class Failure:
    """What the next failing request gets."""

    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # a dict (sent as JSON), a str, or None for OpenAI's error shape


@dataclass
class Plan:
    """How the server behaves; change it between calls through :class:`ProviderServer`'s methods."""

    models: set[str] | None = None  # None: every model name is served
    reply: Callable[[str], str] = lambda prompt: f"echo: {prompt}"
    delay: float = 0.0
    chunk_delay: float = 0.0
    always_stream: bool = False
    context_limit: int | None = None
    failures: list[Failure] = field(default_factory=list)
    drops: int = 0  # the next n streamed answers stop after their first piece
    malformed: int = 0  # the next n answers are not JSON
    required_key: str | None = None  # answer 401 unless "Authorization: Bearer KEY"


def words(text: str) -> int:
    """The server's token count: whitespace-separated words."""
    return len(text.split())


ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def error_body(status: int, message: str | None = None, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape."""
    return {
        "error": {
            "message": message or f"simulated error {status}",
            "type": ERROR_TYPES.get(status, "server_error"),
            "param": None,
            "code": code,
        }
    }


class ProviderServer:
    """The server; ``start()`` binds ``127.0.0.1`` on a free port and serves on a thread."""

    def __init__(self) -> None:
        self.plan = Plan()
        self.requests: list[Request] = []
        self.hangups = 0
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life ------------------------------------------------------------------------
    def start(self) -> ProviderServer:
        handler = type("Handler", (_Handler,), {"provider": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="provider-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ProviderServer:
        return self.start() if self._server is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``api_base`` to give llm: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- telling it what to do -------------------------------------------------------
    def reset(self) -> None:
        """Forget every request and instruction."""
        with self.lock:
            self.plan = Plan()
            self.requests.clear()
            self.hangups = 0

    def fail(self, count: int, status: int, headers: dict[str, str] | None = None, body: Any = None) -> None:
        """The next ``count`` requests fail with ``status`` (and these headers and body)."""
        with self.lock:
            self.plan.failures.extend(Failure(status, dict(headers or {}), body) for _ in range(count))

    def drop(self, count: int = 1) -> None:
        """The next ``count`` streamed answers close the connection after their first piece."""
        with self.lock:
            self.plan.drops += count

    def malform(self, count: int = 1) -> None:
        """The next ``count`` answers are broken JSON."""
        with self.lock:
            self.plan.malformed += count

    def configure(self, **settings: Any) -> None:
        """Set fields of :class:`Plan`: ``delay``, ``chunk_delay``, ``reply``, ``models`` …"""
        with self.lock:
            for name, value in settings.items():
                if not hasattr(self.plan, name):
                    raise AttributeError(f"the provider server has no setting {name}")
                setattr(self.plan, name, value)

    # -- what it saw -----------------------------------------------------------------
    @property
    def count(self) -> int:
        """How many chat requests it received."""
        with self.lock:
            return len(self.requests)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until ``predicate()`` holds (True) or ``timeout`` passes (False)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()


class _Handler(BaseHTTPRequestHandler):
    provider: ProviderServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            models = sorted(self.provider.plan.models or ["fake"])
            self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in models]})
        else:
            self._json(404, error_body(404, f"no route {self.path}"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._json(400, error_body(400, "request body is not JSON"))
            return
        provider = self.provider
        request = Request(self.path, body, dict(self.headers.items()), time.monotonic())
        with provider.lock:
            provider.requests.append(request)
            plan = provider.plan
            failure = plan.failures.pop(0) if plan.failures else None
            malformed = plan.malformed > 0
            plan.malformed -= malformed
            stream = request.stream or plan.always_stream
            drop = stream and plan.drops > 0
            plan.drops -= drop
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, error_body(404, f"no route {self.path}"))
            return
        if plan.delay and not self._sleep(plan.delay):
            return
        if failure is not None:
            self._failure(failure)
            return
        if plan.required_key is not None and self.headers.get("Authorization") != f"Bearer {plan.required_key}":
            self._json(401, error_body(401, "Incorrect API key provided", "invalid_api_key"))
            return
        model = str(body.get("model"))
        if plan.models is not None and model not in plan.models:
            message = f"The model `{model}` does not exist or you do not have access to it."
            self._json(404, error_body(404, message, "model_not_found"))
            return
        prompt_tokens = sum(words(_text(m.get("content"))) for m in body.get("messages") or [])
        if plan.context_limit is not None and prompt_tokens > plan.context_limit:
            message = (
                f"This model's maximum context length is {plan.context_limit} tokens. However, your messages "
                f"resulted in {prompt_tokens} tokens. Please reduce the length of the messages."
            )
            self._json(400, error_body(400, message, "context_length_exceeded"))
            return
        answer = plan.reply(request.prompt)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": words(answer),
            "total_tokens": prompt_tokens + words(answer),
        }
        if malformed:
            self._send(200, b'{"id": "chatcmpl-1", "choices": [{"message": ', "application/json")
        elif stream:
            self._stream(model, answer, usage, drop, plan.chunk_delay)
        else:
            self._json(
                200,
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": answer},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": usage,
                },
            )

    # -- answering -------------------------------------------------------------------
    def _failure(self, failure: Failure) -> None:
        body = failure.body if failure.body is not None else error_body(failure.status)
        data = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
        self._send(failure.status, data, "application/json", failure.headers)

    def _json(self, status: int, body: Any) -> None:
        self._send(status, json.dumps(body).encode(), "application/json")

    def _send(self, status: int, data: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self._hung_up()

    def _stream(self, model: str, answer: str, usage: dict[str, int], drop: bool, chunk_delay: float) -> None:
        pieces = _pieces(answer)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")  # as real servers stream: a cut is visible
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for index, piece in enumerate(pieces):
                delta: dict[str, Any] = {"content": piece}
                if index == 0:
                    delta["role"] = "assistant"
                self._event(_chunk(model, delta, None))
                if drop:  # a connection lost mid-answer
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if chunk_delay and not self._sleep(chunk_delay):
                    return
            self._event(_chunk(model, {}, "stop"))
            self._event({**_chunk(model, None, None), "choices": [], "usage": usage})
            self._write_chunk(b"data: [DONE]\n\n")
            self._write_chunk(b"")  # the chunked body's end
        except OSError:
            self._hung_up()

    def _event(self, payload: dict[str, Any]) -> None:
        self._write_chunk(b"data: " + json.dumps(payload).encode() + b"\n\n")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _sleep(self, seconds: float) -> bool:
        """Wait ``seconds``, watching the socket: False (and a hang-up counted) if the client closed it."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            if readable:
                try:
                    peeked = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    peeked = b""
                if not peeked:
                    self._hung_up()
                    return False
                time.sleep(min(left, 0.02))  # the next request of a kept-alive connection: not ours to read
        return True

    def _hung_up(self) -> None:
        self.close_connection = True
        with self.provider.lock:
            self.provider.hangups += 1


def _text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _pieces(answer: str) -> list[str]:
    """The answer cut into streamed pieces: one word (with its following space) each."""
    pieces: list[str] = []
    for word in answer.split(" "):
        pieces.append(word + " ")
    if pieces:
        pieces[-1] = pieces[-1][:-1]
    return [p for p in pieces if p] or [""]


def _chunk(model: str, delta: dict[str, Any] | None, finish: str | None) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
    }


def write_models(
    home: Path,
    base_url: str,
    models: Iterable[str] = ("fake",),
    *,
    api_key_name: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``extra-openai-models.yaml`` in llm's folder ``home`` (``LLM_USER_PATH``):
    each model served by ``base_url`` under its own name, as a user configures a local server."""
    lines: list[str] = []
    for name in models:
        lines.append(f"- model_id: {json.dumps(name)}")
        lines.append(f"  model_name: {json.dumps(name)}")
        lines.append(f"  api_base: {json.dumps(base_url)}")
        if api_key_name is not None:
            lines.append(f"  api_key_name: {json.dumps(api_key_name)}")
        for key, value in (extra or {}).items():
            lines.append(f"  {key}: {json.dumps(value)}")
    path = Path(home) / "extra-openai-models.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path
