"""The standard library's start-up files, read once and kept as a pickle between runs.

Reading the prelude needs Lark's parser (its grammar loaded from Lark's own cache, then a
parse): about 15-20 ms of every start. The data it reads are plain (pairs, symbols, strings,
numbers, spans), so they are pickled into the user's cache folder (:func:`cache_folder`), in
a file named by a hash of everything that decides them: the file's text, the reader's and the
data types' sources, the grammar, and Python's version. A stale file is never looked at (its
name differs); a corrupt or unreadable one is ignored and read anew. Files are written
atomically (a temporary file renamed into place), so a concurrent start never sees half a file.

The analysis is not cached: analysed nodes hold the interpreter's runtime, and analysing the
prelude takes well under a millisecond once it is read (its procedures' bodies are compiled
on their first call, see ``Lambda.compile``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

from .datatypes import Span
from .reader import read_with_spans
from .reader_cache import cache_folder, cache_key

_LOADED: dict[str, bytes] = {}  # key -> pickle, for the files this process has read


def read_cached(text: str, filename: str) -> list[tuple[Any, Span]]:
    """``read_with_spans(text, filename)``, from the pickle when there is a good one; each
    call returns data of its own (a program may mutate what it was given)."""
    key = cache_key(text) + "-" + hashlib.sha256(filename.encode()).hexdigest()[:8]
    data = _LOADED.get(key)
    folder = cache_folder()
    path = folder / f"read-{key}.pickle" if folder is not None else None
    if data is None and path is not None:
        try:
            data = path.read_bytes()
        except OSError:
            data = None
    if data is not None:
        try:
            forms = pickle.loads(data)  # our own file, in the user's own cache folder
        except Exception:  # a corrupt file: read the text anew (and write the file again)
            forms = None
        if isinstance(forms, list):
            _LOADED[key] = data
            return forms
    forms = read_with_spans(text, filename)
    data = pickle.dumps(forms, protocol=pickle.HIGHEST_PROTOCOL)
    _LOADED[key] = data
    if path is not None:
        write_atomically(path, data)
    return forms


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place; a failure
    (read-only or full disk) only means the next start reads the text again."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
