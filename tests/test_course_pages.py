"""Where course pages really put the figure (issue 20): one test per kind of ../shared/cases/course-pages.md,
named after it (test_every_case_has_a_test.py checks that none is missing). Host pages are served from
another site (http://localhost:PORT framing the figure on 127.0.0.1), as an LMS frames a figure on a
static host; the figure's numbers are checked
against CPython's Figure; readiness is always a signal (data-state, a message, the state), never a sleep.
"""

import contextlib
import hashlib
import json
import shutil
import zlib
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import numpy as np
import pytest

import build
from conftest import WEIGHTS
from support.figure_page import (ANOTHER_SITE, NOT_EMPTY, TOLERANCE, WAIT_MS, FigurePage, Watch, browser_context, check_view, containing, course_site,
                                 drop_compressed_copies, ends_with, matching, parent_page, pixels_apart, serving, slow_link_server, some_item,
                                 starts_with)
from support.later_visit import end_python

TEXT = "Then the Rabbit turned to Alice and cried, \"Come here at once!\""
NO_FRAME_COMES = "() => new Promise((resolve) => { requestAnimationFrame(() => resolve(false)); setTimeout(() => resolve(true), 500); })"

# A course page with named iframes of the figure (their addresses in data-src, HOST_ORIGIN standing for the
# page's own origin). It records every message from them (received: {frame, at, data}), and ask(name,
# message) posts a message with an id and resolves with the figure's reply.
HOST = """<!doctype html>
<meta charset="utf-8"><title>Course page</title>
<style>body { margin: 0 } iframe { width: 600px; height: 320px; border: 0; display: block }</style>
FRAMES
<script>
  for (const frame of document.querySelectorAll("iframe[data-src]")) frame.src = frame.dataset.src.replaceAll("HOST_ORIGIN", encodeURIComponent(location.origin));
  const frames = Object.fromEntries([...document.querySelectorAll("iframe")].map((f) => [f.name, f]));
  window.received = [];
  const waiting = new Map();
  window.addEventListener("message", (event) => {
    const frame = Object.values(frames).find((f) => f.contentWindow === event.source);
    if (!frame) return;
    received.push({ frame: frame.name, at: performance.now(), data: event.data });
    if (event.data?.type === "attention-live:reply") waiting.get(event.data.id)?.(event.data);
  });
  let nextId = 1;
  window.ask = (name, message) => new Promise((resolve) => {
    const id = `q${nextId++}`;
    waiting.set(id, resolve);
    frames[name].contentWindow.postMessage({ ...message, id }, "*");
  });
  window.ofType = (name, type) => received.filter((m) => m.frame === name && (m.data?.type === type || m.data?.subject === type));
</script>
"""


def iframe(origin, name, address="/", attributes=""):
    """An iframe of the figure at ``origin`` + ``address`` (HOST_ORIGIN in it: the host's own origin)."""
    return f'<iframe name="{name}" title="Attention, live ({name})" data-src="{origin}{address}" {attributes}></iframe>'


@contextlib.contextmanager
def course_page(playwright, origin, frames_html, site=ANOTHER_SITE):
    """A host page holding ``frames_html``, on another site than the figure's (``site``: see
    figure_page.parent_page); yields (page, watch). At the end: no page error, no console error, no
    request off the host's and the figure's origins."""
    watch = Watch(origin)
    with parent_page(playwright, HOST.replace("FRAMES", frames_html), watch=watch, site=site) as page:
        yield page, watch
    watch.check()


def frame_named(page, name):
    return next(f for f in page.frames if f.name == name)


def wait_for_message(page, name, kind, **data):
    """Wait until the host has received a message of ``kind`` from the frame ``name`` (with ``data``'s
    fields equal in it, where given)."""
    page.wait_for_function("([name, kind, data]) => ofType(name, kind).some((m) => Object.entries(data).every(([k, v]) => m.data[k] === v))",
                           arg=[name, kind, data], timeout=WAIT_MS)


def ask(page, name, message):
    return page.evaluate("([name, message]) => ask(name, message)", [name, message])


@pytest.fixture
def figure_in_context(playwright, origin):
    """Open the standalone figure in a fresh context (context options as keywords, a fragment or
    query as ``address``): returns (FigurePage, watch); the watch is checked at the end."""
    opened = []

    def open_figure(address="/", **options):
        stack = contextlib.ExitStack()
        context = stack.enter_context(browser_context(playwright, **options))
        watch = Watch(origin)
        figure_page = FigurePage(watch.page(watch.context(context).new_page()))
        opened.append((stack, watch))
        figure_page.open(origin + address)
        return figure_page, watch

    yield open_figure
    for stack, watch in opened:
        stack.close()
        watch.check()


def link_of(page):
    """The address's fragment as a dict of single values."""
    return {name: values[0] for name, values in parse_qs(urlsplit(page.url).fragment).items()}


def test_a_frame_that_draws_no_frames(playwright, origin, figure):
    frames = (f'<div style="display: none">{iframe(origin, "hidden")}</div>'  # an LMS tab not shown
              f'<div style="height: 5000px"></div>{iframe(origin, "below")}')  # far below the fold
    with course_page(playwright, origin, frames) as (page, _):
        for name in ("hidden", "below"):
            wait_for_message(page, name, "attention-live:ready")
            frame = frame_named(page, name)
            assert frame.evaluate(NO_FRAME_COMES), "the browser drew a frame: this is not the case under test"
            assert frame.evaluate("document.documentElement.dataset.state") == "ready"
            assert ask(page, name, {"type": "attention-live:setText", "text": TEXT}) == {"type": "attention-live:reply", "id": "q1" if name == "hidden" else "q2", "ok": True}
            check_view(FigurePage(frame), figure, laid_out=name != "hidden")
            assert page.evaluate("n => ofType(n, 'attention-live:resize').length", name) > 0
        below = frame_named(page, "below")
        content = below.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
        assert page.evaluate("ofType('below', 'attention-live:resize').at(-1).data.height") == content
        page.evaluate("() => document.querySelector('iframe[name=below]').scrollIntoView()")  # shown: it paints
        below.wait_for_selector(".chip[data-weight]", state="visible")


def test_a_frame_from_another_site(playwright, origin, figure):
    """Chromium refuses a SharedWorker in a frame from another site (an error event, not an exception):
    each frame starts a dedicated worker of its own and works as in a same-site frame."""
    alone = iframe(origin, "alone", "/?embed-origin=HOST_ORIGIN")
    with course_page(playwright, origin, alone) as (page, _):
        assert page.evaluate("location.hostname") == ANOTHER_SITE and not origin.startswith(f"http://{ANOTHER_SITE}:")
        wait_for_message(page, "alone", "attention-live:ready")
        frame = FigurePage(frame_named(page, "alone"))
        runtime = frame.state()["runtime"]
        assert runtime["kind"] == "dedicated" and runtime["sharedRefused"] == "error event", runtime
        assert frame.page.evaluate("document.documentElement.dataset.state") == "ready"
        assert ask(page, "alone", {"type": "attention-live:setText", "text": TEXT})["ok"] is True
        check_view(frame, figure)
        height = frame.page.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
        wait_for_message(page, "alone", "attention-live:resize", height=height)
    texts = {"first": "Alice said nothing.", "second": TEXT, "third": "The Mole and the Rat went down the river.", "fourth": "Toad cried."}
    frames = "".join(iframe(origin, name, "/?embed-origin=HOST_ORIGIN#" + urlencode({"text": text}, quote_via=quote)) for name, text in texts.items())
    frames += f'<div style="display: none">{iframe(origin, "hidden", "/?embed-origin=HOST_ORIGIN")}</div>'
    frames += f'<div style="height: 5000px"></div>{iframe(origin, "below", "/?embed-origin=HOST_ORIGIN")}'
    with course_page(playwright, origin, frames) as (page, _):
        for name in [*texts, "hidden", "below"]:
            wait_for_message(page, name, "attention-live:ready")
            frame = FigurePage(frame_named(page, name))
            assert frame.state()["runtime"]["kind"] == "dedicated"
            text = texts.get(name, f"{TEXT} ({name})")
            if name not in texts:
                assert ask(page, name, {"type": "attention-live:setText", "text": text})["ok"] is True
            frame.wait_for(text=text)
            check_view(frame, figure, laid_out=name != "hidden")
            assert page.evaluate("n => ofType(n, 'attention-live:resize').length", name) > 0


def test_several_figures_on_one_page(playwright, origin, figure):
    texts = {"first": "Alice said nothing.", "second": TEXT, "third": "The Mole and the Rat went down the river.", "fourth": "Toad cried."}
    prose = '<p style="height: 700px">A chapter\'s prose between the figures.</p>'  # so that the later ones are below the fold
    frames = "".join(prose + iframe(origin, name, "/#" + urlencode({"text": text}, quote_via=quote)) for name, text in texts.items())
    with course_page(playwright, origin, frames) as (page, _):
        for name, text in texts.items():
            wait_for_message(page, name, "attention-live:ready")
            frame = FigurePage(frame_named(page, name))
            frame.wait_for(text=text)
            check_view(frame, figure)
        others = ("second", "third", "fourth")
        before = {name: FigurePage(frame_named(page, name)).state() for name in others}
        first = FigurePage(frame_named(page, "first"))
        first.page.locator("#text").press("End")
        first.page.locator("#text").press_sequentially(" Then she left.")
        first.wait_for(text=texts["first"] + " Then she left.")
        check_view(first, figure)
        assert {name: FigurePage(frame_named(page, name)).state() for name in others} == before


def test_a_same_document_link(figure_in_context, playwright, origin, figure):
    figure_page, _ = figure_in_context("/#" + urlencode({"text": "Alice said nothing.", "layer": 1, "head": 2}, quote_via=quote))
    page = figure_page.page
    figure_page.open_panel("math")
    page.locator("#what-if-scale").uncheck()  # a what-if: a link carries none, so following one ends it
    figure_page.wait_for(whatIf={"scale": False})
    second = {"text": TEXT, "layer": 2, "head": 4, "token": 3, "panels": "matrix"}
    page.goto(f"{origin}/#{urlencode(second, quote_via=quote)}")  # the same page: only the fragment differs
    figure_page.wait_for(text=TEXT, ids=NOT_EMPTY)
    state = check_view(figure_page, figure)
    assert (state["layer"], state["head"], state["token"], state["panels"]["matrix"]) == (2, 4, 2, True)
    assert state["whatIf"] == {"scale": True, "mask": True} and not state["panels"]["math"]
    page.goto(f"{origin}/#{urlencode({**second, 'layer': 9}, quote_via=quote)}")  # a bad value, as a fresh load reads it
    figure_page.wait_for(layer=2, panels={"heads": False})
    assert "The link asked for layer 9; this model has 2, so layer 2 is shown." in page.locator("#notice").text_content()
    page.go_back()  # the second link again
    figure_page.wait_for(head=4, token=2)
    page.go_back()  # the first
    figure_page.wait_for(text="Alice said nothing.", ids=NOT_EMPTY)
    state = check_view(figure_page, figure)
    assert (state["layer"], state["head"], state["panels"]["matrix"]) == (1, 2, False)
    assert state["token"] == len(figure.analyse("Alice said nothing.")["ids"]) - 1  # no token in the link: the last, as a fresh load
    assert page.locator("#notice").is_hidden()  # and nothing to say about it
    figure_page.click_token(1)  # the next change writes the view shown, not an older one
    figure_page.wait_for_link(hash=containing("token=2"))
    assert link_of(page)["text"] == "Alice said nothing." and link_of(page)["head"] == "2"

    with course_page(playwright, origin, iframe(origin, "figure", "/?embed-origin=x")) as (host, _):
        wait_for_message(host, "figure", "attention-live:ready")
        host.evaluate("f => { const frame = document.querySelector('iframe'); frame.src = frame.src.split('#')[0] + '#' + f; }",
                      urlencode({"text": "The Queen said no.", "head": 1}, quote_via=quote))
        frame = FigurePage(frame_named(host, "figure"))
        frame.wait_for(text="The Queen said no.", ids=NOT_EMPTY)
        assert check_view(frame, figure)["head"] == 1


def test_a_re_encoded_link(figure_in_context, origin, figure):
    figure_page, _ = figure_in_context("/#text=a+b%20c%2B")  # "+" and "%20" are both spaces
    assert figure_page.state()["text"] == "a b c+"
    figure_page.set_text("C++ and 1+1")
    figure_page.wait_for_link(hash=containing("C%2B%2B"))
    fragment = urlsplit(figure_page.page.url).fragment
    assert "+" not in fragment and "C%2B%2B%20and%201%2B1" in fragment
    re_encoded = fragment.replace("+", "%2B")  # what a chat or an LMS does to a link: nothing, now
    figure_page.page.goto(f"{origin}/?again#{re_encoded}")
    assert figure_page.settled() == "ready"
    figure_page.wait_for(text="C++ and 1+1")
    check_view(figure_page, figure)


def test_the_last_change_before_leaving(figure_in_context, figure):
    figure_page, _ = figure_in_context()
    page = figure_page.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    figure_page.set_text("Copied at once")
    page.locator("#copy-link").click()  # no pause: the link must already hold the change
    copied = page.evaluate("navigator.clipboard.readText()")
    assert parse_qs(urlsplit(copied).fragment)["text"] == ["Copied at once"]
    page.locator("#text").press("End")
    page.locator("#text").press_sequentially(" and typed")
    page.reload()  # at once after typing
    assert figure_page.settled() == "ready"
    figure_page.wait_for(text="Copied at once and typed")
    page.locator("#heads label[data-value='4']").click()
    page.reload()
    assert figure_page.settled() == "ready"
    figure_page.wait_for(head=4)
    check_view(figure_page, figure)


def test_the_last_change_before_leaving_stays_with_its_own_figure(playwright, origin, figure):
    """What carries the last change over a reload (page-link.js's pending links, in the tab's
    sessionStorage) belongs to the document that wrote it, not to its address: the tab's next course
    page, with iframes of the same address, shows their own text, not what was typed on the page
    before; and two iframes of one address, each typed in, never take each other's text when their
    course page is reloaded (each shows its own, or its address's, as the browser reloads it)."""
    default = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))["text"]
    typed = {"first": "Typed in the first frame.", "second": "Typed in the second frame."}

    def type_in_each(page):
        for name, text in typed.items():
            wait_for_message(page, name, "attention-live:ready")
            frame = FigurePage(frame_named(page, name))
            frame.page.locator("#text").fill(text)
            frame.wait_for(text=text)
        for name, text in typed.items():  # each link written: each frame has left its pending link
            FigurePage(frame_named(page, name)).wait_for_link(text=text)

    def texts_shown(page):
        shown = {}
        for name in typed:
            wait_for_message(page, name, "attention-live:ready")
            frame = FigurePage(frame_named(page, name))
            frame.wait_for(ids=NOT_EMPTY)
            shown[name] = check_view(frame, figure)["text"]
        return shown

    with course_page(playwright, origin, iframe(origin, "first") + iframe(origin, "second")) as (page, _):
        type_in_each(page)
        page.goto(page.url + "next-page")  # within the pending links' 10 s
        assert texts_shown(page) == {"first": default, "second": default}
        type_in_each(page)
        page.reload()
        shown = texts_shown(page)
        assert all(shown[name] in (typed[name], default) for name in typed), shown


def test_offline_at_another_address(playwright, figure):
    with serving(build.make_server(0)) as url, browser_context(playwright) as context:
        watch = Watch(url)
        watch.context(context)
        figure_page = FigurePage(watch.page(context.new_page()))
        figure_page.open(url + "/index.html")  # the address of the iframe snippet in README.md and docs/embedding.md
        figure_page.page.wait_for_selector("html[data-offline='ready']", state="attached", timeout=WAIT_MS)
        context.set_offline(True)
        for address, text in [("/index.html", None), ("/", None), ("/?embed-origin=https%3A%2F%2Fcourse.example", None),
                              ("/index.html#" + urlencode({"text": "Alice was offline."}, quote_via=quote), "Alice was offline.")]:
            page = FigurePage(watch.page(context.new_page()))
            page.open(url + address)
            if text:
                page.wait_for(text=text)
            check_view(page, figure)
            page.page.close()
    watch.check()


SMALL_QUOTA = """
    // The browser's answer in a private window or on a full disk: a few MB of quota. (Chromium's
    // Storage.overrideQuotaForOrigin sets the quota it reports over CDP, but Cache Storage ignored it here.)
    navigator.storage.estimate = async () => ({ quota: 3e6, usage: 0 });
"""


def visit_twice(context, url):
    """Open the figure at ``url`` twice (a visit, then a reload); returns, per visit, data-offline, the
    Cache Storage caches and whether sw.js was asked for (an install tried). No page error, no request
    off ``url``."""
    watch = Watch(url)
    registrations = []
    context.on("request", lambda r: registrations.append(r.url) if "/sw.js?" in r.url else None)
    page = FigurePage(watch.page(watch.context(context).new_page()))
    visits = []
    for visit in range(2):
        if visit == 0:
            page.open(url + "/")
        else:
            page.page.reload()
            assert page.settled() == "ready"
        page.page.wait_for_selector("html[data-offline]", state="attached", timeout=WAIT_MS)
        visits.append((page.page.evaluate("document.documentElement.dataset.offline"), page.page.evaluate("caches.keys()"), bool(registrations)))
        registrations.clear()
    watch.check()
    return visits


def test_too_little_storage(playwright, figure, tmp_path):
    with serving(build.make_server(0)) as url, browser_context(playwright) as context:
        context.add_init_script(SMALL_QUOTA)
        assert visit_twice(context, url) == [("unavailable", [], False), ("unavailable", [], False)]  # never tried
    # an install that fails halfway (here a file that is not the one build.json lists, after the others
    # were stored; a full disk is the same to sw.js) leaves no half-written cache, and the next visit
    # does not try again
    damaged = tmp_path / "dist"
    shutil.copytree(build.DIST, damaged)
    (chunk,) = (damaged / build.build_folder().name).glob("chunk-*.js")  # the page's bundled modules
    with open(chunk, "a", encoding="utf-8") as f:
        f.write("\n// changed after the build\n")  # the page still runs it; sw.js refuses to store it
    drop_compressed_copies(chunk)  # the server sends the changed file
    with serving(build.make_server(0, directory=damaged)) as url, browser_context(playwright) as context:
        assert visit_twice(context, url) == [("unavailable", [], True), ("unavailable", [], False)]
        page = FigurePage(context.pages[0])
        check_view(page, figure)  # online, the figure works all the same


def test_permissions_the_host_did_not_grant(playwright, origin):
    frames = iframe(origin, "plain") + iframe(origin, "sandboxed", attributes='sandbox="allow-scripts allow-same-origin"')
    with course_page(playwright, origin, frames) as (page, _):
        for name in ("plain", "sandboxed"):
            wait_for_message(page, name, "attention-live:ready")
        plain = frame_named(page, "plain")
        plain.locator("#copy-link").click()  # no allow="clipboard-write": the browser refuses
        status = plain.locator("#status").text_content()
        assert "does not let this figure use the clipboard" in status and "address bar" not in status, status
        assert plain.locator("#link-text").is_visible()
        assert plain.evaluate("document.getElementById('link-text').value") == plain.evaluate("location.href")
        assert plain.evaluate("document.activeElement.id") == "link-text"
        sandboxed = frame_named(page, "sandboxed")
        sandboxed.locator("#save-png").click()  # no allow-downloads: the browser blocks the file
        sandboxed.wait_for_selector("#saved-image:not([hidden])", state="visible")
        status = sandboxed.locator("#status").text_content()
        assert not status.startswith("Saved") and "sandboxed frame" in status and "right-click or long-press" in status, status
        assert sandboxed.evaluate("document.querySelector('#saved-image img').naturalWidth") > 0
        assert sandboxed.locator("#saved-image img").get_attribute("alt").startswith("The saved image, attention-live-")
        sandboxed.locator("#saved-image button").click()
        assert sandboxed.locator("#saved-image").is_hidden()


def test_a_huge_text_from_a_host_or_a_paste(playwright, origin, figure, figure_in_context):
    with course_page(playwright, origin, iframe(origin, "figure")) as (page, _):
        wait_for_message(page, "figure", "attention-live:ready")
        frame = FigurePage(frame_named(page, "figure"))
        for megabytes in (1, 10, 40):  # the longest task and the figure's own part of each: bench/long_tasks.py
            page.evaluate("mb => { window.huge = 'Alice said. '.repeat(Math.floor(mb * 1e6 / 12)) + 'The end'; }", megabytes)  # the host's own work
            reply = page.evaluate("() => ask('figure', { type: 'attention-live:setText', text: window.huge })")
            assert reply["ok"], reply
            kept = frame.page.evaluate("document.getElementById('text').value")
            assert len(kept) == 20000 and kept.endswith("Alice said. The end")
            assert "keeps the last 20,000 characters" in frame.page.locator("#notice").text_content()
            check_view(frame, figure)
    figure_page, _ = figure_in_context()
    page = figure_page.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    pasted = "The Queen shouted. " * 55_000  # about 1 MB
    page.evaluate("t => navigator.clipboard.writeText(t)", pasted)
    page.locator("#text").fill("")
    page.locator("#text").press("ControlOrMeta+V")  # a real paste: the browser never lays out the megabyte
    figure_page.wait_for(text=ends_with("shouted. "))
    assert "keeps the last 20,000 characters" in page.locator("#notice").text_content()
    page.locator("#text").press_sequentially("Yes!")  # the box is capped: keystrokes are cheap again
    figure_page.wait_for(text=ends_with("Yes!"))
    figure_page.answers_the_next_event()  # the page answers the next event
    kept = page.evaluate("document.getElementById('text').value")
    assert len(kept) == 20000 and kept == (pasted + "Yes!")[-20000:]
    check_view(figure_page, figure)


def test_chatty_messages(playwright, origin):
    with course_page(playwright, origin, iframe(origin, "figure", "/?embed-origin=HOST_ORIGIN")) as (page, _):
        wait_for_message(page, "figure", "attention-live:ready")
        frame = FigurePage(frame_named(page, "figure"))
        assert ask(page, "figure", {"type": "attention-live:getState"})["ok"]
        page.evaluate("() => { received.length = 0; }")
        for index in range(16):  # hovering changes nothing the host is told of
            frame.page.locator(f".chip[data-index='{index % 16}']").hover()
        page.mouse.move(0, 0)
        frame.click_token(3)  # one real change after the hovers: the host hears of it, once
        wait_for_message(page, "figure", "attention-live:state")
        assert page.evaluate("ofType('figure', 'attention-live:state').map(m => m.data.state.token)") == [3]
        page.evaluate("() => { received.length = 0; }")
        frame.page.locator("#text").press("End")
        frame.page.locator("#text").press_sequentially(" and then she ran away", delay=20)
        frame.wait_for(text=ends_with(" and then she ran away"))
        # the last state the host hears is the last text's (at most one every 200 ms: the throttle's own
        # test, on a clock of its own, tests/test_throttle.py)
        page.wait_for_function("() => ofType('figure', 'attention-live:state').at(-1)?.data.state.text.endsWith(' away')")


@pytest.mark.parametrize("width", [320, 360])
def test_content_moving_under_the_pointer(figure_in_context, width):
    figure_page, _ = figure_in_context(viewport={"width": width, "height": 700})
    page = figure_page.page
    figure_page.set_text("Alice, " * 60)  # labels and token numbers as long as they get (token 120 of 121)
    chips = page.locator(".chip")
    count = chips.count()
    tops = "() => [...document.querySelectorAll('.chip')].map(c => c.getBoundingClientRect().top + scrollY)"  # in the page, not the viewport
    for index in (count - 2, count - 12, 1, 0):
        chips.nth(index).scroll_into_view_if_needed()
        before = page.evaluate(tops)
        chips.nth(index).hover()
        figure_page.wait_for_status(containing(f"(token {index + 1} of"))
        after = page.evaluate(tops)
        assert after == before, f"hovering chip {index} moved the chips at {width} px"
        page.mouse.move(0, 0)


def test_400_zoom(figure_in_context):
    long_origin = "https://" + "course-" * 60 + "example.org/path"
    figure_page, _ = figure_in_context("/?" + urlencode({"embed-origin": long_origin}) + "#" + urlencode({"layer": "9" * 200, "head": "x" * 200}),
                                       viewport={"width": 320, "height": 256})
    page = figure_page.page
    assert "is not an origin" in page.locator("#notice").text_content()
    assert page.evaluate("document.documentElement.scrollWidth") <= 320


def test_printing_in_dark_mode(figure_in_context):
    figure_page, _ = figure_in_context(color_scheme="dark")
    page = figure_page.page
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)"  # dark on screen
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    ink = page.evaluate("getComputedStyle(document.getElementById('status')).color")
    assert max(int(c) for c in ink[4:-1].split(",")) < 128, ink  # dark ink on the white page


def test_a_very_high_pixel_ratio(figure_in_context):
    figure_page, _ = figure_in_context(viewport={"width": 390, "height": 800}, device_scale_factor=10)
    for name in ("heads", "matrix", "math", "next"):
        figure_page.open_panel(name)
    size = figure_page.page.evaluate("""async () => {
        const bitmap = await createImageBitmap(await window.attentionLive.exportImage({ format: "png" }));
        return [bitmap.width, bitmap.height];
    }""")
    assert max(size) <= 8192 and size[0] * size[1] <= 4096 * 4096 and min(size) > 600, size
    figure_page.page.locator("#save-png").click()
    figure_page.wait_for_status(starts_with("Saved"))
    assert "instead of 10×" in figure_page.status()


def test_a_live_region_at_load(playwright, origin):
    with browser_context(playwright) as context:
        context.add_init_script("""
            window.announced = [];
            new MutationObserver(() => {
                const region = document.getElementById("announcer");
                if (region && region.textContent) window.announced.push(region.textContent);
            }).observe(document, { subtree: true, childList: true, characterData: true });
        """)
        watch = Watch(origin)
        figure_page = FigurePage(watch.page(watch.context(context).new_page()))
        figure_page.open(origin + "/")
        figure_page.page.wait_for_timeout(1500)  # an observation window three times the announcer's pause, not a wait for readiness
        assert figure_page.page.evaluate("window.announced") == []
        figure_page.click_token(2)  # the reader acts: now it speaks
        figure_page.wait_for_global("announced", NOT_EMPTY)
        watch.check()


@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
def test_a_fast_network_starts_python_from_its_snapshot(playwright, compressed):
    """The other side of test_a_phone_s_network: where the memory snapshot arrives sooner than the
    time it saves (here a local link at 1 Gbps), the worker fetches it before the figure is live,
    whether the host compresses or not (startup.js, linkRate: a compressed download over
    a fast link measures the browser's decoding, not the link)."""
    server, requested = slow_link_server(1e9, 0.0, accept=None if compressed else "")  # "": a host that sends every file as it is
    with serving(server) as url, browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page())
        figure_page.open(url + "/")
        figure_page.page.wait_for_selector("html[data-offline]", state="attached")
    assert "sw.js" in requested and "snapshot.bin.gz" in requested[:requested.index("sw.js")], " ".join(requested)


STORED_SHA256 = """async (url) => {
    const response = await caches.match(url);
    if (!response) return null;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await response.arrayBuffer()));
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}"""
DAMAGE_STORED = """async (url) => {
    const [name] = await caches.keys();
    const cache = await caches.open(name);
    const bytes = new Uint8Array(await (await cache.match(url)).arrayBuffer());
    bytes[bytes.length >> 1] ^= 0x40;
    await cache.put(url, new Response(bytes));
}"""


def test_a_later_visit_starts_python_from_the_stored_unzipped_snapshot(playwright, figure):
    """The offline copy stores Python's memory snapshot unzipped (sw.js), its sha256 the one of the
    build's gzip file's contents (unzipped here with zlib), and the next visit's Python starts from it
    with the same numbers; a stored copy that is not the build's is not used: that visit downloads
    and unzips the gzip file, as a first visit does."""
    folder = build.build_folder(build.DIST)
    manifest = json.loads((folder / "build.json").read_text())
    unzipped = zlib.decompress((folder / manifest["snapshot"]).read_bytes(), 16 + zlib.MAX_WBITS)
    with serving(build.make_server(0)) as url, browser_context(playwright) as context:
        stored_url = f"{url}/{folder.name}/{manifest['snapshot_unzipped']['key']}"
        figure_page = FigurePage(context.new_page())
        figure_page.open(url + "/")
        figure_page.page.wait_for_selector("html[data-offline]", state="attached", timeout=WAIT_MS)
        assert figure_page.state()["runtime"]["snapshot"] == "downloaded"
        assert figure_page.page.evaluate(STORED_SHA256, stored_url) == hashlib.sha256(unzipped).hexdigest()
        for damaged, started_from in ((False, "stored"), (True, "downloaded")):
            if damaged:
                figure_page.page.evaluate(DAMAGE_STORED, stored_url)
            end_python(figure_page.page)  # a later visit: not the Python that the extended lifetime keeps
            figure_page.page.reload()
            assert figure_page.settled() == "ready", figure_page.status()
            assert figure_page.state()["runtime"]["snapshot"] == started_from
            figure_page.set_text("Then the Queen turned to Alice and said")
            check_view(figure_page, figure)


def test_a_later_visit_reads_numpy_straight_from_the_offline_copy(playwright):
    """On a visit where the offline copy holds the build, the worker reads numpy's tar from Cache
    Storage itself (startup.js, storedOrFetched), not through a fetch. Seen with sw.js unregistered and
    the HTTP cache emptied after the first visit: the next visit asks the server for Pyodide's files
    again, but not for numpy (until the page registers sw.js again once live, and it stores the build)."""
    numpy = json.loads((build.build_folder() / "build.json").read_text())["packages"][0].rsplit("/", 1)[-1]
    server, requested = slow_link_server(1e9, 0.0)
    with serving(server) as url, browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page())
        figure_page.open(url + "/")
        figure_page.page.wait_for_selector("html[data-offline]", state="attached", timeout=WAIT_MS)
        assert numpy in requested  # the first visit downloads it
        figure_page.page.evaluate("() => navigator.serviceWorker.getRegistrations().then((all) => Promise.all(all.map((r) => r.unregister())))")
        context.new_cdp_session(figure_page.page).send("Network.clearBrowserCache")
        requested.clear()
        end_python(figure_page.page)  # a later visit: not the Python that the extended lifetime keeps
        figure_page.page.reload()
        assert figure_page.settled() == "ready", figure_page.status()
        assert figure_page.state()["runtime"]["snapshot"] == "stored"
    before_sw = requested[:requested.index("sw.js")]
    assert "pyodide.asm.wasm" in before_sw and numpy not in before_sw, " ".join(requested)


@pytest.mark.parametrize("bits_per_second", [1.6e6, 4e5], ids=["slow 4G", "400 kbps"])
def test_a_phone_s_network(playwright, figure, bits_per_second):
    server, requested = slow_link_server(bits_per_second, 0.15)
    with serving(server) as url, browser_context(playwright) as context:
        context.add_init_script("""
            window.states = [];
            new MutationObserver(() => window.states.push(document.documentElement.dataset.state))  // the document: no root element yet
                .observe(document, { attributes: true, subtree: true, attributeFilter: ["data-state"] });
        """)
        watch = Watch(url)
        page = watch.page(watch.context(context).new_page())
        page.goto(url + "/")
        figure_page = FigurePage(page)
        page.wait_for_selector(".chip[data-weight]", state="visible", timeout=WAIT_MS)  # the precomputed first paint
        page.locator(".chip[data-index='5']").click()  # usable meanwhile
        assert figure_page.state()["token"] == 5
        figure_page.wait_for_status(matching("of [0-9.]+ MB · about [0-9]+ (s|min) left"))
        assert figure_page.settled(timeout=15 * 60_000) == "ready", figure_page.status()
        assert "error" not in page.evaluate("window.states")
        check_view(figure_page, figure)
        runtime = figure_page.state()["runtime"]  # the SharedWorker answered in time (python-client.js SHARED_SILENT_MS): no dedicated one beside it
        assert runtime["kind"] == "shared" and "sharedRefused" not in runtime and requested.count("worker.js") == 1, (runtime, requested)
        watch.check()
    # Python started without its 6.3 MB memory snapshot (it would have taken longer to arrive than it
    # saves): no request for it came before the offline copy's service worker (sw.js), registered once
    # the figure was live
    assert "sw.js" in requested and "snapshot.bin.gz" not in requested[:requested.index("sw.js")], requested


# The course sites of the last rows (more conditions): the element on a page of the course's own site.
ELEMENT_TEXT = "Then the Queen turned to Alice and said"
ELEMENT = f'<attention-live text="{ELEMENT_TEXT}" layer="2" head="3"></attention-live>'
HOSTILE_THEME = """<style>
  @property --bg { syntax: "<color>"; inherits: false; initial-value: red; }  /* registrations reach every shadow root */
  @property --ink { syntax: "<color>"; inherits: false; initial-value: lime; }
  @property --rem { syntax: "<length>"; inherits: false; initial-value: 42px; }
  * { font-family: "Comic Sans MS", cursive !important; letter-spacing: .2em; word-spacing: 1em; text-transform: uppercase !important;
      line-height: 3 !important; padding: 6px; border: 2px dotted red; box-sizing: content-box; direction: rtl; text-align: right; }
  html { font-size: 22px !important; }
  div, span { display: block !important; margin: 9px !important; color: #0a0 !important; background: #ffe !important; }
  button { display: block !important; width: 100% !important; text-transform: uppercase !important; font-size: 24px; padding: 20px !important; }
  label, legend { font-size: 30px !important; float: right; }
  input { width: 300px !important; height: 40px; appearance: none; }
  details { border: 4px solid purple; padding: 40px 12px 12px 60px !important; position: relative; }
  summary { display: block; }
  details > summary::before { content: ""; position: absolute; left: 0; top: 0; width: 48px; height: 48px; background: navy; }
  canvas { width: 10px !important; height: 10px !important; }
  table, code, textarea { font-size: 40px !important; white-space: normal !important; background: black !important; color: white !important; }
</style>"""


@contextlib.contextmanager
def element_page(playwright, folder, body=ELEMENT, width=1280, context_options=None, watch_origins=(), **site):
    """A course page of its own site (course_site: ``site`` as its keywords) holding ``body``, opened at
    ``width`` × 900 px with every element live and its tokens drawn; yields the Playwright page. At the
    end: no page error, no console error, no request off the site."""
    with course_site(folder, {"unit.html": body}, **site) as url, \
            browser_context(playwright, viewport={"width": width, "height": 900}, **(context_options or {})) as context:
        watch = Watch(url, *watch_origins)
        page = watch.page(watch.context(context).new_page())
        page.goto(url + "/unit.html")
        page.evaluate("""() => Promise.all([...document.querySelectorAll('attention-live')].map(async (figure) => {
            await figure.ready;
            await new Promise((resolve) => { const wait = () => figure.state().weights.length ? resolve() : setTimeout(wait, 20); wait(); });
        }))""")
        yield page
    watch.check()


def figure_screenshot(page):
    """The first element's figure as drawn, the pointer away from it (PNG bytes)."""
    page.mouse.move(0, 0)
    page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
    return page.locator("attention-live").first.screenshot(animations="disabled", caret="hide")


def check_element_view(page, figure):
    """The first element's state and chips equal CPython's for its text (check_view's checks)."""
    return check_view(FigurePage(page, "attention-live"), figure)


def test_the_course_theme_s_css(playwright, tmp_path, figure):
    """A theme whose rules cover every kind of element the figure is made of (some !important, an
    icon over every summary, upper-cased and stretched buttons, enlarged legends) changes nothing in
    the figure: it lays out and draws as on a blank page at the same width, its token labels as the
    tokenizer made them; the page's colour scheme and the documented hooks still reach it."""
    shots = {}
    same_width = "<style>attention-live { width: 820px; }</style>"  # the figure at the same width on both pages
    for name, head in (("blank", same_width), ("themed", HOSTILE_THEME + same_width)):
        (tmp_path / name).mkdir()
        with element_page(playwright, tmp_path / name, width=900, head=head) as page:
            state = check_element_view(page, figure)
            chips = page.locator("attention-live .chip")
            assert [chips.nth(i).locator(".label").text_content() for i in range(chips.count())] == state["tokens"]
            styles = page.locator("attention-live .chip .label").first.evaluate("(label) => [getComputedStyle(label).textTransform, getComputedStyle(label).letterSpacing]")
            assert styles == ["none", "normal"], styles
            assert page.locator("attention-live textarea").evaluate("(box) => getComputedStyle(box).backgroundColor") == "rgb(255, 255, 255)"  # the system's light scheme
            assert page.locator("attention-live").first.evaluate("(el) => el.shadowRoot.querySelector('#tokens').getBoundingClientRect().height") < 200
            for panel in ("heads", "matrix", "math", "next"):
                page.locator(f"attention-live #{panel}-panel > summary").click()
            FigurePage(page, "attention-live").wait_for(panels={"heads": True, "matrix": True, "math": True, "next": True})
            page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 0))")
            page.locator("attention-live").first.evaluate("(el) => el.shadowRoot.querySelector('#heads-panel').scrollIntoView()")
            shots[name] = figure_screenshot(page)
    with browser_context(playwright) as context:
        apart = pixels_apart(context.new_page(), shots["blank"], shots["themed"])
    # the same size, and the same pixels but for text antialiased at another sub-pixel offset (the
    # theme's margins put the figure at a fractional y): a broken layout moves far more than 1%
    assert apart["size"][0] == apart["size"][1] and apart["share"] < 0.01, apart
    # on purpose: the documented hooks, and the colour scheme (the system's, or the theme attribute)
    hooks = ('<style>attention-live { --attention-live-font: serif; --attention-live-font-size: 20px; }'
             'attention-live::part(figure) { outline: 3px solid rgb(1, 2, 3); }</style>')
    body = "".join(f'<attention-live {theme} text="{ELEMENT_TEXT}"></attention-live>' for theme in ("", 'theme="dark"', 'theme="light"'))
    body += f'<div style="--attention-live-scheme: light"><attention-live text="{ELEMENT_TEXT}"></attention-live></div>'  # a site's own switch, in CSS
    (tmp_path / "hooks").mkdir()
    with element_page(playwright, tmp_path / "hooks", body=body, head=hooks, context_options={"color_scheme": "dark"}) as page:
        looks = page.evaluate("""() => [...document.querySelectorAll('attention-live')].map((el) => {
            const style = getComputedStyle(el.shadowRoot.querySelector('.figure'));
            return [style.fontFamily, style.fontSize, getComputedStyle(el.shadowRoot.querySelector('textarea')).backgroundColor, style.outlineColor];
        })""")
        dark, light = "rgb(18, 22, 29)", "rgb(255, 255, 255)"  # the text box's background, figure.css's --al-bg
        assert looks == [["serif", "20px", colour, "rgb(1, 2, 3)"] for colour in (dark, dark, light, light)], looks
        # the page shows and hides the element as it does any box (a framework's display: none, !important or not; visibility)
        hidden = page.evaluate("""() => {
            const [first, second, third] = document.querySelectorAll('attention-live');
            first.style.display = 'none';
            second.style.setProperty('display', 'none', 'important');
            third.parentElement.style.visibility = 'hidden';
            const chip = third.shadowRoot.querySelector('.chip');
            return [first.getBoundingClientRect().height, second.getBoundingClientRect().height, chip.checkVisibility({ visibilityProperty: true })];
        }""")
        assert hidden == [0, 0, False], hidden


def test_inside_another_component(playwright, tmp_path, figure):
    """The element inside another custom element's open shadow root (as MyST's {anywidget} directive
    and web-component course themes put it): live, styled (each chip its weight's colour), usable
    from the keyboard, exportable, with no id repeated in its root."""
    host = """<course-card></course-card><script type="module">
      customElements.define("course-card", class extends HTMLElement {
        connectedCallback() {
          const root = this.attachShadow({ mode: "open" });
          const title = document.createElement("h2");
          title.id = "text";  // an id of the host's root that is also one of the figure's
          title.textContent = "Attention";
          const figure = document.createElement("attention-live");
          for (const [name, value] of Object.entries({ text: "TEXT", layer: "2", head: "3" })) figure.setAttribute(name, value);
          root.append(title, figure);
        }
      });
    </script>""".replace("TEXT", ELEMENT_TEXT)
    with element_page(playwright, tmp_path, body=host) as page:
        figure_at = "document.querySelector('course-card').shadowRoot.querySelector('attention-live')"
        card = FigurePage(page, ("course-card", "attention-live"))
        card.ready()
        card.wait_for(weights=NOT_EMPTY)
        state = card.state()
        result = figure.analyse(ELEMENT_TEXT)
        assert state["ids"] == result["ids"] and state["tokens"] == result["labels"]
        assert np.max(np.abs(np.asarray(state["weights"]) - result["attention"][1, 2, state["token"]])) <= TOLERANCE
        colours = page.evaluate(f"""() => [...{figure_at}.shadowRoot.querySelectorAll('.chip:not(.masked)')]
            .map((chip) => [chip.dataset.weight, getComputedStyle(chip).backgroundColor])""")
        by_weight = sorted(colours, key=lambda c: float(c[0]))
        assert len({colour for _, colour in colours}) >= 3 and by_weight[0][1] != by_weight[-1][1], colours
        ids = page.evaluate(f"() => [...{figure_at}.shadowRoot.querySelectorAll('[id]')].map((e) => e.id)")
        assert len(ids) > 30 and len(ids) == len(set(ids))
        # the keyboard: into the text box, type, then to the chips and along them with the arrow keys
        box = page.locator("course-card attention-live textarea")
        box.focus()
        box.press("End")
        page.keyboard.type(" Rabbit")
        card.wait_for(text=ELEMENT_TEXT + " Rabbit", tokens=NOT_EMPTY)
        page.locator("course-card attention-live .chip[tabindex='0']").focus()
        before = card.state()["token"]
        page.keyboard.press("ArrowLeft")
        card.wait_for(token=before - 1)
        assert page.evaluate(f"() => {figure_at}.shadowRoot.activeElement.dataset.index") == str(before - 1)
        page.evaluate("() => { window.heard = []; document.addEventListener('attention-live:change', (e) => window.heard.push(e.detail.text)); }")
        card.set_text("Alice said")
        FigurePage(page).wait_for_global("heard", some_item("Alice said"))  # events cross the component's root (composed)
        exported = page.evaluate(f"""async () => {{
            const file = await {figure_at}.exportImage({{ format: "svg" }});
            return [file.type, file.size];
        }}""")
        assert exported[0] == "image/svg+xml" and exported[1] > 2_000, exported


TRUSTED_TYPES = {"required": "require-trusted-types-for 'script'",
                 "named": "require-trusted-types-for 'script'; trusted-types attention-live"}


@pytest.mark.parametrize("policy", TRUSTED_TYPES.values(), ids=TRUSTED_TYPES.keys())
def test_trusted_types(playwright, tmp_path, figure, policy):
    """Under a course page's Content-Security-Policy requiring Trusted Types, the element starts: it
    parses no HTML string, and its worker's URL goes through its one policy, "attention-live"."""
    with element_page(playwright, tmp_path, page_headers={"Content-Security-Policy": policy}) as page:
        assert page.evaluate("() => window.trustedTypes !== undefined")  # enforced in this browser
        check_element_view(page, figure)
        page.locator("attention-live textarea").press("End")
        page.locator("attention-live textarea").press_sequentially(" Rabbit")
        FigurePage(page, "attention-live").wait_for(text=ELEMENT_TEXT + " Rabbit")
        check_element_view(page, figure)
        with browser_context(playwright) as context:  # the page really enforces Trusted Types (a refusal logs a console error: not on the watched page)
            other = context.new_page()
            other.goto(page.url)
            assert other.evaluate("() => { try { document.createElement('div').innerHTML = '<b>x</b>'; return false; } catch { return true; } }")


def test_trusted_types_without_the_figure_s_policy_says_what_to_allow(playwright, tmp_path):
    policy = "require-trusted-types-for 'script'; trusted-types course-theme"
    with course_site(tmp_path, {"unit.html": ELEMENT}, page_headers={"Content-Security-Policy": policy}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/unit.html")
        element = FigurePage(page, "attention-live")
        element.wait_for_state("error")
        status = element.status()
        assert "attention-live" in status and "trusted-types" in status, status


@pytest.mark.parametrize("width", [1280, 390])
def test_a_right_to_left_course_page(playwright, tmp_path, figure, width):
    """On <html dir="rtl" lang="ar">, the figure keeps its own language and direction (English, left
    to right): its controls read left to right, nothing sticks out of the column, and a right-to-left
    sentence in its text box reads right to left."""
    with element_page(playwright, tmp_path, width=width, html_attributes='dir="rtl" lang="ar"') as page:
        check_element_view(page, figure)
        element = page.locator("attention-live").first
        look = element.evaluate("""(el) => {
            const root = el.shadowRoot, figure = root.querySelector('.figure'), box = el.getBoundingClientRect();
            const heads = [...root.querySelectorAll('#heads label')].map((label) => label.getBoundingClientRect().left);
            const out = [...root.querySelectorAll('*')].filter((part) => {
                const r = part.getBoundingClientRect();
                return r.width > 0 && part.closest('[hidden]') === null && (r.left < box.left - 1 || r.right > box.right + 1);
            }).map((part) => part.tagName + '#' + part.id + '.' + part.className);
            return { lang: figure.lang, dir: getComputedStyle(figure).direction, heads, out,
                     scroll: document.documentElement.scrollWidth - window.innerWidth };
        }""")
        assert look["lang"] == "en" and look["dir"] == "ltr"
        assert look["heads"] == sorted(look["heads"]) and len(look["heads"]) > 1, look["heads"]
        assert look["out"] == [] and look["scroll"] <= 0, look
        arabic = "قالت أليس مرحبا"
        element.locator("textarea").fill(arabic)
        FigurePage(page, "attention-live").wait_for(text=arabic)
        assert element.locator("textarea").evaluate("(box) => getComputedStyle(box).direction") == "rtl"
        assert element.evaluate("(el) => getComputedStyle(el.shadowRoot.querySelector('#tokens')).direction") == "ltr"


# A single-page course site: links swap the content of <main> in place (fetched, parsed, moved in;
# inline scripts re-created without their attributes, as MkDocs Material's instant navigation does),
# and the address follows with history.pushState; Back and Forward swap it again.
INSTANT = """<script>
  const swapIn = async (href) => {
    const next = new DOMParser().parseFromString(await (await fetch(href)).text(), "text/html").querySelector("main");
    const main = document.querySelector("main");
    main.replaceChildren(...next.childNodes);
    for (const old of main.querySelectorAll("script")) {  // re-created as a classic script: type and the rest dropped
      const script = document.createElement("script");
      script.textContent = old.textContent;
      old.replaceWith(script);
    }
    window.swaps = (window.swaps ?? 0) + 1;
  };
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-instant]");
    if (!link) return;
    event.preventDefault();
    history.pushState(null, "", link.href);
    swapIn(link.href);
  });
  addEventListener("popstate", () => swapIn(location.href));
</script>"""
FIGURE_PAGE = ELEMENT + '<p><a data-instant href="other.html">Next: multi-head attention</a></p>'  # the element's script: in <head>, never inline
OTHER_PAGE = '<p>Multi-head attention, in prose.</p><p><a data-instant href="unit.html">Back to the figure</a></p>'


def live_figure_equals_cpython(page, figure, text):
    """Wait until the page's (one) element shows ``text`` live, then check it against CPython."""
    FigurePage(page, "attention-live").wait_for_state("ready", text=text, weights=NOT_EMPTY)
    return check_element_view(page, figure)


def test_the_site_s_own_navigation(playwright, tmp_path, figure):
    """Content swapped in by the site's own navigation (instant navigation, Back/Forward, a
    single-page app taking the element out and putting it back 25 times, or a new one each time):
    the figure on the new page works, and nothing leaks (Python serves only the figures on the page)."""
    pages = {"unit.html": FIGURE_PAGE, "other.html": OTHER_PAGE}
    with course_site(tmp_path, pages, head=INSTANT) as url, browser_context(playwright, viewport={"width": 1000, "height": 900}) as context:
        watch = Watch(url)
        page = watch.page(watch.context(context).new_page())
        page.goto(url + "/other.html")  # the first page has no figure: the element's script is loaded, no element yet
        page.get_by_text("Back to the figure").click()
        on_page = FigurePage(page)  # the page itself, for what it holds
        on_page.wait_for_global("swaps", 1)
        live_figure_equals_cpython(page, figure, ELEMENT_TEXT)
        for _ in range(2):  # away and back with the site's links, then with Back and Forward
            page.get_by_text("Next: multi-head attention").click()
            on_page.wait_for_element("attention-live", count=0)
            page.get_by_text("Back to the figure").click()
            live_figure_equals_cpython(page, figure, ELEMENT_TEXT)
        page.go_back()
        on_page.wait_for_element("attention-live", count=0)
        page.go_forward()
        state = live_figure_equals_cpython(page, figure, ELEMENT_TEXT)
        element = FigurePage(page, "attention-live")
        element.wait_for(runtime={"figures": 1})
        # a single-page app: the same element out and in 25 times, then 25 new ones in its place
        page.evaluate("""async () => {
            const figure = document.querySelector('attention-live'), parent = figure.parentElement;
            for (let i = 0; i < 25; i += 1) {
                figure.remove();
                await new Promise((resolve) => setTimeout(resolve, 0));
                parent.prepend(figure);
            }
            for (let i = 0; i < 25; i += 1) {
                const next = document.createElement('attention-live');
                next.setAttribute('text', `Alice said ${i}`);
                document.querySelector('attention-live').replaceWith(next);
                await new Promise((resolve) => setTimeout(resolve, i % 2 ? 0 : 30));
            }
        }""")
        live_figure_equals_cpython(page, figure, "Alice said 24")
        element.wait_for(runtime={"figures": 1})
        assert state["runtime"]["id"] == element.state()["runtime"]["id"]  # the same Python all along
    watch.check()
