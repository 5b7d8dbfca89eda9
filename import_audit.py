"""The import audit: which of Python's standard library and of numpy the figure's Python imports, so
that the build ships only those (build.py's ``import_audit`` and ``trim_python``; issue 46).

The audit is one plan of calls, the worker's own (web/runtime/worker/worker.js: ``Figure(...)``,
``another_view``, ``add_checkpoint``, and its requests ``analyse``, ``explain``, ``flash``,
``predict``, ``rollout``, ``tokenize``), made on ordinary, hostile and long texts, each call with good arguments
and with bad ones. It runs twice:

* in Pyodide, under Node, through Pyodide's JavaScript API as the worker calls it (import_audit.mjs):
  Python started as in the tab without the memory snapshot, numpy written from its tar and the
  project's wheel unpacked as the worker does; its ``sys.modules`` at the end is what the tab imports,
  Pyodide's own start-up included;
* in CPython, here (``run``), with numpy 2.0.2, the version Pyodide ships (2.1.3 for CPython 3.13, which
  2.0.2 has no wheels for; build.py installs it into ``.cache/audit-python/`` from
  requirements-audit.txt, pinned by hash): the modules the same calls import from the package's first
  import on.

The build ships the union, and runs the plan once more in Pyodide on what it ships: the same modules
must be imported, every call must end the same way, and every number must be the same to the bit.

Each step of the plan is a dict (JSON):
    {"make": "figure", "model": PATH, "tokenizer": PATH, "sha256": HEX or None}   Figure(...), the model
    {"make": "view"}                                                               model.another_view()
    {"checkpoint": STEP, "file": PATH, "sha256": HEX}                              model.add_checkpoint(...)
    {"call": NAME, "on": "view" | "model", "kwargs": {...}}                        a request, as worker.js makes it
and may say ``"expect": "ValueError"`` (a bad argument: the call must raise it). Any other call may
end well or with ValueError (an empty text has no token to explain), but the same way in every run.
``"token": "last"`` in kwargs is the last token of the text analysed last. Paths are relative to the
model folder.

Usage (build.py runs it): ``python import_audit.py PLAN.json MODEL_DIR OUT.json`` with py/ on
PYTHONPATH; OUT.json gets {"modules": [[name, file], ...], "outcomes": [...]}.
"""

import json
import random
import sys

ORDINARY = (
    "Alice was beginning to get very tired of sitting by her sister on the bank.",
    "Ἐν ἀρχῇ ἦν ὁ λόγος, καὶ ὁ λόγος ἦν πρὸς τὸν θεόν.",
    "Привет, мир! Ça va? naïve café, 1,000.5 km",
)
# One example of each kind of ../shared/cases/hostile-inputs.md's "Text typed or pasted by the visitor".
HOSTILE = (
    "", "   ", "\n", "  Hello World.", "hello" + " " * 12 + "world", "a\n\nb", "a\r\nb", "\t" * 32, "a \t b",
    "👍", "👨‍👩‍👧", "你好", "a\ud83db", "a\u0000b", "ye\u0302\u0301u", "Hello <|endoftext|> world",
    "<img src=x onerror=alert(1)>", "Tom & Jerry",
)


def long_texts(block_size, max_text_chars):
    """Texts longer than what the model reads: [str]."""
    letters = random.Random(46)
    return ["a" * 20000, " " * 20000 + "a", "".join(letters.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5000)),
            "the " * (block_size + 1), "x" * (max_text_chars + 1)]


def plan(default_text, config, checkpoints, model_sha256, max_text_chars):
    """The audit's steps (list of dict, see the module's docstring) for a model.

    Args:
        default_text: the model's default sentence (default_view.json's "text").
        config: the model's config (dict with n_layer, n_head, block_size).
        checkpoints: [(step, path)] of the model's earlier checkpoints (path relative to its folder).
        model_sha256: the hex sha256 of model.safetensors.
        max_text_chars: the figure's cap on a text's characters (figure.MAX_TEXT_CHARS).
    """
    n_layer, n_head, block = config["n_layer"], config["n_head"], config["block_size"]
    model, tokenizer = "model.safetensors", "tokenizer.json"
    bad = "0" * 64
    steps = [{"make": "figure", "model": model, "tokenizer": tokenizer, "sha256": bad, "expect": "ValueError"},
             {"make": "figure", "model": model, "tokenizer": tokenizer, "sha256": model_sha256},
             {"make": "view"}]
    for step, path in checkpoints[:2]:
        steps += [{"checkpoint": step, "file": path, "sha256": bad, "expect": "ValueError"},
                  {"checkpoint": step + 1, "file": path, "sha256": None, "expect": "ValueError"},
                  {"checkpoint": step, "file": path, "sha256": None}]
    view = lambda name, expect=None, **kwargs: {"call": name, "on": "view", "kwargs": kwargs, **({"expect": expect} if expect else {})}
    steps += [view("explain", "ValueError", layer=1, head=1, token=0)]  # nothing analysed yet
    for text in (default_text, *ORDINARY, *HOSTILE, *long_texts(block, max_text_chars)):
        steps += [{"call": "tokenize", "on": "model", "kwargs": {"text": text}},
                  view("analyse", text=text),
                  view("explain", layer=n_layer, head=n_head, token="last"),
                  view("flash", layer=1, head=1, token="last"),
                  view("predict", token="last"),
                  view("predict", token=0, top=1),
                  view("rollout", layer=n_layer, head=n_head, token="last")]
    steps += [view("analyse", text=default_text),
              view("explain", layer=1, head=n_head, token="last", scale=False, mask=False, knockout=[[1, 1]]),
              view("flash", layer=n_layer, head=n_head, token="last", tile=1),
              view("flash", layer=n_layer, head=1, token=0, tile=block),
              view("predict", token="last", top=10, knockout=[[n_layer, n_head], [1, 1]]),
              view("analyse", text=default_text, knockout=[[n_layer, n_head]]),
              view("analyse", text=default_text, what_if=[n_layer, n_head, False, False]),
              view("analyse", text=default_text, what_if=[1, 1, True, False], knockout=[[1, 1]]),
              view("explain", "ValueError", layer=0, head=1, token=0),
              view("explain", "ValueError", layer=1, head=n_head + 1, token=0),
              view("explain", "ValueError", layer=1, head=1, token=-1),
              view("flash", "ValueError", layer=1, head=1, token=0, tile=0),
              view("predict", "ValueError", token=0, top=0),
              view("rollout", layer=1, head=1, token="last", knockout=[[1, 1]], what_if=[n_layer, 1, False, True]),
              view("rollout", "ValueError", layer=n_layer + 1, head=1, token=0),
              view("analyse", "ValueError", text=default_text, knockout=[[n_layer + 1, 1]]),
              view("analyse", "ValueError", text=default_text, what_if=[1, n_head + 1, True, True]),
              view("analyse", "ValueError", text=default_text, step=-1)]
    for step, _ in checkpoints[:2]:
        steps += [view("analyse", text=default_text, step=step), view("predict", token="last"),
                  view("explain", layer=1, head=1, token="last"), view("analyse", text=default_text)]
    return steps


def run(steps, folder):
    """Run ``steps`` in this Python (CPython) with the model folder ``folder`` (str). Returns a dict:
    modules, the modules imported from the package's first import on ([[name, file]], file "" for a
    built-in); outcomes, each step's ("ok", or the exception's type name)."""
    before = set(sys.modules)
    from attention_live.figure import Figure  # the package's own imports count: the tab makes them too
    read = lambda path: open(f"{folder}/{path}", "rb").read()
    model = view = None
    last, outcomes = 0, []
    for step in steps:
        try:
            if step.get("make") == "figure":
                model = Figure(read(step["model"]), read(step["tokenizer"]), step["sha256"])
            elif step.get("make") == "view":
                view = model.another_view()
            elif "checkpoint" in step:
                model.add_checkpoint(step["checkpoint"], read(step["file"]), step["sha256"])
            else:
                kwargs = {key: last if value == "last" else value for key, value in step["kwargs"].items()}
                answer = getattr(view if step["on"] == "view" else model, step["call"])(**kwargs)
                if step["call"] == "analyse":
                    last = max(0, len(answer["ids"]) - 1)
            outcomes.append("ok")
        except Exception as error:  # recorded: the build compares it with the plan and with Pyodide's
            outcomes.append(type(error).__name__)
    modules = [[name, getattr(module, "__file__", None) or ""] for name, module in sorted(sys.modules.items()) if name not in before]
    return {"modules": modules, "outcomes": outcomes}


if __name__ == "__main__":
    plan_path, folder, out = sys.argv[1:4]
    with open(plan_path, encoding="utf-8") as f:
        steps = json.load(f)
    report = run(steps, folder)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(report, f)
