"""The names the task runtime binds in an interpreter: its special forms, procedures and macros.

Pure data, importing nothing: the facade makes each of them an autoload at start-up
(:mod:`interpreter.task_runtime`), so the first use of one loads the runtime. A test
(tests/test_startup_imports.py) checks this list against what the runtime really binds.
"""

TASK_NAMES: tuple[str, ...] = (
    "define-model", "define-task", "describe-task", "director-evaluator-loop", "evaluation?", "get",
    "get/default", "index-files", "load-task-templates", "make-evaluation", "make-task-error",
    "make-task-result", "model-names", "quality-gate", "rate-limit", "recall", "record->alist", "record-with",
    "remember", "result-field", "run-script", "script-result?", "sequential", "sequential/strict",
    "structured-answer", "task-error-details", "task-error-type", "task-error?", "task-library", "task-names",
    "task-ref", "task-result?", "task?", "transient-error", "usage", "with-evaluation",
)

#: Those of :data:`TASK_NAMES` that are syntax (special forms, macros); the rest are procedures
#: and the task library, whose arguments the unbound-name check walks as expressions.
TASK_SYNTAX: frozenset[str] = frozenset(
    ["define-model", "define-task", "director-evaluator-loop", "quality-gate", "sequential", "sequential/strict",
     "with-evaluation"]
)

#: The clauses of ``define-task`` (in the order its docs list them).
TASK_CLAUSES: tuple[str, ...] = (
    "description", "system", "model", "prompt", "script", "subtype", "criteria", "context", "max-turns",
    "max-context", "timeout", "options", "schema", "retries", "cache", "attachments", "stream",
)

#: The clauses of ``director-evaluator-loop``.
LOOP_CLAUSES: tuple[str, ...] = (
    "max-iterations", "context", "inputs", "director", "script-execution", "evaluator", "termination-condition",
)
