"""Links that restore the view (issue 12, part 1): the address's fragment holds text, layer, head,
token (1-based, as on screen) and the open panels; bad values fall back to the nearest valid view
and the page says what it changed. Checked in headless Chromium against CPython's Figure."""

from urllib.parse import parse_qs, quote, urlencode

import pytest

from support.figure_page import FigurePage, Watch, browser_context, check_view, containing, starts_with
from support.later_visit import end_python

TEXT = "Alice said nothing, and the Queen said nothing either"


@pytest.fixture(scope="module")
def watch(origin):
    """The module's watch (figure_page.Watch): at the end, no page error and no request off the origin."""
    watch = Watch(origin)
    yield watch
    assert watch.requests
    watch.check()


@pytest.fixture(scope="module")
def context(playwright, watch):
    """One browser context for the module's pages."""
    with browser_context(playwright) as context:
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        yield watch.context(context)


@pytest.fixture
def opened(context, origin, watch):
    """Open origin/ with a fragment: returns (open_link, problems)."""
    pages = []

    def open_link(fragment):
        page = watch.page(context.new_page())
        pages.append(page)
        figure_page = FigurePage(page)
        figure_page.open(f"{origin}/#{fragment}")
        return figure_page

    yield open_link, watch.errors
    for page in pages:
        page.close()
    watch.check()


def notice(figure_page):
    return figure_page.page.locator("#notice").text_content()


def test_a_link_restores_the_view_and_survives_a_reload(opened, figure):
    open_link, _ = opened
    page = open_link(urlencode({"text": TEXT, "layer": 1, "head": 2, "token": 4, "panels": "matrix"}, quote_via=quote))
    for _ in range(2):
        state = page.state()
        assert (state["text"], state["layer"], state["head"], state["token"]) == (TEXT, 1, 2, 3)
        assert state["panels"] == {"heads": False, "matrix": True, "math": False, "next": False, "stack": False}
        assert page.page.locator("#matrix-panel").get_attribute("open") is not None
        check_view(page, figure)
        page.page.reload()
        assert page.settled() == "ready"


def test_the_address_follows_the_view_without_new_history_entries(opened, figure):
    open_link, _ = opened
    page = open_link("")
    entries = page.page.evaluate("history.length")
    page.type("The Hatter")
    page.select(layer=2, head=1, token=1)
    page.wait_for_link(hash=containing("layer=2&head=1&token=2"))  # written at most every 200 ms
    fragment = page.page.evaluate("location.hash")
    assert parse_qs(fragment[1:]) == {"text": ["The Hatter"], "layer": ["2"], "head": ["1"], "token": ["2"]}
    assert page.page.evaluate("history.length") == entries
    page.page.locator("#copy-link").click()
    page.wait_for_status(starts_with("Link copied"))
    assert page.page.evaluate("navigator.clipboard.readText()") == page.page.evaluate("location.href")


def test_each_part_of_the_view_is_written_on_its_own(opened, figure):
    """Each of layer, head, token, panels and text changed alone, to a value other than the default
    view's: the address follows that part and keeps the others."""
    open_link, _ = opened
    page = open_link("")
    default = page.state()
    fragment = lambda: {name: values[0] for name, values in parse_qs(page.page.evaluate("location.hash")[1:]).items()}  # noqa: E731
    expected = {"text": default["text"], "layer": str(default["layer"]), "head": str(default["head"]), "token": str(default["token"] + 1)}
    changes = [
        ("layer", "1", lambda: page.click_choice("layers", 1)),
        ("head", "2", lambda: page.click_choice("heads", 2)),
        ("token", "3", lambda: page.click_token(2)),
        ("panels", "heads", lambda: page.open_panel("heads")),
        ("text", "The Hatter", lambda: page.set_text("The Hatter")),
    ]
    assert default["layer"] != 1 and default["head"] != 2 and default["token"] != 2 and not any(default["panels"].values())
    for name, value, change in changes:
        change()
        expected[name] = value
        if name == "text":
            expected["token"] = str(len(figure.analyse(value)["ids"]))  # a new text selects its last token
        page.wait_for_link(**expected)
        assert fragment() == expected, name
    check_view(page, figure)


@pytest.mark.parametrize("fragment, changed, want", [
    ("text=Alice%20said&layer=9&head=0", ["layer 9; this model has 2, so layer 2", "head 0; this model has 4, so head 1"], (2, 1)),
    ("text=Alice%20said&head=abc&token=40", ['head "abc" is not a number', "token 40; the text has 2, so the last"], (None, 1)),
    ("text=Alice%E0%A4%20said", ["not valid percent-encoding of UTF-8; it is read with \ufffd"], (None, None)),
    ("text=Alice%20ate%20100%", ['A "%" in the link starts no percent-escape (two hex digits); it is read as a plain "%".'], (None, None)),
    ("text=" + "a" * 3000, ["3,000 characters; only its last 2,048"], (None, None)),
    ("text=" + "%F0%9F%98%80" * 2100, ["2,100 characters; only its last 2,048"], (None, None)),  # a pair of UTF-16 units each
    ("text=" + "a%0d%0a" * 1100, ["2,200 characters; only its last 2,048"], (None, None)),  # "\r\n" is one character in a box
    ("text=Alice&panels=matrix,nope", ["panels this figure does not have (nope)"], (None, None)),
    ("text=start" + "%0D%0A" * 1500 + "end", [], (None, None)),  # 1,508 characters once line breaks are as in the box
    ("text=Alice%20said&layer=1e309&token=2.5", ["token 2.5; tokens count from 1 in whole numbers, so token 3"], (2, None)),
    ("text=Alice%20said&token=-5", ["token -5; tokens count from 1 in whole numbers, so token 1"], (None, None)),
    ("text=Alice%20said&token=1e400", ["The link asked for token 1e400; the text has 2, so the last is selected."], (None, None)),
    # a language without a catalog: said in English (no language was set), the rest of the link kept
    ("text=Alice%20said&layer=1&lang=xx-YY", ['The link asked for the language "xx-YY", which this figure does not have (', "English", "); it is left out."], (1, None)),
])
def test_a_bad_link_falls_back_and_says_what_it_changed(opened, figure, fragment, changed, want):
    open_link, _ = opened
    page = open_link(fragment)
    if changed:
        page.wait_for_element("#notice", hidden=False)
    for words in changed:
        assert words in notice(page), notice(page)
    state = page.state()
    layer, head = want
    assert layer is None or state["layer"] == layer
    assert head is None or state["head"] == head
    assert str(2 ** 53 - 1) not in notice(page)  # a number the link never gave
    if "token=" not in fragment or "token=40" in fragment or "token=1e400" in fragment:
        assert state["token"] == len(state["ids"]) - 1
    state = check_view(page, figure)
    assert state["text"] == page.page.locator("#text").input_value()
    if "%0D%0A" in fragment:
        assert state["text"] == "start" + "\n" * 1500 + "end" and "characters" not in notice(page)  # not cut


def test_a_text_given_before_the_figure_is_ready_replaces_the_link(context, origin, figure):
    """Typing, or setText, while the model loads: the text given wins over the link's, the link's
    notices go, and the default view's token is never reported as a link's."""
    for fragment, give in [("", "type"), ("#text=Link%20words%20here&token=2&layer=9", "setText")]:
        page = context.new_page()
        end_python(page)  # the Python of the pages before (kept for minutes: python-client.js's extended lifetime) would serve this one at once
        held = []
        page.route("**/*.wasm", lambda route: held.append(route))  # Python waits until the text is given
        page.goto(f"{origin}/{fragment}")
        page.wait_for_selector("html[data-state='loading'] #layers input", state="attached")
        if give == "type":
            page.locator("#text").fill("Hi")
        else:
            page.evaluate("() => { window.given = window.attentionLive.setText('Hi there'); }")
        for route in held:
            route.continue_()
        page.route("**/*.wasm", lambda route: route.continue_())
        figure_page = FigurePage(page)
        assert figure_page.settled() == "ready"
        figure_page.wait_for(text="Hi" if give == "type" else "Hi there")
        assert page.locator("#notice").is_hidden(), notice(figure_page)
        check_view(figure_page, figure)
        page.close()
