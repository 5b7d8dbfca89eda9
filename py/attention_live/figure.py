"""What the page asks of Python: one text in, its tokens and every head's attention out.

The page's worker builds one ``Figure`` from the fetched files, then calls ``analyse(text)`` with
the visitor's text as an argument (never as source code) on every edit.
"""

import hashlib
import re

import numpy as np

from attention_live.labels import token_label
from attention_live.model import gpt, load_gpt
from attention_live.tokenizer import Tokenizer

MAX_TEXT_CHARS = 2048  # only the last this many characters are tokenized; far more than block_size tokens need
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # from JS strings; UTF-8 cannot hold them


class Figure:
    """The tokenizer and model, loaded once, and the KV cache of the last text analysed.

    Each call reuses the keys and values of the tokens that the previous text shares at its start,
    so appending a character computes one or two rows, and an edit the rows from the first changed
    token on (see ``model.gpt``).

    Args:
        model_bytes: the ``model.safetensors`` file (bytes-like).
        tokenizer_json: the ``tokenizer.json`` file (bytes, UTF-8).
        model_sha256: if given, the hex sha256 that ``model_bytes`` must have (build.py records it),
            so that even one changed byte is caught before any number is shown.
    Raises:
        ValueError: a file is damaged, or tokenizer.json is not the one the model was trained
            with (its sha256 differs from ``__metadata__["tokenizer_sha256"]``); the message names the file.
    """

    def __init__(self, model_bytes, tokenizer_json, model_sha256=None):
        if model_sha256 is not None and hashlib.sha256(bytes(model_bytes)).hexdigest() != model_sha256:
            raise ValueError("model.safetensors is damaged: its sha256 differs from the one recorded at build time")
        self.params, self.config, metadata = load_gpt(model_bytes)
        digest = hashlib.sha256(bytes(tokenizer_json)).hexdigest()
        if metadata.get("tokenizer_sha256") != digest:
            raise ValueError("tokenizer.json does not match model.safetensors (sha256 differs from the model's metadata)")
        self.tokenizer = Tokenizer.from_json(bytes(tokenizer_json).decode("utf-8"))
        if self.tokenizer.vocab_size != self.config.vocab_size:
            raise ValueError(f"tokenizer.json has {self.tokenizer.vocab_size} tokens, the model {self.config.vocab_size}")
        self.labels = [token_label(b) for b in self.tokenizer.token_bytes]  # token id -> chip label
        L, H, B = self.config.n_layer, self.config.n_head, self.config.block_size
        self._ids = []  # the shown ids of the last call
        self._present = []  # their KV cache: per layer (keys, values) [n_head, len(_ids), head size]
        self._attention = np.zeros((L, H, B, B), dtype=np.float32)  # their rows, in [:, :, :T, :T]

    def attention(self, ids):
        """Attention probabilities float32 [n_layer, n_head, T, T] for ``ids`` (1 <= T <= block_size),
        computed from the first token that differs from the previous call's ids."""
        P = 0
        while P < min(len(ids), len(self._ids)) and ids[P] == self._ids[P]:
            P += 1
        T = len(ids)
        if P == T:  # nothing new: the rows are already there
            self._present = [(k[:, :T], v[:, :T]) for k, v in self._present]
        else:
            past = [(k[:, :P], v[:, :P]) for k, v in self._present] if P else None
            forward = gpt(ids, self.params, self.config, past=past)
            self._attention[:, :, P:T, :T] = forward.attention
            self._present = forward.present
        self._ids = list(ids)
        return np.ascontiguousarray(self._attention[:, :, :T, :T])

    def analyse(self, text):
        """Tokenize ``text`` (str) and run the model on its last ``block_size`` tokens.

        Lone UTF-16 surrogates (possible in browser strings) become U+FFFD; only the last
        ``MAX_TEXT_CHARS`` characters are used. Returns a dict:
            text: the text analysed (str), after those two steps;
            chars_dropped: characters cut from the front (int);
            ids: the shown token ids (list of int, at most block_size);
            labels: display text of each shown token (list of str, see ``labels``);
            tokens_dropped: tokens before the shown ones (int);
            attention: float32 [n_layer, n_head, T, T] probabilities, or None for empty text.
        """
        chars_dropped = max(0, len(text) - MAX_TEXT_CHARS)
        text = LONE_SURROGATE.sub("\ufffd", text[chars_dropped:])
        ids = self.tokenizer.encode(text)
        tokens_dropped = max(0, len(ids) - self.config.block_size)
        ids = ids[tokens_dropped:]
        return {
            "text": text,
            "chars_dropped": chars_dropped,
            "ids": ids,
            "labels": [self.labels[i] for i in ids],
            "tokens_dropped": tokens_dropped,
            "attention": self.attention(ids) if ids else None,
        }
