"""Train the byte-level BPE tokenizer with HF ``tokenizers`` and save it as ``tokenizer.json``.

GPT-2's recipe (Radford et al. 2019, "Language Models are Unsupervised Multitask Learners",
section 2.2): text is split by the GPT-2 pattern, each piece is turned into bytes, and BPE merges
are learned over bytes, so every string is encodable and no unknown token exists.
Choices made here: no prefix space (``decode(encode(s)) == s`` for every string), no special
tokens (visitor text such as ``<|endoftext|>`` stays plain text), no post-processor.

Usage (from ``py/``): ``python -m training.train_tokenizer --corpus ../../shared/corpus --out ../weights/tokenizer.json``
"""

import argparse

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from training.corpus import load_corpus


def train_tokenizer(texts, vocab_size):
    """Learn a byte-level BPE of ``vocab_size`` tokens (256 bytes + merges) from a list of str."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def main():
    parser = argparse.ArgumentParser(description="Train the byte-level BPE tokenizer.")
    parser.add_argument("--corpus", required=True, help="folder of the corpus books (*.txt)")
    parser.add_argument("--out", required=True, help="path of the tokenizer.json to write")
    parser.add_argument("--vocab-size", type=int, default=2000)
    args = parser.parse_args()
    train, _ = load_corpus(args.corpus)
    tokenizer = train_tokenizer(train, args.vocab_size)
    tokenizer.save(args.out)
    print(f"wrote {args.out}: {tokenizer.get_vocab_size()} tokens")


if __name__ == "__main__":
    main()
