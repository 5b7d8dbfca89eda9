"""Several figures on one page (issue 21): <attention-live> elements and same-origin iframes of the
standalone page, all served by one Python; lazy figures below the fold.

The course site is a plain static server whose ``attention-live/`` folder is ``dist/``, as a course
author who copies the build into their site has it.
"""

import numpy as np
import pytest

from attention_live.figure import MAX_TEXT_CHARS
from support.figure_page import NOT_EMPTY, TOLERANCE, WAIT_MS, FigurePage, as_long_as, browser_context, course_site, last_item, length, worker_targets
from support.axe import violations

TEXTS = ("Alice said hello to the Rabbit.", "The Queen shouted at the Hatter", "Then the Mock Turtle sighed deeply")
FRAME_TEXTS = ("Alice looked at the cat", "The King turned to the Knave")
ALL_READY = """async () => {
    await Promise.all([...document.querySelectorAll('attention-live')].map((figure) => figure.ready));
    for (const frame of document.querySelectorAll('iframe')) {
        await new Promise((resolve) => {
            const wait = () => (frame.contentWindow.attentionLive ? frame.contentWindow.attentionLive.ready.then(resolve) : setTimeout(wait, 20));
            wait();
        });
    }
}"""
STATES = """() => [...[...document.querySelectorAll('attention-live')].map((figure) => figure.state()),
                  ...[...document.querySelectorAll('iframe')].map((frame) => frame.contentWindow.attentionLive.state())]"""


def three_and_two():
    elements = "".join(f'<h2>Figure {i + 1}</h2><attention-live text="{text}"></attention-live>' for i, text in enumerate(TEXTS))
    frames = "".join(f'<h2>Frame {i + 1}</h2><iframe src="attention-live/index.html#text={text.replace(" ", "%20")}" title="Attention, live: frame {i + 1}" '
                     'width="900" height="600" style="border: 0"></iframe>' for i, text in enumerate(FRAME_TEXTS))
    return elements + frames


def assert_matches_cpython(state, figure, text):
    assert state["text"] == text and state["ids"] == figure.analyse(text)["ids"]
    want = figure.analyse(text)["attention"][state["layer"] - 1, state["head"] - 1]
    worst = float(np.max(np.abs(np.asarray(state["matrix"]) - want)))
    assert worst <= TOLERANCE, (text, worst)


@pytest.fixture(scope="module")
def course_page(playwright, tmp_path_factory):
    """The course page with three elements and two iframes, all live; yields (Playwright page, browser)."""
    with course_site(tmp_path_factory.mktemp("course"), {"unit3.html": three_and_two()}) as url, \
            browser_context(playwright, viewport={"width": 1280, "height": 900}) as context:
        page = context.new_page()
        page.goto(url + "/unit3.html")
        page.evaluate(ALL_READY)
        yield page, context.browser


def test_every_figure_is_right_for_its_own_text(course_page, figure):
    page, _ = course_page
    states = page.evaluate(STATES)
    assert len(states) == 5
    for state, text in zip(states, TEXTS + FRAME_TEXTS):
        assert_matches_cpython(state, figure, text)


def test_one_python_serves_them_all(course_page):
    page, browser = course_page
    runtimes = [state["runtime"] for state in page.evaluate(STATES)]
    assert len({runtime["id"] for runtime in runtimes}) == 1 and {runtime["kind"] for runtime in runtimes} == {"shared"}
    assert runtimes[-1]["figures"] == 5
    python_workers = [url for kind, url in worker_targets(browser) if url.endswith("/worker.js")]
    assert len(python_workers) == 1, python_workers


def test_typing_in_one_changes_no_other(course_page, figure):
    page, _ = course_page
    before = page.evaluate(STATES)
    box = page.locator("attention-live").nth(1).locator("textarea")
    box.click()
    box.press("End")
    box.type(" loudly")
    second = FigurePage(page, "attention-live", nth=1)
    second.wait_for(text=TEXTS[1] + " loudly")
    second.ready()
    second.wait_for(tokens=NOT_EMPTY)
    FigurePage(page.frames[1]).select(layer=1, head=2, token=1)
    after = page.evaluate(STATES)
    assert_matches_cpython(after[1], figure, TEXTS[1] + " loudly")
    assert (after[3]["layer"], after[3]["head"], after[3]["token"]) == (1, 2, 1)
    assert_matches_cpython(after[3], figure, FRAME_TEXTS[0])
    for i in (0, 2, 4):
        assert {k: v for k, v in after[i].items() if k != "runtime"} == {k: v for k, v in before[i].items() if k != "runtime"}, i
    page.locator("attention-live").nth(0).locator("label.choice[data-value='1']").first.click()  # layer 1 in the first
    FigurePage(page, "attention-live", nth=0).wait_for(layer=1)
    checked = page.evaluate("""() => [...document.querySelectorAll('attention-live')].map((figure) =>
        [figure.shadowRoot.querySelector('#layers input:checked').value, String(figure.state().layer)])""")
    assert all(shown == chosen for shown, chosen in checked), checked  # each figure's radio groups are its own


def test_no_id_repeats_and_axe_finds_nothing(course_page, axe_source):
    """Each element's parts are in its own shadow root, where no id repeats (label for=, aria-labelledby
    and the rest resolve there), and none is in the page's document, whose ids stay the page's."""
    page, _ = course_page
    roots = page.evaluate("""() => [document, ...[...document.querySelectorAll('attention-live')].map((figure) => figure.shadowRoot)]
        .map((root) => [...root.querySelectorAll('[id]')].map((element) => element.id))""")
    page_ids, *figure_ids = roots
    assert len(figure_ids) == 3 and not set(page_ids) & {id for ids in figure_ids for id in ids}
    for ids in figure_ids:
        assert len(ids) > 30 and len(ids) == len(set(ids))
    assert violations(page, axe_source) == []


def test_an_attribute_changes_the_view(course_page, figure):
    page, _ = course_page
    page.evaluate("""() => {
        const figure = document.querySelectorAll('attention-live')[2];
        figure.setAttribute('layer', '2');
        figure.setAttribute('head', '9');  // no such head: the nearest, with a notice
    }""")
    state = FigurePage(page, "attention-live", nth=2).state()
    assert (state["layer"], state["head"]) == (2, figure.config.n_head)
    notice = page.locator("attention-live").nth(2).locator(".notice")
    assert "head" in notice.text_content() and notice.is_visible()


def test_a_text_attribute_with_a_lone_surrogate_is_taken_as_the_box_takes_it(course_page, figure):
    """A lone UTF-16 surrogate in the text attribute (a script can put one there) becomes U+FFFD, as in
    every other way in (text-box.js), and throws nothing (encodeURIComponent would: "URI malformed"),
    in an element already live and in one added with it."""
    page, _ = course_page
    errors = []

    def record(error):
        errors.append(error)

    page.on("pageerror", record)
    second = FigurePage(page, "attention-live", nth=1)
    try:
        page.evaluate("() => document.querySelectorAll('attention-live')[1].setAttribute('text', 'x\\uD83Dy')")
        second.wait_for(text="x\ufffdy", ids=NOT_EMPTY)  # its tokens shown, not only its text taken
        assert_matches_cpython(second.state(), figure, "x\ufffdy")
        added = page.evaluate("""async () => {
            const figure = document.createElement('attention-live');
            figure.setAttribute('text', '\\uDE00 new');
            document.querySelector('h2').before(figure);
            figure.scrollIntoView();  // in view: computed at once, not only tokenized
            await figure.ready;
            const shown = () => { const state = figure.state(); return state.ids.length > 0 && state.matrix.length === state.ids.length; };
            await new Promise((resolve) => { const wait = () => shown() ? resolve() : setTimeout(wait, 20); wait(); });
            const state = figure.state();
            figure.remove();
            return state;
        }""")
        assert_matches_cpython(added, figure, "\ufffd new")
        assert errors == []
    finally:
        page.remove_listener("pageerror", record)
        page.evaluate("t => document.querySelectorAll('attention-live')[1].setAttribute('text', t)", TEXTS[1])
        second.wait_for(text=TEXTS[1], ids=NOT_EMPTY)


def test_a_figure_below_the_fold_waits_until_scrolled_to(playwright, tmp_path, figure):
    body = ('<attention-live text="Alice said hello"></attention-live><div style="height: 6000px"></div>'
            '<attention-live id="low" text="The Queen said nothing"></attention-live>')
    with course_site(tmp_path, {"lazy.html": body}) as url, browser_context(playwright, viewport={"width": 1000, "height": 700}) as context:
        page = context.new_page()
        page.goto(url + "/lazy.html")
        top, low = FigurePage(page, "attention-live"), FigurePage(page, "#low")
        top.ready()
        first = top.state()
        assert first["runtime"]["figures"] == 1  # the one below has asked Python for nothing
        assert (page.locator("#low").get_attribute("data-state"), low.state()["runtime"]) == ("waiting", None)
        want = figure.analyse("The Queen said nothing")
        low.wait_for_chips(len(want["ids"]))
        early = low.state()  # its tokens, from the running Python; no attention
        assert (early["ids"], early["tokens"], early["weights"]) == (want["ids"], want["labels"], [])
        assert page.locator("#low .chip[data-weight]").count() == 0
        assert top.state()["runtime"]["figures"] == 1
        page.locator("#low").scroll_into_view_if_needed()
        low.wait_for_state("ready")
        state = low.state()
        assert state["runtime"]["id"] == first["runtime"]["id"] and state["runtime"]["figures"] == 2
        assert_matches_cpython(state, figure, "The Queen said nothing")


def test_events_carry_the_state(playwright, tmp_path):
    with course_site(tmp_path, {"events.html": '<attention-live text="Alice"></attention-live>'}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.add_init_script("""
            window.seen = [];
            document.addEventListener('attention-live:ready', () => window.seen.push('ready'));
            document.addEventListener('attention-live:change', (event) => window.seen.push(event.detail.text));
        """)
        page.goto(url + "/events.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        element.set_text("Alice ran")
        element.wait_for_global("seen", last_item("Alice ran"))
        seen = page.evaluate("window.seen")
        assert seen.count("ready") == 1 and seen.index("ready") < seen.index("Alice ran")


def test_change_events_are_throttled_and_cost_nothing_unread(playwright, tmp_path):
    """attention-live:change comes while typing, the last one after the last text (at most every 200 ms:
    the throttle's own test, on a clock of its own, is tests/test_throttle.py), and its detail (state(),
    with every T x T matrix) is computed only for a listener that reads it, once for all of them."""
    with course_site(tmp_path, {"typing.html": '<attention-live text="Alice"></attention-live>'}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/typing.html")
        page.evaluate("""() => {
            const figure = document.querySelector('attention-live');
            window.events = [];
            window.computed = 0;
            window.uncounted = figure.figure.api.state; // for the test's own waits
            figure.figure.api.state = () => { window.computed += 1; return window.uncounted(); };
            document.addEventListener('attention-live:change', (event) => window.events.push(event.target.figure.text));
            return figure.ready;
        }""")
        page.locator("attention-live textarea").press("End")
        page.locator("attention-live textarea").press_sequentially(" and then she ran away", delay=20)
        page.wait_for_function("() => window.uncounted().text === 'Alice and then she ran away'", timeout=WAIT_MS)  # not state(): it counts
        FigurePage(page).wait_for_global("events", last_item("Alice and then she ran away"))  # the last change comes, throttled or not
        assert page.evaluate("window.computed") == 0  # no listener read a detail

        page.evaluate("""() => {
            window.computed = 0;
            window.details = [];
            for (const listener of [1, 2]) document.addEventListener('attention-live:change', (event) => window.details.push(event.detail.text));
            return document.querySelector('attention-live').setText('The Queen');
        }""")
        FigurePage(page).wait_for_global("details", last_item("The Queen"))
        assert page.evaluate("[window.details.length % 2, window.computed === window.details.length / 2]") == [0, True]


def test_without_shared_workers_one_dedicated_worker_serves_the_page(playwright, tmp_path, figure):
    """Where the browser has no SharedWorker (Chrome for Android), the page's figures share one
    dedicated worker."""
    body = "".join(f'<attention-live text="{text}"></attention-live>' for text in TEXTS[:2])
    with course_site(tmp_path, {"two.html": body}) as url, browser_context(playwright, viewport={"width": 1000, "height": 3000}) as context:
        page = context.new_page()
        page.add_init_script("delete window.SharedWorker")
        page.goto(url + "/two.html")
        page.evaluate("() => Promise.all([...document.querySelectorAll('attention-live')].map((figure) => figure.ready))")
        states = page.evaluate("() => [...document.querySelectorAll('attention-live')].map((figure) => figure.state())")
        assert [s["runtime"]["kind"] for s in states] == ["dedicated", "dedicated"] and states[0]["runtime"]["id"] == states[1]["runtime"]["id"]
        assert len(page.workers) == 1 and page.workers[0].url.endswith("/worker.js")
        for state, text in zip(states, TEXTS):
            assert_matches_cpython(state, figure, text)


def test_a_closed_page_gives_its_figures_back(playwright, tmp_path):
    """Python (shared by the tabs of the build) stops serving a page's figures when the page goes."""
    pages = {"a.html": '<attention-live text="Alice"></attention-live>', "b.html": '<attention-live text="The Queen"></attention-live>'}
    with course_site(tmp_path, pages) as url, browser_context(playwright) as context:
        first, second = context.new_page(), context.new_page()
        for page, name in ((first, "a.html"), (second, "b.html")):
            page.goto(f"{url}/{name}")
            FigurePage(page, "attention-live").ready()
        element = FigurePage(first, "attention-live")
        element.wait_for(runtime={"figures": 2})
        second.close()
        element.wait_for(runtime={"figures": 1})


def test_twenty_figures_share_one_python(playwright, tmp_path, figure):
    """Twenty elements on one page (a long chapter): each goes live, right for its own text, and one
    Python serves them all."""
    texts = [f"Alice said {word} to the Rabbit." for word in ("hello", "nothing", "yes", "no", "goodbye")] * 4
    texts = [f"{text} ({i})" for i, text in enumerate(texts)]
    body = "".join(f'<attention-live text="{text}"></attention-live>' for text in texts)
    with course_site(tmp_path, {"long.html": body}) as url, browser_context(playwright, viewport={"width": 1000, "height": 900}) as context:
        page = context.new_page()
        page.goto(url + "/long.html")
        states = page.evaluate("""async () => {
            const figures = [...document.querySelectorAll('attention-live')];
            await Promise.all(figures.map((figure) => figure.ready));
            const drawn = () => figures.every((figure) => figure.state().matrix.length === figure.state().ids.length && figure.state().ids.length > 0);
            await new Promise((resolve) => { const wait = () => drawn() ? resolve() : setTimeout(wait, 20); wait(); });
            return figures.map((figure) => figure.state());
        }""")
        assert len(states) == 20 and len({s["runtime"]["id"] for s in states}) == 1
        FigurePage(page, "attention-live").wait_for(runtime={"figures": 20})
        for state, text in zip(states, texts):
            assert_matches_cpython(state, figure, text)


def test_an_attribute_flood_leaves_the_last_value_shown(playwright, tmp_path, figure):
    """A host script that sets the attributes hundreds of times in a row (a slider bound to them, a
    framework re-rendering) leaves the figure on the last values, with no error, and no extra view
    in Python."""
    with course_site(tmp_path, {"flood.html": '<attention-live text="Alice"></attention-live>'}) as url, browser_context(playwright) as context:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url + "/flood.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        page.evaluate("""async () => {
            const figure = document.querySelector('attention-live');
            for (let i = 0; i < 600; i += 1) {
                figure.setAttribute('text', `The Queen said ${i} times`);
                figure.setAttribute('layer', String(1 + (i % 2)));
                figure.setAttribute('head', String(1 + (i % 4)));
                if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
            }
        }""")
        last = "The Queen said 599 times"
        element.wait_for(text=last, ids=NOT_EMPTY, matrix=as_long_as("ids"))  # not the box's text alone, while its result is on its way
        state = element.state()
        assert (state["layer"], state["head"]) == (2, 4) and state["runtime"]["figures"] == 1
        assert_matches_cpython(state, figure, last)
        assert errors == []


def test_a_new_text_attribute_keeps_the_focus_in_the_figure(playwright, tmp_path):
    """The chips of the old text go when the text attribute changes: a focused chip's focus moves to
    the text box, never to the page's body (docs/accessibility.md)."""
    with course_site(tmp_path, {"focus.html": f'<attention-live text="{TEXTS[1]}"></attention-live>'}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/focus.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        element.wait_for(weights=NOT_EMPTY)
        page.locator("attention-live .chip[tabindex='0']").focus()
        page.evaluate("() => document.querySelector('attention-live').setAttribute('text', 'Hi there')")
        element.wait_for(text="Hi there")
        assert page.evaluate("() => [document.activeElement.tagName, document.querySelector('attention-live').shadowRoot.activeElement?.id]") == ["ATTENTION-LIVE", "text"]


@pytest.mark.parametrize("megabytes", [1, 10, 40])
def test_a_huge_text_attribute_is_cut(playwright, tmp_path, figure, megabytes):
    """A host that puts megabytes into the text attribute: the figure takes its last max_text_chars
    characters, says so, equals CPython for them, and still answers the next event (its longest
    main-thread task, against the 200 ms of ../shared/cases/course-pages.md: bench/long_tasks.py)."""
    with course_site(tmp_path, {"huge.html": '<attention-live text="Alice"></attention-live>'}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/huge.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        page.evaluate("mb => document.querySelector('attention-live').setAttribute('text', 'The Queen said. '.repeat(Math.ceil(mb * 1e6 / 16)) + 'Alice')", megabytes)  # its longest task: bench/long_tasks.py
        element.wait_for(text=length(MAX_TEXT_CHARS), matrix=as_long_as("ids"), ids=NOT_EMPTY)
        text = ("The Queen said. " * 200 + "Alice")[-MAX_TEXT_CHARS:]  # its last characters: the same for any length
        assert_matches_cpython(element.state(), figure, text)
        notice = page.locator("attention-live .notice")
        assert notice.is_visible() and f"only its last {MAX_TEXT_CHARS:,}" in notice.text_content()
        element.answers_the_next_event()
