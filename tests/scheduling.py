"""xdist's scheduling for this suite: whole test files, the longest first.

``pytest -n N`` hands tests out with ``--dist load`` by default: consecutive chunks of
hundreds of tests, so near the end one worker may still hold several long tests while
the others are idle, and a module's fixtures (a kernel, an isolated child) are made on
every worker that gets one of its tests. Here each worker takes one file at a time, the
longest of those left first (longest-processing-time-first; files not listed keep their
order, after the listed ones). Replayed over one ``-n 2`` run's per-test wall times, three
workers end within a second of each other instead of 17 s apart, 11 s sooner.

The figures are seconds on the wall clock per file, from one ``pytest -n 2`` run on the
2-core machine (shared with other work, so only their order matters): files of 3 s or
more. A new long file should be added here (``-p cpuwall``-like timing, or ``--durations``).

A test whose cases are chunks of one long job (the 2,000 fuzzed programs) is listed in
:data:`SPLIT_SECONDS`: each of its cases is a unit of its own, so the chunks go to different
workers instead of one worker running them all in a row.
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling
from xdist.workermanage import WorkerController

#: Wall seconds per test file (3 s or more), from a ``pytest -n 2`` run.
FILE_SECONDS: dict[str, float] = {
    "tests/test_live_display.py": 45,
    "tests/test_fuzz.py": 12,
    "tests/test_compiled_equivalence.py": 30,
    "tests/test_memory_budget.py": 29,
    "tests/test_providers.py": 28,
    "tests/test_isolate_process.py": 28,
    "tests/test_kernel_browser.py": 26,
    "tests/test_time_polls.py": 23,
    "tests/test_durable_crash.py": 23,
    "tests/test_limits.py": 20,
    "tests/test_prim_lists.py": 19,
    "tests/test_trace_viewer.py": 14,
    "tests/test_otel_offline.py": 14,
    "tests/test_docs.py": 14,
    "tests/test_tail_calls.py": 12,
    "tests/test_fused.py": 12,
    "tests/test_trace_tree.py": 11,
    "tests/test_prelude_cache.py": 11,
    "tests/test_kernel.py": 11,
    "tests/test_batch.py": 11,
    "tests/test_reader.py": 9,
    "tests/test_parallel.py": 9,
    "tests/test_printer.py": 8,
    "tests/test_cli.py": 8,
    "tests/test_durable.py": 7,
    "tests/test_batch_lifecycle.py": 7,
    "tests/test_batch_eval.py": 7,
    "tests/test_trmc.py": 6,
    "tests/test_sandbox_capabilities.py": 6,
    "tests/test_release.py": 6,
    "tests/test_repl.py": 5,
    "tests/test_reader_spans.py": 5,
    "tests/test_partial_results.py": 5,
    "tests/test_model_calls.py": 5,
    "tests/test_unbound_names.py": 4,
    "tests/test_tasks_scripts.py": 4,
    "tests/test_repl_pty.py": 4,
    "tests/test_prim_vectors.py": 4,
    "tests/test_inline_walks.py": 4,
    "tests/test_codegen_golden.py": 3,
}

#: Tests whose parametrized cases are each a unit of work of their own: wall seconds per case.
SPLIT_SECONDS: dict[str, float] = {
    "tests/test_fuzz.py::test_two_thousand_fuzzed_programs_stay_inside_their_limits": 8,
}


def seconds(scope: str) -> float:
    """How long a unit (a file, or one case of a split test) took, for the order only."""
    return FILE_SECONDS.get(scope) or SPLIT_SECONDS.get(scope.partition("[")[0], 0.0)


class LongestFileFirst(LoadFileScheduling):
    """``--dist loadfile``, with the next file for a worker the longest one still waiting; each
    case of a test in :data:`SPLIT_SECONDS` is a unit of its own."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.partition("[")[0] in SPLIT_SECONDS:
            return nodeid
        return super()._split_scope(nodeid)

    def _assign_work_unit(self, node: WorkerController) -> None:
        longest = max(self.workqueue, key=seconds)  # the first of equals
        self.workqueue.move_to_end(longest, last=False)
        super()._assign_work_unit(node)
