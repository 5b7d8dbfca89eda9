"""Attention computed the way FlashAttention does: keys in tiles, an online softmax, the same output.

``explain.py`` computes one query's row as the formula reads: every score q·k_j / sqrt(d_k), then a
softmax over all of them, then the weighted sum of the values. FlashAttention computes the same
softmax(QKᵀ / sqrt(d_k)) V without ever holding a whole row of scores (or the T × T matrix): it visits
the keys in tiles of B and keeps three running quantities, rescaling them whenever a tile raises the
maximum. Sources: the running maximum and sum are the online softmax normaliser of Milakov &
Gimelshein 2018 ("Online normalizer calculation for softmax", arXiv:1805.02867); Dao et al. 2022
("FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness", arXiv:2205.14135,
Algorithm 1) carries the output along with them, in tiles of keys and values (outer loop) and of
queries (inner loop), keeping the output divided by the running sum after every tile; Dao 2023
("FlashAttention-2", arXiv:2307.08691, Algorithm 1) swaps the loops (queries outside, keys inside)
and keeps the output unnormalised until one division at the end. This module follows FlashAttention-2's
order, which reads most simply for one query. For one query q and the tile of keys K_t, values V_t:

    s       = q K_tᵀ / sqrt(d_k)                 B scores, the only ones held
    m_new   = max(m_old, max_j s_j)              running maximum of the scaled scores
    rescale = exp(m_old - m_new)                 what the sums so far are worth now (exp(-inf) = 0 at first)
    p       = exp(s - m_new)                     the tile's unnormalised weights
    l_new   = rescale · l_old + Σ_j p_j          running sum of exp(s - m)
    acc_new = rescale · acc_old + p V_t          running unnormalised output, d_k numbers

and at the end output = acc / l, which equals the ordinary output within float32 rounding. Under the
causal mask, a tile whose keys all come after the query adds nothing and is skipped; keys after the
query inside a tile get the mask's score (``model.MASKED``), whose exp is exactly 0.

The scores come from ``model.attention_scores`` and the reference output from ``explain.explain_row``:
the same pieces as the forward pass, in another order.
"""

import numpy as np

from attention_live.explain import explain_row
from attention_live.model import MASKED, attention_scores

SCORE_BYTES = 4  # a score is a float32


def tiles(count, size):
    """The [first, last] index pairs (inclusive) of ``count`` items in tiles of ``size``: ``tiles(5, 2)`` ->
    ``[[0, 1], [2, 3], [4, 4]]``."""
    return [[first, min(first + size, count) - 1] for first in range(0, count, size)]


def flash_row(q, k, v, token, tile):
    """One query's attention output computed tile by tile, as FlashAttention does (module docstring).

    Args:
        q, k, v: float32 [T, d_k], one head's queries, keys and values of all T shown tokens.
        token: the query's position, 0 <= token < T.
        tile: keys per tile (B), 1 <= tile.
    Returns a dict:
        steps: one per tile, in order: {keys: [first, last], skipped (bool: the causal mask skips the
            tile, whose other fields then repeat the previous step's), m (float), l (float), rescale
            (float: exp(m_old - m_new), the factor the sums so far were multiplied by), acc (float32 [d_k])};
        output: float32 [d_k], acc / l after the last tile;
        scores_held: the most scores held at once (the largest tile visited);
    Raises ValueError for a tile size below 1 or a token outside 0..T-1.
    """
    T = k.shape[0]
    if not (isinstance(tile, int) and tile >= 1):
        raise ValueError(f"tile must be a whole number of keys, at least 1, got {tile!r}")
    if not 0 <= token < T:
        raise ValueError(f"token must be from 0 to {T - 1}, got {token!r}")
    query = q[None, token:token + 1]  # one head, one query: [1, 1, d_k]
    m, l, rescale, acc = -np.inf, np.float32(0.0), np.float32(0.0), np.zeros(k.shape[1], dtype=np.float32)
    steps, held = [], 0
    for first, last in tiles(T, tile):
        if first > token:  # every key of the tile is after the query: masked, nothing to add
            steps.append({"keys": [first, last], "skipped": True, "m": float(m), "l": float(l), "rescale": float(rescale), "acc": acc.copy()})
            continue
        s = attention_scores(query, k[None, first:last + 1])[0, 0]  # [B] scaled scores: the tile's only
        s[max(0, token + 1 - first):] = MASKED  # keys after the query within the tile
        held = max(held, last - first + 1)
        m_new = np.float32(max(m, s.max()))
        rescale = np.exp(np.float32(m - m_new)).astype(np.float32)
        p = np.exp(s - m_new)
        l = rescale * l + p.sum(dtype=np.float32)
        acc = rescale * acc + p @ v[first:last + 1]
        m = m_new
        steps.append({"keys": [first, last], "skipped": False, "m": float(m), "l": float(l), "rescale": float(rescale), "acc": acc.copy()})
    return {"steps": steps, "output": acc / l, "scores_held": held}


def flash_head(q, k, v, tile_q, tile_k):
    """One head's whole causal attention output, every query, in tiles of ``tile_q`` queries ×
    ``tile_k`` keys (FlashAttention-2's order: the outer loop over query tiles, the inner over key
    tiles; a key tile wholly after a query tile is not visited), holding at most tile_q × tile_k scores
    at a time.

    Args: q, k, v float32 [T, d_k]; tile_q, tile_k >= 1 (ValueError otherwise).
    Returns (output float32 [T, d_k], scores_held: the most scores held at once).
    """
    if not all(isinstance(b, int) and b >= 1 for b in (tile_q, tile_k)):
        raise ValueError(f"tile sizes must be whole numbers, at least 1, got {tile_q!r} and {tile_k!r}")
    T, dk = k.shape
    output, held = np.empty((T, dk), dtype=np.float32), 0
    for q_first, q_last in tiles(T, tile_q):
        rows = np.arange(q_first, q_last + 1)
        m = np.full(len(rows), -np.inf, dtype=np.float32)
        l = np.zeros(len(rows), dtype=np.float32)
        acc = np.zeros((len(rows), dk), dtype=np.float32)
        for k_first, k_last in tiles(T, tile_k):
            if k_first > q_last:  # the whole tile is after every query of this tile
                break
            s = attention_scores(q[None, q_first:q_last + 1], k[None, k_first:k_last + 1])[0]  # [Bq, Bk]
            s = np.where(np.arange(k_first, k_last + 1)[None, :] > rows[:, None], MASKED, s)
            held = max(held, s.size)
            m_new = np.maximum(m, s.max(axis=1))
            rescale = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = rescale * l + p.sum(axis=1)
            acc = rescale[:, None] * acc + p @ v[k_first:k_last + 1]
            m = m_new
        output[q_first:q_last + 1] = acc / l[:, None]
    return output, held


def flash(q, k, v, token, tile):
    """``flash_row`` beside the ordinary computation of the same row, for the figure: the dict of
    flash_row plus ``reference_output`` (float32 [d_k], ``explain.explain_row``'s output),
    ``max_abs_diff`` (float, largest |output - reference_output|), ``scores_plain`` (T: the scores the
    ordinary row holds), ``tile`` and ``memory``, the scores held at once against the ordinary way's:
    {query: {scores: [held, T], bytes}, head: {tile: [B, B], scores: [B², T²], bytes}} for this query and
    for the whole head in B × B tiles (``flash_head``; B = min(tile, T)), bytes = scores × SCORE_BYTES.
    """
    T = k.shape[0]
    row = flash_row(q, k, v, token, tile)
    reference = explain_row(q, k, v, token)["output"]
    block = min(tile, T)

    def held(tile_shape, scores):
        return {**tile_shape, "scores": scores, "bytes": [n * SCORE_BYTES for n in scores]}

    return {**row, "tile": tile, "reference_output": reference, "max_abs_diff": float(np.max(np.abs(row["output"] - reference))),
            "scores_plain": T, "memory": {"query": held({}, [row["scores_held"], T]), "head": held({"tile": [block, block]}, [block * block, T * T])}}
