"""Everyone can use it (issue 13): keyboard, screen readers, display preferences, small screens and
zoom, and the axe-core accessibility engine (Deque's, the npm package, pinned and fetched for the
tests only into .cache/, never into dist/) on the page in each of its states. Checked in headless
Chromium; numbers against CPython's Figure."""

import pytest

from support.axe import violations
from support.figure_page import WAIT_MS, FigurePage, Watch, above, check_view, ends_with, other_than

PANELS = ["heads", "matrix", "math", "next", "stack"]


@pytest.fixture(scope="module")
def browser(playwright):
    from support.figure_page import CHROMIUM, CHROMIUM_ARGS

    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def watched_page(browser, origin, **options):
    """A new context and page with ``options``; returns (page, watch): a figure_page.Watch of page
    errors, console errors and requests that left ``origin``."""
    watch = Watch(origin)
    page = watch.page(watch.context(browser.new_context(**options)).new_page())
    return page, watch


def open_figure(browser, origin, **options):
    """A new context and page on the figure, ready; returns (FigurePage, watch) (see watched_page)."""
    page, watch = watched_page(browser, origin, **options)
    figure_page = FigurePage(page)
    figure_page.open(origin + "/")
    return figure_page, watch


def open_panels(figure_page, names):
    for name in names:
        if name == "learn":  # "Watch it learn", on its first checkpoint (the random start)
            figure_page.page.locator("#learn-panel > summary").click()
            figure_page.page.locator("#learn-step").focus()
            figure_page.page.keyboard.press("Home")
            figure_page.wait_for(step=0)
            continue
        figure_page.open_panel(name)
    if "math" in names:  # with its part "Compute it as FlashAttention does" open too
        figure_page.wait_for_panel("math")
        figure_page.page.locator("#flash-part > summary").click()
        figure_page.wait_for_panel("flash")
    if "next" in names:
        figure_page.wait_for_panel("next")
    if "stack" in names:
        figure_page.wait_for_panel("stack")


# 5. axe-core in every state

def test_axe_on_the_first_paint_and_the_error(browser, origin, axe_source):
    page, watch = watched_page(browser, origin)
    held = []
    page.route("**/*.wasm", lambda route: held.append(route))  # Python never starts: the precomputed view stays
    page.goto(origin + "/")
    page.wait_for_selector(".chip[data-weight]", state="attached", timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.dataset.state") == "loading"
    assert violations(page, axe_source) == []
    page.context.close()
    watch.check()

    page, watch = watched_page(browser, origin)
    page.route("**/build.json", lambda route: route.fulfill(status=404, body="not here"))
    page.goto(origin + "/")
    page.wait_for_selector("html[data-state='error']", state="attached", timeout=WAIT_MS)
    assert violations(page, axe_source) == []
    page.context.close()
    assert [p for p in watch.problems if "404" not in p] == [], watch.problems  # the 404 itself is logged by the browser


@pytest.mark.parametrize("scheme, width, panels", [
    ("light", 1024, []), ("light", 1024, ["heads"]), ("light", 1024, ["matrix"]), ("light", 1024, ["math"]),
    ("light", 1024, ["next"]), ("dark", 1024, []), ("dark", 1024, PANELS), ("light", 390, PANELS),
    ("light", 1024, ["learn", "heads"]), ("dark", 390, ["learn", "heads"]),
])
def test_axe_on_the_live_figure(browser, origin, axe_source, scheme, width, panels):
    figure_page, watch = open_figure(browser, origin, color_scheme=scheme, viewport={"width": width, "height": 800})
    open_panels(figure_page, panels)
    assert violations(figure_page.page, axe_source) == []
    if "math" in panels:  # a what-if on: the banner, and a knocked-out head with the next token open
        figure_page.page.locator("#what-if-scale").click()
        if "next" in panels:
            figure_page.page.locator(".knockouts button[data-layer='1'][data-head='1']").click()
        figure_page.wait_for_element("#what-if", hidden=False)
        assert violations(figure_page.page, axe_source) == []
    figure_page.page.context.close()
    watch.check()


# 1. Keyboard

def focused(page):
    return page.evaluate("""() => { const e = document.activeElement;
        return { id: e.id, tag: e.tagName, index: e.dataset.index ?? null, name: e.name ?? null, value: e.value ?? null,
                 ring: getComputedStyle(e).outlineStyle !== 'none' || getComputedStyle(e).boxShadow !== 'none'
                       || (e.matches('input[type=radio]') && getComputedStyle(e.nextElementSibling).outlineStyle !== 'none') }; }""")


def test_every_control_in_order_by_keyboard(browser_page, figure):
    figure_page = browser_page
    page = figure_page.page
    figure_page.set_text("Alice said nothing to the Queen")
    figure_page.select(layer=2, head=3, token=5)
    page.locator("#text").focus()
    stops = []
    for _ in range(8):
        page.keyboard.press("Tab")
        stops.append(focused(page))
    assert [(s["name"], s["value"]) for s in stops[:2]] == [("layers", "2"), ("heads", "3")]  # radio groups: one stop each
    assert [s["id"] for s in stops[2:6]] == ["copy-link", "save-png", "save-svg", "tour-start"]  # tour-start: "Walk through" (docs/tour.md)
    assert stops[6]["index"] == "5"  # the chips: one stop, the query's
    assert stops[7]["id"] == "" and stops[7]["tag"] == "SUMMARY"  # then the first panel
    assert all(s["ring"] for s in stops), stops  # a visible focus ring on each
    # the chips: arrow keys move the query, and state().token follows
    page.keyboard.press("Shift+Tab")
    last = len(figure_page.state()["ids"]) - 1
    for key, token in [("ArrowLeft", 4), ("ArrowLeft", 3), ("ArrowRight", 4), ("Home", 0), ("ArrowLeft", 0), ("End", last), ("ArrowRight", last)]:
        page.keyboard.press(key)
        figure_page.wait_for(token=token)
        assert focused(page)["index"] == str(token)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")  # Enter (and Space) keep the focused chip as the query
    figure_page.wait_for(token=last - 1)
    check_view(figure_page, figure)
    # the radio groups: arrow keys choose the layer and the head
    page.locator("#heads input[value='3']").focus()
    page.keyboard.press("ArrowRight")
    figure_page.wait_for(head=4)
    page.keyboard.press("ArrowLeft")
    figure_page.wait_for(head=3)


def test_the_math_strips_read_out_by_keyboard(browser_page):
    figure_page = browser_page
    figure_page.open_panel("math")
    figure_page.wait_for_panel("math")
    explained = figure_page.api("explain")
    readout = figure_page.page.locator("#strip-readout")
    figure_page.page.locator("canvas[data-name='k']").focus()
    figure_page.page.keyboard.press("ArrowDown")
    figure_page.page.keyboard.press("ArrowRight")
    labels = figure_page.state()["tokens"]
    value = explained["k"][1][1]
    assert readout.text_content() == f"k of «{labels[1]}», component 2 of {explained['dk']}: {'−' if value < 0 else ''}{abs(value):.3f}"
    figure_page.open_panel("math", False)


def test_a_phone_with_touch_and_an_on_screen_keyboard(browser, origin):
    figure_page, watch = open_figure(browser, origin, viewport={"width": 390, "height": 740}, has_touch=True,
                                        is_mobile=True, device_scale_factor=2)
    page = figure_page.page
    page.locator("#text").tap()
    page.keyboard.press("End")
    page.keyboard.type(" and")
    figure_page.wait_for(text=ends_with(" and"))
    page.locator(".chip[data-index='2']").tap()  # one tap selects
    figure_page.wait_for(token=2)
    page.locator("#heads label[data-value='1']").tap()
    figure_page.wait_for(head=1)
    page.context.close()
    watch.check()


# 2. Screen readers

def test_chip_names_and_the_figure_heading(browser_page, figure):
    figure_page = browser_page
    figure_page.set_text("Alice said nothing to the Queen")
    figure_page.select(layer=2, head=3, token=3)
    state = check_view(figure_page, figure)
    T = len(state["ids"])
    attention = figure.analyse(state["text"])["attention"]
    expected = lambda query: [f"«{label}» {attention[1, 2, query, j] * 100:.1f}%, token {j + 1} of {T}" if j <= query  # noqa: E731
                              else f"«{label}», token {j + 1} of {T}, masked (a later token)" for j, label in enumerate(state["tokens"])]
    # chosen by the API, the focus in none of them: the names come once the reader pauses
    figure_page.wait_for_element("#tokens", attributes={"aria-busy": "false"})
    names = figure_page.page.eval_on_selector_all(".chip", "chips => chips.map(c => c.getAttribute('aria-label'))")
    assert names == expected(3)
    # the focus on a chip: the names change with the weights, in the same task (noted when the new
    # query's aria-pressed changes), since a screen reader reads the focused chip's name
    figure_page.page.evaluate("""() => {
        window.namesWhenPressed = null;
        const chips = document.getElementById('tokens');
        new MutationObserver((_, observer) => {
            window.namesWhenPressed = Array.from(chips.children, (c) => c.getAttribute('aria-label'));
            observer.disconnect();
        }).observe(chips.children[2], {attributes: true, attributeFilter: ['aria-pressed']});
    }""")
    figure_page.page.locator(".chip[data-index='3']").focus()
    figure_page.page.keyboard.press("ArrowLeft")
    figure_page.wait_for_global("namesWhenPressed", other_than(None))
    assert figure_page.page.evaluate("window.namesWhenPressed") == expected(2)
    order = figure_page.page.evaluate("""() => [...document.querySelectorAll('h1, #figure-description, #text, #layers')].map(e => e.id)""")
    assert order == ["figure-title", "figure-description", "text", "layers"]
    assert figure_page.page.evaluate("document.querySelector('main').getAttribute('aria-describedby')") == "figure-description"


def test_the_live_region_speaks_once_per_pause_and_once_per_choice(browser_page, figure):
    figure_page = browser_page
    page = figure_page.page
    assert page.locator("[aria-live='assertive'], [role='alert']:visible").count() == 0
    assert page.locator("#status").get_attribute("aria-live") is None  # the status line changes on hover: not spoken
    figure_page.listen()
    box = page.locator("#text")
    box.fill("")
    figure_page.wait_for(text="")
    figure_page.wait_for_spoken()
    figure_page.forget_spoken()
    box.press_sequentially("Alice said.", delay=60)  # 11 characters, 60 ms apart
    figure_page.wait_for_spoken(text="Alice said.")
    state = figure_page.state()
    assert len(figure_page.spoken()) <= 2, figure_page.spoken()
    last = figure_page.spoken()[-1]
    assert last.startswith(f"{len(state['ids'])} tokens; layer {state['layer']}, head {state['head']}: «{state['tokens'][-1]}» attends most to «")
    figure_page.forget_spoken()
    figure_page.click_token(0)
    figure_page.wait_for_spoken(count=1)
    assert figure_page.spoken() == [f"{len(state['ids'])} tokens; layer {state['layer']}, head {state['head']}: «{state['tokens'][0]}» attends most to «{state['tokens'][0]}» 100.0%."]
    figure_page.click_choice("heads", 1)
    figure_page.wait_for_spoken(count=2)
    page.locator(".chip[data-index='1']").hover()  # a hover preview is for the eyes only
    figure_page.wait_for_element(".chip.preview", count=above(0))
    assert len(figure_page.spoken()) == 2


# 3. Display preferences

def luminance(rgb):
    """WCAG 2.1 relative luminance of an sRGB colour given as (r, g, b) bytes."""
    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    """WCAG 2.1 contrast ratio of two colours (1 to 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rgb(css):
    """(r, g, b) of a computed colour "rgb(r, g, b)" or "rgba(r, g, b, a)"."""
    return tuple(int(float(x)) for x in css[css.index("(") + 1:css.index(")")].replace(",", " ").split()[:3])


def chip_colours(page):
    """For each chip: (text colour of its label and percentage, its background), or (text, hatch colours) masked."""
    return page.eval_on_selector_all(".chip", """chips => chips.map(c => {
        const s = getComputedStyle(c);
        const hatch = s.backgroundImage.match(/rgba?\\([^)]*\\)/g);
        return { masked: c.classList.contains('masked'), backgrounds: hatch ?? [s.backgroundColor],
                 texts: [getComputedStyle(c.querySelector('.label')).color, getComputedStyle(c.querySelector('.percent')).color] };
    })""")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast_on_every_chip_in_light_and_dark(browser, origin, figure, scheme):
    figure_page, watch = open_figure(browser, origin, color_scheme=scheme)
    # the default view, then the first token as the query: its only key weighs 100% (the strongest colour)
    for text, view in [(None, {}), ("Alice said nothing.", {"token": 0})]:
        if text:
            figure_page.set_text(text)
            figure_page.select(**view)
        for chip in chip_colours(figure_page.page):
            for text_colour in chip["texts"]:
                for background in chip["backgrounds"]:
                    assert contrast(rgb(text_colour), rgb(background)) >= 4.5, (scheme, chip)
    weights = [float(c["weight"]) for c in figure_page.chips() if c["weight"]]
    assert max(weights) > 0.9  # the strongest colour was among them
    page_colours = figure_page.page.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
        getComputedStyle(document.body).color, getComputedStyle(document.querySelector('.colour-legend')).color]""")
    background, ink, legend = (rgb(c) for c in page_colours)
    assert (luminance(background) < 0.05) == (scheme == "dark")  # a dark page under prefers-color-scheme: dark
    assert contrast(ink, background) >= 4.5 and contrast(legend, background) >= 4.5
    figure_page.page.context.close()
    watch.check()


def test_forced_colours_keep_the_selection_and_the_query_visible(browser, origin):
    figure_page, watch = open_figure(browser, origin, forced_colors="active")
    figure_page.page.locator("#layers input:checked").focus()  # the layer group's tab stop: chosen and focused at once
    looks = figure_page.page.evaluate("""() => {
        const style = (selector) => getComputedStyle(document.querySelector(selector));
        const query = style('.chip.query'), checked = style('#layers input:checked + span'), percent = style('.chip.query .percent');
        const other = style('#heads input:checked + span');
        return { query: [query.outlineStyle, parseFloat(query.outlineWidth)], checked: [checked.borderTopStyle, parseFloat(checked.borderTopWidth)],
                 focus: checked.outlineStyle, unfocused: other.outlineStyle,
                 masked: style('.chip.masked').borderTopStyle, percent: percent.color, chip: query.backgroundColor };
    }""")
    assert looks["query"][0] == "solid" and looks["query"][1] >= 2
    assert looks["checked"][0] == "solid" and looks["checked"][1] >= 2  # the choice: a border
    assert looks["focus"] == "dashed" and looks["unfocused"] == "none"  # the focus: an outline besides it
    assert looks["masked"] == "dashed"
    assert contrast(rgb(looks["percent"]), rgb(looks["chip"])) >= 4.5
    figure_page.page.context.close()
    watch.check()


def test_reduced_motion_runs_no_animation(browser, origin):
    figure_page, watch = open_figure(browser, origin, reduced_motion="reduce")
    figure_page.open_panel("heads")
    figure_page.click_token(2)
    figure_page.page.locator("#text").press("End")
    figure_page.page.keyboard.type(" x")
    figure_page.wait_for(text=ends_with(" x"))
    assert figure_page.page.evaluate("document.getAnimations().length") == 0
    durations = figure_page.page.eval_on_selector_all(".chip, .thumb, button, summary", "es => [...new Set(es.map(e => getComputedStyle(e).transitionDuration))]")
    assert durations == ["0s"]
    figure_page.page.context.close()
    watch.check()


# 4. Small screens and zoom

@pytest.mark.parametrize("width, scale", [(320, 1), (640, 2)])  # a 320 px phone; 200% zoom of a 1280 px window
def test_no_horizontal_scrolling_and_large_enough_controls(browser, origin, width, scale):
    figure_page, watch = open_figure(browser, origin, viewport={"width": width, "height": 700}, device_scale_factor=scale)
    open_panels(figure_page, PANELS)
    figure_page.set_text("Alice was beginning to get very tired of sitting by her sister on the bank, " * 4)
    assert figure_page.page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    small = figure_page.page.eval_on_selector_all(
        "button, summary, textarea, .choice span, .what-ifs label, canvas[tabindex], [role=region]",
        "es => es.filter(e => e.checkVisibility()).map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
        ".filter(([, w, h]) => w < 24 || h < 24)")
    assert small == []
    figure_page.page.context.close()
    watch.check()


# The views paint nothing outside their own box (content-visibility: auto implies paint containment),
# so a focus ring drawn outside a control at a view's edge would be cut off there.
RING_OUTSIDE_ITS_VIEW = """() => {
    const e = document.activeElement, view = e.closest('.heads-grid, .matrix-view, .math-view, .flash-view, .next-view');
    if (!view) return null;
    const style = getComputedStyle(e), reach = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
    const ring = e.getBoundingClientRect(), box = view.getBoundingClientRect();
    const outside = [box.left - (ring.left - reach), ring.right + reach - box.right, box.top - (ring.top - reach), ring.bottom + reach - box.bottom];
    return { control: e.outerHTML.slice(0, 60), view: view.id, ring: style.outlineStyle !== 'none' && reach > 0,
             outside: outside.filter(px => px > 0.5) };
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_every_focus_ring_in_the_panels_shows_whole(browser, origin, width):
    figure_page, watch = open_figure(browser, origin, viewport={"width": width, "height": 800})
    figure_page.set_text("Then the Queen turned to Alice and said")
    open_panels(figure_page, PANELS)
    page = figure_page.page
    page.locator("#heads-panel > summary").focus()
    seen = []
    for _ in range(80):  # every control of the five views, then out past the next token's
        page.keyboard.press("Tab")
        ring = page.evaluate(RING_OUTSIDE_ITS_VIEW)
        if ring:
            seen.append(ring)
    assert {ring["view"] for ring in seen} == {"heads-grid", "matrix-view", "math-view", "flash-view", "next-view"}
    assert [ring for ring in seen if not ring["ring"] or ring["outside"]] == []
    page.context.close()
    watch.check()


def test_focus_is_never_lost_to_the_page(browser_page):
    figure_page = browser_page
    page = figure_page.page
    active = "() => document.activeElement.id || document.activeElement.className"
    figure_page.set_text("Alice said nothing to the Queen at all")
    page.locator(".chip").last.focus()
    figure_page.set_text("Alice said")  # the focused chip is gone
    assert page.evaluate(active).startswith("chip") and page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"
    figure_page.open_panel("matrix")
    page.locator("#matrix").focus()
    figure_page.set_text("")  # no tokens: no chips, no matrix
    figure_page.wait_for_global("document.activeElement.id", "text")
    figure_page.open_panel("matrix", False)


def test_a_what_if_choice_is_said_once_with_its_numbers(browser_page):
    figure_page = browser_page
    page = figure_page.page
    figure_page.set_text("Alice said nothing to the Queen at all")
    figure_page.select(layer=2, head=3)
    figure_page.open_panel("math")
    figure_page.listen()
    for act in [lambda: page.locator("#what-if-scale").click(), lambda: figure_page.click_choice("heads", 1)]:
        figure_page.forget_spoken()
        act()
        figure_page.wait_for_spoken()
        state = figure_page.state()
        strongest = max(state["weights"])
        page.wait_for_timeout(700)  # not a wait for readiness: a window longer than the announcer's 500 ms pause, in which nothing more may be said
        spoken = figure_page.spoken()
        assert len(spoken) == 1 and "(a what-if, not the model's own numbers)" in spoken[0], spoken
        assert f"{strongest * 100:.1f}%" in spoken[0].split("attends most to")[1].split(",")[0], (spoken, strongest)
    page.locator("#what-if-scale").click()
    figure_page.wait_for(whatIf={"scale": True})
    figure_page.open_panel("math", False)


def test_an_error_met_again_is_said_again(browser, origin):
    page, watch = watched_page(browser, origin)
    page.route("**/build.json", lambda route: route.fulfill(status=404, body="not here"))
    page.goto(origin + "/")
    page.wait_for_selector("html[data-state='error']", state="attached", timeout=WAIT_MS)
    figure_page = FigurePage(page)
    figure_page.listen()
    error = figure_page.status()
    page.locator("#retry").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#retry:not([hidden])", state="visible", timeout=WAIT_MS)
    figure_page.wait_for_spoken(count=above(1), last=error)  # emptied, then said again
    assert page.evaluate("document.activeElement.id") in ("text", "retry")  # not lost to the body
    page.context.close()
    assert [p for p in watch.problems if "404" not in p] == [], watch.problems


def test_a_long_matrix_scrolls_with_the_keyboard_and_is_read_out(browser, origin, figure):
    figure_page, watch = open_figure(browser, origin, viewport={"width": 320, "height": 640})
    page = figure_page.page
    figure_page.set_text("Alice was beginning to get very tired of sitting by her sister on the bank, " * 6)
    figure_page.open_panel("matrix")
    figure_page.listen()
    page.locator("#matrix").focus()
    page.keyboard.press("Home")  # the first token as the query
    for _ in range(100):  # the key read out: 100 columns to the right, past the box's right edge at 320 px
        page.keyboard.press("ArrowRight")
    state = figure_page.state()
    assert state["token"] == 0 and len(state["ids"]) > 100
    assert page.evaluate("document.querySelector('.matrix-box').scrollLeft") > 0  # the marked cell is in view
    box, mark = (page.locator(selector).bounding_box() for selector in [".matrix-box", ".cell-mark"])
    assert box["x"] <= mark["x"] and mark["x"] + mark["width"] <= box["x"] + box["width"] + 1
    figure_page.wait_for_spoken(last=f"«{state['tokens'][0]}» → «{state['tokens'][100]}»: masked, a later token (0%).")
    page.context.close()
    watch.check()
