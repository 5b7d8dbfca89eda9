"""The math panel's numbers (``Figure.explain``), the next token (``Figure.predict``), knockouts and
the KV cache's summary, against the PyTorch reference model (training/gpt.py) run with hooks that
expose its queries, keys and values and zero a head's output before c_proj."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_live.labels import token_label  # noqa: E402
from conftest import WEIGHTS  # noqa: E402
from support.numbers import assert_close  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from training.export import reference_model  # noqa: E402

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'


@pytest.fixture(scope="module")
def reference():
    return reference_model(str(WEIGHTS / "model.safetensors"))


@pytest.fixture(scope="module")
def hf_tokenizer():
    return Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))


def torch_run(model, ids, knockout=()):
    """The reference on ``ids``: logits [T, V], attention [L, H, T, T] and, per layer, (q, k, v) each
    [H, T, head size], read from c_attn's output by a forward hook; heads in ``knockout`` ((layer,
    head), 1-based) have their attention output zeroed before c_proj by a pre-hook. float32 numpy."""
    C, H = model.config.n_embd, model.config.n_head
    size = C // H
    captured, hooks = [], []
    for layer, block in enumerate(model.transformer.h, start=1):
        hooks.append(block.attn.c_attn.register_forward_hook(lambda module, args, out: captured.append(out[0])))
        heads = [h for lay, h in knockout if lay == layer]
        if heads:
            def zero(module, args, heads=heads):
                y = args[0].clone()
                for h in heads:
                    y[..., (h - 1) * size:h * size] = 0
                return (y,)
            hooks.append(block.attn.c_proj.register_forward_pre_hook(zero))
    try:
        with torch.no_grad():
            logits, _, attention = model(torch.tensor([ids]))
    finally:
        for hook in hooks:
            hook.remove()
    qkv = [tuple(m.view(-1, H, size).transpose(0, 1).numpy() for m in out.split(C, dim=-1)) for out in captured]
    return logits[0].numpy(), torch.stack(attention)[:, 0].numpy(), qkv


def softmax64(x):
    e = np.exp(np.asarray(x, dtype=np.float64) - np.max(x))
    return e / e.sum()


@pytest.fixture(scope="module")
def analysed(figure, reference):
    result = figure.analyse(TEXT)
    return result, torch_run(reference, result["ids"])


@pytest.mark.parametrize("layer, head, token", [(2, 3, 7), (1, 1, 0), (1, 4, 12), (2, 2, -1)])
def test_explain_matches_torch(figure, analysed, layer, head, token):
    result, (_, attention, qkv) = analysed
    T = len(result["ids"])
    token %= T
    row = figure.explain(layer, head, token)
    assert np.all(row["scaled"][token + 1:] == -np.inf), "the mask adds -inf before the softmax"
    row["scaled"] = row["scaled"][:token + 1]
    q, k, v = (m[head - 1] for m in qkv[layer - 1])
    assert_close(row["q"], q[token], 1e-5, "q")
    assert_close(row["k"], k, 1e-5, "k")
    assert_close(row["v"], v, 1e-5, "v")
    scores = k.astype(np.float64) @ q[token].astype(np.float64)  # every key, also after the query
    # a float32 dot product's rounding error is bounded relative to the sum of its terms' sizes,
    # sum |q_i k_i| (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1), not to its value:
    # terms of ~±50 that cancel to a score of 0.6 leave errors of ~1e-5; compared relative to that sum
    size = np.maximum(1, np.abs(k.astype(np.float64)) @ np.abs(q[token].astype(np.float64)))
    assert_close(row["scores"] / size, scores / size, 1e-5, "scores (relative)")
    assert_close(row["scaled"], scores[:token + 1] / np.sqrt(q.shape[-1]), 1e-5, "scaled")
    assert_close(row["weights"], attention[layer - 1, head - 1, token], 1e-5, "weights")
    assert np.all(row["weights"][token + 1:] == 0), "a masked key must weigh exactly 0"
    assert_close(row["weights"], result["attention"][layer - 1, head - 1, token], 1e-6, "the figure's row")
    assert_close(row["output"], attention[layer - 1, head - 1, token].astype(np.float64) @ v, 1e-5, "output")
    assert row["weights_sum"] == pytest.approx(1, abs=1e-6)
    assert row["dk"] == q.shape[-1] and row["sqrt_dk"] == pytest.approx(np.sqrt(q.shape[-1]))


def test_without_the_scale_the_weights_are_the_softmax_of_the_raw_scores(figure, analysed):
    result, (_, attention, qkv) = analysed
    token = 7
    q, k, _ = (m[2] for m in qkv[1])
    raw = k[:token + 1].astype(np.float64) @ q[token]
    row = figure.explain(2, 3, token, scale=False)
    assert_close(row["scaled"][:token + 1], row["scores"][:token + 1], 0, "scaled equals raw without the scale")
    assert_close(row["weights"][:token + 1], softmax64(raw), 1e-5, "softmax of the raw scores")
    assert np.all(row["weights"][token + 1:] == 0)
    print(f"largest weight: {row['weights'].max():.3f} unscaled, {attention[1, 2, token].max():.3f} scaled")
    assert row["weights"].max() > attention[1, 2, token].max(), "without the scale the row sharpens"


def test_without_the_mask_later_keys_are_weighed(figure, analysed):
    result, (_, _, qkv) = analysed
    token = 7
    q, k, _ = (m[2] for m in qkv[1])
    row = figure.explain(2, 3, token, mask=False)
    assert np.all(row["weights"][token + 1:] > 0)
    assert row["weights"].sum() == pytest.approx(1, abs=1e-6)
    assert_close(row["weights"], softmax64(k.astype(np.float64) @ q[token] / np.sqrt(q.shape[-1])), 1e-5, "all keys")
    assert_close(figure.explain(2, 3, token)["weights"], result["attention"][1, 2, token], 1e-6, "the model's row again")


@pytest.mark.parametrize("token", [0, 7, -1])
def test_predict_matches_torch(figure, analysed, token):
    result, (logits, _, _) = analysed
    T = len(result["ids"])
    token %= T
    prediction = figure.predict(token, top=5)
    p = softmax64(logits[token])
    assert [c["id"] for c in prediction["candidates"]] == list(np.argsort(-p, kind="stable")[:5])
    for candidate in prediction["candidates"]:
        assert candidate["p"] == pytest.approx(p[candidate["id"]], abs=1e-5)
        assert candidate["label"] == token_label(figure.tokenizer.token_bytes[candidate["id"]])
    if token + 1 < T:
        actual = result["ids"][token + 1]
        assert prediction["next"]["id"] == actual
        assert prediction["next"]["p"] == pytest.approx(p[actual], abs=1e-5)
        assert prediction["next"]["rank"] == 1 + int(np.sum(p > p[actual]))
    else:
        assert prediction["next"] is None


@pytest.mark.parametrize("knockout", [[(1, 2)], [(2, 3)], [(1, 1), (2, 4)]])
def test_a_knockout_equals_torch_with_that_head_zeroed(figure, reference, analysed, knockout):
    from attention_live.model import gpt

    result, (intact_logits, _, _) = analysed
    ids = result["ids"]
    logits, attention, _ = torch_run(reference, ids, knockout)
    ours = gpt(ids, figure.params, figure.config, logits=True, knockout={(lay - 1, h - 1) for lay, h in knockout})
    assert_close(ours.logits, logits, 1e-4, f"logits with {knockout} knocked out")
    assert_close(figure.analyse(TEXT, knockout=knockout)["attention"], attention, 1e-5, "attention under the knockout")
    token = 7
    prediction = figure.predict(token, knockout=knockout)
    p, p_intact = softmax64(logits[token]), softmax64(intact_logits[token])
    for candidate in prediction["candidates"]:
        assert candidate["p"] == pytest.approx(p[candidate["id"]], abs=1e-5)
        assert candidate["delta"] == pytest.approx(p[candidate["id"]] - p_intact[candidate["id"]], abs=1e-5)


def test_what_ifs_never_touch_the_live_view(figure, analysed):
    from attention_live.figure import Figure

    live = figure.analyse(TEXT)["attention"]
    np.testing.assert_array_equal(figure.analyse(TEXT, knockout=[])["attention"], live)
    figure.analyse(TEXT[:-3], knockout=[(1, 3)])
    figure.explain(1, 1, 3, scale=False, mask=False)
    figure.predict(4, knockout=[(2, 1)])
    # the same edits without the what-ifs: the same cache, so the same bits
    fresh = Figure((WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes())
    for text in (TEXT, TEXT[:-3]):
        fresh.analyse(text)
    np.testing.assert_array_equal(figure.analyse(TEXT)["attention"], fresh.analyse(TEXT)["attention"])


@pytest.mark.parametrize("edit", ["x", " and", "!!"])
def test_the_cache_summary_counts_the_reused_prefix(figure, hf_tokenizer, edit):
    before = hf_tokenizer.encode(TEXT).ids
    after = hf_tokenizer.encode(TEXT + edit).ids
    common = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    figure.analyse(TEXT)
    cache = figure.analyse(TEXT + edit)["cache"]
    T = len(after)
    assert cache["reused"] == common and common >= T - 2  # typing at the end recomputes one or two rows
    assert cache["computed"] == [common + 1, T]
    config = figure.config
    assert cache["bytes"] == 2 * config.n_layer * T * config.n_embd * 4  # float32 keys and values
    assert cache["scores_per_head"] == sum(range(1, T + 1))
    assert figure.analyse(TEXT + edit)["cache"]["computed"] is None  # the same text again: nothing to compute


@pytest.mark.parametrize("call, message", [
    (lambda f: f.explain(0, 1, 0), "layer must be a whole number from 1 to 2"),
    (lambda f: f.explain(1, 5, 0), "head must be a whole number from 1 to 4"),
    (lambda f: f.explain(1, 1, 999), "token must be a whole number from 0 to"),
    (lambda f: f.explain(1, 1, 1.5), "token must be a whole number"),
    (lambda f: f.predict(-1), "token must be a whole number"),
    (lambda f: f.predict(0, top=-1), "top must be a whole number of candidates"),
    (lambda f: f.analyse(TEXT, knockout=[(3, 1)]), "cannot knock out layer 3, head 1"),
    (lambda f: f.analyse(TEXT, what_if=(1, 9, False, True)), "head must be a whole number from 1 to 4"),
])
def test_bad_requests_say_what_is_wrong(figure, call, message):
    figure.analyse(TEXT)
    with pytest.raises(ValueError, match=message):
        call(figure)


def test_an_empty_text_leaves_nothing_to_explain(figure):
    figure.analyse(TEXT)
    assert figure.analyse("")["cache"] is None
    for call in (lambda: figure.explain(1, 1, 0), lambda: figure.predict(0)):
        with pytest.raises(ValueError, match="the text has no tokens"):
            call()


@pytest.mark.parametrize("scale, mask", [(False, True), (True, False), (False, False)])
def test_a_what_if_head_is_every_row_of_explain(figure, analysed, scale, mask):
    result, (_, attention, qkv) = analysed
    what_if = figure.analyse(TEXT, what_if=(2, 3, scale, mask))["attention"]
    assert_close(np.delete(what_if, 2, axis=1)[1], np.delete(result["attention"], 2, axis=1)[1], 0, "other heads untouched")
    assert_close(what_if[0], result["attention"][0], 0, "the other layer untouched")
    q, k, _ = (m[2] for m in qkv[1])
    scores = q.astype(np.float64) @ k.T.astype(np.float64) / (np.sqrt(q.shape[-1]) if scale else 1)
    if mask:
        scores[np.triu_indices(len(scores), 1)] = -np.inf
    want = np.stack([softmax64(row) for row in scores])
    assert_close(what_if[1, 2], want, 1e-5, f"what-if head, scale={scale}, mask={mask}")
    for token in (0, 7, len(result["ids"]) - 1):
        assert_close(what_if[1, 2, token], figure.explain(2, 3, token, scale, mask)["weights"], 1e-6, "explain's row")
    assert_close(figure.analyse(TEXT, what_if=(2, 3, True, True))["attention"], result["attention"], 1e-6, "no what-if: the model")


def test_a_head_knocked_out_twice_is_knocked_out_once(figure):
    figure.analyse(TEXT)
    once, twice = figure.predict(7, knockout=[(1, 2)]), figure.predict(7, knockout=[(1, 2), (1, 2)])
    assert twice == once and once["knockout"] == [(1, 2)]
