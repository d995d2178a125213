"""Syntax highlighting outside the REPL: the Pygments lexer (a ``pygments.lexers`` entry point)
and the TextMate grammar in ``editors/``, both checked on every example program."""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from pathlib import Path

import pytest
from pygments.token import Error, Keyword, Name

from interpreter.lexer import TaskSchemeLexer, task_clauses, vocabulary
from interpreter.tmgrammar import grammar

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").rglob("*.scm"))
GRAMMAR_FILE = ROOT / "editors" / "taskscheme.tmLanguage.json"
TASK_WORDS = ["define-task", "director-evaluator-loop", "sequential", "quality-gate", "parallel-map"]


def test_there_are_examples_to_check() -> None:
    assert len(EXAMPLES) >= 7


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_lexer_reads_every_example_without_error_tokens(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tokens = list(TaskSchemeLexer().get_tokens(text))
    assert [v for t, v in tokens if t in Error] == []
    assert "".join(v for _, v in tokens) == text if text.endswith("\n") else text + "\n"


@pytest.mark.parametrize("word", TASK_WORDS)
def test_task_forms_are_keywords(word: str) -> None:
    tokens = [(t, v) for t, v in TaskSchemeLexer().get_tokens(f"({word} x)") if v.strip()]
    assert tokens[1] == (Keyword, word)


def test_a_clause_name_is_a_keyword_where_it_heads_a_clause_of_a_task_form() -> None:
    source = (
        '(define-task (t x) (prompt "p") (context (max-turns 2)))'
        " (director-evaluator-loop (max-iterations 3) (director d))"
        ' (define-model "m" (lambda (prompt system) (list prompt system)))'
        " (define (f model) (context model))"
    )
    kinds = [(t, v) for t, v in TaskSchemeLexer().get_tokens(source) if v in ("prompt", "system", "context", "model")]
    kinds += [(t, v) for t, v in TaskSchemeLexer().get_tokens(source) if v in ("max-iterations", "director")]
    assert kinds == [
        (Keyword, "prompt"),  # clauses of define-task and the loop
        (Keyword, "context"),
        (Name.Variable, "prompt"),  # a lambda's parameters, and their uses
        (Name.Variable, "system"),
        (Name.Variable, "prompt"),
        (Name.Variable, "system"),
        (Name.Variable, "model"),  # a procedure's parameter, a call of a procedure named context
        (Name.Variable, "context"),
        (Name.Variable, "model"),
        (Keyword, "max-iterations"),
        (Keyword, "director"),
    ]


def test_primitives_and_prelude_names_are_builtins_and_others_variables() -> None:
    kinds = {v: t for t, v in TaskSchemeLexer().get_tokens("(car list-tabulate string-append my-thing)")}
    assert kinds["car"] is Name.Builtin and kinds["string-append"] is Name.Builtin
    assert kinds["list-tabulate"] is Name.Builtin  # a prelude procedure
    assert kinds["my-thing"] is Name.Variable


def test_the_vocabulary_follows_the_registries() -> None:
    """A special form added to the analyzer is a keyword without touching the lexer."""
    from interpreter.analyzer import SPECIAL_FORMS

    assert {s.name for s in SPECIAL_FORMS} <= vocabulary().keywords


def test_the_lexer_is_a_pygments_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    target = project["entry-points"]["pygments.lexers"]["taskscheme"]
    module, _, attr = target.partition(":")
    assert getattr(importlib.import_module(module), attr) is TaskSchemeLexer
    from importlib.metadata import entry_points

    if any(ep.name == "taskscheme" for ep in entry_points(group="pygments.lexers")):  # installed (CI)
        from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

        assert type(get_lexer_by_name("taskscheme")).__name__ == "TaskSchemeLexer"
        assert get_lexer_by_name("taskscheme").name == "taskscheme"
        assert get_lexer_for_filename("prog.scm", "(define-task (t) (prompt \"x\"))") is not None


# -- the TextMate grammar ------------------------------------------------------------------------------
def python_regex(oniguruma: str) -> re.Pattern[str]:
    """An Oniguruma regex in Python's syntax. The grammar avoids Oniguruma-only constructs
    (\\h, \\G, possessive quantifiers, (?~...)); this fails if one creeps in."""
    for construct in (r"\h", r"\G", r"\A", "(?~", "*+", "++", "?+", r"\p{"):
        assert construct not in oniguruma, f"Oniguruma-only {construct!r} in {oniguruma[:60]!r}"
    return re.compile(oniguruma, re.MULTILINE)


def scopes(text: str, patterns: list[dict]) -> list[tuple[str, str]]:
    """(scope, text) for each token, scanning as a TextMate engine does: at each point the
    earliest match of any pattern wins (ties: the first pattern); begin/end rules span."""
    compiled = [
        (p["name"], python_regex(p.get("match") or p["begin"]), python_regex(p["end"]) if "end" in p else None)
        for p in patterns
    ]
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        best = None
        for name, start, end in compiled:
            m = start.search(text, pos)
            if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                best = (name, m, end)
        if best is None:
            assert text[pos:].strip() == "", f"nothing matches {text[pos:pos + 40]!r}"
            break
        name, m, end = best
        assert text[pos : m.start()].strip() == "", f"unscoped text {text[pos:m.start()]!r}"
        stop = m.end()
        if end is not None:
            closing = end.search(text, stop)
            assert closing, f"{name} opened at {m.start()} never ends"
            stop = closing.end()
        out.append((name, text[m.start() : stop]))
        pos = stop
    return out


def test_the_grammar_file_is_the_generated_one() -> None:
    assert json.loads(GRAMMAR_FILE.read_text(encoding="utf-8")) == grammar(), (
        "editors/taskscheme.tmLanguage.json is stale: python -m interpreter.tmgrammar > editors/taskscheme.tmLanguage.json"
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_grammar_scopes_every_example(path: Path) -> None:
    patterns = json.loads(GRAMMAR_FILE.read_text(encoding="utf-8"))["patterns"]
    text = path.read_text(encoding="utf-8")
    found = scopes(text, patterns)
    lexed = {v for t, v in TaskSchemeLexer().get_tokens(text) if t is Keyword}
    keywords = {v for name, v in found if name == "keyword.control.taskscheme"}
    clauses, _forms = task_clauses()
    # the grammar and the lexer agree on every example, but for a clause name heading a list that
    # is not a clause of a task form (a lambda's parameters): the grammar's regexes cannot tell
    assert lexed <= keywords and keywords - lexed <= clauses
    for name, value in found:
        if name.startswith("variable"):
            assert value not in vocabulary().keywords - clauses


def test_the_grammar_marks_task_forms_as_keywords() -> None:
    patterns = grammar()["patterns"]
    found = dict((v, n) for n, v in scopes("(" + " (".join(TASK_WORDS) + ' "define-task" ; sequential\n', patterns))
    for word in TASK_WORDS:
        assert found[word] == "keyword.control.taskscheme", word
    assert found['"define-task"'].startswith("string") and found["; sequential"].startswith("comment")


def test_the_grammar_marks_a_clause_name_only_at_the_head_of_a_list() -> None:
    found = scopes('(define-task (t) (prompt "p")) (lambda (x system) (list system))\n', grammar()["patterns"])
    kinds = [(name.split(".")[0], v) for name, v in found if v in ("prompt", "system")]
    assert kinds == [("keyword", "prompt"), ("variable", "system"), ("variable", "system")]
