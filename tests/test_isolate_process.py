"""``Interpreter(isolate=True)`` / ``--isolate``: evaluation in a child process under OS limits
(RLIMIT_AS, RLIMIT_CPU, a wall-clock kill), values and errors back as in-process, host
functions, tasks, models and stdin served by the host."""

from __future__ import annotations

import asyncio
import io
import os
import pickle
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError, SchemeExit, Symbol
from interpreter.isolation import IsolatedProcedure
from interpreter.isolation.wire import HEADER, BadMessage, Channel, Codec

ROOT = Path(__file__).resolve().parent.parent
MiB = 2**20


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Interpreter, io.StringIO]]:
    """One isolated interpreter for the tests that leave it usable (a child costs ~0.5 s to start)."""
    out = io.StringIO()
    interp = Interpreter(isolate=True, stdout=out, timeout=20)
    yield interp, out
    assert interp.isolation is not None
    interp.isolation.close()


def host_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# -- values, errors, definitions --------------------------------------------------------
def test_values_come_back_as_the_embedding_api_converts_them(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared
    value = interp.eval("(list 1 \"a\" 'b 2/3 1.5 (vector 1 2) #t (make-bytevector 2 7) (cons 1 2))")
    reference = Interpreter().eval("(list 1 \"a\" 'b 2/3 1.5 (vector 1 2) #t (make-bytevector 2 7) (cons 1 2))")
    assert value[:8] == reference[:8]
    assert (value[8].car, value[8].cdr) == (1, 2)
    assert interp.eval("(define-record-type point (make-point x y) point? (x px) (y py)) (make-point 1 2)").x == 1


def test_definitions_persist_and_procedures_come_back_callable(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared
    interp.eval("(define (square x) (* x x)) (define total 10)")
    assert interp.eval("(+ total (square 4))") == 26
    square = interp["square"]
    assert isinstance(square, IsolatedProcedure)
    assert square(7) == 49
    assert interp.call("square", 3) == 9


def test_errors_come_back_with_kind_location_and_backtrace(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared
    with pytest.raises(SchemeError) as caught:
        interp.eval("(define (first-of x) (car x))\n(first-of 5)", filename="prog.scm")
    err = caught.value
    assert err.kind == "type-error"
    assert str(err.span) == "prog.scm:1:22"
    assert [frame.procedure for frame in err.frames] == ["first-of", None]
    assert err.to_record().backtrace[1].location == "prog.scm:2:1"
    with pytest.raises(SchemeExit) as done:
        interp.eval("(exit 3)")
    assert done.value.code == 3


def test_output_reaches_the_hosts_ports(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, out = shared
    interp.eval('(display "to the host") (newline)')
    assert out.getvalue().endswith("to the host\n")


# -- host functions, tasks, models, stdin ------------------------------------------------------
def test_host_functions_tasks_and_models_run_in_the_host(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared
    calls: list[int] = []

    @interp.primitive
    def host_pid() -> int:
        calls.append(1)
        return os.getpid()

    @interp.task
    def add(a: int, b: int) -> int:
        return a + b

    interp.models.register("shout", lambda prompt, system: prompt.upper())
    interp.define("twice", lambda f, x: f(f(x)))  # a host function calling back into the child
    assert interp.eval("(host-pid)") == os.getpid() and calls == [1]
    assert interp.eval("(add 2 3)") == 5
    with pytest.raises(SchemeError, match="a"):
        interp.eval('(add "x" 3)')
    interp.eval('(define-task (ask q) (model "shout") (prompt "{{q}}"))')
    assert interp.eval("(parallel-map (lambda (w) (get (ask w) 'content)) '(\"a\" \"b\" \"c\"))") == ["A", "B", "C"]
    assert interp.eval("(twice (lambda (n) (* n 10)) 3)") == 300


def test_trace_events_usage_and_definitions_reach_the_host() -> None:
    interp = Interpreter(isolate=True)
    interp.models.register("echo", lambda prompt, system: prompt)
    events: list[str] = []
    interp.on_event(lambda event: events.append(f"{event.kind} {event.name}"))
    interp.eval('(define-task (ask q) (model "echo") (prompt "{{q}}")) (ask "hello")')
    assert "task ask" in events and "model echo" in events
    assert interp.usage.total.calls == 1
    assert [text for text, _ in interp.program_sources] == ['(define-task (ask q) (model "echo") (prompt "{{q}}"))']


def test_host_python_errors_become_taskscheme_errors(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared

    def broken() -> None:
        raise ValueError("no good")

    interp.define("broken", broken)
    assert interp.eval('(guard (e (#t (error-object-message e))) (broken))') == "broken: no good"


def test_capabilities_hold_in_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_API_KEY", "secret")
    interp = Interpreter(isolate=True, stdin=io.StringIO("first line\n"), allow_python=True)
    with pytest.raises(SchemeError, match="allow_files"):
        interp.eval('(open-input-file "/etc/hostname")')
    with pytest.raises(SchemeError, match="allow_models capability"):
        interp.eval('(define-task (t) (model "gpt-4o-mini") (prompt "hi")) (t)')
    assert interp.eval("(read-line)") == "first line"
    getenv = '(python-call (python-ref (python-import "os") "getenv") "SOME_API_KEY")'
    assert interp.eval(getenv) is None  # keys stay in the host: model calls run there
    assert interp.eval('(python-call (python-ref (python-import "os") "getpid"))') != os.getpid()
    with pytest.raises(SchemeError, match="worker processes"):
        list(interp.batch("t", [{}]))


# -- limits ------------------------------------------------------------------------------
def test_a_memory_bomb_ends_with_resource_exhaustion_and_the_host_stays_small() -> None:
    before = host_rss()
    interp = Interpreter(isolate=True, max_memory=64 * MiB, timeout=30, allow_python=True)
    interp.eval("(define kept 1)")
    with pytest.raises(SchemeError) as caught:
        interp.eval("(let loop ((acc '())) (loop (cons (make-vector 200000 0) acc)))")
    assert caught.value.kind == "resource-exhaustion" and caught.value.details["resource"] == "memory"
    assert interp.eval("kept") == 1  # the budget stopped the run: the child lives on
    # One allocation past the accounting (Python the host allowed) hits RLIMIT_AS: the child is killed.
    with pytest.raises(SchemeError) as hard:
        interp.eval('(python-call (python-ref (python-import "builtins") "bytearray") 2000000000)')
    assert hard.value.details == {"resource": "memory", "limit": 64 * MiB}
    assert "definitions were lost" in hard.value.message
    assert interp.eval("(+ 1 2)") == 3  # a fresh child
    with pytest.raises(SchemeError, match="unbound variable: kept"):
        interp.eval("kept")
    assert host_rss() - before < 32 * MiB


def test_deep_recursion_fits_the_address_space_its_budget_allows() -> None:
    """Each hop of deep recursion starts a thread; their stacks must not exhaust RLIMIT_AS first."""
    interp = Interpreter(isolate=True, max_memory=256 * MiB, timeout=60)
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    assert interp.eval("(count 200000)") == 200000
    assert interp.eval("(parallel-map (lambda (n) (count n)) '(20000 20000 20000 20000))") == [20000] * 4


def test_a_cpu_loop_is_ended_and_a_stuck_primitive_is_killed() -> None:
    interp = Interpreter(isolate=True, timeout=1, allow_python=True)
    interp.eval("(define kept 1)")
    with pytest.raises(SchemeError) as caught:
        interp.eval("(let loop () (loop))")
    assert caught.value.details == {"resource": "time", "limit": 1}
    assert interp.eval("kept") == 1
    with pytest.raises(SchemeError) as killed:  # inside one C call: RLIMIT_CPU or the host's kill
        interp.eval('(python-call (python-ref (python-import "math") "factorial") 100000000)')
    assert killed.value.details == {"resource": "time", "limit": 1}
    assert "definitions were lost" in killed.value.message
    assert interp.eval("(* 6 7)") == 42


def test_interrupt_and_cancel_reach_the_child(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared
    threading.Timer(0.3, interp.runtime.interrupt).start()
    with pytest.raises(SchemeError, match="interrupted"):
        interp.eval("(let loop () (loop))")

    async def cancel() -> None:
        task = asyncio.ensure_future(interp.aeval("(let loop () (loop))"))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel())
    assert interp.eval("(square 5)") == 25


# -- the command line --------------------------------------------------------------------
def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "TASKSCHEME_HISTORY": ""}
    return subprocess.run(
        [sys.executable, "-m", "interpreter", *args], input=stdin, capture_output=True, text=True, timeout=60,
        cwd=ROOT, env=env,
    )


@pytest.mark.slow
def test_cli_isolate_runs_files_expressions_and_stdin(tmp_path: Path) -> None:
    program = tmp_path / "prog.scm"
    program.write_text('(display (command-line)) (newline) (display (read-line)) (newline)\n(car 5)\n')
    done = run_cli("--isolate", "--timeout", "10", "--max-memory", "200M", str(program), "a", stdin="typed\n")
    assert done.returncode == 1
    assert done.stdout == f"({program} a)\ntyped\n"
    assert f"{program}:2:1" in done.stderr
    assert run_cli("--isolate", "-e", "(+ 1 2)", "-e", "(list 1 2)").stdout == "3\n(1 2)\n"
    looping = run_cli("--isolate", "--timeout", "1", "-e", "(let loop () (loop))")
    assert looping.returncode == 1 and "time limit exceeded" in looping.stderr
    repl = run_cli("--isolate", "-i")
    assert repl.returncode == 2 and "not the REPL" in repl.stderr


@pytest.mark.slow
def test_cli_max_digits() -> None:
    done = run_cli("--max-digits", "10", "-e", "(expt 10 20)")
    assert done.returncode == 1 and "max_digits = 10" in done.stderr
    assert run_cli("--max-digits", "30", "-e", "(expt 10 20)").stdout == "100000000000000000000\n"
    assert run_cli("--max-digits", "0", "-e", "1").returncode == 2


def test_cli_isolate_ctrl_c_reaches_the_child() -> None:
    program = '(begin (display "ready") (newline) (let loop () (loop)))'
    command = [sys.executable, "-m", "interpreter", "--isolate", "-e", program]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    first = process.stdout.readline()
    time.sleep(0.3)  # into the loop (an interrupt inside `newline` is reported where it lands)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (first, process.returncode) == ("ready\n", 130), (out, err)
    assert "error: interrupted" in err and "<-e>:1:" in err, err


def test_a_limit_inside_a_pipeline_brings_its_partial_result_back() -> None:
    interp = Interpreter(isolate=True, timeout=2)
    with pytest.raises(SchemeError) as caught:
        interp.eval(
            """(define (spin n) (if (= n 0) 0 (spin (- n 1))))
               (define-task (pipeline topic)
                 (sequential (step load (string-append "notes on " topic)) (step stuck (spin 100000000000))))
               (pipeline "x")"""
        )
    assert caught.value.details["resource"] == "time"
    assert [entry.output for entry in caught.value.partial.notes["partial_results"]] == ["notes on x"]


@pytest.mark.parametrize("hostile", [os.system, Interpreter, pickle.loads, getattr])
def test_the_host_unpickles_nothing_but_values(hostile: object) -> None:
    """A child cannot make the host import or call anything: only value classes may be named."""
    data = pickle.dumps(hostile)
    with pytest.raises(BadMessage, match="may not cross"):
        Channel(io.BytesIO(HEADER.pack(len(data)) + data), io.BytesIO(), Codec()).recv()
    records = Channel(io.BytesIO(), io.BytesIO(), Codec())
    assert records.codec.loads(records.codec.dumps([Fraction(1, 3), Symbol.intern("s")])) == [Fraction(1, 3), Symbol.intern("s")]


def test_eval_datum_and_eval_scheme_run_in_the_child(shared: tuple[Interpreter, io.StringIO]) -> None:
    interp, _ = shared
    from interpreter.reader import read_with_spans

    [(datum, span)] = read_with_spans("(list (square 3) 'x)", "datum.scm")
    value = interp.eval_datum(datum, span)
    assert (value.car, value.cdr.car) == (9, Symbol.intern("x"))
    assert interp.eval_scheme("(vector 1 2)") == [1, 2]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the child's session in /proc")
def test_scripts_die_with_a_killed_child(tmp_path: Path) -> None:
    """A script (in a process group of its own) is killed with the child that started it,
    here a child that RLIMIT_CPU or the host kills inside one C call while the script runs."""
    pidfile = tmp_path / "script.pid"
    interp = Interpreter(isolate=True, timeout=1, allow_python=True, allow_scripts=True, allow_files=[str(tmp_path)])
    program = f"""
    (define (stuck)
      (let wait () (if (not (file-exists? "{pidfile}")) (begin ((python-ref (python-import "time") "sleep") 0.05) (wait))))
      (python-call (python-ref (python-import "math") "factorial") 100000000))
    (parallel-map (lambda (f) (f))
                  (list (lambda () (run-script "sh -c 'echo $$ > {pidfile}; exec sleep 60'")) stuck))"""
    with pytest.raises(SchemeError) as killed:
        interp.eval(program)
    assert "definitions were lost" in killed.value.message
    script = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(script, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{script}/stat") as stat:  # reaped by init once dead; a zombie counts as gone
            if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.05)
    else:
        os.kill(script, signal.SIGKILL)
        pytest.fail("the script outlived the isolated interpreter's child")


def test_the_usage_of_a_task_the_child_defined_reaches_the_host() -> None:
    """The child makes its task runtime on first use (a plain program makes none: see
    test_startup_imports); the usage of a task it then runs still reaches the host."""
    interp = Interpreter(isolate=True)
    try:
        assert interp.eval("(+ 1 2)") == 3
        source = '(define-model (up prompt) (string-upcase prompt)) (define-task (ask w) (model "up") (prompt "{{w}}"))'
        assert interp.eval(source + " (get (ask \"hi\") 'content)") == "HI"
        assert interp.usage.total.calls == 1
    finally:
        interp.isolation.close()
