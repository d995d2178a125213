"""Per-model rate limits: requests and tokens per minute, as a provider's quota counts them.

One :class:`RateLimiter` per model per interpreter, shared by every branch of
``parallel-map``, every thread of a batch and every retry. Each is a token bucket in
its exact form (GCRA): a request may start once the model's *theoretical arrival time*
has come; each request moves that time on by ``60 / rpm`` seconds, and by its tokens
over ``tpm / 60`` tokens a second. Requests are thus spaced evenly (no burst beyond one
request), reserved in the order they ask, and the bucket never refuses: a caller waits
its turn. The tokens reserved are an estimate (the prompt's); :meth:`RateLimiter.settle`
corrects the reservation by the tokens the provider reported.

Waits sleep in short slices and poll the caller's limits, so a timeout or Ctrl-C ends a
call that is waiting its turn; the time waited is returned and counted in the trace
and in usage (``rate_wait_s``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import pydantic
from pydantic import Field

from ..errors import from_validation, validation_error
from ..records import SchemeRecord

#: Longest single sleep while waiting for a turn (the caller's limits are checked between).
SLICE = 0.02


class RateLimit(SchemeRecord):
    """A model's quota: requests and tokens per minute (None: not limited)."""

    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)


class RateLimiter:
    """The bucket of one model."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self._lock = threading.Lock()
        self._next = 0.0  # when the next request may start
        self._tokens_next = 0.0  # when the token budget allows the next request

    def reserve(self, tokens: int) -> float:
        """Reserve a turn for a request of about ``tokens`` tokens; the seconds to wait for it."""
        with self._lock:
            now = self.clock()
            start = max(now, self._next, self._tokens_next)
            if self.limit.rpm is not None:
                self._next = start + 60.0 / self.limit.rpm
            if self.limit.tpm is not None:
                self._tokens_next = start + tokens * 60.0 / self.limit.tpm
            return start - now

    def settle(self, estimated: int, actual: int) -> None:
        """Correct a reservation made for ``estimated`` tokens by the ``actual`` count."""
        if self.limit.tpm is None or actual == estimated:
            return
        with self._lock:
            self._tokens_next += (actual - estimated) * 60.0 / self.limit.tpm

    def acquire(self, tokens: int, poll: Callable[[], None]) -> float:
        """Wait for a turn (checking ``poll`` as it waits); the seconds waited."""
        wait = self.reserve(tokens)
        if wait <= 0:
            return 0.0
        deadline = self.clock() + wait
        while (left := deadline - self.clock()) > 0:
            time.sleep(min(left, SLICE))
            poll()
        return wait


class Turn:
    """One attempt's turn under its model's limit, taken where the attempt runs: on the
    calling thread (:meth:`take`), or on the event loop just before the request
    (:meth:`take_async`), so that a loop busy with another call's set-up does not let turns
    pass unused and then send their requests at once."""

    __slots__ = ("limiter", "tokens", "waited")

    def __init__(self, limiter: RateLimiter, tokens: int) -> None:
        self.limiter, self.tokens = limiter, tokens
        self.waited: float | None = None  # None: not taken yet

    def take(self, poll: Callable[[], None]) -> None:
        if self.waited is None:
            self.waited = 0.0
            self.waited = self.limiter.acquire(self.tokens, poll)

    async def take_async(self) -> None:
        """Wait for the turn on the event loop (cancelling the call cancels the wait)."""
        if self.waited is None:
            self.waited = wait = max(0.0, self.limiter.reserve(self.tokens))
            if wait > 0:
                import asyncio  # start-up laziness: only async llm models run on an event loop (inflight.py)

                await asyncio.sleep(wait)


class RateLimits:
    """The limiters of one interpreter, by model name."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._limiters: dict[str, RateLimiter] = {}
        #: How many processes share each limit (batch ``--processes``, a cluster): this one keeps 1/share.
        self.share = 1

    def split(self, share: int) -> None:
        """Keep 1/``share`` of every limit, set now or later: ``share`` processes run the same program."""
        with self._lock:
            ratio, self.share = self.share / share, share
            for limiter in self._limiters.values():
                limit = limiter.limit
                limiter.limit = RateLimit.model_construct(
                    rpm=limit.rpm * ratio if limit.rpm else None, tpm=limit.tpm * ratio if limit.tpm else None
                )

    def set(self, model: str, rpm: float | None = None, tpm: float | None = None) -> None:
        """Limit ``model`` to ``rpm`` requests and ``tpm`` tokens a minute (both None: no limit)."""
        try:
            limit = RateLimit(rpm=rpm, tpm=tpm)
        except pydantic.ValidationError as exc:
            raise from_validation(exc, f"rate limit of {model}") from None
        if self.share > 1:
            limit = RateLimit.model_construct(
                rpm=limit.rpm / self.share if limit.rpm else None, tpm=limit.tpm / self.share if limit.tpm else None
            )
        with self._lock:
            if limit.rpm is None and limit.tpm is None:
                self._limiters.pop(model, None)
            elif model in self._limiters:
                self._limiters[model].limit = limit
            else:
                self._limiters[model] = RateLimiter(limit)

    def update(self, limits: Mapping[str, Any]) -> None:
        """Set several: ``{"MODEL": {"rpm": N, "tpm": M}}`` (``requests_per_minute`` and
        ``tokens_per_minute`` are accepted too)."""
        for model, spec in limits.items():
            spec = dict(spec)
            rpm = spec.pop("rpm", spec.pop("requests_per_minute", None))
            tpm = spec.pop("tpm", spec.pop("tokens_per_minute", None))
            if spec:
                raise validation_error(f"rate limit of {model}: unknown field {next(iter(spec))}", str(model))
            self.set(str(model), rpm, tpm)

    def get(self, model: str) -> RateLimiter | None:
        return self._limiters.get(model)


def parse_rate_limit(text: str) -> tuple[str, float, float | None]:
    """``MODEL=RPM[/TPM]`` (the ``--rate-limit`` flag) as (model, rpm, tpm); ValueError if malformed."""
    model, sep, figures = text.rpartition("=")
    if not sep or not model:
        raise ValueError(f"expected MODEL=RPM[/TPM], got {text!r}")
    rpm_text, _, tpm_text = figures.partition("/")
    rpm, tpm = float(rpm_text), (float(tpm_text) if tpm_text else None)
    if rpm <= 0 or (tpm is not None and tpm <= 0):
        raise ValueError(f"rates must be positive, got {text!r}")
    return model, rpm, tpm
