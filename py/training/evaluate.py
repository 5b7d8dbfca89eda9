"""Losses for the model card: the exported model beside unigram and bigram baselines, on both splits, and
the model's next-token top-1 accuracy.

Every figure is a mean cross-entropy in nats per token over the whole split (the first 90% /
last 10% of each book, as in training). The model reads the split in consecutive windows of
``block_size`` tokens. The baselines are count models fitted on the training split:
unigram with add-one smoothing; bigram interpolated with that unigram,
``p(b | a) = 0.8 * count(a, b) / count(a) + 0.2 * p_unigram(b)`` (the unigram alone when ``a`` is unseen).
The top-1 accuracy is the share of positions, in the same windows, whose most likely next token (the
argmax of the logits; ties: the lower id) is the token that follows.

Usage (from ``py/``)::

    python -m training.evaluate --corpus ../../shared/corpus --tokenizer ../weights/tokenizer.json --weights ../weights/model.safetensors
"""

import argparse
import json

import numpy as np
import torch
from tokenizers import Tokenizer

from training.corpus import load_corpus
from training.export import reference_model
from training.train import encode_split

BIGRAM_WEIGHT = 0.8


def unigram_probabilities(train, vocab_size):
    """Add-one smoothed unigram distribution: float64 [vocab_size], sums to 1."""
    counts = np.bincount(train, minlength=vocab_size).astype(np.float64) + 1.0
    return counts / counts.sum()


def unigram_loss(train, data, vocab_size):
    return float(-np.mean(np.log(unigram_probabilities(train, vocab_size)[data])))


def bigram_loss(train, data, vocab_size):
    unigram = unigram_probabilities(train, vocab_size)
    pair_counts = np.zeros((vocab_size, vocab_size))
    np.add.at(pair_counts, (train[:-1], train[1:]), 1.0)
    row_totals = pair_counts.sum(axis=1, keepdims=True)
    bigram = np.divide(pair_counts, row_totals, out=np.zeros_like(pair_counts), where=row_totals > 0)
    weight = np.where(row_totals > 0, BIGRAM_WEIGHT, 0.0)
    p = weight * bigram + (1.0 - weight) * unigram  # [V, V]: row a is p(. | a)
    return float(-np.mean(np.log(p[data[:-1], data[1:]])))


@torch.no_grad()
def model_loss(model, data):
    block = model.config.block_size
    losses, counts = [], []
    for start in range(0, len(data) - 1, block):
        x = torch.from_numpy(data[start:start + block + 1])
        if len(x) < 2:
            break
        _, loss, _ = model(x[None, :-1], x[None, 1:])
        losses.append(loss.item() * (len(x) - 1))
        counts.append(len(x) - 1)
    return float(sum(losses) / sum(counts))


@torch.no_grad()
def model_accuracy(model, data):
    """Next-token top-1 accuracy (a share, float) of ``model`` on ``data`` (int token ids), read in the
    consecutive ``block_size`` windows of ``model_loss``."""
    block = model.config.block_size
    hits = total = 0
    for start in range(0, len(data) - 1, block):
        x = torch.from_numpy(data[start:start + block + 1])
        if len(x) < 2:
            break
        logits, _, _ = model(x[None, :-1])
        hits += int((logits[0].argmax(dim=-1) == x[1:]).sum())
        total += len(x) - 1
    return hits / total


def main():
    parser = argparse.ArgumentParser(description="Model and baseline losses for the model card.")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--weights", required=True)
    args = parser.parse_args()
    tokenizer = Tokenizer.from_file(args.tokenizer)
    train_books, validation_books = load_corpus(args.corpus)
    splits = {"train": encode_split(tokenizer, train_books), "validation": encode_split(tokenizer, validation_books)}
    model = reference_model(args.weights)
    V = tokenizer.get_vocab_size()
    report = {name: {"tokens": len(data), "model": model_loss(model, data), "top1": model_accuracy(model, data),
                     "unigram": unigram_loss(splits["train"], data, V), "bigram": bigram_loss(splits["train"], data, V)}
              for name, data in splits.items()}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
