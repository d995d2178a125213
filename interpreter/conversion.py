"""Values crossing the Python boundary, both ways, by one table.

=============================  ==============================  ==============================
Scheme                         Python (out: ``eval``, args)    back into Scheme
=============================  ==============================  ==============================
proper list ``(1 2)``          ``list`` ``[1, 2]``             proper list
empty list ``'()``             ``[]``                          ``'()``
other pair ``(1 . 2)``         :class:`Pair` (unchanged)       the same pair
vector ``#(1 2)``              ``tuple`` ``(1, 2)``            vector
hash table                     ``dict`` (keys converted too)   hash table (``equal?`` keys)
string (literal or mutable)    ``str``                         string (immutable)
exact integer                  ``int``                         exact integer
exact rational                 ``fractions.Fraction``          exact rational
inexact real                   ``float``                       inexact real
``#t`` / ``#f``                ``True`` / ``False``            ``#t`` / ``#f``
symbol                         :class:`Symbol`                 symbol
unspecified (``VOID``)         ``None``                        unspecified
bytevector                     ``bytes``                       bytevector (``bytes``, ``bytearray``)
``define-record-type`` record  a pydantic model (one class     the original record type
                               per record type)
task records (``TaskResult``)  the same pydantic model         the same model
procedure, task                :class:`SchemeProcedure`        the procedure it wraps
                               (callable; runs in its
                               interpreter)
Python callable                (none)                          a procedure calling it
                                                               (arguments and result
                                                               converted)
anything else (chars,          unchanged                       unchanged (opaque to the DSL)
keywords, ports, host objects)
=============================  ==============================  ==============================

Element values are converted recursively. Shared substructure stays shared: a part met
twice becomes one Python object (one Scheme object, the other way), so a value built by
doubling converts in time linear in its distinct parts. A structure that contains itself
cannot be converted (a ``value-error``); a list whose tail loops or is not ``'()`` stays
a :class:`Pair`. A dict key that would be unhashable as Python stays a Scheme value.
Conversions poll the run's limits as they go. Values bound for JSON, which cannot share,
are measured first by :func:`check_unfolded` (shared parts counted at every meeting).
"""

from __future__ import annotations

import keyword
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from .datatypes import (
    NIL,
    VOID,
    MString,
    Nil,
    Pair,
    Primitive,
    Procedure,
    Record,
    RecordType,
    Values,
    Void,
    make_list,
    values_of,
)
from .errors import SchemeError
from .limits import MAX_ELEMENTS, too_large
from .polling import POLL_EVERY, poll_limits
from .tables import HashTable, proper_items, unfolded_size

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .record_models import RecordModel


class Applier(Protocol):
    """What conversion needs of its interpreter: applying a Scheme procedure to Python
    arguments (the facade ``Interpreter`` is one)."""

    def apply(self, proc: Any, *args: Any, **kwargs: Any) -> Any:
        """Apply ``proc``; the result as a Python value."""


class SchemeProcedure:
    """A DSL procedure (or task) seen from Python: calling it runs it in its interpreter.

    Positional arguments and keyword arguments (``#:name value``) are converted to
    Scheme; the result is converted back. ``procedure`` is the Scheme object itself.
    """

    __slots__ = ("interp", "procedure")

    def __init__(self, interp: Applier, procedure: Procedure) -> None:
        self.interp = interp
        self.procedure = procedure

    @property
    def name(self) -> str:
        return self.procedure.name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.interp.apply(self.procedure, *args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return type(other) is SchemeProcedure and other.procedure is self.procedure

    def __hash__(self) -> int:
        return hash(id(self.procedure))

    def __repr__(self) -> str:
        return f"<scheme procedure {self.name}>"


def __getattr__(name: str) -> Any:
    """``RecordModel`` (:mod:`interpreter.record_models`), imported when first asked for."""
    if name == "RecordModel":
        from .record_models import RecordModel  # reason: start-up laziness: pydantic's models (25-30 ms)

        return RecordModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_pydantic_model(x: Any) -> bool:
    """Whether ``x`` is a pydantic model (none can be before pydantic's models are loaded).

    ``pydantic.main`` is in ``sys.modules`` from the moment another thread starts importing it,
    and has no ``BaseModel`` until that import gets there: no model exists before then either."""
    base = getattr(sys.modules.get("pydantic.main"), "BaseModel", None)
    return base is not None and isinstance(x, base)


class Converter:
    """The conversions of one interpreter (record models and procedures belong to it)."""

    def __init__(self, interp: Applier, wrap_callable: Callable[[Callable[..., Any]], Procedure]) -> None:
        self.interp = interp
        self.wrap_callable = wrap_callable
        self._models: dict[int, tuple[RecordType, type[RecordModel], list[str]]] = {}
        self._record_types: dict[type[BaseModel], tuple[RecordType, list[str]]] = {}

    # -- Scheme → Python ---------------------------------------------------------------
    def to_python(self, x: Any) -> Any:
        """``x`` as a Python value (see the module's table)."""
        try:
            return self._py(x, Walk(share=True))
        except RecursionError:
            raise SchemeError("value is nested too deeply to convert to Python", kind="value-error") from None

    def _py(self, x: Any, active: Walk) -> Any:
        t = type(x)
        if t is int or t is str or t is float or t is bool or t is Fraction:
            return x
        if t is MString:
            return str(x)
        if t is Void:
            return None
        if t is Nil:
            return []
        if t is Pair:
            items = proper_items(x)
            if items is None:
                return x
            return active.inside(x, lambda: [self._py(item, active) for item in items], len(items))
        if t is list:
            return active.inside(x, lambda: tuple(self._py(item, active) for item in x))
        if t is bytearray:
            return bytes(x)
        if t is Record:
            return active.inside(x, lambda: self._record_to_model(x, active))
        if t is Values:
            return values_of([self._py(item, active) for item in x.items])
        if isinstance(x, Procedure):
            return self._procedure_to_python(x)
        if t is HashTable:
            return active.inside(x, lambda: self._table_to_dict(x, active))
        return x

    def _table_to_dict(self, table: Any, active: Walk) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, value in table.entries.values():
            py_key = self._py(key, active)
            try:
                hash(py_key)
            except TypeError:
                py_key = key
            out[py_key] = self._py(value, active)
        return out

    def _procedure_to_python(self, proc: Procedure) -> Any:
        if type(proc) is Primitive:
            host = getattr(proc.fn, "host_callable", None)
            if host is not None:
                return host
        return SchemeProcedure(self.interp, proc)

    def _record_to_model(self, record: Record, active: Walk) -> BaseModel:
        _, model, names = self.record_model(record.rtype)
        return model(**{name: self._py(value, active) for name, value in zip(names, record.values)})

    def record_model(self, rtype: RecordType) -> tuple[RecordType, type[RecordModel], list[str]]:
        """The pydantic model class of a record type (made once) and its Python field names."""
        found = self._models.get(id(rtype))
        if found is not None and found[0] is rtype:
            return found
        from pydantic import create_model  # reason: start-up laziness: pydantic's models (25-30 ms)

        from .record_models import RecordModel  # reason: as above

        names = python_names(rtype.fields)
        fields: dict[str, Any] = {name: (Any, ...) for name in names}
        model = create_model(class_name(rtype.name), __base__=RecordModel, **fields)
        model.__doc__ = f"The Scheme record type {rtype.name}."
        entry = (rtype, model, names)
        self._models[id(rtype)] = entry
        self._record_types[model] = (rtype, names)
        return entry

    # -- Python → Scheme ---------------------------------------------------------------
    def to_scheme(self, x: Any) -> Any:
        """``x`` as a Scheme value (see the module's table)."""
        try:
            return self._scm(x, Walk(share=True))
        except RecursionError:
            raise SchemeError("value is nested too deeply to convert to Scheme", kind="value-error") from None

    def _scm(self, x: Any, active: Walk) -> Any:
        t = type(x)
        if t is int or t is str or t is float or t is bool or t is Fraction:
            return x
        if x is None:
            return VOID
        if t is list:
            if not x:
                return NIL
            return active.inside(x, lambda: make_list([self._scm(item, active) for item in x]))
        if t is tuple:
            return active.inside(x, lambda: [self._scm(item, active) for item in x])
        if t is dict:
            return active.inside(x, lambda: self._dict_to_table(x, active))
        if t is bytes or t is bytearray:
            return bytearray(x)
        if t is SchemeProcedure:
            if x.interp is self.interp:
                return x.procedure
            return self.wrap_callable(x)
        if is_pydantic_model(x):
            found = self._record_types.get(type(x))
            if found is None:
                return x
            rtype, names = found
            return Record(rtype, [self._scm(getattr(x, name), active) for name in names])
        if isinstance(x, bool):
            return bool(x)
        if isinstance(x, int):
            return int(x)
        if isinstance(x, float):
            return float(x)
        if isinstance(x, str):
            return str(x)
        if isinstance(x, (Procedure, type)):
            return x
        if callable(x):
            return self.wrap_callable(x)
        return x

    def _dict_to_table(self, d: dict[Any, Any], active: Walk) -> Any:
        table = HashTable()
        for key, value in d.items():
            table.set(self._scm(key, active), self._scm(value, active))
        return table


class Walk(set[int]):
    """One conversion: the ids of the containers being converted, and how many more
    elements it may make. The cap is :data:`MAX_ELEMENTS` elements in all, as for one
    allocation: the largest vector a program may build converts. With ``share``, a
    container met again gives the object it was converted to (shared parts stay shared and
    count once); without it, shared substructure is copied at every meeting, so the cap is
    what stops a small value that expands exponentially. The run's limits are polled every
    :data:`~interpreter.polling.POLL_EVERY` elements."""

    def __init__(self, who: str | None = None, share: bool = False) -> None:
        super().__init__()
        self.left = MAX_ELEMENTS
        self.who = who  # names the conversion in its errors
        self.done: dict[int, Any] | None = {} if share else None
        self.next_poll = MAX_ELEMENTS - POLL_EVERY

    def inside(self, x: Any, build: Callable[[], Any], size: int | None = None) -> Any:
        """Run ``build`` for the container ``x`` (of ``size`` elements), refusing a container inside itself."""
        key = id(x)
        done = self.done
        if done is not None and key in done:
            return done[key]
        if key in self:
            prefix = f"{self.who}: " if self.who else ""
            raise SchemeError(f"{prefix}cannot convert a structure that contains itself", kind="value-error")
        self.left -= size if size is not None else len(x) if hasattr(x, "__len__") else 0
        if self.left < self.next_poll:
            if self.left < 0:
                made = MAX_ELEMENTS - self.left
                raise too_large(self.who or "conversion", made, MAX_ELEMENTS, "number of elements")
            self.next_poll = self.left - POLL_EVERY
            poll_limits()
        self.add(key)
        try:
            out = build()
        finally:
            self.discard(key)
        if done is not None:
            done[key] = out
        return out


def check_unfolded(x: Any, who: str) -> None:
    """Refuse ``x`` (``resource-exhaustion``) if written out as a tree it holds more than
    :data:`MAX_ELEMENTS` elements: a value built by doubling is refused at once instead of
    expanding."""
    size = unfolded_size(x, MAX_ELEMENTS)
    if size > MAX_ELEMENTS:
        raise too_large(who, size, MAX_ELEMENTS, "number of elements (shared parts counted at each use)")


_NOT_WORD = re.compile(r"\W")


def python_names(fields: list[str]) -> list[str]:
    """Valid, distinct pydantic field names for Scheme field names (``first-name`` → ``first_name``)."""
    from pydantic import BaseModel as ModelBase  # reason: start-up laziness: pydantic's models (25-30 ms)

    out: list[str] = []
    for field in fields:
        name = _NOT_WORD.sub("_", str(field)).strip("_") or "field"
        if name[0].isdigit():
            name = "f_" + name
        if keyword.iskeyword(name) or hasattr(ModelBase, name):
            name += "_"
        while name in out:
            name += "_"
        out.append(name)
    return out


def class_name(type_name: str) -> str:
    """``<point>`` or ``task-note`` → ``Point`` / ``TaskNote``: a class name for a record type."""
    words = [w for w in _NOT_WORD.sub(" ", type_name.replace("_", " ")).split() if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Record"
    return name if not name[0].isdigit() else "Record" + name
