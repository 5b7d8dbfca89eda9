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
name-finding job goes to a layer-2 head rather than a layer-1 one (why: ``weights/SWEEP_RECORD.md``).
It changes training only; the exported model is plain GPT-2. With P = 0 (the default) nothing
changes, not even the random number stream. ``--l1-attention-drop-until STEP`` ends the lever at
that step ("early stochastic depth", ``l1_attention_drop_at``), so that the last steps train block 1's
attention always on, as the exported model runs it; ``--dropout-from STEP`` is the other half of that
paper, "late dropout" (``dropout_at``): no dropout before STEP, ``--dropout`` from it on.

``--l2-attention-entropy W`` adds W times the mean entropy of layer 2's attention rows (nats) to the
training loss (``attention_entropy``), which favours heads that look at one key rather than several;
also training only (0, the default, leaves the loss as it is). The losses printed and stored are the
cross-entropy alone.
"""

import argparse
import json
import math
import os
import signal
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

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


def dropout_at(step, p, start=None):
    """The dropout probability at ``step``: 0 before ``start``, ``p`` from it on (``start`` None: ``p``
    for the whole run).

    Liu et al. 2023, "Dropout Reduces Underfitting" (arXiv:2303.01500): "late dropout" leaves the
    first part of training without dropout and regularises only the rest, for models that overfit.
    Here the first part is where stochastic depth hands the name-finding job to layer 2 (a run without
    dropout keeps it best); the rest is where a run without dropout overfits. A dropout of 0 draws no
    random numbers, so until ``start`` the run is the run without dropout, step for step.
    """
    return p if start is None or step >= start else 0.0


def set_dropout(model, p, attention=None):
    """Set the probability of every dropout layer of ``model`` (nn.Dropout) to ``p``, but that of the
    attention weights' dropout (``attn_dropout``) to ``attention`` when given (None: ``p`` too, as
    nanoGPT's one ``dropout`` does). Dropping attention weights spreads a head's attention over more
    keys; dropping residual branches does not."""
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = attention if attention is not None and name.endswith("attn_dropout") else p


def learning_rate(step, max_lr, min_lr, warmup, max_iters):
    """Linear warm-up over ``warmup`` steps, then cosine decay from max_lr to min_lr."""
    if step < warmup:
        return max_lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, max_iters - warmup)
    return min_lr + 0.5 * (max_lr - min_lr) * (1.0 + math.cos(math.pi * progress))


@dataclass(frozen=True)
class Recipe:
    """Everything that decides what a training run computes (defaults: ``training.train``'s; the
    shipped model's own run is in ``weights/MODEL_CARD.md``). Steps count optimizer updates;
    learning rates are AdamW's; ``eval_*``: the 20-batch loss estimate printed each EVAL_INTERVAL steps."""

    seed: int = 1337
    max_iters: int = 3000
    batch_size: int = 32
    lr: float = 3e-3
    min_lr: float = 3e-4
    warmup: int = 100
    weight_decay: float = 0.1
    dropout: float = 0.1
    l1_attention_drop: float = 0.0
    l1_attention_drop_until: int | None = None
    dropout_from: int | None = None
    attention_dropout: float | None = None  # None: ``dropout``, on the attention weights too
    l2_attention_entropy: float = 0.0
    eval_interval: int = 250
    eval_batches: int = 20


class ResumeError(Exception):
    """A checkpoint to resume from was made by another recipe or on other data; the message says which."""


def save_checkpoint(path, model, recipe, history, state=None):
    """Write the float32 state_dict, the config, the recipe and the loss history to ``path`` (torch.save),
    and with ``state`` (``train``'s: the step, the optimizer's and the random generators' states)
    what it takes to resume the run exactly."""
    checkpoint = {"model": model.state_dict(), "config": model.config.to_dict(), "recipe": asdict(recipe), "history": history}
    torch.save({**checkpoint, "resume": state} if state else checkpoint, path)


def step_checkpoint_path(out, step):
    """Where ``--keep-checkpoints`` writes the checkpoint of ``step``: ``runs/a.pt`` -> ``runs/a-step00250.pt``."""
    stem, suffix = os.path.splitext(out)
    return f"{stem}-step{step:05d}{suffix}"


def resumable(out, recipe, tokens):
    """The checkpoint at ``out`` to resume from (dict, as ``save_checkpoint`` wrote it), or None if there
    is none. Raises ResumeError if it was written by another recipe or with other token counts
    (``tokens``: {split: count}), or holds no resume state (a finished run's file from before resuming existed)."""
    if not os.path.exists(out):
        return None
    checkpoint = torch.load(out, map_location="cpu", weights_only=True)
    if "resume" not in checkpoint:
        raise ResumeError(f"{out} cannot be resumed: it holds no optimizer state")
    differ = {k: (v, asdict(recipe)[k]) for k, v in checkpoint["recipe"].items() if asdict(recipe).get(k) != v}
    if differ:
        raise ResumeError(f"{out} was trained with other settings: " + ", ".join(f"{k} {a} (now {b})" for k, (a, b) in differ.items()))
    if checkpoint["resume"]["tokens"] != tokens:
        raise ResumeError(f"{out} was trained on other text: {checkpoint['resume']['tokens']} tokens (now {tokens})")
    return checkpoint


def train(recipe, splits, vocab_size, out, resume=False, keep_checkpoints=False, should_stop=lambda: False, on_step=lambda step, history: None):
    """Train the GPT on ``splits`` ({"train", "validation"}: 1-D int64 token ids) by ``recipe``,
    writing the checkpoint ``out`` at every evaluation (and, with ``keep_checkpoints``, a copy per
    evaluation). Returns (model, history, stopped_at): the loss history is a list of
    {step, seconds, train, validation} (nats/token, 20-batch estimates); ``stopped_at`` is None for a
    finished run.

    ``should_stop()`` is asked before each step; when it answers True the run writes ``out`` with its
    whole state and returns the step it stopped before as ``stopped_at``. With ``resume``, a run whose ``out`` exists carries on
    from it exactly: the same steps, batches and drops as a run never stopped (ResumeError if ``out``
    was made by another recipe or on other data). ``on_step(step, history)`` follows each step and
each evaluation (``step``: the steps done).
    """
    tokens = {name: len(data) for name, data in splits.items()}
    torch.manual_seed(recipe.seed)
    config = GPTConfig(vocab_size=vocab_size, dropout=recipe.dropout, l1_attention_drop=recipe.l1_attention_drop)
    model = GPT(config)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": recipe.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=recipe.lr, betas=(0.9, 0.99),
    )
    generator = torch.Generator().manual_seed(recipe.seed)
    history, step = [], 0
    checkpoint = resumable(out, recipe, tokens) if resume else None
    if checkpoint:
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["resume"]["optimizer"])
        torch.set_rng_state(checkpoint["resume"]["rng"])
        generator.set_state(checkpoint["resume"]["batches"])
        history, step = checkpoint["history"], checkpoint["resume"]["step"]
    started = time.time() - (history[-1]["seconds"] if history else 0.0)

    def state():
        return {"step": step, "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(), "batches": generator.get_state(), "tokens": tokens}

    while True:
        due = step % recipe.eval_interval == 0 or step == recipe.max_iters
        if due and not (history and history[-1]["step"] == step):  # a resumed run has this step's already
            losses = estimate_loss(model, splits, config.block_size, recipe.batch_size, recipe.eval_batches, recipe.seed)
            history.append({"step": step, "seconds": round(time.time() - started, 1), **losses})
            save_checkpoint(out, model, recipe, history, state())  # a run cut short keeps its latest state
            if keep_checkpoints:
                save_checkpoint(step_checkpoint_path(out, step), model, recipe, history)
            on_step(step, history)
        if step == recipe.max_iters:
            return model, history, None
        if should_stop():
            save_checkpoint(out, model, recipe, history, state())
            return model, history, step
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, recipe.lr, recipe.min_lr, recipe.warmup, recipe.max_iters)
        model.transformer.h[0].attention_drop = l1_attention_drop_at(step, recipe.l1_attention_drop, recipe.l1_attention_drop_until)
        attention = None if recipe.attention_dropout is None else dropout_at(step, recipe.attention_dropout, recipe.dropout_from)
        set_dropout(model, dropout_at(step, recipe.dropout, recipe.dropout_from), attention)
        x, y = get_batch(splits["train"], config.block_size, recipe.batch_size, generator)
        _, loss, attention = model(x, y)
        if recipe.l2_attention_entropy:
            loss = loss + recipe.l2_attention_entropy * attention_entropy(attention[1])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step += 1
        on_step(step, history)


class StopOnInterrupt:
    """``train``'s ``should_stop`` for a terminal, as a context manager: inside it, Ctrl-C (SIGINT), a
    closed terminal (SIGHUP) or ``kill`` (SIGTERM) makes it answer True, so the run stops between two
    steps with its whole state written; a second signal stops at once (KeyboardInterrupt). On leaving,
    the handlers before it are back."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __enter__(self):
        self.asked = False
        self.before = {number: signal.signal(number, self.interrupted) for number in self.SIGNALS}
        return self

    def __exit__(self, *exception):
        for number, handler in self.before.items():
            signal.signal(number, handler)

    def interrupted(self, signum, frame):
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def __call__(self):
        return self.asked


def main():
    parser = argparse.ArgumentParser(description="Train the toy GPT on the CPU.")
    parser.add_argument("--corpus", required=True, help="folder of the corpus books (*.txt)")
    parser.add_argument("--tokenizer", required=True, help="tokenizer.json made by training.train_tokenizer")
    parser.add_argument("--out", required=True, help="checkpoint to write (.pt)")
    parser.add_argument("--seed", type=int, default=Recipe.seed)
    parser.add_argument("--max-iters", type=int, default=Recipe.max_iters)
    parser.add_argument("--batch-size", type=int, default=Recipe.batch_size)
    parser.add_argument("--lr", type=float, default=Recipe.lr)
    parser.add_argument("--min-lr", type=float, default=Recipe.min_lr)
    parser.add_argument("--warmup", type=int, default=Recipe.warmup)
    parser.add_argument("--weight-decay", type=float, default=Recipe.weight_decay)
    parser.add_argument("--dropout", type=float, default=Recipe.dropout)
    parser.add_argument("--l1-attention-drop", type=float, default=Recipe.l1_attention_drop, metavar="P",
                        help="stochastic depth: drop block 1's attention branch per sequence with probability P "
                             "while training (0 = off, today's recipe); the exported model is plain GPT-2")
    parser.add_argument("--l1-attention-drop-until", type=int, default=Recipe.l1_attention_drop_until, metavar="STEP",
                        help="end --l1-attention-drop at this step (early stochastic depth; default: the whole run)")
    parser.add_argument("--attention-dropout", type=float, default=Recipe.attention_dropout, metavar="P",
                        help="dropout on the attention weights alone (default: --dropout's)")
    parser.add_argument("--dropout-from", type=int, default=Recipe.dropout_from, metavar="STEP",
                        help="no dropout before this step, --dropout from it on (late dropout; default: the whole run)")
    parser.add_argument("--l2-attention-entropy", type=float, default=Recipe.l2_attention_entropy, metavar="W",
                        help="add W x the mean entropy (nats) of layer 2's attention rows to the training loss (0 = off)")
    parser.add_argument("--eval-interval", type=int, default=Recipe.eval_interval)
    parser.add_argument("--eval-batches", type=int, default=Recipe.eval_batches)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--keep-checkpoints", action="store_true",
                        help="also keep every evaluation's checkpoint as OUT-stepNNNNN.pt (candidates along the run)")
    parser.add_argument("--resume", action="store_true", help="carry on from OUT where a run was stopped (Ctrl-C) before its end")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    recipe = Recipe(**{field.name: getattr(args, field.name) for field in fields(Recipe)})
    tokenizer = Tokenizer.from_file(args.tokenizer)
    train_books, validation_books = load_corpus(args.corpus)
    splits = {"train": encode_split(tokenizer, train_books), "validation": encode_split(tokenizer, validation_books)}
    print({name: len(data) for name, data in splits.items()}, "tokens")
    printed = []

    def print_evaluation(step, history):
        if history and history[-1] not in printed:
            printed.append(history[-1])
            print(history[-1], flush=True)

    try:
        with StopOnInterrupt() as stop:
            _, history, stopped_at = train(recipe, splits, tokenizer.get_vocab_size(), args.out, resume=args.resume,
                                           keep_checkpoints=args.keep_checkpoints, should_stop=stop, on_step=print_evaluation)
    except ResumeError as e:
        sys.exit(f"training.train: {e}")
    print_evaluation(None, history)
    if stopped_at is not None:
        sys.exit(f"stopped at step {stopped_at}: {args.out} holds the run; the same command with --resume carries on")
    print(json.dumps(history[-1]), f"wrote {args.out}")


if __name__ == "__main__":
    main()
