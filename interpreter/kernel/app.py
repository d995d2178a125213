"""Start a kernel: ``python -m interpreter.kernel -f CONNECTION_FILE [--allow CAP] [--deny CAP] [--model NAME]``.

Jupyter runs this with the arguments of the kernel spec (:mod:`.install`). The kernel's
interpreter has the command line's capabilities (files, scripts, llm models), changed by
``--allow`` and ``--deny`` here and by ``,allow`` / ``,deny`` in a cell.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..interpreter import Interpreter
from .capabilities import CAPABILITY_NAMES, CLI_CAPABILITIES

MISSING = "error: the taskscheme kernel needs ipykernel: pip install 'taskscheme[jupyter]'"


def kernel_parser() -> argparse.ArgumentParser:
    """The taskscheme options of a kernel (Jupyter's own, such as ``-f``, pass through)."""
    parser = argparse.ArgumentParser(prog="python -m interpreter.kernel", add_help=False)
    choices = list(CAPABILITY_NAMES)
    parser.add_argument("--allow", action="append", default=[], choices=choices, help="grant a capability")
    parser.add_argument("--deny", action="append", default=[], choices=choices, help="withdraw a capability")
    parser.add_argument("--model", help="the default model of the kernel's interpreter")
    return parser


def interpreter_maker(opts: argparse.Namespace) -> Callable[..., Any]:
    """What makes the kernel's interpreters (and ``,reset``'s): the CLI's capabilities, adjusted."""
    granted = (CLI_CAPABILITIES | set(opts.allow)) - set(opts.deny)
    settings: dict[str, Any] = {f"allow_{name}": name in granted for name in CAPABILITY_NAMES}
    if opts.model:
        settings["model"] = opts.model

    def make(**streams: Any) -> Interpreter:
        interp = Interpreter(**settings, **streams)
        interp.command_line = ["taskscheme-kernel"]
        return interp

    return make


def main(argv: Sequence[str] | None = None) -> None:
    opts, rest = kernel_parser().parse_known_args(sys.argv[1:] if argv is None else argv)
    try:
        from ipykernel.kernelapp import IPKernelApp  # optional dependency: taskscheme[jupyter]

        from .kernel import TaskschemeKernel  # optional dependency: it subclasses ipykernel's Kernel
    except ImportError as exc:
        print(f"{MISSING} ({exc})", file=sys.stderr)
        raise SystemExit(1) from None
    TaskschemeKernel.make_interpreter = staticmethod(interpreter_maker(opts))  # type: ignore[assignment]
    IPKernelApp.launch_instance(argv=rest, kernel_class=TaskschemeKernel)
