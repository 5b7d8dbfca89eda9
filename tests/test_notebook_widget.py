"""The figure in a Jupyter notebook (attention_live.widget), computed by the kernel, in a real JupyterLab.

A headless JupyterLab server (pinned in requirements-test.txt, with anywidget) runs a notebook whose
kernel imports the package from py/; Playwright opens it in Chromium and runs its cells as a reader
does (a click in the cell, Shift+Enter). The widget must show the figure with CPython's numbers, follow
the reader's typing with numbers the kernel computed (over the widget's messages: no Pyodide, no
request for the build's files), give the notebook what the reader did (w.text), and move when a later
cell sets ``w.layer = 1``.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

import build
from support.figure_page import WAIT_MS, FigurePage, Watch, browser_context, containing

TEXT = "Then the Queen turned to Alice and said"
TYPED = " to the"
TOLERANCE = 2e-6  # float32 numbers computed by the same CPython code, sent as bytes: only the page's float32 → float64 reading
CELLS = [
    f"from attention_live.widget import AttentionLive\nw = AttentionLive(text={TEXT!r})\nw",
    "w.layer = 1",
    "print(repr(w.text), w.token, w.layer)",
]


def notebook(cells):
    """A notebook (nbformat 4) of code ``cells``, as JSON."""
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                       "cells": [{"cell_type": "code", "id": f"cell-{i}", "metadata": {}, "execution_count": None, "outputs": [],
                                  "source": source} for i, source in enumerate(cells)]})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 (no token, its own config and data folders), its kernels
    importing attention_live from py/ (with the widget's built files); yields its URL."""
    if not (build.NOTEBOOK_FILES / "widget.js").exists():
        build.build()
    folder = tmp_path_factory.mktemp("notebook")
    (folder / "figure.ipynb").write_text(notebook(CELLS), encoding="utf-8")
    home = folder / ".home"
    env = {**os.environ, "PYTHONPATH": str(build.ROOT / "py"), "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "IPYTHONDIR": str(home / "ipython"), "JUPYTER_PLATFORM_DIRS": "1"}
    port = free_port()
    log = (folder / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
                               "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={folder}", "--allow-root",
                               "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                               "--LabApp.extension_manager=readonly"],
                              cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:  # the server answers its status API once it serves
            assert server.poll() is None, (folder / "server.log").read_text()
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            assert time.monotonic() < deadline, "JupyterLab did not answer in 120 s:\n" + (folder / "server.log").read_text()
            time.sleep(0.2)  # polling a readiness signal (the status API), not waiting in its place
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def run_cell(page, index):
    """Run the notebook's cell ``index`` as a reader does: click its editor, Shift+Enter."""
    page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")


def check_numbers(state, figure, layer, head):
    """state() equals CPython's Figure for its own text: tokens, and the head's whole matrix."""
    result = figure.analyse(state["text"])
    assert (state["ids"], state["tokens"]) == (result["ids"], result["labels"])
    assert (state["layer"], state["head"]) == (layer, head)
    worst = float(np.max(np.abs(np.asarray(state["matrix"]) - result["attention"][layer - 1, head - 1])))
    assert worst <= TOLERANCE, worst


def test_the_widget_in_jupyterlab(playwright, jupyterlab, figure):
    watch = Watch(jupyterlab)
    with browser_context(playwright, viewport={"width": 1280, "height": 1000}) as context:
        page = watch.page(watch.context(context).new_page())
        page.goto(f"{jupyterlab}/lab/tree/figure.ipynb?reset")
        page.locator(".jp-Notebook .jp-Cell .cm-content").first.wait_for(timeout=WAIT_MS)
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=WAIT_MS)  # the status bar: the kernel runs
        run_cell(page, 0)
        page.locator(".jp-OutputArea attention-live").wait_for(state="attached", timeout=WAIT_MS)
        element = FigurePage(page, ".jp-OutputArea attention-live")
        element.wait_for_state("ready", text=TEXT, layer=2, head=3, token=7)
        state = element.state()
        assert state["runtime"]["kind"] == "kernel"  # the kernel's Python, not a worker's
        element.wait_for_element("#status", text=containing("computed live by the notebook's kernel"))
        element.wait_for_element("#computed-where", text="by the notebook's kernel")  # the about text's "in this tab" is not true here
        element.wait_for_element("#copy-link", hidden=True)  # no page of the figure to link to
        check_numbers(state, figure, 2, 3)

        text_box = page.locator(".jp-OutputArea attention-live").locator("#text")  # Playwright's CSS reaches into the shadow root
        text_box.click()
        text_box.press("End")
        text_box.press_sequentially(TYPED)  # typed into the figure, not into the notebook (no cell is added)
        element.wait_for_state("ready", text=TEXT + TYPED)
        check_numbers(element.state(), figure, 2, 3)
        assert page.locator(".jp-Notebook .jp-Cell").count() == len(CELLS)

        run_cell(page, 1)  # w.layer = 1
        element.wait_for(layer=1, text=TEXT + TYPED)
        check_numbers(element.state(), figure, 1, 3)

        run_cell(page, 2)  # the kernel's values: what the reader typed, the query (1-based), the layer
        printed = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-OutputArea-output")
        printed.wait_for(timeout=WAIT_MS)
        shown = element.state()
        assert printed.inner_text().strip() == f"{TEXT + TYPED!r} {shown['token'] + 1} 1"

        # the figure takes JupyterLab's theme, and follows it when the reader changes it
        figure_root = "(element) => getComputedStyle(element.shadowRoot.querySelector('.figure')).colorScheme"
        host = page.locator(".jp-OutputArea attention-live")
        assert (host.get_attribute("theme"), host.evaluate(figure_root)) == ("light", "light")
        page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
        page.locator(".lm-Menu-itemLabel").get_by_text("Theme", exact=True).hover()
        page.locator(".lm-Menu-itemLabel").get_by_text("JupyterLab Dark", exact=True).click()
        element.wait_for_element(".figure")  # the figure still there
        page.wait_for_function("() => document.querySelector('.jp-OutputArea attention-live').getAttribute('theme') === 'dark'", timeout=WAIT_MS)
        assert host.evaluate(figure_root) == "dark"

    watch.check()
    assert not [url for url in watch.requests if "pyodide" in url or "worker.js" in url]  # no Pyodide in a notebook
