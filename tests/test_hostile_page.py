"""Hostile input, hostile hosting and long use, in headless Chromium: one test per kind in
../shared/cases/hostile-inputs.md, named after it (the Python side of the text kinds is in
test_hostile_text.py).

Text kinds share one live page (``browser_page``: it fails on any page error, console error, dialog
or request to another origin) and compare what is on screen with CPython's ``figure``. Hosting kinds
each start their own browser and server. Every wait is on a state the page announces
(``data-state``, ``data-offline``, the text shown), never a sleep.
"""

import contextlib
import functools
import http.server
import re
import shutil
import threading

import numpy as np
import pytest
from playwright.sync_api import Error as PlaywrightError

import build
from conftest import PATHOLOGICAL_TEXTS
from support.source_tree import copy_sources, run_build
from support.figure_page import (MEMORY_ARGS, WAIT_MS, FigurePage, Watch, browser_context, check_view, drop_compressed_copies, memory_growth_mb,
                                 parent_page, serving, starts_with, worker_targets)

ERROR_WITHIN_MS = 3_000  # a failure found before Python starts is reported within this time


def shows(figure_page, figure, text):
    """Set ``text`` through the page's API; check the view against CPython; return the state."""
    figure_page.set_text(text)
    return check_view(figure_page, figure)


def spaced(labels):
    """The chips' labels read back with the space sign as a space."""
    return "".join(labels).replace("\u2423", " ")


# Text typed or pasted by the visitor

def test_empty_and_blank(browser_page, figure):
    figure_page = browser_page
    figure_page.set_text("")
    state = figure_page.state()
    assert state["ids"] == [] and state["weights"] == [] and state["token"] is None
    assert figure_page.page.locator("#tokens .empty").is_visible()
    assert figure_page.page.evaluate("document.documentElement.dataset.state") == "ready"
    assert spaced(shows(figure_page, figure, "   ")["tokens"]) == "   "
    assert "".join(shows(figure_page, figure, "\n")["tokens"]) == "\u21b5"


def test_leading_and_repeated_spaces(browser_page, figure):
    figure_page = browser_page
    for text in ["  Hello World.", *("hello" + " " * k + "world" for k in range(1, 13))]:
        assert spaced(shows(figure_page, figure, text)["tokens"]) == text


def test_line_ends_and_tabs(browser_page, figure):
    figure_page = browser_page
    for text in ["a\n\nb", "\t" * 32, "a \t b"]:
        assert shows(figure_page, figure, text)["text"] == text
    # the page's one rule for line breaks (docs/api.md): its text is what the text box holds, where "\r\n"
    # and "\r" are "\n"; Python keeps "\r" (test_hostile_text.py, test_tokenizer.py)
    for text, normalised in [("a\r\nb", "a\nb"), ("a\rb", "a\nb"), ("\r\r\n", "\n\n")]:
        state = shows(figure_page, figure, text)
        assert state["text"] == normalised == figure_page.page.locator("#text").input_value()
        assert "".join(state["tokens"]) == normalised.replace("\n", "\u21b5")
    box = figure_page.page.locator("#text")
    box.fill("")
    box.focus()
    figure_page.page.keyboard.insert_text("a\r\nb\rc")  # as pasted
    figure_page.page.keyboard.press("Enter")
    figure_page.wait_for(text="a\nb\nc\n")
    check_view(figure_page, figure)


def test_emoji_and_multi_byte_characters(browser_page, figure):
    figure_page = browser_page
    for text in ["\U0001f44d", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u4f60\u597d"]:
        state = shows(figure_page, figure, text)
        assert state["text"] == text and all("\u27e8" in label for label in state["tokens"])  # bytes, e.g. ⟨F0 9F⟩


def test_lone_utf_16_surrogate_from_the_browser(browser_page, figure):
    figure_page = browser_page
    figure_page.page.evaluate("() => window.attentionLive.setText('a\\uD83Db')")  # a JS string: the surrogate stays lone
    assert check_view(figure_page, figure)["text"] == "a\ufffdb"
    assert figure_page.page.evaluate("document.getElementById('text').value") == "a\ufffdb"  # the box says the same
    figure_page.page.evaluate("""() => {
        const box = document.getElementById('text');
        box.value = 'x\\uDC4Dy';
        box.dispatchEvent(new Event('input'));
    }""")
    figure_page.wait_for(text="x\ufffdy")
    assert figure_page.page.evaluate("document.getElementById('text').value") == "x\ufffdy"
    check_view(figure_page, figure)
    # The link is written from the box (a lone surrogate made encodeURIComponent throw: "URI malformed")
    figure_page.wait_for_link(hash=starts_with("#text=x%EF%BF%BDy&"))


def test_control_characters(browser_page, figure):
    figure_page = browser_page
    state = shows(figure_page, figure, "a\u0000b")
    assert state["text"] == "a\u0000b" and "".join(state["tokens"]) == "a\u2400b"


def test_decomposed_accents(browser_page, figure):
    figure_page = browser_page
    for text in ["ye\u0302\u0301u", "\u0301"]:
        assert shows(figure_page, figure, text)["text"] == text  # not normalised; check_view: every chip visible


def test_special_token_text(browser_page, figure):
    figure_page = browser_page
    state = shows(figure_page, figure, "Hello <|endoftext|> world")
    assert len(state["tokens"]) > 3 and "<|endoftext|>" in spaced(state["tokens"])


MARKUP_LABELS = ["<img src=x onerror=alert(1)>", "<b>bold</b>", "&amp;", "&lt;script&gt;", "\u2423<i>", "</span>x"]
DRAW_LABELS = """async (labels) => {
    const view = await import("/web/views/chips.js");
    const { Messages } = await import("/web/i18n/messages.js");
    const english = new Messages("en", await (await fetch("/web/i18n/en.json")).json());
    const box = document.createElement("div");
    document.body.append(box);
    const chips = view.createChips(box, { on: { pick: () => {}, preview: () => {} }, messages: () => english });
    chips.draw({ labels: ["plain"], ids: [0] });
    const perChip = box.querySelectorAll("*").length;
    chips.draw({ labels, ids: labels.map((_, i) => i + 1) });
    const result = { perChip, elements: box.querySelectorAll("*").length, tags: [...new Set([...box.querySelectorAll("*")].map((e) => e.tagName))],
                     texts: [...box.querySelectorAll(".chip .label")].map((e) => e.textContent) };
    box.remove();
    return result;
}"""


def test_markup(browser_page, figure):
    figure_page = browser_page
    elements = figure_page.page.evaluate("document.getElementsByTagName('*').length - document.querySelectorAll('#tokens *').length")
    state = shows(figure_page, figure, "<img src=x onerror=alert(1)> Tom & Jerry")
    assert spaced(state["tokens"]) == "<img src=x onerror=alert(1)> Tom & Jerry"
    assert figure_page.page.evaluate("document.getElementsByTagName('*').length - document.querySelectorAll('#tokens *').length") == elements
    assert figure_page.page.locator("#tokens img, #tokens script").count() == 0  # a dialog would fail browser_page


def test_markup_in_labels(playwright, tmp_path):
    """This vocabulary splits markup into short pieces, so no real label holds a whole tag: the drawing
    code itself (web/views/chips.js, as written: dist/ has it bundled) gets labels that do (a retrained
    tokenizer may have such tokens)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "web").symlink_to(build.ROOT / "web", target_is_directory=True)
    (site / "blank.html").write_text('<!doctype html><html lang="en"><title>chips</title></html>', encoding="utf-8")
    with serving(build.make_server(0, site)) as url, browser_context(playwright) as context:
        page = context.new_page()
        dialogs = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(url + "/blank.html")
        drawn = page.evaluate(DRAW_LABELS, MARKUP_LABELS)
    assert dialogs == []
    assert drawn["texts"] == MARKUP_LABELS, drawn
    assert drawn["elements"] == drawn["perChip"] * len(MARKUP_LABELS) and sorted(drawn["tags"]) == ["BUTTON", "SPAN"], drawn



@pytest.mark.parametrize("name", PATHOLOGICAL_TEXTS)
def test_pathological_lengths(browser_page, figure, name):
    figure_page = browser_page
    text = PATHOLOGICAL_TEXTS[name]
    figure_page.set_text("Alice")
    figure_page.page.locator("#text").fill(text)  # one input event, as a paste
    kept = figure.analyse(text)["text"]
    figure_page.wait_for(text=kept)
    check_view(figure_page, figure)
    figure_page.answers_the_next_event()  # the page still answers the next event (its time to a result and longest task: bench/long_tasks.py)
    assert f"Only the last {len(kept):,} characters are used." in figure_page.page.locator("#notice").text_content()


def test_longer_than_the_context(browser_page, figure):
    figure_page = browser_page
    figure_page.set_text("Alice was beginning to get very tired of sitting by her sister on the bank. " * 20)
    block_size = figure.config.block_size
    figure_page.select(layer=2, head=3, token=block_size - 1)
    state = check_view(figure_page, figure)
    assert len(state["ids"]) == block_size
    notice = figure_page.page.locator("#notice")
    assert notice.is_visible() and f"showing the last {block_size} tokens" in notice.text_content().lower()


# How the page is hosted and opened

def load_site(playwright, site, mime_types=None, headers=None, timeout=WAIT_MS):
    """Open a copy of the site served with these MIME types and headers over build.py's; returns
    (data-state, status text) once it is no longer loading."""
    with serving(build.make_server(0, site, mime_types, headers)) as url, browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page())
        figure_page.page.goto(url + "/")
        return figure_page.settled(timeout), figure_page.status()


def frame_state(page, index, timeout=WAIT_MS):
    """data-state of the figure in the page's iframe number ``index``, once it is no longer loading."""
    frame = page.frame_locator("iframe").nth(index)
    frame.locator("html:not([data-state='loading'])").wait_for(state="attached", timeout=timeout)
    return frame.locator("html").get_attribute("data-state"), frame.locator("#status").text_content()


def test_opened_from_disk(playwright):
    with browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page())
        figure_page.page.goto((build.DIST / "index.html").as_uri())
        assert figure_page.settled(ERROR_WITHIN_MS) == "error"
        assert "python3 build.py serve" in figure_page.status()


def test_served_under_a_sub_path(playwright, tmp_path, figure):
    sub_path = "courses/unit3/attention/"
    (tmp_path / sub_path).parent.mkdir(parents=True)
    (tmp_path / sub_path).symlink_to(build.DIST, target_is_directory=True)
    with serving(build.make_server(0, tmp_path)) as url, browser_context(playwright) as context:
        requests = []
        context.on("request", lambda request: requests.append(request.url))
        figure_page = FigurePage(context.new_page())
        figure_page.open(f"{url}/{sub_path}index.html")
        check_view(figure_page, figure)
    assert requests and all(r.startswith(f"{url}/{sub_path}") for r in requests), requests


class NoSlashRedirect(build.StaticHandler):
    """A "clean URL" host: /unit3/attention answers with index.html itself instead of redirecting to
    /unit3/attention/."""

    def do_GET(self):
        if self.path == "/unit3/attention":
            self.path = "/unit3/attention/index.html"
        super().do_GET()


def test_served_under_a_sub_path_without_its_trailing_slash(playwright, tmp_path):
    (tmp_path / "unit3").mkdir()
    (tmp_path / "unit3" / "attention").symlink_to(build.DIST, target_is_directory=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(NoSlashRedirect, directory=str(tmp_path)))
    with serving(server) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/unit3/attention")  # every relative URL now resolves to /unit3/: no script, no style
        page.locator("#no-scripts").wait_for(state="visible", timeout=ERROR_WITHIN_MS)
        assert "ends with a slash" in page.locator("#no-scripts").text_content()


def test_strict_content_security_policy(playwright):
    meta = (build.DIST / "index.html").read_text(encoding="utf-8")
    assert "script-src 'self' 'wasm-unsafe-eval';" in meta and "unsafe-eval'" not in meta.replace("'wasm-unsafe-eval'", "")
    header = {"Content-Security-Policy": "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"}
    with serving(build.make_server(0, headers=header)) as url, browser_context(playwright) as context:
        watch = Watch(url)
        page = watch.page(watch.context(context).new_page())
        figure_page = FigurePage(page)
        figure_page.open(url + "/")
        page.wait_for_selector("html[data-offline]", state="attached")  # the service worker too
        assert page.evaluate("document.documentElement.dataset.offline") == "ready"
    watch.check()  # a CSP violation is reported as a console error


def test_sandboxed_iframe(playwright, origin):
    body = (f'<iframe sandbox="allow-scripts" src="{origin}/"></iframe>'
            f'<iframe sandbox="allow-scripts allow-same-origin" src="{origin}/"></iframe>'
            f'<iframe sandbox="allow-same-origin" src="{origin}/"></iframe>')
    with parent_page(playwright, body) as page:
        state, status = frame_state(page, 0, ERROR_WITHIN_MS)
        assert state == "error" and "allow-same-origin" in status, status
        assert frame_state(page, 1)[0] == "ready"
        no_scripts = page.frame_locator("iframe").nth(2).locator("#no-scripts")  # no script may run at all
        no_scripts.wait_for(state="visible", timeout=ERROR_WITHIN_MS + 2_000)
        assert 'sandbox="allow-scripts allow-same-origin"' in no_scripts.text_content()


def test_parent_with_cross_origin_embedder_policy_require_corp(playwright, origin):
    body = f'<iframe src="{origin}/" width="800" height="420"></iframe>'
    with parent_page(playwright, body, {"Cross-Origin-Embedder-Policy": "require-corp"}) as page:
        assert frame_state(page, 0)[0] == "ready"


def test_two_figures_on_one_page(playwright, origin, figure):
    body = f'<iframe src="{origin}/"></iframe><iframe src="{origin}/"></iframe>'
    with parent_page(playwright, body) as page:
        assert [frame_state(page, i)[0] for i in (0, 1)] == ["ready", "ready"]
        frame = page.frames[1]
        same_api = frame.evaluate("""async () => {
            const api = window.attentionLive;
            await import(document.querySelector('script[type=module]').src + '?second-start');  // page.js started a second time
            return window.attentionLive === api;
        }""")
        assert same_api and frame.locator("#layers input[type=radio]").count() == figure.config.n_layer
        second = FigurePage(frame)
        second.set_text("Alice said")
        assert len(second.state()["tokens"]) == len(figure.analyse("Alice said")["ids"])


@pytest.mark.parametrize("damage, file, named", [
    ("delete", "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.tar", "numpy"),
    ("flip a byte", "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.tar", "numpy"),
    ("truncate", "weights/model.safetensors", "model.safetensors is damaged"),
    ("flip a byte", "weights/model.safetensors", "model.safetensors is damaged"),
    ("flip a byte", "pyodide/pyodide.asm.wasm", "pyodide.asm.wasm"),
    ("delete", "weights/tokenizer.json", "weights/tokenizer.json could not be downloaded (HTTP 404)"),
    ("flip a byte", "pyodide/python_stdlib.zip", "pyodide/python_stdlib.zip is damaged"),
    ("truncate", "pyodide/python_stdlib.zip", "pyodide/python_stdlib.zip is damaged"),
    ("delete", "pyodide/pyodide-lock.json", "pyodide/pyodide-lock.json could not be downloaded (HTTP 404)"),
    ("truncate", "build.json", "build.json is damaged"),
    ("truncate", "worker.js", "could not start worker.js"),
    ("delete", "page.js", "page.js could not be downloaded (HTTP 404)"),
    ("delete", "chunk-*.js", "{chunk} could not be downloaded (HTTP 404)"),  # the modules page.js imports, bundled
    ("truncate", "chunk-*.js", "{chunk} is damaged"),
])
def test_a_file_missing_or_damaged(playwright, tmp_path, damage, file, named):
    site = tmp_path / "site"
    shutil.copytree(build.DIST, site)
    (path,) = build.build_folder(site).glob(file)
    named = named.format(chunk=path.name)
    drop_compressed_copies(path)  # the server sends the damaged file, not an intact copy of it
    data = bytearray(path.read_bytes())
    if damage == "delete":
        path.unlink()
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    else:
        data[len(data) // 2] ^= 0x40
        path.write_bytes(bytes(data))
    state, status = load_site(playwright, site)
    assert state == "error" and named in status, status
    assert "Traceback" not in status and "\n" not in status


@pytest.mark.parametrize("mime_types, state, named", [
    ({".wasm": "application/octet-stream"}, "ready", []),
    ({".js": "text/plain", ".mjs": "text/plain"}, "error", ["page.js", "text/plain", "text/javascript"]),
])
def test_wrong_mime_types(playwright, mime_types, state, named):
    result, status = load_site(playwright, build.DIST, mime_types, timeout=WAIT_MS if state == "ready" else ERROR_WITHIN_MS)
    assert result == state and all(word in status for word in named), status


def test_wrong_mime_types_with_nosniff(playwright):
    """With X-Content-Type-Options: nosniff no script runs at all; the page's own HTML and CSS still say why."""
    headers = {"X-Content-Type-Options": "nosniff"}
    with serving(build.make_server(0, mime_types={".js": "text/plain"}, headers=headers)) as url, \
            browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/")
        page.locator("#no-scripts").wait_for(state="visible", timeout=ERROR_WITHIN_MS + 2_000)
        assert "text/javascript" in page.locator("#no-scripts").text_content()
    with serving(build.make_server(0)) as url, browser_context(playwright) as context:
        figure_page = FigurePage(context.new_page())
        figure_page.open(url + "/")
        assert not figure_page.page.locator("#no-scripts").is_visible()


class CutFirstResponse(build.StaticHandler):
    """Serves dist/, but the first response for the path ``cut`` stops halfway, as a dropped connection
    would; or, with ``stall`` set, sends half and then nothing until ``stall`` (a threading.Event) is set."""

    cut, stall, done = "", None, False

    def do_GET(self):
        if self.path == f"/{build.build_folder().name}/{self.cut}" and not type(self).done:
            type(self).done = True
            data = (build.build_folder() / self.cut).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            if self.stall:
                self.stall.wait(timeout=600)
            self.close_connection = True
            return
        super().do_GET()


@pytest.mark.parametrize("cut, stall", [
    ("pyodide/pyodide.asm.wasm", False), ("weights/model.safetensors", False), ("build.json", False),
    ("pyodide/python_stdlib.zip", True), ("pyodide/pyodide.asm.js", True),  # checked fetch; importScripts
])
def test_a_failed_download(playwright, cut, stall):
    release = threading.Event()
    handler = type("Handler", (CutFirstResponse,), {"cut": cut, "stall": release if stall else None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(build.DIST)))
    watch = Watch()
    try:
        with serving(server) as url, browser_context(playwright) as context:
            page = watch.page(context.new_page())
            page.goto(url + "/")
            page.wait_for_selector("html[data-state='error']", state="attached", timeout=WAIT_MS)
            status = page.locator("#status").text_content()
            assert cut in status and (not stall or re.search(r"(no data arrived on any download|nothing arrived) for \d+ s", status)), status
            page.locator("#text").press_sequentially("ab")  # typing while in the error state is harmless
            page.evaluate("window.beforeRetry = true")  # gone if the page reloads
            page.locator("#retry").click()
            page.wait_for_selector("html[data-state='ready']", state="attached", timeout=WAIT_MS)
            assert page.evaluate("window.attentionLive.ready.then(() => window.beforeRetry)") is True
            assert not page.locator("#retry").is_visible()
    finally:
        release.set()
    page_errors = [e for e in watch.errors if e.startswith("page error")]  # the failed download itself is a console error
    assert not page_errors, page_errors


@pytest.fixture(scope="module")
def deployments(tmp_path_factory):
    """Two builds of the figure, (A, B): B's page script and one Python module differ from A's (its
    labels show a space as "·" instead of "␣"); returns their dist folders."""
    a = run_build(copy_sources(tmp_path_factory.mktemp("deploy") / "a"))
    sources_b = copy_sources(tmp_path_factory.mktemp("deploy") / "b")
    app = sources_b / "web" / "page" / "page.js"
    app.write_text(app.read_text(encoding="utf-8") + 'export const deployment = "B";\n', encoding="utf-8")  # the bundle keeps no comment
    labels = sources_b / "py" / "attention_live" / "labels.py"
    labels.write_text(labels.read_text(encoding="utf-8").replace('{" ": "\\u2423"', '{" ": "\\u00b7"'), encoding="utf-8")
    return a, run_build(sources_b)


def shows_build(figure_page, folder, space):
    """The page runs the build in ``folder`` end to end: state().build, the worker's script, and the
    Python package's labels (a space shown as ``space``)."""
    state = figure_page.state()
    worker_folders = {url.split("/")[-2] for kind, url in worker_targets(figure_page.page.context.browser) if url.endswith("/worker.js")}
    assert state["build"] == folder.name and folder.name in worker_folders, worker_folders  # the old one may not have ended yet
    assert any(label.startswith(space) for label in state["tokens"]), state["tokens"]


def test_a_new_deployment_never_mixes_with_the_old_one(playwright, tmp_path, deployments):
    """Build A is visited until its service worker controls the page; dist/ is replaced by build B;
    one reload runs B's page, worker, Python package and model, and offline after that, B again."""
    a, b = (build.build_folder(dist) for dist in deployments)
    site = tmp_path / "site"
    shutil.copytree(deployments[0], site)
    with browser_context(playwright) as context:
        requests = []
        context.on("request", lambda request: requests.append(request.url))
        with serving(build.make_server(0, site)) as url:
            figure_page = FigurePage(context.new_page())
            figure_page.open(url + "/")
            figure_page.page.wait_for_selector("html[data-offline='ready']", state="attached", timeout=WAIT_MS)
            assert figure_page.page.evaluate("navigator.serviceWorker.controller !== null")
            shows_build(figure_page, a, "\u2423")
            shutil.rmtree(site)
            shutil.copytree(deployments[1], site)
            del requests[:]
            figure_page.page.reload()
            assert figure_page.settled() == "ready", (figure_page.status(), requests)
            shows_build(figure_page, b, "\u00b7")
            assert f"{url}/{b.name}/weights/model.safetensors" in requests
            assert not [r for r in requests if f"/{a.name}/" in r], "a file of build A was requested after the deployment"
            figure_page.page.wait_for_selector("html[data-offline='ready']", state="attached", timeout=WAIT_MS)
        context.set_offline(True)  # and the server is gone
        figure_page.page.reload()
        assert figure_page.settled() == "ready", figure_page.status()
        shows_build(figure_page, b, "\u00b7")
        assert figure_page.page.evaluate("caches.keys()") == [f"attention-live {url}/ {b.name}"]


def test_offline_after_a_first_visit(playwright, figure):
    with browser_context(playwright) as context:
        with serving(build.make_server(0)) as url:
            figure_page = FigurePage(context.new_page())
            figure_page.open(url + "/")
            figure_page.page.wait_for_selector("html[data-offline='ready']", state="attached", timeout=WAIT_MS)
        context.set_offline(True)  # and the server is gone
        figure_page.page.reload()
        assert figure_page.settled() == "ready", figure_page.status()
        figure_page.set_text("Alice was offline")
        check_view(figure_page, figure)
        other = context.new_page()  # another page of the site is not the figure's to answer
        with contextlib.suppress(PlaywrightError):
            other.goto(url + "/notes.html")
        assert other.locator("#text").count() == 0
    with browser_context(playwright, service_workers="block") as context:  # where no service worker can run
        with serving(build.make_server(0)) as url:
            figure_page = FigurePage(context.new_page())
            figure_page.open(url + "/")
            figure_page.page.wait_for_selector("html[data-offline]", state="attached")
            assert figure_page.page.evaluate("document.documentElement.dataset.offline") == "unavailable"
            check_view(figure_page, figure)


# Long use

def test_typing_fast(browser_page, figure):
    figure_page = browser_page
    text = ("Alice said to the Queen, \"I only wanted to see what the garden was like.\"\n" * 14)[:1000]
    box = figure_page.page.locator("#text")
    figure_page.set_text("")
    box.press_sequentially(text)  # 1,000 key presses, no pause between them
    figure_page.wait_for(text=text)
    assert box.input_value() == text  # no keystroke lost
    check_view(figure_page, figure)  # the last text's numbers
    figure_page.answers_the_next_event()  # and the page answers the next event (its longest task while typing: bench/long_tasks.py)


def test_memory(playwright, origin):
    watch = Watch(origin)
    with browser_context(playwright, MEMORY_ARGS) as context:
        page = watch.page(watch.context(context).new_page())
        figure_page = FigurePage(page)
        figure_page.open(origin + "/")
        growth = memory_growth_mb(figure_page)
        print(f"JS heap + wasm memory growth from update 100 to 1,000: {growth:.2f} MB")
        assert growth <= 10.0
        assert page.evaluate("document.documentElement.dataset.state") == "ready"
    watch.check()


def test_numbers(browser_page, figure):
    figure_page = browser_page
    state = shows(figure_page, figure, "A")
    assert state["weights"] == [1.0]  # T = 1
    text = "The Queen said, \"Off with her head!\" and Alice said nothing."
    first = shows(figure_page, figure, text)
    weights = np.asarray(first["weights"])
    assert np.all(np.isfinite(weights)) and abs(weights.sum() - 1.0) <= 1e-5
    assert shows(figure_page, figure, text)["weights"] == first["weights"]  # the same text twice: the same numbers
