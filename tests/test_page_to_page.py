"""From one page of a course site to the next (issue 43, part 4): static sites (MyST, Sphinx, MkDocs,
plain HTML) load a whole new page on every link, and the figure's Python lives in a SharedWorker asked
for an extended lifetime (python-client.js, EXTENDED_LIFETIME; Chromium 148+), so the next page's figure
joins the Python the page before started instead of starting one again.

Chromium runs here without its back-forward cache (Playwright's default, and said again in ARGS): a page
kept in that cache keeps the worker alive by itself, so these tests see the extended lifetime alone.
"""

from support.figure_page import CHROMIUM_ARGS, FigurePage, PythonWorker, browser_context, check_view, course_site, worker_targets

ARGS = [*CHROMIUM_ARGS, "--disable-back-forward-cache"]
PAGES = {"one.html": '<attention-live text="Alice said hello to the Rabbit."></attention-live><p><a id="next" href="two.html">Next</a></p>',
         "two.html": '<attention-live text="The Queen shouted at the Hatter"></attention-live><p><a id="next" href="one.html">Back</a></p>'}
NAVIGATIONS = 10  # link clicks back and forth after the first
# The option taken out of every SharedWorker the page makes: a browser that does not keep the worker
# (Firefox, Safari, Chromium before 148), for the control test.
WITHOUT_EXTENDED_LIFETIME = """{
    const Shared = window.SharedWorker;
    window.SharedWorker = function SharedWorker(url, options) {
        return new Shared(url, typeof options === "object" ? { ...options, extendedLifetime: false } : options);
    };
}"""
WORKER_KEEPS = "() => ({ figures: figures.size, views: figuresServed(), connections: connections.size })"  # worker.js's globals


def follow_link(page):
    """Click the page's link (a full navigation to the other page) and wait until its figure is live;
    returns that figure's state()."""
    with page.expect_navigation():
        page.click("a#next")
    element = FigurePage(page, "attention-live")
    element.ready()
    return element.state()


def python_started_here(page):
    """Whether this page saw the worker start Python (its mark attention-live:worker:python, which
    python-client.js makes only for loading steps that ended after the page began)."""
    return page.evaluate("() => performance.getEntriesByName('attention-live:worker:python').length > 0")


def test_the_next_page_joins_the_python_the_page_before_started(playwright, tmp_path, figure):
    with course_site(tmp_path, PAGES) as url, browser_context(playwright, args=ARGS) as context:
        page = context.new_page()
        page.goto(url + "/one.html")
        first = FigurePage(page, "attention-live")
        first.ready()
        started = first.state()["runtime"]
        assert started["kind"] == "shared" and python_started_here(page)

        state = follow_link(page)
        assert state["runtime"]["id"] == started["id"], "the second page started Python again"
        assert not python_started_here(page)
        assert state["text"] == "The Queen shouted at the Hatter"
        check_view(FigurePage(page, "attention-live"), figure)  # CPython's numbers
        assert len([kind for kind, worker_url in worker_targets(context.browser) if worker_url.endswith("/worker.js")]) == 1

        for _ in range(NAVIGATIONS):
            state = follow_link(page)
            assert state["runtime"]["id"] == started["id"]
        element = FigurePage(page, "attention-live")
        element.wait_for(runtime={"figures": 1})  # every page before forgot its figure (pagehide)
        check_view(element, figure)
        worker = PythonWorker(page)
        try:
            kept = worker.evaluate(WORKER_KEEPS)
        finally:
            worker.close()
        assert kept == {"figures": 1, "views": 1, "connections": 1}, f"after {NAVIGATIONS + 2} pages the worker keeps {kept}"


def test_without_the_extended_lifetime_each_page_starts_python(playwright, tmp_path, figure):
    """The control: with the option taken out, as in a browser that does not have it, the next page
    starts Python again (so the test above sees the option at work), and is right all the same."""
    with course_site(tmp_path, PAGES) as url, browser_context(playwright, args=ARGS) as context:
        context.add_init_script(WITHOUT_EXTENDED_LIFETIME)
        page = context.new_page()
        page.goto(url + "/one.html")
        first = FigurePage(page, "attention-live")
        first.ready()
        started = first.state()["runtime"]
        state = follow_link(page)
        assert state["runtime"]["kind"] == "shared" and state["runtime"]["id"] != started["id"] and python_started_here(page)
        check_view(FigurePage(page, "attention-live"), figure)
