"""Export a training checkpoint to ``weights/model.safetensors`` and write the parity fixtures.

The file is what the page downloads: float16 tensors in PyTorch's layout (a Linear's weight is
``[out, in]``) under nanoGPT's names, ``lm_head.weight`` left out because it is tied to
``transformer.wte.weight``, and ``__metadata__`` holding ``config`` (JSON: n_layer, n_head, n_embd,
block_size, vocab_size) and ``tokenizer_sha256`` (hex digest of the tokenizer.json bytes).

With ``--chapter-heads`` the heads are then relabelled (``training.relabel_heads``) so that the
heads the chapter's claims are about (``training.chapter_claims``) sit where the chapter names them:
the same function, heads in another order.

The fixtures (``tests/fixtures/parity.npz``) hold the PyTorch model's attention and logits on the
exported float16 weights for a few texts, so the numpy parity test runs without torch.

Usage (from ``py/``)::

    python -m training.export --checkpoint ../runs/ckpt.pt --tokenizer ../weights/tokenizer.json \\
        --out ../weights/model.safetensors --fixtures ../tests/fixtures/parity.npz [--chapter-heads]
"""

import argparse
import hashlib
import json

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer

from attention_live.figure import Figure
from training.chapter_claims import check_claims
from training.gpt import GPT, GPTConfig
from training.relabel_heads import chapter_orders, relabel_file

TIED = "lm_head.weight"
PARITY_TEXTS = (  # short texts get logits too; the long one exceeds block_size and is cut to its tail
    'Alice looked at the Queen and said, "Off with her head!"',
    "  Hello World.\n\nA\ttab, \u4f60\u597d, \U0001f44d and ye\u0302\u0301u.",
    "The Mock Turtle sighed deeply, and began, in a voice sometimes choked with sobs, to sing this: " * 6,
)
LOGITS_MAX_TOKENS = 64


def export(checkpoint_path, tokenizer_path, out_path):
    """Write the float16 safetensors file from a checkpoint; returns the file's size in bytes."""
    checkpoint = torch.load(checkpoint_path, map_location="cpu", weights_only=True)
    with open(tokenizer_path, "rb") as f:
        tokenizer_sha256 = hashlib.sha256(f.read()).hexdigest()
    tensors = {k: v.to(torch.float16).contiguous() for k, v in checkpoint["model"].items() if k != TIED}
    save_file(tensors, out_path, metadata={"config": json.dumps(checkpoint["config"]), "tokenizer_sha256": tokenizer_sha256})
    with open(out_path, "rb") as f:
        return len(f.read())


def reference_model(weights_path):
    """The PyTorch GPT with the exported weights (float16 values, computed in float32), in eval mode."""
    with open(weights_path, "rb") as f:
        header_len = int.from_bytes(f.read(8), "little")
        config = json.loads(json.loads(f.read(header_len))["__metadata__"]["config"])
    model = GPT(GPTConfig(**config))
    state = {k: v.to(torch.float32) for k, v in load_file(weights_path).items()}
    state[TIED] = state["transformer.wte.weight"]
    model.load_state_dict(state, strict=True)
    return model.eval()


@torch.no_grad()
def parity_fixture(model, tokenizer):
    """Arrays for the parity test: for each text i, ``ids_i`` (int64 [T]), ``attention_i``
    (float32 [n_layer, n_head, T, T]) and, for T <= LOGITS_MAX_TOKENS, ``logits_i`` (float32 [T, vocab])."""
    arrays = {}
    for i, text in enumerate(PARITY_TEXTS):
        ids = tokenizer.encode(text).ids[-model.config.block_size:]
        logits, _, attention = model(torch.tensor([ids]))
        arrays[f"ids_{i}"] = np.asarray(ids, dtype=np.int64)
        arrays[f"attention_{i}"] = torch.stack(attention)[:, 0].numpy()
        if len(ids) <= LOGITS_MAX_TOKENS:
            arrays[f"logits_{i}"] = logits[0].numpy()
    return arrays


def main():
    parser = argparse.ArgumentParser(description="Export the checkpoint to safetensors and write parity fixtures.")
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--out", required=True, help="model.safetensors to write")
    parser.add_argument("--fixtures", required=True, help="parity.npz to write")
    parser.add_argument("--chapter-heads", action="store_true",
                        help="relabel heads so the chapter's focused head is layer 2, head 3 and its diffuse one layer 1, head 1")
    args = parser.parse_args()
    size = export(args.checkpoint, args.tokenizer, args.out)
    if args.chapter_heads:
        with open(args.out, "rb") as model, open(args.tokenizer, "rb") as tokenizer:
            figure = Figure(model.read(), tokenizer.read())
        orders = chapter_orders(check_claims(figure), figure.config.n_head)
        relabel_file(args.out, args.out, orders)
        print("relabelled heads, new head i is old head order[i] (0-based):", orders)
    np.savez_compressed(args.fixtures, **parity_fixture(reference_model(args.out), Tokenizer.from_file(args.tokenizer)))
    print(f"wrote {args.out} ({size:,} bytes) and {args.fixtures}")


if __name__ == "__main__":
    main()
