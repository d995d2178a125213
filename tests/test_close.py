"""``Interpreter.close()``: what an interpreter holds is freed when the host lets it go, not by a
later full collection; and an error's Python frames do not keep a run's data alive.

Each check runs with the cyclic collector off: what is freed then was freed by reference
counting, at once. Each has a control that shows the check can fail."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError


class Marker:
    """A host value a program keeps (held weakly by the test)."""


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def kept_by_a_program(interp: Interpreter) -> weakref.ref[Marker]:
    """Give ``interp`` a marker its program keeps in a global list beside a procedure over that list."""
    marker = Marker()
    interp.define("marker", marker)
    interp.eval("(define kept (list marker (lambda (x) (cons x kept)))) (define (size) (length kept)) (size)")
    return weakref.ref(marker)


def test_closing_frees_what_the_program_kept(collector_off: None) -> None:
    interp = Interpreter()
    marker = kept_by_a_program(interp)
    interp.close()
    del interp
    assert marker() is None


def test_an_interpreter_dropped_unclosed_keeps_it_for_the_collector(collector_off: None) -> None:
    """The control: the global frame's procedures refer back to it."""
    interp = Interpreter()
    marker = kept_by_a_program(interp)
    del interp
    assert marker() is not None
    gc.collect()
    assert marker() is None


def test_with_closes_and_a_closed_interpreter_refuses_to_run() -> None:
    with Interpreter() as interp:
        assert interp.eval("(+ 1 2)") == 3
    assert interp.closed
    for use in (
        lambda: interp.eval("1"),
        lambda: interp.eval_scheme("1"),
        lambda: interp.call("car", [1]),
        lambda: interp.define("x", 1),
        lambda: interp.run_scheme(lambda: 1),
    ):
        with pytest.raises(SchemeError, match="this interpreter is closed") as info:
            use()
        assert info.value.kind == "value-error"
    interp.close()  # again: nothing to do


def test_close_during_a_run_is_refused() -> None:
    interp = Interpreter()
    started, release = threading.Event(), threading.Event()
    interp.define("wait", lambda: started.set() or release.wait(10))
    worker = threading.Thread(target=interp.eval, args=("(wait)",))
    worker.start()
    try:
        assert started.wait(10)
        with pytest.raises(SchemeError, match="close: a run is under way"):
            interp.close()
    finally:
        release.set()
        worker.join(10)
    interp.close()
    assert interp.closed


def test_closing_releases_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "run.jsonl"
    with Interpreter(journal=journal), pytest.raises(SchemeError, match="is locked"):
        Interpreter(journal=journal)
    with Interpreter(journal=journal) as again:  # free once the first is closed
        assert again.journal is not None


def test_closing_an_isolated_interpreter_ends_its_child() -> None:
    interp = Interpreter(isolate=True)
    assert interp.eval("(+ 1 2)") == 3
    assert interp.isolation is not None
    process = interp.isolation.process
    assert process is not None and process.poll() is None
    interp.close()
    assert process.wait(10) is not None
    with pytest.raises(SchemeError, match="this interpreter is closed"):
        interp.eval("1")


def test_a_dropped_procedure_frees_its_compiled_code(collector_off: None) -> None:
    """A procedure compiled to Python (after its first calls) and then redefined: its body's
    function and namespace are freed at once, with the quoted data in them."""
    interp = Interpreter()
    interp.eval(
        "(define (f n) (let loop ((i 0) (acc '())) (if (= i n) (cons '(a b c) acc) (loop (+ i 1) (cons i acc)))))"
    )
    before = {id(body) for body in compiled_bodies()}  # other interpreters' in this process
    interp.eval("(f 3) (f 3) (f 3)")
    bodies = [weakref.ref(body) for body in compiled_bodies() if id(body) not in before]
    assert bodies, "f was not compiled"
    interp.eval("(define (f n) n)")
    assert all(body() is None for body in bodies)
    assert body_namespaces_left_to_the_collector() == 0


def body_namespaces_left_to_the_collector() -> int:
    """The compiled bodies' namespaces that only the cyclic collector would free."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return sum(1 for o in gc.garbage if type(o) is dict and "on_error" in o and "Closure" in o)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def compiled_bodies() -> list[object]:
    """The compiled procedure bodies alive now."""
    return [o for o in gc.get_objects() if type(o).__name__ == "function" and is_body(o)]


def is_body(function: object) -> bool:
    code = getattr(function, "__code__", None)
    return code is not None and code.co_filename == "<taskscheme body>"


def test_an_error_does_not_keep_the_frames_it_came_through(collector_off: None) -> None:
    """The Python frames an error passed through are cleared as it leaves the run: a local of a
    failing host function is freed while the host still holds the error."""
    made: list[weakref.ref[Marker]] = []

    def fail() -> None:
        local = Marker()
        made.append(weakref.ref(local))
        raise ValueError("no")

    interp = Interpreter()
    interp.define("fail", fail)
    with pytest.raises(SchemeError) as info:
        interp.eval("(define (go) (fail) 1) (go)")
    assert made[0]() is None
    assert "no" in info.value.message
