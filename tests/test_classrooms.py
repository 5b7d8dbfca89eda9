"""Where teachers put the figure (issue 53): one test per kind of ../shared/cases/classrooms.md that this
issue covers, named after it (test_every_case_has_a_test.py checks that none is missing): a slide deck
(reveal.js, as Quarto's revealjs format builds it; more of it in test_slides.py), undo in the text box
(the browser's own plain text box on the same page is the reference), and a printed handout (a PDF
printed by Chromium, read page by page with pypdf). Readiness is always a signal, never a sleep.
"""

import io
import re

import pypdf
import pytest

from support.figure_page import FigurePage, Watch, above, browser_context, course_site, serving
from test_slides import (check_chip_clicks, check_fits, check_keys_outside_drive_the_deck, check_keys_stay, check_swipes, deck_site,
                         deck_tab)
from test_theme_sites import dist  # noqa: F401 (the fixture: dist/, built if missing)

TEXT = "Then the Queen turned to Alice and said, \"Off with her head!\""
QUARTO = {"width": 1050, "height": 700, "margin": 0.1, "center": False, "controls": True, "progress": True, "slideNumber": True,
          "hash": True}  # Quarto's revealjs defaults (its template's Reveal.initialize)


@pytest.fixture(scope="module")
def quarto_deck(tmp_path_factory, dist):  # noqa: F811 (the fixture imported above)
    """The deck of test_slides.py as Quarto's revealjs format configures reveal.js: 1050 × 700 slides,
    a 10% margin, slides from the top, slide numbers, the slide in the address."""
    with serving(deck_site(tmp_path_factory.mktemp("quarto"), config=QUARTO)) as url:
        yield url


def test_a_slide_deck(playwright, quarto_deck):
    """The kind whole, in a Quarto-sized deck on a large screen (scale 1.3, where test_slides.py's is
    0.6): keys typed into the figure stay in it (the deck stays on slide 2, not fullscreen, not in
    overview, the text exactly as typed, as a plain text box has it), the chips' and layer choice's own
    keys work, swipes on the figure do not change slides (one on the slide's title does), clicks land
    on the chip under the pointer, the figure fits its slide with its panels closed, and keys typed
    outside the figure still drive the deck."""
    with deck_tab(playwright, quarto_deck, viewport={"width": 1600, "height": 1000}, has_touch=True) as (page, figure):
        scale = page.evaluate("() => Reveal.getScale()")
        assert 1.25 <= scale <= 1.35, scale  # min(1600 / (1050 × 1.1), 1000 / (700 × 1.1))
        check_fits(page, figure)
        check_keys_stay(page, figure)
        check_swipes(page, figure)
        check_chip_clicks(page, figure)
        check_keys_outside_drive_the_deck(page)


# Keys for undo: typed runs, a caret moved between two (left then right: where it was), deletions,
# and typing after them (as a text box runs them: a deletion after typing starts a new step)
EDITS = [" and the", "ArrowLeft", "ArrowRight", " Rabbit", "Backspace", "Backspace", "Backspace", "ren ran"]
UNDO, REDO_SHIFT, REDO_Y = "Control+z", "Control+Shift+z", "Control+y"
COMMANDS = [UNDO, UNDO, REDO_SHIFT, REDO_Y, UNDO, UNDO, UNDO, UNDO, REDO_SHIFT, REDO_SHIFT, REDO_Y, REDO_Y]
UNDO_PAGE = f'<p>Type, then take it back.</p><textarea id="plain" rows="3" cols="60">{TEXT}</textarea><attention-live text=\'{TEXT}\'></attention-live>'


def edit(page, keys, after_each=None):
    """Press ``keys`` (EDITS) into the focused box: a key name, or a text typed character by character;
    ``after_each(text)`` after each key, with the box's text."""
    for key in keys:
        for stroke in ([key] if key in ("ArrowLeft", "ArrowRight", "Backspace") else list(key)):
            page.keyboard.press(stroke)
            if after_each:
                after_each()


def test_undo(playwright, tmp_path, figure):
    """The same keys into a plain <textarea> and into the figure's box on the same course page, the
    figure drawing its new chips after every keystroke (the condition in which Chromium's own undo
    took back one character at a time), then the same Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y in both: after
    each, the figure's box holds what the plain box holds (the browser's own runs: the reference), with
    the caret where the plain one has it, and the figure follows: state().text, and its chips as
    CPython's tokenizer cuts that text."""
    watch = Watch()
    with course_site(tmp_path, {"unit.html": UNDO_PAGE}) as url, browser_context(playwright, viewport={"width": 1000, "height": 900}) as context:
        watch.origins = (url,)
        page = watch.page(watch.context(context).new_page())
        page.goto(url + "/unit.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        element.wait_for(text=TEXT)
        element.wait_for_chips(above(0), weighted=True)
        read = "(box) => [box.value, box.selectionStart, box.selectionEnd]"

        plain = page.locator("#plain")
        plain.focus()
        page.keyboard.press("Control+End")
        edit(page, EDITS)
        expected = [plain.evaluate(read)]
        for command in COMMANDS:
            page.keyboard.press(command)
            expected.append(plain.evaluate(read))
        plain.evaluate("(box) => box.blur()")
        texts = [value for value, _, _ in expected]
        assert texts[0] == TEXT + " and the Rabren ran", texts[0]
        assert len(set(texts)) >= 4 and TEXT in texts, f"the plain box's undo took back: {texts}"  # runs, not all at once or nothing

        box = element.locator("#text")
        box.focus()
        page.keyboard.press("Control+End")
        edit(page, EDITS, after_each=lambda: element.wait_for(text=box.input_value()))  # each keystroke drawn before the next
        assert box.evaluate(read) == expected[0]
        for command, want in zip(COMMANDS, expected[1:]):
            page.keyboard.press(command)
            assert box.evaluate(read) == want, f"after {command}: {box.evaluate(read)} where a plain text box has {want}"
            element.wait_for(text=want[0])
            state = element.state()
            labels = figure.analyse(want[0])["labels"]
            assert state["tokens"] == labels
            element.wait_for_chips(len(labels), text=want[0])
            assert [chip["label"] for chip in element.chips()] == labels
    watch.check()


# A Mac, as the figure's script reads one: navigator.platform "MacIntel", no navigator.userAgentData (Safari's, Firefox's)
AS_ON_A_MAC = """Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'MacIntel' });
Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined });"""


def test_undo_with_the_command_key_on_a_mac(playwright, tmp_path):
    """On a Mac (its platform as the page reads it), ⌘Z takes back the whole typed run and ⌘⇧Z brings it
    back. (Ctrl+Z, which does nothing in a Mac's text box, cannot be checked here: this Chromium on
    Linux undoes on it itself.)"""
    run = " and the Rabbit"
    with course_site(tmp_path, {"unit.html": UNDO_PAGE}) as url, browser_context(playwright) as context:
        context.add_init_script(AS_ON_A_MAC)
        page = context.new_page()
        page.goto(url + "/unit.html")
        assert page.evaluate("() => navigator.platform") == "MacIntel"
        element = FigurePage(page, "attention-live")
        element.ready()
        element.wait_for_chips(above(0), weighted=True, text=TEXT)
        box = element.locator("#text")
        box.focus()
        page.keyboard.press("Control+End")
        edit(page, [run], after_each=lambda: element.wait_for(text=box.input_value()))
        page.keyboard.press("Meta+z")  # no key binding of Linux's Chromium: what it does, the figure does
        assert box.input_value() == TEXT
        element.wait_for(text=TEXT)
        page.keyboard.press("Meta+Shift+z")
        assert box.input_value() == TEXT + run
        element.wait_for(text=TEXT + run)


# The open panels: each one's title (its summary), as the English catalog writes it
PANEL_TITLES = {"heads": "All heads at once", "matrix": "This head's whole attention matrix", "math": "Show the math",
                "next": "The next token", "stack": "Attention stacked on attention"}
PRINT_PANELS = "heads,matrix,math,next,stack"
# Each open panel's lines as printed (print media): its title and the lines of its content, in order; each
# panel in view first, two frames drawn (a view off screen is not rendered: content-visibility, and
# innerText skips it; printing renders everything)
PANEL_LINES = """async (root) => {
    const lines = [];
    for (const panel of root.querySelectorAll('details.panel[open]:not(.flash-part)')) {
        panel.scrollIntoView();
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        lines.push({ id: panel.id, lines: panel.innerText.split('\\n').map((line) => line.trim()).filter((line) => line !== '') });
    }
    return lines;
}"""


def flat(text):
    """``text`` without any white space (pypdf's extraction breaks and spaces lines as it lays them out)."""
    return re.sub(r"\s+", "", text)


def check_handout(page, element, root_js):
    """Print the page to a PDF (A4, Chromium's page.pdf) and read it page by page: each open panel's
    title is on the page where its content ends (the last of its printed lines that occurs once in the
    whole PDF) and where it starts, and the percentages printed on the chips and in the matrix's
    reading are state()'s weights. Returns the PDF's pages' texts."""
    state = element.state()
    page.emulate_media(media="print")
    panels = page.evaluate(f"() => ({PANEL_LINES})({root_js})")
    page.evaluate("() => scrollTo(0, 0)")
    pdf = page.pdf(format="A4", print_background=True)
    page.emulate_media(media="screen")
    pages = [flat(p.extract_text()) for p in pypdf.PdfReader(io.BytesIO(pdf)).pages]
    whole = "".join(pages)
    assert len(pages) >= 2, "the handout fits one page: nothing to split"
    assert sorted(p["id"] for p in panels) == sorted(f"{name}-panel" for name in PRINT_PANELS.split(","))
    for panel in panels:
        title = flat(panel["lines"][0])
        assert title == flat(PANEL_TITLES[panel["id"].removesuffix("-panel")])
        on = [i for i, text in enumerate(pages) if title in text]
        assert len(on) == 1, f"{panel['id']}'s title is on pages {on}"
        printed = [flat(line) for line in panel["lines"][1:] if len(flat(line)) > 2 and flat(line) in whole]  # a text alternative for screen readers is not printed
        ends = [line for line in printed[-3:] if whole.count(line) == 1]
        assert ends, f"{panel['id']}: none of its last lines printed is its own, to find in the PDF: {printed[-3:]}"
        # the title and the panel's end on one page: so is everything between them, the whole panel
        assert ends[-1] in pages[on[0]], f"{panel['id']}: its end «{ends[-1]}» is not on page {on[0] + 1} with its title: " + str([ends[-1] in text for text in pages])
    weights = [f"{w * 100:.1f}%" for w in state["weights"][:state["token"] + 1]]
    assert "".join(weights) in whole, weights  # the chips, as state() has them
    top = sorted(state["weights"], reverse=True)[:3]
    matrix = next(p for p in panels if p["id"] == "matrix-panel")["lines"]
    reading = [line for line in matrix if "%" in line and flat(line) in whole][-1]  # the reading under the cells, as printed
    assert re.findall(r"\d+\.\d%", reading) == [f"{w * 100:.1f}%" for w in top], reading
    return pages


COURSE_PAGE = ("<p>" + "Attention lets each token look back at the earlier ones. " * 12 + "</p>") * 3 + \
    f'<attention-live text=\'{TEXT}\' panels="{PRINT_PANELS}"></attention-live><p>Exercises follow.</p>'


def test_a_printed_handout(playwright, tmp_path, origin):
    """A course page (three paragraphs, then the element with its five panels open) and the standalone
    page (the same panels open by its link), each printed to an A4 PDF: every open panel whole on the
    page of its title (check_handout), the numbers those of state()."""
    watch = Watch()
    with course_site(tmp_path, {"unit.html": COURSE_PAGE}) as url, browser_context(playwright, viewport={"width": 1000, "height": 900}) as context:
        watch.origins = (url, origin)
        page = watch.page(watch.context(context).new_page())
        page.goto(url + "/unit.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        element.wait_for(text=TEXT, panels={name: True for name in PRINT_PANELS.split(",")})
        element.wait_for_panels("math", "next", "stack")
        element.wait_for_elements({"[aria-busy='true']": {"count": 0}})
        check_handout(page, element, "document.querySelector('attention-live').shadowRoot")

        standalone = FigurePage(watch.page(context.new_page()))
        standalone.open(f"{origin}/#panels={PRINT_PANELS}")
        standalone.ready()
        standalone.wait_for(panels={name: True for name in PRINT_PANELS.split(",")})
        standalone.wait_for_panels("math", "next", "stack")
        standalone.wait_for_elements({"[aria-busy='true']": {"count": 0}})
        check_handout(standalone.page, standalone, "document")
    watch.check()
