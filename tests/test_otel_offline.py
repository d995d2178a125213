"""--otel without a collector: OTEL_TRACES_EXPORTER picks console, otlp or none, and a
collector that is down or silent is warned about once and never holds the exit up."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = '(define-model "m" (lambda (p s) "x")) (define-task (t) (model "m") (prompt "q")) (display (get (t) \'status)) (newline)'


def run(tmp_path: Path, *flags: str, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run PROGRAM; the finished process and the seconds from its last line of output to its exit."""
    program = tmp_path / "p.scm"
    program.write_text(PROGRAM)
    environment = {**os.environ, **env}
    environment.pop("OTEL_EXPORTER_OTLP_TIMEOUT", None)
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "repl.py"), *flags, str(program)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    printed = time.monotonic()
    rest, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, line + rest, err), time.monotonic() - printed


def test_the_console_exporter_writes_spans_on_standard_error(tmp_path: Path) -> None:
    done, _ = run(tmp_path, "--otel", OTEL_TRACES_EXPORTER="console")
    assert done.returncode == 0 and done.stdout == "COMPLETE\n"  # standard output stays the program's
    assert '"name": "chat m"' in done.stderr and '"gen_ai.request.model": "m"' in done.stderr


def test_none_exports_nothing_and_an_unknown_exporter_is_an_error(tmp_path: Path) -> None:
    done, _ = run(tmp_path, "--otel", OTEL_TRACES_EXPORTER="none")
    assert done.returncode == 0 and done.stdout == "COMPLETE\n" and done.stderr == ""
    done, _ = run(tmp_path, "--otel", OTEL_TRACES_EXPORTER="zipkin")
    assert done.returncode == 1 and "OTEL_TRACES_EXPORTER=zipkin is not one of otlp, console, none" in done.stderr


@pytest.fixture
def silent_collector() -> Iterator[str]:
    """A port that accepts connections and never answers (a hung collector)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def closed_port() -> str:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("collector", ["silent", "refused"])
def test_no_collector_warns_once_and_delays_the_exit_less_than_a_second(
    tmp_path: Path, collector: str, silent_collector: str
) -> None:
    endpoint = silent_collector if collector == "silent" else closed_port()
    delays = []
    for _ in range(2):  # best of two: the machine is shared
        plain, baseline = run(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint)
        done, waited = run(tmp_path, "--otel", OTEL_EXPORTER_OTLP_ENDPOINT=endpoint)
        assert plain.returncode == 0 and done.returncode == 0 and done.stdout == "COMPLETE\n"
        warnings = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(warnings) == 1 and warnings[0].startswith(f"warning: --otel: cannot send traces to {endpoint}")
        delays.append(waited - baseline)
    assert min(delays) < 1.0, delays


def test_an_export_still_waiting_at_exit_is_warned_about(tmp_path: Path, silent_collector: str) -> None:
    """The collector's own timeout (10 s here) outlasts the exit's wait: the exit does not wait
    for it, and says the traces were not sent instead of ending silently."""
    done, waited = run(
        tmp_path, "--otel", OTEL_EXPORTER_OTLP_ENDPOINT=silent_collector, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT="10"
    )
    assert done.returncode == 0 and done.stdout == "COMPLETE\n"
    warnings = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"warning: --otel: cannot send traces to {silent_collector}")
    assert "no answer within 0.5 s, at exit" in warnings[0]
    assert waited < 5.0
