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

from training.chapter_claims import CHAPTER_HEADS, layer_and_head


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


def order_moving(old, new, n_head):
    """A head order (for ``permute_heads``) that moves head ``old`` to position ``new`` (0-based) and
    keeps the other heads in their order: ``order_moving(0, 2, 4) == [1, 2, 0, 3]``."""
    order = [h for h in range(n_head) if h != old]
    order.insert(new, old)
    return order


def chapter_orders(claims, n_head):
    """{layer (0-based): order} that puts the heads found by ``training.chapter_claims.check_claims``
    where the chapter names them (CHAPTER_HEADS: the focused head at layer 2, head 3; the diffuse
    one at layer 1, head 1)."""
    orders = {}
    for claim, (layer, head) in CHAPTER_HEADS.items():
        found_layer, found_head = layer_and_head(claims[claim]["head"])
        assert found_layer == layer, f"claim {claim!r} is about layer {layer}, found in layer {found_layer}"
        orders[layer - 1] = order_moving(found_head - 1, head - 1, n_head)
    return orders


def relabel_file(weights_in, weights_out, orders):
    """Read ``weights_in`` (model.safetensors), reorder heads by ``orders`` ({layer: order}, 0-based)
    and write ``weights_out`` with the same metadata (it may be the same path)."""
    with safe_open(weights_in, framework="numpy") as f:
        metadata = f.metadata()
    n_head = json.loads(metadata["config"])["n_head"]
    tensors = load_file(weights_in)
    for layer, order in orders.items():
        tensors = permute_heads(tensors, layer, order, n_head)
    save_file(tensors, weights_out, metadata=metadata)


def main():
    parser = argparse.ArgumentParser(description="Relabel the heads of one layer of model.safetensors.")
    parser.add_argument("--weights", required=True, help="model.safetensors to read")
    parser.add_argument("--layer", type=int, required=True, help="layer, 1-based")
    parser.add_argument("--order", required=True, help="old head of each new head, 1-based, comma-separated")
    parser.add_argument("--out", required=True, help="model.safetensors to write")
    args = parser.parse_args()
    relabel_file(args.weights, args.out, {args.layer - 1: [int(h) - 1 for h in args.order.split(",")]})
    print(f"wrote {args.out}: layer {args.layer}'s new heads are old heads {args.order}")


if __name__ == "__main__":
    main()
