"""Shared test setup: import paths, the corpus and weights, and CI's rule that a skip is a failure."""

import os
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT)]
WEIGHTS = ROOT / "weights"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CORPUS = Path(os.environ.get("ATTENTION_LIVE_CORPUS", ROOT.parent / "shared" / "corpus"))
CASES = Path(os.environ.get("ATTENTION_LIVE_CASES", ROOT.parent / "shared" / "cases" / "hostile-inputs.md"))
PATHOLOGICAL_TEXTS = {  # the cases file's "pathological lengths", by name
    "a*20000": "a" * 20000,
    "spaces*20000+a": " " * 20000 + "a",
    "5000 letters": "".join(random.Random(7).choices("abcdefghijklmnopqrstuvwxyz", k=5000)),
}


@pytest.fixture(scope="session")
def corpus_dir():
    if not sorted(CORPUS.glob("*.txt")):
        pytest.skip(f"no corpus at {CORPUS}; set ATTENTION_LIVE_CORPUS")
    return CORPUS


@pytest.fixture(scope="session")
def figure():
    from attention_live.figure import Figure

    return Figure((WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes())


def pytest_sessionfinish(session, exitstatus):
    """With CI=true, any skipped test fails the run: a skip must not pass for green."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if os.environ.get("CI", "").lower() == "true" and skipped and session.exitstatus == 0:
        reporter.write_line(f"CI=true: {skipped} skipped test(s) count as failures", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def axe_source():
    """axe.min.js of the pinned axe-core (support/axe.py), once per session."""
    from support.axe import axe_min_js

    return axe_min_js()


@pytest.fixture(scope="session")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="session")
def origin():
    """The origin (http://127.0.0.1:PORT) serving dist/ for the whole session."""
    from support.figure_page import serve_dist

    with serve_dist() as url:
        yield url


@pytest.fixture(scope="module")
def browser_page(origin, playwright):
    """One page per test module, live, shared by its tests: a FigurePage.

    At the end, fails on any page error, console error or dialog and on any request that left the
    page's origin, the worker's included (figure_page.Watch)."""
    from support.figure_page import FigurePage, Watch, browser_context

    watch = Watch(origin)
    with browser_context(playwright) as context:
        figure_page = FigurePage(watch.page(watch.context(context).new_page()))
        figure_page.open(origin + "/")
        yield figure_page
    watch.check()
    assert any(url.endswith(".wasm") for url in watch.requests), "the worker's requests were not observed"
