"""A FIFO or a device in an allowed folder never blocks a program (issue 33 item 4):
every primitive that opens a file refuses anything but a regular file with a
``file-error`` at once, instead of waiting in the kernel past the timeout."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

#: Each call opens d/fifo (or d/fifo.xml, d/dev): before, each waited for a writer or a reader.
CALLS = [
    ('(read-line (open-input-file "d/fifo"))', "open-input-file", "d/fifo is a FIFO"),
    ('(call-with-input-file "d/fifo" read)', "open-input-file", "d/fifo is a FIFO"),
    ('(with-input-from-file "d/fifo" read-line)', "open-input-file", "d/fifo is a FIFO"),
    ('(read-u8 (open-binary-input-file "d/fifo"))', "open-binary-input-file", "d/fifo is a FIFO"),
    ('(open-output-file "d/fifo")', "open-output-file", "d/fifo is a FIFO"),
    ('(open-binary-output-file "d/fifo")', "open-binary-output-file", "d/fifo is a FIFO"),
    ('(load-task-templates "d/fifo.xml")', "load-task-templates", "d/fifo.xml is a FIFO"),
    ('(load "d/fifo")', "load", "d/fifo is a FIFO"),
    ('(include "d/fifo")', "include", "d/fifo is a FIFO"),
    ('(read-u8 (open-binary-input-file "d/dev"))', "open-binary-input-file", "d/dev is a character device"),
]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "d"
    d.mkdir()
    os.mkfifo(d / "fifo")
    os.mkfifo(d / "fifo.xml")
    (d / "notes.txt").write_text("kept\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return d


@pytest.mark.parametrize(("call", "who", "what"), CALLS)
def test_a_special_file_is_refused_at_once(folder: Path, call: str, who: str, what: str) -> None:
    if "d/dev" in call:
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        interp = Interpreter(allow_files=True, timeout=5)  # any file: /dev/zero itself is reachable
        os.symlink("/dev/zero", folder / "dev")
    else:
        interp = Interpreter(allow_files=[str(folder)], timeout=5)
    with pytest.raises(SchemeError) as info:
        interp.eval(call)
    err = info.value
    assert err.kind == "file-error", err.message
    assert err.message.startswith(f"{who}: ") and what in err.message
    assert err.message.endswith("only regular files and folders can be opened")


def test_regular_files_and_folders_beside_them_still_work(folder: Path) -> None:
    interp = Interpreter(allow_files=[str(folder)], timeout=5)
    assert interp.eval('(read-line (open-input-file "d/notes.txt"))') == "kept"
    assert interp.eval('(load-task-templates "d")') == []  # the FIFO named *.xml is not a template file
    assert interp.eval('(file-exists? "d/fifo")') is True  # asking opens nothing
    interp.eval('(call-with-output-file "d/out.txt" (lambda (p) (write 42 p)))')
    assert (folder / "out.txt").read_text() == "42"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX")
def test_a_memory_index_skips_special_files(folder: Path) -> None:
    interp = Interpreter(allow_files=[str(folder)], timeout=5)
    assert interp.eval('(index-files "d")') == 1  # notes.txt; the FIFOs are not read
