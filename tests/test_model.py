"""The numpy forward pass: parity with the committed PyTorch fixtures, and the laws of attention."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from attention_live.model import gpt, load_gpt, softmax
from conftest import FIXTURES, WEIGHTS
from support.numbers import assert_close


@pytest.fixture(scope="module")
def model():
    params, config, _ = load_gpt((WEIGHTS / "model.safetensors").read_bytes())
    return params, config


def test_parity_with_pytorch_fixtures(model):
    params, config = model
    fixture = np.load(FIXTURES / "parity.npz", allow_pickle=False)
    count = len([k for k in fixture.files if k.startswith("ids_")])
    assert count >= 3 and any(len(fixture[f"ids_{i}"]) == config.block_size for i in range(count))
    for i in range(count):
        attention, logits = gpt(fixture[f"ids_{i}"], params, config, logits=f"logits_{i}" in fixture.files)[:2]
        assert attention.dtype == np.float32
        assert_close(attention, fixture[f"attention_{i}"], 1e-5, f"attention {i}")
        if logits is not None:
            assert logits.dtype == np.float32 and logits.shape == (len(fixture[f"ids_{i}"]), config.vocab_size)
            assert_close(logits, fixture[f"logits_{i}"], 1e-4, f"logits {i}")


def check_attention_laws(attention, T):
    assert attention.shape[2:] == (T, T) and attention.dtype == np.float32
    assert np.all(np.isfinite(attention))
    np.testing.assert_allclose(attention.sum(axis=-1), 1.0, atol=1e-5)
    above = np.triu(np.ones((T, T), dtype=bool), k=1)
    assert np.all(attention[..., above] == 0.0), "attention above the diagonal must be exactly 0"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_rows_are_probabilities_and_causal(model, data):
    params, config = model
    T = data.draw(st.integers(1, config.block_size))
    ids = data.draw(st.lists(st.integers(0, config.vocab_size - 1), min_size=T, max_size=T))
    attention, logits = gpt(ids, params, config)[:2]
    assert logits is None
    check_attention_laws(attention, T)


def test_one_token_attends_only_to_itself(model):
    params, config = model
    attention = gpt([42], params, config).attention
    assert attention.shape == (config.n_layer, config.n_head, 1, 1)
    assert np.all(attention == np.float32(1.0))


def test_same_input_same_numbers(model):
    params, config = model
    ids = list(range(100, 140))
    np.testing.assert_array_equal(gpt(ids, params, config).attention, gpt(ids, params, config).attention)


@pytest.mark.parametrize("ids, message", [([], "T=0"), ("long", "block_size is"), ([10**6], "token ids")])
def test_bad_input_is_refused(model, ids, message):
    params, config = model
    if ids == "long":
        ids = [1] * (config.block_size + 1)
    with pytest.raises(ValueError, match=message):
        gpt(ids, params, config)


def test_softmax_subtracts_the_max():
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(softmax(x), [[0.5, 0.5], [0.0, 1.0]])


def test_wrong_shapes_are_refused():
    from safetensors.numpy import save

    from attention_live.safetensors_numpy import load

    tensors, metadata = load((WEIGHTS / "model.safetensors").read_bytes())
    tensors = dict(tensors)
    tensors["transformer.wpe.weight"] = tensors["transformer.wpe.weight"][:5]
    with pytest.raises(ValueError, match=r"transformer.wpe.weight has shape \(5,"):
        load_gpt(save(tensors, metadata=metadata))
    del tensors["transformer.ln_f.bias"]
    with pytest.raises(ValueError, match="unexpected tensors"):
        load_gpt(save(tensors, metadata=metadata))


@pytest.mark.parametrize("P", [1, 17, 127])
def test_kv_cache_gives_the_rows_of_a_full_run(model, P):
    params, config = model
    ids = np.random.default_rng(P).integers(0, config.vocab_size, config.block_size)
    full = gpt(ids, params, config, logits=True)
    past = [(k[:, :P], v[:, :P]) for k, v in gpt(ids[:P], params, config).present]
    cached = gpt(ids, params, config, logits=True, past=past)
    assert cached.attention.shape == (config.n_layer, config.n_head, config.block_size - P, config.block_size)
    assert_close(cached.attention, full.attention[:, :, P:], 1e-5, f"attention from P={P}")
    assert_close(cached.logits, full.logits[P:], 1e-4, f"logits from P={P}")
    for (k, v), (k_full, v_full) in zip(cached.present, full.present):
        assert_close(k, k_full, 1e-5, "keys")
        assert_close(v, v_full, 1e-5, "values")


def test_the_einsum_path_of_the_browser_gives_the_same_numbers(model, monkeypatch):
    """In Pyodide (no BLAS) Linear layers use einsum; it must agree with the @ path used here."""
    import attention_live.model as model_module

    params, config = model
    ids = np.random.default_rng(5).integers(0, config.vocab_size, config.block_size)
    reference = gpt(ids, params, config, logits=True)
    monkeypatch.setattr(model_module, "NO_BLAS", True)
    browser = gpt(ids, params, config, logits=True)
    # the two paths add the same float32 products in different orders: scores can differ by ~1e-5
    # where large terms cancel (test_explain's bound), and a probability moves by at most a quarter of that
    assert_close(browser.attention, reference.attention, 5e-6, "attention, einsum against @")
    assert_close(browser.logits, reference.logits, 1e-4, "logits, einsum against @")
