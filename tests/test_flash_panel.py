"""FlashAttention in the page (issue 24): ``attentionLive.flash()`` is CPython's ``Figure.flash`` (itself checked
against PyTorch and a key-by-key loop in test_flash.py), a tile size outside 1..block_size is a RangeError, and
the part "Compute it as FlashAttention does" of "Show the math" steps through every tile of the selected head,
by its buttons and by the keyboard, showing flash()'s numbers as it formats them, marking the tile's keys on the
chips and in the matrix, and ending on the same output as the ordinary computation. Its contrast and names are
checked by axe-core with the panel open (test_accessibility.py opens this part with "Show the math").
"""

import math

import numpy as np
import pytest

from support.figure_page import TOLERANCE, starts_with

TEXTS = ("The Mole had been working very hard all the morning, spring-cleaning his little home.",
         "Mowgli sat down, laughing, and said: «I am no wolf»\nand the tiger roared.",
         "I")


def fixed(x, digits=3):
    """A number as the panel writes it: a true minus sign, ``digits`` decimals."""
    return ("−" if x < 0 else "") + f"{abs(x):.{digits}f}"


def flash(figure_page, **options):
    return figure_page.api("flash", options)


def test_flash_is_cpythons(browser_page, figure):
    figure_page = browser_page
    for text in TEXTS:
        figure_page.set_text(text)
        T = len(figure.analyse(text)["ids"])
        for tile in sorted({1, 7, 16, T, 128}):
            for token in sorted({0, T // 2, T - 1}):
                page = flash(figure_page, layer=2, head=3, token=token, tile=tile)
                want = figure.flash(2, 3, token, tile)
                assert {k: page[k] for k in ("layer", "head", "token", "tile", "scores_held", "scores_plain", "memory")} == \
                       {k: want[k] for k in ("layer", "head", "token", "tile", "scores_held", "scores_plain", "memory")}
                for name in ("output", "reference_output"):
                    assert np.max(np.abs(np.array(page[name]) - want[name])) <= TOLERANCE, (text, tile, token, name)
                assert [(s["keys"], s["skipped"]) for s in page["steps"]] == [(s["keys"], s["skipped"]) for s in want["steps"]]
                for got, step in zip(page["steps"], want["steps"]):
                    assert got["m"] == pytest.approx(step["m"], abs=TOLERANCE) and got["l"] == pytest.approx(step["l"], rel=TOLERANCE)
                    assert got["rescale"] == pytest.approx(step["rescale"], abs=TOLERANCE)
                    assert np.max(np.abs(np.array(got["acc"]) - step["acc"])) <= TOLERANCE * max(1.0, float(np.abs(step["acc"]).max()))
                assert page["max_abs_diff"] <= 1e-5


@pytest.mark.parametrize("tile", [0, 129, 2.5, "16"])
def test_a_tile_size_outside_1_to_block_size_is_a_range_error(browser_page, tile):
    figure_page = browser_page
    error = figure_page.page.evaluate("t => window.attentionLive.flash({ tile: t }).then(() => null, e => [e.name, e.message])", tile)
    assert error[0] == "RangeError" and error[1].startswith("tile must be an integer from 1 to 128")


def shown_step(page):
    """What the part shows now: (title, the lines, the chips marked as the tile, the matrix's tile mark box)."""
    return page.evaluate("""() => {
        const mark = document.querySelector('.matrix-cells .tile-mark');
        const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
        return { title: document.querySelector('#flash-view .flash-title').textContent,
                 lines: Array.from(document.querySelectorAll('#flash-view .flash-lines li'), (li) => li.textContent),
                 tile: Array.from(document.querySelectorAll('#tokens .chip.in-tile'), (c) => Number(c.dataset.index)),
                 mark: mark.hidden ? null : box(mark), canvas: box(document.getElementById('matrix')) };
    }""")


def expected_lines(step, number, labels, token):
    if step["skipped"]:
        return [f"Skipped: every key of this tile comes after the query «{labels[token]}», so the causal mask hides them all; "
                "m, ℓ and the output stay as they were."]
    rescale = ("rescale = exp(m_old − m_new) = 0: nothing was summed before the first tile." if number == 0 else
               f"rescale = exp(m_old − m_new) = {fixed(step['rescale'], 4)}: ℓ and the output so far were multiplied by it"
               + (" (m did not change)." if step["rescale"] == 1 else ", since m grew."))
    return [f"m = {fixed(step['m'])}: the largest scaled score q·k/√d_k so far.", f"ℓ = {fixed(step['l'])}: the running sum of exp(score − m).", rescale]


def test_the_panel_steps_through_every_tile(browser_page, figure):
    figure_page = browser_page
    page = figure_page.page
    text = "Then the Queen turned to Alice and said, \"Off with her head!\" and nobody moved at all."
    figure_page.set_text(text)
    labels = figure.analyse(text)["labels"]
    T, token = len(labels), len(labels) - 5  # tiles of 4: the last ones come after the query and are skipped
    figure_page.select(layer=2, head=3, token=token)
    figure_page.open_panel("matrix")
    figure_page.open_panel("math")
    page.locator("#flash-part > summary").click()
    answer = flash(figure_page, tile=4)  # the view's layer, head and token
    assert (answer["layer"], answer["head"], answer["token"]) == (2, 3, token)
    steps = answer["steps"]
    assert any(s["skipped"] for s in steps) and not steps[0]["skipped"]
    figure_page.wait_for_panel("flash", title=f"Tile 1 of {len(steps)}: keys 1–4, «{labels[0]}» to «{labels[3]}».")
    for number, step in enumerate(steps):
        first, last = step["keys"]
        title = f"Tile {number + 1} of {len(steps)}: keys {first + 1}–{last + 1}, «{labels[first]}» to «{labels[last]}»."
        figure_page.wait_for_panel("flash", title=title)
        shown = shown_step(page)
        assert shown["lines"] == expected_lines(step, number, labels, token)
        assert shown["tile"] == list(range(first, last + 1))
        cell = shown["canvas"][2] / T  # the tile's keys in the query's row of the matrix
        assert shown["mark"] == pytest.approx([shown["canvas"][0] + first * cell, shown["canvas"][1] + token * cell, (last - first + 1) * cell, cell], abs=0.6)
        if number == len(steps) - 1:
            break
        if number % 2 == 0:  # by the button, and by the keyboard on the tile's region
            page.locator("#flash-view button[data-go=next]").click()
        else:
            page.locator("#flash-view .flash-step").focus()
            page.keyboard.press("ArrowRight")
    result = page.locator("#flash-view .flash-result > p").text_content()
    mantissa, exponent = f"{answer['max_abs_diff']:.1e}".split("e")  # as JavaScript's toExponential(1) writes it
    assert f"Largest difference from the ordinary output: {mantissa}e{'+' if int(exponent) >= 0 else ''}{int(exponent)} " in result
    memory = page.locator("#flash-view .flash-memory").text_content()
    assert f"one query held 4 scores at a time (16 B) instead of T = {T} scores ({T * 4} B)" in memory
    kb = math.floor(T * T * 4 / 1024 * 10 + 0.5) / 10  # toFixed(1) takes the larger of two nearest: 2.25 -> 2.3
    assert f"in 4 × 4 tiles, holds 16 scores (64 B) instead of its T × T matrix, {T * T:,} scores ({kb:.1f} KB)" in memory
    page.locator("#flash-view .flash-step").focus()
    page.keyboard.press("Home")
    figure_page.wait_for_panel("flash", title=starts_with("Tile 1 of"))
    page.locator("#flash-view select").select_option("8")
    figure_page.wait_for_panel("flash", title=starts_with(f"Tile 1 of {-(-T // 8)}:"))
    assert shown_step(page)["tile"] == list(range(8))
    note = page.locator("#flash-view .flash-note")
    assert note.is_hidden()
    page.locator("#what-if-scale").click()  # a what-if on: this part says it computes the model's own row
    figure_page.wait_for_element("#flash-view .flash-note", hidden=False)
    assert note.text_content() == "What-ifs and knockouts do not apply here: this part computes the model's own row."
    page.locator("#what-if-scale").click()
    figure_page.wait_for_element("#flash-view .flash-note", hidden=True)
    page.locator("#flash-part > summary").click()  # closed: no tile marked
    figure_page.wait_for_element("#tokens .chip.in-tile", count=0)
    assert shown_step(page)["mark"] is None
    figure_page.open_panel("math", False)
    figure_page.open_panel("matrix", False)


@pytest.mark.parametrize("options", ["'tile 4'", "42", "[1, 2]", "null"])
def test_flash_takes_an_object_of_options_or_none(browser_page, options):
    figure_page = browser_page
    error = figure_page.page.evaluate(f"() => window.attentionLive.flash({options}).then(() => null, e => [e.name, e.message])")
    assert error[0] == "TypeError" and error[1].startswith("flash takes {layer, head, token, tile}, got ")
