"""The training-only levers of issue 19.

Stochastic depth on layer 1's attention (training.gpt.drop_path, ``--l1-attention-drop``): in eval mode the
model is plain GPT-2 and the exported file does not know about it; while training, each sequence's attention
branch in block 1 is either dropped or kept and scaled by 1 / (1 - p), never anything in between, and block 2
is untouched. With p = 0 the random number stream is today's. Early stochastic depth
(training.train.l1_attention_drop_at, ``--l1-attention-drop-until``) applies p before its step and none from it on.

The attention-entropy penalty (training.train.attention_entropy, ``--l2-attention-entropy``): the entropy in
nats of rows worked out by hand, and a finite gradient through masked (zero) probabilities."""

import json

import pytest

torch = pytest.importorskip("torch")

import math  # noqa: E402

from training.gpt import GPT, GPTConfig, drop_path  # noqa: E402
from training.sweep import run_name  # noqa: E402
from training.train import attention_entropy, l1_attention_drop_at  # noqa: E402

SMALL = dict(block_size=16, vocab_size=50, n_layer=2, n_head=2, n_embd=8)


def twin_models(p):
    """The same weights twice: one built with the lever (probability p), one without."""
    torch.manual_seed(0)
    lever = GPT(GPTConfig(**SMALL, l1_attention_drop=p))
    plain = GPT(GPTConfig(**SMALL))
    plain.load_state_dict(lever.state_dict())
    return lever, plain


def test_eval_mode_is_plain_gpt2():
    lever, plain = twin_models(0.9)
    idx = torch.randint(50, (3, 16), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        logits, _, attention = lever.eval()(idx)
        plain_logits, _, plain_attention = plain.eval()(idx)
    assert torch.equal(logits, plain_logits)
    assert all(torch.equal(a, b) for a, b in zip(attention, plain_attention))


def test_the_exported_config_has_no_training_only_field():
    config = GPTConfig(**SMALL, dropout=0.1, l1_attention_drop=0.5).to_dict()
    assert config == SMALL
    assert json.loads(json.dumps(config)) == SMALL  # what export writes into __metadata__


def test_training_drops_whole_sequences_of_block_1s_attention_only():
    p = 0.5
    lever, _ = twin_models(p)
    lever.train()
    block1, block2 = lever.transformer.h
    assert (block1.attention_drop, block2.attention_drop) == (p, 0.0)
    x = torch.randn(64, 16, 8, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        branch, _ = block1.attn(block1.ln_1(x))  # attn has no dropout here (config.dropout is 0)
        torch.manual_seed(3)
        out, _ = block1(x)
    kept = dropped = 0
    for b in range(64):
        for scale, name in ((0.0, "dropped"), (1.0 / (1.0 - p), "kept")):
            h = x[b] + scale * branch[b]
            if torch.allclose(out[b], h + block1.mlp(block1.ln_2(h)), atol=1e-6):
                kept += name == "kept"
                dropped += name == "dropped"
                break
        else:
            pytest.fail(f"sequence {b}'s attention branch was neither dropped nor kept and scaled by 1/(1-p)")
    assert kept + dropped == 64 and 16 <= dropped <= 48  # Binomial(64, 0.5): outside [16, 48] with probability < 1e-4


def test_p_zero_draws_no_random_numbers():
    x = torch.randn(4, 3, 2)
    state = torch.get_rng_state()
    assert drop_path(x, 0.0, training=True) is x
    assert torch.equal(torch.get_rng_state(), state)


def test_probability_one_is_refused():
    with pytest.raises(AssertionError, match=r"drop probability must be in \[0, 1\)"):
        drop_path(torch.ones(2, 1, 1), 1.0, training=True)


def test_attention_entropy_in_nats():
    rows = torch.tensor([[1.0, 0.0, 0.0, 0.0],  # one key: 0 nats
                         [0.5, 0.5, 0.0, 0.0],  # two keys evenly: log 2
                         [0.25, 0.25, 0.25, 0.25],  # four keys evenly: log 4
                         [0.7, 0.2, 0.1, 0.0]])  # -(0.7 log 0.7 + 0.2 log 0.2 + 0.1 log 0.1)
    by_hand = [0.0, math.log(2), math.log(4), -(0.7 * math.log(0.7) + 0.2 * math.log(0.2) + 0.1 * math.log(0.1))]
    assert attention_entropy(rows.view(1, 1, 4, 4)).item() == pytest.approx(sum(by_hand) / 4, abs=1e-6)


def test_the_entropy_penalty_has_a_finite_gradient_through_the_causal_mask():
    torch.manual_seed(0)
    model = GPT(GPTConfig(**SMALL))
    _, loss, attention = model(torch.randint(50, (2, 16)), torch.randint(50, (2, 16)))
    (loss + 0.05 * attention_entropy(attention[1])).backward()
    gradient = model.transformer.h[1].attn.c_attn.weight.grad
    assert torch.isfinite(gradient).all() and gradient.abs().sum() > 0


def test_early_stochastic_depth_ends_at_its_step():
    assert [l1_attention_drop_at(step, 0.9, until=3000) for step in (0, 2999, 3000, 4999)] == [0.9, 0.9, 0.0, 0.0]
    assert [l1_attention_drop_at(step, 0.9) for step in (0, 2999, 3000, 4999)] == [0.9] * 4  # no end: the whole run
    assert l1_attention_drop_at(0, 0.9, until=0) == 0.0  # ended before the first step: plain training


def test_late_dropout_begins_at_its_step_and_is_off_before():
    from training.train import dropout_at, set_dropout

    assert [dropout_at(step, 0.05, start=3000) for step in (0, 2999, 3000, 4999)] == [0.0, 0.0, 0.05, 0.05]
    assert [dropout_at(step, 0.05) for step in (0, 4999)] == [0.05, 0.05]  # no start: the whole run
    model = GPT(GPTConfig(**SMALL, dropout=0.1))
    set_dropout(model, 0.0)
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Dropout)]
    assert len(layers) == 1 + SMALL["n_layer"] * 3 and all(m.p == 0.0 for m in layers)  # embedding; attention, residual, MLP per block
    x = torch.randn(4, 3, 2)
    state = torch.get_rng_state()
    model.train()
    assert torch.equal(layers[0](x), x) and torch.equal(torch.get_rng_state(), state)  # dropout 0 draws no random numbers
    set_dropout(model, 0.05, attention=0.0)  # the attention weights' dropout apart from the rest
    named = {name: m.p for name, m in model.named_modules() if isinstance(m, torch.nn.Dropout)}
    assert {name: p for name, p in named.items() if name.endswith("attn_dropout")} == {f"transformer.h.{i}.attn.attn_dropout": 0.0 for i in (0, 1)}
    assert all(p == 0.05 for name, p in named.items() if not name.endswith("attn_dropout"))


def test_a_run_that_ends_the_lever_early_has_its_own_name():
    assert run_name(0.9, 1, 0.0, 5000) == "p0.9-seed1-dropout0.0-5000"  # the names of runs already judged are unchanged
    assert run_name(0.9, 1, 0.0, 5000, 0.0, 3500) == "p0.9-until3500-seed1-dropout0.0-5000"
    assert run_name(0.9, 1, 0.05, 5000, 0.0, 3000, 3000) == "p0.9-until3000-seed1-dropout0.05from3000-5000"
    assert run_name(0.9, 1, 0.05, 5000, 0.0, 3000, 3000, 0.0) == "p0.9-until3000-seed1-dropout0.05from3000-attention0.0-5000"
