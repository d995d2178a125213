"""The task runtime (layer 6 of docs/architecture.md): tasks, models, composition, templates,
tracing and memory.

It imports only the layers below it (analysis, library, execution, reading, data), never the host
facade or the front ends, not even for a type: what it needs of the interpreter that hosts it is
the :class:`~interpreter.tasks.library.TaskHost` protocol, which the facade's ``Interpreter``
satisfies. Its special forms and procedures register themselves with the lower registries when
:mod:`interpreter.tasks.dsl` is imported: by :mod:`interpreter.task_runtime`, when an interpreter
first uses the runtime. Until then a start imports only ``names`` (the names the runtime binds,
each an autoload), ``disk``, ``failures`` and ``observe.screen``: no pydantic model.

Subpackages, each with its own docstring saying what it owns and may import:

- ``observe/``: trace events, the live display, trace reports, OpenTelemetry, usage totals;
- ``models/``: the path from a call to a provider (gateway, backends, cache, replay, rate limit);
- ``memory/``: long-term memory and its procedures;
- ``compose/``: ``sequential``, ``director-evaluator-loop``, ``with-evaluation`` and their runtimes;
- ``templates/``: the XML task templates of the seeds.

Top-level modules are shared by all of them, in two tiers:

- the vocabulary, which imports no subpackage: ``names`` (what the runtime binds), ``values`` (Scheme <-> Python data),
  ``placeholders`` (``{{name}}`` text), ``records`` (the pydantic records: definitions, results),
  ``errors`` (the task error taxonomy), ``evaluation`` (an evaluator's verdict read from its
  answer), ``arguments`` (keyword arguments), ``access`` (fields of results and records), ``disk``
  (the file-size cap), ``context`` (the frame a procedure task's body runs in);
- the runtime, which puts the subpackages together: ``scripts`` (the one script runner; its runs
  are journaled by ``models``), ``library`` (the task library and ``TaskHost``), ``calls`` (running
  one task call), ``nodes`` and ``forms`` (``define-task``, ``define-model``), ``primitives`` (the
  task procedures), ``failures`` (a failed result summarised for the front ends) and ``dsl`` (the
  registration).

Order, bottom up (each imports only what is left of it): vocabulary < observe < models < scripts
< memory < calls < library < nodes, primitives < compose < templates, forms, failures < dsl. One
circle is documented: ``library`` and ``calls`` are two halves of one object -- the library builds
its :class:`~interpreter.tasks.calls.TaskRunner`, and the runner names the library in annotations
only (``TYPE_CHECKING``), so both load at module level.

Imports inside functions are kept only for start-up laziness (each with its measured cost),
optional dependencies (OpenTelemetry) and the circle in ``observe`` (its docstring); each says why
in a comment. ``llm`` is reached through :func:`~interpreter.tasks.models.providers.llm_package`.

Nothing is imported here: ``import interpreter.tasks.records`` loads no more than it needs, and
the runtimes of composition and templates load when a program first uses them.
"""
