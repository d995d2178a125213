"""A module another thread is still importing is in ``sys.modules`` half made: code that looks
there must not take it for a finished one.

CI failed twice with "partially initialized module 'pydantic.main' has no attribute 'BaseModel'":
eight interpreters were made at once in a fresh process; one thread's task runtime was importing
pydantic while another thread's ``Interpreter()`` converted a value and asked ``sys.modules`` for
``pydantic.main``. Each test here starts a fresh process, holds a module half made on an
importing thread (it waits inside its import), and runs a use of it on another thread."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]

PROGRAM = """
import sys, threading
from interpreter import Interpreter
{prepare}

MODULE, DONE_WHEN = {module!r}, {marker!r}
partial, release = threading.Event(), threading.Event()

class HoldHalfMade:
    '''Holds MODULE's import at the first import it makes before DONE_WHEN is defined.'''
    def find_spec(self, name, path=None, target=None):
        held = sys.modules.get(MODULE)
        if held is not None and not hasattr(held, DONE_WHEN) and not partial.is_set():
            partial.set()
            release.wait(30)
        return None

sys.meta_path.insert(0, HoldHalfMade())
importer = threading.Thread(target=__import__, args=(MODULE,))
importer.start()
assert partial.wait(30), "the import was not held"

out = []
def use():
    try:
        out.append(repr({use}))
    except BaseException as exc:
        out.append(type(exc).__name__ + ": " + str(exc))
user = threading.Thread(target=use)
user.start()
user.join(0.3)  # a use that needs the module waits for it; one that does not, ends now
release.set()
user.join(30)
importer.join(30)
print(out[0])
"""

#: (what the program imports first, the module held half made, the name it defines late, a use
#: on another thread, what the use gives)
USES = {
    "a new interpreter while pydantic loads": (
        "",
        "pydantic.main",
        "BaseModel",
        "Interpreter().eval('(list 1 2.5 \"s\")')",
        "[1, 2.5, 's']",
    ),
    "the REPL's summary while the task records load": (
        "from interpreter.repl.describe import summary",
        "interpreter.tasks.records",
        "TaskResult",
        "summary(42)",
        "'42'",
    ),
    "an isolated child's record while the loop's records load": (
        "from interpreter.isolation.wire import task_record",
        "interpreter.tasks.compose.loop",
        "LoopResult",
        "task_record('interpreter.tasks.compose.loop', 'LoopResult').__name__",
        "'LoopResult'",
    ),
}


@pytest.mark.parametrize("use", USES, ids=list(USES))
def test_a_module_still_being_imported_is_not_taken_for_a_finished_one(use: str) -> None:
    prepare, module, marker, code, expected = USES[use]
    program = PROGRAM.format(prepare=prepare, module=module, marker=marker, use=code)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=90, cwd=CHECKOUT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected, done.stdout + done.stderr
