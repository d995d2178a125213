"""Record and replay of model calls: one JSON object per line.

A recording stores every call (model, system, prompt, options, response, usage).
Replaying answers each call from the file, with no network. Calls are matched by
their request, not their position, so calls made in another order (the branches
of a parallel form) replay too: identical calls are answered in the recorded
order, and a call that is not in the file is an error that shows its prompt.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pydantic
from pydantic import Field

from ...errors import SchemeError
from ..disk import check_room, file_size
from ..errors import task_failure
from ..records import SchemeRecord


class CallUsage(SchemeRecord):
    input_tokens: int | None = None
    output_tokens: int | None = None


class CallRecord(SchemeRecord):
    """One model call as stored in a recording."""

    model: str
    system: str | None = None
    prompt: str
    options: dict[str, Any] = Field(default_factory=dict)
    response: str
    usage: CallUsage = Field(default_factory=CallUsage)

    def key(self) -> tuple[str, str, str, str]:
        return call_key(self.model, self.system, self.prompt, self.options)


def call_key(model: str, system: str | None, prompt: str, options: dict[str, Any]) -> tuple[str, str, str, str]:
    return model, system or "", prompt, json.dumps(options, sort_keys=True, default=str)


class Recorder:
    """Writes each call to ``path``; the file is started afresh by the first call.

    A path that cannot be written is an error at once, not at the first call."""

    #: The file's byte cap (disk.py; None: none).
    max_bytes: int | None = None

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.started = False
        existed = self.path.exists()
        try:
            with self.path.open("a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise self._cannot_write(exc) from None
        if not existed:
            self.path.unlink()
        self.lock = threading.Lock()  # one whole line per call, whatever thread makes it

    def write(self, record: CallRecord) -> None:
        line = record.model_dump_json() + "\n"
        with self.lock:
            mode = "a" if self.started else "w"
            check_room(self.path, self.max_bytes, file_size(self.path) if self.started else 0, len(line.encode()))
            try:
                with self.path.open(mode, encoding="utf-8") as out:
                    out.write(line)
            except OSError as exc:
                raise self._cannot_write(exc) from None
            self.started = True

    def _cannot_write(self, exc: OSError) -> SchemeError:
        return SchemeError(f"cannot write the recording {self.path}: {exc.strerror or exc}", kind="file-error")


class ReplayBook:
    """The calls of a recording, matched by (model, system, prompt, options).

    When no call matches exactly, one with the same system text and prompt (any model)
    is used, so a recording replays under another default model. Each request has a
    queue of its recorded answers, taken in the recorded order; once all are used, the
    last one repeats. Safe to use from several threads at once.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.records: list[CallRecord] = []
        self.used: set[int] = set()
        self._load()
        self.lock = threading.Lock()
        self.exact: dict[tuple[str, str, str, str], list[int]] = {}  # request → its answers, in order
        self.loose: dict[tuple[str, str], list[int]] = {}  # (system, prompt) → answers under any model
        for i, record in enumerate(self.records):
            self.exact.setdefault(record.key(), []).append(i)
            self.loose.setdefault((record.system or "", record.prompt), []).append(i)

    def _load(self) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise SchemeError(
                f"cannot read the replay file {self.path}: {exc.strerror or exc}", kind="file-error"
            ) from None
        except UnicodeDecodeError as exc:
            raise SchemeError(
                f"the replay file {self.path} is not UTF-8 text (byte {exc.start}): not a recording", kind="file-error"
            ) from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                self.records.append(CallRecord.model_validate_json(line))
            except pydantic.ValidationError as exc:
                problem = exc.errors()[0]["msg"]
                raise SchemeError(
                    f"{self.path}:{number}: not a recorded model call: {problem}", kind="file-error"
                ) from None

    def answer(self, model: str, system: str | None, prompt: str, options: dict[str, Any]) -> CallRecord:
        """The recorded answer to this call, or a TASK_FAILURE showing the prompt."""
        exact = self.exact.get(call_key(model, system, prompt, options), [])
        loose = self.loose.get((system or "", prompt), [])
        with self.lock:
            for queue in (exact, loose):
                fresh = next((i for i in queue if i not in self.used), None)
                if fresh is not None:
                    self.used.add(fresh)
                    return self.records[fresh]
        if exact or loose:
            return self.records[(exact or loose)[-1]]
        shown = prompt if len(prompt) <= 500 else prompt[:500] + "…"
        raise task_failure(
            "not_in_replay",
            f"model call not found in the replay file {self.path} (model {model}):\n{shown}",
        )

