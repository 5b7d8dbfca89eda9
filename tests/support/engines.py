"""The three browser engines the figure is tested in, behind one small page interface.

* ``chromium``: Debian's chromium through Playwright (as the rest of the suite);
* ``firefox``: Debian's firefox-esr through npm puppeteer-core over WebDriver BiDi, which Firefox speaks
  itself (``tests/engine-drivers/firefox-bridge.mjs``, run with Node from ``.cache/engines/``);
* ``webkit``: Debian's WebKitGTK (webkit2gtk-driver: ``WebKitWebDriver`` and its ``MiniBrowser``, Safari's
  engine) through Selenium, on a virtual X display (Xvfb), since MiniBrowser has no headless mode.

``build.py test`` installs all three (``build.install_engines``). ``ATTENTION_LIVE_ENGINES`` (a comma
list, e.g. ``firefox``) runs the cross-engine tests in those engines only; pytest's ``-k firefox`` does too.
An engine that is missing fails its tests with what to install: it is never skipped.

Each engine's ``new_page()`` gives an ``EnginePage`` in a fresh profile or context: ``goto``, ``reload``,
``evaluate(fn, arg)`` (``fn`` a JavaScript function's source, awaited if it returns a promise),
``type``, ``click``, ``wait_until``, ``problems`` (page errors, console errors; requests that left the
origin where the engine reports them) and ``close``. Scripts are evaluated by the driver, outside the
page's Content-Security-Policy, which forbids the page itself any string evaluation.
"""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import build
from support.figure_page import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, FigureBase

ENGINES = ("chromium", "firefox", "webkit")
FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = next(iter(sorted(Path("/usr/lib").glob("*/webkit2gtk-4.*/MiniBrowser"))), Path("/usr/lib/webkit2gtk-4.1/MiniBrowser"))  # Debian's, per architecture
BRIDGE = Path(__file__).resolve().parent.parent / "engine-drivers" / "firefox-bridge.mjs"


class EngineMissing(Exception):
    """An engine's browser or driver is not installed; the message says what to install."""


def wanted_engines():
    """The engines the cross-engine tests run in: ATTENTION_LIVE_ENGINES (comma list), else all three."""
    asked = [name.strip() for name in os.environ.get("ATTENTION_LIVE_ENGINES", ",".join(ENGINES)).split(",") if name.strip()]
    unknown = set(asked) - set(ENGINES)
    if unknown:
        raise ValueError(f"ATTENTION_LIVE_ENGINES: unknown engine(s) {sorted(unknown)}; choose among {ENGINES}")
    return asked


def require(path, what):
    if not Path(path).exists():
        raise EngineMissing(f"{path} is missing: {what} (python3 build.py test installs it; ATTENTION_LIVE_ENGINES=chromium runs without it)")


class EnginePage(FigureBase):
    """What the cross-engine tests do with a page; subclasses implement the primitives. The readable
    waits (wait_for, wait_for_element, ...) and state(), set_text(), select() are FigurePage's
    (FigureBase); the figure is the standalone page's unless ``element`` (a CSS selector) is set."""

    def wait_until(self, predicate, arg=None, timeout_s=WAIT_MS / 1000, tolerate=()):
        """Poll the JavaScript function ``predicate(arg)`` until it is truthy (every 50 ms; a readiness
        signal, never a sleep in its place); TimeoutError after ``timeout_s``. A poll that raises one of
        the exception classes ``tolerate`` counts as not yet (a script sent while a page navigates)."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if self.evaluate(predicate, arg):
                    return
            except tolerate:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {predicate} ({arg!r})")
            time.sleep(0.05)

    def wait_until_still(self, selector):
        """Wait until the element ``selector`` is in view and its box is the same over two animation
        frames. Playwright's click waits for this itself; WebDriver's and Puppeteer's clicks take the
        element's position once and click there, so a panel's numbers arriving a moment later (they push
        the summaries below it down) would make the click miss (seen once in CI, WebKit)."""
        self.wait_until("""s => new Promise((done) => {
            const element = document.querySelector(s);
            if (!element) return done(false);
            element.scrollIntoView({ block: "nearest" });
            const box = (e) => JSON.stringify(e.getBoundingClientRect());
            const before = box(element);
            requestAnimationFrame(() => requestAnimationFrame(() => done(box(element) === before)));
        })""", selector)

    def open(self, url):
        """Go to ``url`` and wait until the figure leaves data-state="loading"; returns the state."""
        self.goto(url)
        self.wait_until("() => document.documentElement && document.documentElement.dataset.state !== 'loading'")
        return self.evaluate("() => document.documentElement.dataset.state")


class ChromiumPage(EnginePage):
    def __init__(self, context):
        self.context = context
        self.page = context.new_page()
        self.errors, self.foreign = [], []
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("console", lambda m: self.errors.append(f"console error: {m.text}") if m.type == "error" else None)
        self.origin = None
        context.on("request", lambda r: self.foreign.append(r.url) if self.origin and not r.url.startswith((self.origin + "/", f"blob:{self.origin}/", "data:")) else None)

    def goto(self, url):
        self.origin = self.origin or url.split("/", 3)[0] + "//" + url.split("/", 3)[2]
        self.page.goto(url)

    def reload(self):
        self.page.reload()

    def evaluate(self, fn, arg=None):
        return self.page.evaluate(fn, arg)

    def type(self, selector, text):
        self.page.locator(selector).press_sequentially(text)

    def click(self, selector):
        self.page.locator(selector).click()

    def problems(self):
        return self.errors + [f"request left the page's origin: {url}" for url in self.foreign]

    def close(self):
        self.context.close()


class Chromium:
    """Chromium through the test session's Playwright (one sync Playwright per thread: a second one
    started beside the session's would find its event loop running and refuse)."""

    def __init__(self, playwright):
        require(CHROMIUM, "Debian's chromium (apt-get install chromium)")
        self.browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def new_page(self):
        return ChromiumPage(self.browser.new_context())

    def quit(self):
        self.browser.close()


class FirefoxPage(EnginePage):
    def __init__(self, bridge):
        self.bridge = bridge
        self.number = bridge.call("newPage")

    def goto(self, url):
        self.bridge.call("goto", page=self.number, url=url)

    def reload(self):
        self.bridge.call("reload", page=self.number)

    def evaluate(self, fn, arg=None):
        return self.bridge.call("evaluate", page=self.number, fn=fn, arg=arg)

    def type(self, selector, text):
        self.bridge.call("type", page=self.number, selector=selector, text=text)

    def click(self, selector):
        self.wait_until_still(selector)
        self.bridge.call("click", page=self.number, selector=selector)

    def problems(self):
        return self.bridge.call("problems", page=self.number)

    def close(self):
        self.bridge.call("closePage", page=self.number)


class Firefox:
    """firefox-bridge.mjs under Node, from .cache/engines/ (where build.py installs puppeteer-core)."""

    def __init__(self):
        require(FIREFOX, "Debian's firefox-esr (apt-get install firefox-esr)")
        modules = build.CACHE / "engines"
        require(modules / "node_modules" / "puppeteer-core", "npm's puppeteer-core (build.py installs it with npm ci into .cache/engines/)")
        node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()  # "v20.20.2"
        if int(node.lstrip("v").split(".")[0]) < 18:
            raise EngineMissing(f"Node.js {node} is too old for puppeteer-core, Firefox's driver: it needs 18 or newer")
        script = modules / BRIDGE.name
        shutil.copyfile(BRIDGE, script)  # beside node_modules/, where Node resolves "puppeteer-core"
        self.process = subprocess.Popen(["node", str(script), FIREFOX], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, encoding="utf-8", cwd=modules)

    def call(self, op, **fields):
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox bridge ended (exit {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"Firefox: {answer['error']}")
        return answer["ok"]

    def new_page(self):
        return FirefoxPage(self)

    def quit(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


class WebKitPage(EnginePage):
    """One WebDriver session (a MiniBrowser of its own, a fresh profile) per page."""

    def __init__(self, display):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        options = Options()
        options.binary_location = str(MINIBROWSER)
        options.add_argument("--automation")
        service = Service(executable_path=WEBKIT_DRIVER, env={**os.environ, "DISPLAY": display})
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_script_timeout(WAIT_MS / 1000)

    def goto(self, url):
        self.driver.get(url)

    def reload(self):
        """Reload and return once the new document answers scripts. WebKitWebDriver's refresh can return
        while the page is still navigating, and a script sent then fails with "Could not parse script
        result" (seen once in CI): the old document is marked, and only the new one's answers count."""
        from selenium.common.exceptions import WebDriverException

        self.evaluate("() => { window.__beforeReload = true; }")
        self.driver.refresh()
        self.wait_until("() => document.documentElement !== null && window.__beforeReload === undefined",
                        tolerate=WebDriverException)

    def evaluate(self, fn, arg=None):
        answer = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => ({fn})(arguments[0])).then((value) => done({{ ok: value === undefined ? null : value }}),"
            " (error) => done({ error: String(error && error.message || error) }));", arg)
        if "error" in answer:
            raise RuntimeError(f"WebKit: {answer['error']}")
        return answer["ok"]

    def type(self, selector, text):
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, selector).send_keys(text)

    def click(self, selector):
        from selenium.webdriver.common.by import By

        self.wait_until_still(selector)
        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def problems(self):
        """None can be read: WebKitWebDriver (WebDriver classic) reports no console, page errors or
        requests. The tests check what the page itself says (data-state, #status) in every engine."""
        return []

    def close(self):
        self.driver.quit()


class WebKit:
    """Xvfb on a free display, and a WebKitWebDriver session per page."""

    def __init__(self):
        require(WEBKIT_DRIVER, "Debian's webkit2gtk-driver (apt-get install webkit2gtk-driver)")
        require(MINIBROWSER, "WebKitGTK's MiniBrowser (apt-get install webkit2gtk-driver)")
        require("/usr/bin/Xvfb", "Debian's xvfb (apt-get install xvfb)")
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                     pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as chosen:  # Xvfb writes the display number it chose once it accepts clients
            self.display = ":" + chosen.readline().strip()

    def new_page(self):
        return WebKitPage(self.display)

    def quit(self):
        self.xvfb.terminate()
        self.xvfb.wait(timeout=30)


def start(engine, playwright):
    """A running ``engine`` (one of ENGINES; Chromium is launched by ``playwright``, a started sync
    Playwright); EngineMissing names what is not installed."""
    if engine == "chromium":
        return Chromium(playwright)
    return {"firefox": Firefox, "webkit": WebKit}[engine]()
