"""Choose the figure's default view: the layer and head in which «said» gives «Alice» the most weight.

Runs the numpy model (``attention_live``, no torch needed) on the default sentence, reads, in every
layer and head, the attention probability from the query «said» to the key «Alice», and writes the
best one to ``weights/default_view.json``: ``{"text", "layer", "head" (1-based), "token" (0-based
index of «said»), "key" (index of «Alice»), "weight" (probability), "precomputed"}``, where
``precomputed`` holds the sentence's ``ids``, ``labels`` and ``attention`` ([n_layer][n_head][T][T]
probabilities, rounded to 6 decimals) so that the page can draw the figure before Python has
started. Prints every head's weight for the model card.

Usage (from ``py/``): ``python -m training.find_default_view --weights ../weights``
"""

import argparse
import json
from pathlib import Path

import numpy as np

from attention_live.figure import Figure

DEFAULT_TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'
QUERY, KEY = "␣said", "␣Alice"  # chip labels of the two tokens


def main():
    parser = argparse.ArgumentParser(description="Find the default layer and head of the figure.")
    parser.add_argument("--weights", required=True, help="folder with model.safetensors and tokenizer.json")
    args = parser.parse_args()
    folder = Path(args.weights)
    figure = Figure((folder / "model.safetensors").read_bytes(), (folder / "tokenizer.json").read_bytes())
    result = figure.analyse(DEFAULT_TEXT)
    query, key = result["labels"].index(QUERY), result["labels"].index(KEY)
    weights = result["attention"][:, :, query, key]  # [n_layer, n_head]
    for layer, row in enumerate(weights, start=1):
        print(f"layer {layer}: " + "  ".join(f"head {h}: {w:.1%}" for h, w in enumerate(row, start=1)))
    layer, head = divmod(int(weights.argmax()), weights.shape[1])
    precomputed = {"ids": result["ids"], "labels": result["labels"],
                   "attention": np.round(result["attention"].astype(np.float64), 6).tolist()}
    view = {"text": DEFAULT_TEXT, "layer": layer + 1, "head": head + 1, "token": query, "key": key,
            "weight": round(float(weights[layer, head]), 4), "precomputed": precomputed}
    (folder / "default_view.json").write_text(json.dumps(view, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"default view: layer {layer + 1}, head {head + 1}: «said» gives «Alice» {weights[layer, head]:.1%}")


if __name__ == "__main__":
    main()
