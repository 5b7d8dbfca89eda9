"""The math of one attention row and of the next token, with the model's own numbers.

This is what the figure's "Show the math" panel prints. For one head and one query token i
("Attention Is All You Need", Vaswani et al. 2017, eq. 1, for a single row):

    q_i = (x_i W_Q)_head,  k_j = (x_j W_K)_head,  v_j = (x_j W_V)_head      d_k = head size
    score_j  = q_i · k_j                        for every key j, also the later ones
    scaled_j = score_j / sqrt(d_k)
    weight   = softmax(scaled + mask)           mask_j = -inf for j > i: those weights are exactly 0
    output   = sum_j weight_j v_j               the blend of values this head hands to token i

Every step calls ``model``'s own functions (attention_scores, attention_probabilities, softmax) on
the queries, keys and values the forward pass computed; nothing here is a second copy of the model.
"""

import numpy as np

from attention_live.model import attention_probabilities, attention_scores, softmax


def explain_row(q, k, v, token, scale=True, mask=True):
    """One head's attention row for query ``token``, step by step.

    Args:
        q, k, v: float32 [T, d_k], the head's queries, keys and values of all T shown tokens.
        token: the query's position, 0 <= token < T.
        scale, mask: the model's steps; False is a what-if (raw scores; later keys weighed too).
    Returns a dict of float32 numpy arrays (and one float):
        q [d_k] the query; k, v [T, d_k];
        scores [T]: q·k_j for every key j;
        scaled [T]: scores / sqrt(d_k) (the scores themselves when ``scale`` is False), and with
            ``mask`` -inf after the query, which is what the mask adds before the softmax;
        weights [T]: softmax probabilities, exactly 0 after the query when ``mask``;
        weights_sum (float): their sum, 1 up to float32 rounding (a reader's check of the softmax);
        output [d_k]: sum_j weights_j v_j;
        contributions [T]: the length (L2 norm) of each weights_j v_j, how much key j adds to output.
    """
    query, keys = q[None, token:token + 1], k[None]  # one head, one query: [1, 1, d_k], [1, T, d_k]
    scores = attention_scores(query, keys, scale=False)[0, 0]
    scaled = attention_scores(query, keys, scale)[0, 0]
    weights = np.zeros_like(scores)
    if mask:  # the query is the last of keys 0..token, as in the model's causal mask
        scaled[token + 1:] = -np.inf
        weights[:token + 1] = attention_probabilities(query, keys[:, :token + 1], scale)[0, 0]
    else:
        weights[:] = attention_probabilities(query, keys, scale, mask=False)[0, 0]
    return {
        "q": q[token],
        "k": k,
        "v": v,
        "scores": scores,
        "scaled": scaled,
        "weights": weights,
        "weights_sum": float(weights.sum()),
        "output": weights @ v,
        "contributions": np.linalg.norm(weights[:, None] * v, axis=1),
    }


def what_if_head(q, k, scale=True, mask=True):
    """One head's whole attention matrix with a step left out, for the figure's what-ifs.

    Args: q, k float32 [T, d_k], the head's queries and keys; ``scale`` False: the scores are not
    divided by sqrt(d_k); ``mask`` False: every query also weighs the keys after it.
    Returns float32 [T, T] probabilities (each row sums to 1); with both True, the model's matrix.
    """
    return attention_probabilities(q[None], k[None], scale, mask)[0]


def next_token(logits, top=5, actual=None, intact_logits=None):
    """The model's prediction at one position.

    Args:
        logits: float32 [vocab_size], unnormalised log-probabilities of the next token.
        top: how many candidates (int >= 1).
        actual: the id of the token that follows in the text, or None at the end of the text.
        intact_logits: float32 [vocab_size] of the model without a what-if, or None; then each
            candidate also gets its probability there and the change.
    Returns (candidates, following): candidates, most likely first, a list of dicts {id, p} (p the
    softmax probability), with p_intact and delta = p - p_intact (probabilities) when intact_logits
    is given; following None, or {id, p, rank} for ``actual`` (rank 1 = most likely; ties share the
    better rank).
    """
    probabilities = softmax(logits)
    intact = None if intact_logits is None else softmax(intact_logits)
    candidates = []
    for i in np.argsort(-probabilities, kind="stable")[:top]:
        candidate = {"id": int(i), "p": float(probabilities[i])}
        if intact is not None:
            candidate.update(p_intact=float(intact[i]), delta=float(probabilities[i] - intact[i]))
        candidates.append(candidate)
    if actual is None:
        return candidates, None
    p = probabilities[actual]
    return candidates, {"id": int(actual), "p": float(p), "rank": int(np.sum(probabilities > p)) + 1}
