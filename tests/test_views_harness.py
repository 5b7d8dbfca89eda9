"""Each view of web/views/ alone, drawn on the harness page (tests/harness/) from answers that CPython's
Figure wrote (tests/fixtures/answers/): its keyboard, accessible names, masking, markup safety and
layout, with no worker and no Python started. Every expected value is computed here from the fixture
(CPython's numbers), never taken from the JavaScript under test. The page-level tests (test_views.py,
test_math_panel.py, …) check the wiring of the same views in the live figure."""

import math

import numpy as np
import pytest

from support.view_harness import ViewHarness, answers, floats, harness_site

QUEEN = answers("queen")
MARKUP = answers("markup")
PHONE = 390  # CSS px: the narrowest figure the page-level tests lay out


@pytest.fixture(scope="module")
def site(playwright):
    with harness_site(playwright) as served:
        yield served


@pytest.fixture
def harness(site):
    """A page of the harness; fails the test on any page error, console error or dialog."""
    page = ViewHarness(*site)
    yield page
    page.check()
    page.page.close()


def attention(fixture):
    """The fixture's attention, [n_layer, n_head, T, T] float32."""
    return np.array(floats(fixture["analyse"]["attention"]), dtype=np.float32).reshape(fixture["analyse"]["shape"])


def percent(p):
    return f"{p * 100:.1f}%"


def fixed(x, digits=3):
    return ("\u2212" if x < 0 else "") + f"{abs(x):.{digits}f}"


def luminance(rgb):
    """WCAG relative luminance of sRGB bytes: the lightness a reader sees, for ordering cells."""
    c = np.asarray(rgb, dtype=np.float64) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) @ [0.2126, 0.7152, 0.0722]


def selected_head(fixture):
    """(layer, head, token, labels, the selected head's attention [T, T]) of the fixture's view."""
    layer, head, token = view_of(fixture)
    return layer, head, token, fixture["analyse"]["labels"], attention(fixture)[layer - 1, head - 1]


def view_of(fixture):
    v = fixture["view"]
    return v["layer"], v["head"], v["token"]


@pytest.mark.parametrize("view", ["chips", "choices", "banner", "heads", "matrix", "math", "flash", "next"])
def test_destroy_removes_every_listener_and_observer(harness, view):
    """A figure that goes frees what its views held (issue 42): every listener on the view's elements,
    its observers, and its container emptied."""
    harness.open(view)
    harness.evaluate("() => { window.parts = [window.harness.container, ...window.harness.container.querySelectorAll('*')]; }")
    if view != "banner":  # the banner only writes a sentence
        assert harness.listeners("window.parts") > 0
    harness.evaluate("() => window.harness.view.destroy()")
    assert harness.listeners("window.parts") == 0
    assert harness.evaluate("() => window.harness.observers.size") == 0
    assert harness.evaluate("() => [...window.harness.container.children].map(e => e.tagName)") == (["LEGEND"] if view == "choices" else [])


# The chips


def test_chips_show_the_query_row_and_mask_later_tokens(harness):
    harness.open("chips")
    layer, head, token = view_of(QUEEN)
    labels = QUEEN["analyse"]["labels"]
    row = attention(QUEEN)[layer - 1, head - 1, token]
    T = len(labels)
    assert harness.texts("#tokens .chip .label") == labels
    weights = harness.attributes("#tokens .chip", "data-weight")
    masked = harness.attributes("#tokens .chip", "data-masked")
    for j in range(T):
        if j <= token:
            assert float(weights[j]) == float(row[j]) and masked[j] is None, j
        else:
            assert weights[j] is None and masked[j] == "true", j
    assert harness.texts("#tokens .chip .percent") == [percent(row[j]) if j <= token else "" for j in range(T)]
    assert harness.attributes("#tokens .chip", "aria-pressed") == ["true" if j == token else "false" for j in range(T)]
    harness.names_written("#tokens")
    assert harness.attributes("#tokens .chip", "aria-label") == [
        f"«{labels[j]}» {percent(row[j])}, token {j + 1} of {T}" if j <= token else f"«{labels[j]}», token {j + 1} of {T}, masked (a later token)"
        for j in range(T)]


def test_chips_are_one_tab_stop_moved_by_the_arrow_keys(harness):
    harness.open("chips")
    _, _, token = view_of(QUEEN)
    T = len(QUEEN["analyse"]["ids"])
    assert harness.attributes("#tokens .chip", "tabindex") == ["0" if j == token else "-1" for j in range(T)]
    harness.page.locator("#tokens .chip[tabindex='0']").focus()
    for key, want in (("ArrowRight", token + 1), ("ArrowLeft", token), ("Home", 0), ("ArrowLeft", 0), ("End", T - 1), ("ArrowRight", T - 1)):
        harness.page.keyboard.press(key)
        assert harness.evaluate("() => document.activeElement.dataset.index") == str(want), key
        assert harness.attributes("#tokens .chip", "aria-pressed").index("true") == want, key
    assert [call for call in harness.calls() if call[0] == "pick"] == [["pick", i] for i in (token + 1, token, 0, 0, T - 1, T - 1)]
    # with the focus on a chip, its name is written at once (a screen reader reads it now)
    labels = QUEEN["analyse"]["labels"]
    row = attention(QUEEN)[QUEEN["view"]["layer"] - 1, QUEEN["view"]["head"] - 1, T - 1]
    assert harness.page.locator("#tokens .chip:focus").get_attribute("aria-label") == f"«{labels[-1]}» {percent(row[-1])}, token {T} of {T}"


def test_chips_show_markup_as_text(harness):
    harness.open("chips", "markup")
    labels = MARKUP["analyse"]["labels"]
    assert any(c in "".join(labels) for c in "<>&\"")
    assert harness.texts("#tokens .chip .label") == labels
    assert set(harness.evaluate("() => [...document.querySelectorAll('#tokens *')].map(e => e.tagName)")) == {"BUTTON", "SPAN"}
    whole = ["<img src=x onerror=alert(1)>", "<b>bold</b>", "&amp;", "\u2423<i>", "</span>x", '"quoted"']
    harness.evaluate("labels => window.harness.view.draw({ labels, ids: labels.map((_, i) => 1000 + i) })", whole)
    assert harness.texts("#tokens .chip .label") == whole
    assert harness.page.locator("#tokens img, #tokens b, #tokens i").count() == 0  # a dialog would fail the test (check)


def test_chips_fit_a_phone(harness):
    harness.open("chips", width=PHONE)
    assert harness.sticking_out() == []
    harness.evaluate("() => document.getElementById('tokens').append(Object.assign(document.createElement('span'), { className: 'wide', style: 'flex: none; width: 600px' }))")
    assert [line.split(":")[0] for line in harness.sticking_out()] == ["span.wide"]  # the check sees what sticks out


def test_chips_clear_and_destroy(harness):
    harness.open("chips")
    harness.evaluate("() => window.harness.view.clear('Type something above to see its tokens.')")
    assert harness.texts("#tokens > *") == ["Type something above to see its tokens."]
    harness.evaluate("() => window.harness.redraw()")  # the chips come back
    assert harness.page.locator("#tokens .chip").count() == len(QUEEN["analyse"]["ids"])
    harness.evaluate("() => window.harness.view.destroy()")
    assert harness.page.locator("#tokens > *").count() == 0
    assert harness.page.locator("#tokens").get_attribute("aria-busy") == "false"  # no names left waiting


# The layer (and head) selector


def test_choices_are_a_radio_group_moved_by_the_arrow_keys(harness):
    harness.open("choices")
    n_layer = QUEEN["config"]["n_layer"]
    layer = QUEEN["view"]["layer"]
    radios = harness.page.get_by_role("radio")
    assert radios.count() == n_layer
    assert [radios.nth(i).is_checked() for i in range(n_layer)] == [i + 1 == layer for i in range(n_layer)]
    assert harness.attributes("#layers label.choice", "data-value") == [str(i + 1) for i in range(n_layer)]
    harness.page.get_by_role("radio", name=str(layer), exact=True).focus()
    harness.page.keyboard.press("ArrowLeft" if layer > 1 else "ArrowRight")
    moved = layer - 1 if layer > 1 else layer + 1
    assert harness.calls() == [["pick", moved]]
    assert harness.page.get_by_role("radio", name=str(moved), exact=True).is_checked()


def test_a_choices_config_without_a_count_says_so(harness):
    harness.open("choices")
    message = harness.evaluate("""async () => {
        const { createChoices } = await import("/web/views/choices.js");
        try { createChoices(document.createElement("fieldset"), { config: {}, on: { pick() {} } }); return null; }
        catch (error) { return `${error.name}: ${error.message}`; }
    }""")
    assert message == "RangeError: createChoices: config.count must be a whole number ≥ 1, got undefined"


# The what-if banner


def test_the_banner_says_which_what_ifs_are_on(harness):
    harness.open("banner")
    assert harness.page.locator("#what-if").is_hidden()
    harness.evaluate("() => window.harness.view.draw({ layer: 2, head: 3, whatIf: { scale: false, mask: true }, knockout: [[1, 2]] })")
    assert harness.page.locator("#what-if").text_content() == (
        "What-if: not what the model computes (layer 2, head 3: scores not divided by √d_k; knocked out: layer 1 · head 2).")
    harness.evaluate("() => window.harness.view.destroy()")
    assert harness.page.locator("#what-if").is_hidden()


# The heads grid


def test_the_heads_grid_names_each_heads_strongest_key(harness):
    harness.open("heads")
    layer, head, token = view_of(QUEEN)
    labels = QUEEN["analyse"]["labels"]
    c = QUEEN["config"]
    A = attention(QUEEN)
    names = harness.attributes("#heads-grid button.thumb", "aria-label")
    assert len(names) == c["n_layer"] * c["n_head"]
    marks = []
    for k, name in enumerate(names):
        l, h = divmod(k, c["n_head"])
        row = A[l, h, token, : token + 1]
        bits = f"{-sum(float(p) * math.log2(float(p)) for p in row if p > 0):.2f} bits"  # the row's entropy, counted here
        assert name == (f"layer {l + 1}, head {h + 1}, {bits}: «{labels[token]}» attends most to «{labels[int(row.argmax())]}», "
                        f"{percent(row.max())}; {bits} is the entropy of its row, at most {math.log2(token + 1):.2f} bits when spread evenly")
        marks.append(bits)
    assert harness.page.eval_on_selector_all("#heads-grid .focus-bits", "es => es.map((e) => e.textContent)") == marks  # what each shows
    assert harness.attributes("#heads-grid button.thumb", "aria-pressed") == [
        str(k == (layer - 1) * c["n_head"] + head - 1).lower() for k in range(len(names))]


def test_the_heads_grid_masks_later_keys_in_grey(harness):
    harness.open("heads")
    layer, head, _ = view_of(QUEEN)
    T = len(QUEEN["analyse"]["ids"])
    A = attention(QUEEN)[layer - 1, head - 1]
    pixels = np.array(harness.pixels(f"#heads-grid [data-layer='{layer}'][data-head='{head}'] canvas", T))
    masked = np.triu(np.ones((T, T), dtype=bool), 1)
    grey = pixels[masked]
    assert (grey == grey[0]).all() and grey[0][0] == grey[0][1] == grey[0][2], "masked cells: one grey"
    assert not (np.ptp(pixels[~masked], axis=1) == 0).any(), "a weight drawn in the masked grey"
    order = np.argsort(A[~masked], kind="stable")
    assert np.all(np.diff(luminance(pixels[~masked][order])) <= 1e-9), "cells do not darken as the weight grows"


def test_the_heads_grid_is_one_tab_stop_moved_by_the_arrow_keys(harness):
    harness.open("heads")
    layer, head, _ = view_of(QUEEN)
    n_head = QUEEN["config"]["n_head"]
    harness.page.locator("#heads-grid [aria-pressed='true']").focus()
    harness.page.keyboard.press("ArrowLeft")
    harness.page.keyboard.press("ArrowUp")
    focused = harness.evaluate("() => [document.activeElement.dataset.layer, document.activeElement.dataset.head]")
    assert focused == [str(layer - 1), str(head - 1)]
    assert harness.evaluate("() => [...document.querySelectorAll('#heads-grid button')].filter(b => b.tabIndex === 0).length") == 1
    harness.page.keyboard.press("Enter")
    assert harness.calls() == [["pick", layer - 1, head - 1]]
    assert harness.page.locator("#heads-grid [aria-pressed='true']").get_attribute("data-head") == str(head - 1)
    harness.page.keyboard.press("End")
    assert harness.evaluate("() => document.activeElement.dataset.head") == str(n_head)


def test_the_heads_grid_fits_a_phone_and_refuses_a_wrong_result(harness):
    harness.open("heads", width=PHONE)
    assert harness.sticking_out() == []
    message = harness.evaluate("""() => {
        const { result, state } = window.harness;
        try { window.harness.view.draw({ result: { ...result, labels: result.labels.slice(1) }, state }); return null; }
        catch (error) { return `${error.name}: ${error.message}`; }
    }""")
    T = len(QUEEN["analyse"]["ids"])
    c = QUEEN["config"]
    assert message == (f"TypeError: heads grid: result.attention holds {c['n_layer'] * c['n_head'] * T * T} numbers for shape "
                       f"[{c['n_layer']},{c['n_head']},{T},{T}], with {T} ids and {T - 1} labels: they must agree")


# The matrix


def test_the_matrix_reads_out_rows_and_cells_by_keyboard(harness):
    harness.open("matrix")
    layer, head, token, labels, A = selected_head(QUEEN)
    T = len(labels)

    def described(i):
        row = A[i, : i + 1]
        top = np.argsort(-row, kind="stable")[:3]
        first, *rest = [f"«{labels[j]}» {percent(row[j])}" for j in top]
        return f"«{labels[i]}» attends most to {first}" + (f", then {', '.join(rest)}" if rest else "") + "."

    assert harness.page.locator("#matrix-readout").text_content() == described(token)
    assert harness.page.locator("#matrix").get_attribute("aria-label").startswith(
        f"Attention matrix of layer {layer}, head {head}: {T} × {T}, row «{labels[token]}» selected.")
    harness.page.locator("#matrix").focus()
    harness.page.keyboard.press("ArrowDown")
    assert harness.state()["token"] == token + 1
    assert harness.page.locator("#matrix-readout").text_content() == described(token + 1)
    harness.page.keyboard.press("ArrowLeft")
    read = f"«{labels[token + 1]}» → «{labels[token]}»: {percent(A[token + 1, token])}."
    assert harness.page.locator("#matrix-readout").text_content() == read
    harness.page.keyboard.press("Home")
    assert harness.calls() == [["pick", token + 1], ["read", read], ["pick", 0]]
    harness.page.keyboard.press("ArrowRight")  # the key read out moves on from the last (a later token than query 0: masked)
    assert harness.page.locator("#matrix-readout").text_content() == f"«{labels[0]}» → «{labels[token + 1]}»: masked, a later token (0%)."


def test_the_matrix_masks_later_keys_and_lists_each_querys_top_keys(harness):
    harness.open("matrix")
    _, _, _, labels, A = selected_head(QUEEN)
    T = len(labels)
    assert harness.attributes("#matrix", "data-rows") == [str(T)]
    pixels = np.array(harness.pixels("#matrix", T))
    masked = np.triu(np.ones((T, T), dtype=bool), 1)
    assert (pixels[masked] == pixels[masked][0]).all() and not (np.ptp(pixels[~masked], axis=1) == 0).any()
    harness.names_written("#matrix-table")
    rows = harness.page.eval_on_selector_all("#matrix-table tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent))")
    assert len(rows) == T
    for i, row in enumerate(rows):
        top = np.argsort(-A[i, : i + 1], kind="stable")[:3]
        assert row == [f"«{labels[i]}» (token {i + 1})", *(f"«{labels[j]}» {percent(A[i, j])}" for j in top), *[""] * (3 - len(top))]


def test_the_matrix_shows_markup_as_text_and_fits_a_phone(harness):
    harness.open("matrix", "markup", width=PHONE)
    labels = MARKUP["analyse"]["labels"]
    assert harness.texts(".matrix-rows span") == labels and harness.texts(".matrix-cols span") == labels  # a label per token at this T
    assert set(harness.evaluate("() => [...document.querySelectorAll('.matrix-rows *, .matrix-cols *')].map(e => e.tagName)")) == {"SPAN"}
    assert harness.sticking_out() == []
    assert harness.evaluate("() => document.documentElement.scrollWidth") <= PHONE


def test_the_matrix_destroy_stops_its_observer(harness):
    harness.open("matrix")
    assert harness.evaluate("() => window.harness.observers.size") == 1  # the container's size
    harness.evaluate("() => window.harness.view.clear('No tokens.')")
    assert harness.texts("#matrix-view > *") == ["No tokens."]
    harness.evaluate("() => window.harness.view.destroy()")
    assert harness.evaluate("() => window.harness.observers.size") == 0
    assert harness.page.locator("#matrix-view > *").count() == 0


# The math panel


def test_the_math_table_is_pythons_row_with_later_keys_masked(harness):
    harness.open("math")
    explained = QUEEN["explain"]
    labels = QUEEN["analyse"]["labels"]
    token = explained["token"]
    scores, scaled, weights = (floats(explained[name]) for name in ("scores", "scaled", "weights"))
    harness.names_written(".math-table")
    rows = harness.page.eval_on_selector_all(".math-table tbody tr", "rows => rows.map(r => [r.classList.contains('masked'), ...Array.from(r.cells, c => c.textContent)])")
    assert len(rows) == len(labels)
    for j, row in enumerate(rows):
        masked = scaled[j] == float("-inf")
        assert masked == (j > token), j
        assert row == [masked, f"«{labels[j]}»" + (" (query)" if j == token else ""), fixed(scores[j]),
                       "−∞ (masked)" if masked else fixed(scaled[j]), "→ 0%" if masked else percent(weights[j])], j
    dk, sqrt_dk = explained["dk"], explained["sqrt_dk"]
    assert harness.page.locator(".math-formula").text_content() == (
        f"Attention(Q, K, V) = softmax(QKᵀ / √d_k) V · layer {explained['layer']}, head {explained['head']}: d_k = {dk}, √d_k = {sqrt_dk:.2f} · query «{labels[token]}»")
    q = floats(explained["q"])
    assert harness.page.locator("canvas[data-name='q']").get_attribute("aria-label") == (
        f"q of «{labels[token]}», {dk} numbers: {', '.join(fixed(x, 2) for x in q)}")


def test_the_math_strips_read_out_by_keyboard(harness):
    harness.open("math")
    explained = QUEEN["explain"]
    labels = QUEEN["analyse"]["labels"]
    dk = explained["dk"]
    k = np.array(floats(explained["k"]), dtype=np.float32).reshape(explained["k"]["shape"])
    harness.page.locator("canvas[data-name='k']").focus()
    assert harness.page.locator("#strip-readout").text_content() == f"k of «{labels[0]}», component 1 of {dk}: {fixed(k[0, 0])}"
    harness.page.keyboard.press("ArrowDown")
    harness.page.keyboard.press("ArrowRight")
    harness.page.keyboard.press("End")
    want = f"k of «{labels[1]}», component {dk} of {dk}: {fixed(k[1, dk - 1])}"
    assert harness.page.locator("#strip-readout").text_content() == want
    assert harness.calls()[-1] == ["read", want]
    harness.page.locator("#what-if-mask").click()
    assert harness.calls()[-1] == ["whatIf", {"mask": False}]


def test_the_math_panel_shows_markup_as_text_and_fits_a_phone(harness):
    harness.open("math", "markup", width=PHONE)
    labels = MARKUP["analyse"]["labels"]
    harness.names_written(".math-table")
    token = MARKUP["explain"]["token"]
    assert harness.texts(".math-table tbody th") == [f"«{label}»" + (" (query)" if j == token else "") for j, label in enumerate(labels)]
    assert harness.page.locator(".math-table tbody th *").count() == 0
    assert harness.sticking_out() == []
    harness.evaluate("() => window.harness.view.clear('Waiting for the live model…')")
    assert harness.page.locator(".panel-message").text_content() == "Waiting for the live model…"
    assert harness.page.locator(".math-strips").is_hidden()


# "Compute it as FlashAttention does"


def test_the_flash_steps_move_by_keyboard_and_say_each_tile(harness):
    harness.open("flash")
    flashed = QUEEN["flash"]
    labels = QUEEN["analyse"]["labels"]
    steps = flashed["steps"]
    (first, last), m = steps[0]["keys"], steps[0]["m"]
    title = f"Tile 1 of {len(steps)}: keys {first + 1}–{last + 1}, «{labels[first]}» to «{labels[last]}»."
    assert harness.page.locator(".flash-title").text_content() == title
    assert harness.texts(".flash-lines li")[0] == f"m = {fixed(m)}: the largest scaled score q·k/√d_k so far."
    assert harness.attributes(".flash-nav button", "aria-disabled") == ["true", "true", "false", "false"]
    harness.page.locator(".flash-step").focus()
    harness.page.keyboard.press("ArrowRight")
    (first, last), step = steps[1]["keys"], steps[1]
    title = f"Tile 2 of {len(steps)}: keys {first + 1}–{last + 1}, «{labels[first]}» to «{labels[last]}»."
    assert harness.page.locator(".flash-title").text_content() == title
    calls = harness.calls()
    assert calls[0] == ["change", {"step": 1}]
    assert calls[1][0] == "read" and calls[1][1].startswith(f"{title} m = {fixed(step['m'])}:")
    harness.page.keyboard.press("End")
    assert harness.state()["step"] == len(steps) - 1
    skipped = steps[-1]["skipped"]
    assert skipped == (steps[-1]["keys"][0] > flashed["token"])
    assert harness.texts(".flash-lines li")[0].startswith("Skipped:" if skipped else "m = ")


def test_the_flash_steps_fit_a_phone(harness):
    harness.open("flash", "markup", width=PHONE)
    assert harness.sticking_out() == []


# The next token


def test_the_next_token_lists_pythons_candidates_and_toggles_knockouts(harness):
    harness.open("next")
    predicted = QUEEN["predict"]
    labels = QUEEN["analyse"]["labels"]
    token = predicted["token"]
    assert harness.page.locator(".next-heading").text_content() == f"After «{labels[token]}» (token {token + 1}) the model expects:"
    assert harness.texts(".predictions .candidate") == [f"«{c['label']}»" for c in predicted["candidates"]]
    assert harness.texts(".predictions .p") == [percent(c["p"]) for c in predicted["candidates"]]
    following = predicted["next"]
    assert harness.page.locator(".actual").text_content() == f"In the text, «{following['label']}» follows: {percent(following['p'])}, rank {following['rank']:,}."
    c = QUEEN["config"]
    toggles = harness.page.locator(".knockouts button")
    assert toggles.count() == c["n_layer"] * c["n_head"]
    button = harness.page.get_by_role("button", name="layer 1 · head 2", exact=True)
    assert button.get_attribute("aria-pressed") == "false"
    button.focus()
    harness.page.keyboard.press("Enter")
    assert harness.calls() == [["knockout", 1, 2]] and button.get_attribute("aria-pressed") == "true"


def test_the_next_token_shows_markup_as_text_and_fits_a_phone(harness):
    harness.open("next", "markup", width=PHONE)
    predicted = MARKUP["predict"]
    assert harness.texts(".predictions .candidate") == [f"«{c['label']}»" for c in predicted["candidates"]]
    assert harness.page.locator(".predictions .candidate *").count() == 0
    assert harness.sticking_out() == []
    harness.evaluate("() => window.harness.view.clear('No tokens: type a sentence above.')")
    assert harness.page.locator(".next-heading").text_content() == "No tokens: type a sentence above."
    assert harness.page.locator(".predictions li").count() == 0
