"""``define-record-type``: a new record type and its procedures, made when the form runs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..datatypes import VOID, Primitive, Record, RecordType, Span, Symbol
from ..env import Env
from ..errors import arity_error, type_error
from .core import Node, Run


def record_procedures(
    rtype: RecordType,
    ctor_name: Symbol | None,
    ctor_fields: list[int],
    pred: Symbol | None,
    accessors: list[tuple[Symbol, int, bool]],
) -> dict[Symbol, Any]:
    """The constructor, predicate, accessors and modifiers of ``rtype`` by name."""
    procs: dict[Symbol, Any] = {}
    label = rtype.name.strip("<>")
    nfields = len(rtype.fields)
    if ctor_name is not None:

        def construct(*args: Any) -> Record:
            if len(args) != len(ctor_fields):
                raise arity_error(ctor_name.name, f"{len(ctor_fields)} arguments", len(args))
            values: list[Any] = [False] * nfields
            for index, value in zip(ctor_fields, args):
                values[index] = value
            return Record(rtype, values)

        procs[ctor_name] = Primitive(ctor_name.name, construct, 0, None)
    if pred is not None:
        procs[pred] = Primitive(pred.name, lambda x: type(x) is Record and x.rtype is rtype, 1, 1)
    for name, index, modifier in accessors:
        if modifier:
            procs[name] = Primitive(name.name, _modifier(name.name, rtype, label, index), 2, 2)
        else:
            procs[name] = Primitive(name.name, _accessor(name.name, rtype, label, index), 1, 1)
    return procs


def _accessor(who: str, rtype: RecordType, label: str, index: int) -> Any:
    def access(record: Any) -> Any:
        if type(record) is not Record or record.rtype is not rtype:
            raise type_error(who, f"a {label} record", record)
        return record.values[index]

    return access


def _modifier(who: str, rtype: RecordType, label: str, index: int) -> Any:
    def modify(record: Any, value: Any) -> Any:
        if type(record) is not Record or record.rtype is not rtype:
            raise type_error(who, f"a {label} record", record)
        record.values[index] = value
        return VOID

    return modify


class DefineRecordType(Node):
    """Defines the type name and its procedures in the current frame."""

    __slots__ = ("accessors", "ctor_fields", "ctor_name", "fields", "pred", "type_name")

    def __init__(
        self,
        type_name: Symbol,
        fields: list[str],
        ctor_name: Symbol | None,
        ctor_fields: list[int],
        pred: Symbol | None,
        accessors: list[tuple[Symbol, int, bool]],
        span: Span | None,
    ) -> None:
        self.type_name, self.fields, self.ctor_name, self.ctor_fields = type_name, fields, ctor_name, ctor_fields
        self.pred, self.accessors, self.span = pred, accessors, span

    def assigned(self) -> Iterable[Symbol]:
        names = [self.type_name, self.ctor_name, self.pred, *(name for name, _, _ in self.accessors)]
        return [name for name in names if name is not None]

    def compile(self, tail: bool) -> Run:
        def define_record_type(env: Env) -> Any:
            rtype = RecordType(self.type_name.name, self.fields)
            env.vars[self.type_name] = rtype
            env.vars.update(record_procedures(rtype, self.ctor_name, self.ctor_fields, self.pred, self.accessors))
            return VOID

        return define_record_type
