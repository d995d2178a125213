"""The code generator's output is pinned: every lambda body of the bench programs
(``bench/programs.py``: the library, idiomatic and r7rs suites) compiles to the same Python
source as the golden files under ``tests/golden/codegen/py3.N/`` (one folder per Python: the
code generator emits version-specific truth tests and jumps; one file a program, its bodies in
the order the analyzer made them). The 3.11 files were written on the compiler before its split
into ``interpreter/compiler/`` (issue 34), so they also prove the split changed no emitted byte.

A change to what the compiler emits shows here as a diff; a change meant to alter the code is
accepted by writing the files anew and reviewing their diff:

    PYTHONPATH=$PWD python tests/test_codegen_golden.py --write
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import compiled_sources

from interpreter import Interpreter
from interpreter.compiler import body
from interpreter.nodes.core import Lambda, subtree

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "codegen" / f"py{sys.version_info[0]}.{sys.version_info[1]}"
SUITES = ("LIBRARY", "IDIOMATIC", "ELEMENTS", "R7RS")


def bench_programs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_programs", ROOT / "bench" / "programs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def programs() -> dict[str, str]:
    """Each distinct definitions text of the suites, by the name ``bench/programs.py`` gives it."""
    module = bench_programs()
    names = {id(value): name for name, value in vars(module).items() if isinstance(value, str) and name.isupper()}
    found: dict[str, str] = {}
    for suite in SUITES:
        for case in getattr(module, suite):
            # a text whose name was reused for something else is named after its case's title
            name = names.get(id(case.definitions)) or re.sub(r"\W+", "-", case.title.split(",")[0]).strip("-")
            if case.definitions not in found.values():
                found[name.lower()] = case.definitions
    return found


def generated(definitions: str) -> str:
    """The definitions run in a fresh interpreter, then every lambda in them compiled."""
    interp = Interpreter()
    analyzed: list[Any] = []
    analyze = interp.analyzer.analyze

    def recording(datum: Any, *args: Any) -> Any:
        node = analyze(datum, *args)
        analyzed.append(node)
        return node

    interp.analyzer.analyze = recording  # type: ignore[method-assign]
    interp.eval(definitions, filename="bench.scm")
    interp.analyzer.analyze = analyze  # type: ignore[method-assign]
    lambdas: list[Lambda] = []
    for node in analyzed:
        lambdas.extend(part for part in subtree(node) if type(part) is Lambda and part not in lambdas)
    lambdas.sort(key=lambda proc: (proc.span.line, proc.span.col) if proc.span else (0, 0))
    parts: list[str] = []
    for proc in lambdas:
        with compiled_sources() as seen:
            body.compile_procedure(proc)
        where = f"{proc.span.line}:{proc.span.col}" if proc.span else "?"
        parts.append(f"# ---- {proc.name} ({where})\n" + "".join(seen))
    return "\n".join(parts)


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.py.txt"


needs_golden = pytest.mark.skipif(not GOLDEN.is_dir(), reason=f"no golden files for this Python ({GOLDEN.name})")


@needs_golden
@pytest.mark.parametrize("name", sorted(programs()))
def test_generated_code_matches_golden(name: str) -> None:
    expected = golden_path(name).read_text()
    assert generated(programs()[name]) == expected, f"generated code of {name} differs from {golden_path(name)}"


@needs_golden
def test_golden_set_is_whole() -> None:
    """Every program has its file, and no file is left over from a program that is gone."""
    assert {path.name for path in GOLDEN.glob("*.py.txt")} == {golden_path(name).name for name in programs()}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    total = 0
    for name, definitions in sorted(programs().items()):
        text = generated(definitions)
        total += text.count("# ---- ")
        golden_path(name).write_text(text)
    print(f"{len(programs())} programs, {total} bodies written to {GOLDEN}")
