"""The pipe between a host and its isolated interpreter: framed messages, pickled with
an allow-list.

The child runs untrusted programs, so the host never unpickles arbitrary classes from
it: :class:`SafeUnpickler` resolves only the value types the embedding API returns
(numbers, strings, lists, tuples, dicts, symbols, chars, pairs, task records, errors).
Everything that cannot or must not cross by value crosses as a *persistent id* that the
receiving side resolves: procedures and host functions as handles (calls go back over the
pipe), record instances by type name and fields, errors with their backtrace, and any
other object as an :class:`Opaque` stand-in showing how it prints.
"""

from __future__ import annotations

import importlib
import io
import os
import pickle
import struct
import threading
from fractions import Fraction
from typing import IO, Any

from pydantic import BaseModel

from ..datatypes import EOF, NIL, VOID, Char, Eof, Keyword, MString, Nil, Pair, Span, Symbol, Values, Void
from ..errors import ErrorRecord, Frame, SchemeError
from ..evaluator import Interrupted
from ..printer import write_string
from ..tasks.errors import TaskError
from ..tasks.models.backends import ModelResponse, TransientModelError
from ..tasks.observe.tracing import Event
from ..tasks.records import SchemeRecord

HEADER = struct.Struct("!Q")
PROTOCOL = 5


class ChannelClosed(Exception):
    """The other end of the pipe is gone (the child died or the host closed it)."""


class BadMessage(Exception):
    """A message that does not decode, or names what may not cross."""


class FrameTooLarge(Exception):
    """A message bigger than the receiver accepts."""


class Opaque:
    """An object that cannot cross the process boundary by value: what it printed as."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return type(other) is Opaque and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def scheme_repr(self, write: bool) -> str:
        return self.text


#: The classes a message may name, by (module, qualified name). Task records are added below.
ALLOWED: dict[tuple[str, str], type] = {
    ("builtins", "complex"): complex,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): bytearray,
    ("fractions", "Fraction"): Fraction,
    ("interpreter.datatypes", "Char"): Char,
    ("interpreter.datatypes", "Pair"): Pair,
    ("interpreter.datatypes", "Span"): Span,
    ("interpreter.datatypes", "Values"): Values,
    ("interpreter.errors", "Frame"): Frame,
    ("interpreter.errors", "ErrorRecord"): ErrorRecord,
    ("interpreter.isolation.wire", "Opaque"): Opaque,
}


def _allow_task_models() -> None:
    """Trace events and model answers cross as pydantic models (task records too: :func:`task_record`)."""
    for cls in (ModelResponse, Event):
        ALLOWED[(cls.__module__, cls.__name__)] = cls


_allow_task_models()


def task_record(module: str, name: str) -> type | None:
    """A task record class (``SchemeRecord``: TaskResult, LoopResult, Usage …) of a module of
    ``interpreter.tasks``, or None. Records are data: building one runs only its validation.

    The module is imported if it is not yet: a host that has not made its own task runtime
    still takes the records its child's tasks return."""
    if not module.startswith("interpreter.tasks.") or "." in name:
        return None
    try:  # imported now if it is not yet; if another thread is importing it, once that import is done
        loaded = importlib.import_module(module)  # reason: our own package's module, loaded on first record
    except ImportError:
        return None
    found = getattr(loaded, name, None)
    return found if isinstance(found, type) and issubclass(found, SchemeRecord) else None


#: Error classes that cross with their class (any other SchemeError crosses as its nearest one).
ERROR_CLASSES: dict[str, type[SchemeError]] = {}


def _error_classes() -> None:
    for cls in (SchemeError, Interrupted, TaskError, TransientModelError):
        ERROR_CLASSES[cls.__name__] = cls


_error_classes()

#: Types pickled as they are (their contents still pass through ``persistent_id``).
PLAIN = frozenset([int, float, bool, str, bytes, bytearray, complex, Fraction, list, tuple, dict, set, frozenset])
PLAIN |= {type(None), Char, Pair, Span, Values, Frame, ErrorRecord, Opaque}
CONSTANTS: dict[str, Any] = {"nil": NIL, "void": VOID, "eof": EOF}


class Codec:
    """How one side names what it cannot send by value, and resolves what the other side named.

    ``export(obj)`` returns a persistent id (a tuple) for an object of no plain type, or
    None to pickle it as usual; ``resolve(pid)`` turns the other side's ids into objects."""

    def export(self, obj: Any) -> tuple[Any, ...] | None:
        return None

    def resolve(self, pid: tuple[Any, ...]) -> Any:
        raise pickle.UnpicklingError(f"unknown reference {pid[0]!r}")

    # -- the shared part ---------------------------------------------------------------
    def persistent_id(self, obj: Any) -> tuple[Any, ...] | None:
        t = type(obj)
        if t in PLAIN or isinstance(obj, type):  # classes go by name (find_class checks them)
            return None
        if t is Symbol:
            return ("symbol", obj.name)
        if t is Keyword:
            return ("keyword", obj.name)
        if t is MString:
            return ("string", str(obj))
        if t is Nil:
            return ("const", "nil")
        if t is Void:
            return ("const", "void")
        if t is Eof:
            return ("const", "eof")
        if isinstance(obj, SchemeError):
            return error_id(obj)
        if isinstance(obj, BaseModel) and (
            (t.__module__, t.__qualname__) in ALLOWED or task_record(t.__module__, t.__qualname__)
        ):
            return None
        found = self.export(obj)
        if found is not None:
            return found
        return ("opaque", printed(obj))

    def persistent_load(self, pid: tuple[Any, ...]) -> Any:
        tag = pid[0]
        if tag == "symbol":
            return Symbol.intern(pid[1])
        if tag == "keyword":
            return Keyword.intern(pid[1])
        if tag == "string":
            return pid[1]
        if tag == "const":
            return CONSTANTS[pid[1]]
        if tag == "error":
            return rebuild_error(pid)
        if tag == "opaque":
            return Opaque(pid[1])
        return self.resolve(pid)

    # -- bytes ---------------------------------------------------------------------------
    def dumps(self, message: Any) -> bytes:
        buffer = io.BytesIO()
        CodecPickler(buffer, self).dump(message)
        return buffer.getvalue()

    def loads(self, data: bytes) -> Any:
        return SafeUnpickler(io.BytesIO(data), self).load()


# The codec's hooks are methods of subclasses, not attributes set on an instance: from
# Python 3.13 the C pickler's ``persistent_id`` is a read-only attribute.
class CodecPickler(pickle.Pickler):
    """Pickles a message, naming by persistent id what ``codec`` will not send by value."""

    def __init__(self, file: io.BytesIO, codec: Codec) -> None:
        super().__init__(file, PROTOCOL)
        self.codec = codec

    def persistent_id(self, obj: Any) -> tuple[Any, ...] | None:
        return self.codec.persistent_id(obj)


class SafeUnpickler(pickle.Unpickler):
    """Resolves only the classes in :data:`ALLOWED`: a message cannot call anything else;
    persistent ids go to ``codec``."""

    def __init__(self, file: io.BytesIO, codec: Codec) -> None:
        super().__init__(file)
        self.codec = codec

    def persistent_load(self, pid: Any) -> Any:
        return self.codec.persistent_load(pid)

    def find_class(self, module: str, name: str) -> Any:
        found = ALLOWED.get((module, name)) or task_record(module, name)
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} may not cross from an isolated interpreter")
        return found


def printed(obj: Any) -> str:
    """How ``obj`` prints in Scheme (``write``), for an :class:`Opaque` stand-in."""
    try:
        return write_string(obj)
    except Exception:
        return f"#<{type(obj).__name__}>"


def error_id(err: SchemeError) -> tuple[Any, ...]:
    """A taskscheme error as a persistent id: its class, message and attributes."""
    cls = next((c.__name__ for c in type(err).__mro__ if c.__name__ in ERROR_CLASSES), "SchemeError")
    state = dict(vars(err))
    details = state.get("details")
    if isinstance(details, dict) and "exception" in details:  # a host exception: its text crosses
        details = dict(details)
        exc = details["exception"]
        details["exception"] = Opaque(f"{type(exc).__name__}: {exc}")
        state["details"] = details
    return ("error", cls, err.message, state)


def rebuild_error(pid: tuple[Any, ...]) -> SchemeError:
    """The error :func:`error_id` described, of the same class, with its backtrace."""
    _, cls_name, message, state = pid
    cls = ERROR_CLASSES.get(cls_name, SchemeError)
    err = cls.__new__(cls)
    Exception.__init__(err, message)
    err.__dict__.update(state)
    return err


class Channel:
    """Length-prefixed messages over a pair of pipes; sending is thread-safe."""

    def __init__(self, reader: IO[bytes], writer: IO[bytes], codec: Codec, max_frame: int | None = None) -> None:
        self.reader = reader
        self.writer = writer
        self.codec = codec
        self.max_frame = max_frame
        self._send_lock = threading.Lock()

    def send(self, message: Any) -> None:
        data = self.codec.dumps(message)
        with self._send_lock:
            try:
                self.writer.write(HEADER.pack(len(data)))
                self.writer.write(data)
                self.writer.flush()
            except (OSError, ValueError) as exc:
                raise ChannelClosed(str(exc)) from None

    def recv(self) -> Any:
        (size,) = HEADER.unpack(self._read(HEADER.size))
        if self.max_frame is not None and size > self.max_frame:
            raise FrameTooLarge(f"a message of {size} bytes (at most {self.max_frame} are accepted)")
        data = self._read(size)
        try:
            return self.codec.loads(data)
        except Exception as exc:  # whatever a broken or hostile message raises while it decodes
            raise BadMessage(f"{type(exc).__name__}: {exc}") from None

    def _read(self, size: int) -> bytes:
        chunks: list[bytes] = []
        while size:
            try:
                chunk = self.reader.read(size)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                raise ChannelClosed("the other end closed the pipe")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def fileno(self) -> int:
        return self.reader.fileno()


def pipe_files(read_fd: int, write_fd: int) -> tuple[IO[bytes], IO[bytes]]:
    """Unbuffered binary files over two descriptors."""
    return os.fdopen(read_fd, "rb", buffering=0), os.fdopen(write_fd, "wb", buffering=0)
