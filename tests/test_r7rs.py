"""R7RS conformance: each tests/r7rs/*.scm file (one per section of the report, with the
standard's own examples, verbatim) runs under the stdlib test harness. Every test passes
except those marked ``(test-expect-fail "reason")``: what taskscheme does not support."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from interpreter import Interpreter

R7RS_DIR = Path(__file__).parent / "r7rs"
FILES = sorted(
    R7RS_DIR.glob("*.scm"), key=lambda p: [int(x) if x.isdigit() else x for x in p.stem.split("-")[0].split(".")]
)

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel


class Outcome(NamedTuple):
    passed: int
    failed: int
    failures: list[str]
    expected_failures: list[str]  # "test: reason"


def run_file(path: Path, workdir: Path) -> Outcome:
    """The harness's counts for one conformance file."""
    interp = Interpreter(allow_files=[str(workdir), str(R7RS_DIR)], stdout=_Sink())
    interp.eval_file(path)
    passed, failed = interp.eval("(test-results)")
    failures = [str(line) for line in interp.eval("(test-failures)")]
    expected = [str(line) for line in interp.eval("(test-expected-failures)")]
    return Outcome(passed, failed, failures, expected)


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_r7rs_section(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = run_file(path, tmp_path)
    print(f"{path.stem}: {outcome.passed} passed, {outcome.failed} failed, {len(outcome.expected_failures)} expected")
    assert outcome.failed == 0, "\n".join(outcome.failures)
    assert outcome.passed > 0
    assert all(line.split(": ", 1)[1].strip() for line in outcome.expected_failures), "an expected failure needs a reason"


def test_the_dynamic_wind_re_entry_example_is_an_expected_failure(tmp_path: Path) -> None:
    outcome = run_file(R7RS_DIR / "6.10-control.scm", tmp_path)
    assert len(outcome.expected_failures) == 1
    assert "re-entrant continuations are not supported" in outcome.expected_failures[0]


def test_an_expected_failure_that_passes_is_a_failure() -> None:
    interp = Interpreter()
    interp.eval('(test-expect-fail "should fail") (test 1 1) (test-expect-fail "fails") (test 1 2)')
    assert interp.eval("(test-results)") == [0, 1]
    assert "passed, but was expected to fail: should fail" in interp.eval("(car (test-failures))")
    assert interp.eval("(test-expected-failures)") == ["2: fails"]


def test_every_section_has_a_file() -> None:
    sections = {p.stem.split("-")[0] for p in FILES}
    expected = {"4.1", "4.2", "4.3", "5"} | {f"6.{i}" for i in range(1, 15)}
    assert expected <= sections


def main() -> None:
    """Print the pass counts per section (for the README table)."""
    import os
    import tempfile

    totals = [0, 0, 0]
    reasons: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        for path in FILES:
            outcome = run_file(path, Path(tmp))
            counts = (outcome.passed, outcome.failed, len(outcome.expected_failures))
            totals = [t + c for t, c in zip(totals, counts)]
            reasons += outcome.expected_failures
            print(f"| {path.stem} | {counts[0]} | {counts[1]} | {counts[2]} |")
    print(f"| total | {totals[0]} | {totals[1]} | {totals[2]} |")
    for line in reasons:
        print("expected failure:", line)


if __name__ == "__main__":
    main()
