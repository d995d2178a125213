"""R7RS conformance: each tests/r7rs/*.scm file (one per section of the report, with the
standard's own examples) runs under the stdlib test harness and must pass completely."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import Interpreter

R7RS_DIR = Path(__file__).parent / "r7rs"
FILES = sorted(
    R7RS_DIR.glob("*.scm"), key=lambda p: [int(x) if x.isdigit() else x for x in p.stem.split("-")[0].split(".")]
)

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel


def run_file(path: Path, workdir: Path) -> tuple[int, int, list[str]]:
    """(passed, failed, failure lines) for one conformance file."""
    interp = Interpreter(allow_files=[str(workdir), str(R7RS_DIR)], stdout=_Sink())
    interp.eval_file(path)
    passed, failed = interp.eval("(test-results)")
    failures = [str(line) for line in interp.eval("(test-failures)")]
    return passed, failed, failures


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_r7rs_section(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    passed, failed, failures = run_file(path, tmp_path)
    print(f"{path.stem}: {passed} passed, {failed} failed")
    assert failed == 0, "\n".join(failures)
    assert passed > 0


def test_every_section_has_a_file() -> None:
    sections = {p.stem.split("-")[0] for p in FILES}
    expected = {"4.1", "4.2", "4.3", "5"} | {f"6.{i}" for i in range(1, 15)}
    assert expected <= sections


def main() -> None:
    """Print the pass counts per section (for the README table)."""
    import os
    import tempfile

    total_passed = total_failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        for path in FILES:
            passed, failed, _ = run_file(path, Path(tmp))
            total_passed += passed
            total_failed += failed
            print(f"| {path.stem} | {passed} | {failed} |")
    print(f"| total | {total_passed} | {total_failed} |")


if __name__ == "__main__":
    main()
