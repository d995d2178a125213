"""``taskscheme batch`` takes the main command's run flags (``--model``, ``--cache``,
``--retries``, ``--trace``, ``--log``, ``--max-memory``, capabilities …) from the main
parser itself, so a run flag added there is a batch flag too, made into an interpreter
by the same code (``cli.interpreter_factory``). Left out are the flags about what to run
(a file, ``-e``, the REPL) and those about one whole run (``--isolate``: batch has
``--processes``; ``--usage``, ``--strict``: the summary and the records say it)."""

from __future__ import annotations

import argparse
import copy

#: Destinations of main-command flags that a batch does not take.
NOT_FOR_BATCH = frozenset(
    {"file", "args", "exprs", "interactive", "history", "help", "version", "isolate", "usage", "strict"}
    | {"resume", "resume_quiet", "resume_from"}  # a batch's --resume is a folder of one journal per item
)
#: Titles of argparse's own groups: their flags go under "running".
DEFAULT_GROUPS = (None, "options", "optional arguments", "positional arguments")
#: Help that reads differently for a batch.
BATCH_HELP = {
    "timeout": "time limit of each item (a resource-exhaustion error fails that item)",
    "max_memory": "memory limit of the batch's interpreter (e.g. 500M, 2G)",
}


def share_run_flags(parser: argparse.ArgumentParser, main: argparse.ArgumentParser) -> None:
    """Add ``main``'s run flags to ``parser``, in groups of the same titles; the defaults of
    the flags left out are set too (the interpreter factory reads them)."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    owner = {id(action): group for group in main._action_groups for action in group._group_actions}
    taken = set(parser._option_string_actions)
    for action in main._actions:
        if action.dest in NOT_FOR_BATCH or not action.option_strings or taken & set(action.option_strings):
            parser.set_defaults(**({action.dest: action.default} if action.dest != "help" else {}))
            continue
        group = owner.get(id(action))
        title = group.title if group is not None and group.title not in DEFAULT_GROUPS else "running"
        if title not in groups:
            groups[title] = parser.add_argument_group(title)
        shared = copy.copy(action)
        if action.dest in BATCH_HELP:
            shared.help = BATCH_HELP[action.dest]
        groups[title]._add_action(shared)


def cache_flag_alone(args: list[str]) -> list[str]:
    """``--cache`` followed by an option, a program or nothing means the default cache file."""
    out = list(args)
    for index, arg in enumerate(out):
        following = out[index + 1] if index + 1 < len(out) else None
        if arg == "--cache" and (following is None or following.startswith("-") or following.endswith(".scm")):
            out[index] = "--cache="
    return out
