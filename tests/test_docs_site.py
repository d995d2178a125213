"""The documentation site builds with ``mkdocs build --strict``, its reference is generated from
what the REPL says (every special form, every predefined name, every command-line flag), and a
broken link fails the build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from interpreter.analyzer import SPECIAL_FORMS
from interpreter.cli import SUBCOMMANDS, build_parser
from interpreter.interpreter import Interpreter
from interpreter.reference import PAGES, cli_page, forms_page, procedures_page

ROOT = Path(__file__).resolve().parent.parent


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root, env=env, capture_output=True, text=True, timeout=240,
    )


def test_the_site_builds_strictly_with_its_generated_reference(tmp_path: Path) -> None:
    run = build(ROOT, tmp_path / "site")
    assert run.returncode == 0, run.stderr
    for page in ["index.html", "tutorial/index.html", "howto/index.html", *(
        p.removesuffix(".md") + "/index.html" for p in PAGES
    )]:
        assert (tmp_path / "site" / page).stat().st_size > 0, page
    forms = (tmp_path / "site" / "reference" / "forms" / "index.html").read_text(encoding="utf-8")
    # ```scheme blocks are highlighted with the taskscheme lexer: task forms are keywords
    assert '<span class="k">define-task</span>' in forms


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy)
    index = copy / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nSee [gone](no-such-page.md).\n", encoding="utf-8")
    run = build(copy, tmp_path / "site")
    assert run.returncode != 0 and "no-such-page.md" in run.stderr


def test_the_forms_reference_has_every_special_form_with_its_describe_text() -> None:
    from interpreter.repl.forms_help import FORMS

    page = forms_page()
    for symbol in SPECIAL_FORMS:
        assert f"## `{symbol.name}`" in page
        assert FORMS[symbol.name].text in page


def test_the_procedures_reference_has_every_predefined_name_as_describe_shows_it() -> None:
    from interpreter.repl.describe import describe_value

    page = procedures_page()
    interp = Interpreter()
    for symbol, value in interp.global_env.vars.items():
        assert f"### `{symbol.name}`" in page, symbol.name
        assert describe_value(symbol.name, value, {}) in page, symbol.name


def test_the_cli_reference_has_every_flag_and_subcommand() -> None:
    page = cli_page()
    for action in build_parser()._actions:
        for flag in action.option_strings:
            assert f"`{flag}" in page or f", {flag}" in page, flag
    for name in SUBCOMMANDS:
        assert f"## `taskscheme {name}`" in page
    assert "--metric" in page and "--workers" in page  # from taskscheme batch --help
