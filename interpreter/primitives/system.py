"""The system interface: file ports, ``file-exists?``, ``delete-file`` and the environment.

Every file access goes through ``interp.check_file_access`` (the file capability); the
environment variables need the ``allow_scripts`` capability, since they commonly hold
credentials. Relative paths are relative to the working directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..capabilities import require_scripts
from ..datatypes import VOID, cons, make_list
from ..errors import SchemeError
from ..evaluator import apply_procedure
from ..ports import InputPort, OutputPort
from ..regular_files import open_regular
from .io import BinaryInputPort, BinaryOutputPort
from .lists import check_proc
from .registry import installer
from .strings import check_string

if TYPE_CHECKING:
    from ..host_protocols import LibraryHost


class FileOutputPort(OutputPort):
    """A textual output port writing to an open file; closing it closes the file."""

    __slots__ = ("file",)

    def __init__(self, file: Any, name: str) -> None:
        super().__init__(file.write, name, file.flush)
        self.file = file

    def close(self) -> None:
        if not self.closed:
            self.file.close()
        super().close()


def file_error(who: str, path: Path, exc: OSError) -> SchemeError:
    return SchemeError(f"{who}: cannot open {path}: {exc.strerror or exc}", kind="file-error", irritants=[str(path)])


@installer
def install_system(interp: LibraryHost) -> None:
    """Define the procedures that need the interpreter's file capability and ports."""

    def target(who: str, name: Any) -> Path:
        path = Path(check_string(who, name))
        interp.check_file_access(path, who)
        return path

    def read_whole(who: str, name: Any, mode: str) -> tuple[Path, Any]:
        """The file ``name``'s path and its whole content (text or bytes, by ``mode``)."""
        path = target(who, name)
        try:
            with open_regular(path, who, mode) as file:
                return path, file.read()
        except OSError as exc:
            raise file_error(who, path, exc) from None

    def open_for_writing(who: str, name: Any, mode: str) -> tuple[Path, Any]:
        """The file ``name``'s path and the file, opened to replace it."""
        path = target(who, name)
        try:
            return path, open_regular(path, who, mode)
        except OSError as exc:
            raise file_error(who, path, exc) from None

    def open_input_file(name: Any) -> InputPort:
        """A textual input port reading the file ``name``."""
        path, text = read_whole("open-input-file", name, "r")
        return InputPort(text, str(path))

    def open_binary_input_file(name: Any) -> BinaryInputPort:
        """A binary input port reading the file ``name``."""
        path, data = read_whole("open-binary-input-file", name, "rb")
        return BinaryInputPort(data, str(path))

    def open_output_file(name: Any) -> FileOutputPort:
        """A textual output port writing (replacing) the file ``name``."""
        path, file = open_for_writing("open-output-file", name, "w")
        return FileOutputPort(file, str(path))

    def open_binary_output_file(name: Any) -> BinaryOutputPort:
        """A binary output port writing (replacing) the file ``name``."""
        path, file = open_for_writing("open-binary-output-file", name, "wb")
        return BinaryOutputPort(str(path), file.write, file.close)

    def call_with_port(port: Any, proc: Any) -> Any:
        check_proc("call-with-port", proc)
        try:
            return apply_procedure(proc, [port])
        finally:
            port.close()

    def call_with_input_file(name: Any, proc: Any) -> Any:
        """Call ``proc`` with a port reading ``name``; the port is closed afterwards."""
        return call_with_port(open_input_file(name), proc)

    def call_with_output_file(name: Any, proc: Any) -> Any:
        """Call ``proc`` with a port writing ``name``; the port is closed afterwards."""
        return call_with_port(open_output_file(name), proc)

    def with_port(param: Any, port: Any, thunk: Any) -> Any:
        check_proc("with-file", thunk)
        saved = param.value
        param.value = port
        try:
            return apply_procedure(thunk, [])
        finally:
            param.value = saved
            port.close()

    def with_input_from_file(name: Any, thunk: Any) -> Any:
        """Call ``thunk`` with the current input port reading ``name``."""
        return with_port(interp.input, open_input_file(name), thunk)

    def with_output_to_file(name: Any, thunk: Any) -> Any:
        """Call ``thunk`` with the current output port writing ``name``."""
        return with_port(interp.output, open_output_file(name), thunk)

    def file_exists(name: Any) -> bool:
        """True if the file ``name`` exists."""
        return target("file-exists?", name).exists()

    def delete_file(name: Any) -> Any:
        """Delete the file ``name``; a file error if it cannot be deleted."""
        path = target("delete-file", name)
        try:
            path.unlink()
        except OSError as exc:
            raise SchemeError(
                f"delete-file: cannot delete {path}: {exc.strerror or exc}", kind="file-error", irritants=[str(path)]
            ) from None
        return VOID

    def check_environment(who: str) -> None:
        require_scripts(interp, who, "reading environment variables")

    def get_environment_variable(name: Any) -> Any:
        """The value of an environment variable, or #f (needs the allow_scripts capability)."""
        check_environment("get-environment-variable")
        value = os.environ.get(check_string("get-environment-variable", name))
        return False if value is None else value

    def get_environment_variables() -> Any:
        """All environment variables as an alist (needs the allow_scripts capability)."""
        check_environment("get-environment-variables")
        return make_list(cons(k, v) for k, v in os.environ.items())

    for name, fn in {
        "open-input-file": open_input_file,
        "open-binary-input-file": open_binary_input_file,
        "open-output-file": open_output_file,
        "open-binary-output-file": open_binary_output_file,
        "call-with-input-file": call_with_input_file,
        "call-with-output-file": call_with_output_file,
        "with-input-from-file": with_input_from_file,
        "with-output-to-file": with_output_to_file,
        "file-exists?": file_exists,
        "delete-file": delete_file,
        "get-environment-variable": get_environment_variable,
        "get-environment-variables": get_environment_variables,
    }.items():
        interp.define_primitive(name, fn)
