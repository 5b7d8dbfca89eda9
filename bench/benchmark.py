"""The figure's benchmark: start-up, update latency, bytes, memory and Python speed, in headless Chromium.

Run it with ``python3 build.py bench`` (builds dist/ first). Every figure is measured in one run on
this machine: medians and 95th percentiles over repeated trials. The page reports its own times
through the User Timing API (see web/figure/figure.js and web/runtime/python-client.js):

* ``attention-live:first-paint``: the default sentence's figure is on screen (precomputed numbers);
* ``attention-live:live``: the first live attention from Python is on screen (``data-state=ready``);
* ``attention-live:worker:<step>`` (in the worker): the end of each loading step of web/runtime/worker/startup.js,
  for the start-up breakdown: pyodide.js loaded, Python restored with numpy, the
  project wheel installed, the model downloaded, the Figure made, every download checked;
* ``attention-live:update``: one measure per edit, from the input event's timestamp (or the
  ``setText`` call) to the next animation frame after the new attention was drawn (so it includes
  waiting up to one frame, 16.7 ms at 60 Hz); ``attention-live:drawn`` ends when the new attention
  is in the DOM.

Start-up: "cold" is a fresh browser profile; "warm" the same profile's second visit, after a first
visit in which a sentence was typed (read_as_a_visitor) and the build was stored for offline use
(``data-offline`` set), and after the worker of the first visit has ended (support/later_visit.py: in
Chromium it would otherwise outlive the page for minutes, its extended lifetime, and the second visit
join its Python).

Update kinds: ``append`` types one character at the end of a text just short enough that the
result has at most N tokens; ``edit_start`` replaces the second character; ``paste`` replaces the whole text by
another of N tokens; ``slide`` appends to a text longer than block_size, so that the window of
shown tokens moves and every position changes.

Views (issue 10): ``append`` and ``edit_start`` at 128 tokens again, with the heads grid and the
matrix closed and open, at full CPU speed and with Chromium's CPU throttled 4× (DevTools
``Emulation.setCPUThrottlingRate``, the usual stand-in for a mid-range phone).

Math panel (issue 11): ``append`` at 128 tokens with "Show the math" open, to the chips' frame and
(``attention-live:math``) to the frame that shows the panel's numbers for the same edit; and the
same with its part "Compute it as FlashAttention does" open as well (issue 24).

Panels at CPU ×4 (issue 22, ``measure_panel_runs``): an append at 128 tokens with each set of panels
open (none; the heads grid and the matrix; "Show the math"; the next token; all four; and for issue 24
"Show the math" with its part "Compute it as FlashAttention does"), to the chips'
frame and to the frame that shows the open panels' numbers (``attention-live:panels``), and a change
near the start with all four open; each run in a fresh page, the last with a phone's viewport
(390 × 844 CSS px at 3 device pixels per px, touch); the targets are read from the median of the runs.
The page is at its top, as a reader who types sees it (the text box and the chips in view, the pointer
resting over the page); for information, all four also with the page left at the panels (the chips
far above the screen), where clicking their summaries scrolled it.
Measured twice: with the text given by ``attentionLive.setText`` ("panel_sets"), as issue 22 measured
it (from the call), which the targets judge; and typed ("panel_sets_typed", for information), which
adds the key press and the text box's own frame on the page's thread (about 20 ms at ×4).

Engines (issue 25, ``measure_engines``): cold and warm start to live and the append at 128 tokens in
Chromium, Firefox and WebKitGTK (tests/engines.py), for information: the targets are Chromium's. The
warm visit is a reload, and every visit's Python (its runtime id) is checked to be a new one here and
in the start-up rows: WebKit's back-forward cache keeps the previous page's shared worker, so a
navigation back to the figure reconnects to a Python already running, which is no start; and in
Chromium the worker of the first visit is ended before the reload (support/later_visit.py), since its
extended lifetime would keep it for the reload too.

Several figures (issue 21, ``measure_figures``): on a course page of <attention-live> elements, the
cost of a second figure (an element, or a same-origin iframe) once one is live, of four in view, of
five with four below the fold, and memory with four against one.

From page to page (issue 43, part 4, ``measure_page_to_page``): on a course site of two pages, each with
an <attention-live> element and a link to the other, ms from a link's click (the next page's navigation
start) to its figure live, over several clicks back and forth in each of several fresh contexts (the
first click of each left out: the HTTP cache is still cold); with the worker asked for an extended
lifetime (python-client.js, Chromium 148+), where the next page joins the Python the page before started,
and with the option taken out, as in a browser without it (the page starts Python again: a warm start).
Chromium runs without its back-forward cache (as Playwright launches it), which would keep the worker
alive by itself. A second page that started Python again, with the option asked, makes the row "not
supported".

Switching checkpoints (issue 44, "Watch it learn", ``measure_checkpoint_switch``): in a fresh page
showing the default sentence, every checkpoint the build lists (build.json's "checkpoints",
``attentionLive.checkpoints()``) is selected once first at full speed, outside the row (its first request
fetches the file and loads it into Python; that time is kept for information); then, at CPU throttling 4×
and in the reader's view, ``attentionLive.select({step})``
cycles through the listed steps (the last, the shipped model, by its own step, as the panel's slider
gives it), each timed in the page from the call to its promise, which resolves after the frame that
shows that checkpoint's attention (api.js: ``allShown``, then ``afterPaint``). Each switch computes the
text's attention again from scratch with that checkpoint's weights. A build without two checkpoints
makes the row "no checkpoints", not a failure.

The main thread under hostile input (issue 54, ``bench/long_tasks.py``): the longest main-thread task while
typing fast, for pathological texts, a 1 MB paste, huge texts by message and by attribute, and the figure's
own part of a 40 MB message.

Prints a table and writes a JSON report (``--report``, default ``dist/benchmark.json``). ``--only
page-to-page``, ``--only checkpoints`` and ``--only long-tasks`` measure that part alone (print it and write
``dist/benchmark-<part>.json``).
"""

import argparse
import datetime
import itertools
import json
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]  # the page object and the engines' drivers: tests/figure_page.py, tests/engines.py

import build  # noqa: E402
from attention_live.figure import Figure  # noqa: E402
from attention_live.timing import encode_ms, forward_ms, sample_text  # noqa: E402
from support.figure_page import (CHROMIUM, CHROMIUM_ARGS, MEMORY_ARGS, FigurePage, PythonWorker, course_site, memory_growth_mb,  # noqa: E402
                         memory_mb, serve_dist, serving, slow_link_server)
from support.later_visit import end_python  # noqa: E402
from conftest import PATHOLOGICAL_TEXTS  # noqa: E402
from long_tasks import long_task_rows, measure_long_tasks  # noqa: E402

TOKEN_COUNTS = (8, 32, 64, 128)
UPDATE = "attention-live:update"
TARGETS_MS = {"append": 16.0, "edit_start": 50.0, "paste": 50.0}
VIEWS_TARGETS_MS = {("open", 1, "append"): 33.0, ("open", 1, "edit_start"): 50.0, ("open", 4, "append"): 66.0}


def summary(values):
    """Median and 95th percentile (nearest rank) of a list of numbers, rounded to 0.1."""
    ordered = sorted(values)
    p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]
    return {"median": round(statistics.median(ordered), 1), "p95": round(p95, 1), "n": len(ordered)}


WORKER_STEPS = ("pyodide.js", "python", "package", "model", "figure", "checked")  # worker.js's marks, in order


def startup_marks(page):
    """ms since navigation of the page's marks first-paint and live, and of the worker's step marks
    (``attention-live:worker:<step>``: the worker reports them with ready, python-client.js marks them
    on the page's clock)."""
    mark = "n => performance.getEntriesByName('attention-live:' + n)[0].startTime"
    marks = {name: page.evaluate(mark, name) for name in ("first-paint", "live")}
    return {**marks, **{step: page.evaluate(mark, f"worker:{step}") for step in WORKER_STEPS}}


SENTENCE = "Then the Queen turned to Alice and said"
READ_AS_A_VISITOR = """async (sentence) => {
    for (let n = 1; n <= sentence.length; n++) await window.attentionLive.setText(sentence.slice(0, n));
}"""


PYTHON_RUNNING = "() => window.attentionLive.state().runtime?.id ?? null"


def started_anew(ids, where):
    """Check that each visit in ``ids`` (the runtime id of every visit, PYTHON_RUNNING) reached a Python
    started for it: a page that reconnects to the Python of the visit before (a shared worker kept
    alive with the previous page, as WebKit does for a page in its back-forward cache) measures no start."""
    if len(set(ids)) != len(ids):
        raise AssertionError(f"{where}: a visit reached the Python of the visit before it (runtime ids {ids}), so it measured no start")


def read_as_a_visitor(figure_page):
    """What a first visit does before the second: the sentence of the chapter typed letter by letter,
    each edit awaited (so that Python runs as it does for a reader, and V8 has compiled its hot code)."""
    figure_page.page.evaluate(READ_AS_A_VISITOR, SENTENCE)


def measure_startup(playwright, origin, runs):
    """Cold (fresh profile) and warm (same profile, second visit, after a first visit that used the
    figure and stored the build for offline use) start-up: medians of every mark (see startup_marks),
    and cold bytes per file."""
    visits = {"cold": [], "warm": []}
    bytes_per_file = {}
    for run in range(runs):
        # A new profile on disk, as a visitor's browser has (an in-memory profile keeps no compiled code).
        profile = tempfile.mkdtemp(prefix="attention-live-profile-")
        context = playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        requests = []
        context.on("requestfinished", lambda request: requests.append(request))
        page = context.new_page()
        figure_page = FigurePage(page)
        pythons = []
        for visit in visits:
            if visit == "warm":
                end_python(page)  # a later visit: not the Python the worker's extended lifetime keeps (support/later_visit.py)
            figure_page.open(origin + "/")
            visits[visit].append(startup_marks(page))
            pythons.append(page.evaluate(PYTHON_RUNNING))
            read_as_a_visitor(figure_page)
            page.wait_for_selector("html[data-offline]", state="attached")  # sw.js has stored the build
        started_anew(pythons, "start-up")
        if run == 0:
            for request in requests:  # the cold visit's first
                name = request.url.removeprefix(origin + "/") or "index.html"
                bytes_per_file.setdefault(name, int(request.response().headers.get("content-length", 0)))
        context.close()
        shutil.rmtree(profile)
    startup = {f"{visit}_ms": {mark: summary([marks[mark] for marks in runs_marks]) for mark in runs_marks[0]}
               for visit, runs_marks in visits.items()}
    return startup, {"files": dict(sorted(bytes_per_file.items())), "total": sum(bytes_per_file.values())}


FIGURE_TEXTS = ("Alice said hello to the Rabbit.", "The Queen shouted at the Hatter", "Then the Mock Turtle sighed deeply",
                "The King turned to the Knave", "Alice looked at the cat")
READY_TIMES = """window.readyTimes = [];
    document.addEventListener('attention-live:ready', () => window.readyTimes.push(performance.now()));"""
ADD_ELEMENT = """async (text) => {
    const figure = document.createElement('attention-live');
    figure.setAttribute('text', text);
    const live = new Promise((resolve) => figure.addEventListener('attention-live:ready', resolve, { once: true }));
    const start = performance.now();
    document.querySelector('main').prepend(figure);
    await live;
    const ms = performance.now() - start;
    figure.remove();
    return ms;
}"""
ADD_IFRAME = """async (src) => {
    const frame = document.createElement('iframe');
    frame.title = 'Attention, live';
    const start = performance.now();
    frame.src = src;
    document.querySelector('main').prepend(frame);
    await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    await frame.contentWindow.attentionLive.ready;
    const ms = performance.now() - start;
    frame.remove();
    return ms;
}"""


def measure_figures(playwright, runs):
    """Several figures on one page (issue 21), on a course site whose attention-live/ is dist/, each
    run in a fresh context of a browser launched with MEMORY_ARGS (1280 × 3,600 CSS px, so that four
    figures are in view): ms from navigation to the last of one, four and (of five, four of them more
    than a viewport below) the first figure live; ms from adding a second element, or a second
    same-origin iframe of index.html, to its being live, after the first is; and memory (JS heap +
    wasm, figure_page.memory_mb) with one figure and with four."""
    element = '<attention-live text="{}"></attention-live>'
    pages = {"one.html": element.format(FIGURE_TEXTS[0]), "four.html": "".join(element.format(t) for t in FIGURE_TEXTS[:4]),
             "five.html": element.format(FIGURE_TEXTS[0]) + '<div style="height: 8000px"></div>'
                          + "".join(element.format(t) for t in FIGURE_TEXTS[1:])}
    measured = {name: [] for name in ("one_ms", "four_ms", "five_above_fold_ms", "add_element_ms", "add_iframe_ms", "memory_one_mb", "memory_four_mb")}
    with tempfile.TemporaryDirectory() as folder, course_site(Path(folder), pages) as url:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=MEMORY_ARGS)
        for run in range(runs):
            for name, count, key in (("one.html", 1, "one_ms"), ("four.html", 4, "four_ms"), ("five.html", 1, "five_above_fold_ms")):
                context = browser.new_context(viewport={"width": 1280, "height": 3600})  # each page's visit a first one: no cache
                context.add_init_script(READY_TIMES)
                page = context.new_page()
                page.goto(f"{url}/{name}")
                page.wait_for_function("n => window.readyTimes.length >= n", arg=count, timeout=120_000)
                measured[key].append(page.evaluate("n => window.readyTimes[n - 1]", count))
                if name != "five.html":
                    measured[f"memory_{name.removesuffix('.html')}_mb"].append(memory_mb(page))
                if name == "one.html":
                    for i, text in enumerate(FIGURE_TEXTS[1:]):
                        measured["add_element_ms"].append(page.evaluate(ADD_ELEMENT, text))
                        measured["add_iframe_ms"].append(page.evaluate(ADD_IFRAME, f"attention-live/index.html#text={text.replace(' ', '%20')}"))
                context.close()
        browser.close()
    report = {name: summary(values) for name, values in measured.items()}
    report["four_minus_one_ms"] = round(report["four_ms"]["median"] - report["one_ms"]["median"], 1)
    report["five_minus_one_ms"] = round(report["five_above_fold_ms"]["median"] - report["one_ms"]["median"], 1)
    report["memory_four_over_one"] = round(report["memory_four_mb"]["median"] / report["memory_one_mb"]["median"], 3)
    return report


PAGE_TO_PAGE = {"one.html": f'<attention-live text="{FIGURE_TEXTS[0]}"></attention-live><p><a id="next" href="two.html">Next</a></p>',
                "two.html": f'<attention-live text="{FIGURE_TEXTS[1]}"></attention-live><p><a id="next" href="one.html">Back</a></p>'}
# Every SharedWorker made without extendedLifetime: a browser that does not have it (the page starts Python again)
WITHOUT_EXTENDED_LIFETIME = """{
    const Shared = window.SharedWorker;
    window.SharedWorker = function SharedWorker(url, options) {
        return new Shared(url, typeof options === "object" ? { ...options, extendedLifetime: false } : options);
    };
}"""
ELEMENT_PYTHON = "() => document.querySelector('attention-live').state().runtime.id"
PAGE_TO_PAGE_TARGET_MS = 400.0


def measure_page_to_page(playwright, runs, clicks):
    """The next page's figure live after a full navigation (issue 43, part 4; see the module's
    docstring): for the extended lifetime ("extended") and without it ("off"), ``runs`` fresh contexts
    of one browser, each a first page opened, then ``clicks`` link clicks back and forth, the first
    left out; per click, ms from the next page's navigation start to its figure's attention-live:ready,
    and whether it joined the Python of the page before (same runtime id). {"extended": {"live_ms":
    summary, "joined": [joined, clicks measured]}, "off": ..., "supported": every "extended" click joined}."""
    report = {}
    with tempfile.TemporaryDirectory() as folder, course_site(Path(folder), PAGE_TO_PAGE) as url:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--disable-back-forward-cache"])
        for lifetime in ("extended", "off"):
            times, joined = [], 0
            for run in range(runs):
                context = browser.new_context()
                context.add_init_script(READY_TIMES)
                if lifetime == "off":
                    context.add_init_script(WITHOUT_EXTENDED_LIFETIME)
                page = context.new_page()
                page.goto(f"{url}/one.html")
                page.wait_for_function("() => window.readyTimes.length >= 1", timeout=120_000)
                python = page.evaluate(ELEMENT_PYTHON)
                for click in range(clicks):
                    with page.expect_navigation():
                        page.click("a#next")
                    page.wait_for_function("() => window.readyTimes.length >= 1", timeout=120_000)
                    before, python = python, page.evaluate(ELEMENT_PYTHON)
                    if click > 0:
                        times.append(page.evaluate("() => window.readyTimes[0]"))
                        joined += python == before
                context.close()
            report[lifetime] = {"live_ms": summary(times), "joined": [joined, len(times)]}
        browser.close()
    report["supported"] = report["extended"]["joined"][0] == report["extended"]["joined"][1]
    return report


def page_to_page_line(row):
    """The page-to-page rows as one line of the printed table."""
    extended, off = row["extended"], row["off"]
    shown = f"{extended['live_ms']['median']} ms" if row["supported"] else "not supported"
    return (f"next page live after a full navigation (median of {extended['live_ms']['n']}): with the extended lifetime {shown} "
            f"(joined the page before's Python {extended['joined'][0]} of {extended['joined'][1]}); "
            f"without it {off['live_ms']['median']} ms (joined {off['joined'][0]} of {off['joined'][1]})")


NETWORKS = {"4G": (9e6, 0.17), "slow 4G": (1.6e6, 0.15)}  # bits per second, seconds before each response
NETWORK_ENCODINGS = {"": None, ", gzip": "gzip"}  # Brotli as build.py serve sends it (the targets), and gzip only, as many hosts send (for information)
NETWORK_TARGETS_MS = {"4G": {"first_paint": 2000.0, "live": 8000.0}, "slow 4G": {"first_paint": 2000.0, "live": 35000.0}}  # issue 46 (issue 22: 12,000 and 60,000)
FIRST_VISIT_TARGET_BYTES = 5_500_000  # issue 46: a first visit without the snapshot, in the smallest stored copies


def measure_network(playwright, runs, directory=None):
    """A first visit over a phone's network (issues 22 and 46): dist/ served as build.py serves it
    (compressed copies included, Brotli where the browser accepts it) through figure_page.SlowLink at
    each of NETWORKS' speeds, and again from a host that sends gzip only (rows "<network>, gzip"), a
    fresh context each run: ms from navigation to the figure's first paint and to live attention (its
    marks), and to the end of each of the worker's loading steps (startup_marks)."""
    report = {}
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    for (name, (bits_per_second, round_trip_s)), (suffix, accept) in itertools.product(NETWORKS.items(), NETWORK_ENCODINGS.items()):
        marks = []
        for run in range(runs):
            server, _ = slow_link_server(bits_per_second, round_trip_s, directory=directory, accept=accept)
            with serving(server) as url:
                context = browser.new_context()
                page = context.new_page()
                page.goto(url + "/")
                FigurePage(page).settled(timeout=600_000)
                marks.append(startup_marks(page))
                context.close()
        report[name + suffix] = {"first_paint": summary([m["first-paint"] for m in marks]), "live": summary([m["live"] for m in marks]),
                                 "steps": {step: summary([m[step] for m in marks]) for step in WORKER_STEPS}}
    browser.close()
    return report


def text_of_tokens(figure, count, seed=0):
    """A text of exactly ``count`` tokens (whole words of sample text, then full stops)."""
    words = sample_text(figure.tokenizer, 4000, seed=seed).split(" ")
    text = ""
    for word in words[1:]:
        longer = text + " " + word
        if len(figure.tokenizer.encode(longer)) > count:
            break
        text = longer
    while len(figure.tokenizer.encode(text)) < count:
        text += "."
    return text


class UpdateBench:
    """Drives real input events and reads the page's own update measures."""

    def __init__(self, figure_page):
        self.figure_page = figure_page
        self.page = figure_page.page

    def latest(self):
        """The newest update as {start, frame, drawn} (ms), or start -1 if there is none."""
        return self.page.evaluate(f"""() => {{
            const last = performance.getEntriesByName('{UPDATE}').at(-1);
            const drawn = performance.getEntriesByName('attention-live:drawn').at(-1);
            return last ? {{ start: last.startTime, frame: last.duration, drawn: drawn.duration }} : {{ start: -1 }};
        }}""")

    def edit(self, action, expected, panels=False):
        """Run ``action`` (which fires one input event, or calls setText); returns (to the frame, to the
        DOM) in ms, and with ``panels`` (to the frame, to the DOM, to the panels' frame: panels_frame)."""
        before = self.latest()["start"]
        action()
        # polled every frame, so it must cost nothing: state() copies the whole matrix, and calling it
        # each frame would delay the very update being measured
        self.figure_page.wait_until(f"""before => (performance.getEntriesByName('{UPDATE}').at(-1)?.startTime ?? -1) > before""",
                                    before)
        latest = self.latest()
        times = (latest["frame"], latest["drawn"])
        if panels:  # before state(), which would hold up the page's thread while the panels' answers come
            times += (panels_frame(self.figure_page, latest["start"]),)
        shown = self.figure_page.page.evaluate("window.attentionLive.state().text")
        assert shown == expected, f"the update measured shows {shown!r}, not {expected!r}"
        return times

    def caret(self, start, end):
        self.page.evaluate("([s, e]) => { const box = document.getElementById('text'); box.focus(); box.setSelectionRange(s, e); }",
                           [start, end])

    def append(self, text, by="key", panels=False):
        """An "s" added at the end of ``text``: typed (``by="key"``, a key press in the text box) or given
        with ``attentionLive.setText`` (``by="setText"``: issue 22's own measure, from the call)."""
        return self.change(by, text, len(text), len(text), "s", panels)

    def edit_start(self, text, by="key", panels=False):
        """The second character of ``text`` replaced (a change near the start: every row from it on is new)."""
        return self.change(by, text, 1, 2, "q" if text[1] != "q" else "z", panels)

    def change(self, by, text, start, end, typed, panels):
        """``text[start:end]`` replaced by ``typed``, typed or by setText (see append), once the figure
        shows ``text`` with the open panels' numbers: each trial starts from a figure at rest, as a
        reader's next key finds it, not while Python still answers the panels for the text before."""
        self.figure_page.set_text(text)
        panels_frame(self.figure_page, self.latest()["start"])
        self.page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => resolve()))")  # that frame's rendering done
        new_text = text[:start] + typed + text[end:]
        if by == "setText":
            return self.edit(lambda: self.page.evaluate("t => { window.attentionLive.setText(t); }", new_text), new_text, panels)
        self.caret(start, end)
        return self.edit(lambda: self.page.keyboard.type(typed), new_text, panels)

    def paste(self, text, new_text):
        self.figure_page.set_text(text)
        self.caret(0, len(text))
        return self.edit(lambda: self.page.keyboard.insert_text(new_text), new_text)


def summaries(pairs):
    """{"frame": summary, "drawn": summary} of a list of (to the frame, to the DOM) pairs."""
    return {"frame": summary([p[0] for p in pairs]), "drawn": summary([p[1] for p in pairs])}


def append_text(figure, count):
    """The longest text of sample words that still has at most ``count`` tokens once an "s" is typed."""
    return next(t for t in (text_of_tokens(figure, count - k, seed=1) for k in range(1, count))
                if len(figure.tokenizer.encode(t + "s")) <= count)


def measure_updates(figure_page, figure, repeats):
    bench = UpdateBench(figure_page)
    results = {}
    for count in TOKEN_COUNTS:
        text, other = text_of_tokens(figure, count, seed=1), text_of_tokens(figure, count, seed=2)
        shorter = append_text(figure, count)
        results[count] = {
            "append": summaries([bench.append(shorter) for _ in range(repeats)]),
            "edit_start": summaries([bench.edit_start(text) for _ in range(repeats)]),
            "paste": summaries([bench.paste(text, other) for _ in range(repeats)]),
        }
    longer = text_of_tokens(figure, 2 * TOKEN_COUNTS[-1], seed=3)
    results["slide"] = summaries([bench.append(longer) for _ in range(repeats)])
    return results


def throttled_bench(figure_page, figure):
    """For the rows at block_size: an UpdateBench, a text of 128 tokens, a text that an appended character
    takes to at most 128 tokens, and a DevTools session (for ``Emulation.setCPUThrottlingRate``)."""
    count = TOKEN_COUNTS[-1]
    return (UpdateBench(figure_page), text_of_tokens(figure, count, seed=1), append_text(figure, count),
            figure_page.page.context.new_cdp_session(figure_page.page))


def measure_views(figure_page, figure, repeats):
    """Append and edit near the start at 128 tokens with the grid and matrix closed, then open, at
    CPU throttling 1× and 4×: {"closed x1": {"append": ..., "edit_start": ...}, ...}."""
    bench, text, shorter, devtools = throttled_bench(figure_page, figure)
    results = {}
    try:
        for throttle in (1, 4):
            devtools.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            for panels in ("closed", "open"):
                for name in ("heads", "matrix"):
                    figure_page.open_panel(name, panels == "open")
                results[f"{panels} x{throttle}"] = {
                    "append": summaries([bench.append(shorter) for _ in range(repeats)]),
                    "edit_start": summaries([bench.edit_start(text) for _ in range(repeats)]),
                }
    finally:
        devtools.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        for name in ("heads", "matrix"):
            figure_page.open_panel(name, False)
    return results


def panels_frame(figure_page, start):
    """ms from the input event at ``start`` to the frame that shows the open panels' numbers for that
    edit (``attention-live:panels``; with no panel of Python's answers open, the chips' frame)."""
    figure_page.wait_until("s => performance.getEntriesByName('attention-live:panels').some(m => m.startTime === s)", start)
    return figure_page.page.evaluate(
        "s => performance.getEntriesByName('attention-live:panels').find(m => m.startTime === s).duration", start)


def show_panels(figure_page, panels):
    """Open, as a visitor does (a click on each summary), the panels named in ``panels``: "heads",
    "matrix", "math", "next", "stack", and "flash", the math panel's part "Compute it as FlashAttention does"
    (issue 24); close the others."""
    flash_open = "document.getElementById('flash-part').open"
    if "flash" not in panels and figure_page.page.evaluate(flash_open):
        figure_page.open_panel("math")
        figure_page.page.locator("#flash-part > summary").click()
        figure_page.wait_until(f"() => !{flash_open}", None)
    for panel in ("heads", "matrix", "math", "next", "stack"):
        figure_page.open_panel(panel, panel in panels)
    if "flash" in panels and not figure_page.page.evaluate(flash_open):
        figure_page.page.locator("#flash-part > summary").click()
        figure_page.wait_until("() => document.querySelector('#flash-view .flash-title') !== null", None)  # drawn


def measure_math_panel(figure_page, figure, repeats, flash=False):
    """Append at 128 tokens with the math panel open (issue 11), and with ``flash`` its part "Compute it
    as FlashAttention does" open too (issue 24): to the frame of the chips and views ("append", as
    above) and to the frame that shows the panel's numbers for the same edit ("math": more requests
    to Python, ``attention-live:panels``)."""
    bench = UpdateBench(figure_page)
    shorter = append_text(figure, TOKEN_COUNTS[-1])
    show_panels(figure_page, ("math", "flash") if flash else ("math",))
    pairs, math = [], []
    try:
        for _ in range(repeats):
            *pair, shown = bench.append(shorter, panels=True)
            pairs.append(pair)
            math.append(shown)
    finally:
        show_panels(figure_page, ())
    return {"append": summaries(pairs), "math": summary(math)}


PANEL_SETS = {"none": (), "grid and matrix": ("heads", "matrix"), "math": ("math",), "next token": ("next",),
              "all four": ("heads", "matrix", "math", "next"),
              "math, FlashAttention's part": ("math", "flash"),  # issue 24: its panel within part 1's targets
              "stacked attention": ("stack",),  # issue 52: "Attention stacked on attention" within the same targets
              "all five": ("heads", "matrix", "math", "next", "stack")}
AT_THE_PANELS = "all four, page at the panels"  # for information: measure_panel_sets
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


def reader_view(figure_page):
    """The page as a reader who types sees it: scrolled to its top, the text box and the chips in view
    (typing scrolls the text box into view; clicking the summaries open scrolled down to the last one),
    and the pointer resting over the page at (5, 5), on no control (over a chip it would preview that
    chip's row). Chromium updates the hover state at the start of each frame that follows a layout
    change, which runs an update's style and layout before the frame's callbacks: the harder case."""
    figure_page.page.evaluate("() => window.scrollTo(0, 0)")
    figure_page.page.mouse.move(5, 5)


def measure_panel_sets(figure_page, figure, repeats, by, throttle=4):
    """Issue 22, part 1: at CPU throttling ``throttle``, an append at 128 tokens with each set of panels
    open (PANEL_SETS) in the reader's view (reader_view), to the chips' frame ("append") and to the
    frame that shows the open panels' numbers ("panels"), and a change near the start (a full
    recompute) with all four open, each made ``by`` setText or a key (UpdateBench.append). Given by
    setText, also the append with all four open and the page left where the click on the last summary
    scrolled it ("all four, page at the panels": the chips and the heads grid far above the screen,
    for information). {set: {"append": summaries, "panels": summary}, "all four edit_start": summaries}."""
    bench, text, shorter, devtools = throttled_bench(figure_page, figure)
    results = {}
    appends = lambda: [bench.append(shorter, by, panels=True) for _ in range(repeats)]  # noqa: E731
    try:
        devtools.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        for name, panels in PANEL_SETS.items():
            show_panels(figure_page, panels)
            reader_view(figure_page)
            times = appends()
            results[name] = {"append": summaries(times), "panels": summary([t[2] for t in times])}
        show_panels(figure_page, PANEL_SETS["all four"])
        reader_view(figure_page)
        results["all four edit_start"] = summaries([bench.edit_start(text, by) for _ in range(repeats)])
        if by == "setText":  # typing scrolls the text box into view
            show_panels(figure_page, ())
            show_panels(figure_page, PANEL_SETS["all four"])
            times = appends()
            results[AT_THE_PANELS] = {"append": summaries(times), "panels": summary([t[2] for t in times])}
    finally:
        devtools.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        show_panels(figure_page, ())
    return results


def panel_rows(report):
    """The target rows (what, value, target) of report["panel_sets"]: each set of panels at x4."""
    rows = []
    panel_sets = report["panel_sets"]["median of runs"]
    for name in PANEL_SETS:
        rows += [(f"x4 append, panels {name}: median to the chips' frame", panel_sets[name]["append"]["median"], 40.0),
                 (f"x4 append, panels {name}: p95 to the chips' frame", panel_sets[name]["append"]["p95"], 66.0)]
        if PANEL_SETS[name]:
            rows.append((f"x4 append, panels {name}: p95 to the panels' frame", panel_sets[name]["panels"]["p95"], 100.0))
    rows.append(("x4 change near the start, all four open: p95", panel_sets["all four edit_start"]["p95"], 133.0))
    return rows


def measure_panel_runs(browser, origin, figure, runs, repeats, by):
    """measure_panel_sets in ``runs`` fresh pages, the last with a phone's viewport (PHONE): each run,
    and the median over the runs of each median and p95 ("median of runs")."""
    each = []
    for run in range(runs):
        context = browser.new_context(**(PHONE if run == runs - 1 else {}))
        figure_page = FigurePage(context.new_page())
        figure_page.open(origin + "/")
        each.append(measure_panel_sets(figure_page, figure, repeats, by))
        context.close()
    over_runs = lambda values: {stat: round(statistics.median(v[stat] for v in values), 1) for stat in ("median", "p95")}  # noqa: E731
    medians = {name: {"append": over_runs([run[name]["append"]["frame"] for run in each]),
                      "panels": over_runs([run[name]["panels"] for run in each])} for name in [*PANEL_SETS, AT_THE_PANELS] if name in each[0]}
    medians["all four edit_start"] = over_runs([run["all four edit_start"]["frame"] for run in each])
    return {"runs": each, "median of runs": medians, "phone run": runs - 1}


CHECKPOINT_SWITCH_TARGET_MS = 100.0  # issue 44: x4, after the first load of each checkpoint, p95 to the frame
SWITCH_CHECKPOINT = """async (step) => {
    const start = performance.now();
    await window.attentionLive.select({ step }); // resolves after the frame that shows it (api.js: allShown, afterPaint)
    const ms = performance.now() - start;
    await new Promise((resolve) => requestAnimationFrame(() => resolve())); // the next switch starts from a figure at rest
    return ms;
}"""


def measure_checkpoint_switch(figure_page, switches, throttle=4):
    """Issue 44: switching checkpoints ("Watch it learn") with the text ``figure_page`` shows (the default
    sentence on a page just opened). Each listed checkpoint is first selected once at full speed
    ("first_loads_ms", for information: the first request fetches its file and loads it into Python);
    then, at CPU throttling ``throttle`` in the reader's view (reader_view), ``switches`` switches cycle
    through the listed steps in training order (the shipped model by its own step, as the slider gives
    it), each ms from the ``select({step})`` call to its promise, which resolves after the frame that
    shows it (SWITCH_CHECKPOINT). {"build": build.json's id, "checkpoints": how many are listed, "steps",
    "text", "tokens", "throttle", "first_loads_ms": [{step, ms}], "switch_ms": summary (None with fewer
    than two checkpoints)}."""
    steps = [checkpoint["step"] for checkpoint in figure_page.api("checkpoints")]
    shown = figure_page.state()
    report = {"build": shown["build"], "checkpoints": len(steps), "steps": steps, "text": shown["text"], "tokens": len(shown["ids"]),
              "throttle": throttle, "first_loads_ms": [], "switch_ms": None}
    if len(steps) < 2:  # no checkpoints, or only the shipped model's: nothing to switch between
        return report

    def switch(step):
        ms = figure_page.evaluate(SWITCH_CHECKPOINT, step)
        now = figure_page.state()["step"]
        assert now == step, f"select({{step: {step}}}) shows step {now}"
        return round(ms, 1)

    report["first_loads_ms"] = [{"step": step, "ms": switch(step)} for step in steps]
    reader_view(figure_page)
    devtools = figure_page.page.context.new_cdp_session(figure_page.page)
    try:
        devtools.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        times = [switch(steps[k % len(steps)]) for k in range(switches)]  # each a step other than the one shown
    finally:
        devtools.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    report["switch_ms"] = summary(times)
    return report


def measure_checkpoints(browser, origin, switches):
    """measure_checkpoint_switch in a fresh context of ``browser`` (its own worker: every checkpoint's
    first load happens in it), on the figure's page with its default sentence."""
    context = browser.new_context()
    try:
        figure_page = FigurePage(context.new_page())
        figure_page.open(origin + "/")
        return measure_checkpoint_switch(figure_page, switches)
    finally:
        context.close()


def checkpoints_line(row):
    """The checkpoint-switch row as one line of the printed table."""
    if row["switch_ms"] is None:
        return f"switching checkpoints: no checkpoints in this build ({row['checkpoints']} listed), not measured"
    switch = row["switch_ms"]
    return (f"CPU x{row['throttle']}, switching checkpoints ({row['checkpoints']}: steps {', '.join(map(str, row['steps']))}; "
            f"{row['tokens']} tokens), after the first load of each: {switch['median']} / {switch['p95']} ms median / p95 "
            f"to the frame over {switch['n']} switches (first loads at x1: "
            f"{', '.join(str(load['ms']) for load in row['first_loads_ms'])} ms)")


LAST_UPDATE_START = f"() => performance.getEntriesByName('{UPDATE}').at(-1)?.startTime ?? -1"


def engine_append(page, text):
    """One character typed at the end of ``text`` in an engine's page (tests/engines.py), as
    UpdateBench.append does in Chromium: ms from the input event to the frame that shows it."""
    page.evaluate("""async (text) => {
        await window.attentionLive.setText(text);
        const box = document.getElementById('text');
        box.focus();
        box.setSelectionRange(text.length, text.length);
    }""", text)
    before = page.evaluate(LAST_UPDATE_START)
    page.type("#text", "s")
    page.wait_until(f"before => ({LAST_UPDATE_START.removeprefix('() => ')}) > before", before)
    shown = page.evaluate("() => window.attentionLive.state().text")
    assert shown == text + "s", f"the update measured shows {shown!r}, not {text + 's'!r}"
    return page.evaluate(f"() => performance.getEntriesByName('{UPDATE}').at(-1).duration")


def measure_engines(playwright, origin, figure, runs, repeats):
    """Cold and warm start to live attention and the append at 128 tokens in each engine of
    tests/engines.py (issue 25), for information: the targets stay Chromium's. Each run is a fresh
    page (a fresh profile): a first visit that types the chapter's sentence and waits for the build to
    be stored for offline use, then a second visit, a reload (WebKit keeps a page that the tab navigates
    away from in its back-forward cache, with its shared worker and the Python in it, so a navigation back
    to the figure reaches that Python, live in about 0.2 s, and measures no start; in Chromium the first
    visit's worker is ended before it, as in measure_startup); then ``repeats``
    appends. WebKitGTK runs headed on Xvfb (MiniBrowser has no headless mode), so its frames are a
    virtual display's."""
    from support import engines

    shorter = append_text(figure, TOKEN_COUNTS[-1])
    live = "() => performance.getEntriesByName('attention-live:live')[0]?.startTime ?? null"
    report = {}
    for name in engines.ENGINES:
        engine = engines.start(name, playwright)
        visits, appends = {"cold": [], "warm": []}, []
        try:
            for _ in range(runs):
                page = engine.new_page()
                try:
                    pythons = []
                    for visit in visits:
                        if visit == "cold":
                            page.open(origin + "/")
                        else:
                            if name == "chromium":
                                end_python(page.page)  # as in measure_startup
                            page.reload()
                        page.wait_until(live)
                        visits[visit].append(page.evaluate(live))
                        pythons.append(page.evaluate(PYTHON_RUNNING))
                        page.evaluate(READ_AS_A_VISITOR, SENTENCE)
                        page.wait_until("() => document.documentElement.hasAttribute('data-offline')")
                    started_anew(pythons, name)
                    appends += [engine_append(page, shorter) for _ in range(repeats)]
                finally:
                    page.close()
        finally:
            engine.quit()
        report[name] = {"cold_live_ms": summary(visits["cold"]), "warm_live_ms": summary(visits["warm"]), "append_ms": summary(appends)}
    return report


def in_tab(worker, function, *args):
    """Call ``attention_live.timing.<function>`` inside the tab's Pyodide (``worker``, a
    figure_page.PythonWorker) with the worker's model (its attention_live Figure)."""
    return worker.evaluate("""([name, args]) => {
        const timing = pyodide.pyimport("attention_live.timing");
        const pyArgs = args.map((a) => (a === "figure" ? model : a === "tokenizer" ? model.tokenizer : pyodide.toPy(a)));
        const result = timing[name](...pyArgs);
        const value = result.toJs ? result.toJs() : result;
        if (result.destroy) result.destroy();
        timing.destroy();
        return value;
    }""", [function, list(args)])


def measure_python(worker, figure, repeats):
    forward = {}
    for count in TOKEN_COUNTS:
        ids = figure.tokenizer.encode(text_of_tokens(figure, count, seed=1))
        tab = summary(in_tab(worker, "forward_ms", "figure", ids, repeats))
        native = summary(forward_ms(figure, ids, repeats))
        forward[count] = {"tab_ms": tab, "native_ms": native, "ratio": round(tab["median"] / max(native["median"], 1e-3), 1)}
    tokenizer = {}
    for n_chars in (1_000, 10_000, 100_000):
        text = sample_text(figure.tokenizer, n_chars)
        tab = summary(in_tab(worker, "encode_ms", "tokenizer", text, 5))
        native = summary(encode_ms(figure.tokenizer, text, 5))
        tokenizer[n_chars] = {"tab_ms": tab, "native_ms": native}
    tokenizer["ratio_100k_to_10k"] = round(tokenizer[100_000]["tab_ms"]["median"] / tokenizer[10_000]["tab_ms"]["median"], 2)
    return forward, tokenizer


def machine(browser):
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "system": platform.platform(), "chromium": browser.version,
            "python": platform.python_version(), "numpy": numpy.__version__,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def targets(report):
    """Each target (issues 3, 8, 21, 22 and 46) with the measured value and whether it is met."""
    rows = []
    for count in TOKEN_COUNTS:
        rows.append((f"append p95 at {count} tokens", report["updates"][count]["append"]["frame"]["p95"], TARGETS_MS["append"]))
    block = report["updates"][TOKEN_COUNTS[-1]]
    rows += [(f"edit near start p95 at {TOKEN_COUNTS[-1]} tokens", block["edit_start"]["frame"]["p95"], TARGETS_MS["edit_start"]),
             (f"paste p95 at {TOKEN_COUNTS[-1]} tokens", block["paste"]["frame"]["p95"], TARGETS_MS["paste"]),
             ("memory growth 100 -> 1000 updates (MB)", report["memory"]["growth_mb"], 10.0),
             ("forward in tab / native at 128 tokens", report["forward"][TOKEN_COUNTS[-1]]["ratio"], 5.0)]
    for (panels, throttle, kind), target in VIEWS_TARGETS_MS.items():
        what = f"{'append' if kind == 'append' else 'edit near start'} p95 at {TOKEN_COUNTS[-1]} tokens, views {panels}, CPU x{throttle}"
        rows.append((what, report["views"][f"{panels} x{throttle}"][kind]["frame"]["p95"], target))
    rows.append((f"append p95 at {TOKEN_COUNTS[-1]} tokens, math panel open", report["math_panel"]["append"]["frame"]["p95"], 33.0))
    rows.append((f"append p95 at {TOKEN_COUNTS[-1]} tokens, FlashAttention part open", report["flash_panel"]["append"]["frame"]["p95"], 33.0))
    rows += panel_rows(report)
    switch = report["checkpoints"]["switch_ms"]
    rows.append(("x4 switching checkpoints: p95 to the frame", switch["p95"] if switch else "no checkpoints", CHECKPOINT_SWITCH_TARGET_MS))
    figures = report["figures"]
    rows += [("second element live after the first (median)", figures["add_element_ms"]["median"], 100.0),
             ("second iframe live after the first (median)", figures["add_iframe_ms"]["median"], 100.0),
             ("four figures in view: all live - one live (ms)", figures["four_minus_one_ms"], 300.0),
             ("memory, four figures / one", figures["memory_four_over_one"], 1.25),
             ("five figures: first live - one figure's (ms)", figures["five_minus_one_ms"], 100.0)]
    page_to_page = report["page_to_page"]
    rows.append(("next page live after a full navigation (median)",
                 page_to_page["extended"]["live_ms"]["median"] if page_to_page["supported"] else "not supported", PAGE_TO_PAGE_TARGET_MS))
    rows += long_task_rows(report)
    return start_up_targets(report) + judged(rows)


def start_up_targets(report):
    """The start-up's targets (issues 22 and 46) with the measured value and whether it is met."""
    rows = [("cold start to live (median)", report["startup"]["cold_ms"]["live"]["median"], 2500.0),  # issue 22, part 2 (3,000 before it)
            ("warm start to live (median)", report["startup"]["warm_ms"]["live"]["median"], 1500.0),
            ("first paint of the figure (median)", report["startup"]["cold_ms"]["first-paint"]["median"], 500.0),
            ("first visit's bytes without the snapshot (smallest copies)", report["first_visit_bytes"], FIRST_VISIT_TARGET_BYTES)]
    for network, network_targets in NETWORK_TARGETS_MS.items():
        rows += [(f"{network}, first visit: {key.replace('_', ' ')} (median)", report["network"][network][key]["median"], target)
                 for key, target in network_targets.items()]
    return judged(rows)


def judged(rows):
    return [{"what": what, "value": value, "target": target, "met": value <= target if isinstance(value, (int, float)) else None}
            for what, value, target in rows]


def print_targets(rows):
    print(f"\n{'target':45} {'measured':>10} {'target':>8}  met")
    for row in rows:
        print(f"{row['what']:45} {row['value']:>10} {row['target']:>8}  {'yes' if row['met'] else '-' if row['met'] is None else 'NO'}")


def print_start_up(report):
    """The start-up's own lines: each loading step's end, cold and warm; the bytes; the network rows."""
    print("\nstart-up, median ms from navigation to the end of each step (worker.js's marks):")
    print(f"{'':8}" + "".join(f"{mark:>12}" for mark in report["startup"]["cold_ms"]))
    for visit in ("cold", "warm"):
        print(f"{visit:8}" + "".join(f"{s['median']:>12}" for s in report["startup"][f"{visit}_ms"].values()))
    print(f"cold load: {report['bytes']['total']:,} bytes in {len(report['bytes']['files'])} files")
    print(f"first visit without the snapshot: {report['first_visit_bytes']:,} bytes in the smallest copies")
    print("first visit over a phone's network (median ms; gzip: a host that sends gzip only, for information):")
    for name, row in report["network"].items():
        steps = "  ".join(f"{step} {value['median']}" for step, value in row["steps"].items())
        print(f"{name:16} first paint {row['first_paint']['median']:>8}  live {row['live']['median']:>8}  (steps' ends: {steps})")


def print_table(report):
    print(f"\nmachine: {report['machine']}")
    print_targets(report["targets"])
    print("\nupdate latency, ms: median / p95 to the frame that shows it [median / p95 to the DOM]")
    kinds = ("append", "edit_start", "paste")
    print(f"{'':12}" + "".join(f"{k:>30}" for k in kinds))
    cell = lambda s: f"{s['frame']['median']} / {s['frame']['p95']} [{s['drawn']['median']} / {s['drawn']['p95']}]"  # noqa: E731
    for count in TOKEN_COUNTS:
        print(f"{str(count) + ' tokens':12}" + "".join(f"{cell(report['updates'][count][k]):>30}" for k in kinds))
    print(f"{'slide':12}{cell(report['updates']['slide']):>30}  (append beyond block_size: every position moves)")
    print(f"\nviews at {TOKEN_COUNTS[-1]} tokens, ms: median / p95 to the frame [to the DOM]")
    print(f"{'':16}" + "".join(f"{k:>30}" for k in ("append", "edit_start")))
    for name, row in report["views"].items():
        print(f"{name:16}" + "".join(f"{cell(row[k]):>30}" for k in ("append", "edit_start")))
    math = report["math_panel"]
    print(f"\nmath panel open, append at {TOKEN_COUNTS[-1]} tokens: {cell(math['append'])} to the chips' frame; "
          f"{math['math']['median']} / {math['math']['p95']} to the panel's frame")
    flash = report["flash_panel"]
    print(f"FlashAttention part open too: {cell(flash['append'])} to the chips' frame; "
          f"{flash['math']['median']} / {flash['math']['p95']} to the panel's frame")
    for key, how in (("panel_sets", "given by setText (issue 22's measure: the targets)"), ("panel_sets_typed", "typed (for information)")):
        runs = report[key]
        print(f"\nCPU x4, append at {TOKEN_COUNTS[-1]} tokens {how}, each set of panels open, median of {len(runs['runs'])} runs "
              f"(the last with a phone's viewport, {PHONE['viewport']['width']} x {PHONE['viewport']['height']}, touch): "
              "median / p95 ms to the chips' frame; to the panels' frame")
        for name, row in runs["median of runs"].items():
            if name in PANEL_SETS:
                print(f"{name:16} {row['append']['median']:>8} / {row['append']['p95']:<8} {row['panels']['median']:>8} / {row['panels']['p95']}")
        edit = runs["median of runs"]["all four edit_start"]
        print(f"{'all four, change near the start':32} {edit['median']} / {edit['p95']}")
        if AT_THE_PANELS in runs["median of runs"]:
            row = runs["median of runs"][AT_THE_PANELS]
            print(f"{AT_THE_PANELS} (for information): {row['append']['median']} / {row['append']['p95']}; "
                  f"{row['panels']['median']} / {row['panels']['p95']}")
    print(f"\n{checkpoints_line(report['checkpoints'])}")
    print("\nper engine, for information (median ms; append: median / p95 to the frame at 128 tokens):")
    for name, row in report["engines"].items():
        print(f"{name:10} cold {row['cold_live_ms']['median']:>8}  warm {row['warm_live_ms']['median']:>8}  "
              f"append {row['append_ms']['median']} / {row['append_ms']['p95']}")
    print(f"\n{'forward (ms)':20} {'tab med':>10} {'native med':>12} {'ratio':>7}")
    for count, row in report["forward"].items():
        print(f"{str(count) + ' tokens':20} {row['tab_ms']['median']:>10} {row['native_ms']['median']:>12} {row['ratio']:>7}")
    print(f"\n{'tokenizer (ms)':20} {'tab med':>10} {'native med':>12}")
    for n_chars, row in report["tokenizer"].items():
        if isinstance(row, dict):
            print(f"{str(n_chars) + ' chars':20} {row['tab_ms']['median']:>10} {row['native_ms']['median']:>12}")
    print(f"100k/10k ratio in the tab: {report['tokenizer']['ratio_100k_to_10k']}")
    print_start_up(report)
    print(f"memory: {report['memory']}")
    print(f"several figures (median ms, MB): {json.dumps({k: v['median'] if isinstance(v, dict) else v for k, v in report['figures'].items()})}")
    print(page_to_page_line(report["page_to_page"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description="Benchmark the built figure in headless Chromium.")
    parser.add_argument("--report", default=str(ROOT / "dist" / "benchmark.json"))
    parser.add_argument("--startup-runs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--network-runs", type=int, default=3, help="first visits at each emulated network speed")
    parser.add_argument("--engine-runs", type=int, default=3, help="fresh profiles per engine for the cross-engine rows")
    parser.add_argument("--figures-runs", type=int, default=10,
                        help="fresh contexts for the several-figures rows: each row is the difference of two cold starts' medians, "
                             "which move by 0.3-0.6 s from run to run, so five runs are not enough")
    parser.add_argument("--panel-runs", type=int, default=3, help="runs of the x4 rows per set of panels (issue 22: the median of three)")
    parser.add_argument("--panel-trials", type=int, default=60, help="appends per set of panels in each run")
    parser.add_argument("--page-runs", type=int, default=3, help="fresh contexts for the page-to-page rows, with and without the extended lifetime")
    parser.add_argument("--page-clicks", type=int, default=6, help="link clicks in each, the first left out")
    parser.add_argument("--checkpoint-switches", type=int, default=60, help="timed switches between checkpoints at x4 (issue 44)")
    parser.add_argument("--only", choices=("page-to-page", "checkpoints", "start-up", "panels", "long-tasks"), help="measure this part alone (print it, write dist/benchmark-<part>.json)")
    parser.add_argument("--dist", help="with --only start-up: the built folder to measure instead of dist/ (an earlier commit's build, for a "
                                       "baseline on the same machine)")
    args = parser.parse_args(argv)
    if args.only == "start-up":  # issue 46: the first visit's bytes, the network rows and the cold and warm start
        dist = Path(args.dist).resolve() if args.dist else build.DIST
        if not args.dist and not (dist / "index.html").exists():
            build.build()  # dist/, as serve_dist does
        with serving(build.make_server(0, dist)) as origin, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            report = {"command": f"bench/benchmark.py --only start-up{' --dist ' + args.dist if args.dist else ''}",
                      "machine": machine(browser), "build": build.build_folder(dist).name}
            browser.close()
            report["first_visit_bytes"] = build.first_visit_bytes(dist)
            report["startup"], report["bytes"] = measure_startup(playwright, origin, args.startup_runs)
            report["network"] = measure_network(playwright, args.network_runs, dist)
        report["targets"] = start_up_targets(report)
        path = dist / "benchmark-start-up.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"machine: {report['machine']}\nbuild {report['build']}")
        print_targets(report["targets"])
        print_start_up(report)
        print(f"wrote {path}")
        return
    if args.only == "page-to-page":
        with serve_dist(), sync_playwright() as playwright:  # serve_dist: builds dist/ if missing
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            report = {"command": "bench/benchmark.py --only page-to-page", "machine": machine(browser)}
            browser.close()
            report["page_to_page"] = measure_page_to_page(playwright, args.page_runs, args.page_clicks)
        path = ROOT / "dist" / "benchmark-page-to-page.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"machine: {report['machine']}\n{page_to_page_line(report['page_to_page'])}\nwrote {path}")
        return
    if args.only == "panels":  # the x4 rows of each set of panels (issues 22, 24 and 52) alone
        weights = ROOT / "weights"
        figure = Figure((weights / "model.safetensors").read_bytes(), (weights / "tokenizer.json").read_bytes())
        with serve_dist() as origin, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=MEMORY_ARGS)
            report = {"command": "bench/benchmark.py --only panels", "machine": machine(browser)}
            report["panel_sets"] = measure_panel_runs(browser, origin, figure, args.panel_runs, args.panel_trials, "setText")
            browser.close()
        path = ROOT / "dist" / "benchmark-panels.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"machine: {report['machine']}")
        print_targets(judged(panel_rows(report)))
        print(f"wrote {path}")
        return
    if args.only == "long-tasks":  # issue 54, part 6: the main thread under hostile input, moved here from the tests
        weights = ROOT / "weights"
        figure = Figure((weights / "model.safetensors").read_bytes(), (weights / "tokenizer.json").read_bytes())
        with serve_dist() as origin, sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            report = {"command": "bench/benchmark.py --only long-tasks", "machine": machine(browser)}
            browser.close()
            report["long_tasks"] = measure_long_tasks(playwright, origin, figure, PATHOLOGICAL_TEXTS, Path(folder))
        path = ROOT / "dist" / "benchmark-long-tasks.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"machine: {report['machine']}")
        print_targets(judged(long_task_rows(report)))
        print(f"40 MB by message, the longest task (the browser's delivery, for information): {report['long_tasks']['message']['40 MB']['longest_task_ms']} ms")
        print(f"wrote {path}")
        return
    if args.only == "checkpoints":
        with serve_dist() as origin, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=MEMORY_ARGS)  # as the main run's
            report = {"command": "bench/benchmark.py --only checkpoints", "machine": machine(browser)}
            report["checkpoints"] = measure_checkpoints(browser, origin, args.checkpoint_switches)
            browser.close()
        path = ROOT / "dist" / "benchmark-checkpoints.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        row = report["checkpoints"]
        print(f"machine: {report['machine']}\nbuild {row['build']}\n{checkpoints_line(row)}")
        if row["switch_ms"] is not None:
            met = row["switch_ms"]["p95"] <= CHECKPOINT_SWITCH_TARGET_MS
            print(f"target: p95 <= {CHECKPOINT_SWITCH_TARGET_MS:g} ms to the frame: {'met' if met else 'NOT met'}")
        print(f"wrote {path}")
        return
    weights = ROOT / "weights"
    figure = Figure((weights / "model.safetensors").read_bytes(), (weights / "tokenizer.json").read_bytes())
    with serve_dist() as origin, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=MEMORY_ARGS)
        report = {"command": "python3 build.py bench", "machine": machine(browser)}
        report["startup"], report["bytes"] = measure_startup(playwright, origin, args.startup_runs)
        report["figures"] = measure_figures(playwright, args.figures_runs)
        report["first_visit_bytes"] = build.first_visit_bytes()
        report["network"] = measure_network(playwright, args.network_runs)
        report["page_to_page"] = measure_page_to_page(playwright, args.page_runs, args.page_clicks)
        report["engines"] = measure_engines(playwright, origin, figure, args.engine_runs, args.repeats)
        page = browser.new_page()
        figure_page = FigurePage(page)
        figure_page.open(origin + "/")
        worker = PythonWorker(page)
        report["updates"] = measure_updates(figure_page, figure, args.repeats)
        report["views"] = measure_views(figure_page, figure, args.repeats)
        report["math_panel"] = measure_math_panel(figure_page, figure, args.repeats)
        report["flash_panel"] = measure_math_panel(figure_page, figure, args.repeats, flash=True)
        report["panel_sets"] = measure_panel_runs(browser, origin, figure, args.panel_runs, args.panel_trials, "setText")
        report["panel_sets_typed"] = measure_panel_runs(browser, origin, figure, args.panel_runs, args.panel_trials, "key")
        report["checkpoints"] = measure_checkpoints(browser, origin, args.checkpoint_switches)
        report["forward"], report["tokenizer"] = measure_python(worker, figure, args.repeats)
        report["memory"] = {"growth_mb": round(memory_growth_mb(figure_page), 2)}
        browser.close()
        with tempfile.TemporaryDirectory() as folder:
            report["long_tasks"] = measure_long_tasks(playwright, origin, figure, PATHOLOGICAL_TEXTS, Path(folder))
    report["targets"] = targets(report)
    Path(args.report).write_text(json.dumps(report, indent=2) + "\n")
    print_table(report)
    print(f"\nwrote {args.report}")


if __name__ == "__main__":
    main()
