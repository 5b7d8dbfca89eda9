"""Relabel the attention heads of one layer: the same model, its heads in another order.

Head order within a layer is arbitrary. In nanoGPT's CausalSelfAttention, ``c_attn`` maps the
residual stream to the queries, keys and values of all heads at once (PyTorch Linear layout:
``weight`` [3C, C], ``bias`` [3C]; rows 0..C-1 are the queries, C..2C-1 the keys, 2C..3C-1 the
values, and within each block head h owns rows h*hs..(h+1)*hs-1, hs = C // n_head); ``c_proj``
(``weight`` [C, C]) mixes the heads' concatenated outputs, head h's in columns h*hs..(h+1)*hs-1.
Moving the same blocks of rows of ``c_attn`` and columns of ``c_proj`` moves a head without
changing what the layer computes (up to float32 rounding of c_proj's sum, taken in another order).

Usage (from ``py/``)::

    python -m training.relabel_heads --weights ../weights/model.safetensors --layer 2 --order 3,1,2,4 --out relabelled.safetensors

``--order`` lists, for new heads 1..n_head, the old head each one is (1-based, as the page labels them).
"""

import argparse
import json

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file


def permute_heads(tensors, layer, order, n_head):
    """The tensors (name -> array, nanoGPT names) with block ``layer``'s heads reordered so that new
    head i is old head ``order[i]`` (both 0-based). Returns a new dict; the others are shared.

    Raises ValueError unless ``order`` is a permutation of range(n_head).
    """
    if sorted(order) != list(range(n_head)):
        raise ValueError(f"order must be a permutation of 0..{n_head - 1}, got {list(order)}")
    prefix = f"transformer.h.{layer}.attn."
    C = tensors[prefix + "c_proj.weight"].shape[0]  # n_embd
    hs = C // n_head  # head size
    head_rows = np.concatenate([np.arange(h * hs, (h + 1) * hs) for h in order])  # [C], within one of q, k, v
    qkv_rows = np.concatenate([head_rows + block * C for block in range(3)])  # [3C]
    out = dict(tensors)
    out[prefix + "c_attn.weight"] = tensors[prefix + "c_attn.weight"][qkv_rows]  # [3C, C]
    out[prefix + "c_attn.bias"] = tensors[prefix + "c_attn.bias"][qkv_rows]  # [3C]
    out[prefix + "c_proj.weight"] = np.ascontiguousarray(tensors[prefix + "c_proj.weight"][:, head_rows])  # [C, C], row-major as safetensors stores it
    return out


def main():
    parser = argparse.ArgumentParser(description="Relabel the heads of one layer of model.safetensors.")
    parser.add_argument("--weights", required=True, help="model.safetensors to read")
    parser.add_argument("--layer", type=int, required=True, help="layer, 1-based")
    parser.add_argument("--order", required=True, help="old head of each new head, 1-based, comma-separated")
    parser.add_argument("--out", required=True, help="model.safetensors to write")
    args = parser.parse_args()
    with safe_open(args.weights, framework="numpy") as f:
        metadata = f.metadata()
    n_head = json.loads(metadata["config"])["n_head"]
    order = [int(h) - 1 for h in args.order.split(",")]
    save_file(permute_heads(load_file(args.weights), args.layer - 1, order, n_head), args.out, metadata=metadata)
    print(f"wrote {args.out}: layer {args.layer}'s new heads 1..{n_head} are old heads {args.order}")


if __name__ == "__main__":
    main()
