"""What holds for any model folder the figure is built with (test_model_folder.py, test_course_model.py)."""

import json

import numpy as np

import build
from support.figure_page import check_view


def model_figure(model):
    """CPython's Figure of the folder's model."""
    from attention_live.figure import Figure

    return Figure((model / "model.safetensors").read_bytes(), (model / "tokenizer.json").read_bytes())


def check_build_carries(dist, model):
    """The build in ``dist`` holds the folder's model and tokenizer byte for byte, and its default view."""
    folder = build.build_folder(dist)
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    for name in build.WEIGHT_FILES:
        assert (folder / "weights" / name).read_bytes() == (model / name).read_bytes(), name
    assert manifest["default_view"] == json.loads((model / "default_view.json").read_text(encoding="utf-8"))


def check_page_shows(figure_page, model):
    """The live page (``figure_page``, a FigurePage on a build of ``model``) opens on the folder's default
    view with CPython's numbers for that model, says what the folder's "about" says, and follows typing."""
    view = json.loads((model / "default_view.json").read_text(encoding="utf-8"))
    figure = model_figure(model)
    state = check_view(figure_page, figure, lang=view.get("lang", "en"))
    assert (state["text"], state["layer"], state["head"], state["token"]) == (view["text"], view["layer"], view["head"], view["token"])
    about = {name: figure_page.page.locator(f"#{name}").inner_text() for name in ("model-corpus", "model-training", "default-story")}
    key = figure_page.page.locator(f'#tokens [data-index="{view["key"]}"] .percent').inner_text()
    if view.get("lang", "en") == "en":
        english = build.catalog("en")
        written = {name: build.english(what, english) for name, what in (("model-corpus", view["about"]["corpus"]),
                                                                          ("model-training", view["about"]["training"]), ("default-story", view["story"]))}
        assert about == written  # the page's English, written by the page's own messages.js, is the build's
        assert f": {key} of its attention lands on «" in written["default-story"]  # the story's number is the chip's
    else:  # the model's language: the figure declares it, and its about text names the model's texts and numbers
        assert figure_page.page.locator("main.figure").get_attribute("lang") == view["lang"]
        assert view["about"]["corpus"]["params"]["name"] in about["model-corpus"]
        assert key in about["default-story"] and f"«{view['precomputed']['labels'][view['key']].lstrip(chr(0x2423))}»" in about["default-story"]
    for text in (view["text"] + " ", view["text"][: len(view["text"]) // 2], "12 + 30 = 42"):
        figure_page.set_text(text)  # resolves once the page shows the text's tokens and attention
        check_view(figure_page, figure, lang=view.get("lang", "en"))


def check_first_paint_is_the_models(model):
    """The default view's precomputed numbers (drawn before Python runs) are the model's, to 6 decimals."""
    view = json.loads((model / "default_view.json").read_text(encoding="utf-8"))
    result = model_figure(model).analyse(view["text"])
    assert view["precomputed"]["ids"] == result["ids"] and view["precomputed"]["labels"] == result["labels"]
    np.testing.assert_allclose(np.array(view["precomputed"]["attention"]), result["attention"], atol=1e-6)
