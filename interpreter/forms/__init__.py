"""Special forms; importing this package registers them with the analyzer."""

from . import binding, control, core, parallel, syntax  # noqa: F401
