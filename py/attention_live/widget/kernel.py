"""The figure's messages answered by a notebook's kernel: the protocol of ``web/runtime/worker/worker.js``,
with the kernel's CPython in place of the tab's Pyodide.

The page's side (``web/runtime/kernel-port.js``) sends the worker's requests as an anywidget model's
custom messages; ``Kernel.answer`` returns the worker's replies, each as the ``(content, buffers)``
that ``AnyWidget.send`` takes. Requests name a ``Figure`` method (``analyse``, ``explain``, ``flash``,
``predict``, ``rollout``, ``tokenize``), its other fields being the method's keyword arguments; each figure of the
page (a number chosen by the page) gets its own ``Figure.another_view``, as in the worker.

On the wire every numpy array becomes ``{"$array": i, "dtype", "shape"}`` with its bytes as
``buffers[i]`` (C order, little-endian): Jupyter's messages carry binary buffers beside their JSON
(Jupyter messaging protocol, "Custom messages" with ``buffers``), so the T × T attention of every head
crosses as bytes, never as a JSON list. A float JSON cannot hold (inf, nan) becomes ``{"$float": ...}``.
"""

import math
import uuid

import numpy as np

PROTOCOL = "attention-live"  # every message's "protocol" field (kernel-port.js listens for it)
REQUESTS = ("analyse", "explain", "flash", "predict", "rollout", "tokenize")  # worker.js's REQUESTS
ON_MODEL = ("tokenize",)  # asked of the model, not of a figure's view (worker.js: onView false)


def to_wire(value, buffers):
    """``value`` (dicts, lists, tuples, numbers, strings, None, numpy arrays and scalars) as JSON-ready
    data, each array's bytes appended to ``buffers`` (a list) in its place.

    Example: ``to_wire({"w": np.ones(2, np.float32)}, b)`` gives
    ``{"w": {"$array": 0, "dtype": "float32", "shape": [2]}}`` with ``b == [8 bytes]``.
    """
    if isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
        buffers.append(array.tobytes())
        return {"$array": len(buffers) - 1, "dtype": value.dtype.name, "shape": list(value.shape)}
    if isinstance(value, dict):
        return {str(key): to_wire(item, buffers) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_wire(item, buffers) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    return value


def message(content, buffers=None):
    """One reply as ``AnyWidget.send``'s arguments: ``content`` wrapped with the protocol's name."""
    return {"protocol": PROTOCOL, "message": content}, buffers or []


class Kernel:
    """The figures of one widget, served by the kernel's Python.

    Args:
        model: the ``Figure`` (attention_live.figure) loaded once; each figure of the page gets a view.
    """

    def __init__(self, model):
        self.model = model
        self.views = {}  # figure number (int, chosen by the page) -> Figure view
        self.runtime = {"id": uuid.uuid4().hex[:12], "kind": "kernel", "snapshot": "none", "steps": {}}

    def answer(self, request):
        """The replies (a list of ``(content, buffers)``) to ``request``, a dict as worker.js reads it:
        ``{"type": "init"}``, ``{"type": "forget", "figure"}``, or ``{"type", "id", "figure", ...keywords}``.
        A request that fails is answered with ``{"type": "error", "id", "message"}``: one sentence (the
        exception's), never a traceback; an unknown type likewise."""
        kind, number, id_ = request.get("type"), request.get("figure"), request.get("id")
        if kind == "init":  # Python runs already: hello and ready at once
            return [message({"type": "hello"}), message({"type": "ready", "runtime": self.runtime}),
                    message({"type": "runtime", "figures": len(self.views)})]
        if kind == "forget":
            return [message({"type": "runtime", "figures": len(self.views)})] if self.views.pop(number, None) else []
        if kind not in REQUESTS:
            return [message({"type": "error", "id": id_, "message": f"unknown request {kind!r}"})]
        keywords = {key: value for key, value in request.items() if key not in ("type", "id", "figure") and value is not None}
        try:
            value = getattr(self.model if kind in ON_MODEL else self.view(number), kind)(**keywords)
        except Exception as error:  # the figure says it; the kernel and the other figures go on
            return [message({"type": "error", "id": id_, "message": str(error)})]
        return [self.reply(kind, id_, value)]

    def view(self, number):
        """The figure ``number``'s own ``Figure`` view, made on its first request."""
        if number not in self.views:
            self.views[number] = self.model.another_view()
        return self.views[number]

    @staticmethod
    def reply(kind, id_, value):
        """``value`` (the method's dict) as worker.js's "result" (analyse) or "answer" message."""
        buffers = []
        if kind != "analyse":
            return message({"type": "answer", "id": id_, "value": to_wire(value, buffers)}, buffers)
        attention = value["attention"]
        if attention is None:  # empty text: worker.js sends an empty array of shape [0, 0, 0, 0]
            attention = np.zeros((0, 0, 0, 0), np.float32)
        entropy = value["entropy"] if value["entropy"] is not None else np.zeros((0, 0, 0), np.float32)
        content = {"type": "result", "id": id_, "text": value["text"], "ids": value["ids"], "labels": value["labels"],
                   "attention": attention.astype(np.float32, copy=False), "shape": list(attention.shape),
                   "entropy": entropy, "entropyEven": value["entropy_even"],
                   "cache": value["cache"], "tokensDropped": value["tokens_dropped"], "charsDropped": value["chars_dropped"]}
        return message(to_wire(content, buffers), buffers)
