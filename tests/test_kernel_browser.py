"""The kernel as a user sees it: ``examples/notebook.ipynb`` run in JupyterLab, in Debian's chromium.

What jupyter_client cannot see is how a front end draws the messages: JupyterLab's stylesheet
right-aligned the result tables' cells, its completion menu wrapped long kinds over the next
row, and the trace viewer's tree had no room for span names in a cell's width. This test opens
the example notebook in a real JupyterLab (a server on 127.0.0.1 with a token, the kernel
installed by ``taskscheme kernel install --prefix``), runs every cell and looks at the page.

Slow (a server, a kernel and a browser: about 15 s); skipped without jupyterlab, playwright or
``/usr/bin/chromium`` (``.ci/run`` installs all three).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ipykernel")
if importlib.util.find_spec("jupyterlab") is None:  # run as `python -m jupyterlab`: importing it here took 2.5 s of each worker's collection
    pytest.skip("needs jupyterlab", allow_module_level=True)
playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "taskscheme-browser-test"
TIMEOUT_MS = 60_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"jupyter lab exited {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"jupyter lab did not answer in 60 s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server on 127.0.0.1 serving a copy of the example notebook; its base URL."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (apt-get install chromium)")
    prefix, root, home = tmp_path / "prefix", tmp_path / "notebooks", tmp_path / "home"
    for folder in (root, home):
        folder.mkdir()
    shutil.copy(CHECKOUT / "examples" / "notebook.ipynb", root / "notebook.ipynb")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")])),
        "HOME": str(home),
        "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "LLM_USER_PATH": str(home / "llm"),
    }
    installed = subprocess.run(
        [sys.executable, "-m", "interpreter", "kernel", "install", "--prefix", str(prefix)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    port, log = free_port(), tmp_path / "lab.log"
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}", "--allow-root",
    ]  # fmt: skip
    with log.open("wb") as out:
        server = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{base}/api/status?token={TOKEN}", server, log)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def all_cells_ran(page: Any) -> None:
    """Wait until every code cell shows an execution count ("[3]:", not "[*]:" or "[ ]:")."""
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=TIMEOUT_MS,
    )


def test_the_example_notebook_in_jupyterlab(lab: str, tmp_path: Path) -> None:
    with playwright_api.sync_playwright() as play:
        browser = play.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 3000})
        page.set_default_timeout(TIMEOUT_MS)
        try:
            page.goto(f"{lab}/lab/tree/notebook.ipynb?token={TOKEN}&reset")
            # the notebook's kernel (its metadata names taskscheme) is connected and idle: Run All
            # before that opens JupyterLab's "Select Kernel" dialog
            page.wait_for_selector(".jp-StatusBar-TextItem:text-is('taskscheme | Idle')")
            page.click(".lm-MenuBar-itemLabel:text-is('Run')")
            page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
            all_cells_ran(page)
            check_outputs(page)
            check_completion(page)
        finally:
            page.screenshot(path=str(tmp_path / "notebook.png"), full_page=True)  # to look at when it fails
            browser.close()


def check_outputs(page: Any) -> None:
    outputs = page.locator(".jp-OutputArea-output")
    assert "defined: draft-notes" in outputs.first.inner_text()  # display: a stream
    # the LoopResult table: left-aligned cells (JupyterLab's stylesheet right-aligns td), history folded
    loop = page.locator("table.taskscheme-result:has(caption:text-is('LoopResult'))")
    content = loop.locator("tr:has(th:text-is('content')) td")
    assert content.evaluate("td => getComputedStyle(td).textAlign") == "left"
    assert "- Fix the reader" in content.inner_text()
    history = page.locator("details:has(table.taskscheme-history)")
    assert not history.locator("table").is_visible()
    history.locator("summary").click()
    rows = history.locator("tr")
    assert rows.count() == 3 and "too short" in rows.nth(1).inner_text()
    assert rows.nth(1).locator("td").nth(1).evaluate("td => getComputedStyle(td).textAlign") == "left"
    # the error cell: message, cell[N]:line:col, backtrace; no Python traceback
    (error,) = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").filter(
        has_text="error: task draft-notes"
    ).all()
    shown = error.inner_text()
    assert "in notes-for" in shown and "cell[" in shown and "Traceback" not in shown
    # the trace viewer inline: its tree has room for the span names
    trace = page.frame_locator("iframe.taskscheme-trace")
    label = trace.locator("#tree .label").first
    assert "cell[" in label.inner_text()
    assert label.evaluate("e => e.getBoundingClientRect().width") > 100


def check_completion(page: Any) -> None:
    """Tab in a new cell: the names with their one-word kinds, drawn on one row each."""
    page.locator(".jp-CodeCell .jp-InputPrompt").last.click()
    page.keyboard.press("b")  # a new cell below, in edit mode
    page.keyboard.press("Enter")
    page.keyboard.type("(draft-no")
    page.keyboard.press("Tab")
    only = page.locator(".jp-Completer-item")
    only.first.wait_for()  # one match, one row: its kind and, asked from the kernel, its documentation
    assert only.count() == 1 and only.first.inner_text().split() == ["t", "draft-notes", "task"]
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('.jp-Cell.jp-mod-active .cm-content').textContent.startsWith('(draft-notes')"
    )
    page.keyboard.type(" (a")  # several matches: the menu
    page.keyboard.press("Tab")
    items = page.locator(".jp-Completer-item")
    items.first.wait_for()
    kinds = json.loads(
        page.evaluate(
            """() => JSON.stringify([...document.querySelectorAll('.jp-Completer-item')].map(item => [
                item.querySelector('.jp-Completer-match').textContent,
                item.querySelector('.jp-Completer-typeExtended')?.textContent ?? '',
                item.getBoundingClientRect().height]))"""
        )
    )
    by_name = {name: kind for name, kind, _ in kinds}
    assert by_name.get("abs") == "primitive" and by_name.get("and") == "syntax", kinds
    heights = {round(height) for _, _, height in kinds}
    assert len(heights) == 1, kinds  # no kind wraps onto a second line
