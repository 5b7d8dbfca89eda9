"""Attention stacked on attention: which typed tokens reach a query once the layers below are counted.

A head of layer 2 does not look at the typed tokens. Its queries, keys and values are computed from
vectors that layer 1 has already mixed: the key at position j is made of a little of every earlier
token. *Attention rollout* (Abnar & Zuidema, "Quantifying Attention Flow in Transformers", ACL 2020,
section 3) follows the weights down through the layers:

    Â_ℓ = ½ · mean over heads(A_ℓ) + ½ · I            each layer's mixing, the residual path as I
    R   = A_L,h · Â_(L-1) · … · Â_1                    head h of layer L, through every layer below

Row i of R says how much of query i's attention in that head ends on each typed token. In layer 1
nothing is below: R is the head's own matrix. Row j of Â_(L-1) · … · Â_1 (for a 2-layer model: of
Â_1) says what the key at j is made of, in typed tokens.

What rollout leaves out: the ½ on the residual path is a convention (the paper's), not a measured
share; it ignores how large each value vector is (a heavy weight on a small value moves little), and
the MLPs, which mix nothing across positions but change every vector. It reads the weights as a flow,
which they are not quite.
"""

import numpy as np


def layer_mix(attention):
    """One layer's mixing, with the residual path: ``½ · mean over heads(attention) + ½ · I``.

    Args:
        attention: float [n_head, T, T], that layer's probabilities (rows sum to 1).
    Returns:
        float [T, T] of ``attention``'s dtype; each row sums to 1.
    """
    attention = np.asarray(attention)
    T = attention.shape[-1]
    return 0.5 * attention.mean(axis=0) + 0.5 * np.eye(T, dtype=attention.dtype)


def mix_below(attention, layer):
    """What each position's input to layer ``layer`` (1-based) is made of, in typed tokens:
    ``Â_(layer-1) · … · Â_1``, or None in layer 1 (its input is the typed tokens themselves).

    Args:
        attention: float [n_layer, n_head, T, T], every layer's probabilities.
        layer: 1-based layer.
    Returns:
        float [T, T] (row j: position j's input; each row sums to 1), or None for layer 1.
    """
    mixed = None
    for below in range(layer - 1):  # Â_1 first: each later layer mixes what the one before it made
        step = layer_mix(attention[below])
        mixed = step if mixed is None else step @ mixed
    return mixed


def rollout_row(attention, layer, head, token):
    """Row ``token`` (0-based) of ``R = A_layer,head · Â_(layer-1) · … · Â_1`` (``layer``, ``head`` 1-based).

    Args:
        attention: float [n_layer, n_head, T, T] probabilities.
    Returns:
        float [T]: how much of the query's attention in that head ends on each typed token (sums to
        the row's own sum, 1). In layer 1: the head's own row.
    """
    row = attention[layer - 1, head - 1, token]
    below = mix_below(attention, layer)
    return row if below is None else row @ below
