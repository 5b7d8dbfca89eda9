"""The figure in a Jupyter notebook, computed by the kernel: ``AttentionLive(text="…")``.

An anywidget (https://anywidget.dev): its front end is the page's own figure (web/widget.js and the
modules it imports, bundled by build.py into ``static/widget.js``), and every number it shows is
computed here, by the kernel's CPython running the same ``attention_live.figure.Figure`` that the tab
runs in Pyodide, and answered over the widget's messages (``kernel.py``; the attention as binary
buffers). No Pyodide is loaded in a notebook. Runs where anywidget does: JupyterLab, Notebook 7, VS
Code, Colab.

    from attention_live.widget import AttentionLive
    w = AttentionLive(text="Then the Queen turned to Alice and said")
    w                 # the figure, live; typing in it updates w.text, w.token, ...
    w.layer = 1       # and the other way: the figure moves to layer 1

Needs the ``widget`` extra (``pip install "./py[widget]"``) and the files build.py writes into
``static/`` (``python3 build.py build`` before installing, from a clone of the repository).
"""

import dataclasses
import json
from pathlib import Path

import anywidget
import traitlets

from ..figure import MAX_TEXT_CHARS, Figure
from .kernel import Kernel

STATIC = Path(__file__).parent / "static"  # written by build.py (write_notebook_files)
SHIPPED_MODEL = STATIC / "model"  # the figure's own model: weights/ of the repository
MODEL_FILES = ("model.safetensors", "tokenizer.json", "default_view.json")  # a model folder (build.py's MODEL_FOLDER_FILES)
PANELS = ("heads", "matrix", "math", "next", "stack")  # the views below the chips (web/figure/view-state.js's PANEL_NAMES)


def model_folder(path):
    """``path`` (str or Path) as a model folder, checked: FileNotFoundError naming what is missing."""
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} does not exist (or is not a folder): a model folder is what "
                                "`python3 build.py train` writes (models/<name>/)")
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{folder}: no {', '.join(missing)} there; a model folder is what "
                                "`python3 build.py train` writes (models/<name>/)")
    return folder


def built_module():
    """The front end's module (Path). FileNotFoundError where build.py has not written it."""
    path = STATIC / "widget.js"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `python3 build.py build` in the repository, then install "
                                "the package again (pip install \"./py[widget]\")")
    return path


class AttentionLive(anywidget.AnyWidget):
    """The figure, live in a notebook, on the kernel's Python.

    Args:
        text: the sentence shown (str); default: the model's own sentence (its default view).
        layer, head: the head shown, 1-based (int); default: the model's default view's.
        token: the query token, 1-based (int; 0: the figure chooses, the last token).
        panels: the views open below the chips, comma-separated from "heads", "matrix", "math",
            "next", "stack" (str; "" none).
        lang: the figure's language, a tag with a catalog ("de", "es", "fr", "en"; str); "": the
            notebook page's, else English.
        model: a model folder (str or Path): what ``build.py train`` writes; default the shipped model.
    The six values are traitlets, synced both ways: set one and the figure follows; the reader's
    typing and clicks set them (``token`` is 0 until the figure is shown and has chosen its query).
    Raises FileNotFoundError for a model folder that is missing or lacks its files, and
    traitlets.TraitError for a layer or head outside the model, a token outside the text's tokens, or
    an unknown panel.
    """

    _esm = built_module()  # anywidget reads the file (and watches it with ANYWIDGET_HMR=1)
    text = traitlets.Unicode("").tag(sync=True)
    layer = traitlets.Int(0).tag(sync=True)
    head = traitlets.Int(0).tag(sync=True)
    token = traitlets.Int(0).tag(sync=True)
    panels = traitlets.Unicode("").tag(sync=True)
    lang = traitlets.Unicode("").tag(sync=True)
    _kernel = traitlets.Bool(True).tag(sync=True)  # widget.js: the kernel is the figure's Python
    _manifest = traitlets.Dict().tag(sync=True)  # what build.json gives the page's figure (build.py)

    def __init__(self, model=None, **values):
        folder = model_folder(SHIPPED_MODEL if model is None else model)
        figure = Figure((folder / "model.safetensors").read_bytes(), (folder / "tokenizer.json").read_bytes())
        self._figure = figure  # before the traitlets are set: their checks read the model and the tokenizer (the page's views are the kernel's)
        default_view = json.loads((folder / "default_view.json").read_text(encoding="utf-8"))
        defaults = {"text": default_view["text"], "layer": default_view["layer"], "head": default_view["head"]}
        if values.get("text", default_view["text"]) == default_view["text"]:
            defaults["token"] = default_view["token"] + 1  # its query; another text's is its last token (0)
        super().__init__(**{**defaults, **values})
        catalogs = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted((STATIC / "i18n").glob("*.json"))}
        self._manifest = {"build": f"kernel:{folder.resolve().name}", "config": dataclasses.asdict(figure.config),
                          "default_view": default_view, "max_text_chars": MAX_TEXT_CHARS,
                          "languages": sorted(catalogs), "catalogs": {lang: c for lang, c in catalogs.items() if lang != "en"}}
        self._served = Kernel(figure)
        self.on_msg(self._answer)

    @traitlets.validate("lang")
    def _has_catalog(self, proposal):
        value = proposal["value"]
        known = sorted(path.stem for path in (STATIC / "i18n").glob("*.json"))
        if value and value.split("-")[0].lower() not in known and value.lower() not in known:
            raise traitlets.TraitError(f"lang must be one of {', '.join(known)} (the figure's catalogs), or \"\" for the page's; not {value!r}")
        return value

    @traitlets.validate("layer", "head")
    def _within_model(self, proposal):
        name, value = proposal["trait"].name, proposal["value"]
        count = self._figure.config.n_layer if name == "layer" else self._figure.config.n_head
        if not 1 <= value <= count:
            raise traitlets.TraitError(f"{name} must be 1 to {count} (this model has {count} {name}s), not {value}")
        return value

    @traitlets.validate("token")
    def _among_tokens(self, proposal):
        value = proposal["value"]
        count = len(self._figure.tokenize(self.text)["ids"])
        if not 0 <= value <= count:
            raise traitlets.TraitError(f"token must be 1 to {count} (the text shows {count} tokens), or 0 for the last; not {value}")
        return value

    @traitlets.validate("panels")
    def _known_panels(self, proposal):
        names = [name.strip() for name in proposal["value"].split(",") if name.strip()]
        unknown = [name for name in names if name not in PANELS]
        if unknown:
            raise traitlets.TraitError(f"panels: {', '.join(unknown)} is not one of {', '.join(PANELS)} (comma-separated)")
        return proposal["value"]

    def _answer(self, _widget, content, _buffers):
        """The page's request ``content["message"]`` answered (kernel.py), each reply sent with its buffers."""
        if not isinstance(content, dict) or content.get("protocol") != "attention-live":
            return
        for reply, buffers in self._served.answer(content.get("message") or {}):
            self.send(reply, buffers)
