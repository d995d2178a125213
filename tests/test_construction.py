"""Building interpreters: host primitives keep their own arity and doc (found once per
``def``, see ``primitives/registry.py``), and interpreters share nothing a program can change."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.repl.describe import describe


def wrapping(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator: every wrapper it makes runs the same code."""

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        return fn(*args)

    return wrapper


def test_wrappers_from_one_decorator_take_the_arity_of_what_they_wrap() -> None:
    interp = Interpreter()
    interp.define_primitive("one", wrapping(lambda a: a))
    interp.define_primitive("two", wrapping(lambda a, b=0: b))
    assert interp.eval("(list (one 1) (two 1 2) (two 1))") == [1, 2, 0]
    with pytest.raises(SchemeError, match="one: expected 1 argument"):
        interp.eval("(one 1 2)")
    with pytest.raises(SchemeError, match="two: expected 1 to 2 arguments, given 3"):
        interp.eval("(two 1 2 3)")


def documented(doc: str | None) -> Callable[[Any], Any]:
    def fn(x: Any) -> Any:
        return x

    fn.__doc__ = doc
    return fn


def test_functions_of_one_def_keep_their_own_docstrings() -> None:
    interp = Interpreter()
    interp.define_primitive("first", documented("The first one.\nMore about it."))
    interp.define_primitive("second", documented("The second one."))
    interp.define_primitive("third", documented(None))
    assert "The first one." in describe(interp, "first", {}) and "More" not in describe(interp, "first", {})
    assert "The second one." in describe(interp, "second", {})
    assert "one." not in describe(interp, "third", {})


def test_a_rebinding_in_one_interpreter_leaves_the_others_inline_code_alone() -> None:
    """Each interpreter has its own flags (a built-in still intact) and cells: ``car`` rebound
    in one, compiled code in another still takes the built-in."""
    first, second = Interpreter(), Interpreter()
    for interp in (first, second):
        interp.eval("(define (head l) (car l))")
        assert interp.eval("(head '(1 2))") == 1
    first.eval("(set! car cdr)")
    assert first.eval("(head '(1 2))") == [2]
    assert second.eval("(head '(1 2))") == 1
    assert Interpreter().eval("(head '(1 2))".replace("head", "car")) == 1


def test_interpreters_built_in_parallel_threads_are_whole() -> None:
    """Construction shares only immutable tables between threads (arities, docstrings, the
    built-ins by symbol): interpreters built at once each run the prelude and primitives."""
    from concurrent.futures import ThreadPoolExecutor

    def build(n: int) -> Any:
        interp = Interpreter()
        return interp.eval(f"(list (sum (list-tabulate {n} identity)) (call-with-output-string (lambda (p) (write {n} p))))")

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(build, range(20)))
    assert results == [[n * (n - 1) // 2, str(n)] for n in range(20)]
