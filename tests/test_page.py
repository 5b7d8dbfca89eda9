"""The figure in headless Chromium: typed text, clicked tokens and switched heads show CPython's numbers.

Uses the shared ``browser_page`` (conftest.py), which waits on the page's ``data-state`` (never a
sleep) and fails on any page error, console error, dialog or request to another origin. Hostile
input and hosting are in test_hostile_page.py.
"""

import json

from conftest import WEIGHTS
from support.figure_page import TOLERANCE, check_view


def test_default_view_tells_the_story(browser_page, figure):
    figure_page = browser_page
    default = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    state = check_view(figure_page, figure)
    assert state["text"] == default["text"]
    assert (state["layer"], state["head"], state["token"]) == (default["layer"], default["head"], default["token"])
    assert state["tokens"][state["token"]] == "\u2423said" and state["tokens"][default["key"]] == "\u2423Alice"
    assert abs(state["weights"][default["key"]] - default["said"]["alice"]) <= TOLERANCE
    alice = figure_page.page.locator(f'#tokens [data-index="{default["key"]}"]').inner_text()
    percent = alice.split()[-1]  # the chip's own percentage, as the visitor reads it
    story = figure_page.page.locator("#default-story").inner_text()
    assert f"layer {default['layer']}, head {default['head']}, with «said» as the query: {percent} " in story
    assert "computed live in this tab" in figure_page.status()
    marks = figure_page.page.evaluate("['first-paint', 'live'].map(n => performance.getEntriesByName('attention-live:' + n).length)")
    assert marks == [1, 1]


def test_query_stays_while_the_text_before_it_is_unchanged_else_follows_the_typing(browser_page, figure):
    figure_page = browser_page
    default = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    figure_page.select(layer=default["layer"], head=default["head"], token=default["token"])
    figure_page.set_text(default["text"] + " And then")
    assert check_view(figure_page, figure)["token"] == default["token"]
    figure_page.set_text("Once upon a time")
    state = check_view(figure_page, figure)
    assert state["token"] == len(state["ids"]) - 1
    figure_page.type("Alice said nothing")  # the box cleared, then retyped key by key: the query keeps up
    state = check_view(figure_page, figure)
    assert state["token"] == len(state["ids"]) - 1
    error = figure_page.page.evaluate("() => window.attentionLive.setText(null).then(() => 'resolved', e => e.name)")
    assert error == "TypeError"


def test_typing_clicking_and_switching(browser_page, figure):
    figure_page = browser_page
    figure_page.type('The Mock Turtle sighed, and Alice said "Go on!"\n\tthen')
    check_view(figure_page, figure)
    figure_page.click_token(4)
    check_view(figure_page, figure)
    for layer, head in [(2, 1), (1, 3), (2, 4)]:
        figure_page.click_choice("layers", layer)
        figure_page.click_choice("heads", head)
        state = check_view(figure_page, figure)
        assert (state["layer"], state["head"], state["token"]) == (layer, head, 4)


def test_a_refused_selection_changes_nothing(browser_page, figure):
    figure_page = browser_page
    outcome = "v => window.attentionLive.select(v).then(() => 'resolved', e => e.name)"
    figure_page.set_text("Alice said")
    figure_page.select(layer=1, head=1, token=0)
    before = figure_page.state()
    assert figure_page.page.evaluate(outcome, {"layer": 2, "head": 3, "token": 999}) == "RangeError"
    assert figure_page.state() == before
    check_view(figure_page, figure)
    assert figure_page.page.evaluate("() => window.attentionLive.select({ token: -0 }).then(() => Object.is(window.attentionLive.state().token, 0))")
    big = "() => window.attentionLive.select({ layer: 2n }).then(() => 'resolved', e => e.message)"  # a BigInt, whose text is "2"
    assert figure_page.page.evaluate(big) == "layer must be an integer from 1 to 2, got 2n (a BigInt, not a number)"
    assert figure_page.state() == before
    figure_page.set_text("")
    assert figure_page.page.evaluate(outcome, {"token": 0}) == "RangeError"


def test_select_waits_for_the_text_on_its_way(browser_page, figure):
    figure_page = browser_page
    figure_page.set_text("ab")
    text = "Alice said that the Queen was very angry indeed."
    token = figure_page.page.evaluate("""t => {
        const api = window.attentionLive;
        api.setText(t);  // not awaited: select must pick among this text's tokens
        return api.select({ token: 8 }).then(() => api.state().token);
    }""", text)
    assert token == 8 and len(figure.analyse(text)["ids"]) == 10  # "ab" has 1 or 2 tokens
    check_view(figure_page, figure)
