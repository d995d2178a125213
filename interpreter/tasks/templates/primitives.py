"""``load-task-templates``: the XML task templates of a file or folder, registered as tasks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...datatypes import MString, make_list, sym
from ...errors import SchemeError, type_error
from ...primitives.registry import installer
from ...regular_files import refuse_special
from ..arguments import check_keywords, split_keywords

if TYPE_CHECKING:
    from ..library import TaskHost


@installer
def install(interp: TaskHost) -> None:
    """``load-task-templates``, bound to the interpreter whose library it fills."""

    def load_task_templates(path: Any, *options: Any) -> Any:
        """``(load-task-templates "path" [#:script "command"] [#:replace #t])``: register the XML
        templates of a file or folder; their names. ``#:script`` is the command of script steps
        that name none; a name already defined is an error unless ``#:replace #t``."""
        from .loader import load_templates  # on first use: start-up stays fast

        who = "load-task-templates"
        extra, keywords = split_keywords(who, list(options))
        if extra:
            raise SchemeError(f"{who}: expected a path and keyword options (#:script #:replace)", kind="arity-error")
        settings = check_keywords(who, keywords, ["script", "replace"])
        if not isinstance(path, (str, MString)):
            raise type_error(who, "a path string", path)
        script = settings.get("script")
        if script is not None and not isinstance(script, (str, MString)):
            raise type_error(f"{who} #:script", "a command string", script)
        target = Path(str(path))
        if not target.is_absolute() and interp.loading:
            target = interp.loading[-1].parent / target
        interp.check_file_access(target, who)
        refuse_special(target, who)  # a FIFO or a device would block past the timeout
        names = load_templates(
            interp, target, script=str(script) if script is not None else None, replace=settings.get("replace", False)
        )
        return make_list(sym(name) for name in names)

    interp.define_primitive("load-task-templates", load_task_templates)
