"""The GPT forward pass in numpy, float32, returning every head's attention probabilities.

The same model as ``training/gpt.py`` (nanoGPT's GPT-2-style decoder), written as pure functions
after picoGPT's ``gpt2.py``: each takes arrays and returns arrays, with the shapes in a comment.
Weights use PyTorch's names and layout (a Linear's ``weight`` is ``[out, in]``); ``load_gpt``
reads them from safetensors and checks every name and shape before anything is computed.

Attention, as in "Attention Is All You Need" (Vaswani et al. 2017, eq. 1): each token's query is
scored against every earlier token's key by a dot product divided by sqrt(d_k); a causal mask
hides later tokens; a softmax turns each row of scores into probabilities; the output is that
weighted blend of the value vectors.

KV cache: a token's key and value depend only on the tokens up to it, so once computed they never
change. ``gpt(..., past=...)`` takes the keys and values of an unchanged prefix and computes only the
rows of the tokens after it; the figure uses this so that typing recomputes only what changed.

Only what is asked for is computed: without logits, the last block stops at its attention
probabilities, since its attention output and MLP feed nothing but the logits.
"""

import json
import sys
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from attention_live import safetensors_numpy

MASKED = np.float32(-1e10)  # added to scores of future tokens: finite, float32, exp() gives exactly 0
# Pyodide's numpy has no BLAS: there, einsum's own loops do a Linear layer about 1.5x faster than the
# fallback behind @ (measured in the tab: 33 ms against 49 ms for a 128-token forward pass); with
# BLAS, as in CPython, @ is the faster one (4 ms against 12 ms).
NO_BLAS = sys.platform == "emscripten"


@dataclass(frozen=True)
class GPTConfig:
    n_layer: int  # transformer blocks
    n_head: int  # attention heads per block
    n_embd: int  # width of the residual stream; head size is n_embd // n_head
    block_size: int  # longest context, in tokens
    vocab_size: int  # tokens in tokenizer.json


def gelu(x):  # [...] -> [...], GPT-2's tanh approximation (Hendrycks & Gimpel 2016)
    return 0.5 * x * (1 + np.tanh(np.float32(np.sqrt(2 / np.pi)) * (x + np.float32(0.044715) * x * x * x)))  # x*x*x: numpy's x**3 is a slow pow()


def softmax(x):  # [..., n] -> [..., n], probabilities along the last axis
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def layer_norm(x, weight, bias, eps=1e-5):  # [T, C], [C], [C] -> [T, C]
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    return weight * (x - mean) / np.sqrt(variance + np.float32(eps)) + bias


def linear(x, weight, bias):  # [T, in], [out, in], [out] -> [T, out]
    if NO_BLAS:
        return np.einsum("ti,oi->to", x, weight) + bias
    return x @ weight.T + bias


def ffn(x, c_fc, c_proj):  # [T, C] -> [T, C], the position-wise MLP
    return linear(gelu(linear(x, **c_fc)), **c_proj)


def attention_scores(q, k, scale=True):  # [nh, Tq, hs], [nh, T, hs] -> [nh, Tq, T]
    """Every query's dot product with every key, divided by sqrt(d_k) (d_k = head size): without the
    division the scores grow with d_k and the softmax saturates. ``scale=False`` is a what-if only."""
    scores = q @ k.transpose(0, 2, 1)  # [nh, Tq, T], q·k
    return scores / np.float32(np.sqrt(q.shape[-1])) if scale else scores


def causal_mask(Tq, T):  # -> [Tq, T] float32, 0 where key <= query, MASKED after it
    # the queries are the last Tq of the T positions (Tq < T when earlier keys come from a KV cache)
    return (1 - np.tri(Tq, T, k=T - Tq, dtype=np.float32)) * MASKED


def attention_probabilities(q, k, scale=True, mask=True):  # [nh, Tq, hs], [nh, T, hs] -> [nh, Tq, T]
    """softmax(q·k / sqrt(d_k) + mask) along the keys. The model always scales and masks; the figure's
    what-ifs turn one off (``scale=False``: raw scores; ``mask=False``: later keys are weighed too)."""
    scores = attention_scores(q, k, scale)
    if mask:
        scores = scores + causal_mask(q.shape[1], k.shape[1])
    return softmax(scores)


def queries_keys_values(x, c_attn, n_head, past):
    # [Tq, C], past ([nh, P, hs], [nh, P, hs]) or None -> q [nh, Tq, hs], k and v [nh, P+Tq, hs]
    Tq, C = x.shape  # new positions, n_embd
    q, k, v = np.split(linear(x, **c_attn), 3, axis=-1)  # 3 x [Tq, C]
    q, k, v = (m.reshape(Tq, n_head, C // n_head).transpose(1, 0, 2) for m in (q, k, v))  # 3 x [nh, Tq, hs]
    if past is not None:
        k = np.concatenate([past[0], k], axis=1)  # [nh, P+Tq, hs]
        v = np.concatenate([past[1], v], axis=1)  # [nh, P+Tq, hs]
    return q, k, v


def transformer_block(x, ln_1, attn, ln_2, mlp, n_head, past=None, output=True, knockout=()):
    # [Tq, C] -> ([Tq, C] or None, probabilities [nh, Tq, T], KV cache (k, v), queries [nh, Tq, hs])
    # knockout: heads (0-based) whose attention output is zeroed before c_proj, a what-if
    q, k, v = queries_keys_values(layer_norm(x, **ln_1), attn["c_attn"], n_head, past)
    probabilities = attention_probabilities(q, k)  # [nh, Tq, T]
    if not output:  # only the probabilities are wanted
        return None, probabilities, (k, v), q
    y = probabilities @ v  # [nh, Tq, hs], the weighted blend of values
    if knockout:
        y[list(knockout)] = 0  # those heads hand nothing over
    y = y.transpose(1, 0, 2).reshape(x.shape)  # heads side by side again: [Tq, C]
    x = x + linear(y, **attn["c_proj"])
    x = x + ffn(layer_norm(x, **ln_2), **mlp)
    return x, probabilities, (k, v), q


class Forward(NamedTuple):
    """What ``gpt`` returns for the positions it computed (P..T-1; P = 0 without a KV cache)."""

    attention: np.ndarray  # float32 [n_layer, n_head, T-P, T]: row i holds query P+i's probabilities over keys 0..T-1
    logits: np.ndarray | None  # float32 [T-P, vocab_size] next-token logits, or None unless asked for
    present: list  # per layer (keys, values), each float32 [n_head, T, head size]: the KV cache for a later call
    queries: list  # per layer, float32 [n_head, T-P, head size]: the queries of the positions computed


def gpt(ids, params, config, logits=False, past=None, knockout=frozenset()):
    """Run the model on one sequence of token ids.

    Args:
        ids: sequence of T ints in [0, vocab_size), 1 <= T <= block_size.
        params: the weight tree from ``load_gpt`` (float32 arrays).
        config: GPTConfig.
        logits: also compute next-token logits (the costly [T, vocab_size] head).
        past: None, or the ``present`` of an earlier call whose ids began with ``ids[:P]``, cut to
            those P positions (keys and values [n_head, P, head size]); then only positions P..T-1
            are computed, and their numbers equal a full run's up to float32 rounding.
        knockout: a what-if, not the model: (layer, head) pairs, 0-based, whose attention output is
            zeroed at every position before c_proj; later layers see the changed residual stream.
            A cache made without the same knockout must not be passed as ``past``.
    Returns:
        Forward(attention, logits, present, queries): attention is float32 [n_layer, n_head, T-P, T],
        row i holding the probabilities that query P+i gives keys 0..T-1 (each row sums to 1; exactly
        0 for keys after the query); logits float32 [T-P, vocab_size] (unnormalised log-probabilities)
        or None; present the KV cache of all T positions; queries those of positions P..T-1.
    Raises:
        ValueError: T is 0 or more than block_size, an id is out of range, or P >= T.
    """
    ids = np.asarray(ids, dtype=np.int64)
    T = len(ids)
    P = 0 if past is None else past[0][0].shape[1]  # positions already in the KV cache
    if not 1 <= T <= config.block_size:
        raise ValueError(f"cannot forward T={T} tokens, block_size is {config.block_size}")
    if ids.min() < 0 or ids.max() >= config.vocab_size:
        raise ValueError(f"token ids must be in [0, {config.vocab_size})")
    if P >= T:
        raise ValueError(f"the KV cache holds {P} positions, leaving none of T={T} to compute")
    x = params["wte"][ids[P:]] + params["wpe"][P:T]  # [T-P, C]
    attention_per_layer, present, queries = [], [], []
    for i, block in enumerate(params["h"]):
        last = i == len(params["h"]) - 1
        x, probabilities, kv, q = transformer_block(x, **block, n_head=config.n_head, past=None if past is None else past[i],
                                                    output=logits or not last, knockout={h for layer, h in knockout if layer == i})
        attention_per_layer.append(probabilities)
        present.append(kv)
        queries.append(q)
    out = None
    if logits:
        out = layer_norm(x, **params["ln_f"]) @ params["wte"].T  # [T-P, vocab_size], head tied to wte
    return Forward(np.stack(attention_per_layer), out, present, queries)


def expected_shapes(config):
    """Name -> shape of every tensor the safetensors file must hold (nanoGPT names, lm_head tied)."""
    C, V = config.n_embd, config.vocab_size
    shapes = {"transformer.wte.weight": (V, C), "transformer.wpe.weight": (config.block_size, C),
              "transformer.ln_f.weight": (C,), "transformer.ln_f.bias": (C,)}
    for i in range(config.n_layer):
        p = f"transformer.h.{i}."
        shapes.update({
            p + "ln_1.weight": (C,), p + "ln_1.bias": (C,),
            p + "attn.c_attn.weight": (3 * C, C), p + "attn.c_attn.bias": (3 * C,),
            p + "attn.c_proj.weight": (C, C), p + "attn.c_proj.bias": (C,),
            p + "ln_2.weight": (C,), p + "ln_2.bias": (C,),
            p + "mlp.c_fc.weight": (4 * C, C), p + "mlp.c_fc.bias": (4 * C,),
            p + "mlp.c_proj.weight": (C, 4 * C), p + "mlp.c_proj.bias": (C,),
        })
    return shapes


def load_gpt(buffer, name="model.safetensors"):
    """Read the model from a safetensors file in memory (bytes-like).

    The file's ``__metadata__["config"]`` is JSON with n_layer, n_head, n_embd, block_size and
    vocab_size. Returns (params, config, metadata): params is the weight tree that ``gpt`` takes,
    every array float32; metadata is the file's ``__metadata__`` (str -> str).
    Raises ValueError, naming ``name``, if the file is damaged or its tensors' names or shapes
    differ from what the config implies.
    """
    tensors, metadata = safetensors_numpy.load(buffer, name)
    try:
        config = GPTConfig(**json.loads(metadata["config"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{name}: __metadata__ has no valid 'config' ({e})") from None
    shapes = expected_shapes(config)
    if set(tensors) != set(shapes):
        raise ValueError(f"{name}: unexpected tensors {sorted(set(tensors) ^ set(shapes))}")
    for key, shape in shapes.items():
        if tensors[key].shape != shape:
            raise ValueError(f"{name}: {key} has shape {tensors[key].shape}, expected {shape}")
    w = {key: tensors[key].astype(np.float32) for key in shapes}

    def pair(prefix):
        return {"weight": w[prefix + ".weight"], "bias": w[prefix + ".bias"]}

    params = {
        "wte": w["transformer.wte.weight"],
        "wpe": w["transformer.wpe.weight"],
        "h": [{
            "ln_1": pair(f"transformer.h.{i}.ln_1"),
            "attn": {"c_attn": pair(f"transformer.h.{i}.attn.c_attn"), "c_proj": pair(f"transformer.h.{i}.attn.c_proj")},
            "ln_2": pair(f"transformer.h.{i}.ln_2"),
            "mlp": {"c_fc": pair(f"transformer.h.{i}.mlp.c_fc"), "c_proj": pair(f"transformer.h.{i}.mlp.c_proj")},
        } for i in range(config.n_layer)],
        "ln_f": pair("transformer.ln_f"),
    }
    return params, config, metadata
