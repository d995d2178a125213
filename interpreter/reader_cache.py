"""Where taskscheme keeps files derived from its sources between runs, and the key that
names a read text: the user's cache folder, and a hash of the text with everything that
decides what it reads as (the reader's and the data types' sources, the grammar, Python's
version). The reader caches Lark's grammar analysis by it; :mod:`interpreter.prelude_cache`
the read prelude.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Sources whose change may change what a text reads as.
READER_SOURCES = (
    "reader.py", "reader_lexer.py", "reader_parser.py", "datatypes.py", "grammar.lark", "number_syntax.py"
)

_KEYS: dict[str, str] = {}  # text -> key, for the texts this process has keyed


def cache_folder() -> Path | None:
    """The user's cache folder for taskscheme (``$XDG_CACHE_HOME/taskscheme``, else
    ``~/.cache/taskscheme``, as platformdirs gives on Linux, without its import at start-up);
    None when it cannot be created."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = Path(base) / "taskscheme"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def cache_key(text: str) -> str:
    """A hash of ``text`` and of everything else that decides what it reads as."""
    key = _KEYS.get(text)
    if key is None:
        digest = hashlib.sha256(text.encode("utf-8"))
        digest.update(sys.version.encode())
        for name in READER_SOURCES:
            try:
                digest.update((HERE / name).read_bytes())
            except OSError:
                digest.update(name.encode())
        key = _KEYS[text] = digest.hexdigest()[:32]
    return key
