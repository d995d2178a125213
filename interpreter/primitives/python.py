"""Reaching Python from the DSL, granted by the ``allow_python`` capability.

``(python-import "math")`` gives a module, ``(python-ref obj "attr" ...)`` follows
attributes, ``(python-call f arg ... #:name value)`` calls a Python callable. Values
cross by the table in :mod:`interpreter.conversion`, so ``(python-ref math "sqrt")``
is already a procedure. Without the capability each is a ``permission`` error naming
``allow_python``; functions the host defined itself need no capability.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..capabilities import require_python
from ..datatypes import Symbol
from ..errors import SchemeError
from ..evaluator import call_host
from ..keywords import normal_name, split_keywords
from .registry import installer
from .strings import check_string

if TYPE_CHECKING:
    from ..host_protocols import LibraryHost


@installer
def install_python(interp: LibraryHost) -> None:
    """Define ``python-import``, ``python-ref`` and ``python-call`` for ``interp``."""
    convert = interp.converter

    def python_import(name: Any) -> Any:
        """(python-import "module"): a Python module (needs allow_python)."""
        require_python(interp, "python-import")
        module = check_string("python-import", name)
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            raise SchemeError(f"python-import: cannot import {module}: {exc}", kind="value-error") from None

    def python_ref(obj: Any, *names: Any) -> Any:
        """(python-ref obj "attr" ...): follow attributes of a Python object (needs allow_python)."""
        require_python(interp, "python-ref")
        value = convert.to_python(obj)
        for name in names:
            attr = name.name if type(name) is Symbol else check_string("python-ref", name)
            try:
                value = getattr(value, attr)
            except AttributeError:
                raise SchemeError(
                    f"python-ref: {type(value).__name__} object has no attribute {attr}", kind="value-error"
                ) from None
        return convert.to_scheme(value)

    def python_call(fn: Any, *args: Any) -> Any:
        """(python-call f arg ... #:name value): call a Python callable (needs allow_python)."""
        require_python(interp, "python-call")
        target = convert.to_python(fn)
        if not callable(target):
            raise SchemeError("python-call: not a Python callable", kind="type-error")
        positional, named = split_keywords("python-call", list(args))
        kwargs = {normal_name(k): convert.to_python(v) for k, v in named.items()}
        result = call_host("python-call", target, [convert.to_python(a) for a in positional], kwargs)
        return convert.to_scheme(result)

    interp.define_primitive("python-import", python_import)
    interp.define_primitive("python-ref", python_ref)
    interp.define_primitive("python-call", python_call)
