"""The command line: run a file or standard input, evaluate ``-e`` expressions, or start the REPL.

Kept light: prompt_toolkit is imported only when an interactive REPL starts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from . import __version__
from .collector import tune_collector
from .commands.arguments import positive_int
from .commands.resume import add_resume_options, announce, check_resume_options, report, resume_settings
from .errors import SchemeError, SchemeExit, caused_by
from .evaluator import Interrupted
from .interpreter import Interpreter
from .interrupts import interruptible
from .program_run import ProgramRun, dropped_failure_check, end_terminal_line, flush_output
from .tasks.disk import CappedStream
from .tasks.failures import partial_report
from .tasks.observe.screen import guard_output
from .terminal import format_error, is_terminal, supports_colour

EXAMPLES = """\
examples:
  taskscheme                              start the REPL (,help lists its commands)
  taskscheme prog.scm a b                 run a program; (command-line) is ("prog.scm" "a" "b")
  taskscheme -e '(+ 1 2)' -e '(list 1 2)' print 3 and (1 2)
  echo '(display "hi")' | taskscheme      run a program read from standard input (or: taskscheme -)
  taskscheme -i lib.scm                   load lib.scm, then start the REPL
  taskscheme --model NAME --record run.jsonl prog.scm
  taskscheme --replay run.jsonl prog.scm  run again from a recording, without calling a model
  taskscheme --retries 3 --cache --trace run.jsonl prog.scm
  taskscheme trace run.jsonl              print the runs in a trace as trees
  taskscheme kernel install --user        register the Jupyter kernel (pip install 'taskscheme[jupyter]')

From the command line, programs may read and load files and run scripts
(an embedding host has to allow that explicitly). A script with no timeout of
its own may run 300 s. A FAILED task or loop result that a top-level form drops
is a warning on standard error (--strict: an error). Exit status: 0, 1 after an
error (printed on standard error), 2 for a bad option, 130 when interrupted, or
n after (exit n).

environment:
  TASKSCHEME_MODEL    the default model when --model is not given (else llm's default model)
  LLM_USER_PATH       llm's folder: API keys (llm keys set ...), aliases, plugins' settings;
                      provider keys such as OPENAI_API_KEY are read by llm and its plugins
  TASKSCHEME_HISTORY  the REPL's history file ('' for none); by default
                      $XDG_DATA_HOME/taskscheme/history (XDG_DATA_HOME: ~/.local/share;
                      on Windows APPDATA)
  NO_COLOR            set: no colour in errors, warnings and the REPL; progress as plain lines
  TERM                dumb: no colour, plain progress lines, and a plain line-by-line REPL
  CI                  set: no progress spinner for model calls
  TASKSCHEME_PROGRESS 1: show the progress spinner and streamed model text even when not a
                      terminal; 0: never show them
  XDG_CACHE_HOME      where the reader caches its grammar tables and --cache keeps model
                      answers (default ~/.cache/taskscheme)
  OTEL_TRACES_EXPORTER what --otel does: otlp (default), console (spans on standard error), none
  OTEL_EXPORTER_OTLP_* where --otel sends traces (OpenTelemetry's standard variables)
"""

INTERRUPTED_STATUS = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="taskscheme",
        description="taskscheme: a Scheme for LLM task programs.",
        epilog=subcommands_help() + EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", help="program to run ('-' reads it from standard input)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program, see (command-line)")
    parser.add_argument(
        "-e", dest="exprs", action="append", metavar="EXPR", help="evaluate EXPR and print its values (repeatable)"
    )
    parser.add_argument(
        "-i",
        dest="interactive",
        nargs="?",
        const="",
        metavar="FILE",
        help="load FILE (or run the program given), then start the REPL",
    )
    tasks = parser.add_argument_group("models and tasks")
    tasks.add_argument("--model", metavar="NAME", help="the default model for tasks")
    tasks.add_argument("--record", metavar="FILE", help="record every model call to FILE")
    tasks.add_argument(
        "--record-overwrite", action="store_true", help="let --record replace a recording already in FILE"
    )
    tasks.add_argument("--replay", metavar="FILE", help="answer model calls from a recording instead of a model")
    tasks.add_argument("--trace", metavar="FILE", help="write task and model events to FILE as JSON lines")
    tasks.add_argument("--usage", action="store_true", help="print model usage on standard error at the end")
    tasks.add_argument(
        "--memory", metavar="FILE", help="keep the memory (remember, recall, fresh context) in this SQLite file"
    )
    tasks.add_argument(
        "--target-script", metavar="COMMAND", help="the command of XML script steps that name none (seed 004)"
    )
    running = parser.add_argument_group("running")
    running.add_argument(
        "--max-concurrency",
        type=positive_int,
        metavar="N",
        help="branches a parallel form runs at once unless it says (default 8)",
    )
    running.add_argument(
        "--timeout",
        type=positive_seconds,
        metavar="SECONDS",
        help="stop the whole run after SECONDS with a resource-exhaustion error (exit 1); in the REPL, each input",
    )
    running.add_argument(
        "--max-memory",
        type=byte_size,
        metavar="SIZE",
        help="stop the run once it adds SIZE bytes of memory (e.g. 500M, 2G) with a resource-exhaustion error",
    )
    running.add_argument(
        "--max-file-bytes",
        type=byte_size,
        metavar="SIZE",
        help="cap each file the run writes (--record, --trace, --cache, --memory) at SIZE bytes (default: no cap)",
    )
    running.add_argument(
        "--max-digits",
        type=positive_int,
        metavar="N",
        help="refuse exact numbers of more than N digits with a resource-exhaustion error (default 50000)",
    )
    running.add_argument(
        "--isolate",
        action="store_true",
        help="run the program in a child process under OS limits (address space from --max-memory, CPU "
        "from --timeout); not for the REPL",
    )
    running.add_argument(
        "--strict",
        action="store_true",
        help="a FAILED task or loop result that a top-level form drops is an error (exit 1), not a warning",
    )
    add_model_call_options(parser)
    add_resume_options(parser)
    parser.add_argument("--no-stdlib", action="store_true", help="start with only the built-in procedures")
    parser.add_argument("--history", metavar="FILE", help="REPL history file ('' for none; default in the data folder)")
    parser.add_argument("--version", action="version", version=f"taskscheme {__version__}")
    return parser


def add_model_call_options(parser: argparse.ArgumentParser) -> None:
    """Retries, the response cache, streaming, trace detail, OpenTelemetry and llm's log (docs/models.md)."""
    calls = parser.add_argument_group("model calls in production")
    calls.add_argument("--retries", type=int, metavar="N", help="retry a model call up to N times on transient errors")
    calls.add_argument(
        "--cache",
        nargs="?",
        const=True,
        metavar="PATH",
        help="answer repeated model calls from a SQLite cache (default: in the user's cache folder)",
    )
    calls.add_argument("--no-cache", action="store_true", help="never use the response cache, not even for (cache #t)")
    calls.add_argument("--no-stream", action="store_true", help="do not show model text as it arrives on a terminal")
    calls.add_argument(
        "--stream", action="store_true", help="stream every model call (its text shows on a terminal as it arrives)"
    )
    calls.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        type=rate_limit_flag,
        metavar="MODEL=RPM[/TPM]",
        help="at most RPM requests (and TPM tokens) a minute to MODEL; calls wait their turn (repeatable)",
    )
    calls.add_argument(
        "--trace-redact", action="store_true", help="leave prompts, system texts and responses out of --trace"
    )
    calls.add_argument(
        "--otel", action="store_true", help="send traces to OpenTelemetry (OTEL_TRACES_EXPORTER: otlp, console, none)"
    )
    calls.add_argument("--log", action="store_true", help="record model calls in llm's logs database (see: llm logs)")


def cache_flag_alone(args: list[str]) -> list[str]:
    """``--cache prog.scm`` means the default cache and the program, not a cache file named
    prog.scm: a ``--cache`` followed by a program (``*.scm``, ``-``), an option or nothing
    becomes ``--cache=`` (the default file)."""
    out = list(args)
    for index, arg in enumerate(out):
        if arg in ("--", "-") or arg.endswith(".scm"):  # the program: what follows is its own
            break
        following = out[index + 1] if index + 1 < len(out) else None
        if arg == "--cache" and (following is None or following.startswith("-") or following.endswith(".scm")):
            out[index] = "--cache="
    return out


def model_call_settings(opts: argparse.Namespace) -> dict[str, Any]:
    """Interpreter keyword arguments from the model-call options."""
    kwargs: dict[str, Any] = {}
    if opts.retries is not None:
        kwargs["retries"] = opts.retries
    if opts.cache is not None and not opts.no_cache:
        kwargs["cache"] = opts.cache or True  # "--cache=": the default file
    if opts.log:
        kwargs["log"] = True
    if opts.rate_limit:
        kwargs["rate_limits"] = {model: {"rpm": rpm, "tpm": tpm} for model, rpm, tpm in opts.rate_limit}
    if opts.stream and not opts.no_stream:
        kwargs["stream"] = True
    return kwargs


def rate_limit_flag(text: str) -> tuple[str, float, float | None]:
    """One ``--rate-limit MODEL=RPM[/TPM]`` as (model, rpm, tpm)."""
    from .tasks.models.ratelimit import parse_rate_limit  # reason: start-up laziness: the task runtime (~45 ms)

    try:
        return parse_rate_limit(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure_model_calls(interp: Interpreter, opts: argparse.Namespace) -> None:
    """The model-call settings that are not Interpreter arguments (given to the task runtime when
    it is made: a program that uses no task never loads it; under --otel at once, so runs are spans)."""

    def configure() -> None:
        interp.tasks.gateway.cache_disabled = opts.no_cache
        interp.events.progress.stream_models = not opts.no_stream
        interp.events.redact = opts.trace_redact
        if opts.otel:
            from .tasks.observe.otel import otlp_exporter  # lazy: only --otel needs it (6 ms of imports, logging)

            interp.events.watch(otlp_exporter())

    interp.when_tasks_start(configure)
    if opts.otel:
        interp.start_tasks()


def positive_seconds(text: str) -> float:
    """An option's value as a positive number of seconds (argparse reports anything else)."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return seconds


BYTE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def byte_size(text: str) -> int:
    """An option's value as a positive number of bytes: ``1000000``, ``500M``, ``2G``, ``64KB``."""
    digits = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = digits[-1:] if digits[-1:] in BYTE_UNITS else ""
    try:
        size = float(digits[: len(digits) - len(unit)]) * BYTE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 500M or 2G, got {text!r}") from None
    if not 0 < size < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive size, got {text!r}")
    return int(size)


# -- making interpreters ---------------------------------------------------------------
def interpreter_factory(
    opts: argparse.Namespace, trace_log: IO[str] | None, **extra: Any
) -> Callable[[], Interpreter]:
    """A function making interpreters configured by the options (``,reset`` calls it again);
    ``extra``: more Interpreter arguments (``taskscheme batch``'s own)."""
    kwargs: dict[str, Any] = {
        "stdlib": not opts.no_stdlib,
        "allow_files": True,
        "allow_scripts": True,
        "allow_models": True,
        "stdin": sys.stdin,  # the command line's program reads the terminal or pipe it was given
    }
    if opts.isolate:
        kwargs["isolate"] = True
    settings = ("model", "record", "replay", "timeout", "memory", "max_concurrency", "max_memory", "max_digits")
    for key in (*settings, "target_script"):
        if getattr(opts, key) is not None:
            kwargs[key] = getattr(opts, key)
    kwargs["max_file_bytes"] = opts.max_file_bytes  # None unless given: no cap, as before
    kwargs.update(model_call_settings(opts))
    kwargs.update(extra)
    kwargs.update(resume_settings(opts))
    if opts.exprs:
        command_line = ["-e", *([opts.file] if opts.file else []), *opts.args]
    else:
        command_line = [opts.file or opts.interactive or "taskscheme", *opts.args]

    def make() -> Interpreter:
        interp = Interpreter(**kwargs)
        interp.command_line = list(command_line)
        configure_model_calls(interp, opts)
        interp.on_top_level_value = dropped_failure_check(interp, strict=opts.strict)
        if trace_log is not None:
            on_event = getattr(interp, "on_event", None)  # not every interpreter reports events yet
            if on_event is None:
                print("warning: --trace: this interpreter reports no task events", file=sys.stderr)
            else:
                on_event(lambda event: _log_event(trace_log, event))
        return interp

    return make


def _log_event(log: IO[str], event: Any) -> None:
    dump = getattr(event, "model_dump_json", None)
    log.write((dump() if dump is not None else str(event)) + "\n")
    log.flush()


# -- running ---------------------------------------------------------------------------
def run_program(interp: Interpreter, opts: argparse.Namespace) -> None:
    """The non-interactive modes: ``-e``, a file, or a program on standard input; one run (``--timeout``).
    With ``--isolate`` the run happens in the interpreter's child process."""
    source = None if opts.exprs or (opts.file and opts.file != "-") else sys.stdin.read()
    program = ProgramRun(opts.exprs, opts.file if source is None else None, source, interp.command_line, opts.strict)
    if interp.isolation is not None:
        interp.isolation.request("run_program", tuple(program))
    else:
        program.run(interp)


def wants_repl(opts: argparse.Namespace) -> bool:
    return opts.interactive is not None or (not opts.file and not opts.exprs and is_terminal(sys.stdin))


def run_repl(make: Callable[[], Interpreter], interp: Interpreter, opts: argparse.Namespace) -> int:
    """Load what ``-i`` names, evaluate ``-e``, then read from the terminal or line by line."""
    from .repl.session import ReplSession  # lazy: only the REPL needs it (10 ms of imports)

    full_screen = is_terminal(sys.stdin) and is_terminal(sys.stdout) and os.environ.get("TERM") != "dumb"
    session = ReplSession(make, interp=interp, colour=supports_colour(sys.stderr))
    first = opts.interactive or (opts.file if opts.file != "-" and not opts.exprs else None)
    if first:
        session.guard(lambda: session.load(Path(first)))
    for expr in opts.exprs or []:
        session.submit(expr)
    if session.done:
        return session.exit_code
    if full_screen:
        from .repl.prompt import history_path, start_repl  # lazy: prompt_toolkit, 120 ms of imports

        return start_repl(session, history=history_path(opts.history))
    from .repl.plain import run_plain  # lazy: only the REPL needs it

    return run_plain(session, sys.stdin, prompt_to=sys.stderr if is_terminal(sys.stdin) else None)


#: ``taskscheme NAME …`` runs a subcommand instead of a program (when no file NAME exists).
SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {}
#: What each subcommand does, in one line for ``taskscheme --help``.
SUBCOMMAND_LINES: dict[str, str] = {
    "batch": "run one task over many inputs (JSONL): records, a metric, a summary",
    "trace": "read a --trace file: runs as trees, an HTML report (--html), Chrome/Perfetto JSON",
}


def subcommands_help() -> str:
    """The subcommands, one line each (``taskscheme NAME --help`` tells more)."""
    lines = ["subcommands (taskscheme NAME --help for more):"]
    lines += [f"  taskscheme {name:<28}{text}" for name, text in SUBCOMMAND_LINES.items()]
    return "\n".join(lines) + "\n\n"


def subcommand(argv: Sequence[str]) -> Callable[[list[str]], int] | None:
    if not argv or argv[0] not in SUBCOMMANDS or Path(argv[0]).exists():
        return None
    return SUBCOMMANDS[argv[0]]


def trace_command(argv: list[str]) -> int:
    """``taskscheme trace FILE.jsonl``: print the runs of a trace as trees."""
    from .tasks.observe.trace_tree import main as trace_main  # lazy: a subcommand loads when it runs (3 ms)

    return trace_main(argv)


SUBCOMMANDS["trace"] = trace_command


def batch_command(argv: list[str]) -> int:
    """``taskscheme batch PROGRAM --task NAME --inputs FILE --output FILE``: one task over many inputs."""
    from .commands.batch import main as batch_main  # lazy: a subcommand loads when it runs (19 ms)

    return batch_main(argv, build_parser, interpreter_factory)


SUBCOMMANDS["batch"] = batch_command


def kernel_command(argv: list[str]) -> int:
    """``taskscheme kernel install [--user|--sys-prefix]``: register the Jupyter kernel."""
    from .kernel.install import main as kernel_main  # lazy: a subcommand loads when it runs (7 ms)

    return kernel_main(argv)


SUBCOMMANDS["kernel"] = kernel_command


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = subcommand(args)
    if command is not None:
        return command(args[1:])
    parser = build_parser()
    opts = parser.parse_args(cache_flag_alone(args))
    check_resume_options(parser, opts, wants_repl(opts))
    if opts.record and not opts.record_overwrite and os.path.isfile(opts.record) and os.path.getsize(opts.record):
        print(f"error: --record: {opts.record} already holds a recording; pass --record-overwrite to replace it",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        trace_log = open(opts.trace, "a", encoding="utf-8") if opts.trace else None  # noqa: SIM115 - closed below
        if trace_log is not None and opts.max_file_bytes is not None:
            trace_log = CappedStream(trace_log, opts.max_file_bytes, opts.trace)  # type: ignore[assignment]
    except OSError as exc:
        print(f"error: --trace: cannot write {opts.trace}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    interp: Interpreter | None = None
    completed = False
    try:
        if opts.isolate and wants_repl(opts):
            print("error: --isolate runs a program (a file, -e or standard input), not the REPL", file=sys.stderr)
            return 2
        make = interpreter_factory(opts, trace_log)
        interp = make()
        announce(interp.journal, sys.stderr)
        tune_collector()
        if wants_repl(opts):
            return run_repl(make, interp, opts)
        with interruptible(interp, hint_to=guard_output(sys.stderr) if is_terminal(sys.stderr) else None):
            run_program(interp, opts)
        completed = True
        return 0
    except SchemeExit as done:
        return done.code
    except SchemeError as err:
        if _broken_pipe(err):
            raise BrokenPipeError from err
        end_terminal_line(interp)
        print(format_error(err, supports_colour(sys.stderr)), file=sys.stderr)
        if err.partial is not None:  # a loop or pipeline ended by a limit: what it had done
            print(partial_report(err.partial), file=sys.stderr)
        return INTERRUPTED_STATUS if isinstance(err, Interrupted) else 1
    except KeyboardInterrupt:
        flush_output(interp)
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_STATUS
    finally:
        flush_output(interp)
        if opts.usage and interp is not None:
            print(str(interp.usage), file=sys.stderr)
        if interp is not None:
            report(interp.journal, sys.stderr, opts.usage, completed)
        if trace_log is not None:
            trace_log.close()


def _broken_pipe(err: BaseException) -> bool:
    """True when ``err`` came from writing to a closed pipe (``taskscheme prog.scm | head``)."""
    return caused_by(err, BrokenPipeError)


def main() -> None:
    try:
        status = run()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `taskscheme prog.scm | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    except KeyboardInterrupt:  # Ctrl-C before a program runs (start-up, the stdlib): quietly
        status = 130
    sys.exit(status)
