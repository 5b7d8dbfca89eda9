"""numpy against PyTorch on the exported weights, and the committed fixtures against a fresh export."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_live.model import gpt, load_gpt  # noqa: E402
from conftest import FIXTURES, WEIGHTS  # noqa: E402
from test_model import assert_close  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from training.export import parity_fixture, reference_model  # noqa: E402


@pytest.fixture(scope="module")
def reference():
    return reference_model(str(WEIGHTS / "model.safetensors"))


def test_committed_fixtures_match_a_fresh_run(reference):
    fresh = parity_fixture(reference, Tokenizer.from_file(str(WEIGHTS / "tokenizer.json")))
    committed = np.load(FIXTURES / "parity.npz", allow_pickle=False)
    assert sorted(fresh) == sorted(committed.files)
    for key, value in fresh.items():
        if key.startswith("ids_"):
            np.testing.assert_array_equal(value, committed[key])
        else:
            assert_close(value, committed[key], 1e-6, key)


@pytest.mark.parametrize("T", [1, 7, 64, 128])
def test_numpy_matches_torch_on_random_ids(reference, T):
    params, config, _ = load_gpt((WEIGHTS / "model.safetensors").read_bytes())
    ids = np.random.default_rng(T).integers(0, config.vocab_size, T)
    with torch.no_grad():
        logits, _, attention = reference(torch.from_numpy(ids)[None])
    ours_attention, ours_logits, _ = gpt(ids, params, config, logits=True)
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
