"""Attention stacked on attention (issue 52, part 3): ``Figure.rollout`` and the panel "Attention stacked on
attention" against an independent float64 reference (support/rollout_reference.py: PyTorch's GPT in float64,
HF tokenizers, the rollout written from Abnar & Zuidema's definition), in CPython and in the tab: the
direct row, the row through layer 1 (``state().rollout``), Â₁ (``state().layer1_mix``) and what a key is made
of, by pointer and by keyboard; the panel by link, by the element's ``panels`` attribute and by ``select``,
in another language, and in the exported image."""

import numpy as np
import pytest

pytest.importorskip("torch")

from conftest import WEIGHTS  # noqa: E402
from support.figure_page import TOLERANCE, FigurePage, browser_context, course_site  # noqa: E402
from support.rollout_reference import RolloutReference  # noqa: E402

TEXTS = ('Then the Queen turned to Alice and said, "Off with her head!"',
         "The Mole had been working very hard all the morning, spring-cleaning his little home.",
         "I")


@pytest.fixture(scope="module")
def reference():
    return RolloutReference(WEIGHTS)


def percent(p):
    """A share as the English figure writes it: one decimal."""
    return f"{100 * p:.1f}%"


def test_rollout_is_the_float64_reference(figure, reference):
    view = figure.another_view()
    for text in TEXTS:
        attention = reference.attention(text)
        T = attention.shape[-1]
        view.analyse(text)
        for layer in (1, 2):
            for head in (1, 3):
                for token in sorted({0, T // 2, T - 1}):
                    got = view.rollout(layer, head, token)
                    assert got["direct"].dtype == got["rollout"].dtype == np.float32
                    assert np.max(np.abs(got["direct"] - attention[layer - 1, head - 1, token])) <= 1e-5
                    assert np.max(np.abs(got["rollout"] - reference.rollout(attention, layer, head, token))) <= 1e-5
                    assert np.max(np.abs(got["layer1_mix"] - reference.layer1_mix(attention))) <= 1e-5
                    assert got["rollout"].sum() == pytest.approx(1.0, abs=1e-5)
                    assert got["key_mix"] is None  # a 2-layer model: layer 2's keys are made as layer1_mix says
                    if layer == 1:
                        assert np.array_equal(got["rollout"], got["direct"])


def test_rollout_follows_the_what_ifs_and_refuses_a_view_outside_the_model(figure):
    view = figure.another_view()
    text = TEXTS[0]
    knocked = view.analyse(text, knockout=[(1, 2)], what_if=(2, 3, True, False))["attention"]
    got = view.rollout(2, 3, 7, knockout=[(1, 2)], what_if=(2, 3, True, False))
    assert np.array_equal(got["direct"], knocked[1, 2, 7])  # the row the chips show under the what-ifs
    mix = 0.5 * knocked[0].astype(np.float64).mean(axis=0) + 0.5 * np.eye(knocked.shape[-1])
    assert np.max(np.abs(got["rollout"] - knocked[1, 2, 7].astype(np.float64) @ mix)) <= 1e-6
    for layer, head, token in ((3, 1, 0), (1, 5, 0), (1, 1, 99)):
        with pytest.raises(ValueError, match="must be a whole number"):
            view.rollout(layer, head, token)


def panel_numbers(figure_page):
    """What the panel shows: heading, each row's name and cells, the key buttons and the two sentences."""
    return figure_page.evaluate("""() => {
        const view = document.getElementById('stack-view');
        const rows = Array.from(view.querySelectorAll('tbody tr'), (tr) => ({
            name: tr.cells[0].textContent, cells: Array.from(tr.cells).slice(1).map((td) => td.textContent) }));
        return { heading: view.querySelector('.stack-heading').textContent, rows,
                 keys: Array.from(view.querySelectorAll('thead button'), (b) => b.textContent),
                 pressed: Array.from(view.querySelectorAll('thead button[aria-pressed="true"]'), (b) => Number(b.dataset.key)),
                 reach: view.querySelector('.stack-reach').textContent, caveat: view.querySelector('.stack-caveat').textContent };
    }""")


def show_stacked(figure_page, reference, text, layer, head, token):
    """``text`` in the page with the panel open on that view, its numbers in: (state(), the reference's attention)."""
    figure_page.set_text(text)
    figure_page.select(layer=layer, head=head, token=token, panels="stack")
    wait_for_stacked(figure_page, token)
    return figure_page.state(), reference.attention(text)


def wait_for_stacked(figure_page, token):
    figure_page.wait_for_panel("stack")
    figure_page.wait_for_element("#stack-view .stack-table", attributes={"aria-busy": "false"})  # every column written
    figure_page.wait_until("(token) => { const s = window.attentionLive.state(); return s.rollout !== null && s.token === token; }", token)


def test_the_panel_shows_the_reference_by_link_pointer_and_keyboard(browser_page, reference):
    page = browser_page
    state, attention = show_stacked(page, reference, TEXTS[0], 2, 3, 7)
    want = reference.rollout(attention, 2, 3, 7)
    assert np.max(np.abs(np.array(state["rollout"]) - want)) <= TOLERANCE
    assert np.max(np.abs(np.array(state["layer1_mix"]) - reference.layer1_mix(attention))) <= TOLERANCE
    shown = panel_numbers(page)
    labels = state["tokens"]
    assert shown["heading"] == f"«{labels[7]}» (token 8 of {len(labels)}) in layer 2, head 3"
    assert shown["keys"] == labels[:8]
    assert [row["name"] for row in shown["rows"][:2]] == ["Directly, in this head", "Through layer 1"]
    assert shown["rows"][0]["cells"] == [percent(p) for p in attention[1, 2, 7, :8]]
    assert shown["rows"][1]["cells"] == [percent(p) for p in want[:8]]
    strongest = int(np.argmax(attention[1, 2, 7, :8]))  # the key shown first: the head's strongest
    assert shown["pressed"] == [strongest]
    assert shown["rows"][2]["name"] == f"What «{labels[strongest]}»'s key is made of"
    assert shown["rows"][2]["cells"] == [percent(p) for p in reference.layer1_mix(attention)[strongest, :8]]
    top = int(np.argmax(want[:8]))
    assert shown["reach"] == (f"Counting the mixing in the layers below, the typed token that reaches «{labels[7]}» most is "
                              f"«{labels[top]}»: {percent(want[top])} of its attention ends there (directly: {percent(attention[1, 2, 7, top])}).")
    assert shown["caveat"].startswith("Rollout (Abnar & Zuidema, 2020)")

    # the pointer over another column shows that key's make-up
    page.locator("#stack-view tbody tr.stack-direct td").nth(2).hover()
    page.wait_for_element("#stack-view thead button[aria-pressed='true']", attributes={"data-key": "2"})
    assert panel_numbers(page)["rows"][2]["cells"] == [percent(p) for p in reference.layer1_mix(attention)[2, :8]]
    # and by keyboard: the pressed key is the one tab stop; arrows move it, Home and End too
    page.locator("#stack-view thead button[aria-pressed='true']").focus()
    for key, index in (("ArrowRight", 3), ("Home", 0), ("End", 7), ("ArrowLeft", 6)):
        page.page.keyboard.press(key)
        page.wait_for_global("document.activeElement.dataset.key", str(index))
        shown = panel_numbers(page)
        assert shown["pressed"] == [index]
        assert shown["rows"][2]["name"] == f"What «{labels[index]}»'s key is made of"
        assert shown["rows"][2]["cells"] == [percent(p) for p in reference.layer1_mix(attention)[index, :8]]
    names = page.evaluate("() => Array.from(document.querySelectorAll('#stack-view thead button'), (b) => b.getAttribute('aria-label'))")
    assert names[5] == f"«{labels[5]}» (token 6): show what its key is made of"


def test_layer_1_has_nothing_below(browser_page, reference):
    page = browser_page
    state, attention = show_stacked(page, reference, TEXTS[1], 1, 1, 5)
    labels = state["tokens"]
    page.wait_for_element("#stack-view .stack-heading", text=f"«{labels[5]}» (token 6 of {len(labels)}) in layer 1, head 1")
    assert np.max(np.abs(np.array(state["rollout"]) - attention[0, 0, 5])) <= TOLERANCE
    assert np.max(np.abs(np.array(state["layer1_mix"]) - reference.layer1_mix(attention))) <= TOLERANCE
    shown = panel_numbers(page)
    assert len(shown["rows"]) == 2 and shown["rows"][1]["name"] == "Through the layers below: none, the same row"
    assert shown["rows"][1]["cells"] == shown["rows"][0]["cells"]
    assert shown["reach"].startswith("In layer 1 nothing is below")
    page.select(panels=[])
    page.wait_for(panels={"stack": False})
    assert page.state()["rollout"] is None and page.state()["layer1_mix"] is None


def test_the_element_s_panels_attribute_a_link_another_language_and_the_image(tmp_path, origin, playwright, reference):
    text = TEXTS[0]
    attention = reference.attention(text)
    body = '<attention-live lang="de" panels="stack" layer="2" head="3" token="8"></attention-live>'
    with course_site(tmp_path, {"unit.html": body}) as url, browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page(), element="attention-live")
        figure_page.page.goto(f"{url}/unit.html")
        figure_page.wait_for_state("ready", panels={"stack": True}, token=7)
        figure_page.wait_until("""() => document.querySelector('attention-live').state().rollout !== null""")
        shown = figure_page.evaluate("""() => {
            const view = document.querySelector('attention-live').shadowRoot.getElementById('stack-view');
            return [view.querySelector('.stack-heading').textContent, view.querySelector('.stack-reach').textContent,
                    view.closest('details').querySelector('summary').textContent];
        }""")
        want = reference.rollout(attention, 2, 3, 7)
        top = int(np.argmax(want[:8]))
        assert shown[0] == "«␣said» (Token 8 von 16) in Schicht 2, Head 3"
        assert shown[2] == "Attention auf Attention gestapelt"
        assert f"{100 * want[top]:.1f}\u00a0%".replace(".", ",") in shown[1] and "«␣Alice»" in shown[1]
        svg = figure_page.evaluate("""async () => await (await document.querySelector('attention-live').exportImage({ format: 'svg' })).text()""")
        assert "Attention auf Attention gestapelt" in svg and "Woraus der Key von «␣Alice» besteht" in svg
    with browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page())
        figure_page.open(f"{origin}/#text=Alice%20said&layer=2&head=3&panels=stack")
        figure_page.wait_for(text="Alice said", panels={"stack": True})
        figure_page.wait_for_panel("stack")
        figure_page.wait_for_link(panels="stack")
