"""Train the 2-layer toy GPT on the corpus, on the CPU, with a fixed seed.

Usage (from ``py/``)::

    python -m training.train --corpus ../../shared/corpus --tokenizer ../weights/tokenizer.json --out ../runs/ckpt.pt

Batches are random windows of ``block_size + 1`` tokens from the training split (the first 90% of
each book); the loss reported is the mean cross-entropy in nats per token, on the training split and
on the held-out validation split (the last 10% of each book). AdamW, linear warm-up then cosine
decay, as in nanoGPT's ``train.py``. The checkpoint holds the float32 ``state_dict``, the config and
the loss history, written at every evaluation (so a run cut short keeps its latest state; with
``--keep-checkpoints`` every evaluation's state is also kept, so each can be judged as a candidate);
``training.export`` turns it into ``weights/model.safetensors``.

``--l1-attention-drop P`` trains with stochastic depth on block 1's attention branch
(``training.gpt.drop_path``: each sequence's branch dropped with probability P), so that the
name-finding job goes to a layer-2 head rather than a layer-1 one (why: ``weights/MODEL_CARD.md``).
It changes training only; the exported model is plain GPT-2. With P = 0 (the default) nothing
changes, not even the random number stream. ``--l1-attention-drop-until STEP`` ends the lever at
that step ("early stochastic depth", ``l1_attention_drop_at``), so that the last steps train block 1's
attention always on, as the exported model runs it.

``--l2-attention-entropy W`` adds W times the mean entropy of layer 2's attention rows (nats) to the
training loss (``attention_entropy``), which favours heads that look at one key rather than several;
also training only (0, the default, leaves the loss as it is). The losses printed and stored are the
cross-entropy alone.
"""

import argparse
import json
import math
import os
import time

import numpy as np
import torch
from tokenizers import Tokenizer

from training.corpus import load_corpus
from training.gpt import GPT, GPTConfig


def encode_split(tokenizer, books):
    """Token ids of a list of books, concatenated: 1-D int64 array."""
    return np.concatenate([np.asarray(e.ids, dtype=np.int64) for e in tokenizer.encode_batch(books)])


def get_batch(data, block_size, batch_size, generator):
    """Random windows of ``data``: inputs and next-token targets, each (batch_size, block_size) int64."""
    starts = torch.randint(len(data) - block_size - 1, (batch_size,), generator=generator)
    x = torch.stack([torch.from_numpy(data[s:s + block_size]) for s in starts.tolist()])
    y = torch.stack([torch.from_numpy(data[s + 1:s + 1 + block_size]) for s in starts.tolist()])
    return x, y


@torch.no_grad()
def estimate_loss(model, splits, block_size, batch_size, eval_batches, seed):
    """Mean cross-entropy (nats/token) per split over ``eval_batches`` fixed random batches."""
    model.eval()
    losses = {}
    for name, data in splits.items():
        generator = torch.Generator().manual_seed(seed)
        losses[name] = float(np.mean([
            model(*get_batch(data, block_size, batch_size, generator))[1].item() for _ in range(eval_batches)
        ]))
    model.train()
    return losses


def attention_entropy(att):
    """Mean entropy of attention rows, in nats: att (B, nh, T, T) probabilities (0 where masked) -> scalar.

    H(row) = -sum_j p_j log p_j, with 0 log 0 = 0 (masked keys add nothing); a row on one key has 0,
    a row spread evenly over t keys log t. The measure is the attention entropy that Zhai et al. 2023,
    "Stabilizing Transformer Training by Preventing Attention Entropy Collapse" (arXiv:2303.06296),
    track; penalising it (pushing it down) is this project's training-only lever.
    """
    return -(att * torch.log(att.clamp_min(1e-12))).sum(dim=-1).mean()  # clamped: a finite gradient where p = 0


def l1_attention_drop_at(step, p, until=None):
    """The drop probability of block 1's attention branch at ``step``: ``p`` before ``until``, 0 from it on
    (``until`` None: ``p`` for the whole run).

    Liu et al. 2023, "Dropout Reduces Underfitting" (arXiv:2303.01500): "early dropout" and "early
    stochastic depth" regularise only the first part of training and end with the plain network.
    Here the early part hands the name-finding job to layer 2; the end lets the model adapt to layer
    1's attention being always there, as in the exported (plain GPT-2) model, where a branch kept
    with probability 1 - p had been scaled by 1 / (1 - p).
    """
    return p if until is None or step < until else 0.0


def learning_rate(step, max_lr, min_lr, warmup, max_iters):
    """Linear warm-up over ``warmup`` steps, then cosine decay from max_lr to min_lr."""
    if step < warmup:
        return max_lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, max_iters - warmup)
    return min_lr + 0.5 * (max_lr - min_lr) * (1.0 + math.cos(math.pi * progress))


def save_checkpoint(path, model, config, args, history):
    """Write the float32 state_dict, the config, the arguments and the loss history to ``path`` (torch.save)."""
    torch.save({"model": model.state_dict(), "config": config.to_dict(), "args": vars(args), "history": history}, path)


def step_checkpoint_path(out, step):
    """Where ``--keep-checkpoints`` writes the checkpoint of ``step``: ``runs/a.pt`` -> ``runs/a-step00250.pt``."""
    stem, suffix = os.path.splitext(out)
    return f"{stem}-step{step:05d}{suffix}"


def main():
    parser = argparse.ArgumentParser(description="Train the toy GPT on the CPU.")
    parser.add_argument("--corpus", required=True, help="folder of the corpus books (*.txt)")
    parser.add_argument("--tokenizer", required=True, help="tokenizer.json made by training.train_tokenizer")
    parser.add_argument("--out", required=True, help="checkpoint to write (.pt)")
    parser.add_argument("--seed", type=int, default=1337)
    parser.add_argument("--max-iters", type=int, default=3000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--min-lr", type=float, default=3e-4)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--l1-attention-drop", type=float, default=0.0, metavar="P",
                        help="stochastic depth: drop block 1's attention branch per sequence with probability P "
                             "while training (0 = off, today's recipe); the exported model is plain GPT-2")
    parser.add_argument("--l1-attention-drop-until", type=int, default=None, metavar="STEP",
                        help="end --l1-attention-drop at this step (early stochastic depth; default: the whole run)")
    parser.add_argument("--l2-attention-entropy", type=float, default=0.0, metavar="W",
                        help="add W x the mean entropy (nats) of layer 2's attention rows to the training loss (0 = off)")
    parser.add_argument("--eval-interval", type=int, default=250)
    parser.add_argument("--eval-batches", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--keep-checkpoints", action="store_true",
                        help="also keep every evaluation's checkpoint as OUT-stepNNNNN.pt (candidates along the run)")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    tokenizer = Tokenizer.from_file(args.tokenizer)
    train_books, validation_books = load_corpus(args.corpus)
    splits = {"train": encode_split(tokenizer, train_books), "validation": encode_split(tokenizer, validation_books)}
    print({name: len(data) for name, data in splits.items()}, "tokens")

    config = GPTConfig(vocab_size=tokenizer.get_vocab_size(), dropout=args.dropout, l1_attention_drop=args.l1_attention_drop)
    model = GPT(config)
    print(f"{model.num_parameters():,} parameters")
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr, betas=(0.9, 0.99),
    )
    generator = torch.Generator().manual_seed(args.seed)
    history = []
    started = time.time()
    for step in range(args.max_iters + 1):
        if step % args.eval_interval == 0 or step == args.max_iters:
            losses = estimate_loss(model, splits, config.block_size, args.batch_size, args.eval_batches, args.seed)
            history.append({"step": step, "seconds": round(time.time() - started, 1), **losses})
            print(history[-1], flush=True)
            save_checkpoint(args.out, model, config, args, history)  # a run cut short keeps its latest state
            if args.keep_checkpoints:
                save_checkpoint(step_checkpoint_path(args.out, step), model, config, args, history)
        if step == args.max_iters:
            break
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, args.lr, args.min_lr, args.warmup, args.max_iters)
        model.transformer.h[0].attention_drop = l1_attention_drop_at(step, args.l1_attention_drop, args.l1_attention_drop_until)
        x, y = get_batch(splits["train"], config.block_size, args.batch_size, generator)
        _, loss, attention = model(x, y)
        if args.l2_attention_entropy:
            loss = loss + args.l2_attention_entropy * attention_entropy(attention[1])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    print(json.dumps(history[-1]), f"wrote {args.out}")


if __name__ == "__main__":
    main()
