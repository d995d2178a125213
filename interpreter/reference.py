"""The reference pages of the documentation site, generated from what the REPL itself says:
``,describe``'s paragraph and example for every special form (:mod:`.repl.forms_help`), its text
for every predefined procedure (docstrings), and the command line's ``--help`` for every flag
and subcommand. ``mkdocs.yml``'s hook (``docs/hooks/reference.py``) adds them at build time,
so the site cannot drift from the code.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable

from . import forms as _forms  # noqa: F401 - registers the special forms
from .analyzer import SPECIAL_FORMS
from .cli import SUBCOMMAND_LINES, SUBCOMMANDS, build_parser
from .datatypes import Primitive
from .interpreter import Interpreter
from .repl.describe import describe_value
from .repl.forms_help import FORMS
from .tasks.dsl import PROCEDURE_SECTIONS

#: Generated pages: their path inside the site and the function writing their Markdown.
PAGES: dict[str, Callable[[], str]] = {}


def page(path: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    def register(fn: Callable[[], str]) -> Callable[[], str]:
        PAGES[path] = fn
        return fn

    return register


def fenced(language: str, text: str) -> str:
    """A fenced block that its text cannot close early."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"


@page("reference/forms.md")
def forms_page() -> str:
    """Every special form: what ``,describe FORM`` says, with its runnable example and output."""
    out = [
        "# Special forms\n",
        "What `,describe FORM` prints at the REPL, for every special form the analyzer knows; each",
        "example runs as it stands (a test runs them all) and prints what follows it.\n",
    ]
    for name in sorted(s.name for s in SPECIAL_FORMS):
        entry = FORMS.get(name)
        if entry is None:
            raise LookupError(f"special form {name} has no entry in interpreter/repl/forms_help.py")
        out += [f"## `{name}`\n", entry.text + "\n", fenced("scheme", entry.example), "Prints:\n",
                fenced("text", entry.prints or "(nothing)")]
    return "\n".join(out)


def _group(value: object) -> str:
    """The section a predefined name belongs to: its primitive module (a package such as
    ``primitives.lists`` is one section), or the Scheme library."""
    module = getattr(getattr(value, "fn", None), "__module__", "")
    if module in PROCEDURE_SECTIONS:
        return PROCEDURE_SECTIONS[module]
    if module.startswith("interpreter.primitives."):
        return module.split(".")[2].replace("_", " ").capitalize()
    return "Scheme library (prelude and lazily loaded)" if not isinstance(value, Primitive) else "Other built-ins"


@page("reference/procedures.md")
def procedures_page() -> str:
    """Every predefined procedure of a fresh interpreter, as ``,describe NAME`` shows it."""
    interp = Interpreter()
    groups: dict[str, list[str]] = {}
    for symbol, value in sorted(interp.global_env.vars.items(), key=lambda item: item[0].name):
        text = describe_value(symbol.name, value, {})
        groups.setdefault(_group(value), []).append(f"### `{symbol.name}`\n\n" + fenced("text", text))
    out = [
        "# Procedures\n",
        "Every name a fresh interpreter defines, grouped by where it comes from, with what",
        "`,describe NAME` prints for it at the REPL.\n",
    ]
    for title in sorted(groups):
        out += [f"## {title}\n", *groups[title]]
    return "\n".join(out)


def _flag_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows: list[str] = []
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help is not argparse.SUPPRESS]
        if not actions:
            continue
        rows += [f"### {group.title}\n", "| flag | meaning |", "|---|---|"]
        for action in actions:
            names = ", ".join(action.option_strings) or action.dest
            metavar = action.metavar or (action.dest.upper() if action.option_strings and action.nargs != 0 else "")
            flag = f"`{names} {metavar}`" if metavar and action.option_strings else f"`{names}`"
            meaning = (action.help or "").replace("|", "\\|").replace("%%", "%")
            rows.append(f"| {flag} | {meaning} |")
        rows.append("")
    return rows


def _help_of(command: Callable[[list[str]], int]) -> str:
    """What ``taskscheme NAME --help`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), contextlib.suppress(SystemExit):
        command(["--help"])
    return out.getvalue()


@page("reference/cli.md")
def cli_page() -> str:
    """Every flag of ``taskscheme`` and the ``--help`` of every subcommand."""
    parser = build_parser()
    out = [
        "# Command line\n",
        "Generated from the parser that `taskscheme --help` prints.\n",
        "## `taskscheme`\n",
        (parser.description or "") + "\n",
        *_flag_rows(parser),
    ]
    for name in sorted(SUBCOMMANDS):
        out += [f"## `taskscheme {name}`\n", SUBCOMMAND_LINES.get(name, "") + "\n",
                fenced("text", _help_of(SUBCOMMANDS[name]))]
    return "\n".join(out)
