"""interpreter.stack: measuring the Python stack without walking it, and fresh stacks."""

from __future__ import annotations

import sys
import threading

import pytest

from interpreter.stack import Anchor, anchor_here, python_depth, run_on_fresh_stack, stack_height


def walked_depth() -> int:
    """The caller's height, counted the slow way (every frame)."""
    frame = sys._getframe(1)
    n = 0
    while frame is not None:
        frame = frame.f_back
        n += 1
    return n


def down(n: int, probe: object) -> object:
    return probe() if n == 0 else down(n - 1, probe)


@pytest.mark.parametrize("levels", [0, 1, 7, 100, 500])
def test_python_depth_counts_every_frame(levels: int) -> None:
    assert down(levels, lambda: python_depth() == walked_depth())


@pytest.mark.parametrize("levels", [0, 3, 200])
def test_stack_height_counts_from_an_anchor(levels: int) -> None:
    anchor = anchor_here(0, python_depth())

    def probe() -> bool:
        height, found = stack_height(anchor, levels)  # at least one frame a level above the anchor
        assert found is not None and len(found.heights) == 1
        return height == walked_depth()

    assert down(levels, probe)


def test_stack_height_without_its_anchor_counts_the_stack() -> None:
    def returned() -> Anchor:
        return Anchor(0, {sys._getframe(0): python_depth()})

    gone = returned()

    def probe() -> bool:
        height, found = stack_height(gone, 10)
        return found is None and height == walked_depth()

    assert down(30, probe)


def test_run_on_fresh_stack_returns_and_raises_from_another_thread() -> None:
    assert run_on_fresh_stack(lambda: threading.current_thread().name, lambda: None) == "taskscheme-deep"
    with pytest.raises(KeyError):
        run_on_fresh_stack(lambda: {}["missing"], lambda: None)
