"""Textual ports: writing, reading, string ports and the current ports.

Procedures that default to the current ports need the interpreter, so they are
defined by the installer below; the rest are plain primitives.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..datatypes import EOF, VOID, Char, Parameter
from ..errors import SchemeError, type_error
from ..ports import InputPort, OutputPort, Port, StringOutputPort
from .chars import check_char
from .lists import apply_fn, check_proc
from .numbers import check_nonneg, check_range
from .registry import installer, primitive
from .strings import check_string

if TYPE_CHECKING:
    from ..interpreter import Interpreter


def _stderr_write(text: str) -> None:
    sys.stderr.write(text)


def _stderr_flush() -> None:
    sys.stderr.flush()


#: Used when an interpreter has no ``error_output`` parameter of its own.
STDERR_PORT = OutputPort(_stderr_write, "stderr", _stderr_flush)


def check_output_port(who: str, port: Any) -> OutputPort:
    """An open output port, or an error."""
    if not isinstance(port, OutputPort):
        raise type_error(who, "an output port", port)
    if port.closed:
        raise SchemeError(f"{who}: output port is closed", kind="value-error")
    return port


def check_input_port(who: str, port: Any) -> InputPort:
    """An open input port, or an error."""
    if not isinstance(port, InputPort):
        raise type_error(who, "an input port", port)
    if port.closed:
        raise SchemeError(f"{who}: input port is closed", kind="value-error")
    return port


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
def get_output_string(port: Any) -> str:
    """The text written so far to a string output port."""
    if type(port) is not StringOutputPort:
        raise type_error("get-output-string", "a string output port", port)
    return port.getvalue()


@primitive("eof-object")
def eof_object() -> Any:
    """The end-of-file object."""
    return EOF


@primitive("eof-object?")
def is_eof_object(x: Any) -> bool:
    """True for the end-of-file object."""
    return x is EOF


@primitive("port?")
def is_port(x: Any) -> bool:
    """True for ports."""
    return isinstance(x, Port)


@primitive("input-port?")
def is_input_port(x: Any) -> bool:
    """True for input ports."""
    return isinstance(x, InputPort)


@primitive("output-port?")
def is_output_port(x: Any) -> bool:
    """True for output ports."""
    return isinstance(x, OutputPort)


@primitive("textual-port?")
def is_textual_port(x: Any) -> bool:
    """True for textual ports (all ports here are textual)."""
    return isinstance(x, Port)


@primitive("binary-port?")
def is_binary_port(x: Any) -> bool:
    """Always #f: binary ports are not supported."""
    return False


@primitive("input-port-open?")
def input_port_open(port: Any) -> bool:
    """True if an input port is not closed."""
    if not isinstance(port, InputPort):
        raise type_error("input-port-open?", "an input port", port)
    return not port.closed


@primitive("output-port-open?")
def output_port_open(port: Any) -> bool:
    """True if an output port is not closed."""
    if not isinstance(port, OutputPort):
        raise type_error("output-port-open?", "an output port", port)
    return not port.closed


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
    if not isinstance(port, InputPort):
        raise type_error("close-input-port", "an input port", port)
    port.close()
    return VOID


@primitive("close-output-port")
def close_output_port(port: Any) -> Any:
    """Close an output port."""
    if not isinstance(port, OutputPort):
        raise type_error("close-output-port", "an output port", port)
    port.close()
    return VOID


# ----------------------------------------------------------------------------------
# interpreter-bound procedures
# ----------------------------------------------------------------------------------
@installer
def install_io(interp: Interpreter) -> None:
    """Define the procedures that default to the interpreter's current ports."""
    out_param: Parameter = interp.output
    in_param: Parameter = interp.input
    err_param: Parameter | None = getattr(interp, "error_output", None)

    def out(who: str, port: Any) -> OutputPort:
        return check_output_port(who, out_param.value if port is None else port)

    def inp(who: str, port: Any) -> InputPort:
        return check_input_port(who, in_param.value if port is None else port)

    if err_param is None:
        err_param = Parameter(STDERR_PORT, name="current-error-port")
    interp.define("current-output-port", out_param)
    interp.define("current-input-port", in_param)
    interp.define("current-error-port", err_param)

    def display(x: Any, port: Any = None) -> Any:
        """Write ``x`` as ``display`` shows it (strings and characters raw)."""
        from ..printer import display_string

        p = out("display", port)
        p.write(x if type(x) is str else display_string(x))
        return VOID

    def write(x: Any, port: Any = None) -> Any:
        """Write ``x`` as data (strings quoted)."""
        from ..printer import write_string

        out("write", port).write(write_string(x))
        return VOID

    def write_shared(x: Any, port: Any = None) -> Any:
        """Like ``write`` (shared structure is labelled by the printer)."""
        from ..printer import write_string

        out("write-shared", port).write(write_string(x))
        return VOID

    def write_simple(x: Any, port: Any = None) -> Any:
        """Like ``write``."""
        from ..printer import write_string

        out("write-simple", port).write(write_string(x))
        return VOID

    def newline(port: Any = None) -> Any:
        """Write a newline."""
        out("newline", port).write("\n")
        return VOID

    def write_string(s: Any, port: Any = None, start: Any = None, end: Any = None) -> Any:
        """Write (part of) a string's characters."""
        text = check_string("write-string", s)
        if start is not None or end is not None:
            lo, hi = check_range("write-string", start, end, len(text), "string")
            text = text[lo:hi]
        out("write-string", port).write(text)
        return VOID

    def write_char(c: Any, port: Any = None) -> Any:
        """Write one character."""
        ch = check_char("write-char", c).ch
        out("write-char", port).write(ch)
        return VOID

    def fresh_line(port: Any = None) -> Any:
        """Write a newline unless at the start of a line."""
        p = out("fresh-line", port)
        if p.column != 0:
            p.write("\n")
        return VOID

    def flush_output_port(port: Any = None) -> Any:
        """Flush buffered output."""
        out("flush-output-port", port).flush()
        return VOID

    def read_line(port: Any = None) -> Any:
        """The next line without its newline, or the eof object."""
        line = inp("read-line", port).read_line()
        return EOF if line is None else line

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
        return "".join(chars)

    def char_ready(port: Any = None) -> bool:
        """True if a character can be read without blocking."""
        return inp("char-ready?", port).char_ready()

    def read(port: Any = None) -> Any:
        """Read one datum, or the eof object."""
        from ..reader import read_from_port

        return read_from_port(inp("read", port))

    def with_output_to_string(thunk: Any) -> str:
        """Call ``thunk`` with output going to a string; return the string."""
        check_proc("with-output-to-string", thunk)
        port = StringOutputPort()
        saved = out_param.value
        out_param.value = port
        try:
            apply_fn()(thunk, [])
        finally:
            out_param.value = saved
        return port.getvalue()

    def call_with_output_string(proc: Any) -> str:
        """Call ``proc`` with a string output port; return what it wrote."""
        check_proc("call-with-output-string", proc)
        port = StringOutputPort()
        apply_fn()(proc, [port])
        return port.getvalue()

    def with_input_from_string(s: Any, thunk: Any) -> Any:
        """Call ``thunk`` with input coming from the string ``s``."""
        text = check_string("with-input-from-string", s)
        check_proc("with-input-from-string", thunk)
        saved = in_param.value
        in_param.value = InputPort(text, "string")
        try:
            return apply_fn()(thunk, [])
        finally:
            in_param.value = saved

    def call_with_input_string(s: Any, proc: Any) -> Any:
        """Call ``proc`` with an input port reading from ``s``."""
        text = check_string("call-with-input-string", s)
        check_proc("call-with-input-string", proc)
        return apply_fn()(proc, [InputPort(text, "string")])

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
