"""Teaching with the figure (issue 53, parts 4 and 6): "Predict, then look" and a fixed figure.

Predict mode hides the weights, asks which earlier token the query will attend to most, takes the
answer by mouse or keyboard, then shows everything with a sentence and fires attention-live:guess (a
figure in an iframe posts it to its embed-origin). controls="none" and "view" fix the view. Checked in
headless Chromium: an element on a course page, the standalone page by link, and a host page on
another site; every share against CPython's Figure on the same weights."""

import pytest

from support.figure_page import TOLERANCE, FigurePage, browser_context, containing, course_site
from support.host_page import host, wait_for_message

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'  # the default view's
LAYER, HEAD, TOKEN = 2, 3, 7  # «said»
QUEEN, ALICE = 2, 5


def percent(p):
    return f"{p * 100:.1f}%"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pages = {
        "predict.html": f'<attention-live predict layer="{LAYER}" head="{HEAD}" token="{TOKEN + 1}" panels="heads,next"></attention-live>',
        "fixed.html": f'<attention-live controls="none" text="{TEXT.replace(chr(34), "&quot;")}" layer="1" head="1" token="4" panels="matrix"></attention-live>'
                      f'<attention-live controls="view" layer="1" head="1"></attention-live>',
    }
    # a course page that follows the reader's colour scheme, as the figure does
    theme = "<style>html { background: #fff; color: #1d2330 } @media (prefers-color-scheme: dark) { html { background: #12161d; color: #e6e9ef } }</style>"
    with course_site(tmp_path_factory.mktemp("teach"), pages, head=theme) as url:
        yield url


@pytest.fixture
def course(site, playwright):
    with browser_context(playwright) as context:
        page = context.new_page()
        page.add_init_script("window.guesses = []; document.addEventListener('attention-live:guess', (e) => guesses.push({detail: e.detail, target: e.target.localName}));")
        yield page


def row_of(figure, text=TEXT, layer=LAYER, head=HEAD, token=TOKEN):
    return figure.analyse(text)["attention"][layer - 1, head - 1, token]


def hidden_weights(figure_page):
    """What the figure shows of weights: percentages on chips, weight classes, shares in names and the status."""
    return figure_page.page.evaluate("""([selector]) => {
        const root = document.querySelector(selector).shadowRoot;
        const chips = [...root.querySelectorAll('.chip')];
        const shown = (sel) => { const e = root.querySelector(sel); return e !== null && e.getClientRects().length > 0; };
        return {
            percents: chips.map((c) => c.querySelector('.percent').textContent).filter(Boolean),
            coloured: chips.filter((c) => c.dataset.weight !== undefined || [...c.classList].some((n) => n.startsWith('w'))).length,
            names: chips.map((c) => c.getAttribute('aria-label') ?? ''),
            status: root.getElementById('status').textContent,
            panels: ['#heads-panel', '#next-panel', '#matrix-panel', '#stack-panel', '#math-panel', '.colour-legend', '#save-png', '.about', '#tour-start'].filter(shown),
        };
    }""", [figure_page.element])


def test_predict_mode_hides_the_weights_and_reveals_them_on_a_click(course, site, figure):
    course.goto(site + "/predict.html")
    element = FigurePage(course, "attention-live")
    element.ready()
    element.wait_for(predict={"on": True, "answered": False}, token=TOKEN, layer=LAYER, head=HEAD)
    question = element.locator("#predict")
    element.wait_for_element("#predict", text="Which earlier token will «␣said» attend to most? Click it, or move along the tokens with the arrow keys and press Enter on it.")
    assert element.state()["panels"]["heads"] and element.state()["panels"]["next"], "the course's panels, kept for later"
    seen = hidden_weights(element)
    assert seen["percents"] == [] and seen["coloured"] == 0 and seen["panels"] == []
    assert not any("%" in name for name in seen["names"]) and "«␣Alice», token 6 of 16" in seen["names"]
    assert seen["status"] == "Query «␣said» (token 8 of 16) · layer 2, head 3 · weights hidden until you answer"  # no share, no focus in bits
    assert element.locator(".chip[data-index='9']").get_attribute("aria-disabled") == "true"  # later than the query
    element.locator(".chip[data-index='9']").click(force=True)  # masked (aria-disabled): not an answer
    assert element.state()["predict"] == {"on": True, "answered": False}
    element.locator(f".chip[data-index='{QUEEN}']").click()
    row = row_of(figure)
    want = f"You picked «␣Queen»: {percent(row[QUEEN])}. The most goes to «␣Alice»: {percent(row[ALICE])}. Choose another query, head or text to be asked again."
    element.wait_for_element("#predict", text=want)
    assert want == "You picked «␣Queen»: 4.5%. The most goes to «␣Alice»: 92.8%. Choose another query, head or text to be asked again."  # the chapter's numbers
    element.wait_for(predict={"on": True, "answered": True}, token=TOKEN)
    state = element.state()
    [event] = course.evaluate("guesses")
    assert event["target"] == "attention-live"
    detail = event["detail"]
    assert {k: detail[k] for k in ("layer", "head", "query", "guess", "top", "correct")} == {"layer": LAYER, "head": HEAD, "query": TOKEN, "guess": QUEEN, "top": ALICE, "correct": False}
    assert abs(detail["guessShare"] - row[QUEEN]) <= TOLERANCE and abs(detail["topShare"] - row[ALICE]) <= TOLERANCE
    seen = hidden_weights(element)
    assert seen["percents"][ALICE] == percent(row[ALICE]) and {"#heads-panel", "#next-panel", ".about", "#tour-start"} <= set(seen["panels"])
    assert state["weights"][ALICE] == pytest.approx(row[ALICE], abs=TOLERANCE)
    # a new head asks again; a click then picks a new query; a new text asks again
    element.locator("#heads label.choice[data-value='1']").click()
    element.wait_for(predict={"on": True, "answered": False}, head=1)
    assert hidden_weights(element)["percents"] == []
    element.locator(f".chip[data-index='{ALICE}']").click()
    element.wait_for(predict={"on": True, "answered": True})
    element.locator(".chip[data-index='3']").click()  # after the answer, a click is a new query
    element.wait_for(predict={"on": True, "answered": False}, token=3)
    element.set_text("Alice and the Queen")
    element.wait_for(predict={"on": True, "answered": False}, text="Alice and the Queen")
    assert len(course.evaluate("guesses")) == 2


def test_predict_mode_by_keyboard_with_what_a_screen_reader_hears(browser_page, figure):
    page = browser_page
    page.page.goto(page.page.url.split("#")[0] + "#predict=1")
    page.page.reload()
    assert page.settled() == "ready"
    page.wait_for(predict={"on": True, "answered": False}, token=TOKEN)
    tokens = page.locator("#tokens")
    assert tokens.get_attribute("aria-describedby") == "predict"
    assert page.locator("#predict").text_content().startswith("Which earlier token will «␣said» attend to most?")
    page.listen()
    page.locator(f".chip[data-index='{TOKEN}']").focus()
    page.page.keyboard.press("ArrowLeft")
    page.page.keyboard.press("ArrowLeft")
    focused = page.page.evaluate("document.activeElement.dataset.index")
    assert focused == str(ALICE) and page.state()["token"] == TOKEN, "the arrows move the focus, not the query"
    page.wait_for_element(f".chip[data-index='{ALICE}']", attributes={"aria-label": "«␣Alice», token 6 of 16"})  # no share in its name
    page.page.keyboard.press("Enter")
    row = row_of(figure)
    right = f"You picked «␣Alice»: {percent(row[ALICE])}. That is the most: right! Choose another query, head or text to be asked again."
    page.wait_for_spoken(last=right)
    page.wait_for_element("#predict", text=right)
    page.wait_for(predict={"on": True, "answered": True})
    assert page.page.evaluate("document.activeElement.dataset.index") == str(ALICE)
    page.page.keyboard.press("ArrowRight")  # answered: the arrows choose a query again, and the figure asks again
    page.wait_for(predict={"on": True, "answered": False}, token=ALICE + 1)
    page.wait_for_spoken(last=containing("Which earlier token will «␣and» attend to most?"))
    page.wait_for_link(hash=containing("&predict=1"))  # the address keeps the mode
    page.api("select", {"predict": False})
    page.wait_for(predict={"on": False, "answered": False})
    assert page.locator("#predict").is_hidden()


def test_a_guess_reaches_a_host_page_on_another_site(playwright, origin, figure):
    with host(playwright, origin, "embed-origin=HOST_ORIGIN") as (page, frame, host_origin):
        assert page.evaluate("m => ask(m)", {"type": "attention-live:predict", "on": True})["ok"]
        inside = FigurePage(frame)
        inside.wait_for(predict={"on": True, "answered": False})
        assert page.evaluate("m => ask(m)", {"type": "attention-live:predict", "on": "yes"})["ok"] is False
        inside.locator(f".chip[data-index='{ALICE}']").click()
        row = row_of(figure)
        wait_for_message(page, "attention-live:guess")
        [message] = page.evaluate("ofType('attention-live:guess')")
        assert message["origin"] == origin
        detail = message["data"]["detail"]
        assert {k: detail[k] for k in ("layer", "head", "query", "guess", "top", "correct")} == {"layer": LAYER, "head": HEAD, "query": TOKEN, "guess": ALICE, "top": ALICE, "correct": True}
        assert abs(detail["topShare"] - row[ALICE]) <= TOLERANCE


def test_controls_none_shows_the_view_as_given_and_view_keeps_the_choices(course, site, figure):
    course.goto(site + "/fixed.html")
    fixed, viewing = FigurePage(course, "attention-live", 0), FigurePage(course, "attention-live", 1)
    fixed.ready()
    fixed.wait_for(controls="none", layer=1, head=1, token=3, text=TEXT)
    assert fixed.locator("#text").get_attribute("readonly") is not None
    assert fixed.locator(".text-label").text_content() == "The sentence (fixed for this figure)"
    status = fixed.locator("#status").text_content()
    assert status.startswith("Query «␣turned» (token 4 of 16)")
    fixed.locator(".chip[data-index='1']").hover()  # no preview of another query
    assert fixed.locator("#status").text_content() == status
    assert fixed.locator("#layers").is_hidden() and fixed.locator("#copy-link").is_hidden() and fixed.locator("#heads-panel").is_hidden()
    assert fixed.locator("#matrix-panel").is_visible()
    row = row_of(figure, layer=1, head=1, token=3)
    chip = fixed.locator(".chip[data-index='3']")
    chip.focus()
    course.keyboard.press("ArrowLeft")
    assert course.evaluate("document.querySelector('attention-live').shadowRoot.activeElement.dataset.index") == "2"
    fixed.wait_for_element(".chip[data-index='2']", attributes={"aria-label": f"«␣Queen» {percent(row[2])}, token 3 of 16"})
    assert fixed.state()["token"] == 3, "focusable to read, the query fixed"
    fixed.locator(".chip[data-index='1']").click()
    fixed.locator("#text").press("x")
    assert fixed.state()["token"] == 3 and fixed.state()["text"] == TEXT
    fixed.api("select", {"head": 2})  # the course's script still chooses
    fixed.wait_for(head=2)
    viewing.ready()
    viewing.wait_for(controls="view")
    assert viewing.locator("#text").get_attribute("readonly") is not None and viewing.locator("#layers").is_visible()
    viewing.locator(".chip[data-index='2']").click()
    viewing.wait_for(token=2)
    course.evaluate("document.querySelectorAll('attention-live')[1].setAttribute('controls', 'sideways')")
    viewing.wait_for(controls="all")
    viewing.wait_for_element("#notice", text=containing('controls "sideways"'))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_while_it_asks_after_the_answer_and_on_a_fixed_figure(site, playwright, axe_source, scheme):
    from support.axe import violations

    with browser_context(playwright, color_scheme=scheme) as context:
        page = context.new_page()
        page.goto(site + "/predict.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        element.wait_for(predict={"on": True, "answered": False})
        assert violations(page, axe_source) == []
        element.locator(f".chip[data-index='{QUEEN}']").click()
        element.wait_for(predict={"on": True, "answered": True})
        assert violations(page, axe_source) == []
        page.goto(site + "/fixed.html")
        FigurePage(page, "attention-live").ready()
        FigurePage(page, "attention-live").wait_for(controls="none")
        assert violations(page, axe_source) == []


def test_with_the_causal_mask_left_out_later_tokens_are_answers_too(browser_page, figure):
    """The what-if "no causal mask" left on: the question covers every key the query sees, later ones
    included, and the answer's top is the view's (CPython's what-if row)."""
    page = browser_page
    page.page.goto(page.page.url.split("#")[0] + "#layer=2&head=3&token=4&panels=math")
    page.page.reload()
    assert page.settled() == "ready"
    page.wait_for(token=3, panels={"math": True})
    page.locator("#what-if-mask").click()
    page.wait_for(whatIf={"scale": True, "mask": False})
    page.api("select", {"predict": True})
    page.wait_for(predict={"on": True, "answered": False})
    row = figure.analyse(TEXT, what_if=(LAYER, HEAD, True, False))["attention"][LAYER - 1, HEAD - 1, 3]
    top = int(row.argmax())
    assert top > 3, "the example needs a later token on top"
    assert page.locator(f".chip[data-index='{top}']").get_attribute("aria-disabled") == "false"
    page.page.evaluate("document.addEventListener('attention-live:guess', (e) => { window.lastGuess = e.detail; }, { once: true })")
    page.locator(f".chip[data-index='{top}']").dblclick()  # a double click answers once, and shows the answer
    page.wait_for(predict={"on": True, "answered": True}, token=3)
    detail = page.page.evaluate("window.lastGuess")
    assert detail["top"] == top and detail["correct"] and abs(detail["topShare"] - row[top]) <= TOLERANCE and detail["step"] == 3250
    page.api("select", {"predict": False})
    page.locator("#what-if-mask").click()
    page.wait_for(whatIf={"scale": True, "mask": True})
