"""Embedding on another origin (issue 12, part 2): a host page served from a second origin (another
port of 127.0.0.1) embeds the figure in an iframe and drives it with window.postMessage; the figure
answers, says when it is ready and how tall its content is, and sends its state (which holds the
visitor's text) only to an origin listed in its embed-origin parameter. Checked in headless Chromium;
the figure's numbers against CPython's Figure."""

import numpy as np

from support.figure_page import TOLERANCE, FigurePage, above, other_than
from support.host_page import host, wait_for_message

TEXT = "Alice looked at the Queen and said nothing."


def test_a_host_drives_the_figure_with_messages(playwright, origin, figure):
    with host(playwright, origin, "embed-origin=HOST_ORIGIN") as (page, frame, _):
        ready = page.evaluate("ofType('attention-live:ready')")
        assert ready[0]["origin"] == origin and ready[0]["data"] == {"type": "attention-live:ready"}
        assert page.evaluate("m => ask(m)", {"type": "attention-live:setText", "text": TEXT}) == \
            {"type": "attention-live:reply", "id": "q1", "ok": True}
        assert FigurePage(frame).state()["text"] == TEXT
        assert page.evaluate("m => ask(m)", {"type": "attention-live:select", "layer": 2, "head": 3, "token": 5})["ok"]
        # the view's change is announced on its own, at most STATE_MS after the last state message: wait for
        # it, so that the one message counted below is getState's answer and not that change arriving late
        wait_for_message(page, "attention-live:state", state={"token": 5})
        page.evaluate("() => { received.length = 0; }")
        assert page.evaluate("m => ask(m)", {"type": "attention-live:getState"})["ok"]
        [message] = page.evaluate("ofType('attention-live:state')")
        state = message["data"]["state"]
        assert message["origin"] == origin and (state["text"], state["layer"], state["head"], state["token"]) == (TEXT, 2, 3, 5)
        expected = figure.analyse(TEXT)
        assert state["tokens"] == expected["labels"]
        worst = float(np.max(np.abs(np.asarray(state["weights"]) - expected["attention"][1, 2, 5])))
        print(f"largest difference from CPython: {worst:.3g}")
        assert worst <= TOLERANCE

        # every change of the view sends the state too (clicking a chip in the frame)
        page.evaluate("() => { received.length = 0; }")
        frame.locator(".chip[data-index='2']").click()
        wait_for_message(page, "attention-live:state", state={"token": 2})

        # bad shapes get ok: false with the reason; unknown types and non-objects are ignored
        bad = page.evaluate("""async () => [
            await ask({ type: "attention-live:select", layer: 9 }),
            await ask({ type: "attention-live:select", token: "2" }),
            await ask({ type: "attention-live:setText", text: 42 }),
        ]""")
        assert [reply["ok"] for reply in bad] == [False, False, False]
        assert "layer must be an integer from 1 to 2" in bad[0]["error"] and "token" in bad[1]["error"]
        assert "string" in bad[2]["error"]
        page.evaluate("""() => {
            for (const m of [null, "attention-live:setText", 42, [], { type: 7 }, { type: "attention-live:nope", id: "x" },
                             { type: "attention-live:reply", id: "y", ok: true }, { type: "other:setText", text: "no", id: "z" }]) send(m);
        }""")
        page.evaluate("m => ask(m)", {"type": "attention-live:getState"})  # answered after every message before it
        assert not page.evaluate("received.filter(m => m.data?.type === 'attention-live:reply' && ['x', 'y', 'z'].includes(m.data.id))")
        assert FigurePage(frame).state()["text"] == TEXT

        # a text from a message is data: markup in it is shown as text, never parsed
        markup = '<img src="x" onerror="parent.postMessage(\'pwned\', \'*\')">said'
        assert page.evaluate("m => ask(m)", {"type": "attention-live:setText", "text": markup})["ok"]
        assert "".join(FigurePage(frame).state()["tokens"]).replace("\u2423", " ") == markup
        assert frame.locator("#tokens img").count() == 0
        assert not page.evaluate("received.some(m => m.data === 'pwned')")


def test_resize_reports_the_content_height(playwright, origin):
    with host(playwright, origin, "lti=1") as (page, frame, _):
        def fits():
            """The figure's content height, once announced; the host has sized the iframe to it."""
            height = frame.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
            page.wait_for_function("h => ofType('attention-live:resize').at(-1)?.data.height === h", arg=height)
            page.wait_for_function("h => document.getElementById('figure').clientHeight === h", arg=height)
            # the whole figure shows, with nothing to scroll
            assert frame.evaluate("document.documentElement.scrollHeight <= document.documentElement.clientHeight")
            assert page.evaluate("ofType('lti.frameResize').at(-1).data") == {"subject": "lti.frameResize", "height": height}
            return height

        ready = fits()
        assert ready > 300  # more than the iframe's first 300 px
        frame.locator("#heads-panel > summary").click()
        # the grid is drawn once seen or after a pause (lib/when-paused.js): measured once it is, with
        # its frame drawn, not while its placeholder's height still holds (a race seen once in CI)
        FigurePage(frame).wait_for_elements({"#heads-grid": {"attributes": {"aria-busy": other_than("true")}}, "#heads-grid canvas": {"count": above(0)},
                                             "#heads-grid .focus-bits": {"text": other_than("")}})  # written by the grid's draw, not by its creation
        frame.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
        assert fits() > ready + 100  # the heads grid made the figure taller


def test_the_state_goes_only_to_a_listed_origin(playwright, origin):
    for query in ["", "embed-origin=http%3A%2F%2F127.0.0.1%3A1", "embed-origin=*"]:
        with host(playwright, origin, query) as (page, frame, _):
            reply = page.evaluate("m => ask(m)", {"type": "attention-live:getState"})
            assert not reply["ok"] and "embed-origin" in reply["error"]
            assert page.evaluate("m => ask(m)", {"type": "attention-live:setText", "text": TEXT})["ok"]
            frame.locator(".chip[data-index='1']").click()
            page.evaluate("m => ask(m)", {"type": "attention-live:select", "token": 3})
            assert not page.evaluate("ofType('attention-live:state')"), query
            assert page.evaluate("ofType('lti.frameResize')") == []  # without ?lti=1
            if query.endswith("*"):  # not an origin: the page says so
                assert "is not an origin" in frame.locator("#notice").text_content()


def test_a_text_sent_before_ready_wins_over_the_address(playwright, origin, figure):
    early = {"type": "attention-live:setText", "text": TEXT, "id": "early"}
    with host(playwright, origin, "embed-origin=HOST_ORIGIN#text=Link%20words&token=2", early) as (page, frame, _):
        assert page.evaluate("received.find(m => m.data.id === 'early')?.data") == {"type": "attention-live:reply", "id": "early", "ok": True}
        state = FigurePage(frame).state()
        assert state["text"] == TEXT == frame.locator("#text").input_value()
        assert state["tokens"] == figure.analyse(TEXT)["labels"] and frame.locator("#notice").is_hidden()
