"""The figure in headless Chromium: typed text, clicked tokens and switched heads show CPython's numbers.

Uses Debian's chromium (launched by path; ``playwright install`` cannot download here), serves
``dist/`` on 127.0.0.1, waits on the page's ``data-state`` (never a sleep), and fails on any page
error, console error, dialog or request to another origin, the worker's requests included.
"""

import contextlib
import functools
import http.server
import json
import shutil
import threading

import numpy as np
import pytest
from playwright.sync_api import sync_playwright

import build
from conftest import WEIGHTS
from figure_page import CHROMIUM, CHROMIUM_ARGS, FigurePage, serve_dist

TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def origin():
    with serve_dist() as url:
        yield url


@pytest.fixture(scope="module")
def playwright():
    with sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="module")
def browser_page(origin, playwright):
    problems, requests = [], []
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context()
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    figure_page = FigurePage(page)
    figure_page.open(origin + "/")
    yield figure_page, problems, requests
    browser.close()
    assert not problems, problems
    foreign = [url for url in requests if not url.startswith(origin + "/") and not url.startswith("data:")]
    assert not foreign, f"requests left the page's origin: {foreign}"
    assert any(url.endswith(".wasm") for url in requests), "the worker's requests were not observed"


def expected_row(figure, text, layer, head, token):
    return figure.analyse(text)["attention"][layer - 1, head - 1, token]


def check_view(figure_page, figure):
    """The view on screen equals CPython's: ids, labels, the selected row, and every chip."""
    state = figure_page.state()
    result = figure.analyse(state["text"])
    assert state["ids"] == result["ids"] and state["tokens"] == result["labels"]
    row = expected_row(figure, state["text"], state["layer"], state["head"], state["token"])
    worst = float(np.max(np.abs(np.asarray(state["weights"]) - row)))
    print(f"largest difference from CPython: {worst:.3g}")
    assert worst <= TOLERANCE
    chips = figure_page.chips()
    assert [c["index"] for c in chips] == list(range(len(result["ids"])))
    assert [c["label"] for c in chips] == result["labels"]
    for chip in chips:
        if chip["index"] <= state["token"]:
            assert not chip["masked"] and abs(float(chip["weight"]) - row[chip["index"]]) <= TOLERANCE
            assert chip["percent"] == f"{row[chip['index']] * 100:.1f}%"
        else:
            assert chip["masked"] and chip["weight"] is None
    return state


def test_default_view_tells_the_story(browser_page, figure):
    figure_page, _, _ = browser_page
    default = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    state = check_view(figure_page, figure)
    assert state["text"] == default["text"]
    assert (state["layer"], state["head"], state["token"]) == (default["layer"], default["head"], default["token"])
    assert state["tokens"][state["token"]] == "\u2423said" and state["tokens"][default["key"]] == "\u2423Alice"
    assert abs(state["weights"][default["key"]] - default["weight"]) <= TOLERANCE
    assert "computed live in this tab" in figure_page.status()
    marks = figure_page.page.evaluate("['first-paint', 'live'].map(n => performance.getEntriesByName('attention-live:' + n).length)")
    assert marks == [1, 1]


def test_query_stays_while_the_text_before_it_is_unchanged(browser_page, figure):
    figure_page, _, _ = browser_page
    default = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    figure_page.select(layer=default["layer"], head=default["head"], token=default["token"])
    figure_page.set_text(default["text"] + " And then")
    assert check_view(figure_page, figure)["token"] == default["token"]
    figure_page.set_text("Once upon a time")
    state = check_view(figure_page, figure)
    assert state["token"] == len(state["ids"]) - 1
    error = figure_page.page.evaluate("() => window.attentionLive.setText(null).then(() => 'resolved', e => e.name)")
    assert error == "TypeError"


def test_typing_clicking_and_switching(browser_page, figure):
    figure_page, _, _ = browser_page
    figure_page.type('The Mock Turtle sighed, and Alice said "Go on!"\n\tthen')
    check_view(figure_page, figure)
    figure_page.click_token(4)
    check_view(figure_page, figure)
    for layer, head in [(2, 1), (1, 3), (2, 4)]:
        figure_page.click_choice("layers", layer)
        figure_page.click_choice("heads", head)
        state = check_view(figure_page, figure)
        assert (state["layer"], state["head"], state["token"]) == (layer, head, 4)


def test_text_longer_than_the_context(browser_page, figure):
    figure_page, _, _ = browser_page
    figure_page.set_text("Alice was beginning to get very tired of sitting by her sister on the bank. " * 20)
    block_size = figure.config.block_size
    figure_page.select(layer=2, head=3, token=block_size - 1)
    state = check_view(figure_page, figure)
    assert len(state["ids"]) == block_size
    notice = figure_page.page.locator("#notice")
    assert notice.is_visible() and f"last {block_size} tokens" in notice.text_content()


def test_markup_is_shown_as_text(browser_page, figure):
    figure_page, _, _ = browser_page
    figure_page.set_text("<img src=x onerror=alert(1)> Tom & Jerry")
    check_view(figure_page, figure)
    assert figure_page.page.locator("#tokens img").count() == 0
    labels = "".join(c["label"] for c in figure_page.chips())
    assert labels == "<img\u2423src=x\u2423onerror=alert(1)>\u2423Tom\u2423&\u2423Jerry"


def test_whitespace_and_partial_characters_are_visible(browser_page, figure):
    figure_page, _, _ = browser_page
    figure_page.set_text("a\r\n\tb  \U0001f44d")
    state = check_view(figure_page, figure)
    assert state["text"] == "a\r\n\tb  \U0001f44d"
    assert all(label.strip() for label in state["tokens"]), state["tokens"]


def test_empty_text_gives_an_empty_state(browser_page):
    figure_page, _, _ = browser_page
    figure_page.set_text("")
    state = figure_page.state()
    assert state["ids"] == [] and state["weights"] == [] and state["token"] is None
    assert figure_page.page.locator("#tokens .empty").is_visible()
    assert figure_page.page.evaluate("document.documentElement.dataset.state") == "ready"


@contextlib.contextmanager
def page_served_by(playwright, server):
    """A fresh browser's page at ``server`` (an HTTP server on 127.0.0.1, started here and stopped after)."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        yield page
    finally:
        browser.close()
        server.shutdown()


def load_site(playwright, site, mime_types=None):
    """Open a copy of the site served with ``mime_types`` overriding build.py's; returns
    (data-state, status text) once it is no longer loading."""
    with page_served_by(playwright, build.make_server(0, site, mime_types)) as page:
        page.wait_for_selector("html:not([data-state='loading'])", state="attached", timeout=120_000)
        return page.evaluate("[document.documentElement.dataset.state, document.getElementById('status').textContent]")


@pytest.mark.parametrize("damage, named", [
    ("weights/model.safetensors", "model.safetensors is damaged"),
    ("pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", "numpy and micropip"),
    ("pyodide/pyodide.asm.wasm", "pyodide.asm.wasm"),
])
def test_a_damaged_file_gives_an_error_naming_it(playwright, tmp_path, damage, named):
    site = tmp_path / "site"
    shutil.copytree(build.DIST, site)
    data = bytearray((site / damage).read_bytes())
    data[len(data) // 2] ^= 0x40
    (site / damage).write_bytes(bytes(data))
    state, status = load_site(playwright, site)
    assert state == "error" and named in status, status
    assert "Traceback" not in status and "\n" not in status


def test_wasm_served_as_octet_stream_still_loads(playwright):
    state, status = load_site(playwright, build.DIST, {".wasm": "application/octet-stream"})
    assert state == "ready", status


def test_opened_from_disk_says_how_to_serve_it(playwright):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        page = browser.new_page()
        page.goto((build.DIST / "index.html").as_uri())
        page.wait_for_selector("html[data-state='error']", state="attached", timeout=3_000)
        assert "python3 build.py serve" in page.locator("#status").text_content()
    finally:
        browser.close()


class CoepParent(http.server.BaseHTTPRequestHandler):
    """A course page on another origin that requires CORP/COEP of everything it embeds."""

    figure_url = ""

    def do_GET(self):
        body = f'<!doctype html><iframe src="{self.figure_url}" width="800" height="420"></iframe>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def test_embedded_in_a_page_that_requires_corp(playwright, origin):
    CoepParent.figure_url = origin + "/"
    with page_served_by(playwright, http.server.ThreadingHTTPServer(("127.0.0.1", 0), CoepParent)) as page:
        frame = page.frame_locator("iframe")
        frame.locator("html:not([data-state='loading'])").wait_for(state="attached", timeout=120_000)
        assert frame.locator("html").get_attribute("data-state") == "ready"


class CutFirstWasm(build.StaticHandler):
    """Serves dist/, but the first response for the wasm stops halfway, as a dropped connection would."""

    cut_done = False

    def do_GET(self):
        if self.path.endswith(".wasm") and not CutFirstWasm.cut_done:
            CutFirstWasm.cut_done = True
            data = (build.DIST / "pyodide" / "pyodide.asm.wasm").read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/wasm")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.close_connection = True
            return
        super().do_GET()


def test_a_failed_download_can_be_retried_without_a_reload(playwright):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CutFirstWasm, directory=str(build.DIST)))
    with page_served_by(playwright, server) as page:
        page.wait_for_selector("html[data-state='error']", state="attached", timeout=60_000)
        assert "pyodide.asm.wasm" in page.locator("#status").text_content()
        page.evaluate("window.beforeRetry = true")  # gone if the page reloads
        page.locator("#retry").click()
        page.wait_for_selector("html[data-state='ready']", state="attached", timeout=120_000)
        assert page.evaluate("window.attentionLive.ready.then(() => window.beforeRetry)") is True
        assert not page.locator("#retry").is_visible()
