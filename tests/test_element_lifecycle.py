"""An <attention-live> element's figure through its life on a page (issue 42: every view and controller
has a cleanup, called when the figure goes): an element moved keeps its figure; one taken out of the page
lets its figure go, with its Python view and every listener its parts had; put back, it starts again on
the view it showed (what a link keeps). A figure adds no listener to the window (nothing page-wide knows
a figure).

The course site is a plain static server whose ``attention-live/`` folder is ``dist/``.
"""

import numpy as np

from support.figure_page import NOT_EMPTY, TOLERANCE, FigurePage, as_long_as, browser_context, course_site

PAGE = ('<attention-live id="first" text="Alice said hello to the Rabbit."></attention-live>'
        '<attention-live id="second" text="The Queen shouted at the Hatter"></attention-live>')
BOTH_READY = "() => Promise.all([...document.querySelectorAll('attention-live')].map((figure) => figure.ready))"


def listeners(page, expression):
    """The number of event listeners on the objects of the JavaScript array ``expression`` (evaluated
    in the page), as Chromium's DevTools count them (DOMDebugger.getEventListeners): nothing the page's
    own scripts could hide or miscount."""
    session = page.context.new_cdp_session(page)
    count = page.evaluate(f"() => ({expression}).length")
    total = 0
    for i in range(count):
        target = session.send("Runtime.evaluate", {"expression": f"({expression})[{i}]"})["result"]["objectId"]
        total += len(session.send("DOMDebugger.getEventListeners", {"objectId": target})["listeners"])
    session.detach()
    return total


def matches_cpython(state, figure, text):
    want = figure.analyse(text)
    assert (state["text"], state["ids"]) == (text, want["ids"])
    worst = float(np.max(np.abs(np.asarray(state["matrix"]) - want["attention"][state["layer"] - 1, state["head"] - 1])))
    assert worst <= TOLERANCE, worst


def test_a_moved_element_keeps_its_figure_and_one_taken_out_lets_it_go(playwright, tmp_path, figure):
    with course_site(tmp_path, {"unit.html": PAGE}) as url, browser_context(playwright, viewport={"width": 1200, "height": 2400}) as context:
        page = context.new_page()
        page.goto(url + "/unit.html")
        page.evaluate(BOTH_READY)
        first, second = FigurePage(page, "#first"), FigurePage(page, "#second")
        text = "Then the Queen turned to Alice and said"
        page.evaluate("""async t => { const first = document.getElementById('first');
            await first.setText(t); await first.select({ layer: 2, head: 3, token: 4 }); }""", text)
        on_window = listeners(page, "[window]")
        # moved within one task: the same figure, its view and its Python view kept
        moved = page.evaluate("""async () => { const first = document.getElementById('first');
            first.parentElement.append(first);
            await new Promise((resolve) => setTimeout(resolve, 50));
            return { state: first.state(), same: first.shadowRoot.getElementById('text').value };
        }""")
        assert (moved["state"]["layer"], moved["state"]["head"], moved["state"]["token"]) == (2, 3, 4)
        assert moved["same"] == text
        second.wait_for(runtime={"figures": 2})
        # taken out for longer than a task: its figure goes, with its Python view and its parts' listeners
        page.evaluate("() => { window.kept = document.getElementById('first'); window.parts = [...window.kept.shadowRoot.querySelectorAll('*')]; }")
        assert listeners(page, "window.parts") > 0  # the text box, the buttons, the disclosures, the chips
        page.evaluate("async () => { window.kept.remove(); await new Promise((resolve) => setTimeout(resolve, 50)); }")
        second.wait_for(runtime={"figures": 1})
        assert listeners(page, "window.parts") == 0
        # put back: a new figure on the view it showed, live, with CPython's numbers
        page.evaluate("() => { document.querySelector('main').prepend(window.kept); return window.kept.ready; }")
        first.wait_for(text=text, ids=NOT_EMPTY, matrix=as_long_as("ids"))
        state = first.state()
        assert (state["layer"], state["head"], state["token"]) == (2, 3, 4)
        matches_cpython(state, figure, text)
        second.wait_for(runtime={"figures": 2})
        # three figures more: the window's listeners are the page's, not one per figure
        page.evaluate("""() => { for (const text of ['one', 'two', 'three']) { const more = document.createElement('attention-live');
            more.setAttribute('text', `Alice said ${text}`); document.querySelector('main').append(more); } }""")
        page.evaluate(BOTH_READY)
        assert listeners(page, "[window]") == on_window
