"""Ports: writing, reading, string ports, bytevector (binary) ports and the current ports.

Procedures that default to the current ports need the interpreter, so they are
defined by the installer below; the rest are plain primitives.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..datatypes import EOF, VOID, Char, MString, Parameter, sym
from ..env import GlobalBindings
from ..errors import SchemeError, type_error
from ..evaluator import apply_procedure
from ..limits import check_string_length
from ..ports import InputPort, OutputPort, Port, StringOutputPort
from ..printer import display_string, write_shared_string, write_simple_string
from ..printer import write_string as written
from ..reader import read_from_port
from .chars import check_char
from .lists import check_proc
from .numbers import check_nonneg, check_range
from .registry import installer, primitive
from .strings import check_string

if TYPE_CHECKING:
    from ..host_protocols import LibraryHost


def _stderr_write(text: str) -> None:
    sys.stderr.write(text)


def _stderr_flush() -> None:
    sys.stderr.flush()


#: Used when an interpreter has no ``error_output`` parameter of its own.
STDERR_PORT = OutputPort(_stderr_write, "stderr", _stderr_flush)


def open_port(who: str, port: Any, kind: type, expected: str, direction: str) -> Any:
    """``port`` if it is an open port of ``kind``, else an error naming ``who``."""
    if not isinstance(port, kind):
        raise type_error(who, expected, port)
    if port.closed:
        raise SchemeError(f"{who}: {direction} port is closed", kind="value-error")
    return port


def check_output_port(who: str, port: Any) -> OutputPort:
    """An open output port, or an error."""
    return open_port(who, port, OutputPort, "an output port", "output")


def check_input_port(who: str, port: Any) -> InputPort:
    """An open input port, or an error."""
    return open_port(who, port, InputPort, "an input port", "input")


# ----------------------------------------------------------------------------------
# port objects (no interpreter needed)
# ----------------------------------------------------------------------------------
@primitive("open-input-string")
def open_input_string(s: Any) -> InputPort:
    """An input port reading from a string."""
    return InputPort(check_string("open-input-string", s), "string")


@primitive("open-output-string")
def open_output_string() -> StringOutputPort:
    """An output port collecting text; see ``get-output-string``."""
    return StringOutputPort()


@primitive("get-output-string")
def get_output_string(port: Any) -> MString:
    """The text written so far to a string output port, as a new string."""
    if type(port) is not StringOutputPort:
        raise type_error("get-output-string", "a string output port", port)
    return port_text(port, "get-output-string")


def port_text(port: StringOutputPort, who: str) -> MString:
    """The text of ``port`` as a new string, within the string cap and the run's memory budget:
    a port holds each write by reference, so 20,000 writes of one 10 KB string cost 160 KB
    until they are joined into 200 MB here."""
    check_string_length(who, sum(map(len, port.parts)))
    return MString(port.getvalue())


@primitive("eof-object")
def eof_object() -> Any:
    """The end-of-file object."""
    return EOF


@primitive("eof-object?")
def is_eof_object(x: Any) -> bool:
    """True for the end-of-file object."""
    return x is EOF


class BinaryInputPort(Port):
    """A binary input port over bytes (a bytevector, or a file read whole)."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, name: str = "bytevector") -> None:
        super().__init__(name)
        self.data = bytes(data)
        self.pos = 0


class BinaryOutputPort(Port):
    """A binary output port collecting bytes; ``sink`` (a file's write) receives them too."""

    __slots__ = ("buffer", "sink", "closer")

    def __init__(self, name: str = "bytevector", sink: Any = None, closer: Any = None) -> None:
        super().__init__(name)
        self.buffer = bytearray()
        self.sink = sink
        self.closer = closer

    def write(self, data: bytes) -> None:
        if self.sink is not None:
            self.sink(bytes(data))
        else:
            self.buffer.extend(data)

    def close(self) -> None:
        if not self.closed and self.closer is not None:
            self.closer()
        super().close()


def check_binary_input(who: str, port: Any) -> BinaryInputPort:
    return open_port(who, port, BinaryInputPort, "a binary input port", "input")


def check_binary_output(who: str, port: Any) -> BinaryOutputPort:
    return open_port(who, port, BinaryOutputPort, "a binary output port", "output")


@primitive("open-input-bytevector")
def open_input_bytevector(bv: Any) -> BinaryInputPort:
    """A binary input port reading the bytes of ``bv``."""
    if type(bv) is not bytearray:
        raise type_error("open-input-bytevector", "a bytevector", bv)
    return BinaryInputPort(bv)


@primitive("open-output-bytevector")
def open_output_bytevector() -> BinaryOutputPort:
    """A binary output port; ``get-output-bytevector`` returns what was written."""
    return BinaryOutputPort()


@primitive("get-output-bytevector")
def get_output_bytevector(port: Any) -> bytearray:
    """The bytes written so far to a port from ``open-output-bytevector``."""
    if not isinstance(port, BinaryOutputPort) or port.sink is not None:
        raise type_error("get-output-bytevector", "a bytevector output port", port)
    return bytearray(port.buffer)


def read_u8(port: Any = None) -> Any:
    """The next byte, or the eof object."""
    p = check_binary_input("read-u8", port)
    if p.pos >= len(p.data):
        return EOF
    p.pos += 1
    return p.data[p.pos - 1]


def peek_u8(port: Any = None) -> Any:
    """The next byte without consuming it, or the eof object."""
    p = check_binary_input("peek-u8", port)
    return EOF if p.pos >= len(p.data) else p.data[p.pos]


def u8_ready(port: Any = None) -> bool:
    """True: a bytevector or file port never blocks."""
    check_binary_input("u8-ready?", port)
    return True


def read_bytevector(k: Any, port: Any = None) -> Any:
    """Up to ``k`` bytes as a new bytevector, or the eof object if none are left."""
    n = check_nonneg("read-bytevector", k)
    p = check_binary_input("read-bytevector", port)
    if p.pos >= len(p.data) and n > 0:
        return EOF
    chunk = p.data[p.pos : p.pos + n]
    p.pos += len(chunk)
    return bytearray(chunk)


def read_bytevector_into(bv: Any, port: Any = None, start: Any = None, end: Any = None) -> Any:
    """Read bytes into ``bv`` from ``start`` to ``end``; the count read, or eof."""
    if type(bv) is not bytearray:
        raise type_error("read-bytevector!", "a bytevector", bv)
    p = check_binary_input("read-bytevector!", port)
    lo, hi = check_range("read-bytevector!", start, end, len(bv), "bytevector")
    if p.pos >= len(p.data) and hi > lo:
        return EOF
    chunk = p.data[p.pos : p.pos + hi - lo]
    p.pos += len(chunk)
    bv[lo : lo + len(chunk)] = chunk
    return len(chunk)


def write_u8(byte: Any, port: Any = None) -> Any:
    """Write one byte."""
    if type(byte) is not int or not 0 <= byte <= 255:
        raise type_error("write-u8", "a byte (0 to 255)", byte)
    check_binary_output("write-u8", port).write(bytes([byte]))
    return VOID


def write_bytevector(bv: Any, port: Any = None, start: Any = None, end: Any = None) -> Any:
    """Write (part of) a bytevector's bytes."""
    if type(bv) is not bytearray:
        raise type_error("write-bytevector", "a bytevector", bv)
    lo, hi = check_range("write-bytevector", start, end, len(bv), "bytevector")
    check_binary_output("write-bytevector", port).write(bv[lo:hi])
    return VOID


#: The binary I/O procedures, with the position of their port argument; the installer
#: makes the port default to the current input or output port, as R7RS says.
BINARY_INPUT = [
    ("read-u8", read_u8, 0),
    ("peek-u8", peek_u8, 0),
    ("u8-ready?", u8_ready, 0),
    ("read-bytevector", read_bytevector, 1),
    ("read-bytevector!", read_bytevector_into, 1),
]
BINARY_OUTPUT = [("write-u8", write_u8, 1), ("write-bytevector", write_bytevector, 1)]


@primitive("call-with-port")
def call_with_port(port: Any, proc: Any) -> Any:
    """Call ``proc`` with ``port``, close the port when it returns, and return its value."""
    if not isinstance(port, Port):
        raise type_error("call-with-port", "a port", port)
    check_proc("call-with-port", proc)
    result = apply_procedure(proc, [port])
    port.close()
    return result


@primitive("port?")
def is_port(x: Any) -> bool:
    """True for ports."""
    return isinstance(x, Port)


@primitive("input-port?")
def is_input_port(x: Any) -> bool:
    """True for input ports."""
    return isinstance(x, (InputPort, BinaryInputPort))


@primitive("output-port?")
def is_output_port(x: Any) -> bool:
    """True for output ports."""
    return isinstance(x, (OutputPort, BinaryOutputPort))


@primitive("textual-port?")
def is_textual_port(x: Any) -> bool:
    """True for textual ports."""
    return isinstance(x, (InputPort, OutputPort))


@primitive("binary-port?")
def is_binary_port(x: Any) -> bool:
    """True for binary (bytevector and binary file) ports."""
    return isinstance(x, (BinaryInputPort, BinaryOutputPort))


@primitive("input-port-open?")
def input_port_open(port: Any) -> bool:
    """True if ``port`` is an input port that is not closed (#f for an output port)."""
    if not isinstance(port, Port):
        raise type_error("input-port-open?", "a port", port)
    return isinstance(port, (InputPort, BinaryInputPort)) and not port.closed


@primitive("output-port-open?")
def output_port_open(port: Any) -> bool:
    """True if ``port`` is an output port that is not closed (#f for an input port)."""
    if not isinstance(port, Port):
        raise type_error("output-port-open?", "a port", port)
    return isinstance(port, (OutputPort, BinaryOutputPort)) and not port.closed


@primitive("close-port")
def close_port(port: Any) -> Any:
    """Close a port."""
    if not isinstance(port, Port):
        raise type_error("close-port", "a port", port)
    port.close()
    return VOID


@primitive("close-input-port")
def close_input_port(port: Any) -> Any:
    """Close an input port."""
    if not isinstance(port, (InputPort, BinaryInputPort)):
        raise type_error("close-input-port", "an input port", port)
    port.close()
    return VOID


@primitive("close-output-port")
def close_output_port(port: Any) -> Any:
    """Close an output port."""
    if not isinstance(port, (OutputPort, BinaryOutputPort)):
        raise type_error("close-output-port", "an output port", port)
    port.close()
    return VOID


#: Integers ``display`` writes with ``str`` directly (any size prints the same; this bounds the test).
SMALL = 1 << 62


# ----------------------------------------------------------------------------------
# interpreter-bound procedures
# ----------------------------------------------------------------------------------
@installer
def install_io(interp: LibraryHost) -> None:
    """Define the procedures that default to the interpreter's current ports."""
    out_param: Parameter = interp.output
    in_param: Parameter = interp.input
    err_param: Parameter | None = getattr(interp, "error_output", None)

    def out(who: str, port: Any) -> OutputPort:
        p = out_param.value if port is None else port
        if type(p) is StringOutputPort and not p.closed:  # the common case, checked inline
            return p
        return check_output_port(who, p)

    def inp(who: str, port: Any) -> InputPort:
        return check_input_port(who, in_param.value if port is None else port)

    if err_param is None:
        err_param = Parameter(STDERR_PORT, name="current-error-port")
    interp.define("current-output-port", out_param)
    interp.define("current-input-port", in_param)
    interp.define("current-error-port", err_param)

    def display(x: Any, port: Any = None) -> Any:
        """Write ``x`` as ``display`` shows it (strings and characters raw)."""
        p = out("display", port)
        kind = type(x)
        if kind is str:
            p.write(x)
        elif kind is int and -SMALL < x < SMALL:  # the common number: no printer call
            p.write(str(x))
        else:
            p.write(display_string(x))
        return VOID

    def write(x: Any, port: Any = None) -> Any:
        """Write ``x`` as data (strings quoted)."""
        out("write", port).write(written(x))
        return VOID

    def write_shared(x: Any, port: Any = None) -> Any:
        """Like ``write``, with datum labels for every shared part."""
        out("write-shared", port).write(write_shared_string(x))
        return VOID

    def write_simple(x: Any, port: Any = None) -> Any:
        """Like ``write``, never using datum labels."""
        out("write-simple", port).write(write_simple_string(x))
        return VOID

    def newline(port: Any = None) -> Any:
        """Write a newline."""
        out("newline", port).write("\n")
        return VOID

    def write_string(s: Any, port: Any = None, start: Any = None, end: Any = None) -> Any:
        """Write (part of) a string's characters."""
        text = s if type(s) is str else check_string("write-string", s)
        if start is not None or end is not None:
            lo, hi = check_range("write-string", start, end, len(text), "string")
            text = text[lo:hi]
        out("write-string", port).write(text)
        return VOID

    def write_char(c: Any, port: Any = None) -> Any:
        """Write one character."""
        ch = c.ch if type(c) is Char else check_char("write-char", c).ch
        out("write-char", port).write(ch)
        return VOID

    def fresh_line(port: Any = None) -> Any:
        """Write a newline unless at the start of a line."""
        p = out("fresh-line", port)
        if p.column != 0:
            p.write("\n")
        return VOID

    def flush_output_port(port: Any = None) -> Any:
        """Flush buffered output (of a textual or binary output port)."""
        if isinstance(port, BinaryOutputPort):
            check_binary_output("flush-output-port", port)  # written through already: nothing to flush
        else:
            out("flush-output-port", port).flush()
        return VOID

    def read_line(port: Any = None) -> Any:
        """The next line without its line ending (``\\n`` or ``\\r\\n``), or the eof object."""
        line = inp("read-line", port).read_line()
        if line is None:
            return EOF
        return MString(line[:-1] if line.endswith("\r") else line)

    def read_char(port: Any = None) -> Any:
        """The next character, or the eof object."""
        ch = inp("read-char", port).read_char()
        return EOF if ch is None else Char(ch)

    def peek_char(port: Any = None) -> Any:
        """The next character without consuming it, or the eof object."""
        ch = inp("peek-char", port).peek_char()
        return EOF if ch is None else Char(ch)

    def read_string(k: Any, port: Any = None) -> Any:
        """Up to ``k`` characters, or the eof object if none are left."""
        if isinstance(k, InputPort):  # (read-string port k) in some dialects
            k, port = port, k
        n = check_nonneg("read-string", k)
        p = inp("read-string", port)
        chars = []
        for _ in range(n):
            ch = p.read_char()
            if ch is None:
                break
            chars.append(ch)
        if not chars and n > 0:
            return EOF
        return MString("".join(chars))

    def char_ready(port: Any = None) -> bool:
        """True if a character can be read without blocking."""
        return inp("char-ready?", port).char_ready()

    def read(port: Any = None) -> Any:
        """Read one datum, or the eof object."""
        return read_from_port(inp("read", port))

    def with_output_to_string(thunk: Any) -> MString:
        """Call ``thunk`` with output going to a string; return the string."""
        check_proc("with-output-to-string", thunk)
        port = StringOutputPort()
        saved = out_param.value
        out_param.value = port
        try:
            apply_procedure(thunk, [])
        finally:
            out_param.value = saved
        return port_text(port, "with-output-to-string")

    def call_with_output_string(proc: Any) -> MString:
        """Call ``proc`` with a string output port; return what it wrote."""
        check_proc("call-with-output-string", proc)
        port = StringOutputPort()
        apply_procedure(proc, [port])
        return port_text(port, "call-with-output-string")

    def with_input_from_string(s: Any, thunk: Any) -> Any:
        """Call ``thunk`` with input coming from the string ``s``."""
        text = check_string("with-input-from-string", s)
        check_proc("with-input-from-string", thunk)
        saved = in_param.value
        in_param.value = InputPort(text, "string")
        try:
            return apply_procedure(thunk, [])
        finally:
            in_param.value = saved

    def call_with_input_string(s: Any, proc: Any) -> Any:
        """Call ``proc`` with an input port reading from ``s``."""
        text = check_string("call-with-input-string", s)
        check_proc("call-with-input-string", proc)
        return apply_procedure(proc, [InputPort(text, "string")])

    def binary_default(name: str, fn: Any, position: int, param: Parameter) -> Any:
        """``fn`` with its port argument (at ``position``) defaulting to the current port."""

        def with_default(*args: Any) -> Any:
            if len(args) <= position or args[position] is None:
                args = (*args[:position], param.value, *args[position + 1 :])
            return fn(*args)

        with_default.__wrapped__ = fn  # type: ignore[attr-defined]  # its signature gives the arity
        interp.define_primitive(name, with_default)

    for name, fn, position in BINARY_INPUT:
        binary_default(name, fn, position, in_param)
    for name, fn, position in BINARY_OUTPUT:
        binary_default(name, fn, position, out_param)

    inline = {"display": display, "newline": newline, "write-string": write_string, "write-char": write_char}
    for name, fn in inline.items():
        # compiled bodies write to a string port inline while the name holds this procedure
        fn.inline_statement = name  # type: ignore[attr-defined]
    for name, fn in {
        "display": display,
        "write": write,
        "write-shared": write_shared,
        "write-simple": write_simple,
        "newline": newline,
        "write-string": write_string,
        "write-char": write_char,
        "fresh-line": fresh_line,
        "flush-output-port": flush_output_port,
        "flush-output": flush_output_port,
        "read-line": read_line,
        "read-char": read_char,
        "peek-char": peek_char,
        "read-string": read_string,
        "char-ready?": char_ready,
        "read": read,
        "with-output-to-string": with_output_to_string,
        "call-with-output-string": call_with_output_string,
        "with-input-from-string": with_input_from_string,
        "call-with-input-string": call_with_input_string,
    }.items():
        interp.define_primitive(name, fn)
    bindings = interp.global_env.vars
    if isinstance(bindings, GlobalBindings):
        # compiled bodies test a flag that is up while the name holds this procedure (as for
        # every inline built-in) instead of reading the operator at each write
        bindings.watch_also({sym(name): bindings[sym(name)] for name in inline})
