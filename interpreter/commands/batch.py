"""``taskscheme batch PROGRAM.scm --task NAME --inputs in.jsonl --output out.jsonl``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..batch.lifecycle import TERMINATED_STATUS, Terminated, Termination
from ..batch.metric import metric_procedure
from ..batch.output import Output, read_inputs, written_statuses
from ..batch.progress import BatchProgress
from ..errors import SchemeError
from ..tasks.disk import CappedStream
from ..tasks.observe.screen import close_screens
from ..terminal import is_terminal
from .arguments import positive_int
from .batch_flags import cache_flag_alone, share_run_flags

if TYPE_CHECKING:
    from ..interpreter import Interpreter

#: The main command's parser (``cli.build_parser``): its run flags are the batch's too.
MainParser = Callable[[], argparse.ArgumentParser]
#: The main command's way of making interpreters from its flags (``cli.interpreter_factory``).
InterpreterFactory = Callable[..., Callable[[], "Interpreter"]]

USAGE = """\
Runs the task NAME of PROGRAM once per line of --inputs (a JSON object of its
arguments by name) and appends one JSON line per item to --output:
{"index", "input", "status": "COMPLETE"|"FAILED", "result", "error", "usage",
"seconds"} (and "metric" with --metric). Results are JSON as faithfully as they
can be: an association list with symbol keys or a hash table is an object,
records and task results are objects of their fields, and anything else is
{"unrepresentable": "<written form>"}.

Run it again with the same --output to skip the items already written;
--retry-failed runs the FAILED ones again. Items run as threads of one
interpreter (default), in worker processes (--processes), or on a Dask cluster
(--cluster tcp://HOST:8786 or local:N; needs pip install 'taskscheme[cluster]').
--timeout and --max-steps apply to each item; the other run flags are the main
command's (taskscheme --help).

--metric '(lambda (input result) ...)' scores each item with a number or a
boolean (input: the item's arguments; result: what the task returned); the
summary gives its mean, pass rate (#t, or a number >= --pass-threshold) and
count, with model tokens, cache hits, retries and item times.

Exit status: 0 when every input's item is COMPLETE (this run's or an earlier
one's), 1 otherwise, 2 for bad arguments, 130 when interrupted, 143 on SIGTERM
(the record being written is finished first; worker processes end with the
batch).
"""


def build_parser(main_parser: MainParser) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="taskscheme batch",
        description="Run one task over many inputs: an evaluation, with a metric and a summary.",
        epilog=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("program", help="the program defining the task")
    batch = parser.add_argument_group("batch")
    batch.add_argument("--task", required=True, metavar="NAME", help="the task (or procedure) to run per input")
    batch.add_argument(
        "--inputs", required=True, type=Path, metavar="FILE", help="JSONL: one object of arguments per line"
    )
    batch.add_argument("--output", required=True, type=Path, metavar="FILE", help="JSONL records, appended (resumable)")
    batch.add_argument("--retry-failed", action="store_true", help="on resume, run the FAILED items again")
    batch.add_argument(
        "--metric", metavar="PROC", help="score each item: (lambda (input result) …) or a procedure's name"
    )
    batch.add_argument(
        "--pass-threshold",
        type=float,
        default=1.0,
        metavar="X",
        help="a numeric score passes when it is at least X (default 1)",
    )
    batch.add_argument("--workers", type=positive_int, default=8, metavar="N", help="items at once (default 8)")
    where = batch.add_mutually_exclusive_group()
    where.add_argument("--processes", action="store_true", help="run items in worker processes")
    where.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler (tcp://HOST:PORT) or local:N")
    batch.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    batch.add_argument("--max-steps", type=positive_int, metavar="N", help="step limit of each item")
    batch.add_argument(
        "--resume",
        dest="journals",
        metavar="DIR",
        help="keep one journal per item in DIR (item-INDEX.jsonl): an item stopped part way resumes mid-run",
    )
    share_run_flags(parser, main_parser())
    return parser


def main(argv: list[str], main_parser: MainParser, interpreter_factory: InterpreterFactory) -> int:
    """Run ``taskscheme batch`` with ``argv``; the main command hands in its parser and its
    interpreter factory, so that a run flag added there works here too."""
    opts = build_parser(main_parser).parse_args(cache_flag_alone(argv))
    opts.file, opts.args = opts.program, []
    try:
        inputs = read_inputs(opts.inputs)
        statuses = written_statuses(opts.output)
    except (OSError, ValueError) as exc:
        print(f"error: batch: {exc}", file=sys.stderr)
        return 2
    try:
        trace_log = open(opts.trace, "a", encoding="utf-8") if opts.trace else None  # noqa: SIM115 - closed below
        if trace_log is not None and getattr(opts, "max_file_bytes", None) is not None:
            trace_log = CappedStream(trace_log, opts.max_file_bytes, opts.trace)  # type: ignore[assignment]
    except OSError as exc:
        print(f"error: --trace: cannot write {opts.trace}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        return prepared(opts, inputs, statuses, trace_log, interpreter_factory)
    finally:
        if trace_log is not None:
            trace_log.close()


def prepared(
    opts: argparse.Namespace,
    inputs: list[Any],
    statuses: dict[int, str],
    trace_log: IO[str] | None,
    interpreter_factory: InterpreterFactory,
) -> int:
    """Make the interpreter, load the program, check the metric; then run."""
    try:
        interp = make_interpreter(interpreter_factory, opts, trace_log)
        interp.eval_file(opts.program)
        if opts.metric is not None:
            metric_procedure(interp, opts.metric)  # an error in it is reported before any item runs
    except SchemeError as err:
        close_screens()
        print(err.format(), file=sys.stderr)
        return 1
    if opts.trace and (opts.processes or opts.cluster):
        print("warning: --trace records the items run as threads, not in worker processes", file=sys.stderr)
    return run(interp, opts, inputs, statuses)


def make_interpreter(
    interpreter_factory: InterpreterFactory, opts: argparse.Namespace, trace_log: IO[str] | None = None
) -> Interpreter:
    """The interpreter the run flags describe, as the main command makes it (files, scripts and
    models granted as there), with the batch's step limit."""
    extra = {"max_steps": opts.max_steps} if opts.max_steps is not None else {}
    return interpreter_factory(opts, trace_log, **extra)()


def run(interp: Interpreter, opts: argparse.Namespace, inputs: list[Any], statuses: dict[int, str]) -> int:
    indices = range(len(inputs))
    settled = {i for i in indices if statuses.get(i) == "COMPLETE" or (i in statuses and not opts.retry_failed)}
    progress = BatchProgress(
        sys.stderr, len(inputs), len(settled), live=not opts.quiet and is_terminal(sys.stderr),
        pass_threshold=opts.pass_threshold,
    )
    output = Output(opts.output)
    records = None
    try:
        with Termination() as termination:
            records = interp.batch(
                opts.task,
                inputs,
                workers=opts.workers,
                processes=opts.processes,
                cluster=opts.cluster,
                skip=settled,
                metric=opts.metric,
                journals=opts.journals,
            )
            for record in records:
                with termination.writing_record():
                    output.write(record)
                progress.add(record)
                statuses[int(record["index"])] = str(record["status"])
    except Terminated:
        progress.close()
        close_screens()
        print("\nbatch: terminated; run again with the same --output to resume", file=sys.stderr)
        return TERMINATED_STATUS
    except KeyboardInterrupt:
        progress.close()
        close_screens()
        print("\nbatch: interrupted; run again with the same --output to resume", file=sys.stderr)
        return 130
    except SchemeError as err:
        progress.close()
        close_screens()
        print(err.format(), file=sys.stderr)
        return 130 if err.message == "interrupted" else 1
    finally:
        if records is not None and hasattr(records, "close"):
            records.close()  # stops the branches or kills the worker processes still running
        output.close()
    close_screens()
    progress.finish(quiet=opts.quiet)
    failed_before = [i for i in indices if i in settled and statuses.get(i) != "COMPLETE"]
    if failed_before and not opts.quiet:
        again = f"batch: {len(failed_before)} items FAILED in an earlier run (--retry-failed runs them again)"
        print(again, file=sys.stderr)
    return 0 if all(statuses.get(i) == "COMPLETE" for i in indices) else 1
