"""Watch it learn: the shipped run's checkpoints in the tab, each equal to CPython's for its file, fetched
only when a reader asks; how focused each head is (row entropy), and what attention costs (the KV line)."""

import json
import math

import numpy as np
import pytest

from attention_live.figure import Figure
from conftest import WEIGHTS
import base64
import shutil

from support.figure_page import (EXPORTED_IMAGE, TOLERANCE, FigurePage, Watch, browser_context, build, containing, course_site,
                                 drop_compressed_copies, serving)

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
        assert entry["path"] in manifest["files"] and 0 < entry["validation"] < 10
    assert not {entry["path"] for entry in manifest["checkpoints"][:-1]} & set(manifest["startup"])  # the earlier ones: on request only


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
        assert page.page.evaluate("document.documentElement.dataset.offline") == "ready"
        stored = page.page.evaluate("""async () => { const urls = [];
            for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
            return urls; }""")
        assert any(url.endswith("/weights/model.safetensors") for url in stored), stored  # the model, the last checkpoint, is stored
        assert not [url for url in stored if "/weights/checkpoints/" in url]  # the earlier ones only once watched
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


def line_for(entry, last):
    """The control's line for a checkpoint, as the issue writes it: "step 500 of 5,000 · validation 4.31 nats/token"."""
    shipped = " (the trained model)" if entry["step"] == last["step"] else ""
    return f"step {entry['step']:,} of {last['step']:,}{shipped} · validation {entry['validation']:.2f} nats/token"


def test_the_control_by_keyboard_play_and_leaving_it(browser_page, manifest, checkpoint_figures):
    """Open it by its summary, step with the slider's keys, play through training, and close it: every
    view's numbers follow (the chips' row equals CPython's for that checkpoint), the line says which
    model is shown, and closing returns to the shipped model."""
    page = browser_page.page
    listed = manifest["checkpoints"]
    last = listed[-1]
    browser_page.set_text(TEXT)
    browser_page.select(layer=2, head=3, token=7)
    page.locator("#learn-panel > summary").click()
    browser_page.wait_for_element("#learn-panel", attributes={"open": ""})
    browser_page.wait_for_element(".learn-line", text=line_for(last, last))
    slider = page.locator("#learn-step")
    slider.focus()
    for key, index in [("Home", 0), ("ArrowRight", 1), ("End", len(listed) - 1), ("ArrowLeft", len(listed) - 2)]:
        page.keyboard.press(key)
        entry = listed[index]
        browser_page.wait_for(step=entry["step"])
        browser_page.wait_for_element(".learn-line", text=line_for(entry, last))
        want = checkpoint_figures[entry["step"]].another_view().analyse(TEXT)["attention"][1, 2, 7]
        chips = page.locator("#tokens .chip[data-weight]")
        browser_page.wait_for_chips(8, weighted=True)  # the query (token 7) and the keys before it
        got = [float(chips.nth(j).get_attribute("data-weight")) for j in range(8)]
        assert max(abs(g - w) for g, w in zip(got, want[:8])) <= 1e-3, (entry, got, want[:8])
        assert slider.get_attribute("aria-valuetext") == line_for(entry, last)
    page.locator(".learn-play").click()  # from the one shown on to the end, each drawn in turn
    browser_page.wait_for_element(".learn-play", text="Pause", attributes={"aria-pressed": "true"})
    browser_page.wait_for(step=last["step"])
    browser_page.wait_for_element(".learn-play", text="Play", attributes={"aria-pressed": "false"})
    page.locator(".learn-play").click()  # from the end: from the start again
    browser_page.wait_for(step=listed[0]["step"])
    page.locator("#learn-panel > summary").click()  # leaving the control: the shipped model
    browser_page.wait_for(step=last["step"])
    browser_page.wait_for_element(".learn-play", text="Play")
    assert page.locator("#learn-panel").evaluate("details => details.open") is False
    shipped = checkpoint_figures[last["step"]].another_view().analyse(TEXT)["attention"][1, 2, 7]
    assert max(abs(g - w) for g, w in zip(browser_page.state()["weights"], shipped)) <= TOLERANCE


def test_links_and_export_carry_the_step(origin, playwright, manifest):
    listed = manifest["checkpoints"]
    entry, last = listed[1], listed[-1]
    watch = Watch(origin)
    with browser_context(playwright) as context:
        page = FigurePage(watch.page(watch.context(context).new_page()))
        page.open(origin + f"/#text=Alice%20said&layer=2&head=3&step={entry['step']}")
        page.wait_for(step=entry["step"], text="Alice said")
        page.wait_for_element("#learn-panel", attributes={"open": ""})
        page.wait_for_link(step=str(entry["step"]))
        svg = page.page.evaluate(EXPORTED_IMAGE, "svg")
        text = base64.b64decode(svg["base64"]).decode("utf-8")
        assert f"Training step {entry['step']:,} of {last['step']:,}" in text and svg["name"].endswith(f"-step{entry['step']}.svg")
        page.page.goto(origin + "/#text=Alice%20said&step=77")  # not a listed step: said, and the shipped model
        page.wait_for(step=last["step"], text="Alice said")
        page.wait_for_element("#notice", text=containing("training step 77"))
    watch.check()


def test_the_element_s_step_attribute(tmp_path, origin, playwright, manifest):
    entry = manifest["checkpoints"][2]
    with course_site(tmp_path, {"unit.html": f'<attention-live text="Alice said" step="{entry["step"]}"></attention-live>'}) as url, \
            browser_context(playwright) as context:
        page = FigurePage(context.new_page(), element="attention-live")
        page.page.goto(url + "/unit.html")
        page.wait_for_state("ready", step=entry["step"])
        page.evaluate("""() => document.querySelector("attention-live").setAttribute("step", "0")""")
        page.wait_for(step=0)


def test_a_damaged_checkpoint_is_said_and_the_control_goes_back(tmp_path, playwright, manifest):
    """A checkpoint whose bytes differ from build.json's sha256 is refused by the worker's checked fetch:
    the status line names it, the control goes back to the model shown, and another checkpoint works."""
    damaged, good = manifest["checkpoints"][1], manifest["checkpoints"][2]
    site = tmp_path / "site"
    shutil.copytree(build.DIST, site)
    path = build.build_folder(site) / damaged["path"]
    drop_compressed_copies(path)  # the server sends the damaged file, not an intact copy of it
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    with serving(build.make_server(0, site)) as url, browser_context(playwright) as context:
        page = FigurePage(context.new_page())
        page.open(url + "/")
        page.select(step=damaged["step"])
        page.wait_for_status(containing(f"The checkpoint of step {damaged['step']} could not be shown"))
        assert f"the checkpoint of step {damaged['step']} is damaged" in page.status(), page.status()
        assert page.state()["step"] == manifest["checkpoints"][-1]["step"]
        page.select(step=good["step"])
        page.wait_for(step=good["step"])
