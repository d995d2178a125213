"""The REPL in-process: prompt_toolkit driven through a pipe input and a dummy output."""

from __future__ import annotations

import io
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from interpreter import Interpreter
from interpreter.datatypes import Span
from interpreter.errors import SchemeError
from interpreter.repl.completion import SchemeCompleter, word_before
from interpreter.repl.describe import first_line, source_text
from interpreter.repl.plain import run_plain
from interpreter.repl.prompt import history_path, ready_to_run, start_repl
from interpreter.repl.session import ReplSession
from interpreter.repl.syntax import continuation_indent, in_string
from interpreter.terminal import format_error

ENTER = "\r"
CTRL_C = "\x03"
CTRL_D = "\x04"
CTRL_R = "\x12"
UP = "\x1b[A"


class Repl:
    """A session whose standard output and error are strings."""

    def __init__(self, stdlib: bool = True, setup: Callable[[Interpreter], None] | None = None) -> None:
        self.out = io.StringIO()
        self.err = io.StringIO()

        def make() -> Interpreter:
            interp = Interpreter(stdout=self.out, allow_files=True, stdlib=stdlib)
            if setup is not None:
                setup(interp)
            return interp

        self.session = ReplSession(make, err=self.err)

    def keys(self, *chunks: str, history: Path | None = None, pause: float = 0.0) -> int:
        """Type ``chunks`` into the prompt_toolkit REPL (``pause`` seconds apart), then Ctrl-D."""
        with create_pipe_input() as pipe:
            if pause:

                def feed() -> None:
                    for chunk in (*chunks, CTRL_D):
                        pipe.send_text(chunk)
                        time.sleep(pause)

                threading.Thread(target=feed, daemon=True).start()
            else:
                pipe.send_text("".join(chunks) + CTRL_D)
            return start_repl(self.session, history=history, input=pipe, output=DummyOutput(), banner=False)

    def submit(self, *inputs: str) -> None:
        for text in inputs:
            self.session.submit(text)


@pytest.fixture
def repl() -> Repl:
    return Repl()


# -- reading and evaluating ------------------------------------------------------------
def test_multi_line_definition_is_indented_and_evaluated(repl: Repl) -> None:
    assert repl.keys("(define (double x)", ENTER, "(* 2 x))", ENTER, "(double 21)", ENTER) == 0
    assert repl.out.getvalue() == "$1 = 42\n"
    assert repl.session.sources["<repl-1>"] == "(define (double x)\n  (* 2 x))"


def test_open_string_continues_on_the_next_line(repl: Repl) -> None:
    repl.keys('(string-length "ab', ENTER, 'c")', ENTER)
    assert repl.out.getvalue() == "$1 = 4\n"


def test_several_expressions_on_one_line_all_print(repl: Repl) -> None:
    repl.keys("1 (+ 1 1) 'three", ENTER)
    assert repl.out.getvalue() == "$1 = 1\n$2 = 2\n$3 = three\n"


def test_results_are_written_and_void_prints_nothing(repl: Repl) -> None:
    repl.keys('(define s "a\\nb")', ENTER, "s", ENTER, "(if #f #f)", ENTER, "(values 1 #\\a)", ENTER)
    assert repl.out.getvalue() == '$1 = "a\\nb"\n$2 = 1\n$3 = #\\a\n'


def test_results_are_numbered_and_reused_as_dollar_names(repl: Repl) -> None:
    """A result is kept as $N: a costly model call need not run again to use its answer."""
    repl.submit('(define calls 0)', '(begin (set! calls (+ calls 1)) "answer")', "(string-append $1 \"!\")",
                "(values 10 20)", "(list $2 $3 calls)")
    assert repl.out.getvalue() == '$1 = "answer"\n$2 = "answer!"\n$3 = 10\n$4 = 20\n$5 = ("answer!" 10 1)\n'


def test_results_survive_a_reset_and_do_not_count_as_user_definitions(repl: Repl) -> None:
    repl.submit("(* 6 7)", ",reset", "(+ $1 0)", ",env")
    out = repl.out.getvalue()
    assert out.startswith("$1 = 42\n; environment reset\n$2 = 42\n")
    assert "nothing defined yet" in out


def test_procedures_print_a_summary(repl: Repl) -> None:
    repl.submit("(define (f a . more) a)", "f", "car")
    assert repl.out.getvalue() == "$1 = #<procedure f (a . more)>\n$2 = #<procedure car>\n"


def test_display_output_is_ended_before_the_next_result(repl: Repl) -> None:
    repl.submit('(display "hi") 5')
    assert repl.out.getvalue() == "hi\n$1 = 5\n"


def test_error_is_reported_and_definitions_survive(repl: Repl) -> None:
    repl.keys("(define (f x) (car x))", ENTER, "(f 1)", ENTER, "(f '(7))", ENTER)
    assert repl.out.getvalue() == "$1 = 7\n"
    err = repl.err.getvalue()
    assert err.startswith("error: car: expected a pair, got 1")
    assert "<repl-1>:1:15" in err and "in f" in err


def test_error_in_the_middle_of_a_line_keeps_earlier_values(repl: Repl) -> None:
    repl.submit("1 (car '()) 3")
    assert repl.out.getvalue() == "$1 = 1\n"
    assert "error: car" in repl.err.getvalue()


def test_read_error_is_reported(repl: Repl) -> None:
    repl.submit("(+ 1 2))")
    assert "error" in repl.err.getvalue()


def test_ctrl_c_while_typing_clears_the_input(repl: Repl) -> None:
    repl.keys("(this is not finished", CTRL_C, "(+ 1 1)", ENTER)
    assert repl.out.getvalue() == "$1 = 2\n"
    assert repl.err.getvalue() == ""


def test_ctrl_d_exits_and_exit_sets_the_status(repl: Repl) -> None:
    assert repl.keys("(exit 3)", ENTER, "(display 'never)", ENTER) == 3
    assert "never" not in repl.out.getvalue()


def test_enter_only_runs_complete_input_with_the_cursor_on_the_last_line() -> None:
    assert ready_to_run("(+ 1 2)", True)
    assert not ready_to_run("(+ 1", True)
    assert not ready_to_run("(+ 1 2)", False)
    assert ready_to_run(",help", True)
    assert not ready_to_run(",(x", True)


@pytest.mark.parametrize(
    "program",
    ["(let loop () (loop))", "(define (tree n) (if (= n 0) 0 (+ (tree (- n 1)) (tree (- n 1))))) (tree 30)"],
)
def test_running_program_is_interrupted_and_environment_kept(repl: Repl, program: str) -> None:
    repl.submit("(define kept 1)")
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    start = time.monotonic()
    repl.submit(program)
    assert time.monotonic() - start < 10
    assert "error: interrupted" in repl.err.getvalue()
    repl.submit("kept")
    assert repl.out.getvalue() == "$1 = 1\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# -- completion ------------------------------------------------------------------------
def complete(repl: Repl, text: str) -> dict[str, str]:
    completer = SchemeCompleter(lambda: repl.session.interp)
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return {c.text: c.display_meta_text for c in found}


def test_completion_of_builtins_special_forms_and_user_names(repl: Repl) -> None:
    repl.submit("(define (double-it x) (* 2 x))", "(define double-count 3)")
    upcase = repl.session.interp["string-upcase"].procedure
    assert complete(repl, "(string-up") == {"string-upcase": first_line(upcase.doc) or upcase.arity_text()}
    assert complete(repl, "(lamb")["lambda"] == "special form"
    assert complete(repl, "(doub") == {"double-it": "(double-it x)", "double-count": "3"}
    assert "define" in complete(repl, "(def")


def test_completion_of_commands_and_their_arguments(repl: Repl, tmp_path: Path) -> None:
    assert complete(repl, ",he") == {"help": "this list"}
    assert set(complete(repl, ",t")) == {"tasks", "time", "trace"}
    assert complete(repl, ",trace o") == {"on": "", "off": ""}
    assert "car" in complete(repl, ",describe ca")
    (tmp_path / "prog.scm").write_text("1")
    assert "og.scm" in complete(repl, f",load {tmp_path}/pr")  # the rest of the name


def test_completion_follows_reset(repl: Repl) -> None:
    repl.submit("(define zzz-name 1)")
    assert "zzz-name" in complete(repl, "zzz")
    repl.submit(",reset")
    assert complete(repl, "zzz") == {}


def test_tab_completes_in_the_prompt(repl: Repl) -> None:
    repl.keys("(string-up", "\t", ' "abc")', ENTER, pause=0.25)
    assert repl.out.getvalue() == '$1 = "ABC"\n'


def test_word_before_cursor() -> None:
    assert word_before("(foo (bar-b") == "bar-b"
    assert word_before("(foo ") == ""
    assert word_before("'sym") == "sym"


# -- history ---------------------------------------------------------------------------
def test_history_is_saved_and_recalled(tmp_path: Path) -> None:
    file = tmp_path / "data" / "history"
    first = Repl()
    first.keys("(+ 40 2)", ENTER, history=file)
    assert "(+ 40 2)" in file.read_text()
    second = Repl()
    second.keys(UP, ENTER, history=file)
    assert second.out.getvalue() == "$1 = 42\n"


def test_ctrl_r_searches_history(repl: Repl) -> None:
    repl.keys('(string-append "a" "b")', ENTER, "(+ 1 2)", ENTER, CTRL_R, "append", ENTER, ENTER, pause=0.15)
    assert repl.out.getvalue() == '$1 = "ab"\n$2 = 3\n$3 = "ab"\n'


def test_history_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TASKSCHEME_HISTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    if sys.platform != "win32":
        assert history_path() == tmp_path / "taskscheme" / "history"
    assert history_path("my-hist") == Path("my-hist")
    assert history_path("") is None
    monkeypatch.setenv("TASKSCHEME_HISTORY", "")
    assert history_path() is None
    monkeypatch.setenv("TASKSCHEME_HISTORY", str(tmp_path / "h"))
    assert history_path() == tmp_path / "h"


# -- commands --------------------------------------------------------------------------
def test_help_lists_every_command(repl: Repl) -> None:
    repl.keys(",help", ENTER)
    text = repl.out.getvalue()
    for name in ("help", "load FILE", "reload", "tasks", "describe NAME", "env", "time EXPR", "trace on|off"):
        assert f",{name}" in text
    for name in ("usage", "model NAME", "reset", "quit"):
        assert f",{name}" in text
    assert "Ctrl-R" in text


def test_unknown_command_lists_the_commands(repl: Repl) -> None:
    repl.submit(",frobnicate")
    err = repl.err.getvalue()
    assert "unknown command ,frobnicate" in err and ",describe" in err and ",quit" in err


def test_commands_take_unique_prefixes(repl: Repl) -> None:
    repl.submit(",t")
    assert "ambiguous command ,t" in repl.err.getvalue()
    assert repl.keys(",q", ENTER, "(display 'never)", ENTER) == 0
    assert "never" not in repl.out.getvalue()


def test_load_and_reload(repl: Repl, tmp_path: Path) -> None:
    lib = tmp_path / "lib.scm"
    lib.write_text("(define (answer) 41)\n")
    repl.submit(f",load {lib}", "(answer)")
    lib.write_text("(define (answer) 42)\n")
    repl.submit(",reload", "(answer)")
    out = repl.out.getvalue()
    assert f"; loaded {lib}" in out and "$1 = 41\n" in out and out.endswith("$2 = 42\n")


def test_load_of_a_missing_file_is_an_error(repl: Repl, tmp_path: Path) -> None:
    repl.submit(f",load {tmp_path}/missing.scm", ",reload", ",load")
    err = repl.err.getvalue()
    assert "cannot read" in err and "nothing loaded yet" in err and "usage: ,load FILE" in err


def test_env_shows_only_user_bindings(repl: Repl) -> None:
    repl.submit(",env")
    assert "nothing defined yet" in repl.out.getvalue()
    repl.submit("(define (sq x) (* x x))", "(define n 10)", ",env")
    lines = repl.out.getvalue().splitlines()[1:]
    assert [line.split()[0] for line in lines] == ["n", "sq"]
    assert "#<procedure sq (x)>" in lines[1]


def test_describe_procedure_shows_parameters_location_and_source(repl: Repl) -> None:
    repl.keys("(define (area w h)", ENTER, "(* w h))", ENTER, ",describe area", ENTER)
    out = repl.out.getvalue()
    assert "(area w h)  procedure, 2 arguments" in out
    assert "defined at <repl-1>:1:1" in out
    assert "(define (area w h)\n  (* w h))" in out


def test_describe_builtins_and_unknown_names(repl: Repl) -> None:
    repl.submit(",describe car", ",describe if", ",describe nope", "(define v 5)", ",describe v")
    out = repl.out.getvalue()
    assert "(car …)  1 argument  built-in procedure" in out
    assert "if: a special form" in out
    assert "nope: not bound, and not a task" in out
    assert "v = 5" in out


def test_time_prints_the_value_and_the_wall_time(repl: Repl) -> None:
    repl.submit(",time (+ 1 2)")
    out = repl.out.getvalue()
    assert out.startswith("$1 = 3\n; time: ") and out.endswith(" s\n")


def test_reset_forgets_definitions(repl: Repl) -> None:
    repl.submit("(define x 1)", ",reset", "x")
    assert "; environment reset" in repl.out.getvalue()
    assert "unbound variable: x" in repl.err.getvalue()


def test_trace_needs_an_argument(repl: Repl) -> None:
    repl.submit(",trace maybe")
    assert "usage: ,trace on|off" in repl.err.getvalue()


def test_commands_in_a_bare_environment() -> None:
    bare = Repl(stdlib=False)
    bare.submit(",tasks", "(+ 1 2)")
    assert bare.out.getvalue() == "; no tasks defined\n$1 = 3\n"


# -- tasks -----------------------------------------------------------------------------
def add_summarize_task(interp: Interpreter) -> None:
    """Register one atomic task through the Python API; the default model is "echo"."""
    from interpreter.tasks.records import TaskDefinition

    interp.models.default = "echo"
    definition = TaskDefinition.model_validate(
        {
            "name": "summarize",
            "type": "atomic",
            "params": [{"name": "text"}, {"name": "style", "required": False, "default": "short"}],
            "description": "Summarize a text.\nIn a few words.",
            "body": "Summarize this: {{text}}",
        }
    )
    interp.tasks.register(definition)


@pytest.fixture
def task_repl() -> Repl:
    return Repl(setup=add_summarize_task)


def test_tasks_lists_the_library(task_repl: Repl) -> None:
    task_repl.submit(",tasks")
    assert task_repl.out.getvalue() == "  summarize  atomic task (summarize text [style])  Summarize a text.\n"


def test_describe_a_task_shows_its_definition(task_repl: Repl) -> None:
    task_repl.submit(",describe summarize")
    out = task_repl.out.getvalue()
    assert out.startswith("(summarize text [style])  atomic task\n")
    assert "description:\n  Summarize a text.\n  In a few words.\n" in out
    assert "body: Summarize this: {{text}}" in out


def test_task_names_complete_with_their_summary(task_repl: Repl) -> None:
    assert complete(task_repl, "(summ") == {"summarize": "atomic task (summarize text [style])  Summarize a text."}


def test_model_shows_and_switches_the_default(task_repl: Repl) -> None:
    task_repl.submit(",model", '(define-model "other-model" (lambda (prompt system) "hi"))', ",model other-model")
    assert task_repl.out.getvalue() == "; default model: echo\n; default model: other-model\n"


def test_usage_prints_the_totals(task_repl: Repl) -> None:
    task_repl.submit(",usage")
    assert task_repl.out.getvalue().startswith("usage: 0 calls")


def test_unquote_is_not_a_command(repl: Repl) -> None:
    repl.submit("`(1 ,(+ 1 1))")
    assert repl.out.getvalue() == "$1 = (1 2)\n"


# -- the plain REPL (pipes, CI) --------------------------------------------------------
def test_plain_repl_reads_expressions_across_lines(repl: Repl) -> None:
    stdin = io.StringIO("(define (f x)\n  (+ x 1))\n(f 1) (f 2)\n,env\n(car 1)\n(f 10)\n(+ 1\n")
    assert run_plain(repl.session, stdin) == 0
    out = repl.out.getvalue()
    assert out.startswith("$1 = 2\n$2 = 3\n  f  #<procedure f (x)>\n$3 = 11\n")
    err = repl.err.getvalue()
    assert "error: car" in err
    assert err.count("error:") == 2  # the unfinished (+ 1 at the end of input is reported


def test_plain_repl_prompts_when_asked(repl: Repl) -> None:
    prompts = io.StringIO()
    run_plain(repl.session, io.StringIO("(+ 1\n 2)\n"), prompt_to=prompts)
    assert prompts.getvalue() == "> .. > "


# -- editing helpers -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "indent"),
    [
        ("(define (f x)", 2),
        ("(let ((x 1))", 2),
        ("(let ((x 1)", 6),
        ("(foo a", 5),
        ("(foo", 2),
        ("'(1 2", 2),
        ('(list "(" 1', 6),
        ("(f #\\( ", 3),
        ("(f ; (\n  a", 2),
        ("(define (f)\n  (if (< n 2)", 6),
        ("(+ 1 2)", 0),
        ('"abc', 0),
        ("#| ( |# (g", 10),
    ],
)
def test_continuation_indent(text: str, indent: int) -> None:
    assert continuation_indent(text) == indent


def test_in_string() -> None:
    assert in_string('(display "ab')
    assert not in_string('(display "a\\"b")')


def test_source_text_of_a_form() -> None:
    text = "(define x 1)\n  (define (f)\n    (g))  ; tail\n(h)"
    assert source_text(Span("f.scm", 2, 3), {"f.scm": text}) == "(define (f)\n  (g))  ; tail"
    assert source_text(Span("nowhere.scm", 1, 1), {}) is None


def test_error_colour() -> None:
    err = SchemeError("boom")
    assert format_error(err) == "error: boom"
    assert format_error(err, colour=True) == "\x1b[1;31merror: boom\x1b[0m"


@pytest.fixture(autouse=True)
def _no_user_history(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TASKSCHEME_HISTORY", "")
    yield


# -- highlighting -------------------------------------------------------------------------
def test_highlight_colours_are_readable_on_dark_and_light_terminals() -> None:
    from interpreter.repl.highlight import TOKEN_COLOURS, contrast_ratio

    for token, style in TOKEN_COLOURS.items():
        colour = style.split()[0]
        for background in ("#000000", "#ffffff"):
            assert contrast_ratio(colour, background) >= 4.5, (token, colour, background)


def test_identifiers_keep_the_terminal_colour_and_default_pygments_colours_are_off(repl: Repl) -> None:
    from interpreter.repl.prompt import STYLE, make_prompt

    for cls in ("pygments.name.variable", "pygments.name.function", "pygments.name"):
        assert STYLE.get_attrs_for_style_str(f"class:{cls}").color == ""
    assert make_prompt(repl.session, None).include_default_pygments_style is False


@pytest.mark.parametrize("form", ["define-task", "sequential", "director-evaluator-loop", "with-evaluation", "define-model", "lambda"])
def test_task_and_composition_forms_are_keywords(form: str) -> None:
    from pygments.token import Keyword

    from interpreter.repl.highlight import TaskSchemeLexer

    tokens = [(token, value) for _, token, value in TaskSchemeLexer().get_tokens_unprocessed(f"({form} x)")]
    assert (Keyword, form) in tokens
    assert (Keyword, "x") not in tokens


# -- ,describe for every special form -------------------------------------------------------
def test_every_special_form_has_help_with_an_example() -> None:
    from interpreter.analyzer import SPECIAL_FORMS
    from interpreter.repl.forms_help import FORMS

    Interpreter()  # every form is registered
    assert sorted(s.name for s in SPECIAL_FORMS if s.name not in FORMS) == []


@pytest.mark.parametrize("name", sorted(__import__("interpreter.repl.forms_help", fromlist=["FORMS"]).FORMS))
def test_each_form_example_runs_and_prints_what_its_help_says(name: str) -> None:
    from interpreter.repl.forms_help import FORMS

    out = io.StringIO()
    Interpreter(stdout=out).eval_scheme(FORMS[name].example, whole=True)
    assert out.getvalue() == FORMS[name].prints


def test_describe_shows_the_paragraph_and_the_example(repl: Repl) -> None:
    repl.submit(",describe director-evaluator-loop", ",describe let")
    out = repl.out.getvalue()
    assert out.startswith("director-evaluator-loop: a special form\n(director-evaluator-loop (director expr)")
    assert "Example:\n  (define r (director-evaluator-loop" in out and "; prints: (#t draft v2)" in out
    assert "let: a special form\n(let ((name value) ...) body ...)" in out
