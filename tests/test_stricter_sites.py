"""Stricter course sites and their readers (issue 54): one test per kind of ../shared/cases/classrooms.md
that is not about teaching (test_classrooms.py holds the slide deck, undo and the printed handout).
Checked in headless Chromium on course pages built by support/figure_page.py's course_site; the numbers
against CPython's Figure on the same weights."""

import pytest

from support.figure_page import FigurePage, browser_context, course_site

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'  # the default view's
LAYER, HEAD, TOKEN = 2, 3, 7  # «said»
ALICE = 5


def written(p, lang):
    """A probability as a reader of `lang` writes it, one decimal (Unicode CLDR's percent patterns)."""
    number = f"{p * 100:.1f}"
    return {"en": f"{number}%", "de": f"{number.replace('.', ',')}\u00a0%", "fr": f"{number.replace('.', ',')}\u00a0%"}[lang]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pages = {"switcher.html": '<attention-live></attention-live><attention-live lang="fr"></attention-live>'}
    with course_site(tmp_path_factory.mktemp("strict"), pages) as url:
        yield url


def test_a_site_s_language_switcher(site, playwright, figure):
    share = figure.analyse(TEXT)["attention"][LAYER - 1, HEAD - 1, TOKEN, ALICE]
    with browser_context(playwright) as context:
        page = context.new_page()
        page.goto(site + "/switcher.html")
        follows, own = FigurePage(page, "attention-live", 0), FigurePage(page, "attention-live", 1)
        for element in (follows, own):
            element.ready()
            element.wait_for(token=TOKEN, layer=LAYER, head=HEAD)
        chip = f".chip[data-index='{ALICE}'] .percent"
        follows.wait_for_element(chip, text=written(share, "en"))
        own.wait_for_element(chip, text=written(share, "fr"))
        for lang, words in [("de", "Schicht"), ("en", "Layer"), ("de", "Schicht")]:  # the switch, both ways
            page.evaluate("lang => { document.documentElement.lang = lang; }", lang)
            follows.wait_for_element(".figure", attributes={"lang": lang})
            follows.wait_for_element(chip, text=written(share, lang))  # the chips' numbers too, not only the words
            follows.wait_for_element(f".chip[data-index='{ALICE}']", attributes={"aria-label": f"«␣Alice» {written(share, lang)}, {'Token 6 von' if lang == 'de' else 'token 6 of'} 16"})
            assert follows.locator("#layers legend").text_content() == words
            own.wait_for_element(chip, text=written(share, "fr"))  # its own lang wins
        page.evaluate("document.querySelectorAll('attention-live')[1].setAttribute('lang', 'en')")  # the element's own lang changed
        own.wait_for_element(chip, text=written(share, "en"))
