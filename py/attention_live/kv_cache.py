"""The KV cache of one text: keys and values that never change once computed, reused on every edit.

A token's key and value depend only on the tokens up to it (causal attention), so after an edit the
keys and values of the unchanged first P tokens are still right, and only positions P..T-1 need the
forward pass (``model.gpt``'s ``past``). This is the cache every GPT keeps at inference, generating
one token at a time; here it makes typing cheap: an appended character usually recomputes one or
two rows.

Memory: keys and values of every layer, 2 · n_layer · T · n_embd float32 numbers (4 bytes each).
"""

import numpy as np

from attention_live.model import gpt


class CachedForward:
    """The forward pass of the last ``ids`` given, kept for the next call.

    Args:
        params, config: the model (``model.load_gpt``).
        knockout: what-if heads, (layer, head) 0-based, zeroed before c_proj (``model.gpt``); a
            cache made with one knockout is never used for another, nor for the live view.
    Attributes (after ``update``):
        ids: the token ids (list of int, T of them);
        present: per layer (keys, values), float32 [n_head, T, head size] each;
        queries: per layer, float32 [n_head, T, head size];
        reused: positions whose keys and values came from the cache on the last update (int, P).
    """

    def __init__(self, params, config, knockout=frozenset()):
        self.params, self.config, self.knockout = params, config, frozenset(knockout)
        L, H, B = config.n_layer, config.n_head, config.block_size
        self.ids, self.present, self.queries, self.reused = [], [], [], 0
        self._attention = np.zeros((L, H, B, B), dtype=np.float32)  # the rows of ids, in [:, :, :T, :T]

    def update(self, ids):
        """Make the cache hold ``ids`` (0 <= T <= block_size), computing positions from the first one
        that differs from the last call's ids. Returns the number of positions reused (P)."""
        if not ids:  # an empty text: nothing to keep
            self.ids, self.present, self.queries, self.reused = [], [], [], 0
            return 0
        P = 0
        while P < min(len(ids), len(self.ids)) and ids[P] == self.ids[P]:
            P += 1
        T = len(ids)
        if P == T:  # nothing new: every row is already there
            self.present = [(k[:, :T], v[:, :T]) for k, v in self.present]
            self.queries = [q[:, :T] for q in self.queries]
        else:
            forward = gpt(ids, self.params, self.config, past=self.prefix(P), knockout=self.knockout)
            self._attention[:, :, P:T, :T] = forward.attention
            self.present = forward.present
            self.queries = [np.concatenate([old[:, :P], new], axis=1) for old, new in zip(self.queries, forward.queries)] if P \
                else forward.queries
        self.ids, self.reused = list(ids), P
        return P

    def prefix(self, P):
        """The cache of the first P positions, as ``model.gpt``'s ``past`` (None for P = 0)."""
        return [(k[:, :P], v[:, :P]) for k, v in self.present] if P else None

    def attention(self):
        """Attention probabilities float32 [n_layer, n_head, T, T] of ``ids`` (a new contiguous array)."""
        T = len(self.ids)
        return np.ascontiguousarray(self._attention[:, :, :T, :T])


def cache_summary(config, T, reused):
    """What the cache did on the last update, for the page's line about it. Returns a dict:
        tokens: T (int); heads: attention heads in all, n_layer · n_head (int);
        computed: [first, last] positions computed, 1-based, or None if none was;
        reused: positions taken from the cache (int);
        bytes: memory the cache holds for T tokens, 2 · n_layer · T · n_embd float32 values (int);
        scores_per_head: query-key dot products one head needs for T tokens, T(T+1)/2 (int);
        scores_computed: the dot products this update computed, in every head of every layer: query i
            (1-based) scores its i keys, for each of the rows computed (int);
        scores_full: what recomputing the whole text would take, T(T+1)/2 per head times the heads
            and layers (int);
        tokens_doubled, scores_full_doubled: 2T, and the scores a full recompute of a text of 2T
            tokens would take (ints): about four times scores_full, since the count grows with T²
            (the causal mask only halves it).
    """
    heads = config.n_layer * config.n_head

    def triangle(n):  # query-key pairs of n tokens under the causal mask: 1 + 2 + … + n
        return n * (n + 1) // 2

    return {
        "tokens": T,
        "heads": heads,
        "computed": [reused + 1, T] if reused < T else None,
        "reused": reused,
        "bytes": 2 * config.n_layer * T * config.n_embd * np.dtype(np.float32).itemsize,
        "scores_per_head": triangle(T),
        "scores_computed": heads * (triangle(T) - triangle(reused)),  # rows reused + 1 .. T
        "scores_full": heads * triangle(T),
        "tokens_doubled": 2 * T,
        "scores_full_doubled": heads * triangle(2 * T),
    }
