"""Watch it learn: the shipped run's checkpoints in the tab, each equal to CPython's for its file, fetched
only when a reader asks; how focused each head is (row entropy), and what attention costs (the KV line)."""

import json
import math

import numpy as np
import pytest

from attention_live.figure import Figure
from conftest import WEIGHTS
from support.figure_page import TOLERANCE, FigurePage, Watch, browser_context, build

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'


@pytest.fixture(scope="module")
def manifest():
    return json.loads((build.build_folder() / "build.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checkpoint_figures(manifest):
    """CPython's Figure for each listed checkpoint's file, as dist/ serves it: {step: Figure}."""
    tokenizer = (build.build_folder() / manifest["tokenizer"]).read_bytes()
    return {entry["step"]: Figure((build.build_folder() / entry["path"]).read_bytes(), tokenizer) for entry in manifest["checkpoints"]}


def reference_entropy(attention):
    """Entropy in bits of every row, written out here with Python's math (not focus.row_entropy)."""
    L, H, T, _ = attention.shape
    out = np.zeros((L, H, T))
    for l in range(L):
        for h in range(H):
            for i in range(T):
                out[l, h, i] = -sum(float(p) * math.log2(float(p)) for p in attention[l, h, i] if p > 0)
    return out


def test_the_build_lists_the_checkpoints_in_training_order(manifest):
    steps = [entry["step"] for entry in manifest["checkpoints"]]
    assert 6 <= len(steps) <= 10 and steps == sorted(steps) and steps[0] == 0
    assert manifest["checkpoints"][-1]["path"] == manifest["model"]
    for entry in manifest["checkpoints"]:
        assert entry["path"] in manifest["files"] and entry["path"] not in manifest["startup"]
        assert 0 < entry["validation"] < 10


def test_each_checkpoint_equals_cpython_and_no_request_comes_before_the_control(origin, playwright, manifest, checkpoint_figures):
    watch = Watch(origin)
    with browser_context(playwright) as context:
        page = FigurePage(watch.page(watch.context(context).new_page()))
        page.open(origin + "/")
        page.set_text(TEXT)
        page.wait_for_state("ready")
        page.page.wait_for_selector("html[data-offline]", state="attached")  # sw.js has stored the build (or could not)
        asked = [url for url in watch.requests if "/weights/checkpoints/" in url]
        assert asked == [], asked
        assert page.api("checkpoints") == [{"step": e["step"], "validation": e["validation"]} for e in manifest["checkpoints"]]
        shipped = manifest["checkpoints"][-1]["step"]
        assert page.state()["step"] == shipped
        for entry in manifest["checkpoints"]:
            step = entry["step"]
            page.select(step=step, layer=2, head=3)
            state = page.state()
            assert state["step"] == step
            want = checkpoint_figures[step].another_view().analyse(TEXT)
            got = np.array(state["matrix"], dtype=np.float32)
            assert float(np.max(np.abs(got - want["attention"][1, 2]))) <= TOLERANCE, step
            np.testing.assert_allclose(np.array(state["row_entropy"]), reference_entropy(want["attention"])[:, :, state["token"]], atol=1e-3)
        assert any("/weights/checkpoints/" in url for url in watch.requests)
        page.select(step=None)
        assert page.state()["step"] == shipped
        with pytest.raises(Exception, match="RangeError"):
            page.select(step=12345)
    watch.check()
