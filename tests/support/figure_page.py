"""The figure's page object and the local setup shared by the browser tests and the benchmark.

Debian's chromium is launched by path (``playwright install`` cannot download here) with the flags
that keep it off the network; ``dist/`` is served on 127.0.0.1 by build.py's own server.
"""

import base64
import contextlib
import functools
import http.server
import json
import re
import threading
import time

import numpy as np

import build

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
MEMORY_ARGS = [*CHROMIUM_ARGS, "--enable-precise-memory-info", "--js-flags=--expose-gc"]  # for memory_mb
TOLERANCE = 1e-4  # largest difference allowed between the tab's attention (float32, no BLAS) and CPython's
WAIT_MS = 120_000  # how long a page may take to leave data-state="loading" on this 2-core machine
EXPORTED_IMAGE = """async format => {
    const file = await window.attentionLive.exportImage({ format });
    const bytes = new Uint8Array(await file.arrayBuffer());
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { name: file.name, type: file.type, base64: btoa(text) };
}"""  # a JavaScript function (format => the exported image's {name, type, base64}), for page.evaluate

# A JS function: the figure's API, window.attentionLive (figure null) or its element ({selector: [CSS
# selectors], nth}: FigureBase.element's selectors, each after the first in the shadow root of the
# element the one before found; the nth match of the last).
FIND_FIGURE = """(figure) => figure === null ? window.attentionLive
    : figure.selector.reduce((host, selector, i) => (i === 0 ? document : host?.shadowRoot)?.querySelectorAll(selector)[i === figure.selector.length - 1 ? figure.nth : 0], null)"""

# The one predicate behind every readable wait (FigureBase): ({figure, look, expected}) => whether what
# ``look`` names, read from the figure ``figure`` (null: the standalone page's window.attentionLive;
# {selector: [CSS selectors], nth}: an <attention-live> element, as FIND_FIGURE finds it), matches ``expected``.
# look.what: "state" (its state()), "data-state" (the page's or the element's), "elements" ({count,
# text, hidden, attributes} of look.selector's matches, the first's, in its document or shadow root),
# "location" ({hash, params}: the address's fragment, and its parameters as an object), "global" (the
# page's global look.name, dotted: "document.activeElement.id"; a recorder a test installed).
# A list of looks, with a list of expected values: all of them at once.
# A plain expected value must be equal (an array: as long, each item matching); an object matches
# every field it names (partial), unless it is one of the matchers below ({"$endsWith": ...}).
FIGURE_MATCHES = """({ figure, look, expected }) => {
    const host = figure === null ? null : (FIND_FIGURE)(figure);
    const root = figure === null ? document : host?.shadowRoot;
    const read = (look) => {
        switch (look.what) {
            case "state": return figure === null ? window.attentionLive?.state() : host?.state?.();
            case "data-state": return (figure === null ? document.documentElement : host)?.dataset.state;
            case "elements": {
                const all = root ? [...root.querySelectorAll(look.selector)] : [];
                const first = all[0];
                return { count: all.length, text: first?.textContent, hidden: first?.hidden,
                         attributes: first ? Object.fromEntries([...first.attributes].map((a) => [a.name, a.value])) : {} };
            }
            case "location": // params: each name's first value, as URLSearchParams.get reads it
                return { hash: location.hash, params: Object.fromEntries([...new URLSearchParams(location.hash.slice(1))].reverse()) };
            case "global": return look.name.split(".").reduce((object, key) => object?.[key], window);
        }
        throw new Error(`nothing to look at: ${look.what}`);
    };
    let value;  // what the look being checked read, for $lengthOf
    const matches = (actual, wanted) => {
        if (Array.isArray(wanted)) return Array.isArray(actual) && actual.length === wanted.length && wanted.every((w, i) => matches(actual[i], w));
        if (wanted === null || typeof wanted !== "object") return actual === wanted;
        if ("$not" in wanted) return !matches(actual, wanted.$not);
        if ("$all" in wanted) return wanted.$all.every((w) => matches(actual, w));
        if ("$some" in wanted) return Array.isArray(actual) && actual.some((item) => matches(item, wanted.$some));
        if ("$last" in wanted) return Array.isArray(actual) && actual.length > 0 && matches(actual.at(-1), wanted.$last);
        if ("$startsWith" in wanted) return typeof actual === "string" && actual.startsWith(wanted.$startsWith);
        if ("$endsWith" in wanted) return typeof actual === "string" && actual.endsWith(wanted.$endsWith);
        if ("$includes" in wanted) return typeof actual === "string" && actual.includes(wanted.$includes);
        if ("$regex" in wanted) return typeof actual === "string" && new RegExp(wanted.$regex).test(actual);
        if ("$above" in wanted) return typeof actual === "number" && actual > wanted.$above;
        if ("$length" in wanted) return actual != null && matches(actual.length, wanted.$length);
        if ("$lengthOf" in wanted) return actual === value?.[wanted.$lengthOf]?.length;
        return actual !== null && typeof actual === "object" && Object.entries(wanted).every(([key, w]) => matches(actual[key], w));
    };
    const holds = (look, wanted) => {
        value = read(look);
        return value !== undefined && value !== null && matches(value, wanted);
    };
    return Array.isArray(look) ? look.every((each, i) => holds(each, expected[i])) : holds(look, expected);
}""".replace("FIND_FIGURE", FIND_FIGURE)


def _matcher(key, what):
    """A matcher maker for FigureBase's waits: ``make(value)`` gives {key: value}, which FIGURE_MATCHES
    reads; ``what`` says what it matches."""
    def make(value):
        return {key: value}
    make.__doc__ = f"Matches {what}."
    return make


starts_with = _matcher("$startsWith", "a string that starts with the text given")
ends_with = _matcher("$endsWith", "a string that ends with the text given")
containing = _matcher("$includes", "a string with the text given in it")
matching = _matcher("$regex", "a string in which the JavaScript regular expression given is found")
other_than = _matcher("$not", "anything that does not match the value given")
some_item = _matcher("$some", "a list with an item that matches the value given")
last_item = _matcher("$last", "a list whose last item matches the value given")
length = _matcher("$length", "a list or string of as many items as given (a matcher too: length(above(0)))")
above = _matcher("$above", "a number above the one given")


def all_of(*matchers):
    """Matches what matches every one of ``matchers``."""
    return {"$all": list(matchers)}


def as_long_as(field):
    """Matches a list or string as long as the state's (or the looked-at object's) field ``field``."""
    return {"$length": {"$lengthOf": field}}


NOT_EMPTY = length(above(0))  # a list or string with something in it


class FigureBase:
    """What FigurePage and the cross-engine EnginePage share: the figure's API (state(), set_text(),
    select()) and readable waits, all checked by FIGURE_MATCHES (``figure.wait_for(head=2)``). A
    class using it has ``evaluate(fn, arg)`` (the JS function ``fn`` called with ``arg``, awaited),
    ``wait_until(predicate, arg)`` (poll the JS function ``predicate(arg)`` until truthy) and
    ``element`` (None: the standalone page; else a CSS selector of the figure's element, with
    ``nth`` which of its matches; or a tuple of selectors, each after the first in the shadow root
    of the element the one before found: ("course-card", "attention-live"))."""

    element, nth = None, 0

    @property
    def _figure(self):
        if self.element is None:
            return None
        return {"selector": [self.element] if isinstance(self.element, str) else list(self.element), "nth": self.nth}

    def api(self, method, *args):
        """Call the figure's JavaScript API (window.attentionLive, or the element): ``method`` with
        ``args``, awaited; returns its value."""
        return self.evaluate(f"([figure, method, args]) => ({FIND_FIGURE})(figure)[method](...args)", [self._figure, method, list(args)])

    def state(self):
        return self.api("state")

    def set_text(self, text):
        return self.api("setText", text)

    def select(self, **view):
        return self.api("select", view)

    def _wait(self, look, expected, fields=None):
        """Wait until ``look`` matches ``expected`` and, at the same time, state() has ``fields``."""
        if fields:
            look, expected = [look, {"what": "state"}], [expected, fields]
        self.wait_until(FIGURE_MATCHES, {"figure": self._figure, "look": look, "expected": expected})

    def wait_for(self, **expected):
        """Until the figure's state() has every field given equal (dicts partly: panels={"math": True};
        or a matcher: text=ends_with(" and"), ids=NOT_EMPTY)."""
        self._wait({"what": "state"}, expected)

    def wait_for_state(self, state, **fields):
        """Until the figure's data-state (the page's, or its element's) is ``state`` (or matches it:
        other_than("loading")), and at the same time its state() has ``fields`` (as wait_for)."""
        self._wait({"what": "data-state"}, state, fields)

    def wait_for_element(self, selector, **expected):
        """Until the figure's elements ``selector`` are as ``expected``: count (how many), and the first
        one's text (textContent), hidden, attributes ({name: value}, partly)."""
        self._wait({"what": "elements", "selector": selector}, expected)

    def wait_for_elements(self, expected):
        """Until, at once, the elements of each selector in ``expected`` ({selector: {count, text,
        hidden, attributes}}) are as wait_for_element's."""
        self._wait([{"what": "elements", "selector": selector} for selector in expected], list(expected.values()))

    def wait_for_chips(self, count, weighted=False, **fields):
        """Until ``count`` chips are shown (a matcher: above(0)); ``weighted``: chips with their
        attention weight (data-weight), not only their token; and at the same time, the figure's
        state() has ``fields`` (as wait_for)."""
        self._wait({"what": "elements", "selector": "#tokens .chip[data-weight]" if weighted else "#tokens .chip"}, {"count": count}, fields)

    PANEL_NUMBERS = {"math": "#math-view .math-table tbody tr", "next": "#next-view .predictions li", "flash": "#flash-view .flash-title",
                     "stack": "#stack-view .stack-table tbody tr"}

    def _panel(self, name, rows=above(0), title=other_than("")):
        """The look and the expected value of wait_for_panel."""
        look = {"what": "elements", "selector": self.PANEL_NUMBERS[name]}
        return look, {"text": title} if name == "flash" else {"count": rows}

    def wait_for_panel(self, name, rows=above(0), title=other_than("")):
        """Until the panel ``name`` shows its numbers: math, ``rows`` rows of its table (by default
        some); next, ``rows`` predictions; stack, ``rows`` rows of its table; flash, the tile's ``title`` (by default any but "")."""
        self._wait(*self._panel(name, rows, title))

    def wait_for_panels(self, *names):
        """Until the panels ``names`` all show their numbers at once (as wait_for_panel's defaults)."""
        looks = [self._panel(name) for name in names]
        self._wait([look for look, _ in looks], [expected for _, expected in looks])

    def wait_for_status(self, text):
        """Until the status line (#status) reads ``text`` (or matches it: starts_with("Saved"))."""
        self.wait_for_element("#status", text=text)

    def wait_for_global(self, name, expected):
        """Until the page's global ``name`` (dotted: "document.activeElement.id"; a recorder a test
        installed, as window.seen) matches ``expected``."""
        self._wait({"what": "global", "name": name}, expected)

    def wait_for_link(self, hash=None, **params):
        """Until the address's fragment matches ``hash`` (containing("token=2")), and its parameters
        equal ``params`` (text="Hi": #text=Hi)."""
        expected = {"params": params}
        if hash is not None:
            expected["hash"] = hash
        self._wait({"what": "location"}, expected)


class FigurePage(FigureBase):
    """The page object: what a visitor sees and does, and the contract of data attributes. ``page``
    is a Playwright page or frame; ``element`` a CSS selector of the figure where it is an
    <attention-live> element (``nth``: which of its matches), None for the standalone page."""

    def __init__(self, page, element=None, nth=0):
        self.page = page
        self.element, self.nth = element, nth

    def open(self, url):
        self.page.goto(url)
        assert self.settled() == "ready", self.status()

    def settled(self, timeout=WAIT_MS):
        """Wait until the page leaves data-state="loading"; returns the new state ("ready" or "error")."""
        self.page.wait_for_selector("html:not([data-state='loading'])", state="attached", timeout=timeout)
        return self.page.evaluate("document.documentElement.dataset.state")

    def wait_until(self, predicate, arg=None):
        """Wait until the JS function ``predicate`` holds for ``arg``, checking it every 16 ms (the
        page's CSP forbids the string evaluation behind Playwright's wait_for_function; a timer, not
        requestAnimationFrame, which never fires in a frame the browser does not draw). The readable
        waits (FigureBase: wait_for, wait_for_element, ...) are built on it."""
        self.page.evaluate(f"""arg => new Promise((resolve, reject) => {{
            const predicate = {predicate};
            const deadline = performance.now() + {WAIT_MS};
            const check = () => predicate(arg) ? resolve()
                : performance.now() > deadline ? reject(new Error(`timed out waiting for ${{JSON.stringify(arg)}}: ${{{json.dumps(predicate)}}}`))
                : setTimeout(check, 16);
            check();
        }})""", arg)

    def status(self):
        return self.locator("#status").text_content()

    def listen(self):
        """Record in window.spoken every text the live region (#announcer) takes from now on."""
        self.page.evaluate("""() => {
            window.spoken = [];
            if (window.listening) return;
            window.listening = new MutationObserver(() => spoken.push(document.getElementById('announcer').textContent));
            window.listening.observe(document.getElementById('announcer'), { childList: true, characterData: true, subtree: true });
        }""")

    def spoken(self):
        """What the live region said since listen() (or since forget_spoken())."""
        return self.page.evaluate("window.spoken")

    def forget_spoken(self):
        self.page.evaluate("spoken.length = 0")

    def wait_for_spoken(self, count=above(0), last=None, **fields):
        """Until the live region has said ``count`` texts since listen() (a matcher: above(1)), the last
        one ``last`` where given; and at the same time state() has ``fields`` (as wait_for)."""
        self._wait({"what": "global", "name": "spoken"}, length(count) if last is None else all_of(length(count), last_item(last)), fields)

    def evaluate(self, fn, arg=None):
        return self.page.evaluate(fn, arg)

    def locator(self, selector):
        """A Playwright locator of ``selector`` in the figure (in its element where it is one)."""
        if self.element is None:
            return self.page.locator(selector)
        element = self.element if isinstance(self.element, str) else " ".join(self.element)  # Playwright's CSS pierces shadow roots
        return self.page.locator(element).nth(self.nth).locator(selector)

    def ready(self):
        """Wait for the figure's ``ready`` promise."""
        self.evaluate(f"figure => ({FIND_FIGURE})(figure).ready.then(() => null)", self._figure)

    def type(self, text):
        box = self.locator("#text")
        box.fill("")
        box.press_sequentially(text)
        self.wait_for(text=text)

    def click_token(self, index):
        self.locator(f".chip[data-index='{index}']").click()
        self.wait_for(token=index)

    def answers_the_next_event(self):
        """A click on the other layer is handled (the page stayed responsive after a hostile input): what
        a loaded machine cannot break, where the time it took is the benchmark's (bench/long_tasks.py)."""
        self.click_choice("layers", 1 if self.state()["layer"] != 1 else 2)

    def click_choice(self, group, number):
        self.locator(f"#{group} label[data-value='{number}']").click()
        self.wait_for(**{group[:-1]: number})

    def open_panel(self, name, is_open=True):
        """Open (or close) the disclosure ``name`` ("heads" or "matrix") as a visitor does, by its summary."""
        if self.state()["panels"][name] != is_open:
            self.locator(f"#{name}-panel > summary").click()
        self.wait_for(panels={name: is_open})

    def matrix_pixels(self):
        """The matrix canvas as drawn: (T, rows of T [r, g, b] cells), read back from its pixels."""
        return self.page.evaluate("""() => {
            const canvas = document.getElementById("matrix");
            const T = Number(canvas.dataset.rows);
            if (Number(canvas.dataset.cols) !== T || canvas.width !== T || canvas.height !== T) throw new Error("not one pixel per cell");
            const data = canvas.getContext("2d").getImageData(0, 0, T, T).data;
            return [T, Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => Array.from(data.subarray(4 * (i * T + j), 4 * (i * T + j) + 3))))];
        }""")

    def point_at_cell(self, i, j):
        """Move the mouse to the centre of matrix cell (row i, column j), using only the canvas's box."""
        box = self.page.locator("#matrix").bounding_box()
        T = int(self.page.locator("#matrix").get_attribute("data-rows"))
        self.page.mouse.move(box["x"] + (j + 0.5) * box["width"] / T, box["y"] + (i + 0.5) * box["height"] / T)

    def chips(self):
        return self.locator(".chip").evaluate_all("""chips => chips.map(c => ({
            index: Number(c.dataset.index), weight: c.dataset.weight, masked: c.dataset.masked === "true",
            label: c.querySelector(".label").textContent, percent: c.querySelector(".percent").textContent,
            width: c.getBoundingClientRect().width}))""")

    def watch_long_tasks(self):
        """Start recording main-thread tasks longer than 50 ms (Long Tasks API) whose culprit is this
        document ("self"): in a frame, not the host page's own tasks on the same thread."""
        self.page.evaluate("""() => {
            window.longTasksMs = [];
            const own = (entries) => entries.filter(e => e.name === "self").map(e => e.duration);
            window.ownLongTasks = () => own(window.longTasks.takeRecords());
            window.longTasks = new PerformanceObserver((list) => window.longTasksMs.push(...own(list.getEntries())));
            window.longTasks.observe({ type: "longtask" });
        }""")

    def longest_task_ms(self):
        """The longest main-thread task since watch_long_tasks(), in ms (0 if none was over 50 ms)."""
        return self.page.evaluate("() => Math.max(0, ...window.longTasksMs, ...window.ownLongTasks())")


class Watch:
    """What a test watches on its pages: page errors, console errors and dialogs, and every request of
    their context (the workers' and frames' included) that leaves ``origins``. ``problems`` lists them
    as sentences; ``check()`` asserts there are none. Attach with ``context(c)`` and ``page(p)``, which
    return what they are given."""

    def __init__(self, *origins):
        self.origins = origins
        self.errors, self.requests = [], []

    def context(self, context):
        context.on("request", lambda r: self.requests.append(r.url))
        return context

    def page(self, page):
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"), d.dismiss()))
        return page

    @property
    def foreign(self):
        """The requests that left ``origins`` (blob: URLs of their own count as theirs)."""
        allowed = tuple(prefix for origin in self.origins for prefix in (origin + "/", f"blob:{origin}/"))
        return [url for url in self.requests if not url.startswith(allowed)]

    @property
    def problems(self):
        return self.errors + [f"request left the page's origin: {url}" for url in self.foreign]

    def check(self):
        assert not self.problems, self.problems


def check_view(figure_page, figure, laid_out=True, lang="en"):
    """Assert that the view on screen equals CPython's ``figure`` for the text on screen: ids, labels,
    the selected attention row (within TOLERANCE), and every chip's weight, percentage (written as
    ``lang`` writes it: "48.6%" in English; a decimal comma and a no-break space before "%" in de, es and
    fr) and mask (and, unless ``laid_out`` is False, as for a figure in a display:none frame, that each
    chip has a width). Returns the page's state()."""
    state = figure_page.state()
    result = figure.analyse(state["text"])
    assert state["ids"] == result["ids"] and state["tokens"] == result["labels"]
    row = result["attention"][state["layer"] - 1, state["head"] - 1, state["token"]]
    worst = float(np.max(np.abs(np.asarray(state["weights"]) - row)))
    print(f"largest difference from CPython: {worst:.3g}")
    assert worst <= TOLERANCE
    chips = figure_page.chips()
    assert [c["index"] for c in chips] == list(range(len(result["ids"])))
    assert [c["label"] for c in chips] == result["labels"]
    for chip in chips:
        assert (chip["width"] > 0 or not laid_out) and chip["label"].strip(), f"chip {chip} is not visible"
        if chip["index"] <= state["token"]:
            assert not chip["masked"] and abs(float(chip["weight"]) - row[chip["index"]]) <= TOLERANCE
            written = f"{row[chip['index']] * 100:.1f}%"
            if lang != "en":  # CLDR's percent pattern for de, es, fr: "48,6 %" (U+00A0, or U+202F in newer CLDR for fr)
                written = re.compile(re.escape(written[:-1].replace(".", ",")) + "[\u00a0\u202f]%")
            assert chip["percent"] == written if isinstance(written, str) else written.fullmatch(chip["percent"]), (chip, lang)
        else:
            assert chip["masked"] and chip["weight"] is None
    return state


def memory_mb(page):
    """Main-thread JS heap plus the wasm memory of the worker running Python (a SharedWorker, reached
    through CDP: PythonWorker), in MB (10^6 bytes), after a forced garbage collection; needs a browser
    launched with MEMORY_ARGS, with one page's Python running."""
    page.evaluate("() => window.gc()")
    heap = page.evaluate("() => performance.memory.usedJSHeapSize")
    worker = PythonWorker(page)
    try:
        wasm = worker.evaluate("() => pyodide._module.HEAPU8.length")
    finally:
        worker.close()
    return (heap + wasm) / 1e6


@contextlib.contextmanager
def course_site(folder, pages, html_attributes='lang="en"', head="", page_headers=None):
    """A static course site in ``folder``: ``pages`` ({name: HTML body}) beside ``attention-live/``
    (dist/, as a course author who copies the build into their site has it), each page loading the
    element's script, with ``html_attributes`` on its <html> and ``head`` (a theme's <style>, say) in
    its <head>; ``page_headers`` ({name: value}) are sent with the pages (.html) only, as a course
    site's Content-Security-Policy is; yields its origin URL."""
    site = folder / "course"
    site.mkdir()
    (site / "attention-live").symlink_to(build.DIST, target_is_directory=True)
    for name, body in pages.items():
        (site / name).write_text(f'<!doctype html><html {html_attributes}><head><meta charset="utf-8"><title>Unit 3: attention</title>'
                                 f'<link rel="icon" href="data:,">{head}<script type="module" src="attention-live/attention-live.js"></script></head>'
                                 f"<body><main><h1>Unit 3: attention</h1>{body}</main></body></html>", encoding="utf-8")
    server = build.make_server(0, site)
    if page_headers:
        class PageHeaders(server.RequestHandlerClass.func):
            def end_headers(self):
                if self.path.split("?")[0].endswith(".html"):
                    for header, value in page_headers.items():
                        self.send_header(header, value)
                super().end_headers()
        server.RequestHandlerClass = functools.partial(PageHeaders, *server.RequestHandlerClass.args, **server.RequestHandlerClass.keywords)
    with serving(server) as url:
        yield url


def pixels_apart(page, first, second, tolerance=16):
    """How two PNG images (bytes: Playwright's screenshots) differ, decoded and compared by the
    browser of ``page``: {"size": [[w, h], [w, h]], "share": the share of pixels where a channel
    differs by more than ``tolerance`` (of 255)}, share 1 where the sizes differ."""
    return page.evaluate("""async ([first, second, tolerance]) => {
        const pixels = async (base64) => {
            const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
            const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
            const context = canvas.getContext("2d");
            context.drawImage(bitmap, 0, 0);
            return context.getImageData(0, 0, bitmap.width, bitmap.height);
        };
        const [a, b] = await Promise.all([pixels(first), pixels(second)]);
        const size = [[a.width, a.height], [b.width, b.height]];
        if (a.width !== b.width || a.height !== b.height) return { size, share: 1 };
        let apart = 0;
        for (let i = 0; i < a.data.length; i += 4) {
            if (Math.max(...[0, 1, 2].map((c) => Math.abs(a.data[i + c] - b.data[i + c]))) > tolerance) apart += 1;
        }
        return { size, share: apart / (a.width * a.height) };
    }""", [base64.b64encode(first).decode(), base64.b64encode(second).decode(), tolerance])


def worker_targets(browser):
    """The browser's worker targets, through CDP ``Target.getTargets`` (Playwright lists only dedicated
    workers, and only per page): a list of (type, url), type "worker" or "shared_worker"."""
    cdp = browser.new_browser_cdp_session()
    try:
        infos = cdp.send("Target.getTargets")["targetInfos"]
    finally:
        cdp.detach()
    return [(t["type"], t["url"]) for t in infos if t["type"] in ("worker", "shared_worker")]


class PythonWorker:
    """JavaScript evaluated in the worker that runs the page's Python, a SharedWorker, through CDP
    (``Target.attachToTarget`` and its messages: Playwright cannot reach shared workers). ``page``
    pumps Playwright's events while a reply is awaited."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.browser.new_browser_cdp_session()
        infos = self.cdp.send("Target.getTargets")["targetInfos"]
        (target,) = [t for t in infos if t["type"] == "shared_worker" and t["url"].endswith("/worker.js")]
        self.url = target["url"]
        self.replies = {}
        self.cdp.on("Target.receivedMessageFromTarget", self.received)
        self.session = self.cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})["sessionId"]
        self.next_id = 1

    def received(self, event):
        message = json.loads(event["message"])
        if "id" in message:
            self.replies[message["id"]] = message

    def evaluate(self, function, arg=None, timeout_ms=WAIT_MS):
        """The value of ``function`` (JS source of a function of one argument) called with ``arg`` (JSON)
        in the worker, awaited; raises RuntimeError with the worker's exception."""
        request = self.next_id
        self.next_id += 1
        expression = f"({function})({json.dumps(arg)})"
        params = {"expression": expression, "awaitPromise": True, "returnByValue": True}
        self.cdp.send("Target.sendMessageToTarget", {"sessionId": self.session, "message": json.dumps(
            {"id": request, "method": "Runtime.evaluate", "params": params})})
        waited = 0
        while request not in self.replies:  # the reply arrives as a CDP event, delivered while Playwright is called
            if waited > timeout_ms:
                raise TimeoutError(f"no reply from the worker in {timeout_ms} ms")
            self.page.wait_for_timeout(5)
            waited += 5
        result = self.replies.pop(request)["result"]
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("exception", {}).get("description", result["exceptionDetails"]["text"]))
        return result["result"].get("value")

    def close(self):
        self.cdp.detach()


def memory_growth_mb(figure_page, first=100, last=1000):
    """Run ``last`` updates (a sentence typed character by character, then deleted, again and again,
    each awaited until shown) and return memory_mb after ``last`` minus after ``first``."""
    sentence = "Alice said that the Queen was very angry indeed."
    texts = [sentence[:n] for n in range(1, len(sentence) + 1)] + [sentence[:n] for n in range(len(sentence) - 1, -1, -1)]

    def updates(start, stop):
        figure_page.page.evaluate("async texts => { for (const t of texts) await window.attentionLive.setText(t); }",
                                  [texts[i % len(texts)] for i in range(start, stop)])

    updates(0, first)
    at_first = memory_mb(figure_page.page)
    updates(first, last)
    return memory_mb(figure_page.page) - at_first


@contextlib.contextmanager
def browser_context(playwright, args=CHROMIUM_ARGS, **options):
    """A fresh Debian chromium (own profile) and one context with ``options``; closed afterwards."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
    try:
        yield browser.new_context(**options)
    finally:
        browser.close()


@contextlib.contextmanager
def serving(server, host="127.0.0.1"):
    """Run ``server`` (an http.server on 127.0.0.1) in a thread; yields its origin URL (with ``host``,
    a name of 127.0.0.1), then stops it."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def drop_compressed_copies(path):
    """Remove the precompressed copies (build.write_compressed_copies) of the dist/ file ``path``, so
    that a server sends the file itself: for tests that damage a file on the host."""
    for _, suffix in build.ENCODINGS:
        path.with_name(path.name + suffix).unlink(missing_ok=True)


class SlowLink(build.StaticHandler):
    """dist/ through one shared link of ``bits_per_second`` with ``round_trip_s`` before each response,
    as a phone's network is: every connection's bytes wait their turn in one token bucket. Each
    subclass (slow_link_server) has its own bucket and its own ``requested``: the file name of each
    request, in order. ``accept``: the encodings the server takes the request to accept (its
    Accept-Encoding), None for the browser's own (Brotli, from Chromium): "gzip" is a host that sends
    only gzip, as many static hosts do, and "" one that sends every file as it is (no precompressed copy)."""

    bits_per_second, round_trip_s, accept = 1.6e6, 0.15, None
    requested = []
    lock = threading.Lock()
    next_free = 0.0

    def log_message(self, format, *args):
        pass

    def send_head(self):
        type(self).requested.append(self.path.split("?")[0].rsplit("/", 1)[-1])
        time.sleep(self.round_trip_s)  # the network's delay, in the server's thread
        if self.accept is not None:
            del self.headers["Accept-Encoding"]
            self.headers["Accept-Encoding"] = self.accept
        return super().send_head()

    def copyfile(self, source, outputfile):
        while chunk := source.read(16384):
            with type(self).lock:
                start = max(time.monotonic(), type(self).next_free)
                type(self).next_free = start + len(chunk) * 8 / self.bits_per_second
            time.sleep(max(0.0, start - time.monotonic()))
            outputfile.write(chunk)


def slow_link_server(bits_per_second, round_trip_s, directory=None, accept=None):
    """A server of ``directory`` (dist/) on a free 127.0.0.1 port through a SlowLink of its own: (the
    server, for ``serving``; the list of requested file names, filled as they come). ``accept``: see
    SlowLink ("": no precompressed copy is sent)."""
    handler = type("Link", (SlowLink,), {"bits_per_second": bits_per_second, "round_trip_s": round_trip_s, "accept": accept,
                                         "next_free": 0.0, "requested": [], "lock": threading.Lock()})
    server = build.QuietServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory or build.DIST)))
    return server, handler.requested


@contextlib.contextmanager
def serve_dist():
    """Serve ``dist/`` (built first if missing) on a free 127.0.0.1 port; yields the origin URL."""
    if not (build.DIST / "index.html").exists():
        build.build()
    with serving(build.make_server(0)) as url:
        yield url


class ParentPage(http.server.BaseHTTPRequestHandler):
    """A course page on another origin embedding the figure: ``body`` is its HTML, ``response_headers``
    its headers (``headers`` is the request's, in http.server)."""

    body, response_headers = "", {}

    def do_GET(self):
        body = self.body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        for name, value in self.response_headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


ANOTHER_SITE = "localhost"  # dist/ is served on 127.0.0.1: a page on localhost is on another *site*
SAME_SITE = "127.0.0.1"  # another port of 127.0.0.1: another origin, but the same site (storage not partitioned)


@contextlib.contextmanager
def parent_page(playwright, body, headers=None, watch=None, site=ANOTHER_SITE):
    """A page of a course site with ``body`` and ``headers``, on its own server: by default on
    another site than dist/'s (http://localhost:PORT, as an LMS framing a figure on a static host),
    or with ``site=SAME_SITE`` on another port of 127.0.0.1; yields the Playwright page, opened.
    ``watch``, a Watch, is attached to its context and page, with the page's own origin added to
    those it allows."""
    handler = type("Parent", (ParentPage,), {"body": body, "response_headers": headers or {}})
    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler), host=site) as url, browser_context(playwright) as context:
        page = context.new_page()
        if watch is not None:
            watch.origins = (*watch.origins, url)
            watch.context(context)
            watch.page(page)
        page.goto(url + "/")
        yield page
