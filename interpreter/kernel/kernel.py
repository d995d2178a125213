"""The taskscheme Jupyter kernel, on ipykernel's wrapper-kernel base class.

One interpreter per kernel, kept across cells (:mod:`.session`); output, streamed model
text, values, errors, completion and inspection as Jupyter messages.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ipykernel.kernelbase import Kernel

from .. import __version__
from ..interpreter import Interpreter
from ..reader import is_complete
from .completion import complete, inspect
from .rich import mime_bundle, trace_bundle
from .session import NotebookSession, cell_name
from .streams import CellStream, NotebookProgress

#: What the notebook knows about the language (highlighting, file extension).
LANGUAGE_INFO = {
    "name": "scheme",
    "version": __version__,
    "mimetype": "text/x-scheme",
    "file_extension": ".scm",
    "pygments_lexer": "taskscheme",  # interpreter/lexer.py, a pygments.lexers entry point (nbconvert, Sphinx)
    "codemirror_mode": "scheme",
}


class TaskschemeKernel(Kernel):
    """Runs cells in one taskscheme interpreter."""

    implementation = "taskscheme"
    implementation_version = __version__
    language = "scheme"
    language_version = __version__
    language_info = LANGUAGE_INFO
    banner = f"taskscheme {__version__}: Scheme for LLM task programs (,help lists the commands)"
    help_links = [{"text": "taskscheme", "url": "https://github.com/taskscheme/taskscheme#readme"}]

    #: Makes each interpreter; set by the kernel app from its arguments before the kernel starts.
    make_interpreter: Callable[..., Interpreter] = Interpreter

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._cell_parent: dict[str, Any] | None = None
        self.out = CellStream(self._send_stream, "stdout")
        self.err = CellStream(self._send_stream, "stderr")
        self.notebook = NotebookSession(self._new_interpreter, self.out, self.err)

    def _new_interpreter(self) -> Interpreter:
        interp = type(self).make_interpreter(stdout=self.out, stderr=self.err)
        interp.events.use_progress(NotebookProgress(self.out))  # type: ignore[arg-type]  # model text into the cell
        return interp

    def _send_stream(self, name: str, text: str) -> None:
        """A ``stream`` message to the cell that is running (from any thread: the parent is kept)."""
        parent = self._cell_parent if self._cell_parent is not None else self.get_parent()
        content = {"name": name, "text": text}
        self.session.send(self.iopub_socket, "stream", content, parent, ident=self._topic("stream"))

    # -- execute -------------------------------------------------------------------------------
    async def do_execute(  # type: ignore[override]
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool = False,
        **_: Any,
    ) -> dict[str, Any]:
        self._cell_parent = self.get_parent()
        try:
            outcome = self.notebook.run_cell(code, self.execution_count)
        finally:
            self.out.flush()
            self.err.flush()
            self._cell_parent = None
        if outcome.trace and not silent:  # ,trace on: the trace viewer, before the value or error
            bundle = trace_bundle(outcome.trace, cell_name(self.execution_count))
            self.send_response(self.iopub_socket, "display_data", {"data": bundle, "metadata": {}})
        if outcome.error is not None:
            error = outcome.error
            content = {"ename": error.name, "evalue": error.message, "traceback": error.lines}
            if not silent:
                self.send_response(self.iopub_socket, "error", content)
            return {"status": "error", "execution_count": self.execution_count, **content}
        if not silent and outcome.values:
            *earlier, last = outcome.values
            for value in earlier:
                self.send_response(self.iopub_socket, "display_data", {"data": mime_bundle(value), "metadata": {}})
            self.send_response(
                self.iopub_socket,
                "execute_result",
                {"execution_count": self.execution_count, "data": mime_bundle(last), "metadata": {}},
            )
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    # -- editing help --------------------------------------------------------------------------
    async def do_complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:  # type: ignore[override]
        return answer(lambda: complete(self.notebook.interp, code, cursor_pos))

    async def do_inspect(  # type: ignore[override]
        self, code: str, cursor_pos: int | None, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        return answer(lambda: inspect(self.notebook.interp, code, cursor_pos, self.notebook.sources))

    async def do_is_complete(self, code: str) -> dict[str, Any]:  # type: ignore[override]
        if is_complete(code):
            return {"status": "complete"}
        return {"status": "incomplete", "indent": "  "}

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:  # type: ignore[override]
        self.out.flush()
        self.err.flush()
        sys.stdout.flush()
        return {"status": "ok", "restart": restart}


def answer(reply: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """An editing-help reply, or an ``error`` reply: when a handler raises, ipykernel sends no
    reply at all and the front end waits for it (JupyterLab's completer hung so)."""
    try:
        return reply()
    except Exception as exc:  # a bug here must not leave the notebook waiting
        return {"status": "error", "ename": type(exc).__name__, "evalue": str(exc), "traceback": []}
