"""The command line's durable-run options: ``--resume JOURNAL``, ``--resume-quiet``, ``--resume-from N``."""

from __future__ import annotations

import argparse
from typing import IO, Any

from .journal import JournalFile


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def add_resume_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("durable runs (docs/durable.md)")
    group.add_argument(
        "--resume",
        metavar="JOURNAL",
        help="journal every model answer, script result, clock reading, random number and line of input to "
        "JOURNAL; run again with the same JOURNAL to resume where the run stopped, without asking anything twice",
    )
    group.add_argument(
        "--resume-quiet",
        action="store_true",
        help="do not print again what the stopped run printed (the journal counts what was printed)",
    )
    group.add_argument(
        "--resume-from",
        type=positive_int,
        metavar="N",
        help="keep journal lines 1 to N-1 (the rest are moved aside to JOURNAL.dropped-from-N) and run live "
        "from there: after a divergence, or past a damaged line",
    )


def check_resume_options(parser: argparse.ArgumentParser, opts: argparse.Namespace, repl: bool) -> None:
    """``--resume-quiet`` and ``--resume-from`` need ``--resume``; a journal is for a program, not the REPL."""
    if opts.resume is None and (opts.resume_quiet or opts.resume_from is not None):
        parser.error("--resume-quiet and --resume-from go with --resume JOURNAL (the journal to resume)")
    if opts.resume is not None and repl:
        parser.error("--resume journals a program (a file, -e or standard input), not the REPL")


def resume_settings(opts: argparse.Namespace) -> dict[str, Any]:
    """Interpreter keyword arguments from the durable-run options."""
    if opts.resume is None:
        return {}
    settings: dict[str, Any] = {"journal": opts.resume, "resume_quiet": opts.resume_quiet}
    if opts.resume_from is not None:
        settings["resume_from"] = opts.resume_from
    return settings


def announce(journal: JournalFile | None, out: IO[str]) -> None:
    """At the start of a resumed run: what the journal holds and that it answers first."""
    if journal is not None and journal.entries:
        print(journal.summary(), file=out, flush=True)


def report(journal: JournalFile | None, out: IO[str], usage: bool, completed: bool) -> None:
    """At the end: entries a run that completed did not use (it took another path) and, with
    ``--usage``, what resuming saved."""
    if journal is None:
        return
    unused = journal.unused()
    if unused and completed:
        lines = f"line {unused[0].line}" if len(unused) == 1 else f"lines {unused[0].line} to {unused[-1].line}"
        print(
            f"warning: journal {journal.path}: this run did not ask for {len(unused)} journaled "
            f"result{'s' if len(unused) != 1 else ''} ({lines}): it took a shorter path than the run that wrote them",
            file=out,
        )
    if usage and journal.saved.results:
        print(journal.savings(), file=out)
