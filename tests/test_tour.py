"""A walk through the chapter, and a course's own (issue 53, part 5; docs/tour.md), in Chromium.

The chapter's walk on a course page (tour="chapter"), in English and in German, stepped through by the
keyboard alone (Tab to Next, Enter): at each step the view (state()) and the step's sentence, written
from the catalog with the numbers CPython's Figure computes for the same text and view (formatted as the
language writes them), and the sentence said by the figure's live region. A changed sentence gets the
"your sentence" wording with its own numbers. A course's walk from a JSON file beside the page, its
placeholders filled from CPython's numbers, its words in the figure's language (English where a step has
none); broken files (a wrong field, not JSON, missing) with the notice naming the step and field while
the figure works on; select({tourIndex}), state().tour, and the host page's select message."""

import json
import re

import numpy as np
import pytest

from conftest import ROOT, WEIGHTS
from support.axe import violations
from support.figure_page import FigurePage, browser_context, containing, course_site, other_than
from test_embed import host, wait_for_message

CATALOGS = ROOT / "web" / "i18n"
DEFAULT = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
PANELS = ("heads", "matrix", "math", "next", "stack")
YOURS = "The King turned to Bob and smiled."

# Every text the figure's live region takes from now on, in window.spoken (the element's shadow root).
LISTEN = """() => {
    window.spoken = [];
    const region = document.querySelector("attention-live").shadowRoot.getElementById("announcer");
    new MutationObserver(() => spoken.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
}"""


def catalog(lang):
    return json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))


class Writer:
    """Numbers and messages written as the page writes them (Intl in en and de), from CPython's values."""

    def __init__(self, lang):
        self.lang, self.messages = lang, catalog(lang)

    def number(self, x, digits):
        text = f"{x:,.{digits}f}"
        return text if self.lang == "en" else text.replace(",", "\0").replace(".", ",").replace("\0", ".")

    def percent(self, share):
        text = f"{100 * float(share):.1f}"
        return f"{text}%" if self.lang == "en" else f"{text.replace('.', ',')}\u00a0%"

    def bits(self, bits):
        return self.text("numbers.bits", count=2, bits=self.number(abs(float(bits)), 2))  # 2: "other" (1.00 is "other" too)

    def listed(self, items):
        if self.lang == "en":
            return ", ".join(items[:-1]) + ", and " + items[-1]
        return ", ".join(items[:-1]) + " und " + items[-1]

    def text(self, key, count=None, **params):
        message = self.messages[key]
        if isinstance(message, dict):
            message = message["one" if count == 1 else "other"]
        if count is not None:
            params.setdefault("count", count)
        return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), message)


def expected_sentence(figure, writer, step, state):
    """The chapter's step `step` (its name) for the page's `state` (text, layer, head, token), from CPython."""
    text, layer, head, token = state["text"], state["layer"], state["head"], state["token"]
    book = "book" if text == DEFAULT["text"] else "yours"
    what_if = {"mask": (layer, head, True, False), "scale": (layer, head, False, True)}.get(step)
    result = figure.analyse(text, what_if=what_if)
    labels, attention = result["labels"], result["attention"]
    row = attention[layer - 1, head - 1, token]
    seen = len(labels) if step == "mask" else token + 1
    top = int(np.argmax(row[:seen]))
    params = {"layer": layer, "head": head, "query": labels[token], "top": labels[top], "share": writer.percent(row[top]),
              "entropy": writer.bits(result["entropy"][layer - 1, head - 1, token]), "even": writer.bits(result["entropy_even"][token])}
    key = f"tour.chapter.{step}.{book}"
    if step == "heads":
        opinions = []
        for h in range(attention.shape[1]):
            r = attention[layer - 1, h, token, :token + 1]
            opinions.append(writer.text("tour.opinion", head=h + 1, top=labels[int(np.argmax(r))], share=writer.percent(r.max())))
        params["opinions"] = writer.listed(opinions)
    elif step == "stack":
        stacked = figure.rollout(layer, head, token)
        best = int(np.argmax(stacked["rollout"]))
        params.update(top=labels[best], share=writer.percent(stacked["rollout"][best]), direct=writer.percent(stacked["direct"][best]))
    elif step == "mask":
        if token == len(labels) - 1:
            key = "tour.chapter.mask.last"
        else:
            later = token + 1 + int(np.argmax(row[token + 1:]))
            params.update(later=labels[later], laterShare=writer.percent(row[later]))
    elif step == "next":
        first = figure.predict(token)["candidates"][0]
        params.update(next=first["label"], nextShare=writer.percent(first["p"]))
    elif step == "cache":
        cache = figure.analyse(text)["cache"]  # the text again, as the walk's last update was: its cache's second pass
        params.update(reused=cache["reused"], computed=writer.number(cache["scores_computed"], 0), full=writer.number(cache["scores_full"], 0),
                      doubled=writer.number(cache["tokens_doubled"], 0), fullDoubled=writer.number(cache["scores_full_doubled"], 0))
        return writer.text(key, count=cache["reused"], **params), cache
    elif step == "flash":
        flashed = figure.flash(layer, head, token, 4)
        params.update(tile=flashed["tile"], held=flashed["scores_held"], plain=flashed["scores_plain"])
    return writer.text(key, **params), None


# The chapter's steps: their names (tour-steps.js) and the view each shows on the shipped model.
CHAPTER = [
    ("focused", dict(layer=2, head=3, panels=[], whatIf={"scale": True, "mask": True})),
    ("diffuse", dict(layer=1, head=1, panels=[], whatIf={"scale": True, "mask": True})),
    ("heads", dict(layer=2, head=3, panels=["heads"], whatIf={"scale": True, "mask": True})),
    ("stack", dict(layer=2, head=3, panels=["stack"], whatIf={"scale": True, "mask": True})),
    ("mask", dict(layer=2, head=3, panels=["matrix"], whatIf={"scale": True, "mask": False})),
    ("scale", dict(layer=2, head=3, panels=[], whatIf={"scale": False, "mask": True})),
    ("next", dict(layer=2, head=3, panels=["next"], whatIf={"scale": True, "mask": True})),
    ("cache", dict(layer=2, head=3, panels=["math"], whatIf={"scale": True, "mask": True})),
    ("flash", dict(layer=2, head=3, panels=["math"], whatIf={"scale": True, "mask": True})),
]


def open_element(playwright_context, url):
    page = playwright_context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    figure_page = FigurePage(page, "attention-live")
    figure_page.ready()
    return figure_page, errors


def wait_for_step(figure_page, index, count):
    """Until the walk shows step `index` (0-based) with its sentence's numbers in; returns (sentence, state())."""
    figure_page._wait({"what": "elements", "selector": "#tour-say"}, {"attributes": {"data-ready": "true"}},
                      {"tour": {"index": index, "count": count}})
    return figure_page.locator("#tour-say").text_content(), figure_page.state()


def check_view(state, view):
    assert {name for name, shown in state["panels"].items() if shown} == set(view["panels"]), state["panels"]
    assert (state["layer"], state["head"], state["whatIf"]) == (view["layer"], view["head"], view["whatIf"])


def active_id(figure_page):
    return figure_page.evaluate("() => document.querySelector('attention-live').shadowRoot.activeElement?.id ?? null")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_chapters_walk_by_keyboard(playwright, tmp_path, figure, lang):
    writer = Writer(lang)
    with course_site(tmp_path, {"unit.html": f'<attention-live lang="{lang}" tour="chapter"></attention-live>'}) as url, \
            browser_context(playwright) as context:
        figure_page, errors = open_element(context, url + "/unit.html")
        page = figure_page.page
        figure_page.wait_for_element("section.figure", attributes={"lang": lang})
        sentence, state = wait_for_step(figure_page, 0, len(CHAPTER))
        page.evaluate(LISTEN)
        # the buttons' names come from the catalog
        names = [figure_page.locator(f"#{part}").text_content() for part in ("tour-start", "tour-back", "tour-next", "tour-end")]
        assert names == [writer.messages[key] for key in ("markup.tourStart", "markup.tourBack", "markup.tourNext", "markup.tourEnd")]
        figure_page.locator("#tour-back").focus()
        page.keyboard.press("Tab")
        assert active_id(figure_page) == "tour-next"
        for index, (name, view) in enumerate(CHAPTER):
            if index > 0:
                page.keyboard.press("Enter")
                sentence, state = wait_for_step(figure_page, index, len(CHAPTER))
            assert active_id(figure_page) == "tour-next"  # the focus stays on Next, step after step
            check_view(state, view)
            assert state["text"] == DEFAULT["text"] and state["token"] == DEFAULT["token"]
            if name == "flash":
                figure_page.wait_for_panel("flash")
            expected, cache = expected_sentence(figure, writer, name, state)
            print(f"step {index + 1} ({name}): {sentence}")
            assert sentence == expected
            if cache is not None:
                assert state["reused"] == cache["reused"]
            title = figure_page.locator("#tour-title").text_content()
            assert title == writer.text("tour.chapterTitle", index=index + 1, count=len(CHAPTER))
            if index > 0:  # said by the live region (the first step, shown at load, is not: nothing is said before the reader acts)
                figure_page.wait_for_global("spoken", {"$last": sentence})
        assert figure_page.locator("#tour-next").get_attribute("aria-disabled") == "true"
        page.keyboard.press("Enter")  # Next on the last step: nothing
        assert figure_page.state()["tour"] == {"index": len(CHAPTER) - 1, "count": len(CHAPTER)}
        page.keyboard.press("Shift+Tab")
        assert active_id(figure_page) == "tour-back"
        page.keyboard.press("Enter")
        wait_for_step(figure_page, len(CHAPTER) - 2, len(CHAPTER))
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert active_id(figure_page) == "tour-end"
        page.keyboard.press("Enter")
        figure_page.wait_for(tour=None)
        assert figure_page.locator("#tour").is_hidden()
        assert active_id(figure_page) == "tour-start"  # the focus back on "Walk through"
        page.keyboard.press("Enter")
        wait_for_step(figure_page, 0, len(CHAPTER))
        assert active_id(figure_page) == "tour-next"
        assert errors == []


def test_a_changed_sentence_gets_its_own_numbers(playwright, tmp_path, figure):
    writer = Writer("en")
    with course_site(tmp_path, {"unit.html": '<attention-live tour="chapter"></attention-live>'}) as url, browser_context(playwright) as context:
        figure_page, errors = open_element(context, url + "/unit.html")
        wait_for_step(figure_page, 0, len(CHAPTER))
        figure_page.set_text(YOURS)
        figure_page.wait_for(text=YOURS)
        for index in (0, 1, 4):
            figure_page.select(tourIndex=index)
            sentence, state = wait_for_step(figure_page, index, len(CHAPTER))
            assert state["text"] == YOURS and state["token"] == len(state["tokens"]) - 1  # the reader's query stays: the last token
            expected, _ = expected_sentence(figure, writer, CHAPTER[index][0], state)
            assert sentence == expected
            assert sentence.startswith("In your sentence") or CHAPTER[index][0] == "mask"
        assert sentence == writer.text("tour.chapter.mask.last", query=".")
        figure_page.set_text("")  # an empty text: the step says so, and waits for nothing
        sentence, _ = wait_for_step(figure_page, 4, len(CHAPTER))
        assert sentence == writer.text("figure.noTokens")
        figure_page.set_text(YOURS)
        # an earlier query: the mask's step with its own numbers
        figure_page.select(token=2)
        figure_page.select(tourIndex=4)
        sentence, state = wait_for_step(figure_page, 4, len(CHAPTER))
        assert state["token"] == 2
        expected, _ = expected_sentence(figure, writer, "mask", state)
        assert sentence == expected and sentence.startswith("In your sentence")
        assert errors == []


COURSE_TEXT = "The Queen looked at Alice and smiled."
COURSE_WALK = {"steps": [
    {"view": {"text": COURSE_TEXT, "layer": 2, "head": 3, "token": 6, "panels": ["heads"]},
     "say": {"en": "«{query}» looks at {top}; «Alice» gets {share:Alice}, «Queen» {share:␣Queen}; entropy {entropy}.",
             "de": "«{query}» schaut auf {top}; «Alice» bekommt {share:Alice}, «Queen» {share:␣Queen}; Entropie {entropy}."}},
    {"view": {"layer": 1, "head": 1, "whatIf": {"scale": False}},
     "say": {"en": "Without √d_k, {top}; «Bob» {share:Bob}.", "fr": "Sans √d_k, {top}."}},
    {"view": {"token": 40, "panels": "next, math"}, "say": {"fr": "Dernier : {query}.", "es": "Último: {query}."}},
]}


def test_a_courses_walk_from_a_json_file(playwright, tmp_path, figure):
    writer = Writer("de")
    with course_site(tmp_path, {"unit.html": '<attention-live lang="de" tour="walks/walk.json"></attention-live>'}) as url, \
            browser_context(playwright) as context:
        (tmp_path / "course" / "walks").mkdir()
        (tmp_path / "course" / "walks" / "walk.json").write_text(json.dumps(COURSE_WALK, ensure_ascii=False), encoding="utf-8")
        figure_page, errors = open_element(context, url + "/unit.html")
        sentence, state = wait_for_step(figure_page, 0, 3)
        assert state["text"] == COURSE_TEXT and state["token"] == 5 and (state["layer"], state["head"]) == (2, 3)  # token 6, 1-based
        assert state["panels"]["heads"] and not state["panels"]["math"]
        result = figure.analyse(COURSE_TEXT)
        labels = result["labels"]
        row = result["attention"][1, 2, 5]
        top = int(np.argmax(row[:6]))
        assert figure_page.locator("#tour-title").text_content() == writer.text("tour.courseTitle", index=1, count=3)
        assert sentence == (f"«{labels[5]}» schaut auf «{labels[top]}» ({writer.percent(row[top])}); «Alice» bekommt "
                            f"{writer.percent(row[labels.index('␣Alice')])}, «Queen» {writer.percent(row[labels.index('␣Queen')])}; "
                            f"Entropie {writer.bits(result['entropy'][1, 2, 5])}.")
        figure_page.select(tourIndex=1)
        sentence, state = wait_for_step(figure_page, 1, 3)
        assert (state["layer"], state["head"], state["whatIf"], state["token"]) == (1, 1, {"scale": False, "mask": True}, 5)
        assert not any(state["panels"].values())
        row = figure.analyse(COURSE_TEXT, what_if=(1, 1, False, True))["attention"][0, 0, 5]
        top = int(np.argmax(row[:6]))
        # no German words for this step: English's (before the first given, French)
        assert sentence == (f"Without √d_k, «{labels[top]}» ({writer.percent(row[top])}); «Bob» "
                            f"{writer.text('tour.noToken', label='Bob')}.")
        # neither German nor English words: the first given; a token past the text's end: its last, and the notice says so
        figure_page.locator("#tour-next").press("Enter")
        sentence, state = wait_for_step(figure_page, 2, 3)
        assert sentence == f"Dernier : {labels[-1]}."
        assert state["token"] == len(labels) - 1 and {n for n, shown in state["panels"].items() if shown} == {"next", "math"}
        figure_page.wait_for_element("#notice", text={"$includes": writer.text("tour.tokenPastEnd", count=len(labels), step=3, token=40)})
        assert errors == []


BROKEN = {  # file name: (its bytes, the notice's sentence naming what is wrong)
    "layer.json": (json.dumps({"steps": [{"say": {"en": "One."}}, {"say": {"en": "Two."}}, {"view": {"layer": 5}, "say": {"en": "Three."}}]}),
                   "The walk “layer.json” cannot be shown. Step 3 of the walk: layer must be a whole number from 1 to 2. "
                   "The figure works as usual, without a walk."),
    "panel.json": (json.dumps({"steps": [{"view": {"panels": ["heads", "colours"]}, "say": {"en": "One."}}]}),
                   "The walk “panel.json” cannot be shown. Step 1 of the walk: panels has “colours”, which is not one of heads, "
                   "matrix, math, next, stack. The figure works as usual, without a walk."),
    "field.json": (json.dumps({"steps": [{"say": {"en": "One."}}, {"view": {"colour": "red"}, "say": {"en": "Two."}}]}),
                   "The walk “field.json” cannot be shown. Step 2 of the walk: view has a field “colour” that a walk does not know "
                   "(its fields are text, layer, head, token, panels and whatIf). The figure works as usual, without a walk."),
    "placeholder.json": (json.dumps({"steps": [{"say": {"en": "{top} and {shares}"}}]}),
                         "The walk “placeholder.json” cannot be shown. Step 1 of the walk: say.en has {shares}, which is not one of "
                         "{share:…}, {top}, {entropy}, {query}. The figure works as usual, without a walk."),
    "syntax.json": ('{"steps": [{"say": {"en": "One."}},]}', None),
    "large.json": (json.dumps({"steps": [{"say": {"en": "x" * 1_000_000}}]}),
                   "The walk “large.json” has 1,000,032 characters; a walk file may have at most 1,000,000. "
                   "The figure works as usual, without a walk."),
    "missing.json": (None, "The walk “missing.json” could not be loaded (HTTP 404); the figure works as usual, without a walk."),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_walk_is_named_and_the_figure_works_on(playwright, tmp_path, figure, name):
    content, message = BROKEN[name]
    with course_site(tmp_path, {"unit.html": f'<attention-live tour="{name}"></attention-live>'}) as url, browser_context(playwright) as context:
        if content is not None:
            (tmp_path / "course" / name).write_text(content, encoding="utf-8")
        figure_page, errors = open_element(context, url + "/unit.html")
        if message is None:  # the browser's own words for the JSON error follow "is not JSON ("
            message = re.compile(r"The walk “syntax\.json” is not JSON \(.+\); the figure works as usual, without a walk\.")
        figure_page.wait_for_element("#notice", hidden=False, text={"$includes": message if isinstance(message, str) else "is not JSON"})
        notice = figure_page.locator("#notice").text_content()
        assert (message in notice) if isinstance(message, str) else message.search(notice), notice
        assert figure_page.state()["tour"] is None
        assert figure_page.locator("#tour").is_hidden() and figure_page.locator("#tour-start").is_hidden()
        with pytest.raises(Exception, match="RangeError: tourIndex: no walk is shown"):
            figure_page.select(tourIndex=0)
        figure_page.select(layer=1, head=2, token=3)  # the figure works on
        state = figure_page.state()
        assert (state["layer"], state["head"], state["token"]) == (1, 2, 3)
        assert np.max(np.abs(np.array(state["weights"]) - figure.analyse(state["text"])["attention"][0, 1, 3])) <= 1e-4
        assert errors == []


def test_select_moves_the_walk_and_state_says_where_it_is(playwright, tmp_path, figure, axe_source):
    dark_ready = "<style>:root { color-scheme: light dark; background: Canvas; }</style>"  # a course page that turns dark with the reader's setting
    with course_site(tmp_path, {"unit.html": "<attention-live></attention-live>"}, head=dark_ready) as url, browser_context(playwright) as context:
        figure_page, errors = open_element(context, url + "/unit.html")
        assert figure_page.state()["tour"] is None
        with pytest.raises(Exception, match="RangeError: tourIndex: no walk is shown"):
            figure_page.select(tourIndex=0)
        figure_page.locator("#tour-start").click()  # "Walk through": the chapter's walk
        wait_for_step(figure_page, 0, len(CHAPTER))
        for scheme in ("light", "dark"):  # the bar's names, headings and contrast, in both schemes (the element's theme attribute)
            figure_page.page.emulate_media(color_scheme=scheme)
            figure_page.evaluate("scheme => document.querySelector('attention-live').setAttribute('theme', scheme)", scheme)
            assert violations(figure_page.page, axe_source) == [], scheme
        figure_page.select(tourIndex=5)
        _, state = wait_for_step(figure_page, 5, len(CHAPTER))
        check_view(state, CHAPTER[5][1])
        for bad in (9, -1, 1.5, "2"):
            with pytest.raises(Exception, match="RangeError: tourIndex must be an integer from 0 to 8"):
                figure_page.select(tourIndex=bad)
        with pytest.raises(Exception, match="TypeError: tourIndex is given alone"):
            figure_page.select(tourIndex=1, layer=1)
        assert figure_page.state()["tour"] == {"index": 5, "count": len(CHAPTER)}  # unchanged by the refused calls
        assert errors == []


def test_a_host_page_moves_the_walk_with_a_message(playwright, origin):
    """The standalone page in an iframe on another site, opened on a link's tour=chapter: the host's
    select message with tourIndex moves the walk; a bad index is answered with the RangeError."""
    with host(playwright, origin, "embed-origin=HOST_ORIGIN#tour=chapter") as (page, frame, _):
        framed = FigurePage(frame)
        wait_for_step(framed, 0, len(CHAPTER))
        reply = page.evaluate("() => ask({ type: 'attention-live:select', tourIndex: 6 })")
        assert reply["ok"] is True, reply
        _, state = wait_for_step(framed, 6, len(CHAPTER))
        check_view(state, CHAPTER[6][1])
        reply = page.evaluate("() => ask({ type: 'attention-live:select', tourIndex: 12 })")
        assert reply["ok"] is False and reply["error"].startswith("tourIndex must be an integer from 0 to 8"), reply
        page.evaluate("() => send({ type: 'attention-live:getState' })")
        wait_for_message(page, "attention-live:state", state={"tour": {"index": 6, "count": len(CHAPTER)}})


def test_the_example_walk_in_the_docs_is_a_valid_walk(playwright, tmp_path, figure):
    """docs/examples/tour.json, as a course copies it: no notice, its three steps, the first step's words
    with CPython's numbers."""
    example = (ROOT / "docs" / "examples" / "tour.json").read_text(encoding="utf-8")
    with course_site(tmp_path, {"unit.html": '<attention-live tour="tour.json"></attention-live>'}) as url, browser_context(playwright) as context:
        (tmp_path / "course" / "tour.json").write_text(example, encoding="utf-8")
        figure_page, errors = open_element(context, url + "/unit.html")
        sentence, state = wait_for_step(figure_page, 0, 3)
        assert "walk" not in (figure_page.locator("#notice").text_content() or "")
        result = figure.analyse(state["text"])
        labels, row = result["labels"], result["attention"][1, 2, 7]
        top = int(np.argmax(row[:8]))
        writer = Writer("en")
        assert sentence == (f"«{labels[7]}» looks back for the name that goes with it: «{labels[top]}» ({writer.percent(row[top])}). "
                            f"«Queen» gets {writer.percent(row[labels.index('␣Queen')])}.")
        assert errors == []


def test_the_tour_attribute_changed_on_a_live_figure(playwright, tmp_path, figure):
    """Setting tour="chapter" on a live element shows the walk from its first step; taking it away ends it
    (the button then starts the chapter's walk again)."""
    with course_site(tmp_path, {"unit.html": "<attention-live></attention-live>"}) as url, browser_context(playwright) as context:
        figure_page, errors = open_element(context, url + "/unit.html")
        figure_page.select(layer=1, head=4)
        assert figure_page.state()["tour"] is None and figure_page.locator("#tour").is_hidden()
        figure_page.evaluate("() => document.querySelector('attention-live').setAttribute('tour', 'chapter')")
        sentence, state = wait_for_step(figure_page, 0, len(CHAPTER))
        assert (state["layer"], state["head"], state["token"]) == (2, 3, DEFAULT["token"])
        assert sentence == expected_sentence(figure, Writer("en"), "focused", state)[0]
        figure_page.evaluate("() => document.querySelector('attention-live').removeAttribute('tour')")
        figure_page.wait_for(tour=None)
        assert figure_page.locator("#tour").is_hidden() and figure_page.locator("#tour-start").is_visible()
        assert errors == []


def test_a_link_opens_the_chapters_walk_and_the_address_keeps_it_while_it_is_shown(browser_page):
    """The standalone page at #tour=chapter: the walk from its first step; the address the page writes
    keeps tour=chapter while the walk is shown (a reload or a copied link opens it again) and drops it
    once the walk is ended."""
    figure_page = browser_page
    figure_page.page.goto(figure_page.page.url.split("#")[0] + "#tour=chapter&layer=1")
    figure_page.page.reload()
    assert figure_page.settled() == "ready"
    _, state = wait_for_step(figure_page, 0, len(CHAPTER))
    assert (state["layer"], state["head"]) == (2, 3)  # the step's view, over the link's layer
    figure_page.locator("#tour-next").click()
    wait_for_step(figure_page, 1, len(CHAPTER))
    figure_page.wait_for_link(tour="chapter", layer="1", head="1")
    figure_page.locator("#tour-end").click()
    figure_page.wait_for(tour=None)
    figure_page.wait_for_link(hash=other_than(containing("tour=")), layer="1", head="1")
