"""The figure on a slide (issue 53, part 1): a real reveal.js deck (reveal.js 6.0.2, pinned in
tests/reveal-deck/, installed by build.py into .cache/reveal-deck/; Quarto's revealjs format is built on
it) with the <attention-live> element on slide 2, in Chromium. reveal.js reads every key on its page
and lets one through only when document.activeElement is a text field, which, for a text box inside a
shadow root, it is not: keys typed into the figure must stay in it, the deck must move on keys outside it,
clicks must land on the chip under the pointer at the deck's scale, swipes on the figure must not change
slides, and the figure must fit a 960 × 700 slide with its panels closed. The same keys on a real MkDocs
Material site (test_theme_sites.py's) must not reach Material's shortcuts. test_classrooms.py's
test_a_slide_deck checks the kind whole in a Quarto-sized deck at another scale.
"""

import contextlib
import json

import pytest

import build
from support.figure_page import WAIT_MS, FigurePage, Watch, above, browser_context, serving
from test_theme_sites import dist, mkdocs_site  # noqa: F401 (fixtures: dist/, and the real MkDocs Material site)
from test_theme_sites import wait_live

REVEAL = build.CACHE / "reveal-deck" / "node_modules" / "reveal.js"
# Every letter reveal.js binds (h j k l: left down up right; n p: next, previous; f: fullscreen; o: overview;
# b and ".": pause; g: jump to a slide), space (next), and "?" (Shift+/: its help)
SENTENCE = "Bob the knight jumped off a pig, laughing; no fog. Why?"
DECK = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unit 3: attention</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="reveal/dist/reveal.css"><link rel="stylesheet" href="reveal/dist/theme/white.css">
<script type="module" src="attention-live/attention-live.js"></script></head>
<body><div class="reveal"><div class="slides">
<section><h2>Unit 3: attention</h2><p>How each token of a sentence looks back at the earlier ones.</p></section>
<section><h3 id="slide-title">Try it</h3>FIGURE</section>
<section><h2>Exercises</h2><p>Which token does «said» attend to most?</p></section>
</div></div>
<textarea id="reference" aria-label="reference"></textarea>
<script src="reveal/dist/reveal.js"></script>
<script>Reveal.initialize(CONFIG);</script></body></html>"""  # reference: a plain text box beside the deck, for what typing gives
REVEAL_DEFAULTS = {"hash": False, "transition": "none"}  # 960 × 700 slides, reveal.js's own default size
SCALE_0_6 = {"width": 1000, "height": 437}  # reveal.js's scale: min(1000 / (960 × 1.04), 437 / (700 × 1.04)) = 0.60
# Each key event that reached the page's document (its bubbling phase, where reveal.js listens), recorded
SPY = "() => { window.keysSeen = []; document.addEventListener('keydown', (e) => keysSeen.push(e.key)); }"
# What the deck shows: its slide, fullscreen, overview, pause, its jump-to-slide box, and where the focus is
DECK_STATE = """() => ({ indices: [Reveal.getIndices().h, Reveal.getIndices().v], fullscreen: document.fullscreenElement !== null,
    overview: Reveal.isOverview(), paused: Reveal.isPaused(), help: document.querySelector('.reveal .r-overlay-help') !== null,
    jump: [...document.querySelectorAll('.reveal .jump-to-slide')].some((e) => e.isConnected && e.getClientRects().length > 0),
    focus: document.activeElement.tagName.toLowerCase() + '#' + (document.activeElement.shadowRoot?.activeElement?.id ?? document.activeElement.id) })"""
ON_SLIDE_2 = {"indices": [1, 0], "fullscreen": False, "overview": False, "paused": False, "help": False, "jump": False}
# The figure's box, the slide's (.slides: 960 × 700, scaled) and each part of the figure that scrolls (or
# could) with more content than room; every rectangle in the viewport's pixels, as scaled
FIT = """(el) => {
    const rect = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
    const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + [...e.classList].map((c) => '.' + c).join('');
    const scrolls = [el, ...el.shadowRoot.querySelectorAll('*')].filter((e) => {  // shown, with a scroll bar (auto, scroll) and more than its room
        const s = getComputedStyle(e), bar = ['auto', 'scroll'];
        return e.getClientRects().length > 0 && ((e.scrollHeight > e.clientHeight + 1 && bar.includes(s.overflowY))
            || (e.scrollWidth > e.clientWidth + 1 && bar.includes(s.overflowX)));
    }).map(name);
    const parts = [...el.shadowRoot.querySelectorAll('.figure > *')].filter((e) => e.getClientRects().length > 0);
    return {figure: rect(el), slides: rect(document.querySelector('.reveal .slides')), scale: Reveal.getScale(), scrolls,
            lowest: Math.max(...parts.map((e) => e.getBoundingClientRect().bottom)),
            summaries: [...el.shadowRoot.querySelectorAll('details.panel:not([hidden]) > summary')].map((s) => s.getClientRects().length > 0)};
}"""


def deck_site(folder, figure_html='<attention-live></attention-live>', config=None):
    """A static site in ``folder``: deck.html (DECK with ``figure_html`` on slide 2 and reveal.js's
    ``config``, with REVEAL_DEFAULTS), dist/ as attention-live/, and the pinned reveal.js as reveal/."""
    assert (REVEAL / "dist" / "reveal.js").is_file(), f"reveal.js is not installed at {REVEAL}: run python3 build.py test (npm ci of tests/reveal-deck/)"
    (folder / "attention-live").symlink_to(build.DIST, target_is_directory=True)
    (folder / "reveal").symlink_to(REVEAL, target_is_directory=True)
    page = DECK.replace("FIGURE", figure_html).replace("CONFIG", json.dumps({**REVEAL_DEFAULTS, **(config or {})}))
    (folder / "deck.html").write_text(page, encoding="utf-8")
    return build.make_server(0, folder)


@pytest.fixture(scope="module")
def deck(tmp_path_factory, dist):  # noqa: F811 (the fixture imported above)
    """The origin of a site with the deck (deck_site), served for the module."""
    with serving(deck_site(tmp_path_factory.mktemp("deck"))) as url:
        yield url


@contextlib.contextmanager
def deck_tab(playwright, url, viewport=None, **options):
    """A fresh Chromium on the deck at ``url``/deck.html (``viewport``: SCALE_0_6 by default), moved to
    slide 2 by reveal.js's API, its figure live and its chips drawn; yields (page, FigurePage). At the
    end: no page error, no console error, no request off the site."""
    watch = Watch(url)
    with browser_context(playwright, viewport=viewport or SCALE_0_6, **options) as context:
        page = watch.page(watch.context(context).new_page())
        page.goto(url + "/deck.html")
        page.wait_for_function("() => window.Reveal?.isReady() && customElements.get('attention-live') !== undefined", timeout=WAIT_MS)
        page.evaluate("() => Reveal.slide(1)")
        figure = FigurePage(page, "attention-live")
        figure.ready()
        figure.wait_for_chips(above(0), weighted=True)
        assert page.evaluate(DECK_STATE)["indices"] == [1, 0]
        yield page, figure
    watch.check()


def type_keys(page, keys):
    """Press ``keys`` one by one into whatever has the focus: a key name ("ArrowLeft") or a text, typed
    character by character (keyboard.type: keydown, keypress, input, keyup for each)."""
    for key in keys:
        if key in ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"):
            page.keyboard.press(key)
        else:
            page.keyboard.type(key)


# SENTENCE typed with arrow keys on the way that leave the caret where it was (left then right),
# and the four arrows at the end (where the caret goes then changes no text)
KEYS = ["Bob the knight ", "ArrowLeft", "ArrowLeft", "ArrowRight", "ArrowRight", "jumped off a pig, ", "ArrowLeft", "ArrowRight",
        "laughing; no fog. Why?", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]


def check_keys_stay(page, figure):
    """SENTENCE and the arrows typed into the figure's box (emptied first) leave the deck on slide 2, not
    fullscreen, not in overview, not paused, with no help or jump-to-slide box, the focus still in the
    box, and no key reaching the page's document; the figure has exactly the text typed, as a plain text
    box beside the deck has it from the same keys. Then the chips' own arrow keys and the layer
    choice's still work, and stay in the figure too."""
    assert "".join(key for key in KEYS if not key.startswith("Arrow")) == SENTENCE
    page.evaluate(SPY)
    figure.locator("#text").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    type_keys(page, KEYS)
    assert page.evaluate(DECK_STATE) == {**ON_SLIDE_2, "focus": "attention-live#text"}
    assert page.evaluate("keysSeen") == []
    figure.wait_for(text=SENTENCE)
    assert figure.locator("#text").input_value() == SENTENCE
    page.evaluate("() => document.getElementById('reference').focus()")
    type_keys(page, KEYS)
    assert page.locator("#reference").input_value() == SENTENCE  # the browser's own text box, from the same keys
    page.evaluate("() => { document.getElementById('reference').blur(); keysSeen.length = 0; }")
    figure.wait_for_chips(above(0), weighted=True, text=SENTENCE)
    figure.click_token(2)
    for key, token in (("ArrowRight", 3), ("ArrowRight", 4), ("ArrowLeft", 3), ("End", len(figure.state()["ids"]) - 1), ("Home", 0)):
        page.keyboard.press(key)
        figure.wait_for(token=token)
    figure.locator("#layers label[data-value='1']").click()
    figure.wait_for(layer=1)
    page.keyboard.press("ArrowRight")  # the radio group's own key: layer 2
    figure.wait_for(layer=2)
    assert page.evaluate(DECK_STATE) == {**ON_SLIDE_2, "focus": page.evaluate(DECK_STATE)["focus"]}
    assert page.evaluate("keysSeen") == []


def check_keys_outside_drive_the_deck(page):
    """With the focus on the page's body, ArrowRight goes to slide 3 and "p" back to slide 2: the deck
    still reads the keys typed outside the figure."""
    page.evaluate("() => { document.activeElement.blur(); document.body.focus(); }")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(DECK_STATE)["indices"] == [2, 0]
    page.keyboard.press("p")
    assert page.evaluate(DECK_STATE)["indices"] == [1, 0]


def swipe(page, x, y, dx):
    """A one-finger horizontal swipe by ``dx`` CSS px from (x, y), as a touch screen sends it (CDP's
    Input.dispatchTouchEvent: touch and pointer events, pointerType "touch", which reveal.js reads)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for step in range(1, 11):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x + dx * step / 10, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
    page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")  # reveal.js's handlers have run


def centre(locator):
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def check_swipes(page, figure):
    """Swipes to the left and to the right on the figure (its chips, its status line, its text box)
    leave the deck on slide 2; the same swipe on the slide's title, outside the figure, goes to slide 3
    (reveal.js does read these swipes), and back."""
    for part in (".chip[data-index='1']", "#status", "#text"):
        x, y = centre(figure.locator(part))
        for dx in (-200, 200):
            swipe(page, x, y, dx)
            assert page.evaluate(DECK_STATE)["indices"] == [1, 0], f"a swipe by {dx} px on the figure's {part} changed the slide"
    x, y = centre(page.locator("#slide-title"))
    swipe(page, x, y, -200)
    assert page.evaluate(DECK_STATE)["indices"] == [2, 0]
    page.evaluate("() => Reveal.slide(1)")


def check_chip_clicks(page, figure, chips=(1, 5, 9)):
    """A click at the centre of each chip of ``chips``, as the deck has scaled it, selects that chip's
    token; so does a click near its corner (3 px in from its top left, as scaled)."""
    for index in chips:
        chip = figure.locator(f".chip[data-index='{index}']")
        x, y = centre(chip)
        page.mouse.click(x, y)
        figure.wait_for(token=index)
        figure.click_token(0)
        box = chip.bounding_box()
        page.mouse.click(box["x"] + 3, box["y"] + 3)
        figure.wait_for(token=index)


def test_keys_typed_into_the_figure_stay_in_it(playwright, deck):
    with deck_tab(playwright, deck) as (page, figure):
        check_keys_stay(page, figure)
        check_keys_outside_drive_the_deck(page)


def test_swipes_on_the_figure_do_not_change_the_slide(playwright, deck):
    with deck_tab(playwright, deck, has_touch=True) as (page, figure):
        assert page.evaluate("() => document.querySelector('attention-live').hasAttribute('data-prevent-swipe')")
        check_swipes(page, figure)


def test_chip_clicks_land_under_the_deck_s_scale(playwright, deck):
    with deck_tab(playwright, deck) as (page, figure):
        scale = page.evaluate("() => Reveal.getScale()")
        assert 0.55 <= scale <= 0.65, scale
        check_chip_clicks(page, figure)


def check_fits(page, figure):
    """The figure, its panels closed, lies within the slide (.slides, 960 × 700 as scaled), all of its
    parts too, and nothing in it scrolls: no scroll bar of its own. Returns what FIT measured."""
    assert not any(figure.state()["panels"].values())
    fit = page.locator("attention-live").evaluate(FIT)
    figure_box, slide = fit["figure"], fit["slides"]
    assert slide["top"] - 1 <= figure_box["top"] and figure_box["bottom"] <= slide["bottom"] + 1, fit
    assert fit["lowest"] <= slide["bottom"] + 1, fit
    assert slide["left"] - 1 <= figure_box["left"] and figure_box["right"] <= slide["right"] + 1, fit
    assert fit["scrolls"] == [], fit
    assert fit["summaries"] and all(fit["summaries"]), fit  # the panels' titles are there to open
    return fit


def test_the_figure_fits_a_slide(playwright, deck):
    """At the deck's scale of 0.6 and at 1 (a 1000 × 750 window: 960 × 700 and its 4% margin), below
    the slide's title."""
    with deck_tab(playwright, deck) as (page, figure):
        check_fits(page, figure)
        page.set_viewport_size({"width": 1000, "height": 750})
        page.wait_for_function("() => Reveal.getScale() === 1", timeout=WAIT_MS)
        check_fits(page, figure)


# MkDocs Material's keys: f, s and / open its search, n and . go to the next page, p and , to the previous
MATERIAL_KEYS = "f s / n . p , and the rest"
MATERIAL_STATE = """() => ({ path: location.pathname, search: document.querySelector('[data-md-toggle="search"]')?.checked,
    heading: document.querySelector('article h1')?.textContent })"""


def test_material_s_keys_stay_out_of_the_figure(playwright, mkdocs_site):  # noqa: F811 (the fixture imported above)
    """On a real MkDocs Material site (instant navigation on), the letters of Material's shortcuts typed
    into the figure arrive in it and neither open the site's search nor change the page; typed with the
    focus on the page's body, "n" does go to the next page (Material reads them there)."""
    watch = Watch(mkdocs_site.url)
    with browser_context(playwright, viewport={"width": 1280, "height": 900}) as context:
        page = watch.page(watch.context(context).new_page())
        page.goto(mkdocs_site.url + mkdocs_site.figure_path)
        wait_live(page)
        figure = FigurePage(page, "attention-live")
        before = page.evaluate(MATERIAL_STATE)
        assert before["search"] is False and before["heading"].startswith("Unit 3")
        box = figure.locator("#text")
        box.click()
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.type(MATERIAL_KEYS)
        figure.wait_for(text=MATERIAL_KEYS)
        assert page.evaluate(MATERIAL_STATE) == before
        assert box.input_value() == MATERIAL_KEYS
        page.evaluate("() => { document.activeElement.blur(); document.body.focus(); }")
        page.keyboard.press("n")
        page.locator("article h1", has_text="Other page").wait_for(timeout=WAIT_MS)
    watch.check()
