"""Choose the figure's default view: the chapter's layer-2 head, with «said» as the query.

Runs the numpy model (``attention_live``, no torch needed) on the chapter's default sentence and
takes the heads that ``training.chapter_claims`` finds: the *focused* layer-2 head (most of «said»'s
weight on «Alice») and the *diffuse* layer-1 head. After ``training.export --chapter-heads`` they
are layer 2, head 3 and layer 1, head 1, as the chapter names them. Writes ``weights/default_view.json``:

* ``text``, ``layer``, ``head`` (1-based), ``token`` (0-based index of «said»), ``key`` (index of «Alice»);
* ``said``: the focused head's probabilities from «said» to ``alice``, ``and``, ``queen`` and its ``largest``;
* ``diffuse``: ``layer``, ``head`` and ``largest`` (the largest probability from «said») of the diffuse head;
* ``precomputed``: the sentence's ``ids``, ``labels``, ``attention`` ([n_layer][n_head][T][T]
  probabilities) and each row's ``entropy`` in bits with ``entropy_even`` (rounded to 6 decimals), so
  that the page can draw the figure before Python has started;
* ``about``: what the model was trained on (``corpus``) and how (``training``), and ``story``: the
  sentence about the default view with these numbers, each a message descriptor ``{"key", "params"}``
  of the figure's catalogs (web/i18n/<lang>.json; a share as ``{"percent": p}``), so that the page says
  them in its language (build.py writes them in English before any script runs). A course's own model
  has the same fields (``training.course_view``).

Prints every head's weight on «Alice» for the model card.

Usage (from ``py/``): ``python -m training.find_default_view --weights ../weights``
"""

import argparse
import json
from pathlib import Path

import numpy as np

from attention_live.figure import Figure
from training.chapter_claims import DEFAULT_TEXT, KEYS, QUERY, check_claims, head_table, layer_and_head


def default_view(figure):
    """The default view of ``figure`` (an attention_live Figure), as written to default_view.json."""
    claims = check_claims(figure)
    result = figure.analyse(DEFAULT_TEXT)
    labels = result["labels"]
    layer, head = layer_and_head(claims["focused"]["head"])
    diffuse_layer, diffuse_head = layer_and_head(claims["diffuse"]["head"])
    return {
        "text": DEFAULT_TEXT, "layer": layer, "head": head, "token": labels.index(QUERY), "key": labels.index(KEYS[0]),
        "said": {k: claims["focused"][k] for k in ("alice", "and", "queen", "largest")},
        "diffuse": {"layer": diffuse_layer, "head": diffuse_head, "largest": claims["diffuse"]["largest"]},
        "precomputed": precomputed(result),
        "about": about(figure), "story": chapter_story(layer, head, claims["focused"], diffuse_layer, diffuse_head, claims["diffuse"]["largest"]),
    }, claims


def about(figure):
    """What the shipped model was trained on and how, as message descriptors: "eight children's books", and
    its training steps (the model file's ``__metadata__["step"]``), all of them with layer 1's attention
    dropped for most sentences (weights/MODEL_CARD.md, "Training procedure")."""
    return {"corpus": {"key": "about.corpus.shipped"}, "training": {"key": "about.training.shipped", "params": {"steps": figure.step}}}


def chapter_story(layer, head, said, diffuse_layer, diffuse_head, largest):
    """The page's sentence about the chapter's default view, as the message descriptor of
    web/i18n/<lang>.json's "story.chapter": «said»'s weights (``said``: probabilities on ``alice``,
    ``and``, ``queen``) in the focused head, and the diffuse head's ``largest``; in English "It opens on
    layer 2, head 3, with «said» as the query: 82.3% of its attention lands on «Alice», …"."""
    return {"key": "story.chapter", "params": {
        "layer": layer, "head": head, "alice": {"percent": said["alice"]}, "and": {"percent": said["and"]},
        "queen": {"percent": said["queen"]}, "diffuseLayer": diffuse_layer, "diffuseHead": diffuse_head,
        "largest": {"percent": largest}}}


def precomputed(result):
    """What the page draws before Python has started, from ``Figure.analyse``'s ``result``: the ``ids``,
    ``labels`` and ``attention`` ([n_layer][n_head][T][T] probabilities, rounded to 6 decimals, as lists),
    ``entropy`` ([n_layer][n_head][T] bits, each row's entropy) and ``entropy_even`` ([T] bits, the most
    each row can have), rounded likewise."""
    return {"ids": result["ids"], "labels": result["labels"], "attention": np.round(result["attention"].astype(np.float64), 6).tolist(),
            "entropy": np.round(result["entropy"].astype(np.float64), 6).tolist(),
            "entropy_even": np.round(result["entropy_even"].astype(np.float64), 6).tolist()}


def main():
    parser = argparse.ArgumentParser(description="Find the default layer and head of the figure.")
    parser.add_argument("--weights", required=True, help="folder with model.safetensors and tokenizer.json")
    args = parser.parse_args()
    folder = Path(args.weights)
    view, claims = default_view(Figure((folder / "model.safetensors").read_bytes(), (folder / "tokenizer.json").read_bytes()))
    print(head_table(claims))
    (folder / "default_view.json").write_text(json.dumps(view, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"default view: layer {view['layer']}, head {view['head']}: «said» gives «Alice» {view['said']['alice']:.1%}")


if __name__ == "__main__":
    main()
