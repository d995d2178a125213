"""``taskscheme kernel install [--user|--sys-prefix|--prefix DIR] [--name NAME] [--allow CAP] [--deny CAP]``:
register the taskscheme kernel with Jupyter (a kernel spec running ``python -m interpreter.kernel``)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .capabilities import CAPABILITY_NAMES

KERNEL_NAME = "taskscheme"
MISSING = "error: taskscheme kernel needs jupyter_client and ipykernel: pip install 'taskscheme[jupyter]'"


def kernel_spec(argv: Sequence[str] = (), display_name: str = "taskscheme") -> dict[str, object]:
    """The ``kernel.json`` of a kernel started with the extra arguments ``argv``."""
    return {
        "argv": [sys.executable, "-m", "interpreter.kernel", "-f", "{connection_file}", *argv],
        "display_name": display_name,
        "language": "scheme",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }


def install_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="taskscheme kernel", description="The taskscheme Jupyter kernel.")
    commands = parser.add_subparsers(dest="command", required=True)
    install = commands.add_parser("install", help="register the taskscheme kernel with Jupyter")
    where = install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for this user only (~/.local/share/jupyter)")
    where.add_argument("--sys-prefix", action="store_true", help="in this Python environment (sys.prefix)")
    where.add_argument("--prefix", help="under PREFIX/share/jupyter/kernels")
    install.add_argument("--name", default=KERNEL_NAME, help="the kernel's name (default: taskscheme)")
    install.add_argument("--display-name", default="taskscheme", help="the name notebooks show")
    choices = list(CAPABILITY_NAMES)
    install.add_argument("--allow", action="append", default=[], choices=choices, help="grant a capability")
    install.add_argument("--deny", action="append", default=[], choices=choices, help="withdraw a capability")
    install.add_argument("--model", help="the kernel's default model")
    return parser


def main(argv: Sequence[str]) -> int:
    """``taskscheme kernel …``; returns the exit status."""
    opts = install_parser().parse_args(list(argv))
    try:
        from jupyter_client.kernelspec import KernelSpecManager  # optional dependency: taskscheme[jupyter]
    except ImportError:
        print(MISSING, file=sys.stderr)
        return 1
    extra = [*(f"--allow={c}" for c in opts.allow), *(f"--deny={c}" for c in opts.deny)]
    if opts.model:
        extra.append(f"--model={opts.model}")
    prefix = sys.prefix if opts.sys_prefix else opts.prefix
    with tempfile.TemporaryDirectory() as folder:
        spec_dir = Path(folder) / opts.name
        spec_dir.mkdir()
        (spec_dir / "kernel.json").write_text(json.dumps(kernel_spec(extra, opts.display_name), indent=2) + "\n")
        try:
            where = KernelSpecManager().install_kernel_spec(
                str(spec_dir), opts.name, user=opts.user, prefix=prefix
            )
        except OSError as exc:
            print(f"error: cannot install the kernel spec: {exc}; try --user or --sys-prefix", file=sys.stderr)
            return 1
    print(f"installed kernel {opts.name!r} in {where}")
    return 0
