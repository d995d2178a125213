"""Hostile programs and data files end in taskscheme errors, on time (issue 17, items 3, 7, 8)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from interpreter import Interpreter
from interpreter.errors import SchemeError
from interpreter.reader import ReadError


def failure(interp: Interpreter, source: str) -> SchemeError:
    with pytest.raises(SchemeError) as info:
        interp.eval(source)
    return info.value


@pytest.mark.parametrize(
    "literal", ["#e1e999999999", "#e1e2000000", "#e1.5e-99999999", "1" * 60_000, "#x" + "f" * 60_000]
)
def test_the_reader_refuses_an_exact_literal_past_max_digits(literal: str) -> None:
    start = time.monotonic()
    err = failure(Interpreter(timeout=1), literal)
    assert isinstance(err, ReadError)
    assert "max_digits = 50000" in err.message
    assert time.monotonic() - start < 1.5


def test_string_to_number_past_max_digits_is_a_resource_error() -> None:
    err = failure(Interpreter(), '(string->number "#e1e999999999")')
    assert err.kind == "resource-exhaustion"


@pytest.mark.parametrize(
    "source",
    [
        "(expt 10 60000)",
        "(* (expt 10 30000) (expt 10 30000))",
        "(let loop ((x 2)) (loop (* x x)))",
        "(square (expt 7 40000))",
    ],
)
def test_bignum_results_past_max_digits_are_refused(source: str) -> None:
    err = failure(Interpreter(timeout=5), source)
    assert err.kind == "resource-exhaustion"
    assert err.details["resource"] == "digits"
    assert err.details["limit"] == 50_000


def test_max_digits_is_configurable() -> None:
    small = Interpreter(max_digits=100)
    assert failure(small, "(expt 10 200)").details["limit"] == 100
    assert failure(small, "1" * 150).kind == "read-error"
    big = Interpreter(max_digits=200_000)
    assert big.eval("(expt 10 100000)") == 10**100_000
    assert Interpreter().eval("(expt 2 100000)") == 2**100_000  # the default allows ordinary bignums


def test_huge_fraction_in_a_step_is_no_python_exception() -> None:
    result = Interpreter().eval("(sequential (step y (/ (expt 10 400) 3)))")
    assert result.status == "COMPLETE"
    assert result.content == "1" + "0" * 400 + "/3"


def test_a_replay_file_of_binary_garbage_is_a_file_error(tmp_path: Path) -> None:
    replay = tmp_path / "calls.jsonl"
    replay.write_bytes(b"\xff\xfe\x00garbage\x80\x81")
    with pytest.raises(SchemeError) as info:
        Interpreter(replay=replay)
    assert info.value.kind == "file-error"
    assert "not UTF-8" in info.value.message
