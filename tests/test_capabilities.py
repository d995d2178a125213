"""Capabilities: allow_scripts, allow_files (with folder confinement) and allow_python, refused and allowed."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.capabilities import check_file_access


def refusal(interp: Interpreter, source: str) -> SchemeError:
    with pytest.raises(SchemeError) as info:
        interp.eval(source)
    assert info.value.kind == "permission", info.value.message
    return info.value


# -- everything is off by default ----------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "capability"),
    [
        ('(run-script "echo hi")', "allow_scripts"),
        ('(get-environment-variable "HOME")', "allow_scripts"),
        ("(get-environment-variables)", "allow_scripts"),
        ('(load "x.scm")', "allow_files"),
        ('(open-input-file "x.txt")', "allow_files"),
        ('(open-output-file "x.txt")', "allow_files"),
        ('(call-with-output-file "x.txt" (lambda (p) p))', "allow_files"),
        ('(with-output-to-file "x.txt" (lambda () 1))', "allow_files"),
        ('(file-exists? "x.txt")', "allow_files"),
        ('(delete-file "x.txt")', "allow_files"),
        ('(include "x.scm")', "allow_files"),
        ('(python-import "os")', "allow_python"),
        ('(python-ref "abc" "upper")', "allow_python"),
        ("(python-call car '(1))", "allow_python"),
    ],
)
def test_default_interpreter_refuses(
    source: str, capability: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    err = refusal(Interpreter(), source)
    assert capability in err.message
    assert not (tmp_path / "x.txt").exists()


def test_script_tasks_need_allow_scripts() -> None:
    interp = Interpreter()
    interp.eval('(define-task (hello) (script "echo hello"))')
    assert "allow_scripts" in refusal(interp, "(hello)").message


def test_a_refusal_can_be_caught_and_the_program_goes_on() -> None:
    interp = Interpreter()
    got = interp.eval('(guard (e ((eq? (error-object-kind e) (quote permission)) "refused")) (run-script "true"))')
    assert got == "refused"


# -- granted ---------------------------------------------------------------------------------
def test_allow_scripts_runs_processes() -> None:
    interp = Interpreter(allow_scripts=True)
    assert interp.eval('(get (run-script "echo hi") \'stdout)') == "hi\n"
    assert interp.eval('(string? (get-environment-variable "PATH"))') is True


def test_allow_files_true_reads_and_writes_anywhere(tmp_path: Path) -> None:
    interp = Interpreter(allow_files=True)
    target = tmp_path / "out.txt"
    interp.eval(f'(call-with-output-file "{target}" (lambda (p) (write-string "data" p)))')
    assert target.read_text() == "data"
    assert interp.eval(f'(call-with-input-file "{target}" read-line)') == "data"


def test_allow_python_reaches_python() -> None:
    interp = Interpreter(allow_python=True)
    assert interp.eval('(python-call (python-ref (python-import "math") "sqrt") 16)') == 4.0
    assert interp.eval('((python-ref (python-import "math") "sqrt") 9)') == 3.0  # functions are procedures
    assert interp.eval('(python-ref (python-import "math") "pi")') == math.pi
    assert interp.eval('(python-call (python-ref "a-b" "split") "-")') == ["a", "b"]
    assert interp.eval('(python-call (python-ref (python-import "builtins") "sorted") \'(3 1 2) #:reverse #t)') == [
        3,
        2,
        1,
    ]
    with pytest.raises(SchemeError, match="cannot import"):
        interp.eval('(python-import "no_such_module_xyz")')
    with pytest.raises(SchemeError, match="no attribute nope"):
        interp.eval('(python-ref (python-import "math") "nope")')


def test_host_functions_need_no_capability() -> None:
    interp = Interpreter()
    interp.define("host-sqrt", math.sqrt)

    @interp.primitive
    def host_upper(text: str) -> str:
        return text.upper()

    assert interp.eval("(host-sqrt 25)") == 5.0
    assert interp.eval('(host-upper "a")') == "A"


def test_capabilities_are_per_interpreter() -> None:
    assert Interpreter(allow_scripts=True).eval('(get (run-script "true") \'exit-code)') == 0
    refusal(Interpreter(), '(run-script "true")')


# -- folder confinement ------------------------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tasks/ (allowed) with lib.scm, sub/inner.scm and links; secret.scm outside it."""
    tasks = tmp_path / "tasks"
    (tasks / "sub").mkdir(parents=True)
    (tasks / "lib.scm").write_text("(define from-lib 1)")
    (tasks / "sub" / "inner.scm").write_text("(define from-inner 2)")
    (tmp_path / "secret.scm").write_text("(define secret 'leaked)")
    os.symlink(tmp_path / "secret.scm", tasks / "link-out.scm")
    os.symlink(tasks / "lib.scm", tasks / "link-in.scm")
    os.symlink(tmp_path, tasks / "dir-out")
    os.symlink(tmp_path / "elsewhere.txt", tasks / "dangling-out.txt")
    return tmp_path


def confined(tree: Path) -> Interpreter:
    return Interpreter(allow_files=[str(tree / "tasks")])


def test_files_inside_the_folder_are_allowed(tree: Path) -> None:
    interp = confined(tree)
    tasks = tree / "tasks"
    interp.eval(f'(load "{tasks / "lib.scm"}") (load "{tasks / "sub" / "inner.scm"}")')
    interp.eval(f'(load "{tasks / "link-in.scm"}")')  # a link that stays inside
    interp.eval(f'(load "{tasks / "sub" / ".." / "lib.scm"}")')  # a .. that stays inside
    assert interp.eval("(list from-lib from-inner)") == [1, 2]


@pytest.mark.parametrize(
    "relative",
    ["../secret.scm", "sub/../../secret.scm", "link-out.scm", "dir-out/secret.scm"],
)
def test_escapes_are_refused(tree: Path, relative: str) -> None:
    interp = confined(tree)
    err = refusal(interp, f'(load "{tree / "tasks"}/{relative}")')
    assert "outside the folders allowed by allow_files" in err.message
    with pytest.raises(SchemeError, match="unbound variable: secret"):
        interp.eval("secret")


def test_absolute_paths_outside_are_refused(tree: Path) -> None:
    refusal(confined(tree), f'(open-input-file "{tree / "secret.scm"}")')
    refusal(confined(tree), '(open-input-file "/etc/passwd")')


def test_writing_through_a_dangling_link_out_is_refused(tree: Path) -> None:
    refusal(confined(tree), f'(open-output-file "{tree / "tasks" / "dangling-out.txt"}")')
    assert not (tree / "elsewhere.txt").exists()


def test_relative_loads_are_relative_to_the_loading_file(tree: Path) -> None:
    (tree / "tasks" / "main.scm").write_text('(load "lib.scm") (load "../secret.scm")')
    interp = confined(tree)
    err = refusal(interp, f'(load "{tree / "tasks" / "main.scm"}")')
    assert "secret.scm" in err.message
    assert interp.eval("from-lib") == 1


def test_check_file_access_directly(tmp_path: Path) -> None:
    inside = tmp_path / "a" / "b.txt"
    assert check_file_access(True, inside, "t") == inside.resolve()
    assert check_file_access([str(tmp_path / "a")], inside, "t") == inside.resolve()
    assert check_file_access([tmp_path / "a"], tmp_path / "a", "t") == (tmp_path / "a").resolve()
    for allowed, path in [(False, inside), ([], inside), ([str(tmp_path / "a")], tmp_path / "ab.txt")]:
        with pytest.raises(SchemeError) as info:
            check_file_access(allowed, path, "t")
        assert info.value.kind == "permission"
