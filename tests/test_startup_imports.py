"""What a start imports: the parts a program may never use load when it first uses them
(the code generator, the task runtime and its pydantic records, the error records, llm, the XML
template loader), and they still work when it does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAZY = [
    "pydantic.main",  # no pydantic model class is defined: the records below load on first use
    "interpreter.error_records",  # a backtrace frame or an ErrorRecord (errors.py)
    "interpreter.record_models",  # a define-record-type record handed to Python (conversion.py)
    "interpreter.durable.entry",  # a journal read or written
    "interpreter.tasks.records",  # the task runtime (task_runtime.py) ...
    "interpreter.tasks.library",
    "interpreter.tasks.dsl",
    "interpreter.tasks.models.gateway",
    "interpreter.tasks.observe.tracing",
    "interpreter.tasks.memory.store",
    "interpreter.compiler.body",
    "interpreter.tasks.compose.loop",
    "interpreter.tasks.compose.sequence",
    "interpreter.tasks.templates.loader",
    "interpreter.tasks.templates.bodies",
    "llm",
    "asyncio",  # only async llm models run on an event loop (tasks/models/inflight.py)
    "email.utils",  # only an HTTP-date Retry-After is parsed with it (tasks/models/providers.py)
    "sqlite3",  # the response cache and the memory open it when first used
]

PROGRAM = """
import json, sys
from interpreter import Interpreter
interp = Interpreter()
interp.eval('(display (+ 1 2 3))')
before = sorted(name for name in {lazy} if name in sys.modules)
{then}
print()
print(json.dumps(before))
"""


def loaded(then: str, tmp_path: Path) -> tuple[str, list[str]]:
    """Output and the lazy modules loaded after a default Interpreter ran a small program."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path), "LLM_USER_PATH": str(tmp_path)}
    code = PROGRAM.format(lazy=LAZY, then=then)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    output, names = done.stdout.rsplit("\n", 2)[-3:-1]
    return output, json.loads(names)


def test_a_plain_program_loads_none_of_the_lazy_parts(tmp_path: Path) -> None:
    output, names = loaded("", tmp_path)
    assert output == "6"
    assert names == []


def test_the_parts_load_when_a_program_uses_them(tmp_path: Path) -> None:
    then = f"""
interp.eval('''(define (square x) (* x x))
(display (square 7))
(display (get (sequential (step a "x") (step b "y")) 'notes 'steps 1 'step))''')
print(' ' + ' '.join(sorted(name for name in {LAZY} if name in sys.modules)), end='')
"""
    output, names = loaded(then, tmp_path)
    assert names == []
    assert output.startswith("649b")
    assert "interpreter.compiler.body" in output and "interpreter.tasks.compose.sequence" in output



def test_highlighting_a_task_program_does_not_make_the_task_runtime(tmp_path: Path) -> None:
    """The REPL's first keystroke lexes with :mod:`interpreter.lexer`: its words come from
    ``tasks/names.py``, so ``define-task`` is a keyword without loading the runtime."""
    then = f"""
from pygments.token import Keyword
from interpreter.lexer import TaskSchemeLexer
tokens = list(TaskSchemeLexer().get_tokens('(define-task (t x) (model m) (prompt "p")) (get r (quote a))'))
print(' ' + ' '.join(v for t, v in tokens if t is Keyword), end='')
print(' ' + ' '.join(sorted(name for name in {LAZY} if name in sys.modules)), end='')
"""
    output, names = loaded(then, tmp_path)
    assert names == []
    assert output == "6 define-task model prompt get quote "



def test_an_isolated_plain_program_makes_no_task_runtime_on_either_side(tmp_path: Path) -> None:
    """Each request used to read the host's event hub and tasks, and each answer the child's
    usage, so both made their task runtimes; a record the child returns still crosses."""
    then = f"""
isolated = Interpreter(isolate=True)
print(' ' + str(isolated.eval('(* 6 7)')), end='')
print(' ' + ' '.join(sorted(name for name in {LAZY} if name in sys.modules)), end='')
print(' ' + type(isolated.eval('(make-task-result "x")')).__name__, end='')
isolated.isolation.close()
"""
    output, names = loaded(then, tmp_path)
    assert names == []
    _, answer, *modules, record = output.split(" ")
    assert answer == "42" and record == "TaskResult"
    # the wire's record classes load with the isolation; the task runtime does not
    runtime = {"interpreter.tasks.library", "interpreter.tasks.dsl", "interpreter.tasks.models.gateway"}
    assert "interpreter.tasks.records" in modules and not runtime & set(modules), modules


CLI_PROGRAM = """
import json, sys
sys.argv = ["taskscheme", "-e", "(display 1)"]
from interpreter.cli import main
try:
    main()
except SystemExit as done:
    assert not done.code, done.code
print()
print(json.dumps(sorted(name for name in {lazy} if name in sys.modules)))
from interpreter import Interpreter
interp = Interpreter()
source = (
    '(define-task (greet name) "Hello {{{{name}}}}")'
    '(display (task? greet))'
    '(guard (e (#t (display (error-object-message e)))) (car 1))'
    '(task-result? (make-task-result "x"))'
)
print(interp.eval(source))
"""


def test_the_command_line_starts_without_the_task_runtime(tmp_path: Path) -> None:
    """``taskscheme -e`` imports none of the lazy parts; a task defined afterwards still works."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path), "LLM_USER_PATH": str(tmp_path)}
    code = CLI_PROGRAM.format(lazy=LAZY)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, names, rest = done.stdout.split("\n", 2)
    assert first == "1"
    assert json.loads(names) == []
    assert rest.startswith("#tcar: expected a pair") and rest.rstrip().endswith("True")


def test_the_task_names_are_those_the_task_runtime_binds() -> None:
    """Each name the task runtime binds stands for it until it is made (tasks/names.py is complete)."""
    code = """
from interpreter import Interpreter
from interpreter.analyzer import SPECIAL_FORMS
from interpreter.tasks.names import TASK_NAMES, TASK_SYNTAX
interp = Interpreter()
waiting = {name.name for name, macro in interp.analyzer.macros.items() if type(macro).__name__ == "TaskAutoload"}
before = set(interp.global_env.vars) | set(SPECIAL_FORMS) | {m for m in interp.analyzer.macros if m.name not in waiting}
interp.start_tasks()
after = set(interp.global_env.vars) | set(interp.analyzer.macros) | set(SPECIAL_FORMS)
syntax = {name.name for name in set(interp.analyzer.macros) | set(SPECIAL_FORMS)} & set(TASK_NAMES)
print(sorted(name.name for name in after - before) == sorted(TASK_NAMES) == sorted(waiting), syntax == TASK_SYNTAX)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True True", done.stdout + done.stderr


def test_a_program_binding_a_task_name_keeps_its_value(tmp_path: Path) -> None:
    then = """interp.eval('(define remember 5) (define (usage) 7) (define-task (g x) "hi {{x}}")')
print(interp.eval('(list remember (usage) (task? g))'), end='')"""
    output, _ = loaded(then, tmp_path)
    assert output == "6[5, 7, True]"


def test_parallel_forms_run_without_the_task_runtime(tmp_path: Path) -> None:
    """parallel-map reports its span to nobody before the event hub exists, and loads nothing for it."""
    then = f"""print(interp.eval('(parallel-map (lambda (x) (* x x)) (list 1 2 3))'), end='')
print(sorted(name for name in {LAZY} if name in sys.modules and not name.startswith("interpreter.compiler")), end='')"""
    output, _ = loaded(then, tmp_path)
    assert output == "6[1, 4, 9][]"
