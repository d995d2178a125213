"""The seeds as written (issue 32): their verbatim XML blocks, described inputs, the script step
without a command, the evaluator that sees the script, gates that stop pipelines, causes that
survive, ``output`` in ``<cond>``, duplicate definitions, warning thresholds, did-you-mean."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.repl.describe import describe_task
from interpreter.repl.session import ReplSession
from interpreter.tasks.errors import TaskError

SEEDS = Path(__file__).parent / "data" / "seeds"
PY = sys.executable

# -- the verbatim blocks -------------------------------------------------------------------
#: Each block of the seeds that is a whole template loads; the others are refused saying why.
LOADS = {
    "000_loop.xml": ["000-loop/director", "000-loop/evaluator", "000-loop"],
    "001_loop.xml": ["001-loop/director", "001-loop/evaluator", "001-loop"],
    "004_example_template.xml": ["004-example-template"],
    "004_protocols_static_pipeline.xml": [f"004-protocols-static-pipeline{s}" for s in ("/1", "/2", "/3", "")],
    "004_pattern_static_pipeline.xml": [f"004-pattern-static-pipeline{s}" for s in ("/1", "/2", "/3", "")],
}
REFUSED = {
    "000_migration_context.xml": "a file holds one root element",
    "001_loop_context_override.xml": "needs a <director> (the block elides parts",
    "001_script_execution.xml": "a <script_execution> is a fragment",
    "002_output_slot_tasks.xml": "a file holds one root element",
    "004_cond.xml": "a <cond> is a fragment",
    "004_desc_context_management.xml": "a <context_management> is a fragment",
    "004_desc_input_binding.xml": "an <input> is a fragment",
    "004_desc_output_slot_tasks.xml": "a file holds one root element",
    "004_template_schema.xml": "the XML Schema that templates follow, not a template",
}


def seeded(**settings: object) -> Interpreter:
    interp = Interpreter(allow_files=True, allow_scripts=True, model="toy", **settings)  # type: ignore[arg-type]
    interp.eval(
        """(define prompts '())
           (define-model "toy" (lambda (prompt system) (set! prompts (cons prompt prompts)) (string-append "[" prompt "]")))
           (define-model "claude-3-sonnet" (lambda (prompt system) (string-append system " | " prompt)))"""
    )
    return interp


def test_every_seed_block_is_accounted_for() -> None:
    assert {p.name for p in SEEDS.glob("0*.xml")} == set(LOADS) | set(REFUSED)


@pytest.mark.parametrize("name", sorted(LOADS))
def test_the_whole_templates_of_the_seeds_load(name: str) -> None:
    interp = seeded()
    names = interp.eval(f'(load-task-templates "{SEEDS / name}")')
    assert [str(n) for n in names] == LOADS[name]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_fragments_of_the_seeds_are_refused_saying_why(name: str) -> None:
    with pytest.raises(TaskError) as info:
        seeded().eval(f'(load-task-templates "{SEEDS / name}")')
    assert REFUSED[name] in info.value.message
    assert info.value.span is not None and info.value.span.file == str(SEEDS / name)


# -- 1. described inputs -----------------------------------------------------------------
def test_a_described_input_loads_and_its_text_describes_it() -> None:
    interp = seeded()
    interp.eval(f'(load-task-templates "{SEEDS / "004_example_template.xml"}")')
    (param,) = interp.tasks.describe("004-example-template").params
    assert (param.name, param.description) == ("code", "The code to analyze")
    assert "inputs:\n  code: The code to analyze" in describe_task(interp, "004-example-template")
    with pytest.raises(SchemeError, match=r"missing required argument code \(The code to analyze\)"):
        interp.eval("(004-example-template)")


def test_the_example_template_sends_its_code_to_the_model() -> None:
    interp = seeded()
    interp.eval(f'(load-task-templates "{SEEDS / "004_example_template.xml"}")')
    r = interp.eval('(004-example-template "def f(): return 1")')
    assert r.content == (
        "You are a code quality expert focused on readability. | Analyze the given code for readability issues."
        "\n\ncode (The code to analyze):\ndef f(): return 1"
    )


def test_described_from_and_task_inputs_side_by_side(tmp_path: Path) -> None:
    interp = seeded()
    path = tmp_path / "mixed.xml"
    path.write_text(
        """<task type="sequential">
  <inputs><input name="topic">What to write about</input></inputs>
  <steps>
    <task name="draft"><instructions>Write about {{t}}</instructions>
      <inputs><input name="t" from="topic">The topic</input></inputs></task>
    <task name="check"><instructions>Check</instructions>
      <inputs><input name="text"><task><description>The draft</description></task></input></inputs></task>
  </steps>
</task>"""
    )
    interp.eval(f'(load-task-templates "{path}")')
    assert interp.tasks.describe("mixed").params[0].description == "What to write about"
    assert interp.eval('(mixed "owls")').content == "[Check\n\ntext:\n[Write about owls]]"


# -- 2. the script step without <command> ----------------------------------------------------
CHECKER = "import sys\ntext = sys.stdin.read()\nprint('length', len(text))\nprint('checked', file=sys.stderr)\n"


@pytest.fixture
def checker(tmp_path: Path) -> str:
    path = tmp_path / "check.py"
    path.write_text(CHECKER)
    return f"{PY} {path}"


@pytest.mark.parametrize("seed", ["004_protocols_static_pipeline.xml", "004_pattern_static_pipeline.xml"])
def test_without_a_command_the_step_fails_with_a_located_error(seed: str) -> None:
    interp = seeded()
    interp.eval(f'(load-task-templates "{SEEDS / seed}")')
    r = interp.eval(f"({seed.removesuffix('.xml').replace('_', '-')})")
    assert (r.status, r.notes["failed_step"]) == ("FAILED", "2")
    assert "has no command" in r.notes["error"]["message"]
    assert "#:script" in r.notes["error"]["message"]
    assert r.notes["error"]["location"].startswith(f"{SEEDS / seed}:")


def test_the_loaders_script_setting_gives_the_command(checker: str) -> None:
    interp = seeded()
    interp.eval(f'(load-task-templates "{SEEDS / "004_protocols_static_pipeline.xml"}" #:script "{checker}")')
    r = interp.eval("(004-protocols-static-pipeline)")
    assert r.status == "COMPLETE", r.notes.get("error")
    # the director's output "[Generate Initial Output]" (25 characters) went to the script's stdin
    assert r.content == "[Evaluate Script Output\n\nscript_output:\nlength 25\n]"
    step = r.notes["steps"][1].output
    assert (step.content, step.stdout, step.stderr, step.exit_code) == ("length 25\n", "length 25\n", "checked\n", 0)


def test_the_interpreters_target_script_gives_the_command(checker: str) -> None:
    interp = seeded(target_script=checker)
    interp.eval(f'(load-task-templates "{SEEDS / "004_pattern_static_pipeline.xml"}")')
    assert interp.eval("(004-pattern-static-pipeline)").status == "COMPLETE"


def test_a_command_argument_comes_first(checker: str, tmp_path: Path) -> None:
    other = tmp_path / "other.py"
    other.write_text("import sys\nprint('other'); sys.exit(4)\n")
    interp = seeded(target_script=checker)
    interp.eval(f'(load-task-templates "{SEEDS / "004_pattern_static_pipeline.xml"}")')
    step = "004-pattern-static-pipeline/2"
    r = interp.eval(f'({step} "abc" #:command (list "{PY}" "{other}"))')
    assert (r.status, r.content, r.exit_code) == ("FAILED", "other\n", 4)
    assert interp.eval(f"(get ({step} \"abcd\") 'stdout)") == "length 4\n"
    assert interp.eval(f"(get ({step} \"abcd\") 'exit-code)") == 0


# -- 3. the evaluator sees the script --------------------------------------------------------
#: The director drafts "draft", then "poem"; the script passes only a poem; the evaluator
#: (a model) passes only when its prompt shows that the script passed.
JUDGED = """(define-model "toy"
  (let ((n 0))
    (lambda (prompt system)
      (set! prompts (cons prompt prompts))
      (if (string-prefix? "Evaluate" prompt)
          (if (string-contains prompt "script_stdout:\\nPASS")
              "{\\"success\\": true, \\"feedback\\": \\"ok\\"}"
              "{\\"success\\": false, \\"feedback\\": \\"the script failed\\"}")
          (begin (set! n (+ n 1)) (if (= n 1) "draft" "poem"))))))"""
SCRIPT = "import sys\nok = 'poem' in sys.stdin.read()\nprint('PASS' if ok else 'FAIL')\nsys.exit(0 if ok else 1)\n"


def test_the_seed_loop_stops_once_the_evaluator_sees_the_script_pass(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    interp = seeded()
    interp.eval(JUDGED)
    interp.eval(f'(load-task-templates "{SEEDS / "000_loop.xml"}")')
    r = interp.eval(f'(000-loop "a verse" "{PY} {script}")')
    assert (r.status, r.iterations_completed, r.stop_reason) == ("COMPLETE", 2, "evaluator-success")
    first_evaluation = next(str(p) for p in interp.eval("(reverse prompts)") if str(p).startswith("Evaluate"))
    assert "Script result (script_exit_code: 1):\nscript_stdout:\nFAIL\n" in first_evaluation


def test_a_template_that_places_the_script_output_gets_no_second_copy(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    interp = seeded()
    interp.eval(JUDGED)
    interp.eval(
        f"""(define-task (judge text script-stdout) (subtype "evaluator")
              (prompt "Evaluate {{{{text}}}}: {{{{script_stdout}}}}"))
            (director-evaluator-loop (max-iterations 2)
              (director "poem")
              (script-execution (list "{PY}" "{script}"))
              (evaluator (judge solution script-stdout)))"""
    )
    prompt = str(interp.eval("(car prompts)"))
    assert prompt == "Evaluate poem: PASS\n"


def test_an_evaluator_outside_a_loop_sees_no_script_section() -> None:
    interp = seeded()
    interp.eval('(define-task (judge text) (subtype "evaluator") (prompt "Evaluate {{text}}"))')
    interp.eval('(guard (e (#t #f)) (judge "x"))')
    assert str(interp.eval("(car prompts)")) == "Evaluate x"


# -- 4. an escalated quality gate stops the pipeline --------------------------------------------
GATED = """(sequential {context}
  (step draft "a draft")
  (step review (quality-gate (lambda (feedback) "weak")
                             (lambda (d) '((completeness . 5) (correctness . 5) (clarity . 5) (actionability . 5)))
                             #:max-iterations 2))
  (step publish (set! published #t) "published"))"""


def test_an_escalated_gate_fails_the_pipeline_and_nothing_is_published() -> None:
    interp = Interpreter()
    interp.eval("(define published #f)")
    r = interp.eval(GATED.format(context=""))
    assert (r.status, r.notes["reason"], r.notes["failed_step"]) == ("FAILED", "escalated", "review")
    assert r.notes["error"]["reason"] == "escalated" and r.notes["error"]["iteration"] == 1
    assert r.notes["gate"].status == "ESCALATE" and r.notes["gate"].iterations_completed == 2
    assert interp.eval("published") is False
    with pytest.raises(TaskError) as info:
        interp.eval(GATED.format(context="").replace("(sequential", "(sequential/strict"))
    assert info.value.record.reason == "escalated"


# -- 5. causes survive ---------------------------------------------------------------------------
def test_a_failed_loop_in_a_step_keeps_its_cause_nested() -> None:
    r = Interpreter().eval(
        """(sequential (step outer
             (sequential (step a 1)
                         (step inner (director-evaluator-loop (director "x") (evaluator (error "bad value:" 42)))))))""",
        filename="p.scm",
    )
    error = r.notes["error"]
    assert (error["type"], error["message"], error["step"]) == ("error", "bad value: 42", "outer")
    inner = error["cause"]
    assert (inner["step"], inner["iteration"], inner["phase"]) == ("inner", 0, "evaluator")
    assert inner["cause"]["location"].startswith("p.scm:3:")
    assert "#<loop-result" not in r.content and r.content == "step outer failed: error: bad value: 42"


def test_condition_report_string_includes_the_irritants() -> None:
    interp = Interpreter()
    assert interp.eval('(guard (e (#t (condition/report-string e))) (error "bad value:" 42))') == "bad value: 42"
    assert interp.eval('(guard (e (#t (error-object-message e))) (error "bad value:" 42))') == "bad value:"


# -- 6. <cond> reads the previous step's output --------------------------------------------------
COND = """<task type="sequential">
  <steps>
    <task name="check"><instructions>Validate</instructions></task>
    <cond>
      <case test="output.valid == true"><task><description>Handle success</description></task></case>
      <case test="output.errors > 0"><task><description>Handle errors</description></task></case>
      <case test="else"><task><description>Handle the rest</description></task></case>
    </cond>
  </steps>
</task>"""


@pytest.mark.parametrize(
    "answer, handled",
    [
        ('{"valid": true, "errors": 0}', "success"),
        ('Here it is:\n```json\n{"valid": false, "errors": 2}\n```', "errors"),
        ("no JSON at all", "the rest"),
    ],
)
def test_case_tests_read_the_previous_steps_json_content(tmp_path: Path, answer: str, handled: str) -> None:
    interp = Interpreter(allow_files=True, model="m")
    interp.define("answer", answer)
    interp.eval('(define-model "m" (lambda (p s) (if (string=? p "Validate") answer (string-append "did: " p))))')
    path = tmp_path / "validated.xml"
    path.write_text(COND)
    interp.eval(f'(load-task-templates "{path}")')
    assert interp.eval("(validated)").content == f"did: Handle {handled}"


def test_result_field_reads_notes_and_is_false_when_missing() -> None:
    interp = Interpreter()
    assert interp.eval("(result-field (make-task-result \"text\" \"COMPLETE\" '((valid . #t))) 'valid)") is True
    assert interp.eval("(result-field (make-task-result \"{\\\"a\\\": {\\\"b\\\": 2}}\") 'a 'b)") == 2
    assert interp.eval("(result-field \"plain\" 'a)") is False
    assert interp.eval("(result-field 42 'a 'b)") is False


# -- 7. duplicate registration --------------------------------------------------------------------
def test_a_file_that_defines_a_task_twice_is_refused_naming_both_places(tmp_path: Path) -> None:
    path = tmp_path / "twice.scm"
    path.write_text('(define-task (dup) "one")\n(display "ran")\n(define-task (dup) "two")\n')
    out = io.StringIO()
    interp = Interpreter(stdout=out)
    with pytest.raises(TaskError) as info:
        interp.eval_file(path)
    assert info.value.error_type == "VALIDATION_ERROR"
    assert f"task dup is already defined at {path}:1:1" in info.value.message
    assert f"second definition at {path}:3:1" in info.value.message
    assert interp.eval("(dup)") == "one"
    with pytest.raises(TaskError):  # loaded again, its second definition is still a second one
        interp.eval_file(path)


def test_a_file_loaded_again_and_procedures_may_define_again(tmp_path: Path) -> None:
    path = tmp_path / "once.scm"
    path.write_text('(define-task (once) "one")\n(define (make) (define-task (inner) "x"))\n(make)\n(make)\n')
    interp = Interpreter()
    interp.eval_file(path)
    interp.eval_file(path)  # the same definition, at the same place: not a second one
    assert interp.eval("(once)") == "one"


def test_the_repl_replaces_with_a_note() -> None:
    err = io.StringIO()
    session = ReplSession(lambda: Interpreter(stdout=io.StringIO()), err=err)
    session.submit('(define-task (dup) "one")')
    session.submit('(define-task (dup) "two")')
    assert session.interp.eval("(dup)") == "two"
    assert "note: task dup redefined (it was defined at <repl-1>:1:1)" in err.getvalue()


def test_loading_templates_over_a_defined_task_needs_replace(tmp_path: Path) -> None:
    interp = seeded()
    interp.eval('(define-task (004-example-template code) "mine")', filename="mine.scm")
    load = f'(load-task-templates "{SEEDS / "004_example_template.xml"}"'
    with pytest.raises(TaskError) as info:
        interp.eval(load + ")")
    assert "task 004-example-template is already defined at mine.scm:1:1" in info.value.message
    assert "#:replace #t" in info.value.message
    assert interp.eval('(004-example-template "x")') == "mine"
    interp.eval(load + " #:replace #t)")
    interp.eval(load + ")")  # the same templates again: nothing is defined twice
    assert interp.eval('(get (004-example-template "x") \'content)').startswith("You are a code quality expert")


# -- 8. warning thresholds and usage notes ------------------------------------------------------
def test_crossing_the_warning_threshold_warns_once_per_resource() -> None:
    err = io.StringIO()
    interp = Interpreter(model="m", stderr=err)
    events: list[object] = []
    interp.on_event(lambda e: events.append((e.name, e.info["resource"])) if e.kind == "warning" else None)
    interp.eval(
        """(define-model "m" (lambda (p s) "ok"))
           (define-task (ask q) (prompt "{{q}}"))
           (define-task (many) (context (warning-threshold 0.8)) (max-turns 5) (max-context 100)
             (ask "a") (ask "b") (ask "c") (ask "d") (ask (make-string 340 #\\x)))
           (many)"""
    )
    assert err.getvalue().splitlines() == [
        "warning: task many reached 4 of its max-turns of 5 (80%; its warning threshold is 80%)",
        "warning: task many reached 85 of its max-context of 100 (85%; its warning threshold is 80%)",
    ]
    assert events == [("many", "turns"), ("many", "context")]


def test_a_slow_call_warns_near_its_timeout() -> None:
    err = io.StringIO()
    interp = Interpreter(model="slow", stderr=err)
    interp.models.register("slow", lambda prompt, system: time.sleep(0.3) or "late")
    interp.eval('(define-task (wait) (context (warning-threshold 0.05)) (timeout 5) (prompt "x"))')
    assert interp.eval("(get (wait) 'content)") == "late"
    assert "warning: task wait reached" in err.getvalue() and "of its timeout of 5" in err.getvalue()


def test_no_threshold_no_warning_and_forms_refuse_one() -> None:
    err = io.StringIO()
    interp = Interpreter(model="m", stderr=err)
    interp.eval('(define-model "m" (lambda (p s) "ok")) (define-task (t) (max-turns 1) (prompt "x")) (t)')
    assert err.getvalue() == ""
    with pytest.raises(SchemeError, match="belongs in a define-task"):
        interp.eval("(sequential (context (warning-threshold 0.5)) 1)")


def test_usage_notes_give_peak_context_tokens_and_last_turn_at() -> None:
    interp = Interpreter(model="m")
    interp.eval('(define-model "m" (lambda (p s) "ok")) (define-task (ask q) (prompt "{{q}}"))')
    before = time.time()
    interp.eval('(ask "a")')
    r = interp.eval(f'(ask "{"y" * 40}")')
    assert interp.eval("(lambda (r) (get r 'notes 'usage 'peak-context-tokens))")(r) == 10
    assert before <= r.notes["usage"]["last_turn_at"] <= time.time()
    total = interp.tasks.usage.total
    assert (total.peak_context_tokens, total.calls) == (10, 2) and total.last_turn_at >= before


# -- 9. did-you-mean and define-model bodies ----------------------------------------------------
def test_did_you_mean_lists_each_name_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path))
    interp = Interpreter(model="echo", allow_models=True)
    interp.eval('(define-model "echo" (lambda (p s) p)) (define-model "echo" (lambda (p s) p))')
    with pytest.raises(TaskError) as info:
        interp.eval('(define-task (t) (model "ech") (prompt "x")) (t)')
    hint = info.value.message.split("did you mean: ")[1].split("?")[0]
    names = hint.split(", ")
    assert "echo" in names and len(names) == len(set(names))


def test_an_unbound_name_in_a_model_body_is_reported_before_the_run(tmp_path: Path) -> None:
    path = tmp_path / "m.scm"
    path.write_text('(define-model (m p s) (strng-append p s))\n(display "ran")\n')
    out = io.StringIO()
    with pytest.raises(SchemeError, match="unbound variable: strng-append; did you mean 'string-append") as info:
        Interpreter(stdout=out).eval_file(path)
    assert str(info.value.span) == f"{path}:1:23"
    assert out.getvalue() == ""
    with pytest.raises(SchemeError, match="unbound variable: lambd"):
        Interpreter().eval('(define-model "k" (lambd (p s) p))')


def test_a_command_argument_replaces_the_templates_command(tmp_path: Path) -> None:
    path = tmp_path / "run.xml"
    path.write_text(f'<task type="script"><command>{PY} -c "print(1)"</command></task>')
    interp = seeded()
    interp.eval(f'(load-task-templates "{path}")')
    assert interp.eval("(get (run) 'stdout)") == "1\n"
    assert interp.eval(f"(get (run #:command (list \"{PY}\" \"-c\" \"print(2)\")) 'stdout)") == "2\n"


def test_branches_of_a_parallel_map_warn_once_for_the_task_they_share() -> None:
    err = io.StringIO()
    interp = Interpreter(model="m", stderr=err)
    interp.eval(
        """(define-model "m" (lambda (p s) "ok"))
           (define-task (ask q) (prompt "{{q}}"))
           (define-task (fan) (context (warning-threshold 0.5)) (max-turns 8)
             (parallel-map (lambda (q) (get (ask q) 'content)) '("a" "b" "c" "d" "e" "f")))
           (fan)"""
    )
    assert err.getvalue().count("warning: task fan reached") == 1
    assert "of its max-turns of 8" in err.getvalue()
