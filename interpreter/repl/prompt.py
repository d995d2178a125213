"""The interactive REPL on prompt_toolkit: multi-line editing, highlighting, completion, history.

Imported only when a person is at a terminal, so running a program never pays for
prompt_toolkit's import.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import completion_is_selected, has_focus
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style, merge_styles

from .. import __version__
from ..reader import is_complete
from .commands import is_command
from .completion import SchemeCompleter
from .highlight import TaskSchemeLexer, pygments_style
from .session import ReplSession
from .syntax import continuation_indent

PROMPT = FormattedText([("class:prompt", "> ")])
BANNER = f"taskscheme {__version__}: ,help lists the commands, Ctrl-D exits."

STYLE = merge_styles(
    [Style.from_dict({"prompt": "ansigreen bold", "continuation": "ansibrightblack"}), pygments_style()]
)


def history_path(option: str | None = None) -> Path | None:
    """Where history is kept: ``--history FILE``, else ``$TASKSCHEME_HISTORY``, else the user's data folder.

    An empty option or an empty ``TASKSCHEME_HISTORY`` means no history file.
    """
    if option is not None:
        return Path(option).expanduser() if option else None
    env = os.environ.get("TASKSCHEME_HISTORY")
    if env is not None:
        return Path(env).expanduser() if env else None
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "taskscheme" / "history"


def open_history(path: Path | None) -> History:
    """A file history at ``path`` (its folder is made), or one kept in memory."""
    if path is None:
        return InMemoryHistory()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError as exc:
        print(f"warning: history not saved: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return InMemoryHistory()
    return FileHistory(str(path))


def ready_to_run(text: str, cursor_on_last_line: bool) -> bool:
    """Enter runs the input when it is a command, or complete and the cursor is on its last line."""
    if is_command(text) and "\n" not in text.strip():
        return True
    return cursor_on_last_line and is_complete(text)


def key_bindings() -> KeyBindings:
    """Enter runs or continues; Alt-Enter always breaks the line; Tab at the line start indents."""
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)

    @bindings.add("enter", filter=editing & completion_is_selected)
    def _accept_completion(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        buffer.complete_state = None

    @bindings.add("enter", filter=editing & ~completion_is_selected)
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if ready_to_run(buffer.text, buffer.document.on_last_line):
            buffer.validate_and_handle()
        else:
            newline_and_indent(event)

    @bindings.add("escape", "enter", filter=editing)
    def _newline(event: KeyPressEvent) -> None:
        newline_and_indent(event)

    @bindings.add("tab", filter=editing)
    def _tab(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        line_start = buffer.document.current_line_before_cursor
        if buffer.complete_state:
            buffer.complete_next()
            return
        if line_start.strip():
            buffer.start_completion(insert_common_part=True)
            return
        earlier_lines = buffer.document.text_before_cursor[: -len(line_start) or None]
        want = continuation_indent(earlier_lines)
        if len(line_start) < want:
            buffer.insert_text(" " * (want - len(line_start)))

    return bindings


def newline_and_indent(event: KeyPressEvent) -> None:
    buffer = event.current_buffer
    indent = continuation_indent(buffer.document.text_before_cursor)
    buffer.insert_text("\n" + " " * indent)


def continuation_prompt(width: int, line_number: int, is_soft_wrap: bool) -> FormattedText:
    return FormattedText([("class:continuation", "." * (width - 1) + " ")])


def make_prompt(
    session: ReplSession, history: Path | None, input: Input | None = None, output: Output | None = None
) -> PromptSession[str]:
    """The prompt_toolkit session: Scheme lexer, bracket matching, completion, history."""
    return PromptSession(
        PROMPT,
        multiline=True,
        lexer=PygmentsLexer(TaskSchemeLexer),
        completer=SchemeCompleter(lambda: session.interp),
        complete_while_typing=False,
        history=open_history(history),
        search_ignore_case=True,
        prompt_continuation=continuation_prompt,
        input_processors=[HighlightMatchingBracketProcessor(chars="()[]{}")],
        key_bindings=key_bindings(),
        style=STYLE,
        include_default_pygments_style=False,  # its colours are unreadable on dark terminals
        enable_open_in_editor=True,
        tempfile_suffix=".scm",
        input=input,
        output=output,
    )


def start_repl(
    session: ReplSession,
    *,
    history: Path | None = None,
    input: Input | None = None,
    output: Output | None = None,
    banner: bool = True,
) -> int:
    """Read, evaluate, print until Ctrl-D, ``,quit`` or ``(exit)``; the exit status."""
    prompt = make_prompt(session, history, input, output)
    if banner:
        session.say(BANNER)
    while not session.done:
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        session.submit(text)
    return session.exit_code
