"""Memory for fresh context: remember, recall, index-files, retrieval into prompts, persistence,
pluggable ranking, and what holds without capabilities and across threads."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError
from interpreter.tasks.errors import TaskError
from interpreter.tasks.memory.store import EmbeddingRanking, Memory, MemoryMatch

ROOT = Path(__file__).resolve().parent.parent

FACTS = """
(remember "Rain in Spain falls mainly on the plain" #:source "geo" #:tags '(weather spain))
(remember "Cats sleep sixteen hours a day, more in winter" #:source "pets" #:tags '(animals))
(remember "Winter rain and winter snow in the mountains" #:source "alps" #:tags '(weather))
(define-model "mirror" (lambda (prompt system) prompt))
"""


@pytest.fixture
def interp() -> Interpreter:
    interp = Interpreter()  # no capabilities: the memory is the interpreter's own, in memory
    interp.eval(FACTS, filename="facts.scm")
    return interp


def sources(matches: list) -> list[str]:
    return [m.source for m in matches]


# -- remember and recall ---------------------------------------------------------------------
def test_recall_ranks_by_bm25(interp: Interpreter) -> None:
    assert sources(interp.eval('(recall "winter rain")')) == ["alps", "geo", "pets"]
    assert sources(interp.eval('(recall "winter rain" #:k 1)')) == ["alps"]
    assert sources(interp.eval('(recall "winter" #:tags \'(weather))')) == ["alps"]
    assert interp.eval('(recall "zebra")') == []
    match = interp.eval('(car (recall "cats"))')
    assert isinstance(match, MemoryMatch) and match.tags == ["animals"] and match.score > 0
    assert interp.eval('(get (car (recall "cats")) \'text)').startswith("Cats sleep")


def test_query_syntax_does_not_leak_into_fts(interp: Interpreter) -> None:
    found = sources(interp.eval('(recall "rain\\" OR NEAR(* AND) -winter:")'))  # words only, no syntax
    assert found[:2] == ["alps", "geo"]


@pytest.mark.parametrize(
    "source, message",
    [
        ('(remember "   ")', "remember: the text is empty"),
        ('(recall "x" #:k 0)', "#:k must be an integer from 1 to 100"),
        ('(recall "x" #:colour 1)', "unknown keyword #:colour"),
        ("(remember 'sym)", "remember: expected a string"),
        ('(remember "x" #:tags \'(1 2))', "a list of symbols or strings"),
    ],
)
def test_errors_name_the_call_and_its_place(interp: Interpreter, source: str, message: str) -> None:
    with pytest.raises(SchemeError) as info:
        interp.eval(source, filename="bad.scm")
    assert message in info.value.message
    assert str(info.value.span).startswith("bad.scm:1:")


# -- fresh context in prompts ------------------------------------------------------------------
def test_a_task_with_fresh_context_gets_matches_in_its_prompt_and_notes(interp: Interpreter) -> None:
    interp.eval(
        """(define-task (ask q) (context (inherit none) (fresh enabled)) (model "mirror") (prompt "Question: {{q}}"))
           (define-task (plain q) (model "mirror") (prompt "Question: {{q}}"))"""
    )
    r = interp.eval('(ask "how long do cats sleep")')
    assert r.content.startswith("Question: how long do cats sleep\n\n## Relevant context\n\n[pets] Cats sleep")
    assert [m["source"] for m in r.notes["context_matches"]] == ["pets"]
    assert interp.eval("(get (car (get (ask \"cats\") 'notes 'context-matches)) 'source)") == "pets"
    unrelated = interp.eval('(ask "zebra crossing")')
    assert unrelated.content == "Question: zebra crossing" and "context_matches" not in unrelated.notes
    assert interp.eval('(get (plain "cats") \'content)') == "Question: cats"  # atomic default: fresh disabled


def test_forms_with_fresh_context_enable_it_for_the_tasks_they_call(interp: Interpreter) -> None:
    interp.eval('(define-task (plain q) (model "mirror") (prompt "Q: {{q}}"))')
    loop = interp.eval('(director-evaluator-loop (director (plain "cats")) (evaluator #t))')  # default: enabled
    assert "## Relevant context" in loop.final_output.content
    assert loop.final_output.notes["context_matches"][0]["source"] == "pets"
    off = interp.eval('(director-evaluator-loop (context (fresh disabled)) (director (plain "cats")) (evaluator #t))')
    assert "Relevant context" not in off.final_output.content
    piped = interp.eval('(sequential (step a (plain "cats")))')  # sequential default: disabled
    assert "Relevant context" not in piped.content
    fresh = interp.eval('(sequential (context (inherit none) (fresh enabled)) (step a (plain "rain")))')
    assert "[geo] Rain in Spain" in fresh.content
    inner = interp.eval(
        """(director-evaluator-loop
             (director (get (sequential (step a (plain "cats"))) 'content)) (evaluator #t))"""
    )
    assert "Relevant context" not in inner.final_output.content  # the innermost form decides


def test_a_procedure_task_with_fresh_context_enables_it_inside() -> None:
    interp = Interpreter()
    interp.eval(FACTS)
    interp.eval(
        """(define-task (plain q) (model "mirror") (prompt "Q: {{q}}"))
           (define-task (research q) (context (inherit none) (fresh enabled)) (get (plain q) 'content))"""
    )
    assert "[pets]" in interp.eval('(research "cats")')


def test_an_empty_memory_adds_nothing() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-model "mirror" (lambda (prompt system) prompt))
           (define-task (ask q) (context (inherit none) (fresh enabled)) (model "mirror") (prompt "{{q}}"))"""
    )
    r = interp.eval('(ask "cats")')
    assert r.content == "cats" and "context_matches" not in r.notes


# -- persistence -------------------------------------------------------------------------------
def test_a_memory_file_persists_across_interpreters(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    first = Interpreter(memory=path)
    first.eval('(remember "The launch code is blue" #:source "ops")')
    first.memory.close()
    second = Interpreter(memory=str(path))
    assert sources(second.eval('(recall "launch code")')) == ["ops"]


def test_the_cli_memory_option(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    env = {**os.environ, "TASKSCHEME_HISTORY": "", "NO_COLOR": "1", "LLM_USER_PATH": str(tmp_path)}

    def run(source: str) -> subprocess.CompletedProcess[str]:
        return run_cli(["--memory", str(path), "-e", source], env=env)

    assert run('(remember "ferns like shade" #:source "garden")').returncode == 0
    done = run('(display (get (car (recall "shade")) \'source))')
    assert (done.returncode, done.stdout, done.stderr) == (0, "garden", "")


def test_a_file_that_is_not_a_memory_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just text, not SQLite " * 100)
    interp = Interpreter(memory=path)
    with pytest.raises(TaskError) as info:
        interp.eval('(remember "x")')
    assert "is not a taskscheme memory" in info.value.message


def test_sqlite_without_fts5_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = sqlite3.connect

    class NoFts5:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def execute(self, sql: str, *args: object) -> object:
            if "fts5" in sql:
                raise sqlite3.OperationalError("no such module: fts5")
            return self.db.execute(sql, *args)

        def close(self) -> None:
            self.db.close()

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: NoFts5(real_connect(*a, **k)))
    with pytest.raises(TaskError) as info:
        Interpreter().eval('(remember "x")')
    assert "has no FTS5 full-text search" in info.value.message


# -- files -------------------------------------------------------------------------------------
def test_index_files_needs_the_files_capability(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("ferns")
    with pytest.raises(SchemeError) as info:
        Interpreter().eval(f'(index-files "{tmp_path}")')
    assert info.value.kind == "permission" and "allow_files" in info.value.message


def test_index_files_reads_matching_files_and_refuses_links_out(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "garden.md").write_text("Ferns like shade.\n\nRoses like sun.")
    (notes / "sub" / "kitchen.md").write_text("Bread needs an hour to rise.")
    (notes / "skip.txt").write_text("ferns in a text file")
    interp = Interpreter(allow_files=[str(notes)])
    assert interp.eval(f'(index-files "{notes}" #:glob "*.md")') == 2
    assert sources(interp.eval('(recall "ferns")')) == [f"{notes / 'garden.md'}#1"]
    assert interp.eval(f'(index-files "{notes}" #:glob "*.md")') == 2  # indexing again replaces
    assert len(interp.eval('(recall "ferns shade roses bread")')) == 2
    outside = tmp_path / "secret.md"
    outside.write_text("the password is swordfish")
    (notes / "link.md").symlink_to(outside)
    with pytest.raises(SchemeError) as info:
        interp.eval(f'(index-files "{notes}" #:glob "*.md")')
    assert info.value.kind == "permission" and "outside the folders allowed" in info.value.message
    assert interp.eval('(recall "swordfish")') == []


def test_index_files_stops_at_the_time_limit(tmp_path: Path) -> None:
    for i in range(300):
        (tmp_path / f"{i}.md").write_text(f"note {i} " * 200)
    interp = Interpreter(allow_files=True, max_steps=10)
    with pytest.raises(SchemeError) as info:
        interp.eval(f'(index-files "{tmp_path}")')
    assert info.value.kind == "resource-exhaustion"


# -- ranking -------------------------------------------------------------------------------------
class Reversed:
    """A ranking that puts BM25's last first."""

    def rank(self, query: str, candidates: list[MemoryMatch], memory: Memory) -> list[MemoryMatch]:
        return list(reversed(candidates))


def test_ranking_is_pluggable() -> None:
    interp = Interpreter(memory_ranking=Reversed())
    interp.eval(FACTS)
    assert sources(interp.eval('(recall "winter rain")')) == ["pets", "geo", "alps"]


class Letters:
    """An embedding model in llm's shape: a text's vector counts a few letters."""

    model_id = "letters"

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, text: str) -> list[float]:
        return [float(text.lower().count(c)) for c in "aeiousnw"]

    def embed_multi(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return [self.embed(t) for t in texts]


def test_embedding_ranking_reranks_and_keeps_vectors() -> None:
    model = Letters()
    interp = Interpreter(memory_ranking=EmbeddingRanking(model))
    interp.eval(FACTS)
    first = interp.eval('(recall "winter snow in the mountains" #:k 3)')
    assert first[0].source == "alps" and all(-1 <= m.score <= 1 for m in first)
    assert first == sorted(first, key=lambda m: -m.score)
    interp.eval('(recall "winter snow in the mountains" #:k 3)')
    assert model.embedded == 3  # each item embedded once, then read from the database


# -- concurrency ---------------------------------------------------------------------------------
def test_threads_share_one_memory_safely(tmp_path: Path) -> None:
    interp = Interpreter(memory=tmp_path / "shared.db")

    def writer(n: int) -> None:
        for i in range(50):
            interp.memory.remember(f"thread {n} item {i} alpha", f"t{n}")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert interp.memory.count() == 400
    assert len(interp.eval('(recall "alpha" #:k 100)')) == 100


def test_indexing_a_file_again_keeps_files_with_similar_names(tmp_path: Path) -> None:
    (tmp_path / "a_b.md").write_text("first alpha")
    (tmp_path / "axb.md").write_text("second alpha")
    interp = Interpreter(allow_files=True)
    interp.eval(f'(index-files "{tmp_path}")')
    interp.eval(f'(index-files "{tmp_path}" #:glob "a_b.md")')
    assert sorted(Path(m.source).name for m in interp.eval('(recall "alpha")')) == ["a_b.md#1", "axb.md#1"]


def test_parallel_map_branches_share_the_memory_and_the_fresh_context_setting() -> None:
    interp = Interpreter()
    interp.eval(FACTS)
    interp.eval('(define-task (plain q) (model "mirror") (prompt "Q: {{q}}"))')
    ids = interp.eval(
        '(parallel-map (lambda (i) (remember (string-append "parallel note " (number->string i)))) (iota 40))'
    )
    assert len(set(ids)) == 40
    assert len(interp.eval('(recall "parallel" #:k 100)')) == 40
    r = interp.eval(
        """(director-evaluator-loop
             (director (parallel-map (lambda (q) (get (plain q) 'content)) '("cats" "zebra")))
             (evaluator #t))"""
    )
    assert "## Relevant context" in r.final_output.content and "[pets]" in r.final_output.content
    outside = interp.eval("(parallel-map (lambda (q) (get (plain q) 'content)) '(\"cats\"))")
    assert outside == ["Q: cats"]  # outside any fresh form, branches retrieve nothing
