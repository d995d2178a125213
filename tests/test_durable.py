"""Durable runs through the Python API: ``Interpreter(journal=PATH)`` journals every
nondeterministic result, and a second interpreter on the same journal is answered from it."""

from __future__ import annotations

import io
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.durable import JournalDivergence

MODEL_PROGRAM = """
(define-task (ask question) (model "counted") (prompt "Q: {{question}}"))
(define (answer q) (get (ask q) 'content))
"""


class Counted:
    """A Python model that counts its calls and answers with its own tag."""

    def __init__(self, tag: str = "A", delay: float = 0.0, jitter: bool = False) -> None:
        self.tag, self.delay, self.jitter = tag, delay, jitter
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, prompt: str, system: str | None) -> str:
        with self.lock:
            self.prompts.append(prompt)
        if self.delay:
            time.sleep(self.delay * (random.random() * 2 if self.jitter else 1))
        return f"{self.tag}:{prompt}"


def journaled(path: Path, model: Counted | None = None, **settings: Any) -> Interpreter:
    interp = Interpreter(journal=path, allow_scripts=True, **settings)
    interp.models.register("counted", model or Counted())
    interp.eval(MODEL_PROGRAM)
    return interp


def first_run(journal: Path, source: str, model: Counted | None = None) -> Any:
    """Run ``source`` on a new journal (or one to append to) and let the journal go; its value."""
    interp = journaled(journal, model)
    value = interp.eval(source)
    assert interp.journal is not None
    interp.journal.close()
    return value


def every_line(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def lines(path: Path) -> list[dict[str, Any]]:
    """The results in a journal (not the lines announcing a slow request before it runs)."""
    return [entry for entry in every_line(path) if not entry["started"]]


def test_a_resumed_run_is_answered_from_the_journal_then_goes_on_live(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first_model = Counted("A")
    first = journaled(journal, first_model)
    assert first.eval('(list (answer "one") (answer "two"))') == ["A:Q: one", "A:Q: two"]
    first.journal.close()
    assert [entry["kind"] for entry in lines(journal)] == ["model", "model"]

    second_model = Counted("B")
    second = journaled(journal, second_model)
    values = second.eval('(list (answer "one") (answer "two") (answer "three"))')
    assert values == ["A:Q: one", "A:Q: two", "B:Q: three"]  # two from the journal, the third live
    assert second_model.prompts == ["Q: three"]
    assert len(lines(journal)) == 3  # the live answer was appended
    assert second.journal.saved.by_kind == {"model": 2}


def test_every_source_is_journaled_and_replayed(tmp_path: Path) -> None:
    journal, runs = tmp_path / "run.jsonl", tmp_path / "runs.txt"
    program = f"""
      (list (current-second) (current-jiffy) (current-time) (random-integer 1000000) (random-real)
            (read-line)
            (get (run-script (list "sh" "-c" "echo ran >> {runs}; echo $$; echo err >&2; exit 3")) 'stdout)
            (get (run-script (list "sh" "-c" "echo x")) 'exit-code))"""
    first = Interpreter(journal=journal, allow_scripts=True, stdin=io.StringIO("typed line\n"))
    before = first.eval(program)
    first.journal.close()
    assert [e["kind"] for e in lines(journal)] == ["clock"] * 3 + ["random"] * 2 + ["stdin", "script", "script"]
    script = lines(journal)[6]["result"]
    assert (script["stderr"], script["exit_code"]) == ("err\n", 3)

    second = Interpreter(journal=journal, allow_scripts=True, stdin=io.StringIO("another line\n"))
    assert second.eval(program) == before  # the same times, numbers, input line and script pid
    assert runs.read_text() == "ran\n"  # the script did not run again
    assert len(lines(journal)) == 8


def test_a_changed_prompt_stops_the_run_showing_both_requests(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first_run(journal, '(answer "one") (answer "two")')

    model = Counted("B")
    second = journaled(journal, model)
    with pytest.raises(JournalDivergence) as info:  # guard does not catch it: the run stops
        second.eval('(answer "one") (guard (e (#t "caught")) (answer "TWO"))')
    message = info.value.message
    assert "diverged from its journal" in message and "at line 4" in message  # started 1, result 1, started 2
    assert '≠ prompt       "Q: two"' in message and '"Q: TWO"' in message  # side by side
    assert "--resume-from 3" in message and "new journal" in message
    assert model.prompts == []  # neither answered live nor mixed
    with pytest.raises(JournalDivergence):  # once diverged, nothing more comes from this journal
        second.eval('(answer "one")')
    assert len(lines(journal)) == 2


def test_divergence_is_not_collected_by_parallel_map(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first_run(journal, "(parallel-map answer '(\"a\" \"b\"))")
    second = journaled(journal)
    with pytest.raises(JournalDivergence):
        second.eval("(parallel-map answer '(\"a\" \"c\") #:on-error 'collect)")


def test_divergence_inside_a_loop_ends_the_run_not_the_iteration(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    loop = """(director-evaluator-loop (max-iterations 3)
                (director (answer "{word}"))
                (evaluator (make-evaluation #f "again")))"""
    first_run(journal, loop.format(word="draft"))
    with pytest.raises(JournalDivergence):
        journaled(journal).eval(loop.format(word="edited draft"))


def test_resume_from_keeps_the_lines_before_and_moves_the_rest_aside(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first_run(journal, '(answer "one") (answer "two") (answer "three")')

    model = Counted("B")
    second = journaled(journal, model, resume_from=3)  # the line request 2 began at
    assert second.eval('(list (answer "one") (answer "TWO") (answer "three"))') == [
        "A:Q: one",
        "B:Q: TWO",
        "B:Q: three",
    ]
    assert [e["result"]["text"] for e in lines(journal)] == ["A:Q: one", "B:Q: TWO", "B:Q: three"]
    aside = tmp_path / "run.jsonl.dropped-from-3"
    assert [e["result"]["text"] for e in lines(aside)] == ["A:Q: two", "A:Q: three"]


def test_a_torn_last_line_is_dropped_with_a_warning(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first_run(journal, '(answer "one")')
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"branch":"","n":2,"kind":"model","requ')  # a write cut short

    errors, model = io.StringIO(), Counted("B")
    second = Interpreter(journal=journal, stderr=errors)
    second.models.register("counted", model)
    second.eval(MODEL_PROGRAM)
    assert "dropped its torn last line" in errors.getvalue()
    assert second.eval('(list (answer "one") (answer "two"))') == ["A:Q: one", "B:Q: two"]
    assert journal.read_bytes().startswith(whole) and len(lines(journal)) == 2


def test_a_damaged_line_before_the_last_is_an_error_naming_it(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first_run(journal, '(answer "one") (answer "two")')
    rows = journal.read_text().splitlines()
    journal.write_text("not json\n" + rows[1] + "\n")
    with pytest.raises(SchemeError, match=r"damaged at line 1.*--resume-from 1"):
        Interpreter(journal=journal)


def test_two_writers_cannot_share_a_journal(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first = Interpreter(journal=journal)
    with pytest.raises(SchemeError, match="is locked: another interpreter in this process is writing it") as info:
        Interpreter(journal=journal)
    assert info.value.kind == "file-error"
    first.journal.close()
    Interpreter(journal=journal).journal.close()  # free again once the first lets go


def test_parallel_branches_are_matched_by_branch_not_by_finishing_order(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    program = """(parallel-map (lambda (q) (list (random-integer 1000000) (answer q) (answer (string-append q "?"))))
                               '("a" "b" "c" "d" "e" "f") #:max-concurrency 6)"""
    first = journaled(journal, Counted("A", delay=0.02, jitter=True))
    before = first.eval(program)
    first.journal.close()
    entries = lines(journal)
    assert sorted({e["branch"] for e in entries}) == [f"1.{i}" for i in range(6)]
    assert [e["branch"] for e in entries] != sorted(e["branch"] for e in entries) or True  # any order is fine

    model = Counted("B", delay=0.02, jitter=True)
    second = journaled(journal, model)
    assert second.eval(program) == before
    assert model.prompts == []


def test_only_the_final_answer_of_a_retried_call_is_journaled_with_its_attempts(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    program = """
      (define tries 0)
      (define-model (busy prompt system)
        (set! tries (+ tries 1))
        (if (< tries 3) (transient-error "overloaded") "fine"))
      (define-task (ask) (model "busy") (retries 3 (backoff 0.001)) (prompt "go"))
      (define result (ask))
      (list (get result 'content) (get result 'notes 'attempts) tries)"""
    first = Interpreter(journal=journal)
    assert first.eval(program) == ["fine", 3, 3]
    first.journal.close()
    [entry] = lines(journal)
    assert (entry["result"]["text"], entry["result"]["attempts"]) == ("fine", 3)

    second = Interpreter(journal=journal)
    assert second.eval(program) == ["fine", 3, 0]  # same answer and attempts; the model never ran


def test_a_failed_model_call_is_journaled_and_fails_again_without_calling(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    calls: list[str] = []

    def broken(prompt: str, system: str | None) -> str:
        calls.append(prompt)
        raise ValueError("bad request")

    def run() -> Any:
        interp = Interpreter(journal=journal)
        interp.models.register("broken", broken)
        value = interp.eval(
            """(define-task (ask) (model "broken") (prompt "go"))
               (guard (e ((task-error? e) (list "failed" (symbol->string (task-error-type e))))) (ask))"""
        )
        interp.journal.close()
        return value

    assert run() == ["failed", "TASK_FAILURE"]
    assert run() == ["failed", "TASK_FAILURE"]
    assert calls == ["go"]
    [entry] = lines(journal)
    assert entry["error"]["reason"] == "model_error" and "bad request" in entry["error"]["message"]


def test_journaled_answers_skip_the_response_cache(tmp_path: Path) -> None:
    from interpreter.tasks.models.cache import ModelRequest, ResponseCache

    journal, cache = tmp_path / "run.jsonl", tmp_path / "cache.sqlite"
    first = journaled(journal, cache=cache)
    assert first.eval('(answer "one")') == "A:Q: one"
    first.journal.close()
    store = ResponseCache(cache)
    assert len(store) == 1
    store.put(ModelRequest("counted", "Q: one"), "from the cache", 1, 1)  # the cache now says otherwise

    second = journaled(journal, Counted("B"), cache=cache)
    assert second.eval('(answer "one")') == "A:Q: one"  # the journal's answer, not the cache's
    assert second.eval('(answer "two")') == "B:Q: two"
    assert len(ResponseCache(cache)) == 2  # the live call was cached as usual


def test_replayed_model_and_script_spans_are_marked_replayed(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"

    def events_of(interp: Interpreter) -> list[Any]:
        seen: list[Any] = []
        interp.on_event(seen.append)
        interp.eval('(answer "one") (run-script "true") (answer "two")')
        interp.journal.close()
        return [e for e in seen if e.kind in ("model", "script")]

    assert [e.info.get("replayed") for e in events_of(journaled(journal))] == [None, None, None]
    second = journaled(journal)
    seen = events_of(second)
    assert [(e.kind, e.info.get("replayed")) for e in seen] == [("model", True), ("script", True), ("model", True)]


def test_requests_inside_a_journaled_dsl_model_are_part_of_its_answer(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    program = """
      (define-model (stamped prompt system) (string-append prompt " at " (number->string (random-integer 1000000))))
      (define-task (ask q) (model "stamped") (prompt "{{q}}"))
      (list (get (ask "a") 'content) (random-integer 1000000) (get (ask "b") 'content))"""
    first = Interpreter(journal=journal)
    before = first.eval(program)
    first.journal.close()
    assert [e["kind"] for e in lines(journal)] == ["model", "random", "model"]
    second = Interpreter(journal=journal)
    assert second.eval(program) == before


class StopsAt(Counted):
    """A model under which the run is interrupted (as by Ctrl-C) while it answers ``prompt``."""

    def __init__(self, prompt: str) -> None:
        super().__init__("A")
        self.stop = prompt
        self.interp: Interpreter | None = None

    def __call__(self, prompt: str, system: str | None) -> str:
        if prompt == self.stop and self.interp is not None:
            self.interp.runtime.interrupt()
            time.sleep(1)  # the run gives up on the call meanwhile
        return super().__call__(prompt, system)


PRINTING = '(display "one ") (display (answer "one")) (newline) (display "two ") (display (answer "two"))'


def test_resume_quiet_does_not_print_again_what_the_stopped_run_printed(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    stopped, model = io.StringIO(), StopsAt("Q: two")
    first = model.interp = journaled(journal, model, stdout=stopped)
    with pytest.raises(SchemeError, match="interrupted"):
        first.eval(PRINTING)
    first.journal.close()
    assert stopped.getvalue() == "one A:Q: one\ntwo "
    assert every_line(journal)[-1]["started"] is True  # the call under way when it stopped

    out = io.StringIO()
    second = journaled(journal, Counted("B"), stdout=out, resume_quiet=True)
    second.eval(PRINTING)
    assert stopped.getvalue() + out.getvalue() == "one A:Q: one\ntwo B:Q: two"

    loud = io.StringIO()
    second.journal.close()
    journaled(journal, Counted("C"), stdout=loud).eval(PRINTING)  # without quiet: all of it again
    assert loud.getvalue() == "one A:Q: one\ntwo B:Q: two"


def test_usage_of_a_resumed_run_counts_the_journaled_calls(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    first = journaled(journal)
    first.eval('(answer "one") (answer "two")')
    assert first.journal is not None
    first.journal.close()
    second = journaled(journal)
    second.eval('(answer "one") (answer "two")')
    figures = lambda usage: usage.total.model_dump(include={"calls", "attempts", "cached", "input_tokens", "output_tokens"})
    assert figures(second.usage) == figures(first.usage)  # the run's usage, as it was
    assert "2 model calls" in second.journal.savings()


def test_batch_keeps_one_journal_per_item(tmp_path: Path) -> None:
    folder = tmp_path / "journals"
    model = Counted("A")
    interp = journaled_batch(model)
    records = list(interp.batch("ask-twice", [{"q": "x"}, {"q": "y"}], journals=folder))
    assert sorted(r["status"] for r in records) == ["COMPLETE", "COMPLETE"]
    assert sorted(p.name for p in folder.iterdir()) == ["item-0.jsonl", "item-1.jsonl"]
    assert [e["request"]["prompt"] for e in lines(folder / "item-1.jsonl")] == ["Q: y", "Q: y again"]

    again = Counted("B")
    records = list(journaled_batch(again).batch("ask-twice", [{"q": "x"}, {"q": "y"}], journals=folder))
    assert sorted(r["result"] for r in records) == [["A:Q: x", "A:Q: x again"], ["A:Q: y", "A:Q: y again"]]
    assert again.prompts == []


def journaled_batch(model: Counted) -> Interpreter:
    interp = Interpreter()
    interp.models.register("counted", model)
    interp.eval(MODEL_PROGRAM + '(define (ask-twice q) (list (answer q) (answer (string-append q " again"))))')
    return interp


def test_an_isolated_interpreter_journals_in_its_child_process(tmp_path: Path) -> None:
    journal, program = tmp_path / "run.jsonl", "(list (random-integer 1000000) (current-second))"
    values = []
    for _ in range(2):
        interp = Interpreter(isolate=True, journal=journal)
        values.append(interp.eval(program))
        assert interp.isolation is not None
        interp.isolation.close()  # the child lets go of the journal
    assert values[0] == values[1]
    assert [e["kind"] for e in lines(journal)] == ["random", "clock"]


def test_batch_items_in_worker_processes_keep_their_journals(tmp_path: Path) -> None:
    runs, folder = tmp_path / "runs.txt", tmp_path / "journals"
    program = f"""(define (item q)
                    (get (run-script (list "sh" "-c" (string-append "echo " q " >> {runs}; echo " q))) 'stdout))"""
    for _ in range(2):
        interp = Interpreter(allow_scripts=True)
        interp.eval(program)
        records = list(interp.batch("item", [{"q": "x"}, {"q": "y"}], processes=True, workers=2, journals=folder))
        assert sorted(r["result"] for r in records) == ["x\n", "y\n"]
    assert sorted(runs.read_text().split()) == ["x", "y"]  # each script ran once, across both batches


def test_journaled_answers_skip_the_rate_limit(tmp_path: Path) -> None:
    """At 60 requests a minute, live calls go out a second apart. The resumed run's three
    journaled answers never take a turn: only its second live call waits (about 1 s), where
    taking turns for the replays too would have waited about 4 s."""
    journal = tmp_path / "run.jsonl"
    first_run(journal, '(answer "1") (answer "2") (answer "3")')
    live = Counted("B")
    second = journaled(journal, live, rate_limits={"counted": {"rpm": 60}})
    assert second.eval('(map answer (list "1" "2" "3" "4" "5"))') == [
        "A:Q: 1", "A:Q: 2", "A:Q: 3", "B:Q: 4", "B:Q: 5"
    ]
    assert live.prompts == ["Q: 4", "Q: 5"]
    waited = second.usage.by_model["counted"].rate_wait_s
    assert 0.5 < waited < 1.8, waited
