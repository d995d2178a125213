"""The docs cannot drift: every complete program in README.md and docs/*.md runs, and prints
exactly the output written beside it.

The convention (also on the team bulletin and in the README's Development section):

- A ```scheme or ```python block is a complete program. The block after it must be an
  ```output block holding exactly what it prints on standard output. ```output exit=N says it
  ends with exit status N (default 0). An optional ```stderr block after that holds exactly
  what it prints on standard error; without one, standard error must be empty.
- Words starting with ``--`` after ```scheme are command-line options (```scheme --strict).
- ```scheme fragment / ```python fragment marks a piece that does not run on its own. Scheme
  fragments must still read without a syntax error.
- Other blocks (sh, text, no language) are not run.

Programs run in an empty temporary folder as ``prog.scm`` (through the ``taskscheme`` command
line, run in the test's process) or ``prog.py`` (in a Python process of its own), offline: ``LLM_USER_PATH`` points at that folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter.reader import read_all

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = {"scheme", "python"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass
class Block:
    """A fenced code block: its language, the other words of its info string, text and place."""

    language: str
    words: list[str]
    text: str
    where: str


@dataclass
class Program:
    """A runnable block and what it must print."""

    block: Block
    stdout: str | None = None
    stderr: str = ""
    exit_code: int = 0
    problems: list[str] = field(default_factory=list)


def fenced_blocks(path: Path, root: Path = ROOT) -> list[Block]:
    """The fenced code blocks of a Markdown file, in order."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        info = opening["info"].split()
        body: list[str] = []
        start = i + 1
        i += 1
        while i < len(lines) and not re.match(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", lines[i]):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        where = f"{path.relative_to(root)}:{start}"
        blocks.append(Block(info[0] if info else "", info[1:], "\n".join(body) + "\n", where))
    return blocks


def programs_and_fragments() -> tuple[list[Program], list[Block]]:
    programs: list[Program] = []
    fragments: list[Block] = []
    for path in DOCS:
        blocks = fenced_blocks(path)
        for n, block in enumerate(blocks):
            if block.language not in RUNNABLE:
                continue
            if "fragment" in block.words:
                fragments.append(block)
                continue
            programs.append(expected_output(block, blocks[n + 1 : n + 3]))
    return programs, fragments


def expected_output(block: Block, following: list[Block]) -> Program:
    program = Program(block)
    if not following or following[0].language != "output":
        program.problems.append(
            f"{block.where}: a complete program needs an ```output block right after it "
            f"(or mark it ```{block.language} fragment)"
        )
        return program
    out = following[0]
    program.stdout = out.text
    for word in out.words:
        if word.startswith("exit="):
            program.exit_code = int(word.removeprefix("exit="))
        else:
            program.problems.append(f"{out.where}: unknown word {word!r} after ```output")
    if len(following) > 1 and following[1].language == "stderr":
        program.stderr = following[1].text
    return program


PROGRAMS, FRAGMENTS = programs_and_fragments()


def run_block(block: Block, folder: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TASKSCHEME_", "LLM_"))}
    env["LLM_USER_PATH"] = str(folder)
    if block.language == "scheme":  # the taskscheme command, run in this process (helpers.run_cli)
        (folder / "prog.scm").write_text(block.text, encoding="utf-8")
        options = [word for word in block.words if word.startswith("--")]
        return run_cli([*options, "prog.scm"], env=env, cwd=folder)
    (folder / "prog.py").write_text(block.text, encoding="utf-8")
    command = [sys.executable, "prog.py"]  # a program of the reader's own: a process of its own
    return subprocess.run(
        command, cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120
    )


def tidy(text: str) -> str:
    """Text as compared: trailing spaces and trailing blank lines do not count."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.block.where for p in PROGRAMS])
def test_program_prints_what_the_docs_say(program: Program, tmp_path: Path) -> None:
    if program.problems:
        pytest.fail("\n".join(program.problems), pytrace=False)
    done = run_block(program.block, tmp_path)
    shown = f"{program.block.where}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
    assert tidy(done.stdout) == tidy(program.stdout or ""), shown
    assert tidy(done.stderr) == tidy(program.stderr), shown
    assert done.returncode == program.exit_code, shown


@pytest.mark.parametrize("block", [b for b in FRAGMENTS if b.language == "scheme"], ids=lambda b: b.where)
def test_scheme_fragment_reads(block: Block) -> None:
    read_all(block.text, block.where)


def test_the_docs_have_programs() -> None:
    """The harness finds the README's programs (a broken fence parser would find none)."""
    assert any(p.block.where.startswith("README.md") for p in PROGRAMS)
    assert len(PROGRAMS) >= 3


def test_fence_parser_on_a_sample(tmp_path: Path) -> None:
    sample = tmp_path / "sample.md"
    sample.write_text(
        "# t\n\n```scheme --strict\n(display 1)\n```\n\n```output exit=1\n1\n```\n```stderr\nboom\n```\n"
        "  ```python fragment\n  x = 1\n  ```\n````sh\n```\n````\n",
        encoding="utf-8",
    )
    blocks = fenced_blocks(sample, tmp_path)
    assert [(b.language, b.words, b.text) for b in blocks] == [
        ("scheme", ["--strict"], "(display 1)\n"),
        ("output", ["exit=1"], "1\n"),
        ("stderr", [], "boom\n"),
        ("python", ["fragment"], "x = 1\n"),
        ("sh", [], "```\n"),
    ]
    program = expected_output(blocks[0], blocks[1:3])
    assert (program.stdout, program.stderr, program.exit_code, program.problems) == ("1\n", "boom\n", 1, [])
    lonely = expected_output(blocks[3], [])
    assert "needs an ```output block" in lonely.problems[0]

