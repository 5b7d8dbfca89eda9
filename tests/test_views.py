"""The views below the chips (issue 10), in headless Chromium against CPython on the same weights: the
grid of every head, the selected head's whole matrix, the shared colour scale, their keyboard use and
text alternatives, and the layout on a phone-sized screen."""

import json

import numpy as np
import pytest

from conftest import WEIGHTS
from support.figure_page import TOLERANCE, check_view

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!" The Hatter sighed.'


def luminance(rgb):
    """WCAG relative luminance of sRGB bytes: the lightness a reader sees, for ordering cells."""
    c = np.asarray(rgb, dtype=np.float64) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ [0.2126, 0.7152, 0.0722]


@pytest.fixture
def page(browser_page):
    """The shared page with TEXT, «said» as the query in the default head, panels closed."""
    figure_page = browser_page
    default = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    figure_page.page.set_viewport_size({"width": 1000, "height": 800})
    figure_page.set_text(TEXT)
    figure_page.wait_for(text=TEXT)
    figure_page.select(layer=default["layer"], head=default["head"], token=default["token"])
    for name in ("heads", "matrix"):
        figure_page.open_panel(name, False)
    return figure_page


def test_the_grid_shows_every_head_and_clicking_one_selects_it(page, figure):
    page.open_panel("heads")
    config = figure.config
    thumbs = page.page.locator("#heads-grid [data-layer][data-head]")
    assert thumbs.count() == config.n_layer * config.n_head
    found = {(int(thumbs.nth(k).get_attribute("data-layer")), int(thumbs.nth(k).get_attribute("data-head")))
             for k in range(thumbs.count())}
    assert found == {(layer, head) for layer in range(1, config.n_layer + 1) for head in range(1, config.n_head + 1)}
    assert page.page.locator("#heads-grid [aria-pressed='true']").count() == 1
    page.page.locator("#heads-grid [data-layer='1'][data-head='2']").click()
    page.wait_for(head=2)
    state = check_view(page, figure)
    assert (state["layer"], state["head"]) == (1, 2)
    assert page.page.locator("#heads-grid [aria-pressed='true']").get_attribute("data-head") == "2"
    result = figure.analyse(state["text"])
    np.testing.assert_allclose(np.array(state["matrix"]), result["attention"][0, 1], atol=TOLERANCE)
    # every thumbnail outlines the query's row, and names its strongest key in its accessible name
    T = len(state["ids"])
    tops = page.page.eval_on_selector_all("#heads-grid .row", "rows => rows.map(r => parseFloat(r.style.top))")
    assert len(tops) == config.n_layer * config.n_head
    np.testing.assert_allclose(tops, 100 * state["token"] / T, rtol=1e-5)  # CSS serialises 6 significant digits
    label = page.page.locator("#heads-grid [data-layer='2'][data-head='3']").get_attribute("aria-label")
    row = result["attention"][1, 2, state["token"], : state["token"] + 1]
    assert f"attends most to «{result['labels'][int(row.argmax())]}», {row.max() * 100:.1f}%" in label


def test_the_grid_is_one_tab_stop_moved_by_the_arrow_keys(page):
    page.open_panel("heads")
    page.page.locator("#heads-grid [aria-pressed='true']").focus()
    assert page.page.eval_on_selector_all("#heads-grid button", "bs => bs.filter(b => b.tabIndex === 0).length") == 1
    page.page.keyboard.press("ArrowLeft")  # layer 2, head 3 -> head 2
    page.page.keyboard.press("ArrowUp")  # -> layer 1, head 2
    page.page.keyboard.press("Enter")
    page.wait_for(layer=1)
    assert (page.state()["layer"], page.state()["head"]) == (1, 2)


def test_the_matrix_is_the_selected_heads_attention(page, figure):
    page.open_panel("matrix")
    for layer, head in ((2, 3), (1, 1)):
        page.select(layer=layer, head=head)
        state = page.state()
        want = figure.analyse(state["text"])["attention"][layer - 1, head - 1]
        got = np.array(state["matrix"])
        print(f"layer {layer}, head {head}: largest difference from CPython {np.abs(got - want).max():.3g}")
        assert got.shape == want.shape and np.abs(got - want).max() <= TOLERANCE
        assert np.all(got[np.triu_indices(len(got), 1)] == 0)
        assert state["weights"] == state["matrix"][state["token"]]  # the chips' row is the matrix's row

        T, pixels = page.matrix_pixels()
        assert T == len(want)
        pixels = np.array(pixels)
        masked = np.triu(np.ones((T, T), dtype=bool), 1)
        grey = pixels[masked]
        assert (grey == grey[0]).all() and grey[0][0] == grey[0][1] == grey[0][2], "masked cells: one grey"
        shown = pixels[~masked]
        assert not (np.ptp(shown, axis=1) == 0).any(), "a weight drawn in the masked grey"
        order = np.argsort(want[~masked], kind="stable")
        assert np.all(np.diff(luminance(shown[order])) <= 1e-9), "cells do not darken as the weight grows"


def test_pointing_at_and_clicking_the_matrix(page, figure):
    page.open_panel("matrix")
    state = page.state()
    result = figure.analyse(state["text"])
    labels, attention = result["labels"], result["attention"][state["layer"] - 1, state["head"] - 1]
    said, alice = labels.index("\u2423said"), labels.index("\u2423Alice")
    page.point_at_cell(said, alice)
    assert page.page.locator("#matrix-readout").text_content() == f"«\u2423said» → «\u2423Alice»: {attention[said, alice] * 100:.1f}%."
    page.point_at_cell(alice, said)
    assert "masked" in page.page.locator("#matrix-readout").text_content()
    page.point_at_cell(3, 0)
    page.page.mouse.down()
    page.page.mouse.up()
    page.wait_for(token=3)
    check_view(page, figure)
    page.page.locator(".matrix-rows [data-index='0']").click()
    page.wait_for(token=0)
    page.page.locator("#matrix").focus()
    page.page.keyboard.press("ArrowDown")
    page.page.keyboard.press("ArrowDown")
    page.wait_for(token=2)
    page.page.keyboard.press("ArrowLeft")
    assert page.page.locator("#matrix-readout").text_content().startswith(f"«{labels[2]}» → «{labels[1]}»")
    check_view(page, figure)


def test_the_matrix_text_alternative_lists_each_querys_top_keys(page, figure):
    page.open_panel("matrix")
    state = page.state()
    attention = figure.analyse(state["text"])["attention"][state["layer"] - 1, state["head"] - 1]
    page.wait_for_element("#matrix-table", attributes={"aria-busy": "false"})
    rows = page.page.eval_on_selector_all("#matrix-table tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent))")
    assert len(rows) == len(state["ids"])
    for i, row in enumerate(rows):
        top = np.argsort(-attention[i, : i + 1], kind="stable")[:3]
        assert row[0] == f"«{state['tokens'][i]}» (token {i + 1})"
        assert row[1 : 1 + len(top)] == [f"«{state['tokens'][j]}» {attention[i, j] * 100:.1f}%" for j in top]


def test_phone_width_and_a_full_context(page, figure):
    page.page.set_viewport_size({"width": 390, "height": 800})
    page.open_panel("heads")
    page.open_panel("matrix")
    text = ("The Mock Turtle sighed deeply, and began, in a voice sometimes choked with sobs, to sing this. " * 12)
    page.set_text(text)
    page.wait_for(text=text)
    state = page.state()
    assert len(state["ids"]) == figure.config.block_size
    assert page.page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.page.locator("#matrix").bounding_box()
    assert box["width"] / len(state["ids"]) >= 3 and box["height"] / len(state["ids"]) >= 3
    T, _ = page.matrix_pixels()
    assert T == len(state["ids"])
    np.testing.assert_allclose(np.array(page.state()["matrix"]), figure.analyse(text)["attention"][state["layer"] - 1, state["head"] - 1],
                               atol=TOLERANCE)


def test_the_opening_view_fits_the_documented_iframe_height(page):
    """README.md and docs/embedding.md embed the figure in a 480-px-high iframe: with the panels closed, the text box, the
    selectors, the chips and the legend are all inside it."""
    page.page.set_viewport_size({"width": 800, "height": 480})
    page.set_text(json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))["text"])
    bottoms = page.page.evaluate("() => ['#text', '#layers', '#tokens', '#legend', '#heads-panel > summary', '#matrix-panel > summary']"
                                 ".map(s => document.querySelector(s).getBoundingClientRect().bottom)")
    assert max(bottoms) <= 480, bottoms


def test_rows_repainted_after_typing_match_a_full_repaint(page, figure):
    """The heatmaps repaint only the rows from the first changed token on: after typing, the matrix
    must be what painting it whole gives (switching heads away and back repaints it whole)."""
    page.open_panel("heads")
    page.open_panel("matrix")
    page.type("Alice said nothing, and the Queen said")
    state = page.state()
    T, typed = page.matrix_pixels()
    page.select(head=state["head"] % figure.config.n_head + 1)
    page.select(head=state["head"])
    assert page.matrix_pixels() == [T, typed]
    thumbs = page.page.eval_on_selector_all("#heads-grid canvas", """(cs, T) => cs.map(c => Array.from(
        c.getContext("2d").getImageData(0, 0, T, T).data))""", T)
    selected = (state["layer"] - 1) * figure.config.n_head + state["head"] - 1
    assert thumbs[selected] == [v for row in typed for rgb in row for v in (*rgb, 255)]


def test_a_resting_mark_reads_the_numbers_drawn_now(page, figure):
    """A pointer resting on a cell, or a cell read with Left/Right, is read again with every new text,
    head and query (never an earlier text's number). The new text has as many tokens as the one the
    pointer came to rest on, so the cell under it stays where it was: a matrix of another size would put
    another cell under the resting pointer, and Chromium, which sends a resting pointer a mousemove when
    the layout under it changes, may then move the mark there (seen once on a loaded CI machine)."""
    page.open_panel("matrix")
    page.set_text("A dog barked at the moon while the cat slept on the warm red mat all night.")
    page.point_at_cell(2, 1)
    text = "A cat barked at the moon while the dog slept on the warm red mat all night."
    assert len(figure.analyse(text)["ids"]) == len(figure.analyse("A dog barked at the moon while the cat slept on the warm red mat all night.")["ids"])
    page.set_text(text)
    page.select(layer=1, head=1)
    labels = figure.analyse(text)["labels"]
    weight = figure.analyse(text)["attention"][0, 0, 2, 1]
    page.wait_for_element("#matrix-readout", text=f"«{labels[2]}» → «{labels[1]}»: {weight * 100:.1f}%.")  # read again once drawn (a loaded CI machine drew it a frame later)
    page.page.mouse.move(0, 0)
    page.select(token=3)
    page.page.locator("#matrix").focus()
    page.page.keyboard.press("ArrowLeft")  # reads (3, 2)
    page.page.keyboard.press("ArrowDown")  # the query moves to 4: the mark follows it
    page.wait_for(token=4)
    weight = figure.analyse(text)["attention"][0, 0, 4, 2]
    assert page.page.locator("#matrix-readout").text_content() == f"«{labels[4]}» → «{labels[2]}»: {weight * 100:.1f}%."


def test_empty_text_shows_no_heatmap(page):
    page.open_panel("heads")
    page.open_panel("matrix")
    page.set_text("")
    shown = page.page.eval_on_selector_all("#heads-grid canvas, .matrix-box", "es => es.map(e => getComputedStyle(e).display)")
    assert shown == ["none"] * len(shown)
    assert page.page.locator("#matrix-readout").text_content().startswith("No tokens")


def test_after_a_click_the_grid_is_still_one_tab_stop(page):
    page.open_panel("heads")
    page.page.locator("#heads-grid [data-layer='1'][data-head='1']").click()
    page.wait_for(head=1)
    assert page.page.eval_on_selector_all("#heads-grid button", "bs => bs.filter(b => b.tabIndex === 0).map(b => b.dataset.head)") == ["1"]


def test_matrix_labels_sit_on_their_own_cells_and_start_inside_the_box(page):
    page.open_panel("matrix")
    for text in ("Everything themselves frightened understand Scarecrow something beautiful elephants continued.",
                 "The Mock Turtle sighed deeply, and began, in a voice sometimes choked with sobs, to sing this. " * 12):
        page.set_text(text)
        page.wait_for(text=text)
        cells = page.page.locator("#matrix").bounding_box()
        box = page.page.locator(".matrix-box").bounding_box()
        T = len(page.state()["ids"])
        for label in page.page.eval_on_selector_all(".matrix-rows span", """ss => ss.map(s => {
                const r = s.getBoundingClientRect(); return {i: Number(s.dataset.index), mid: (r.top + r.bottom) / 2, left: r.left}; })"""):
            row_mid = cells["y"] + (label["i"] + 0.5) * cells["height"] / T
            assert abs(label["mid"] - row_mid) <= 1, label
            assert label["left"] >= box["x"] - 0.5, label


def test_an_edit_rewrites_no_notice_and_sets_no_hidden_that_it_leaves_as_it_was(page, figure):
    """Each edit draws the views again, writing only what changed (lib/dom.js): setting an element's
    `hidden` to what it already is restyles it all the same in Chromium, and rewriting a notice lays it
    out again. With the grid and the matrix open and a text longer than the model's context (the
    notice says how many earlier tokens are not shown), an edit that keeps the notice's words changes
    neither the notice nor any `hidden` that it leaves as it was."""
    base = " ".join(["Alice said hello to the Rabbit."] * 30)
    shown = {}
    for ending in (" cat", " dog", " hat", " sun", " tea", " map", " pen"):
        tokens = figure.tokenize(base + ending)
        shown.setdefault((len(tokens["ids"]), tokens["tokens_dropped"]), []).append(base + ending)
    first, second = next(texts for texts in shown.values() if len(texts) >= 2)[:2]
    assert figure.tokenize(first)["tokens_dropped"] > 0
    for name in ("heads", "matrix"):
        page.open_panel(name)
    try:
        page.set_text(first)
        notice = page.page.locator("#notice").text_content()
        assert "earlier tokens are not shown" in notice
        page.page.evaluate("""() => {
            window.hiddenChanges = [];
            window.noticeChanges = 0;
            new MutationObserver((records) => hiddenChanges.push(...records.map((r) => ({ target: r.target, was: r.oldValue !== null }))))
                .observe(document.querySelector('.figure'), { subtree: true, attributeFilter: ['hidden'], attributeOldValue: true });
            new MutationObserver((records) => { noticeChanges += records.length; })
                .observe(document.getElementById('notice'), { subtree: true, childList: true, characterData: true });
        }""")
        page.set_text(second)
        unchanged = page.page.evaluate("""() => {
            const after = new Map(); // each element's hidden after each of its changes, in order
            const same = [];
            for (let i = hiddenChanges.length - 1; i >= 0; i--) {
                const { target, was } = hiddenChanges[i];
                const now = after.has(target) ? after.get(target) : target.hasAttribute('hidden');
                if (now === was) same.unshift(`${target.tagName.toLowerCase()}#${target.id}.${target.className}`);
                after.set(target, was);
            }
            return { same, notice: noticeChanges };
        }""")
        assert page.page.locator("#notice").text_content() == notice
        assert unchanged == {"same": [], "notice": 0}
    finally:
        for name in ("heads", "matrix"):
            page.open_panel(name, False)

