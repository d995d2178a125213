"""The task layer's part of the language: importing this module registers it.

The special forms (``define-task``, ``define-model``, ``sequential``, ``director-evaluator-loop``,
``with-evaluation`` …) go into the analyzer's ``SPECIAL_FORMS``; the task procedures
(``task-result``, ``run-script``, ``remember``, ``load-task-templates`` …) into the primitive
registry's ``BUILTINS`` and ``INSTALLERS``. The registries are defined in the lower layers; the
host facade imports this module once, after ``forms`` and ``primitives``, so that every
interpreter it makes has them. The order below is the order the installers run in.
"""

from . import forms as _task_forms  # noqa: F401 - define-task, define-model
from . import primitives as _task_primitives  # noqa: F401 - task results, run-script, task-library procedures
from .compose import forms as _compose_forms  # noqa: F401 - sequential, director-evaluator-loop, with-evaluation
from .compose import primitives as _compose_primitives  # noqa: F401 - record-with, structured-answer, quality-gate
from .memory import primitives as _memory_primitives  # noqa: F401 - remember, recall, index-files
from .templates import primitives as _template_primitives  # noqa: F401 - load-task-templates

#: The task layer's procedure modules, each with its section of the procedures reference
#: (interpreter/reference.py); the Pygments lexer highlights their names as keywords.
PROCEDURE_SECTIONS = {
    "interpreter.tasks.primitives": "Tasks",
    "interpreter.tasks.compose.primitives": "Composition",
    "interpreter.tasks.templates.primitives": "Composition",
    "interpreter.tasks.memory.primitives": "Memory",
}
