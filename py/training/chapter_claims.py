"""The chapter's claims about the default view, as checks on a candidate model.

Written down before any candidate of issue 9 was trained or looked at. The chapter that the figure
illustrates says, for the default sentence with «said» as the query:

1. *focused*: in one head of layer 2, at least FOCUSED (80%) of «said»'s attention lands on «Alice»,
   more than on «and» (one word closer) and on «Queen» (the sentence's grammatical subject);
2. *diffuse*: in layer 1, head 1, the weight is smeared: no key gets more than DIFFUSE (35%).

Head order within a layer is arbitrary (permuting a layer's heads, with the matching rows of
``c_attn``'s query, key and value blocks and columns of ``c_proj``, computes the same function), so
a candidate meets claim 1 if any layer-2 head does and claim 2 if any layer-1 head does; the heads are
then relabelled so that the chapter's numbering holds (layer 2, head 3; layer 1, head 1).

Usage (from ``py/``): ``python -m training.chapter_claims --weights ../weights`` prints the numbers
for the model card and exits 0 if both claims hold.
"""

import argparse
import json
import sys
from pathlib import Path

from attention_live.figure import Figure

DEFAULT_TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'
QUERY, KEYS = "␣said", ("␣Alice", "␣and", "␣Queen")  # chip labels of the query and the keys the chapter names
FOCUSED = 0.80  # claim 1: least share of «said»'s attention on «Alice» in the chapter's layer-2 head
DIFFUSE = 0.35  # claim 2: largest share any key may get from «said» in the chapter's layer-1 head
CHAPTER_HEADS = {"focused": (2, 3), "diffuse": (1, 1)}  # (layer, head), 1-based, as the chapter names them


def said_rows(figure):
    """Attention of «said» in the default sentence: ``rows`` float32 [n_layer, n_head, T]
    (probabilities of keys 0..T-1, 0 after the query) and ``keys`` {label: index} of KEYS."""
    result = figure.analyse(DEFAULT_TEXT)
    labels = result["labels"]
    query = labels.index(QUERY)
    return result["attention"][:, :, query, :], {label: labels.index(label) for label in KEYS}


def layer_and_head(name):
    """(layer, head), 1-based, of a head named as in ``check_claims`` ("2.3")."""
    layer, head = name.split(".")
    return int(layer), int(head)


def head_table(claims):
    """The per-head lines of ``check_claims`` for the model card: «said»'s weight on each named key."""
    return "\n".join(f"layer {layer}, head {head}: «Alice» {h['alice']:.1%}  «and» {h['and']:.1%}  «Queen» {h['queen']:.1%}  largest {h['largest']:.1%}"
                     for (layer, head), h in ((layer_and_head(name), h) for name, h in claims["heads"].items()))


def check_claims(figure):
    """Both claims on ``figure`` (an attention_live Figure). Returns a dict, JSON-ready:

    * ``heads``: per layer and head (1-based), «said»'s weight on «Alice», «and», «Queen» and its
      largest weight on any key (probabilities);
    * ``focused``: the layer-2 head with most weight on «Alice» among those giving it more than
      «and» and «Queen» (or the one with most on «Alice» if none does), and whether claim 1 holds;
    * ``diffuse``: the layer-1 head whose largest weight is smallest, and whether claim 2 holds.
    """
    rows, keys = said_rows(figure)
    alice, and_, queen = (keys[label] for label in KEYS)
    heads = {f"{layer + 1}.{head + 1}": {"alice": float(row[alice]), "and": float(row[and_]),
                                         "queen": float(row[queen]), "largest": float(row.max())}
             for layer, layer_rows in enumerate(rows) for head, row in enumerate(layer_rows)}
    layer2 = {name: h for name, h in heads.items() if name.startswith("2.")}
    ahead = {name: h for name, h in layer2.items() if h["alice"] > max(h["and"], h["queen"])} or layer2
    focused = max(ahead, key=lambda name: ahead[name]["alice"])
    diffuse = min((name for name in heads if name.startswith("1.")), key=lambda name: heads[name]["largest"])
    f, d = heads[focused], heads[diffuse]
    return {
        "heads": heads,
        "focused": {"head": focused, **f, "holds": f["alice"] >= FOCUSED and f["alice"] > max(f["and"], f["queen"])},
        "diffuse": {"head": diffuse, "largest": d["largest"], "holds": d["largest"] <= DIFFUSE},
    }


def main():
    parser = argparse.ArgumentParser(description="Check the chapter's claims on a model.")
    parser.add_argument("--weights", required=True, help="folder with model.safetensors and tokenizer.json")
    args = parser.parse_args()
    folder = Path(args.weights)
    claims = check_claims(Figure((folder / "model.safetensors").read_bytes(), (folder / "tokenizer.json").read_bytes()))
    print(head_table(claims))
    print(json.dumps({k: claims[k] for k in ("focused", "diffuse")}))
    sys.exit(0 if claims["focused"]["holds"] and claims["diffuse"]["holds"] else 1)


if __name__ == "__main__":
    main()
