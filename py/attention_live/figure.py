"""What the page asks of Python: one text in, its tokens and every head's attention out; the math of
one row (``explain``), the same row as FlashAttention computes it (``flash``), the next token
(``predict``) and what a query reaches through the layers below (``rollout``) on request; the same for any checkpoint of the model's training run (``add_checkpoint``,
then ``analyse(..., step=)``).

The page's worker builds one ``Figure`` from the fetched files, then calls ``analyse(text)`` with
the visitor's text as an argument (never as source code) on every edit. Layers and heads are
1-based here, as the page labels them; tokens are 0-based positions among the shown tokens.
"""

import copy
import hashlib
import numbers
import re

import numpy as np

from attention_live.explain import explain_row, next_token, what_if_head
from attention_live.flash import flash
from attention_live.focus import even_entropy, row_entropy
from attention_live.kv_cache import CachedForward, cache_summary
from attention_live.labels import token_label
from attention_live.model import gpt, load_gpt
from attention_live.rollout import layer_mix, mix_below, rollout_row
from attention_live.tokenizer import Tokenizer

MAX_TEXT_CHARS = 2048  # only the last this many characters are tokenized; far more than block_size tokens need
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # from JS strings; UTF-8 cannot hold them


class Figure:
    """The tokenizer and model, loaded once, and the KV cache of the last text analysed.

    Each call reuses the keys and values of the tokens that the previous text shares at its start,
    so appending a character computes one or two rows, and an edit the rows from the first changed
    token on (``kv_cache.CachedForward``). What-if knockouts get a cache of their own: the live
    view's is never touched by them.

    Args:
        model_bytes: the ``model.safetensors`` file (bytes-like).
        tokenizer_json: the ``tokenizer.json`` file (bytes, UTF-8).
        model_sha256: if given, the hex sha256 that ``model_bytes`` must have (build.py records it),
            so that even one changed byte is caught before any number is shown.
    Attributes:
        step: the training step of the model, from its ``__metadata__["step"]`` (int), or None if
            the file does not say.
    Raises:
        ValueError: a file is damaged, or tokenizer.json is not the one the model was trained
            with (its sha256 differs from ``__metadata__["tokenizer_sha256"]``); the message names the file.
    """

    def __init__(self, model_bytes, tokenizer_json, model_sha256=None):
        if model_sha256 is not None and hashlib.sha256(bytes(model_bytes)).hexdigest() != model_sha256:
            raise ValueError("model.safetensors is damaged: its sha256 differs from the one recorded at build time")
        self.params, self.config, metadata = load_gpt(model_bytes)
        self.step = int(metadata["step"]) if "step" in metadata else None
        self._model = self.params  # the model's own parameters: what step None (or self.step) shows
        self._checkpoints = {}  # step -> params of an earlier checkpoint (add_checkpoint), shared by every view
        self._shown_step = None  # the step this view computes with (None: the model itself)
        digest = hashlib.sha256(bytes(tokenizer_json)).hexdigest()
        self._tokenizer_sha256 = digest  # every checkpoint must name the same (add_checkpoint)
        if metadata.get("tokenizer_sha256") != digest:
            raise ValueError("tokenizer.json does not match model.safetensors (sha256 differs from the model's metadata)")
        self.tokenizer = Tokenizer.from_json(bytes(tokenizer_json).decode("utf-8"))
        if self.tokenizer.vocab_size != self.config.vocab_size:
            raise ValueError(f"tokenizer.json has {self.tokenizer.vocab_size} tokens, the model {self.config.vocab_size}")
        self._labels = {}  # token id -> chip label, made when the token is first shown (see label)
        self._live = CachedForward(self.params, self.config)
        self._what_if = CachedForward(self.params, self.config)  # replaced for each new knockout

    def another_view(self):
        """A second Figure over this one's model and tokenizer, with KV caches of its own.

        Several figures on one page are served by one Python: each gets its own view (its own text,
        cache and what-ifs) while the parameters, the tokenizer and the labels, which no call
        changes, are shared rather than loaded again. Returns a Figure.
        """
        view = copy.copy(self)  # shallow: the same params, config, tokenizer, labels and checkpoints
        view.params, view._shown_step = self._model, None
        view._live = CachedForward(view.params, self.config)
        view._what_if = CachedForward(view.params, self.config)
        return view

    def add_checkpoint(self, step, model_bytes, model_sha256=None):
        """Load the checkpoint of training step ``step`` (int), an earlier state of this model's own
        training run, for ``analyse(..., step=step)`` in this Figure and every view of it. It shares
        the tokenizer and is kept: each step is loaded once.

        Args:
            step: the checkpoint's training step, as its ``__metadata__["step"]`` says.
            model_bytes: its safetensors file (bytes-like), in the model's own format.
            model_sha256: if given, the hex sha256 that ``model_bytes`` must have (build.json lists it).
        Raises ValueError (naming the step) if the file is damaged, was trained with another
        tokenizer or shape of model, or is not the checkpoint of ``step``.
        """
        name = f"the checkpoint of step {step}"
        if model_sha256 is not None and hashlib.sha256(bytes(model_bytes)).hexdigest() != model_sha256:
            raise ValueError(f"{name} is damaged: its sha256 differs from the one recorded at build time")
        params, config, metadata = load_gpt(model_bytes, name)
        if config != self.config or metadata.get("tokenizer_sha256") != self._tokenizer_sha256:
            raise ValueError(f"{name} is not a checkpoint of this model: its config or tokenizer differs")
        if metadata.get("step") != str(step):
            raise ValueError(f"{name} says it is step {metadata.get('step')}")
        self._checkpoints[step] = params

    @property
    def checkpoints(self):
        """The steps loaded with ``add_checkpoint`` (sorted list of int)."""
        return sorted(self._checkpoints)

    def label(self, token_id):
        """The chip label (str) of the token ``token_id`` (int): labels.token_label of its bytes.

        Made the first time the token is shown, then kept: a text shows a few of the vocabulary's
        tokens, and making every label up front delayed the figure's start in the tab
        (docs/benchmark-history.md, "Levers tried on 2026-12-03").
        """
        if token_id not in self._labels:
            self._labels[token_id] = token_label(self.tokenizer.token_bytes[token_id])
        return self._labels[token_id]

    def tokenize(self, text):
        """The tokens the figure shows for ``text`` (str), without running the model.

        Lone UTF-16 surrogates (possible in browser strings) become U+FFFD; only the last
        ``MAX_TEXT_CHARS`` characters are used, and only the last ``block_size`` tokens are shown.
        Returns a dict:
            text: the text, after those two steps (str);
            chars_dropped: characters cut from the front (int);
            ids: the shown token ids (list of int, at most block_size);
            labels: display text of each shown token (list of str, see ``labels``);
            tokens_dropped: tokens before the shown ones (int).
        """
        chars_dropped = max(0, len(text) - MAX_TEXT_CHARS)
        text = LONE_SURROGATE.sub("\ufffd", text[chars_dropped:])
        ids = self.tokenizer.encode(text)
        tokens_dropped = max(0, len(ids) - self.config.block_size)
        ids = ids[tokens_dropped:]
        return {"text": text, "chars_dropped": chars_dropped, "ids": ids, "labels": [self.label(i) for i in ids],
                "tokens_dropped": tokens_dropped}

    def analyse(self, text, knockout=(), what_if=None, step=None):
        """Tokenize ``text`` (str, as ``tokenize`` does) and run the model on its shown tokens.

        ``step``: None (or the model's own ``step``) for the model itself, else the training step of
        a checkpoint loaded with ``add_checkpoint``: this and every later ``explain``, ``flash`` and
        ``predict`` of this view then use that checkpoint, until a call with another step.

        What-ifs, never touching the live view's cache: ``knockout``, (layer, head) pairs (1-based)
        whose attention output is zeroed (see ``predict``), and ``what_if``, None or (layer, head,
        scale, mask): that head's matrix recomputed without the division by sqrt(d_k) (``scale``
        False) or without the causal mask (``mask`` False).
        Returns ``tokenize``'s dict, and:
            attention: float32 [n_layer, n_head, T, T] probabilities, or None for empty text;
            entropy: float32 [n_layer, n_head, T], each row's entropy in bits (``focus.row_entropy``:
                0 all on one key, log2(i + 1) spread evenly over query i's keys), or None for empty text;
            entropy_even: float32 [T], that most, log2(i + 1) for query i (``focus.even_entropy``);
            cache: what the KV cache behind these numbers did (``kv_cache.cache_summary``), or None
                for empty text;
            step: the checkpoint shown (int), or None for the model itself.
        Raises ValueError for a knockout or what-if head outside the model, or a step not loaded.
        """
        self._show_step(step)
        shown = self.tokenize(text)
        ids = shown["ids"]
        run = self._run(ids, knockout)
        attention = self._attention(run, what_if) if ids else None
        return {**shown, "attention": attention, "entropy": row_entropy(attention) if ids else None, "entropy_even": even_entropy(len(ids)),
                "cache": cache_summary(self.config, len(ids), run.reused) if ids else None, "step": self._shown_step}

    def rollout(self, layer, head, token, knockout=(), what_if=None):
        """Attention stacked on attention for one query of the last text analysed (``rollout``: Abnar &
        Zuidema 2020's attention rollout). ``layer`` and ``head`` 1-based, ``token`` the query's position
        (0-based); ``knockout`` and ``what_if`` as in ``analyse``, so that ``direct`` is the row the
        chips show.

        Returns a dict (float32 numpy arrays):
            direct: [T], the head's own row (probabilities);
            rollout: [T], the query's row of ``R = A_layer,head · Â_(layer-1) · … · Â_1``: how much of its
                attention ends on each typed token once the layers below are counted (in layer 1, direct);
            layer1_mix: [T, T] or None, ``Â_1 = ½ · mean over heads(A_1) + ½ · I``, None in a one-layer model;
                in layer 2 it is also what each key is made of in typed tokens (row j: key j);
            key_mix: [T, T] or None, what each key of this layer is made of in typed tokens
                (``rollout.mix_below``) for a layer above 2; None in layers 1 and 2 (layer 2's is
                layer1_mix, not sent twice: the page asks for this on every keystroke);
            layer, head, token.
        Raises ValueError for a layer, head or token outside the model or the text.
        """
        run = self._run(self._live.ids, knockout)
        self._check_view(layer, head, token)
        attention = self._attention(run, what_if)
        return {"direct": attention[layer - 1, head - 1, token].copy(), "rollout": rollout_row(attention, layer, head, token).astype(np.float32),
                "key_mix": mix_below(attention, layer) if layer > 2 else None,
                "layer1_mix": layer_mix(attention[0]) if self.config.n_layer > 1 else None,
                "layer": layer, "head": head, "token": token}

    def explain(self, layer, head, token, scale=True, mask=True, knockout=()):
        """The math of one attention row of the last text analysed (``explain.explain_row``).

        ``layer`` and ``head`` 1-based, ``token`` the query's position (0-based); ``scale`` and
        ``mask`` False are what-ifs; ``knockout`` as in ``analyse`` (the row of the knocked-out model).
        Returns explain_row's dict (float32 numpy arrays: q and output [d_k], k and v [T, d_k],
        scores, scaled (-inf where the mask hides a key), weights and contributions [T], weights_sum)
        plus layer, head, token, dk (head size, int), sqrt_dk (float), scale, mask, knockout (list of
        [layer, head]). Raises ValueError for a layer, head or token outside the model or the text.
        """
        run = self._run(self._live.ids, knockout)
        self._check_view(layer, head, token)
        i, h = layer - 1, head - 1
        k, v = run.present[i]
        row = explain_row(run.queries[i][h], k[h], v[h], token, scale, mask)
        dk = k.shape[-1]
        return {**row, "layer": layer, "head": head, "token": token, "dk": dk, "sqrt_dk": float(np.sqrt(dk)),
                "scale": scale, "mask": mask, "knockout": sorted({tuple(pair) for pair in knockout})}

    def flash(self, layer, head, token, tile=16):
        """One attention row of the last text analysed computed as FlashAttention does, keys in tiles
        of ``tile`` (``flash.flash``: the running maximum, sum and output after each tile, beside the
        ordinary output). ``layer`` and ``head`` 1-based, ``token`` the query's position (0-based),
        ``tile`` from 1 to block_size keys.

        Returns flash.flash's dict (steps, output and reference_output float32 [d_k], max_abs_diff,
        scores_held, scores_plain, tile, memory in bytes) plus layer, head and token. Raises ValueError
        for a layer, head, token or tile size outside the model or the text.
        """
        run = self._run(self._live.ids, ())
        self._check_view(layer, head, token)
        if not (isinstance(tile, numbers.Integral) and not isinstance(tile, bool) and 1 <= tile <= self.config.block_size):
            raise ValueError(f"tile must be a whole number from 1 to {self.config.block_size}, got {tile!r}")
        k, v = run.present[layer - 1]
        return {**flash(run.queries[layer - 1][head - 1], k[head - 1], v[head - 1], token, int(tile)), "layer": layer, "head": head, "token": token}

    def predict(self, token, top=5, knockout=()):
        """The next token after position ``token`` (0-based) of the last text analysed.

        Logits come from one more row of the forward pass, on the cached keys and values of the
        positions before ``token`` (a KV-cache step, as in generation; the cache is not changed).
        ``knockout``: (layer, head) pairs, 1-based, whose attention output is zeroed before c_proj
        at every position, a what-if; then each candidate also carries its probability in the intact
        model. Returns a dict:
            token; knockout (list of [layer, head]);
            candidates: list of {id, label, p} for the ``top`` most likely next tokens (p: probability),
                plus p_intact and delta (p - p_intact, in probability) when a head is knocked out;
            next: {id, label, p, rank} of the token that follows in the text, or None at its end.
        Raises ValueError for a token outside the text or a knockout head outside the model.
        """
        ids = self._live.ids
        self._check_view(1, 1, token)
        if not (isinstance(top, int) and top >= 1):
            raise ValueError(f"top must be a whole number of candidates, at least 1, got {top!r}")

        def logits_at(run):  # float32 [vocab_size]: one more row on the cache of the positions before token
            return gpt(ids[:token + 1], self.params, self.config, logits=True, past=run.prefix(token), knockout=run.knockout).logits[-1]

        logits = logits_at(self._run(ids, knockout))
        candidates, following = next_token(logits, top, ids[token + 1] if token + 1 < len(ids) else None,
                                           logits_at(self._live) if knockout else None)
        for entry in candidates + ([following] if following else []):
            entry["label"] = self.label(entry["id"])
        return {"token": token, "knockout": sorted({tuple(pair) for pair in knockout}), "candidates": candidates, "next": following}

    def _check_view(self, layer, head, token):
        c, T = self.config, len(self._live.ids)
        if T == 0:
            raise ValueError("the text has no tokens: analyse a text first")
        for name, value, low, high in (("layer", layer, 1, c.n_layer), ("head", head, 1, c.n_head), ("token", token, 0, T - 1)):
            if not (isinstance(value, numbers.Integral) and not isinstance(value, bool) and low <= value <= high):
                raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}")

    def _show_step(self, step):
        """Compute with the checkpoint of ``step`` (None or the model's own step: the model) from now on:
        the parameters change, so the KV caches start again."""
        if step == self.step:
            step = None
        if step == self._shown_step:
            return
        if step is not None and step not in self._checkpoints:
            raise ValueError(f"step {step!r} is not a loaded checkpoint (loaded: {self.checkpoints or 'none'})")
        self.params = self._model if step is None else self._checkpoints[step]
        self._live = CachedForward(self.params, self.config)
        self._what_if = CachedForward(self.params, self.config)
        self._shown_step = step

    def _attention(self, run, what_if):
        """Every head's attention of ``run`` (float32 [n_layer, n_head, T, T]), with the selected head's
        matrix recomputed for ``what_if`` (None, or (layer, head, scale, mask) as in ``analyse``)."""
        attention = run.attention()
        if what_if is not None:
            layer, head, scale, mask = what_if
            self._check_view(layer, head, 0)
            attention[layer - 1, head - 1] = what_if_head(run.queries[layer - 1][head - 1], run.present[layer - 1][0][head - 1],
                                                          scale, mask)
        return attention

    def _run(self, ids, knockout):
        """The cached forward pass for ``knockout`` (1-based pairs) brought up to ``ids``: the live one
        when nothing is knocked out, otherwise the what-if cache (a new one for a new knockout)."""
        self._live.update(ids)
        if not knockout:
            return self._live
        pairs = frozenset((layer - 1, head - 1) for layer, head in knockout)  # each head once
        for layer, head in pairs:
            if not (0 <= layer < self.config.n_layer and 0 <= head < self.config.n_head):
                raise ValueError(f"cannot knock out layer {layer + 1}, head {head + 1}: the model has "
                                 f"{self.config.n_layer} layers of {self.config.n_head} heads")
        if self._what_if.knockout != pairs:
            self._what_if = CachedForward(self.params, self.config, pairs)
        self._what_if.update(ids)
        return self._what_if
