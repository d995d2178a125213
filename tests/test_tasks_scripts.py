"""The script runner: run-script, script tasks, the allow_scripts capability."""

from __future__ import annotations

import time

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.tasks.errors import TaskError
from interpreter.tasks.records import ScriptResult
from interpreter.tasks.scripts import run_script


@pytest.fixture
def ev():
    interp = Interpreter(allow_scripts=True)
    return lambda source: interp.eval_scheme(source, filename="t.scm")


@pytest.mark.slow
def test_scripts_need_the_capability():
    interp = Interpreter()
    with pytest.raises(SchemeError) as info:
        interp.eval('(run-script "true")')
    assert info.value.kind == "permission"
    assert "allow_scripts" in info.value.message
    interp.eval('(define-task (t) (script "true"))')
    with pytest.raises(SchemeError, match=r"task t: permission denied: .*allow_scripts"):
        interp.eval("(t)")


def test_run_script_string_and_list_commands(ev):
    r = ev("(run-script \"printf '%s|%s' 'a b' c\")")
    assert isinstance(r, ScriptResult)
    assert (r.stdout, r.exit_code, r.timed_out, r.truncated) == ("a b|c", 0, False, False)
    assert ev('(get (run-script \'("printf" "%s" "x y")) \'stdout)') == "x y"


def test_run_script_stdin_cwd_env_and_shell(ev, tmp_path):
    assert ev('(get (run-script "cat" #:input "line 1\\nline 2") \'stdout)') == "line 1\nline 2"
    assert ev(f'(get (run-script "pwd" #:cwd "{tmp_path}") \'stdout)').strip() == str(tmp_path)
    assert ev('(get (run-script \'("sh" "-c" "echo $GREETING") #:env \'((GREETING . "hi"))) \'stdout)') == "hi\n"
    assert ev('(get (run-script "echo a | tr a b" #:shell #t) \'stdout)') == "b\n"
    assert ev('(get (run-script "echo a | tr a b") \'stdout)') == "a | tr a b\n"  # no shell by default


def test_non_zero_exit_is_a_result_not_an_error(ev):
    r = ev('(run-script \'("sh" "-c" "echo oops >&2; exit 3"))')
    assert (r.exit_code, r.stderr) == (3, "oops\n")


def test_missing_command_names_it(ev):
    with pytest.raises(TaskError) as info:
        ev('(run-script "no-such-command-xyz --flag")')
    assert info.value.record.reason == "command_not_found"
    assert info.value.message == "TASK_FAILURE: run-script: command not found: no-such-command-xyz"
    with pytest.raises(TaskError, match="no such folder"):
        ev('(run-script "true" #:cwd "/no/such/folder/here")')


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "survived"
    start = time.monotonic()
    result = run_script(["sh", "-c", f"(sleep 1; touch {marker}) & sleep 5"], timeout=0.5)
    elapsed = time.monotonic() - start
    assert result.timed_out is True
    assert elapsed < 4.5  # killed, not waited for: the group's `sleep 5` would take 5 s
    assert result.exit_code != 0
    time.sleep(1.0)
    assert not marker.exists()  # the background child died with the group


def test_timeout_from_the_dsl(ev):
    r = ev('(run-script "sleep 5" #:timeout 0.3)')
    assert r.timed_out is True and r.duration_s < 4.5  # killed before `sleep 5` ends


def test_huge_output_is_capped_and_marked(ev):
    r = run_script(["sh", "-c", "yes 0123456789 | head -c 3000000"])
    assert r.truncated is True
    assert len(r.stdout.encode()) == 1 << 20
    small = ev('(run-script \'("sh" "-c" "yes | head -c 5000") #:max-output 100)')
    assert (len(small.stdout), small.truncated) == (100, True)


def test_non_utf8_bytes_are_replaced(ev):
    r = ev('(run-script \'("printf" "a\\\\377b\\\\n"))')
    assert r.stdout == "a\ufffdb\n"


def test_bad_options(ev):
    with pytest.raises(SchemeError, match=r"run-script: unknown keyword #:retries \(known: #:input"):
        ev('(run-script "true" #:retries 2)')
    with pytest.raises(SchemeError, match="run-script: expected a positive number of seconds"):
        ev('(run-script "true" #:timeout -1)')
    with pytest.raises(SchemeError, match="run-script: expected a command string or a list"):
        ev("(run-script 42)")


def test_script_task_renders_each_argument(ev, tmp_path):
    target = tmp_path / "two words.txt"
    target.write_text("one two three\n")
    ev('(define-task (word-count path) (script "wc -w {{path}}" (timeout 10)))')
    r = ev(f'(word-count "{target}")')
    assert r.status == "COMPLETE"
    assert r.content.split()[0] == "3"
    assert r.notes["script_output"]["exit_code"] == 0
    assert ev(f"(get (word-count \"{target}\") 'notes 'script-output 'stdout)") == r.content
    d = ev("(describe-task 'word-count)")
    assert (d.type, d.body, d.script.timeout) == ("script", "wc -w {{path}}", 10)


def test_script_task_input_shell_and_failure(ev):
    ev('(define-task (upper text) (script "tr a-z A-Z" (input "{{text}}")))')
    assert ev('(get (upper "hello") \'content)') == "HELLO"
    ev('(define-task (quoted x) (script "echo {{x}} | tr a-z A-Z" (shell #t)))')
    assert ev('(get (quoted "a; echo injected") \'content)') == "A; ECHO INJECTED\n"
    ev('(define-task (fails) (script "sh -c \\"exit 2\\""))')
    r = ev("(fails)")
    assert (r.status, r.notes["script_output"]["exit_code"]) == ("FAILED", 2)
    ev('(define-task (slow) (script "sleep 5" (timeout 0.3)))')
    r = ev("(slow)")
    assert (r.status, r.notes["timed_out"]) == ("FAILED", True)
