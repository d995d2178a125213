"""``taskscheme batch PROGRAM.scm --task NAME --inputs in.jsonl --output out.jsonl``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SchemeError
from .lifecycle import TERMINATED_STATUS, Terminated, Termination
from .output import Output, read_inputs, written_indices
from .progress import BatchProgress

if TYPE_CHECKING:
    from ..interpreter import Interpreter

USAGE = """\
Runs the task NAME of PROGRAM once per line of --inputs (a JSON object of its
arguments by name) and appends one JSON line per item to --output:
{"index", "input", "status": "COMPLETE"|"FAILED", "result", "error", "usage", "seconds"}.
Run it again with the same --output to skip the items already written.
Items run as threads of one interpreter (default), in worker processes
(--processes), or on a Dask cluster (--cluster tcp://HOST:8786 or local:N;
needs pip install 'taskscheme[cluster]'). --timeout and --max-steps apply to
each item. Exit status: 0 when every item completed, 1 when some failed,
2 for bad arguments, 130 when interrupted, 143 on SIGTERM (the record being
written is finished first; worker processes end with the batch).
"""


def build_parser() -> argparse.ArgumentParser:
    from ..cli import positive_int, positive_seconds

    parser = argparse.ArgumentParser(
        prog="taskscheme batch",
        description="Run one task over many inputs.",
        epilog=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("program", help="the program defining the task")
    parser.add_argument("--task", required=True, metavar="NAME", help="the task (or procedure) to run per input")
    parser.add_argument(
        "--inputs", required=True, type=Path, metavar="FILE", help="JSONL: one object of arguments per line"
    )
    parser.add_argument(
        "--output", required=True, type=Path, metavar="FILE", help="JSONL records, appended (resumable)"
    )
    parser.add_argument("--workers", type=positive_int, default=8, metavar="N", help="items at once (default 8)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--processes", action="store_true", help="run items in worker processes")
    where.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler (tcp://HOST:PORT) or local:N")
    parser.add_argument("--quiet", action="store_true", help="no progress line and no summary")
    parser.add_argument("--model", metavar="NAME", help="the default model for tasks")
    parser.add_argument("--replay", metavar="FILE", help="answer model calls from a recording")
    parser.add_argument("--timeout", type=positive_seconds, metavar="SECONDS", help="time limit of each item")
    parser.add_argument("--max-steps", type=positive_int, metavar="N", help="step limit of each item")
    return parser


def main(argv: list[str]) -> int:
    opts = build_parser().parse_args(argv)
    try:
        inputs = read_inputs(opts.inputs)
        done = written_indices(opts.output)
    except (OSError, ValueError) as exc:
        print(f"error: batch: {exc}", file=sys.stderr)
        return 2
    try:
        interp = make_interpreter(opts)
        interp.eval_file(opts.program)
    except SchemeError as err:
        print(err.format(), file=sys.stderr)
        return 1
    return run(interp, opts, inputs, done)


def make_interpreter(opts: argparse.Namespace) -> Interpreter:
    """The interpreter the command line grants: files and scripts, as ``taskscheme`` does."""
    from ..interpreter import Interpreter

    kwargs: dict[str, Any] = {"allow_files": True, "allow_scripts": True}
    for key in ("model", "replay", "timeout", "max_steps"):
        if getattr(opts, key) is not None:
            kwargs[key] = getattr(opts, key)
    return Interpreter(**kwargs)


def run(interp: Interpreter, opts: argparse.Namespace, inputs: list[Any], done: set[int]) -> int:
    from ..terminal import is_terminal

    skipped = len(done & set(range(len(inputs))))
    progress = BatchProgress(sys.stderr, len(inputs), skipped, live=not opts.quiet and is_terminal(sys.stderr))
    output = Output(opts.output)
    records = None
    try:
        with Termination() as termination:
            records = interp.batch(
                opts.task, inputs, workers=opts.workers, processes=opts.processes, cluster=opts.cluster, skip=done
            )
            for record in records:
                with termination.writing_record():
                    output.write(record)
                progress.add(record)
    except Terminated:
        print("\nbatch: terminated; run again with the same --output to resume", file=sys.stderr)
        return TERMINATED_STATUS
    except KeyboardInterrupt:
        print("\nbatch: interrupted; run again with the same --output to resume", file=sys.stderr)
        return 130
    except SchemeError as err:
        print(err.format(), file=sys.stderr)
        return 130 if err.message == "interrupted" else 1
    finally:
        if records is not None and hasattr(records, "close"):
            records.close()  # stops the branches or kills the worker processes still running
        output.close()
    if not opts.quiet:
        progress.finish()
    return 1 if progress.failed else 0
