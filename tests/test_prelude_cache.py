"""The standard library's start-up files are read once and kept in the user's cache folder
(interpreter/prelude_cache.py): a later start unpickles them without building the parser; a
corrupt file is read anew; the file's name changes with the text it was read from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from interpreter.prelude_cache import read_cached

ROOT = Path(__file__).resolve().parent.parent

START = """
import sys
from interpreter import Interpreter
from interpreter import reader
interp = Interpreter()
print(reader._READER is None, interp.eval('(list (identity 1) (sum (list 1 2 3)) (flatten (list (list "a") "b")))'))
"""


def start(cache: Path) -> str:
    """A fresh process that makes a default Interpreter: was the parser built, and the prelude's values."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", START], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def pickles(cache: Path) -> list[Path]:
    return sorted((cache / "taskscheme").glob("read-*.pickle"))


def test_a_second_start_reads_the_prelude_from_the_cache(tmp_path: Path) -> None:
    # the first start reads the text (so builds the parser) and writes the file
    assert start(tmp_path) == "False [1, 6, ['a', 'b']]"
    assert len(pickles(tmp_path)) == 1
    # the second takes the data from the file: no parser at all
    assert start(tmp_path) == "True [1, 6, ['a', 'b']]"


def test_a_corrupt_cache_file_is_read_anew_and_rewritten(tmp_path: Path) -> None:
    start(tmp_path)
    [path] = pickles(tmp_path)
    path.write_bytes(b"not a pickle at all")
    assert start(tmp_path) == "False [1, 6, ['a', 'b']]"
    assert path.read_bytes() != b"not a pickle at all"
    assert start(tmp_path) == "True [1, 6, ['a', 'b']]"


def test_another_text_has_another_file_and_each_read_is_fresh(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = read_cached("(define x '(1 2))", "stdlib/a.scm")
    again = read_cached("(define x '(1 2))", "stdlib/a.scm")
    other = read_cached("(define x '(1 3))", "stdlib/a.scm")
    assert len(pickles(tmp_path)) == 2
    assert first[0][0] is not again[0][0]  # a program may mutate what it was given
    assert str(first[0][1]) == "stdlib/a.scm:1:1"
    assert other[0][0].cdr.cdr.car.cdr.car.cdr.car == 3


def test_an_unwritable_cache_folder_only_costs_the_reading(tmp_path: Path, monkeypatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    [(datum, span)] = read_cached("(a b)", "stdlib/b.scm")
    assert datum.car.name == "a" and str(span) == "stdlib/b.scm:1:1"
