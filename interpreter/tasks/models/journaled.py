"""Model calls and script runs as journal sources (see :mod:`interpreter.durable`).

A model call's journaled result is its final answer (text, token counts, how many
attempts it took, whether the response cache gave it); a script run's is its whole
:class:`ScriptResult`. A task error the program sees as the request's outcome (a
model that failed for good, a command that does not exist) is journaled too, and
raised again on a resumed run; interruption and the run's own limits are not: the
request was not finished, and runs again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ...durable import JournalEntry, Source
from ..errors import TaskError, make_task_error
from ..records import ScriptResult
from .backends import ModelResponse
from .cache import ModelRequest


def task_error_kept(err: Exception) -> dict[str, Any] | None:
    """A task error as JSON data (its taxonomy record), or None for any other error."""
    if not isinstance(err, TaskError):
        return None
    return json.loads(json.dumps(err.record.model_dump(), default=str))


def task_error_revived(kept: dict[str, Any]) -> BaseException:
    return make_task_error(str(kept.get("type", "TASK_FAILURE")), kept)


def model_request(request: ModelRequest) -> dict[str, Any]:
    """What identifies a model call in a journal: the whole request, a file attached as the hash of its content."""
    fields = request.as_dict()
    if request.attachments:
        fields["attachments"] = request.attachment_ids()
    return fields


def model_answer(response: ModelResponse) -> dict[str, Any]:
    return {
        "text": response.text,
        "input_tokens": response.input_tokens,
        "output_tokens": response.output_tokens,
        "attempts": response.attempts,
        "cached": response.cached,
    }


def replayed_answer(entry: JournalEntry) -> ModelResponse:
    answer = entry.result
    return ModelResponse(
        text=answer["text"],
        input_tokens=answer.get("input_tokens"),
        output_tokens=answer.get("output_tokens"),
        attempts=answer.get("attempts", 1),
        cached=answer.get("cached", False),
        replayed=True,
        duration_s=entry.duration_s,
    )


#: Model calls (``ModelGateway.complete``): the final answer, after retries, with its attempt count.
MODEL_CALLS: Source[ModelResponse] = Source(
    "model", True, model_answer, replayed_answer, task_error_kept, task_error_revived
)


def script_result(entry: JournalEntry) -> ScriptResult:
    return ScriptResult.model_validate(entry.result)


#: Script runs (``run_script``): stdout, stderr, exit code, timing out, duration.
SCRIPT_RUNS: Source[ScriptResult] = Source(
    "script", True, lambda result: result.model_dump(mode="json"), script_result, task_error_kept, task_error_revived
)


def script_request(
    command: str | list[str],
    input: str | None,
    cwd: Any,
    env: Mapping[str, str] | None,
    shell: bool,
    timeout: float | None,
    max_output: int,
) -> dict[str, Any]:
    """What identifies a script run in a journal. Extra environment variables are kept
    as a hash: they often hold credentials, and a journal is a plain file."""
    request: dict[str, Any] = {"command": command, "input": input, "cwd": None if cwd is None else str(cwd)}
    if env:
        text = json.dumps(dict(env), sort_keys=True)
        request["env_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    request.update(shell=shell, timeout=timeout, max_output=max_output)
    return request
