"""Memory primitives: ``remember``, ``recall`` and ``index-files`` (see :mod:`interpreter.tasks.memory.store`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...capabilities import check_file_access
from ...datatypes import MString, Symbol, list_to_python, make_list
from ...errors import SchemeError, type_error
from ...primitives.registry import installer
from ..arguments import check_keywords, split_keywords
from .store import DEFAULT_K, MAX_K

if TYPE_CHECKING:
    from ...capabilities import FileCapability
    from ...evaluator import Runtime
    from .store import Memory


class MemoryHost(Protocol):
    """What the memory procedures need of their interpreter (the facade ``Interpreter`` is one)."""

    memory: Memory
    allow_files: FileCapability
    runtime: Runtime

    def define_primitive(self, name: str, fn: Any, doc: str = "") -> None: ...


def _text(who: str, value: Any) -> str:
    if isinstance(value, (str, MString)):
        return str(value)
    raise type_error(who, "a string", value)


def _tags(who: str, value: Any) -> list[str]:
    """A list of symbols or strings as tag names."""
    items = list_to_python(value) if value is not None else []
    if not isinstance(items, list) or not all(isinstance(x, (Symbol, str, MString)) for x in items):
        raise type_error(who, "a list of symbols or strings for #:tags", value)
    return [x.name if isinstance(x, Symbol) else str(x) for x in items]


def _options(who: str, args: list[Any], allowed: list[str], positional: int) -> tuple[list[Any], dict[str, Any]]:
    values, keywords = split_keywords(who, args)
    if len(values) != positional:
        raise SchemeError(f"{who}: expected {positional} argument(s) before the #:options", kind="arity-error")
    return values, check_keywords(who, keywords, allowed)


@installer
def install(interp: MemoryHost) -> None:
    """Define the primitives that read and fill this interpreter's memory."""

    def remember(*args: Any) -> int:
        """``(remember text [#:source "…"] [#:tags '(tag …)])``: store a text; its id."""
        (text,), opts = _options("remember", list(args), ["source", "tags"], 1)
        source = _text("remember", opts["source"]) if "source" in opts else ""
        return interp.memory.remember(_text("remember", text), source, _tags("remember", opts.get("tags")))

    def recall(*args: Any) -> Any:
        """``(recall query [#:k 5] [#:tags '(tag …)])``: the best matches, best first, as records."""
        (query,), opts = _options("recall", list(args), ["k", "tags"], 1)
        k = opts.get("k", DEFAULT_K)
        if type(k) is not int or not 1 <= k <= MAX_K:
            raise SchemeError(f"recall: #:k must be an integer from 1 to {MAX_K}, got {k!r}", kind="value-error")
        return make_list(interp.memory.recall(_text("recall", query), k, _tags("recall", opts.get("tags"))))

    def index_files(*args: Any) -> int:
        """``(index-files folder [#:glob "*.md"])``: remember the matching files under the folder
        (needs the files capability; a link leading outside the allowed folders is refused);
        the number of files indexed."""
        (folder,), opts = _options("index-files", list(args), ["glob"], 1)
        pattern = _text("index-files", opts.get("glob", "*"))
        root = check_file_access(interp.allow_files, _text("index-files", folder), "index-files")
        if not root.is_dir():
            raise SchemeError(f"index-files: not a folder: {folder}", kind="file-error")

        def allowed(path: Path) -> Path:
            return check_file_access(interp.allow_files, path, "index-files")

        def tick() -> None:  # each file is a step of the program, under its step and time limits
            runtime.steps += 1
            runtime.check()

        runtime = interp.runtime
        return interp.memory.index_files(Path(str(folder)), pattern, allowed, tick)

    for name, fn in (("remember", remember), ("recall", recall), ("index-files", index_files)):
        interp.define_primitive(name, fn)
