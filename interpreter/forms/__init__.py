"""Special forms; importing this package registers them with the analyzer."""

from . import binding, composition, control, core, parallel, syntax, tasks  # noqa: F401
