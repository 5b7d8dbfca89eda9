"""The views' harness page (tests/harness/view.html) and its page object: one view drawn from a fixture
of CPython's answers (tests/fixtures/answers/), with no worker and no Python, its words from a message
catalog (web/i18n/<lang>.json, English by default) as the figure's.

The repository's root is served as it is (the views as written, not dist/'s bundle); each test opens
the view it checks in a page of one shared Debian chromium, and fails on any page error, console error
or dialog (Watch).
"""

import contextlib
import json

import build
from support.figure_page import Watch, browser_context, serving

FIXTURES = build.ROOT / "tests" / "fixtures"


def answers(name):
    """The fixture ``name`` (queen, markup) as CPython wrote it (JSON: typed arrays as {"$float32": [...]})."""
    return json.loads((FIXTURES / "answers" / f"{name}.json").read_text(encoding="utf-8"))


def floats(marked):
    """A fixture's {"$float32": [...]} as a list of floats (the strings "-Infinity" etc. as numbers)."""
    return [float(x) for x in marked["$float32"]]


@contextlib.contextmanager
def harness_site(playwright):
    """(origin, browser context) serving the repository's root; the context is closed afterwards."""
    with serving(build.make_server(0, build.ROOT)) as origin, browser_context(playwright) as context:
        yield origin, context


# The elements that stick out of the figure's frame, outside any box that scrolls or clips them.
STICKING_OUT = """() => {
    const frame = document.getElementById("frame").getBoundingClientRect();
    const clipped = (e) => { for (let a = e.parentElement; a && a.id !== "frame"; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible") return true; } return false; };
    return [...document.querySelectorAll("#frame *")].filter((e) => e.getClientRects().length > 0 && !clipped(e))
        .map((e) => ({ e, r: e.getBoundingClientRect() }))
        .filter(({ r }) => r.width > 0 && (r.left < frame.left - 0.5 || r.right > frame.right + 0.5))
        .map(({ e, r }) => `${e.tagName.toLowerCase()}.${e.className}: ${r.left.toFixed(1)}..${r.right.toFixed(1)} of ${frame.left}..${frame.right}`);
}"""

# The colours of the top-left T × T pixels of a canvas ([T][T][r, g, b]).
PIXELS = """([selector, T]) => {
    const data = document.querySelector(selector).getContext("2d").getImageData(0, 0, T, T).data;
    return Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => Array.from(data.slice((i * T + j) * 4, (i * T + j) * 4 + 3))));
}"""


class ViewHarness:
    """One page of the harness: ``open(view, answers, width)``, then what the view shows and does."""

    def __init__(self, origin, context):
        self.origin = origin
        self.watch = Watch(origin)
        self.page = self.watch.page(context.new_page())

    def open(self, view, answers="queen", width=None, lang=None):
        """Draw ``view`` from the fixture ``answers``, the figure ``width`` CSS px wide, in a window as wide
        (None: the page's default), in the language ``lang`` (its catalog web/i18n/<lang>.json; None:
        English)."""
        if width:
            self.page.set_viewport_size({"width": width, "height": 800})
        query = f"view={view}&answers={answers}" + (f"&width={width}" if width else "") + (f"&lang={lang}" if lang else "")
        self.page.goto(f"{self.origin}/tests/harness/view.html?{query}")
        self.page.wait_for_selector("html:not([data-state='loading'])", state="attached")
        state = self.page.evaluate("document.documentElement.dataset.state")
        assert state == "ready", self.page.locator("#error").text_content()
        return self

    def evaluate(self, script, arg=None):
        return self.page.evaluate(script, arg)

    def calls(self):
        """The view's `on` callbacks called so far, in order: [[name, ...args]]."""
        return self.evaluate("() => window.harness.calls")

    def state(self):
        """The selection the harness drew last (as the figure's view state: layer, head, token, step, knockout)."""
        return self.evaluate("() => window.harness.state")

    def texts(self, selector):
        return self.page.eval_on_selector_all(selector, "es => es.map(e => e.textContent)")

    def attributes(self, selector, name):
        return self.page.eval_on_selector_all(selector, "(es, name) => es.map(e => e.getAttribute(name))", name)

    def names_written(self, selector):
        """Wait until the names or rows that wait for a pause (when-paused.js) are written in ``selector``."""
        self.page.wait_for_selector(f"{selector}[aria-busy='false']", state="attached")

    def pixels(self, selector, T):
        return self.evaluate(PIXELS, [selector, T])

    def listeners(self, expression):
        """The number of event listeners on the objects of the JavaScript array ``expression``, as
        Chromium's DevTools count them (DOMDebugger.getEventListeners)."""
        session = self.page.context.new_cdp_session(self.page)
        total = 0
        for i in range(self.evaluate(f"() => ({expression}).length")):
            target = session.send("Runtime.evaluate", {"expression": f"({expression})[{i}]"})["result"]["objectId"]
            total += len(session.send("DOMDebugger.getEventListeners", {"objectId": target})["listeners"])
        session.detach()
        return total

    def sticking_out(self):
        return self.evaluate(STICKING_OUT)

    def check(self):
        """No page error, console error or dialog, and no request off the harness's origin."""
        self.watch.check()
