"""The figure's page object and the local setup shared by the browser tests and the benchmark.

Debian's chromium is launched by path (``playwright install`` cannot download here) with the flags
that keep it off the network; ``dist/`` is served on 127.0.0.1 by build.py's own server.
"""

import contextlib
import json
import threading

import build

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class FigurePage:
    """The page object: what a visitor sees and does, and the contract of data attributes."""

    def __init__(self, page):
        self.page = page

    def open(self, url):
        self.page.goto(url)
        self.page.wait_for_selector("html:not([data-state='loading'])", state="attached", timeout=120_000)
        assert self.page.evaluate("document.documentElement.dataset.state") == "ready", self.status()

    def wait_until(self, predicate, arg):
        """Wait, frame by frame, until the JS function ``predicate`` holds for ``arg`` (the page's CSP
        forbids the string evaluation behind Playwright's wait_for_function)."""
        self.page.evaluate(f"""arg => new Promise((resolve, reject) => {{
            const predicate = {predicate};
            const deadline = performance.now() + 60000;
            const check = () => predicate(arg) ? resolve()
                : performance.now() > deadline ? reject(new Error({json.dumps("timed out waiting for " + predicate)}))
                : requestAnimationFrame(check);
            check();
        }})""", arg)

    def status(self):
        return self.page.locator("#status").text_content()

    def state(self):
        return self.page.evaluate("window.attentionLive.state()")

    def type(self, text):
        box = self.page.locator("#text")
        box.fill("")
        box.press_sequentially(text)
        self.wait_until("t => window.attentionLive.state().text === t", text)

    def set_text(self, text):
        self.page.evaluate("t => window.attentionLive.setText(t)", text)

    def select(self, **view):
        self.page.evaluate("v => window.attentionLive.select(v)", view)

    def click_token(self, index):
        self.page.locator(f".chip[data-index='{index}']").click()
        self.wait_until("i => window.attentionLive.state().token === i", index)

    def click_choice(self, group, number):
        self.page.locator(f"#{group} button[data-value='{number}']").click()
        self.wait_until(f"n => window.attentionLive.state().{group[:-1]} === n", number)

    def chips(self):
        return self.page.eval_on_selector_all(".chip", """chips => chips.map(c => ({
            index: Number(c.dataset.index), weight: c.dataset.weight, masked: c.dataset.masked === "true",
            label: c.querySelector(".label").textContent, percent: c.querySelector(".percent").textContent}))""")


@contextlib.contextmanager
def serve_dist():
    """Serve ``dist/`` (built first if missing) on a free 127.0.0.1 port; yields the origin URL."""
    if not (build.DIST / "build.json").exists():
        build.build()
    server = build.make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
