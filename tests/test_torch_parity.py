"""numpy against PyTorch on the exported weights, and the committed fixtures against a fresh export."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_live.model import gpt, load_gpt  # noqa: E402
from conftest import FIXTURES, WEIGHTS  # noqa: E402
from support.numbers import assert_close  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from training.export import parity_fixture, reference_model  # noqa: E402


@pytest.fixture(scope="module")
def reference():
    return reference_model(str(WEIGHTS / "model.safetensors"))


# Float32 parity bounds (the house style's): float32 carries 24 bits (machine epsilon 1.19e-7), and
# summation order differs between CPUs and BLAS kernels, so a value of magnitude m may differ by a few
# ulp(m) = m * 1.19e-7 per reduction. Attention weights are <= 1: 1e-5 is about 80 ulp. Logits reach
# magnitude ~15 here (one ulp ~1.8e-6; 5.7e-6 was seen on another x86-64 machine): 1e-4 is about 55 ulp.
TOLERANCES = {"attention": 1e-5, "logits": 1e-4}


def fixture_differences(fresh, committed):
    """The largest absolute difference per array between two parity fixtures (ids must be equal)."""
    assert sorted(fresh) == sorted(committed.files)
    differences = {}
    for key, value in fresh.items():
        if key.startswith("ids_"):
            np.testing.assert_array_equal(value, committed[key])
        else:
            differences[key] = float(np.max(np.abs(value - committed[key])))
    return differences


def exceeding(differences):
    """The arrays whose difference exceeds their kind's tolerance (TOLERANCES)."""
    return {key: d for key, d in differences.items() if d > TOLERANCES[key.split("_")[0]]}


def test_committed_fixtures_match_a_fresh_run(reference):
    fresh = parity_fixture(reference, Tokenizer.from_file(str(WEIGHTS / "tokenizer.json")))
    differences = fixture_differences(fresh, np.load(FIXTURES / "parity.npz", allow_pickle=False))
    for key, difference in differences.items():
        print(f"{key}: largest difference {difference:.3g} (tolerance {TOLERANCES[key.split('_')[0]]})")
    assert not exceeding(differences), exceeding(differences)


def changed_weight(model):
    with torch.no_grad():
        model.transformer.h[1].attn.c_attn.weight[0, 0] += 0.05  # one weight of layer 2's queries


def transposed_layer(model):
    with torch.no_grad():
        weight = model.transformer.h[0].attn.c_proj.weight
        weight.copy_(weight.T.clone())  # the silent transpose a loader can make on a square layer


@pytest.mark.parametrize("damage", [changed_weight, transposed_layer])
def test_the_fixture_test_fails_on_a_damaged_model(damage):
    """The tolerances above still catch a wrong model: a changed weight, a transposed layer."""
    model = reference_model(str(WEIGHTS / "model.safetensors"))
    damage(model)
    fresh = parity_fixture(model, Tokenizer.from_file(str(WEIGHTS / "tokenizer.json")))
    too_far = exceeding(fixture_differences(fresh, np.load(FIXTURES / "parity.npz", allow_pickle=False)))
    print(f"{damage.__name__}: {len(too_far)} arrays beyond tolerance, largest difference {max(too_far.values(), default=0):.3g}")
    assert too_far


@pytest.mark.parametrize("T", [1, 7, 64, 128])
def test_numpy_matches_torch_on_random_ids(reference, T):
    params, config, _ = load_gpt((WEIGHTS / "model.safetensors").read_bytes())
    ids = np.random.default_rng(T).integers(0, config.vocab_size, T)
    with torch.no_grad():
        logits, _, attention = reference(torch.from_numpy(ids)[None])
    ours_attention, ours_logits = gpt(ids, params, config, logits=True)[:2]
    assert_close(ours_attention, torch.stack(attention)[:, 0].numpy(), 1e-5, f"attention T={T}")
    assert_close(ours_logits, logits[0].numpy(), 1e-4, f"logits T={T}")


def test_exported_file_layout():
    from safetensors import safe_open

    with safe_open(str(WEIGHTS / "model.safetensors"), framework="pt") as f:
        names = set(f.keys())
        assert "lm_head.weight" not in names and "transformer.wte.weight" in names
        assert all(f.get_tensor(n).dtype == torch.float16 for n in names)
        c_attn = f.get_tensor("transformer.h.0.attn.c_attn.weight")
        n_embd = f.get_tensor("transformer.wte.weight").shape[1]
        assert tuple(c_attn.shape) == (3 * n_embd, n_embd)  # PyTorch Linear layout [out, in]
