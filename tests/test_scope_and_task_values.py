"""Lexical scope in the composition forms, context as implicit data only, and tasks as values."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError

ROOT = Path(__file__).resolve().parent.parent

TOY = """
(define-model "toy" (lambda (prompt system) (string-append "draft: " prompt)))
(define-task (draft topic) (model "toy") (prompt "about {{topic}}"))
"""


@pytest.fixture
def interp() -> Interpreter:
    interp = Interpreter()
    interp.eval(TOY, filename="toy.scm")
    return interp


# -- 1. lexical scope holds in every phase ------------------------------------------------
def test_the_issue_example_sees_the_procedures_parameter(interp: Interpreter) -> None:
    interp.eval("(define (run topic) (director-evaluator-loop (director (draft topic)) (evaluator #t)))")
    r = interp.eval('(run "cats")')
    assert (r.status, r.final_output.content) == ("COMPLETE", "draft: about cats")


def test_every_loop_clause_sees_enclosing_locals(interp: Interpreter) -> None:
    interp.eval(
        """(define (refine goal limit wanted)
             (let ((suffix "!"))
               (director-evaluator-loop
                 (max-iterations limit)
                 (director (string-append goal suffix (number->string current-iteration)))
                 (evaluator (make-evaluation #f (string-append "not yet " goal)))
                 (termination-condition (= current-iteration wanted)))))"""
    )
    r = interp.eval('(refine "go" 5 2)')
    assert (r.status, r.stop_reason, r.iterations_completed) == ("COMPLETE", "termination-condition", 3)
    assert r.final_output.content == "go!2"
    assert r.final_evaluation.notes.feedback == "not yet go"


def test_the_script_command_sees_enclosing_locals() -> None:
    interp = Interpreter(allow_scripts=True)
    r = interp.eval(
        f"""(let ((checker (list "{sys.executable}" "-c" "import sys; print(sys.stdin.read().upper())")))
              (director-evaluator-loop (director "ok") (script-execution checker)
                                       (evaluator (string=? script-stdout "OK\\n"))))"""
    )
    assert (r.status, r.success) == ("COMPLETE", True)


def test_phases_can_assign_enclosing_locals() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (count-calls)
             (let ((calls 0))
               (director-evaluator-loop (max-iterations 3)
                 (director (set! calls (+ calls 1)) calls) (evaluator #f))
               calls))"""
    )
    assert interp.eval("(count-calls)") == 3


@pytest.mark.parametrize("inherit", ["full", "none", "subset"])
def test_sequential_steps_see_locals_under_any_context(inherit: str) -> None:
    interp = Interpreter()
    extra = " (fresh disabled)" if inherit == "full" else ""
    interp.eval(
        f"""(define (pipe text)
              (sequential (context (inherit {inherit}){extra})
                (step up (string-upcase text))
                (step both (string-append text "/" (car previous-outputs)))))"""
    )
    assert interp.eval('(get (pipe "ab") \'content)') == 'ab/"AB"'


def test_with_evaluation_sees_locals(interp: Interpreter) -> None:
    interp.eval("(define (ask topic) (with-evaluation (draft topic)))")
    assert interp.eval('(get (ask "owls") \'content)') == "draft: about owls"


def test_quality_gate_with_closures_over_locals() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (gate topic)
             (quality-gate (lambda (feedback) (string-append topic ":" feedback))
                           (lambda (text) (if (string=? text (string-append topic ":"))
                                              '((completeness . 10) (correctness . 10) (clarity . 10) (actionability . 10))
                                              '((completeness . 25) (correctness . 25) (clarity . 25) (actionability . 25))))))"""
    )
    r = interp.eval('(gate "spec")')
    assert (r.status, r.iterations_completed) == ("COMPLETE", 2)
    assert r.final_output.content.startswith("spec:completeness 10/25")


# -- context governs implicit data only ---------------------------------------------------
CALLED = """
(define-task (peek) secret)
(define (none-loop secret) (director-evaluator-loop (director (peek)) (evaluator #t)))
(define (full-loop secret)
  (director-evaluator-loop (context (inherit full) (fresh disabled)) (director (peek)) (evaluator #t)))
(define (subset-loop secret other)
  (director-evaluator-loop (context (inherit subset) (subset secret)) (director (peek)) (evaluator #t)))
(define-task (peek-other) other)
(define (subset-other secret other)
  (director-evaluator-loop (context (inherit subset) (subset secret)) (director (peek-other)) (evaluator #t)))
(define (none-pipe secret) (sequential (context (inherit none)) (step a (peek))))
"""


def test_a_called_task_sees_the_callers_frame_only_as_the_context_allows() -> None:
    interp = Interpreter()
    interp.eval(CALLED, filename="called.scm")
    none = interp.eval('(none-loop "s")')
    assert none.status == "FAILED" and none.error.phase == "director"
    assert "unbound variable: secret" in none.error.message
    assert "does not pass it on" in none.error.message and "(subset secret)" in none.error.message
    assert none.error.location.startswith("called.scm:2:")
    assert interp.eval('(full-loop "s")').final_output.content == "s"
    assert interp.eval('(subset-loop "s" "o")').final_output.content == "s"
    other = interp.eval('(subset-other "s" "o")')
    assert other.status == "FAILED" and "unbound variable: other" in other.error.message
    piped = interp.eval('(none-pipe "s")')
    assert piped.status == "FAILED" and "does not pass it on" in piped.notes["error"]["message"]


def test_subset_passes_the_value_when_the_form_starts() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-task (peek) secret)
           (define (run secret)
             (director-evaluator-loop (context (inherit subset) (subset secret)) (max-iterations 2)
               (director (set! secret "changed") (peek)) (evaluator #f)))"""
    )
    r = interp.eval('(run "first")')
    assert [e.output.content for e in r.iteration_history] == ["first", "first"]


# -- 2. tasks are values -------------------------------------------------------------------
def test_a_task_name_evaluates_to_the_task(interp: Interpreter) -> None:
    results = interp.eval('(map draft \'("a" "b"))')
    assert [r.content for r in results] == ["draft: about a", "draft: about b"]
    assert interp.eval("(procedure? draft)") is True
    assert interp.eval_scheme("(call-with-output-string (lambda (p) (write draft p)))") == "#<task draft>"
    assert interp.eval("(eq? draft (task-ref 'draft))") is True
    assert interp.eval('(eq? draft (task-ref "draft"))') is True


def test_task_values_inside_task_bodies_and_phases(interp: Interpreter) -> None:
    interp.eval(
        """(define-task (draft-all topics) (map (lambda (t) (get (draft t) 'content)) topics))
           (define-task (apply-each topics) (map draft topics))
           (define (looped) (director-evaluator-loop (director (car (map draft '("x")))) (evaluator #t)))"""
    )
    assert interp.eval('(draft-all \'("p"))') == ["draft: about p"]
    assert [r.content for r in interp.eval('(apply-each \'("q"))')] == ["draft: about q"]
    assert interp.eval("(looped)").final_output.content == "draft: about x"


def test_quality_gate_takes_tasks() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-model "writer" (lambda (prompt system) (string-append "spec " prompt)))
           (define-model "scorer" (lambda (prompt system)
             "{\\"completeness\\": 20, \\"correctness\\": 20, \\"clarity\\": 20, \\"actionability\\": 20}"))
           (define-task (write-spec feedback) (model "writer") (prompt "v1 {{feedback}}"))
           (define-task (score-spec text) (model "scorer") (prompt "{{text}}"))"""
    )
    r = interp.eval("(quality-gate write-spec score-spec)")
    assert (r.status, r.final_output.content) == ("COMPLETE", "spec v1 ")


def test_forward_references_and_later_definitions(interp: Interpreter) -> None:
    interp.eval("(define (use-later xs) (map later xs))")
    with pytest.raises(SchemeError, match="unbound variable: later"):
        interp.eval("(use-later '(1))")
    interp.eval("(define-task (later n) (* n 10))")
    assert interp.eval("(use-later '(1 2))") == [10, 20]
    interp.eval("(define-task (later n) (* n 100))")  # redefinition updates every reference
    assert interp.eval("(use-later '(1))") == [100]


def test_a_variable_shadows_a_task_of_the_same_name(interp: Interpreter) -> None:
    interp.eval("(define draft 5)")
    assert interp.eval("draft") == 5
    assert interp.eval("(let ((draft 6)) draft)") == 6
    assert interp.eval("(get ((task-ref 'draft) \"z\") 'content)") == "draft: about z"


def test_an_unknown_name_close_to_a_task_suggests_it(interp: Interpreter) -> None:
    with pytest.raises(SchemeError) as info:
        interp.eval("(map drafts '(1))", filename="typo.scm")
    assert "did you mean the task draft" in info.value.message
    assert str(info.value.span).startswith("typo.scm:1:")


def test_a_program_file_may_name_a_task_before_defining_it(tmp_path: Path) -> None:
    program = tmp_path / "forward.scm"
    program.write_text(
        """(define (shout-all xs) (map shout xs))
(define-task (shout s) (string-upcase s))
(for-each (lambda (s) (display s) (newline)) (shout-all '("a" "b")))
(display shout)
"""
    )
    done = run_cli([str(program)])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "A\nB\n#<task shout>"


def test_a_subset_task_called_past_a_boundary_explains_the_missing_name() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-task (pick) (context (inherit subset) (subset secret)) secret)
           (define (run secret) (director-evaluator-loop (director (pick)) (evaluator #t)))"""
    )
    r = interp.eval('(run "s")')
    assert "secret, listed in (subset …), is not bound" in r.error.message
    assert "does not pass it on" in r.error.message


def test_tasks_and_locals_in_parallel_map(interp: Interpreter) -> None:
    interp.eval(
        "(define (drafts suffix topics) (parallel-map (lambda (t) (string-append (get (draft t) 'content) suffix)) topics))"
    )
    assert interp.eval('(drafts "!" \'("a" "b"))') == ["draft: about a!", "draft: about b!"]
    assert [r.content for r in interp.eval('(parallel-map draft \'("c"))')] == ["draft: about c"]
