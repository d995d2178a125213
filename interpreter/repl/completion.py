"""Tab completion for the REPL: bound names, special forms, macros, tasks and comma commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from ..analyzer import SPECIAL_FORMS
from ..interpreter import Interpreter
from .commands import COMMANDS, CommandError, find_command
from .describe import short_description, task_definition, task_names, task_summary

#: Characters that end a symbol when scanning back from the cursor.
DELIMITERS = frozenset(" \t\r\n()[]{}\"';`,")


def word_before(text: str) -> str:
    """The partial symbol just before the cursor ('' after a delimiter)."""
    i = len(text)
    while i > 0 and text[i - 1] not in DELIMITERS:
        i -= 1
    return text[i:]


def candidates(interp: Interpreter) -> Iterator[tuple[str, Callable[[], str]]]:
    """Every completable name with a function giving its short description (computed lazily)."""
    for symbol, value in interp.global_env.vars.items():
        yield symbol.name, lambda value=value: short_description(value)
    for symbol in interp.analyzer.macros:
        yield symbol.name, lambda: "macro"
    for symbol in SPECIAL_FORMS:
        yield symbol.name, lambda: "special form"
    for name in task_names(interp):
        yield name, lambda name=name: task_summary(task_definition(interp, name))


class SchemeCompleter(Completer):
    """Completes against the session's current interpreter (``get_interp`` follows ``,reset``)."""

    def __init__(self, get_interp: Callable[[], Interpreter]) -> None:
        self.get_interp = get_interp
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        head = before.lstrip()
        if head.startswith(",") and not head.startswith((",(", ",@")):
            yield from self._command_completions(head[1:], complete_event)
            return
        word = word_before(before)
        if not word and not complete_event.completion_requested:
            return
        yield from self._name_completions(word)

    def _name_completions(self, word: str) -> Iterable[Completion]:
        seen: set[str] = set()
        for name, meta in sorted(candidates(self.get_interp()), key=lambda c: c[0]):
            if name.startswith(word) and name != word and name not in seen:
                seen.add(name)
                yield Completion(name, start_position=-len(word), display_meta=meta)

    def _command_completions(self, text: str, event: CompleteEvent) -> Iterable[Completion]:
        name, space, arg = text.partition(" ")
        if not space:
            for command in COMMANDS.values():
                if command.name.startswith(name):
                    yield Completion(
                        command.name, start_position=-len(name), display=command.usage, display_meta=command.help
                    )
            return
        try:
            command = find_command(name)
        except CommandError:
            return
        if command.name == "load":
            yield from self.paths.get_completions(Document(arg.lstrip()), event)
        elif command.name in ("describe", "time"):
            yield from self._name_completions(word_before(arg))
        elif command.name == "trace":
            for option in ("on", "off"):
                if option.startswith(arg.strip()):
                    yield Completion(option, start_position=-len(arg.strip()))
