"""The "Show the math" panel, the what-ifs, the next token and knockouts, and the KV cache line
(issue 11), in headless Chromium against CPython's Figure on the same weights.

Displayed rounding: scores and scaled scores with 3 decimals, weights and probabilities as
percentages with 1 decimal; the page's API (explain, predict, state) carries float32 values, held to
TOLERANCE against CPython."""

import numpy as np
import pytest

from support.figure_page import TOLERANCE, check_view, containing, length, other_than, some_item, starts_with

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'
LAYER, HEAD, TOKEN = 2, 3, 7  # «said», as the page opens


def number(text):
    return float(text.replace("−", "-"))


def percent(p):
    return f"{p * 100:.1f}%"


@pytest.fixture
def page(browser_page):
    """The shared page with TEXT, «said» in layer 2, head 3, every panel closed and no what-if on."""
    figure_page = browser_page
    figure_page.page.set_viewport_size({"width": 1000, "height": 800})
    for name in ("heads", "matrix", "math", "next"):
        figure_page.open_panel(name, False)
    figure_page.set_text(TEXT)
    figure_page.select(layer=LAYER, head=HEAD, token=TOKEN)
    state = figure_page.state()
    assert state["whatIf"] == {"scale": True, "mask": True} and state["knockout"] == [], "a test left a what-if on"
    return figure_page


def table_rows(page):
    return page.page.eval_on_selector_all(".math-table tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent))")


def wait_for_table(page, T, scaled):
    """Wait until the math table shows T rows for the query, with the query row's scaled score `scaled`."""
    page.wait_for_elements({".math-table tbody tr": {"count": T}, f".math-table tbody tr:nth-child({TOKEN + 1}) > :nth-child(3)": {"text": scaled}})


def shown(value):
    return ("−" if value < 0 else "") + f"{abs(value):.3f}"


def test_the_table_shows_the_numbers_of_explain(page, figure):
    result = figure.analyse(TEXT)
    want = figure.explain(LAYER, HEAD, TOKEN)
    T = len(result["ids"])
    page.open_panel("math")
    wait_for_table(page, T, shown(want["scaled"][TOKEN]))
    got = page.api("explain", {"layer": LAYER, "head": HEAD, "token": TOKEN})
    for name in ("q", "output", "scores", "weights"):
        worst = float(np.max(np.abs(np.asarray(got[name]) - want[name])))
        print(f"explain {name}: largest difference from CPython {worst:.3g}")
        assert worst <= TOLERANCE * max(1, float(np.max(np.abs(want[name])))), name
    assert np.abs(np.asarray(got["k"]) - want["k"]).max() <= TOLERANCE
    assert got["scaled"][TOKEN + 1:] == [None] * (T - TOKEN - 1), "masked: null in the API, -inf in Python"
    for j, (token, score, scaled, weight) in enumerate(table_rows(page)):
        assert token.startswith(f"«{result['labels'][j]}»")
        assert abs(number(score) - want["scores"][j]) <= 0.0005 + 1e-4
        if j <= TOKEN:
            assert abs(number(scaled) - want["scaled"][j]) <= 0.0005 + 1e-4
            assert weight == percent(want["weights"][j]) or abs(float(weight[:-1]) - 100 * want["weights"][j]) <= 0.05 + 1e-3
        else:
            assert (scaled, weight) == ("−∞ (masked)", "→ 0%")
    assert page.page.locator(".math-table tfoot td").last.text_content() == "100.0%"
    assert "d_k = 30, √d_k = 5.48" in page.page.locator(".math-formula").text_content()
    top = int(np.argmax(want["contributions"]))
    assert page.page.locator(".math-output p").last.text_content().startswith(f"«{result['labels'][top]}» contributed most")


@pytest.mark.parametrize("what_if", ["scale", "mask"])
def test_a_what_if_changes_every_view_and_turning_it_off_restores_the_model(page, figure, what_if):
    page.open_panel("math")
    page.open_panel("matrix")
    live = page.state()
    _, live_pixels = page.matrix_pixels()
    flags = {"scale": True, "mask": True, what_if: False}
    want_head = figure.analyse(TEXT, what_if=(LAYER, HEAD, flags["scale"], flags["mask"]))["attention"][LAYER - 1, HEAD - 1]
    want = figure.explain(LAYER, HEAD, TOKEN, **{what_if: False})["weights"]
    page.page.locator(f"#what-if-{what_if}").click()
    page.wait_for(whatIf={what_if: False}, weights={TOKEN: other_than(live["weights"][TOKEN])})  # the what-if row shown
    state = page.state()
    assert np.abs(np.asarray(state["weights"]) - want).max() <= TOLERANCE
    assert state["matrix"][TOKEN] == state["weights"], "the matrix shows the what-if row"
    assert np.abs(np.asarray(state["matrix"]) - want_head).max() <= TOLERANCE, "the matrix: the what-if head"
    _, pixels = page.matrix_pixels()
    grey = live_pixels[0][-1]  # masked in the model
    assert pixels[TOKEN] != live_pixels[TOKEN], "the matrix canvas draws the what-if row"
    if what_if == "mask":
        assert all(cell != grey for row in pixels for cell in row), "later keys are drawn as weighed, not masked"
        readout = page.page.locator("#matrix-readout").text_content()
        top = int(np.argmax(want))
        assert readout.startswith(f"«{live['tokens'][TOKEN]}» attends most to «{live['tokens'][top]}» {want[top] * 100:.1f}%"), readout
    banner = page.page.locator("#what-if")
    assert banner.is_visible() and banner.text_content().startswith("What-if: not what the model computes")
    chips = page.chips()
    if what_if == "mask":
        assert all(not c["masked"] and float(c["weight"]) > 0 for c in chips), "later keys are weighed"
        assert abs(sum(state["weights"]) - 1) <= 1e-5
    else:
        print(f"largest weight {max(state['weights']):.3f} without the scale, {max(live['weights']):.3f} with it")
        assert max(state["weights"]) > max(live["weights"]), "the row sharpens"
    page.page.locator(f"#what-if-{what_if}").click()
    page.wait_for(whatIf={what_if: True})
    page.select()  # resolves once the text's new analysis (without the what-if) is on screen
    restored = page.state()
    assert restored["weights"] == live["weights"] and restored["matrix"] == live["matrix"], "the model's numbers, exactly"
    assert page.matrix_pixels()[1] == live_pixels, "the canvas draws the model's row again"
    assert not banner.is_visible()
    check_view(page, figure)


def test_knocking_out_a_head_changes_the_prediction_and_nothing_else_after(page, figure):
    page.open_panel("next")
    figure.analyse(TEXT)
    intact = figure.predict(TOKEN)
    page.wait_for_element(".predictions li .p", text=percent(intact["candidates"][0]["p"]))
    before = page.state()
    page.page.locator(".knockouts button[data-layer='1'][data-head='2']").click()
    want = figure.predict(TOKEN, knockout=[(1, 2)])
    first = want["candidates"][0]
    # the whole text, change included: knocking out layer 1, head 2 moves «,» by less than 0.1 points,
    # so its percentage alone reads the same before the knocked-out answer is drawn
    sign = "−" if first["delta"] < 0 else "+"
    page.wait_for_element(".predictions li .p", text=f"{percent(first['p'])} ({sign}{abs(first['delta']) * 100:.1f} pts against the intact model)")
    items = page.page.eval_on_selector_all(".predictions li", "items => items.map(i => [i.querySelector('.candidate').textContent, i.querySelector('.p').textContent])")
    for (label, text), candidate in zip(items, want["candidates"]):
        assert label == f"«{candidate['label']}»"
        sign = "−" if candidate["delta"] < 0 else "+"
        assert text == f"{percent(candidate['p'])} ({sign}{abs(candidate['delta']) * 100:.1f} pts against the intact model)"
    assert page.page.locator(".knockouts button[data-layer='1'][data-head='2']").get_attribute("aria-pressed") == "true"
    assert page.page.locator("#what-if").is_visible()
    state = page.state()
    assert state["knockout"] == [{"layer": 1, "head": 2}]
    knocked = figure.analyse(TEXT, knockout=[(1, 2)])["attention"][LAYER - 1, HEAD - 1, TOKEN]
    assert np.abs(np.asarray(state["weights"]) - knocked).max() <= TOLERANCE, "layer 2 is recomputed under the knockout"
    api = page.api("predict", {"token": TOKEN, "knockout": [{"layer": 1, "head": 2}]})
    assert [c["id"] for c in api["candidates"]] == [c["id"] for c in want["candidates"]]
    assert abs(api["candidates"][0]["p"] - first["p"]) <= TOLERANCE
    page.page.locator(".knockouts button[data-layer='1'][data-head='2']").click()
    page.wait_for(knockout=[])
    page.wait_for_element(".predictions li .p", text=percent(intact["candidates"][0]["p"]))
    after = page.state()
    assert after["weights"] == before["weights"] and after["matrix"] == before["matrix"], "the live view, unchanged"
    check_view(page, figure)


def test_the_kv_cache_line_counts_what_an_edit_reused(page, figure):
    page.open_panel("math")
    page.page.locator("#text").focus()
    page.page.keyboard.press("End")
    page.page.keyboard.type(" T")
    page.wait_for(text=TEXT + " T")
    state = page.state()
    T = len(state["ids"])
    figure.analyse(TEXT + " ")
    cache = figure.analyse(TEXT + " T")["cache"]  # the same two edits in CPython
    assert state["reused"] == cache["reused"] >= T - 2
    first, last = cache["computed"]
    computed = f"computed row {first};" if first == last else f"computed rows {first}–{last};"
    # the line of this edit's result: the one before it (the text as set) reused as many keys and values
    page.wait_for_element(".cache-line", text=containing(f"{computed} {cache['reused']} reused."))
    line = page.page.locator(".cache-line").text_content()
    assert f"{cache['bytes'] / 1024:.1f} KB" in line and f"{cache['scores_per_head']:,} per head" in line
    # the scores: counted here from the rows computed, T(T+1)/2 per head for the whole text, in every head
    heads = figure.config.n_layer * figure.config.n_head
    computed = heads * sum(range(first, last + 1))
    assert f"This edit computed {computed:,} query–key scores; recomputing the whole text would take {heads * T * (T + 1) // 2:,}" in line
    growth = page.page.locator(".cache-growth").text_content()
    assert growth.startswith(f"Twice this text, {2 * T} tokens, would take {heads * 2 * T * (2 * T + 1) // 2:,} scores to recompute")
    assert page.page.locator(".chip.reused").count() == cache["reused"]


def test_empty_text_and_bad_requests_leave_the_panels_readable(page, figure):
    page.open_panel("math")
    page.open_panel("next")
    page.set_text("")
    page.wait_for_element("#math-view .panel-message", text="No tokens: type a sentence above.")
    assert page.page.locator(".next-heading").text_content() == "No tokens: type a sentence above."
    assert not page.page.locator("#math-view .math-table").is_visible()
    for call in ("explain({})", "explain({token: 0})", "predict()"):
        error = page.page.evaluate(f"() => window.attentionLive.{call}.then(() => 'resolved', e => e.name + ': ' + e.message)")
        assert error == "RangeError: the text has no tokens", f"{call} on an empty text: {error}"
    page.page.locator("#what-if-mask").click()  # a what-if stays reachable, and can be turned off, with no tokens
    page.wait_for(whatIf={"mask": False})
    assert page.page.locator("#what-if").is_visible()
    page.page.locator("#what-if-mask").click()
    page.wait_for(whatIf={"mask": True})
    assert not page.page.locator("#what-if").is_visible()
    page.set_text(TEXT)
    for bad, message in (({"layer": 3}, "layer must be an integer from 1 to 2"), ({"token": float("nan")}, "got NaN")):
        error = page.page.evaluate("o => window.attentionLive.explain(o).then(() => 'resolved', e => e.name + ': ' + e.message)", bad)
        assert error.startswith("RangeError") and message in error, error
    page.select(layer=LAYER, head=HEAD, token=TOKEN)
    figure.analyse(TEXT)
    want = figure.explain(LAYER, HEAD, TOKEN)
    wait_for_table(page, len(figure.analyse(TEXT)["ids"]), shown(want["scaled"][TOKEN]))
    heading = "After «" + figure.analyse(TEXT)["labels"][TOKEN]  # the next token's answer arrives on its own
    page.wait_for_elements({".next-heading": {"text": starts_with(heading)}, ".predictions li": {"count": 5}})
    error = page.page.evaluate("() => window.attentionLive.predict({token: 999}).then(() => 'resolved', e => e.name)")
    assert error == "RangeError"
    assert page.page.locator(".next-heading").text_content().startswith(heading)
    assert page.page.locator(".predictions li").count() == 5


def last_query_scores(figure, text):
    """The math table's q·k column for ``text`` with the last token the query, by CPython (floats)."""
    T = len(figure.analyse(text)["ids"])
    return [float(score) for score in figure.explain(LAYER, HEAD, T - 1)["scores"]]


def same_scores(texts, values):
    """Whether the table's q·k texts are CPython's ``values`` as the panel writes them (three decimals):
    within half a unit of the last decimal, and the tab's float32 rounding (its sums and CPython's differ
    in their last bits, which can tip a value at ….xxx5 to the other side)."""
    return len(texts) == len(values) and all(abs(float(t.replace("−", "-")) - v) <= 0.0005 + 2e-4 for t, v in zip(texts, values))


def test_rows_the_box_does_not_show_are_written_once_the_reader_pauses(page, figure):
    """Issue 22: with more rows than the table's box shows, a keystroke writes the rows in view at once
    and the others once the reader pauses, the table aria-busy="true" meanwhile; then every row is
    CPython's. Each time aria-busy changes, the page notes every row's scores as they are then."""
    before = " ".join([TEXT] * 5)  # about 80 tokens: the box shows the first 15 or so
    page.page.set_viewport_size({"width": 1000, "height": 1000})  # the table's first rows in the window, below the closed disclosures
    after = before + "s"
    T = len(figure.analyse(before)["ids"])
    page.set_text(before)
    page.select(layer=LAYER, head=HEAD, token=T - 1)  # the query on the last token follows the typing
    page.open_panel("math")
    page.wait_for_elements({".math-table tbody tr": {"count": T}, ".math-table": {"attributes": {"aria-busy": "false"}}})
    page.page.evaluate("""() => {
        window.busyChanges = [];
        const table = document.querySelector('.math-table');
        const scores = () => Array.from(table.tBodies[0].rows, (row) => row.cells[1].textContent);
        new MutationObserver(() => busyChanges.push({busy: table.getAttribute('aria-busy'), scores: scores()}))
            .observe(table, {attributes: true, attributeFilter: ['aria-busy']});
    }""")
    page.page.locator("#text").focus()
    page.page.keyboard.press("End")
    page.page.keyboard.type("s")
    page.wait_for_global("busyChanges", some_item({"busy": "false"}))
    changes = page.page.evaluate("window.busyChanges")
    old, new = last_query_scores(figure, before), last_query_scores(figure, after)
    assert [c["busy"] for c in changes] == ["true", "false"], changes
    waiting, written = changes[0]["scores"], changes[1]["scores"]
    assert len(new) == len(waiting) and same_scores(waiting[:1], new[:1]) and abs(new[0] - old[0]) > 0.002, "the first row, in view, is written at once"
    assert same_scores([waiting[T - 2]], [old[T - 2]]) and abs(new[T - 2] - old[T - 2]) > 0.002, "a row out of view waits"
    assert same_scores(written, new), "once the reader pauses, every row is the new text's"


def test_printing_writes_the_rows_that_wait_first(page, figure):
    """A print unrolls the table's box, so the rows that wait for the reader's pause are written when
    printing begins (the window's beforeprint, which Chromium fires for a print to PDF too). In the
    frame where a keystroke's rows out of view first wait, the page fires beforeprint and reads the
    table: every row is then the new text's, and nothing waits."""
    before = " ".join([TEXT] * 5)  # about 80 tokens: the box shows the first 15 or so
    page.page.set_viewport_size({"width": 1000, "height": 1000})  # the table's first rows in the window, below the closed disclosures
    after = before + "s"
    T = len(figure.analyse(before)["ids"])
    page.set_text(before)
    page.select(layer=LAYER, head=HEAD, token=T - 1)
    page.open_panel("math")
    page.wait_for_elements({".math-table tbody tr": {"count": T}, ".math-table": {"attributes": {"aria-busy": "false"}}})
    old, new = last_query_scores(figure, before), last_query_scores(figure, after)
    page.page.evaluate("""() => {
        const table = document.querySelector('.math-table');
        const scores = () => Array.from(table.tBodies[0].rows, (row) => row.cells[1].textContent);
        const firstOld = scores()[0];
        window.printed = new Promise((resolve) => {
            const look = () => {  // the keystroke's frame: the first row, in view, is the new text's; the rest wait
                if (table.getAttribute('aria-busy') !== 'true' || table.tBodies[0].rows[0].cells[1].textContent === firstOld)
                    return requestAnimationFrame(look);
                const waiting = scores();
                window.dispatchEvent(new Event('beforeprint'));  // in the same task: no pause can come between
                resolve({ waiting, busy: table.getAttribute('aria-busy'), printed: scores() });
            };
            look();
        });
    }""")
    assert abs(new[0] - old[0]) > 0.002  # the first row's text changes with the keystroke
    page.page.locator("#text").focus()
    page.page.keyboard.press("End")
    page.page.keyboard.type("s")
    seen = page.page.evaluate("window.printed")
    assert same_scores([seen["waiting"][T - 2]], [old[T - 2]]) and abs(new[T - 2] - old[T - 2]) > 0.002, "a row out of view waited"
    assert seen["busy"] == "false" and same_scores(seen["printed"], new), "printing wrote every row"


def test_the_panel_far_out_of_view_is_drawn_once_the_reader_pauses_or_scrolls_to_it(page, figure):
    """Issue 22: "Show the math", open but more than half a screen below the screen (the heads grid and
    the matrix open above it, the page scrolled to its top), is not drawn on an edit: its view is
    aria-busy="true" and still shows the text before; once the reader pauses it shows CPython's numbers
    for the new text. Scrolled to while it waits, it is drawn with them too. The page notes the view's
    caption each time aria-busy changes; a second IntersectionObserver with the view's own margin tells
    when the view is out of reach (the figure's observer reports in the same frame, before it)."""
    page.page.set_viewport_size({"width": 1000, "height": 600})
    first, second, third = TEXT, TEXT + " And then", TEXT + " And then she ran"
    page.set_text(first)
    for name in ("heads", "matrix", "math"):
        page.open_panel(name)
    page.select(layer=LAYER, head=HEAD, token=len(figure.analyse(first)["ids"]) - 1)  # the query follows the edits
    page.wait_for_element("#math-view", attributes={"aria-busy": other_than("true")})
    page.page.evaluate("""() => {
        const view = document.getElementById('math-view');
        window.mathView = { changes: [], near: true };
        new MutationObserver(() => mathView.changes.push({ busy: view.getAttribute('aria-busy'),
            caption: view.querySelector('caption').textContent })).observe(view, { attributes: true, attributeFilter: ['aria-busy'] });
        new IntersectionObserver(([entry]) => { mathView.near = entry.isIntersecting; }, { rootMargin: '50%' }).observe(view);
        window.scrollTo(0, 0);
    }""")
    page.wait_for_global("mathView.near", False)
    query = lambda text: f"Query «{figure.analyse(text)['labels'][-1]}» (token {len(figure.analyse(text)['ids'])})"
    try:
        page.set_text(second)
        page.wait_for_global("mathView.changes", length(2))
        changes = page.page.evaluate("window.mathView.changes")
        assert [c["busy"] for c in changes] == ["true", "false"], changes
        assert changes[0]["caption"].startswith(query(first)), "out of view, the edit left the panel as it was"
        assert changes[1]["caption"].startswith(query(second)), "once the reader paused, it shows the new text"
        page.wait_for_element(".math-table", attributes={"aria-busy": "false"})
        assert same_scores([row[1] for row in table_rows(page)], last_query_scores(figure, second))
        page.set_text(third)
        page.page.evaluate("() => document.getElementById('math-view').scrollIntoView()")
        page.wait_for_global("mathView.changes", length(4))
        changes = page.page.evaluate("window.mathView.changes")
        assert [c["busy"] for c in changes[2:]] == ["true", "false"] and changes[3]["caption"].startswith(query(third)), changes
        page.wait_for_element(".math-table", attributes={"aria-busy": "false"})
        assert same_scores([row[1] for row in table_rows(page)], last_query_scores(figure, third))
    finally:
        for name in ("heads", "matrix"):
            page.open_panel(name, False)


def test_with_a_what_if_on_set_text_and_select_resolve_on_the_what_if_numbers(page, figure):
    page.open_panel("math")
    page.page.locator("#what-if-scale").click()
    page.wait_for(whatIf={"scale": False})
    other = "One two three four five six seven eight nine ten"
    page.set_text(other)  # resolves once the page shows it
    state = page.state()
    want = figure.analyse(other, what_if=(LAYER, HEAD, False, True))["attention"][LAYER - 1, HEAD - 1]
    assert np.abs(np.asarray(state["weights"]) - want[state["token"]]).max() <= TOLERANCE
    chips = page.chips()
    assert [c["percent"] for c in chips[: state["token"] + 1]] == [percent(w) for w in want[state["token"], : state["token"] + 1]]
    assert page.page.locator(".chip.query").get_attribute("data-index") == str(state["token"])
    page.select(layer=1, head=4, token=2)  # the what-if follows the selected head
    state = page.state()
    want = figure.analyse(other, what_if=(1, 4, False, True))["attention"][0, 3]
    assert np.abs(np.asarray(state["matrix"]) - want).max() <= TOLERANCE
    assert page.page.locator(".chip.query").get_attribute("data-index") == "2"
    page.page.locator("#what-if-scale").click()
    page.wait_for(whatIf={"scale": True})
    page.set_text(TEXT)
    page.select(layer=LAYER, head=HEAD, token=TOKEN)
    check_view(page, figure)


def test_a_knockout_keeps_the_text_the_figure_was_given(page):
    page.open_panel("next")
    page.set_text("a\tb")
    before = page.state()
    page.page.locator(".knockouts button[data-layer='1'][data-head='1']").click()
    page.wait_for(knockout=length(1))
    page.wait_for_element("#what-if", text=containing("knocked out"))
    after = page.state()
    assert (after["text"], after["ids"], after["token"]) == (before["text"], before["ids"], before["token"])
    page.page.locator(".knockouts button[data-layer='1'][data-head='1']").click()
    page.wait_for(knockout=[])
