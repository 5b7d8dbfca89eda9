"""A later visit to the figure, in Chromium: one that starts Python again.

python-client.js asks for the shared worker's extended lifetime (EXTENDED_LIFETIME; Chromium 148+), so
in Chromium a reload, or the next page of the site, joins the Python that is already running for about
five minutes after the last page went (docs/benchmark-history.md, "From page to page"). A test or a
benchmark row about a later visit (the offline copy, the stored snapshot, a warm start) ends that
worker first, as the browser itself ends it once that time is up.
"""

import time

from support.figure_page import WAIT_MS, PythonWorker, worker_targets


def running(browser):
    """Whether ``browser`` lists a shared worker of the figure (a worker.js)."""
    return any(url.endswith("/worker.js") for kind, url in worker_targets(browser) if kind == "shared_worker")


def end_python(page):
    """End the shared worker that runs Python for ``page``'s browser (its ``close()``, evaluated in it
    through CDP: figure_page.PythonWorker), where there is one, and return once the browser lists it no
    more; the next page of the figure makes a new worker, which starts Python. ``page``: a Chromium page
    of that browser (connected to the worker or not: one about to open the figure, say)."""
    if not running(page.context.browser):
        return
    worker = PythonWorker(page)
    try:
        worker.evaluate("() => { setTimeout(() => close()); }")  # after the reply: a worker closed at once may not send it
    finally:
        worker.close()
    deadline = time.monotonic() + WAIT_MS / 1000
    while running(page.context.browser):
        if time.monotonic() > deadline:
            raise TimeoutError("the shared worker running Python did not end")
        page.wait_for_timeout(16)  # the browser's target list, polled until the worker is gone from it
