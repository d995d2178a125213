"""define-task: clauses, task calls (FunctionCall), arguments, context management, the library."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string
from interpreter.tasks.errors import TaskError
from interpreter.tasks.records import TaskDefinition, TaskParam

ECHO_MODEL = '(define-model "mirror" (lambda (prompt system) (string-append "<" system "|" prompt ">")))'


@pytest.fixture
def interp() -> Interpreter:
    interp = Interpreter(allow_scripts=True)
    interp.eval(ECHO_MODEL)
    return interp


@pytest.fixture
def ev(interp):
    return lambda source: interp.eval_scheme(source, filename="t.scm")


SUMMARIZE = """
(define-task (summarize text (style "brief"))
  (description "Summarize a text")
  (system "You are a concise editor.")
  (model "mirror")
  (prompt "Summarize in a {{style}} style:\\n{{text}}"))
"""


# -- atomic tasks and their clauses ------------------------------------------------
def test_atomic_task_renders_prompt_and_system(ev):
    ev(SUMMARIZE)
    assert ev('(get (summarize "doc") \'content)') == "<You are a concise editor.|Summarize in a brief style:\ndoc>"
    result = ev('(summarize "doc" "bullet")')
    assert result.content.endswith("bullet style:\ndoc>")
    assert result.status == "COMPLETE"
    assert result.notes["model"] == "mirror"
    assert set(result.notes["usage"]) == {"input_tokens", "output_tokens", "peak_context_tokens", "last_turn_at"}
    assert result.notes["duration_s"] >= 0


def test_keyword_and_optional_arguments(ev):
    ev(SUMMARIZE)
    assert "in a bullet points style" in ev('(get (summarize "doc" #:style "bullet points") \'content)')
    assert "in a x style:\nd>" in ev('(get (summarize #:style "x" #:text "d") \'content)')


def test_template_values_use_display_form(ev):
    ev('(define-task (show x) (model "mirror") (prompt "[{{x}}] [{{ x }}]"))')
    assert ev("(get (show '(a \"b\" 3)) 'content)") == "<|[(a b 3)] [(a b 3)]>"


def test_missing_required_argument_names_task(ev):
    ev(SUMMARIZE)
    with pytest.raises(SchemeError) as info:
        ev("(summarize)")
    assert info.value.message == "task summarize: missing required argument text"
    assert info.value.kind == "arity-error"


def test_unknown_keyword_names_task_and_parameters(ev):
    ev(SUMMARIZE)
    with pytest.raises(
        SchemeError, match=r"task summarize: unknown keyword argument #:tone \(parameters: text, style\)"
    ):
        ev('(summarize "a" #:tone "x")')


def test_too_many_and_repeated_arguments(ev):
    ev(SUMMARIZE)
    with pytest.raises(SchemeError, match="task summarize: expected at most 2 arguments, given 3"):
        ev('(summarize "a" "b" "c")')
    with pytest.raises(SchemeError, match="task summarize: argument text given twice"):
        ev('(summarize "a" #:text "b")')
    with pytest.raises(SchemeError, match="keyword #:style has no value"):
        ev('(summarize "a" #:style)')


def test_undefined_placeholder_is_validation_error_at_definition(ev):
    with pytest.raises(TaskError) as info:
        ev('(define-task (t text) (prompt "{{text}} in {{tone}}"))')
    assert info.value.error_type == "VALIDATION_ERROR"
    assert "{{tone}} in the prompt of task t is not a parameter (parameters: text)" in info.value.message
    assert str(info.value.span) == "t.scm:1:1"
    with pytest.raises(TaskError, match=r"\{\{who\}\} in the system of task t"):
        ev('(define-task (t text) (system "{{who}}") (prompt "{{text}}"))')
    with pytest.raises(TaskError, match=r"\{\{nope\}\} in the script of task t"):
        ev('(define-task (t path) (script "wc {{nope}}"))')
    with pytest.raises(TaskError, match=r"\{\{zz\}\} in the script input of task t"):
        ev('(define-task (t path) (script "cat" (input "{{zz}}")))')
    assert "t" not in ev("(map symbol->string (task-names))")


def test_validation_errors_are_catchable(ev):
    got = ev(
        "(guard (e ((task-error? e) (get (task-error-details e) 'path)))"
        '  (define-task (t x) (context (fresh enabled)) (prompt "{{x}}")))'
    )
    assert got == "context_management"


def test_description_criteria_subtype_model_clauses(ev):
    ev(
        '(define-task (review code) (description "Review code") (subtype "evaluator")'
        ' (criteria "code review, style") (model mirror) (max-turns 3) (max-context 1000) (timeout 5)'
        ' (prompt "Review {{code}}"))'
    )
    d = ev("(describe-task 'review)")
    assert isinstance(d, TaskDefinition)
    assert (d.type, d.subtype, d.criteria, d.model, d.description) == (
        "atomic",
        "evaluator",
        "code review, style",
        "mirror",
        "Review code",
    )
    assert (d.limits.max_turns, d.limits.max_context, d.limits.timeout) == (3, 1000, 5)
    assert ev("(get (describe-task 'review) 'limits 'max-turns)") == 3


def test_bad_limit_value_is_validation_error(ev):
    with pytest.raises(TaskError, match="define-task t: limits: max_turns: Input should be greater than or equal to 0"):
        ev('(define-task (t) (max-turns -1) (prompt "x"))')


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('(define-task t (prompt "x"))', "define-task: expected (define-task (name param ...)"),
        ('(define-task (t) (prompt "x") (script "y"))', "a task has a (prompt …) or a (script …), not both"),
        ('(define-task (t) (prompt "x") (+ 1 2))', "a task with a (prompt …) has no other body"),
        ('(define-task (t) (description "d"))', "needs a (prompt …), a (script …) or a body"),
        ('(define-task (t) (prompt "x") (prompt "y"))', "duplicate (prompt …) clause"),
        ("(define-task (t) (prompt 42))", "(prompt …) takes a string, got 42"),
        ('(define-task (t (a)) (prompt "x"))', "a parameter is a name or (name default)"),
        ("(define-task (t a a) a)", "duplicate parameter name"),
        ("(define-task (t) (context (colour red)) 1)", "unknown context setting colour"),
        ('(define-task (t) (script "ls" (retries 3)))', "unknown script option (retries 3)"),
        ("(define-task (t . rest) 1)", "rest parameters are not supported"),
    ],
)
def test_define_task_syntax_errors(ev, source, message):
    with pytest.raises(SchemeError) as info:
        ev(source)
    assert message in info.value.message


def test_required_after_optional_is_validation_error(ev):
    with pytest.raises(TaskError, match="required parameter b follows an optional one"):
        ev('(define-task (t (a 1) b) (prompt "x"))')


# -- procedure tasks ---------------------------------------------------------------
def test_procedure_task_returns_its_value(ev):
    ev('(define-task (outline topic) (string-append "# " topic))')
    assert ev('(outline "Tasks")') == "# Tasks"
    assert ev("(get (describe-task 'outline) 'type)") == "procedure"
    assert ev("(get (describe-task 'outline) 'body)") == '(string-append "# " topic)'


def test_procedure_task_with_clauses_and_default(ev):
    ev('(define-task (greet name (greeting "hello")) (description "Greets") (string-append greeting ", " name))')
    assert ev('(greet "ann")') == "hello, ann"
    assert ev('(greet "ann" #:greeting "hi")') == "hi, ann"
    assert ev("(get (describe-task 'greet) 'description)") == "Greets"


def test_default_is_evaluated_when_the_task_is_defined(ev):
    ev("(define n 1) (define-task (f (x (* n 10))) x) (set! n 2)")
    assert ev("(f)") == 10


def test_procedure_tasks_recurse_in_tail_position_without_limit(ev):
    # Under `none` a tail-recursive task runs in constant space; under the default `full`
    # each call's frame is a child of its caller's, so depth costs memory (see README).
    ev("(define-task (count-down n) (context (inherit none)) (if (= n 0) 'done (count-down (- n 1))))")
    assert ev("(count-down 100000)").name == "done"
    ev("(define-task (count-full n) (if (= n 0) 'done (count-full (- n 1))))")
    assert ev("(count-full 2000)").name == "done"


def test_procedure_task_calls_atomic_task(ev):
    ev(SUMMARIZE)
    ev(
        "(define-task (twice text)"
        "  (list (get (summarize text) 'content) (get (summarize text #:style \"long\") 'content)))"
    )
    items = list(ev('(twice "t")'))
    assert "brief" in items[0] and "long" in items[1]


# -- scoping and context management ------------------------------------------------
def test_local_variable_is_never_shadowed_by_a_task(ev):
    ev('(define-task (helper x) (string-append "task " x))')
    assert ev('(let ((helper (lambda (x) (string-append "local " x)))) (helper "a"))') == "local a"
    ev('(define (helper x) (string-append "global " x))')
    assert ev('(helper "a")') == "global a"


def test_task_body_cannot_see_callers_locals_under_none(ev):
    ev("(define-task (peek) (context (inherit none)) secret)")
    with pytest.raises(SchemeError, match="unbound variable: secret"):
        ev("(let ((secret 1)) (peek))")
    ev("(define secret 'global)")
    assert ev("(let ((secret 1)) (peek))").name == "global"


def test_inherit_full_sees_the_callers_frame(ev):
    ev("(define-task (full-view) y)")
    ev("(define-task (none-view) (context (inherit none)) y)")
    ev("(define-task (subset-view) (context (inherit subset) (subset y)) (list y))")
    assert ev("(let ((y 42)) (full-view))") == 42
    assert write_string(ev("(let ((y 42)) (subset-view))")) == "(42)"
    with pytest.raises(SchemeError, match="unbound variable: y"):
        ev("(let ((y 42)) (none-view))")


def test_subset_copies_only_listed_names(ev):
    ev("(define a 1) (define b 2)")
    ev("(define-task (pick) (context (inherit subset) (subset a)) (list a b))")
    assert write_string(ev("(pick)")) == "(1 2)"  # b is global: globals stay visible
    ev("(define-task (missing) (context (inherit subset) (subset zzz)) zzz)")
    with pytest.raises(SchemeError, match=r"task missing: zzz, listed in \(subset …\), is not bound"):
        ev("(missing)")
    d = ev("(describe-task 'pick)")
    assert d.context.inherit_context == "subset" and d.context.subset == ["a"]


def test_subset_names_need_inherit_subset(ev):
    with pytest.raises(TaskError, match="need inherit_context 'subset', not 'full'"):
        ev("(define-task (t) (context (subset a)) 1)")


def test_context_defaults_and_overrides_in_definitions(ev):
    ev('(define-task (a x) (prompt "{{x}}"))')
    ev('(define-task (s x) (script "echo {{x}}"))')
    ev("(define-task (loop x) (context (inherit none) (accumulate #t) (format full-output) (fresh enabled)) x)")
    a, s, loop = (ev(f"(describe-task '{n})").context for n in ("a", "s", "loop"))
    assert (a.inherit_context, a.accumulate_data, a.fresh_context) == ("full", False, "disabled")
    assert (s.inherit_context, s.accumulate_data) == ("full", False)
    assert (loop.inherit_context, loop.accumulate_data, loop.accumulation_format, loop.fresh_context) == (
        "none",
        True,
        "full_output",
        "enabled",
    )


def test_inherit_full_with_fresh_enabled_is_validation_error(ev):
    with pytest.raises(TaskError) as info:
        ev('(define-task (t x) (context (inherit full) (fresh enabled)) (prompt "{{x}}"))')
    assert info.value.error_type == "VALIDATION_ERROR"
    assert "inherit_context 'full' cannot be combined with fresh_context 'enabled'" in info.value.message


# -- the library -------------------------------------------------------------------
def test_task_library_is_bound_and_reachable(interp, ev):
    ev(SUMMARIZE)
    assert ev("task-library") is interp.tasks
    assert "summarize" in interp.tasks
    assert write_string(ev("task-library")) == "#<task-library 1 tasks>"
    assert write_string(ev("(task-names)")) == "(summarize)"


def test_task_ref_is_first_class(ev):
    ev('(define-task (shout x) (string-append x "!"))')
    assert write_string(ev('(map (task-ref \'shout) \'("a" "b"))')) == '("a!" "b!")'
    assert ev("(apply (task-ref 'shout) '(\"c\"))") == "c!"
    assert ev("(task? (task-ref 'shout))") is True
    assert write_string(ev("(task-ref 'shout)")) == "#<task shout>"
    assert ev('(eq? (task-ref \'shout) (task-ref "shout"))') is True


def test_redefining_with_define_task_replaces(ev):
    ev("(define-task (v) 1)")
    ev("(define f (task-ref 'v))")
    ev("(define-task (v) 2)")
    assert ev("(v)") == 2
    assert ev("(f)") == 2
    assert ev("(length (task-names))") == 1


def test_duplicate_registration_from_python_names_the_task(interp):
    definition = TaskDefinition(name="dup", type="atomic", body="x")
    interp.tasks.register(definition)
    with pytest.raises(TaskError, match="task dup is already registered"):
        interp.tasks.register(definition)
    interp.tasks.register(definition, replace=True)


def test_missing_task_lists_similar_names(ev):
    ev("(define-task (summarize x) x) (define-task (summary x) x) (define-task (other x) x)")
    with pytest.raises(SchemeError) as info:
        ev("(task-ref 'sumarize)")
    assert info.value.message == "no task named sumarize; did you mean: summarize, summary?"
    with pytest.raises(SchemeError, match=r"no task named zzz \(tasks: summarize, summary, other\)"):
        ev("(describe-task 'zzz)")
    with pytest.raises(SchemeError, match="unbound variable: sumarize; did you mean the task summarize"):
        ev('(sumarize "x")')
    with pytest.raises(SchemeError) as info:
        ev('(qqq "x")')
    assert info.value.message == "unbound variable: qqq"


def test_python_registered_tasks(interp):
    interp.tasks.register(
        TaskDefinition(name="add", type="procedure", params=[TaskParam(name="a"), TaskParam(name="b-value")]),
        lambda a, b_value: a + b_value,
    )
    assert interp.eval("(add 1 #:b-value 2)") == 3
    assert interp.tasks.call("add", 4, b_value=5) == 9
    with pytest.raises(TaskError, match="a procedure task needs an implementation"):
        interp.tasks.register(TaskDefinition(name="x", type="procedure"))
    interp.tasks.remove("add")
    assert "add" not in interp.tasks


def test_task_errors_show_backtrace(ev):
    ev('(define-task (bad x) (raise (make-task-error \'TASK_FAILURE "nope" #:reason "r")))')
    with pytest.raises(TaskError) as info:
        ev("(define (outer) (bad 1))\n(outer)")
    text = info.value.format()
    assert text.splitlines()[0] == "error: TASK_FAILURE: nope"
    assert "in bad" in text and "t.scm:2:1" in text


def test_procedure_task_calls_keep_their_meaning_on_every_path(interp, ev):
    """A call giving every parameter by position runs the body at once; keywords, defaults,
    wrong counts, tracing, limits, removal and a shadowing define take the full path."""
    ev("(define-task (add a (b 10)) (+ a b))")
    assert list(ev("(list (add 1 2) (add 1) (add 1 #:b 5) (add #:a 3))")) == [3, 11, 6, 13]
    with pytest.raises(SchemeError, match="at most 2 arguments"):
        ev("(add 1 2 3)")
    events: list[object] = []
    interp.on_event(events.append)
    assert ev("(add 1 2)") == 3
    assert any(getattr(e, "name", None) == "add" for e in events)  # traced: a task event
    ev("(define-task (slow x) (timeout 5) (* x 2))")
    assert ev("(slow 4)") == 8
    ev("(define (loop-add n acc) (if (= n 0) acc (loop-add (- n 1) (add acc 1))))")
    assert ev("(loop-add 500 0)") == 500
    interp.tasks.remove("add")
    with pytest.raises(SchemeError, match="unbound variable: add"):
        ev("(loop-add 1 0)")
    ev("(define-task (add a b) (- a b))")
    assert ev("(loop-add 2 0)") == -2
    ev("(define (add a b) (* a b))")  # a variable comes first
    assert ev("(add 3 4)") == 12


def test_procedure_tasks_recurse_deeply_and_run_in_parallel_branches(interp, ev):
    """The direct path keeps the runtime's depth accounting: deep non-tail recursion through a
    task hops as closures do, max_depth ends it cleanly, and branches take their own path."""
    ev("(define-task (depth-of n) (if (= n 0) 0 (+ 1 (depth-of (- n 1)))))")
    assert ev("(depth-of 1500)") == 1500  # past the depth mark: hops (a deeper run is slow: see README)
    ev("(define-task (inc x) (+ x 1))")
    assert list(ev("(parallel-map (lambda (x) (inc x)) (iota 20))")) == list(range(1, 21))
    limited = Interpreter(max_depth=500)
    limited.eval("(define-task (depth-of n) (if (= n 0) 0 (+ 1 (depth-of (- n 1)))))")
    with pytest.raises(SchemeError, match="recursion depth limit exceeded"):
        limited.eval("(depth-of 100000)")
    assert limited.eval("(depth-of 100)") == 100
