"""How focused an attention row is: its entropy, in bits.

A query's row of attention is a probability distribution over the keys it may see (keys 0..i for
query i, under the causal mask). Its Shannon entropy (Shannon 1948, "A Mathematical Theory of
Communication") says how spread out that distribution is:

    H(row) = -sum_j p_j log2 p_j        (0 log 0 = 0: masked keys add nothing)

It is 0 bits when all of the row's weight is on one key and log2(i + 1) bits when the i + 1 keys it
can see share it evenly, the most it can be. Attention entropy is the usual measure of a head's focus
(Zhai et al. 2023, "Stabilizing Transformer Training by Preventing Attention Entropy Collapse",
arXiv:2303.06296, use it in nats; bits are easier to read beside log2 of the row's length).
"""

import numpy as np


def row_entropy(attention):
    """The entropy of every attention row, in bits.

    Args:
        attention: probabilities, float [n_layer, n_head, T, T] (row i: query i's weights over keys,
            0 where the mask hides a key), as ``Figure.analyse`` returns them.
    Returns float32 [n_layer, n_head, T]: entry [l, h, i] is the entropy of query i's row in layer
    l + 1, head h + 1, between 0 and log2(i + 1). Computed in float64, then rounded once.

    Example: a row [0.5, 0.5, 0, 0] has 1 bit; [1, 0, 0, 0] has 0 bits.
    """
    p = np.asarray(attention, dtype=np.float64)  # (L, H, T, T)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(p), 0.0)  # 0 log 0 = 0
    return np.maximum(terms.sum(axis=-1), 0.0).astype(np.float32)  # (L, H, T); a rounding -0 is 0


def even_entropy(T):
    """The most entropy each of T query rows can have, in bits: float32 [T], entry i = log2(i + 1),
    the entropy of a row that spreads its weight evenly over the i + 1 keys query i sees.

    Example: even_entropy(4) gives [0, 1, 1.585, 2].
    """
    return np.log2(np.arange(1, T + 1, dtype=np.float64)).astype(np.float32)
