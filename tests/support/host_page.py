"""A host page on its own origin (another site than dist/'s) embedding the figure in an iframe: it
records every message from the figure, sizes the frame to the height it announces, and offers
ask(message). Shared by tests/test_embed.py and tests/test_predict_mode.py."""

import contextlib
import json

from support.figure_page import WAIT_MS, FigurePage, Watch, parent_page, some_item

# The host: a course page that records every message from the figure, sizes the iframe to the height
# it announces, and offers ask(message) (post with an id, resolve with the reply).
HOST = """<!doctype html>
<meta charset="utf-8"><title>Course page</title>
<iframe id="figure" title="Attention, live" style="width: 600px; height: 300px; border: 0"></iframe>
<script>
  const figure = document.getElementById("figure");
  window.received = [];
  window.addEventListener("message", (event) => {
    if (event.source !== figure.contentWindow) return;
    received.push({ origin: event.origin, data: event.data });
    if (event.data?.type === "attention-live:resize") figure.style.height = `${event.data.height}px`;
  });
  let nextId = 1;
  window.send = (message) => figure.contentWindow.postMessage(message, "FIGURE_ORIGIN");
  window.ask = (message) => {
    const id = `q${nextId++}`;
    send({ ...message, id });
    return new Promise((resolve) => {
      const check = () => {
        const reply = received.find((m) => m.data?.type === "attention-live:reply" && m.data.id === id);
        if (reply) resolve(reply.data); else setTimeout(check, 20);
      };
      check();
    });
  };
  window.ofType = (type) => received.filter((m) => m.data?.type === type || m.data?.subject === type);
  const early = EARLY; // a message sent as soon as the iframe has loaded, long before the figure is ready
  if (early) figure.addEventListener("load", () => send(early), { once: true });
  figure.src = "FIGURE_ORIGIN/?" + "QUERY".replace("HOST_ORIGIN", encodeURIComponent(location.origin));
</script>
"""


@contextlib.contextmanager
def host(playwright, origin, query, early=None):
    """A host page on its own origin embedding the figure at ``origin`` with the query string ``query``
    (HOST_ORIGIN in it stands for the host's own origin); yields (page, figure frame, problems,
    host origin), and at the end asserts no page error or console error and that the figure's
    requests stay on its origin."""
    body = HOST.replace("FIGURE_ORIGIN", origin).replace("QUERY", query).replace("EARLY", json.dumps(early))
    watch = Watch(origin)
    with parent_page(playwright, body, watch=watch) as page:
        host_origin = page.evaluate("location.origin")
        page.wait_for_function("() => ofType('attention-live:ready').length === 1", timeout=WAIT_MS)
        frame = next(f for f in page.frames if f.url.startswith(origin + "/"))
        yield page, frame, host_origin
        watch.check()
        assert any(url.startswith(origin + "/") for url in watch.requests), watch.requests


def wait_for_message(page, kind, **data):
    """Wait until the host has received a message of type ``kind`` with ``data``'s fields (partly equal)."""
    FigurePage(page).wait_for_global("received", some_item({"data": {"type": kind, **data}}))
