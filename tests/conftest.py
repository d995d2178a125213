"""Shared fixtures: a fresh interpreter per test, and helpers that run DSL source."""

from __future__ import annotations

import functools
import io
import os
import signal
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import compiled_sources
from provider_server import ProviderServer, write_models

import interpreter
from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string

CHECKOUT = Path(__file__).resolve().parent.parent

# PYTHONDONTWRITEBYTECODE (set on some machines, the sandbox CI runs in among them) is lifted for the test run,
# for the suite's own processes and the Pythons they start. With it, nothing in a fresh
# checkout is ever compiled for good: every xdist worker rewrote all test files again (3.5 s
# of CPU each), and every CLI, isolated child, batch worker and kernel the tests start
# compiled the package from source, 0.3-0.4 s of CPU a start instead of 0.15 s. A user's
# installed wheel starts with its bytecode (pip compiles it). The bytecode goes to the usual
# __pycache__ folders, which git ignores; installed packages have theirs already.
if sys.dont_write_bytecode:
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--installed",
        action="store_true",
        help="test an installed taskscheme, not this checkout (run as: python -P -m pytest --installed -m stdlib)",
    )


def pytest_configure(config: pytest.Config) -> None:
    package = Path(interpreter.__file__).resolve().parent
    if config.getoption("--installed") and package.is_relative_to(CHECKOUT):
        raise pytest.UsageError(
            f"--installed, but interpreter was imported from this checkout ({package}): run "
            "`python -P -m pytest --installed` with the Python of a venv where taskscheme is installed "
            "(not editable); -P keeps the current folder off sys.path"
        )


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist (-p no:xdist) it is not called
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``-n N`` without another ``--dist``: whole files, the longest first (tests/scheduling.py)."""
    if config.getoption("dist") != "load":
        return None
    from scheduling import LongestFileFirst  # reason: xdist is a dev dependency; only -n runs get here

    return LongestFileFirst(config, log)


@pytest.fixture(autouse=True)
def sigint_handler_kept() -> Iterator[None]:
    """A test that leaves Ctrl-C's handler changed fails: the next test in the worker (and a host
    embedding the interpreter) would find Ctrl-C ignored or rerouted."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left SIGINT's handler changed: {before!r} -> {after!r}")


def pytest_report_header(config: pytest.Config) -> str:
    return f"taskscheme under test: {Path(interpreter.__file__).resolve().parent}"


@pytest.fixture(autouse=True)
def interpreters_closed() -> Iterator[None]:
    """Every interpreter a test makes is closed when the test ends (``Interpreter.close``), unless
    a program still runs in it (an abandoned thread). A dropped interpreter holds its program's
    data in a cycle until a full collection, which then fell in a later test: the suite spent
    about 76 s of CPU in such collections, walking and freeing some 20 million objects."""
    made: weakref.WeakSet[Interpreter] = weakref.WeakSet()
    init = Interpreter.__init__

    @functools.wraps(init)
    def tracked(self: Interpreter, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.add(self)

    Interpreter.__init__ = tracked  # type: ignore[method-assign]
    try:
        yield
    finally:
        Interpreter.__init__ = init  # type: ignore[method-assign]
        for made_here in list(made):
            if not made_here.runtime.running:
                made_here.close()


@pytest.fixture
def interp() -> Interpreter:
    """A fresh interpreter for each test."""
    return Interpreter()


@pytest.fixture
def run() -> Callable[[str], str]:
    """Evaluate source in a fresh interpreter; the value as ``write`` prints it."""

    def run_source(source: str) -> str:
        with Interpreter() as interp:
            return write_string(interp.eval_scheme(source))

    return run_source


@pytest.fixture
def output() -> Callable[[str], str]:
    """Evaluate source in a fresh interpreter; what it wrote to standard output."""

    def run_source(source: str) -> str:
        out = io.StringIO()
        with Interpreter(stdout=out) as interp:
            interp.eval(source)
        return out.getvalue()

    return run_source


@pytest.fixture
def error() -> Callable[[str], SchemeError]:
    """Evaluate source that must fail; the SchemeError it raised."""

    def run_source(source: str, filename: str = "test.scm") -> SchemeError:
        with Interpreter() as interp, pytest.raises(SchemeError) as info:
            interp.eval(source, filename=filename)
        return info.value

    return run_source


@pytest.fixture
def llm_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """llm's keys, logs and settings (LLM_USER_PATH) in a temporary folder."""
    home = tmp_path / "llm-home"
    home.mkdir()
    monkeypatch.setenv("LLM_USER_PATH", str(home))
    return home


@pytest.fixture
def provider() -> Iterator[ProviderServer]:
    """An OpenAI-compatible chat server on 127.0.0.1 (see ``tests/provider_server.py``)."""
    with ProviderServer().start() as server:
        yield server


@pytest.fixture
def provider_model(llm_home: Path, provider: ProviderServer) -> ProviderServer:
    """The loopback provider, reachable through llm's OpenAI plugin as model ``fake``
    (``extra-openai-models.yaml`` in a temporary ``LLM_USER_PATH``)."""
    write_models(llm_home, provider.base_url, ["fake"])
    return provider


@pytest.fixture
def sources() -> Iterator[list[str]]:
    """The Python source of every procedure body compiled while the test runs."""
    with compiled_sources() as seen:
        yield seen
