"""Timings for the benchmark: the same code runs in the browser tab (Pyodide) and in native CPython.

All times are wall-clock milliseconds from ``time.perf_counter``.
"""

import random
import time

from attention_live.model import gpt


def sample_text(tokenizer, n_chars, seed=0):
    """English-looking text of exactly ``n_chars`` characters (str): random whole words of the
    vocabulary (tokens such as ``" the"``, ``" Alice"``), the same for the same seed everywhere."""
    words = sorted(tb.decode("ascii") for tb in tokenizer.token_bytes
                   if len(tb) > 2 and tb[:1] == b" " and tb[1:].isalpha() and tb.isascii())
    rng = random.Random(seed)
    parts, length = [], 0
    while length < n_chars:
        parts.append(rng.choice(words))
        length += len(parts[-1])
    return "".join(parts)[:n_chars]


def forward_ms(figure, ids, repeats):
    """Times (list of ``repeats`` floats, ms) of a full forward pass over ``ids`` without a KV cache,
    attention only (no logits), with ``figure``'s weights."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        gpt(ids, figure.params, figure.config)
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def encode_ms(tokenizer, text, repeats):
    """Times (list of ``repeats`` floats, ms) of ``tokenizer.encode(text)``, each from an empty piece cache."""
    times = []
    for _ in range(repeats):
        tokenizer.clear_cache()
        start = time.perf_counter()
        tokenizer.encode(text)
        times.append((time.perf_counter() - start) * 1000.0)
    return times
