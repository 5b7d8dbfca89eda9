"""Is the default view a fluke of one sentence? Each head's rate on sentences of the same shape.

The default sentence is ``Then the Queen turned to Alice and said, "Off with her head!"``. This
script makes sentences of that shape from the corpus's own names and verbs of speech:

    Then the {title} turned to {name} and {verb}, "{quote}"

* ``name``: the capitalised words found most often right after a verb of speech in the corpus
  ("said Alice", "cried Toad"), that also start a sentence of their own ("Alice was …"), minus
  pronouns and other function words;
* ``verb``: the verbs of speech of VERBS that the corpus uses at least 20 times;
* ``title``: a noun that follows "the" capitalised in the corpus ("the Queen", "the Rabbit");
* ``quote``: short exclamations of QUOTES.

Sentences whose name, verb or title is not a single token in this model's vocabulary are skipped,
so that "the name" and "the verb" are one position each. For every head, the rate is the share of
sentences in which the verb's largest attention weight (over all keys up to it) lands on the name.
The default sentence itself is never among them.

Usage (from ``py/``)::

    python -m training.held_out_rate --corpus ../../shared/corpus --weights ../weights [--count 60]
"""

import argparse
import collections
import itertools
import json
import random
import re
from pathlib import Path

import numpy as np

from attention_live.figure import Figure
from training.chapter_claims import DEFAULT_TEXT
from training.corpus import load_corpus

VERBS = ("said", "cried", "asked", "replied", "shouted", "answered", "exclaimed", "whispered", "called")
QUOTES = ("Off with her head!", "Come here at once!", "What a curious thing!", "I shall go home now.",
          "Where have you been?", "Nobody knows that.")
NOT_NAMES = {"I", "The", "He", "She", "It", "They", "We", "You", "And", "But", "Then", "So", "What", "Oh",
             "A", "An", "This", "That", "There", "Now", "Well", "Yes", "No", "His", "Her", "Their", "Mr", "Mrs", "Little", "Two"}
TEMPLATE = 'Then the {title} turned to {name} and {verb}, "{quote}"'  # the default sentence's shape


def corpus_vocabulary(text, min_count=20):
    """From the corpus text (str): names (most frequent first), verbs of speech and titles, each a list of str."""
    after_verb = collections.Counter(re.findall(rf"\b(?:{'|'.join(VERBS)}) (?:the )?([A-Z][a-z]+)\b", text))
    starts_sentence = set(re.findall(r"(?:^|[.!?] )([A-Z][a-z]+) [a-z]", text, re.MULTILINE))
    names = [name for name, count in after_verb.most_common() if count >= 5 and name in starts_sentence and name not in NOT_NAMES]
    verbs = [verb for verb in VERBS if len(re.findall(rf"\b{verb}\b", text)) >= min_count]
    titles = [title for title, count in collections.Counter(re.findall(r"\bthe ([A-Z][a-z]+)\b(?! [A-Z])", text)).most_common()
              if count >= min_count and title not in NOT_NAMES]
    return names, verbs, titles


def sentences(names, verbs, titles, seed=0):
    """Every (title, name, verb, quote) of the default sentence's shape but the default one, shuffled."""
    combinations = [c for c in itertools.product(titles, names, verbs, QUOTES) if c[0] != c[1] and sentence(*c) != DEFAULT_TEXT]
    random.Random(seed).shuffle(combinations)
    return combinations


def sentence(title, name, verb, quote):
    """The sentence of TEMPLATE's shape with these words."""
    return TEMPLATE.format(title=title, name=name, verb=verb, quote=quote)


def head_rates(figure, combinations, count):
    """Per head, the share of ``count`` sentences whose verb attends most to the name: float64
    [n_layer, n_head]. Combinations whose title, name or verb is not one token are skipped; returns
    (rates, the sentences used)."""
    hits, used = 0, []
    for title, name, verb, quote in combinations:
        if len(used) == count:
            break
        text = sentence(title, name, verb, quote)
        result = figure.analyse(text)
        labels = result["labels"]
        if not all(f"\u2423{word}" in labels for word in (title, name, verb)):
            continue
        verb_at, name_at = labels.index(f"\u2423{verb}"), labels.index(f"\u2423{name}")
        hits = hits + (result["attention"][:, :, verb_at, : verb_at + 1].argmax(axis=-1) == name_at)
        used.append(text)
    return hits / max(len(used), 1), used


def main():
    parser = argparse.ArgumentParser(description="Each head's rate of verb-to-name attention on held-out sentences.")
    parser.add_argument("--corpus", required=True, help="folder of the corpus books (*.txt)")
    parser.add_argument("--weights", required=True, help="folder with model.safetensors and tokenizer.json")
    parser.add_argument("--count", type=int, default=60, help="sentences to measure (at least 50)")
    args = parser.parse_args()
    folder = Path(args.weights)
    figure = Figure((folder / "model.safetensors").read_bytes(), (folder / "tokenizer.json").read_bytes())
    train, validation = load_corpus(args.corpus)
    names, verbs, titles = corpus_vocabulary("\n".join(train + validation))
    rates, used = head_rates(figure, sentences(names[:30], verbs, titles[:20]), args.count)
    print(f"{len(used)} sentences, e.g. {used[0]!r}; names {names[:30]}; verbs {verbs}; titles {titles[:20]}")
    for layer, row in enumerate(rates, start=1):
        print(f"layer {layer}: " + "  ".join(f"head {head}: {rate:.0%}" for head, rate in enumerate(row, start=1)))
    print(json.dumps({"sentences": len(used), "rates": np.round(rates, 3).tolist()}))


if __name__ == "__main__":
    main()
