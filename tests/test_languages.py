"""The figure in the course's language (docs/languages.md): German, Spanish and French, chosen by the
element's lang attribute, by the course page's <html lang>, and by the standalone page's link; every
word from the language's catalog, every number written its way, the root declaring it, the numbers
still CPython's, and axe-core content. A pseudo-right-to-left catalog (every English message reversed,
dir=rtl, served as Arabic) shows that a right-to-left language needs no code: laid out from the right at 1280 and 390 px,
nothing outside the figure. And no English outside the English catalog in the figure's code."""

import json
import re

import pytest

from conftest import ROOT
from support.axe import violations
from support.english_strings import english_in_page, english_in_script
from support.figure_page import FigurePage, browser_context, check_view, course_site

CATALOGS = ROOT / "web" / "i18n"
ENGLISH = json.loads((CATALOGS / "en.json").read_text(encoding="utf-8"))
LANGUAGES = ("de", "es", "fr")
PANELS = "heads,matrix,math,next,stack"
PSEUDO_RTL = "ar"  # served as Arabic (a right-to-left language axe-core knows), its words reversed English
PIECE = re.compile(r"\{\w+\}|</?[a-z]+>")

# Every part's text as the reader and assistive technology meet it: the visible text (innerText), and
# every accessible name and description written into an attribute, in the figure's root.
FIGURE_WORDS = """(root) => {
  const words = [root.innerText];
  for (const node of root.querySelectorAll('*')) {
    for (const name of ['aria-label', 'aria-description', 'aria-roledescription', 'aria-valuetext', 'title', 'alt', 'placeholder']) {
      if (node.hasAttribute(name)) words.push(node.getAttribute(name));
    }
  }
  return words.join('\\n');
}"""


def english_sentences():
    """The pieces of English's messages between placeholders and tags that hold two words or more:
    what must not appear in a figure shown in another language."""
    pieces = set()
    for message in ENGLISH.values():
        for text in ([message] if isinstance(message, str) else message.values()):
            for piece in PIECE.split(text):
                piece = piece.strip(" ,.:;()…–—\u00a0")
                if re.search(r"[A-Za-z]{2,}[’']?[a-z]* +[A-Za-z]{2,}", piece):
                    pieces.add(piece)
    return sorted(pieces)


def figure_root(figure_page):
    """A JS handle of the figure's root (its <main> or <section>)."""
    if figure_page.element is None:
        return figure_page.page.locator("main.figure")
    return figure_page.page.locator(f"{figure_page.element} section.figure")  # Playwright's CSS reads open shadow roots


def check_language(figure_page, figure, lang, axe_source):
    """Everything a course in `lang` needs of the figure shown in `figure_page`, with every panel open."""
    figure_page.wait_for(panels={"heads": True, "matrix": True, "math": True, "next": True, "stack": True})
    figure_page.wait_for_panels("math", "next")
    root = figure_root(figure_page)
    assert (root.get_attribute("lang"), root.get_attribute("dir")) == (lang, "ltr")
    words = root.evaluate(FIGURE_WORDS)
    found = ((piece, re.search(rf"(?<![^\W\d_]){re.escape(piece)}(?![^\W\d_])", words)) for piece in english_sentences())  # whole words
    english = [(piece, words[max(0, at.start() - 60):at.end() + 60]) for piece, at in found if at]
    assert english == [], english  # each with where it was found
    check_view(figure_page, figure, lang=lang)  # the numbers are CPython's, each chip's percentage written the language's way
    assert violations(figure_page.page, axe_source) == []
    return words


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_elements_lang_attribute_chooses(playwright, tmp_path, figure, axe_source, lang):
    body = f'<attention-live lang="{lang}" panels="{PANELS}"></attention-live>'
    with course_site(tmp_path, {"unit.html": body}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/unit.html")
        figure_page = FigurePage(page, "attention-live")
        figure_page.ready()
        check_language(figure_page, figure, lang, axe_source)
        # another language at once, without Python loading again: the words change, the numbers stay
        other = LANGUAGES[(LANGUAGES.index(lang) + 1) % len(LANGUAGES)]
        before = figure_page.state()
        page.evaluate("lang => document.querySelector('attention-live').setAttribute('lang', lang)", other)
        figure_page.wait_until(f"() => document.querySelector('attention-live').shadowRoot.querySelector('section.figure').lang === '{other}'")
        check_language(figure_page, figure, other, axe_source)
        assert figure_page.state()["weights"] == before["weights"]
        assert page.evaluate("performance.getEntriesByName('attention-live:live').length") <= 1


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_course_pages_html_lang_chooses(playwright, tmp_path, figure, axe_source, lang):
    body = f'<attention-live panels="{PANELS}"></attention-live>'
    with course_site(tmp_path, {"unit.html": body}, html_attributes=f'lang="{lang}-CH"') as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/unit.html")
        figure_page = FigurePage(page, "attention-live")
        figure_page.ready()
        check_language(figure_page, figure, lang, axe_source)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_standalone_pages_link_chooses(playwright, origin, figure, axe_source, lang):
    with browser_context(playwright, locale="en-US") as context:
        page = context.new_page()
        figure_page = FigurePage(page)
        figure_page.open(f"{origin}/#lang={lang}&panels={PANELS}")
        check_language(figure_page, figure, lang, axe_source)
        assert page.evaluate("document.documentElement.lang") == lang
        figure_page.wait_for_link(lang=lang)  # the address keeps it: a copied link opens in it


def test_a_course_page_in_a_language_without_a_catalog_shows_english(playwright, tmp_path, figure):
    with course_site(tmp_path, {"unit.html": "<attention-live></attention-live>"}, html_attributes='lang="ja"') as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/unit.html")
        figure_page = FigurePage(page, "attention-live")
        figure_page.ready()
        root = figure_root(figure_page)
        assert root.get_attribute("lang") == "en"
        assert figure_page.locator("#notice").is_hidden()  # the page did not ask the figure: nothing to say


def test_the_browsers_language_chooses_when_the_link_says_nothing(playwright, origin, figure):
    with browser_context(playwright, locale="fr-CA") as context:
        page = context.new_page()
        figure_page = FigurePage(page)
        figure_page.open(origin + "/")
        assert figure_root(figure_page).get_attribute("lang") == "fr"
        assert "lang=" not in page.evaluate("location.hash")  # the reader's own browser chose it: a link need not


def pseudo_rtl_catalog():
    """English's catalog with the text of every message reversed (placeholders and tags kept), and dir=rtl."""
    def reversed_text(text):
        return "".join(piece if PIECE.fullmatch(piece) else piece[::-1] for piece in re.split(f"({PIECE.pattern})", text))
    catalog = {key: reversed_text(m) if isinstance(m, str) else {form: reversed_text(t) for form, t in m.items()} for key, m in ENGLISH.items()}
    return {"$dir": "rtl", "$locale": "en", **catalog}


# What a right-to-left layout must hold: the root says rtl and is laid out so; chips run from the
# right; and no part of the figure reaches outside it (but inside its own scrolling boxes).
RTL_LAYOUT = """(host) => {
  const root = host.shadowRoot.querySelector('section.figure');
  const box = host.getBoundingClientRect();
  const outside = [];
  const scrolls = (node) => { for (let n = node.parentElement; n && n !== root; n = n.parentElement) { if (getComputedStyle(n).overflowX !== 'visible') return true; } return false; };
  for (const node of root.querySelectorAll('*')) {
    const r = node.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || scrolls(node)) continue;
    if (r.left < box.left - 1 || r.right > box.right + 1) outside.push(`${node.tagName}.${node.className}#${node.id}: ${Math.round(r.left)}..${Math.round(r.right)} of ${Math.round(box.left)}..${Math.round(box.right)}`);
  }
  const chips = [...root.querySelectorAll('.chip')].map((c) => c.getBoundingClientRect());
  const firstLine = chips.filter((c) => Math.abs(c.top - chips[0].top) < 2);
  return { dir: root.dir, direction: getComputedStyle(root).direction, outside,
           fromTheRight: firstLine.length > 1 && firstLine.every((c, i) => i === 0 || c.right <= firstLine[i - 1].left + 1),
           firstChipAtRight: chips.length > 0 && Math.abs(chips[0].right - root.querySelector('.tokens').getBoundingClientRect().right) < 40,
           pageWidth: document.documentElement.scrollWidth, viewport: innerWidth };
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_a_right_to_left_language_needs_no_code(playwright, tmp_path, axe_source, width):
    catalog = pseudo_rtl_catalog()
    body = f'<attention-live panels="{PANELS}"></attention-live>'  # in the course page's language
    with course_site(tmp_path, {"unit.html": body}, html_attributes=f'lang="{PSEUDO_RTL}" dir="rtl"') as url, \
            browser_context(playwright, viewport={"width": width, "height": 900}, service_workers="block") as context:
        def with_the_language(route):  # build.json, as a build with the catalog file in web/i18n/ lists it
            manifest = route.fetch().json()
            manifest["languages"] = sorted([*manifest["languages"], PSEUDO_RTL])
            route.fulfill(json=manifest)
        context.route("**/build.json", with_the_language)
        context.route(f"**/i18n/{PSEUDO_RTL}.json", lambda route: route.fulfill(json=catalog))
        page = context.new_page()
        page.goto(url + "/unit.html")
        figure_page = FigurePage(page, "attention-live")
        figure_page.ready()
        figure_page.wait_for_panels("math", "next")
        figure_page.wait_until("() => document.querySelector('attention-live').shadowRoot.querySelector('section.figure').dir === 'rtl'")
        layout = page.locator("attention-live").evaluate(RTL_LAYOUT)
        assert (layout["dir"], layout["direction"]) == ("rtl", "rtl")
        assert layout["outside"] == []
        assert layout["pageWidth"] <= layout["viewport"]
        assert layout["firstChipAtRight"] and (layout["fromTheRight"] or width < 500)
        words = figure_root(figure_page).evaluate(FIGURE_WORDS)
        assert "knil ypoC" in words and "Copy link" not in words  # its words are the catalog's
        assert violations(page, axe_source) == []


def test_no_english_outside_the_english_catalog():
    """Every string of web/'s scripts and every text of its pages that reads as English words is in a
    catalog, or its line says `// not shown` (a message for developers, never on screen or spoken)."""
    found = {}
    for path in sorted((ROOT / "web").rglob("*.js")):
        if english := english_in_script(path):
            found[path.relative_to(ROOT).as_posix()] = english
    for path in sorted((ROOT / "web").rglob("*.html")):
        if english := english_in_page(path):
            found[path.relative_to(ROOT).as_posix()] = english
    assert found == {}


# An anywidget host's model as MyST's is ({anywidget} directive: get and on only), around dist/widget.js.
WIDGET_PAGE = """<div id="widget"></div>
<script type="module">
  import widget from "./attention-live/widget.js";
  const values = { text: "Then the Queen turned to Alice and said", lang: "de" };
  const handlers = {};
  window.model = { get: (name) => values[name], on: (event, handler) => { handlers[event] = handler; },
                   set(name, value) { values[name] = value; handlers[`change:${name}`]?.(); } };
  widget.render({ model: window.model, el: document.getElementById("widget") });
</script>"""


def test_the_widgets_lang_value_chooses(playwright, tmp_path, figure):
    with course_site(tmp_path, {"unit.html": WIDGET_PAGE}) as url, browser_context(playwright) as context:
        page = context.new_page()
        page.goto(url + "/unit.html")
        page.locator("attention-live").wait_for(state="attached")  # widget.js imports the figure's module when it runs: after the page's load
        figure_page = FigurePage(page, "attention-live")
        figure_page.ready()
        root = figure_root(figure_page)
        figure_page.wait_until("() => document.querySelector('attention-live').shadowRoot.querySelector('section.figure').lang === 'de'")
        assert root.get_attribute("lang") == "de"
        page.evaluate("() => window.model.set('lang', 'es')")  # the model's value changed: the words follow
        figure_page.wait_until("() => document.querySelector('attention-live').shadowRoot.querySelector('section.figure').lang === 'es'")
        check_view(figure_page, figure, lang="es")
