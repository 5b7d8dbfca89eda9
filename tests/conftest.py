"""Shared test setup: import paths, the corpus and weights, and CI's rule that a skip is a failure."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT)]
WEIGHTS = ROOT / "weights"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CORPUS = Path(os.environ.get("ATTENTION_LIVE_CORPUS", ROOT.parent / "shared" / "corpus"))


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
