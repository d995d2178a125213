"""The batch's JSONL output: one whole line per item, appended and flushed at once, so a
killed batch loses only the items in flight; a run with the same file skips the indices
already there (a line cut short by a kill is dropped first)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any


def written_indices(path: Path) -> set[int]:
    """The indices already in ``path``; a last line cut short is removed from the file."""
    return set(written_statuses(path))


def written_statuses(path: Path) -> dict[int, str]:
    """The status of each index already in ``path`` (a later record of an index, from a
    resumed batch, replaces an earlier one); a last line cut short is removed from the file."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    whole = data.rfind(b"\n") + 1
    if whole < len(data):  # killed in the middle of a line: drop the partial line
        with path.open("r+b") as out:
            out.truncate(whole)
    done: dict[int, str] = {}
    for number, line in enumerate(data[:whole].decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            done[int(record["index"])] = str(record.get("status"))
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{path}:{number}: not a batch record") from None
    return done


class Output:
    """Appends records to the output file, one flushed line each."""

    def __init__(self, path: Path) -> None:
        self.stream: IO[str] = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.stream.flush()
        os.fsync(self.stream.fileno())

    def close(self) -> None:
        self.stream.close()


def read_inputs(path: Path) -> list[Any]:
    """The inputs: one JSON value per non-blank line (a JSON object of arguments by name)."""
    inputs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                inputs.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON: {exc.msg}") from None
    return inputs
