"""The figure in every engine readers use (issue 25): Chromium, Firefox and WebKitGTK (Safari's engine),
each driven as ``tests/engines.py`` says. In each: the figure goes live; ``state()``'s ids and attention
equal CPython's for hostile texts too; typing updates the chips; every panel opens and draws, the matrix
canvas's cells ordered like the weights; a link restores its view; ``exportImage`` gives a well-formed
SVG and a PNG; axe-core finds no WCAG 2.1 A/AA violation; the page works offline after a visit; two
figures on a course page share one Python.

``ATTENTION_LIVE_ENGINES=firefox`` (or ``-k firefox``) runs one engine. The rest of the suite drives
Chromium alone, through Playwright and CDP; what only CDP can measure stays there.
"""

import base64
import struct
import urllib.parse
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import build
from support import engines
from support.figure_page import EXPORTED_IMAGE, TOLERANCE, above, course_site, other_than, serving, starts_with
from support.axe import WCAG_TAGS

TEXTS = {
    "markup": '<b>bold</b> &amp; <script>alert("hi")</script> <img src=x onerror=alert(1)>',
    "emoji": "Alice 👍🏽 met the 👨‍👩‍👧 family 🇬🇧 ok",
    "line break": "first line\nsecond line\r\nthird",
    "lone surrogate": "before \ud800 after",  # becomes U+FFFD in the box and the figure, in every engine tested
}


@pytest.fixture(scope="module", params=engines.wanted_engines())
def engine(request, playwright):
    try:
        running = engines.start(request.param, playwright)
    except engines.EngineMissing as e:
        pytest.fail(str(e))
    yield running
    running.quit()


@pytest.fixture
def page(engine):
    """A fresh page of ``engine`` (its own profile or context); fails on any problem it reported."""
    opened = engine.new_page()
    yield opened
    problems = opened.problems()
    opened.close()
    assert problems == [], problems


@pytest.fixture(scope="module")
def live(engine, origin):
    """One live page of the figure per engine, shared by the tests that only read and type."""
    opened = engine.new_page()
    assert opened.open(origin + "/") == "ready", opened.evaluate("() => document.getElementById('status').textContent")
    yield opened
    problems = opened.problems()
    opened.close()
    assert problems == [], problems


def check_numbers(page, figure, text=None):
    """state() on screen equals CPython's figure for the text shown: ids, labels and the whole matrix of the
    selected head (within TOLERANCE, the tab's float32 numpy against CPython's); returns the state."""
    shown = page.state()
    result = figure.analyse(shown["text"] if text is None else text)
    assert shown["ids"] == result["ids"] and shown["tokens"] == result["labels"]
    matrix = result["attention"][shown["layer"] - 1, shown["head"] - 1]
    assert float(np.max(np.abs(np.array(shown["matrix"]) - matrix))) <= TOLERANCE
    return shown


def test_live_with_cpythons_numbers(live, figure):
    assert check_numbers(live, figure)["text"].startswith("Then the Queen turned to Alice")
    for name, text in TEXTS.items():
        live.set_text(text)
        expected = text.replace("\ud800", "\ufffd").replace("\r\n", "\n")  # the text box's rules (docs/api.md)
        assert live.state()["text"] == expected, name
        check_numbers(live, figure, expected)
        assert live.evaluate("() => document.querySelectorAll('#tokens .chip').length") == len(figure.analyse(expected)["ids"])


def test_typing_updates_the_chips(live, figure):
    live.set_text("")
    live.click("#text")
    live.type("#text", "Alice said hi")
    live.wait_for_chips(above(0), text="Alice said hi")
    live.wait_for_chips(len(figure.analyse("Alice said hi")["ids"]), weighted=True)
    labels = live.evaluate("() => Array.from(document.querySelectorAll('#tokens .chip .label'), (e) => e.textContent)")
    assert labels == figure.analyse("Alice said hi")["labels"]
    check_numbers(live, figure)


PANEL_DRAWN = {  # each panel's numbers on screen (a wait), for a text of T tokens
    "heads": lambda page, T: page.wait_for_element("#heads-grid button", count=8),
    "matrix": lambda page, T: page.wait_for_element("#matrix", attributes={"data-rows": str(T)}),
    "math": lambda page, T: page.wait_for_panel("math", rows=T),
    "next": lambda page, T: page.wait_for_panel("next", rows=5),
}


def test_every_panel_opens_and_draws(live, figure):
    text = "Then the Queen turned to Alice and said, nothing at all"
    live.set_text(text)
    live.wait_for(text=text)
    T = len(figure.tokenizer.encode(text))
    # one after the other, each drawn before the next summary is clicked: a panel's numbers arrive
    # after it opens and push the summaries below it down, where a click already on its way would miss
    for panel, drawn in PANEL_DRAWN.items():
        live.click(f"#{panel}-panel > summary")
        live.wait_for(panels={panel: True})
        drawn(live, T)
    # the matrix canvas: one pixel per cell, darker where the weight is larger (the colour scale is monotonic)
    shown = live.state()
    row = live.evaluate("""q => { const c = document.getElementById('matrix'); const T = c.width;
        const data = c.getContext('2d').getImageData(0, q, T, 1).data;
        return Array.from({ length: T }, (_, j) => 0.2126 * data[4 * j] + 0.7152 * data[4 * j + 1] + 0.0722 * data[4 * j + 2]); }""", shown["token"])
    weights = shown["weights"]
    pairs = [(i, j) for i in range(shown["token"] + 1) for j in range(shown["token"] + 1) if weights[i] > weights[j] + 0.05]
    assert pairs and all(row[i] < row[j] for i, j in pairs), "the matrix's cells are not ordered like the weights"
    for panel in ("heads", "matrix", "math", "next"):
        live.click(f"#{panel}-panel > summary")
        live.wait_for(panels={panel: False})


def test_a_link_restores_its_view(page, origin, figure):
    text = "Alice said hello to the Queen"
    assert page.open(f"{origin}/#text={urllib.parse.quote(text)}&layer=1&head=2&token=3&panels=matrix") == "ready"
    page.wait_for(text=text)
    shown = check_numbers(page, figure)
    assert (shown["layer"], shown["head"], shown["token"], shown["panels"]["matrix"]) == (1, 2, 2, True)  # the link's token is 1-based


def test_export_gives_a_well_formed_svg_and_png(live):
    for fmt in ("svg", "png"):
        exported = live.evaluate(EXPORTED_IMAGE, fmt)
        data = base64.b64decode(exported["base64"])
        assert exported["name"].endswith(f".{fmt}")
        if fmt == "svg":
            assert exported["type"] == "image/svg+xml" and ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"
        else:
            assert exported["type"] == "image/png" and data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
            width, height = struct.unpack(">II", data[16:24])
            assert width > 100 and height > 100


def test_axe_finds_no_wcag_violation(live, axe_source):  # noqa: F811 (the fixture)
    live.set_text("Then the Queen turned to Alice and said")
    live.click("#math-panel > summary")
    live.wait_for_panel("math")
    live.wait_for_element("[aria-busy='true']", count=0)  # settled, as test_accessibility.violations
    if not live.evaluate("() => typeof window.axe === 'object'"):
        live.evaluate("() => {" + axe_source + "\n; return true; }")
    found = live.evaluate("""tags => axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
        .then((r) => r.violations.map((v) => [v.id, v.nodes.map((n) => n.target.join(' '))]))""", WCAG_TAGS)
    live.click("#math-panel > summary")
    assert found == []


def test_offline_after_a_visit(page, tmp_path):
    """The build stored by its service worker on a first visit; then the host goes away and the page,
    reloaded, is live from the offline copy. Every engine tested allows a service worker here (a page
    of http://127.0.0.1, which browsers treat as a secure context)."""
    server = build.make_server(0)
    with serving(server) as origin:
        assert page.open(origin + "/") == "ready"
        page.wait_for_element(":root[data-offline]", count=1)
        assert page.evaluate("() => document.documentElement.dataset.offline") == "ready"
    page.reload()  # the server is gone: everything comes from the offline copy
    page.wait_for_state(other_than("loading"))
    state, status = page.evaluate("() => [document.documentElement.dataset.state, document.querySelector('#status').textContent]")
    assert state == "ready", status


def test_two_figures_share_one_python(page, tmp_path):
    body = ('<attention-live text="Alice said hello" layer="2" head="3" token="2"></attention-live>'
            '<attention-live text="The Queen turned" layer="1" head="1" token="1"></attention-live>')
    with course_site(tmp_path, {"unit.html": body}) as origin:
        page.goto(origin + "/unit.html")
        page.wait_until("() => Array.from(document.querySelectorAll('attention-live'), (e) => e.dataset.state).every((s) => s === 'ready')")
        runtimes = page.evaluate("() => Array.from(document.querySelectorAll('attention-live'), (e) => e.state().runtime)")
    assert len(runtimes) == 2 and runtimes[0]["id"] == runtimes[1]["id"] and runtimes[0]["kind"] == "shared" and runtimes[0]["figures"] == 2


def test_a_buttons_answer_stays_until_the_view_changes(page, origin):
    """Found in WebKit: "Copy link" clicked while a knockout's numbers were on their way said "Link
    copied", and the numbers, arriving 100 ms later, wiped it from the status line. The answer now stays
    while the text and the view are the ones it answered, whatever result arrives for them."""
    assert page.open(origin + "/") == "ready"
    page.click("#next-panel > summary")
    page.wait_for_panel("next", rows=5)
    page.click(".knockouts button[data-layer='2'][data-head='3']")  # its numbers are computed now
    page.click("#copy-link")  # "Link copied", or where the clipboard is refused the box with the link selected
    status = "() => document.getElementById('status').textContent"
    page.wait_for_status(other_than(starts_with("Query")))
    said = page.evaluate(status)
    assert said.startswith(("Link copied", "The browser did not allow copying"))
    page.set_text(page.state()["text"])  # resolves once a result for this very view is shown
    assert page.state()["knockout"] == [{"layer": 2, "head": 3}] and page.evaluate(status) == said
    page.select(token=3)  # another view: the status line describes it
    assert page.evaluate(status).startswith("Query «␣turned» (token 4 of 16)")
