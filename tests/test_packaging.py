"""The standard library travels with the package, and a missing one is one clear line.

Run against an installed wheel (see the README's Development section), the first test checks that
the wheel carries every file of the checkout's ``stdlib/`` folder.
"""

from __future__ import annotations

import io
import tomllib
from importlib import resources
from pathlib import Path

import pytest

import interpreter
from interpreter import Interpreter, SchemeError, cli, stdlib_files

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel

CHECKOUT_STDLIB = Path(__file__).resolve().parent.parent / "stdlib"


def scheme_files(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*.scm")}


def packaged_files(folder: resources.abc.Traversable, prefix: str = "") -> set[str]:
    found: set[str] = set()
    for item in folder.iterdir():
        if item.is_dir():
            found |= packaged_files(item, f"{prefix}{item.name}/")
        elif item.name.endswith(".scm"):
            found.add(prefix + item.name)
    return found


def test_the_installed_package_carries_every_stdlib_file() -> None:
    expected = scheme_files(CHECKOUT_STDLIB)
    assert {"prelude.scm", "lazy/quality.scm", "lazy/test.scm"} <= expected
    assert packaged_files(resources.files("interpreter.stdlib")) == expected, interpreter.__file__


def test_prelude_quality_gate_and_test_harness_load_from_the_package() -> None:
    out = io.StringIO()
    interp = Interpreter(stdout=out)
    interp.eval(
        """
        (define (generate feedback) "a draft")
        (define gate (quality-gate generate (lambda (draft) '((completeness . 25) (correctness . 25)
                                                             (clarity . 25) (actionability . 25)))))
        (test-begin "packaged")
        (test-equal 6 (sum (list 1 2 3)))
        (test-end "packaged")
        (display (get gate 'status))
        """
    )
    assert out.getvalue().splitlines() == ["packaged: 1 passed, 0 failed", "COMPLETE"]


def without_stdlib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdlib_files, "PACKAGE", "interpreter.no_such_stdlib")
    monkeypatch.setattr(stdlib_files, "CHECKOUT", Path("/no/such/checkout/stdlib"))
    monkeypatch.setattr(stdlib_files, "BESIDE", Path("/no/such/install/stdlib"))


def test_a_checkout_run_without_installing_finds_the_stdlib_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python repl.py`` in a source checkout whose package is not installed: no interpreter.stdlib."""
    monkeypatch.setattr(stdlib_files, "PACKAGE", "interpreter.no_such_stdlib")
    monkeypatch.setattr(stdlib_files, "CHECKOUT", CHECKOUT_STDLIB)
    assert Interpreter().eval("(sum (list 1 2 3))") == 6


def test_a_missing_stdlib_is_a_clear_error_from_the_api(monkeypatch: pytest.MonkeyPatch) -> None:
    without_stdlib(monkeypatch)
    with pytest.raises(SchemeError) as info:
        Interpreter()
    assert info.value.kind == "file-error"
    assert "standard library is missing" in info.value.message
    assert "--no-stdlib" in info.value.message
    assert Interpreter(stdlib=False).eval("(+ 1 2)") == 3


def test_a_missing_stdlib_is_one_line_at_start_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    without_stdlib(monkeypatch)
    assert cli.run(["-e", "(+ 1 2)"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: the Scheme standard library is missing (no package interpreter.no_such_stdlib)")
    assert cli.run(["--no-stdlib", "-e", "(+ 1 2)"]) == 0
    assert capsys.readouterr().out == "3\n"


def test_a_missing_lazy_file_is_an_error_at_first_use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "prelude.scm").write_text((CHECKOUT_STDLIB / "prelude.scm").read_text(encoding="utf-8"))
    interp = Interpreter()
    monkeypatch.setattr(stdlib_files, "stdlib_root", lambda: tmp_path)
    with pytest.raises(SchemeError) as info:
        interp.eval('(test-begin "x")')
    assert "standard library is missing (no lazy/test.scm in" in info.value.message
    monkeypatch.undo()
    interp.eval('(test-begin "x")')  # the name still loads its file once the file is there


def test_the_licence_is_declared_where_installers_and_indexes_look() -> None:
    from trove_classifiers import classifiers

    project = tomllib.loads((CHECKOUT_STDLIB.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (CHECKOUT_STDLIB.parent / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    unknown = [name for name in project["classifiers"] if name not in classifiers]
    assert not unknown, f"not PyPI classifiers: {unknown}"
    assert not [name for name in project["classifiers"] if name.startswith("License ::")], "PEP 639: use `license`"


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    """pyproject lists the packages by hand (the stdlib mapping needs it): a new sub-package must be added."""
    listed = set(tomllib.loads((CHECKOUT_STDLIB.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    package_root = CHECKOUT_STDLIB.parent / "interpreter"
    found = {
        ".".join(("interpreter", *module.parent.relative_to(package_root).parts))
        for module in package_root.rglob("*.py")
    }
    assert found | {"interpreter.stdlib", "interpreter.stdlib.lazy"} == listed
