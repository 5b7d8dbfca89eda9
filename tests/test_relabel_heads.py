"""Relabelling a layer's heads (training.relabel_heads) gives the same model: the same logits within float32
rounding, and each new head's attention is the old head's it names."""

import numpy as np
import pytest

pytest.importorskip("safetensors")

from attention_live.model import gpt, load_gpt  # noqa: E402
from conftest import WEIGHTS  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402
from support.numbers import assert_close  # noqa: E402
from training.relabel_heads import permute_heads, relabel_file  # noqa: E402

TEXT_IDS = np.random.default_rng(0).integers(0, 2000, 96)


def relabelled_bytes(tmp_path, orders):
    """model.safetensors with each layer's heads reordered by ``orders`` ({layer: order}, 0-based), as bytes."""
    relabel_file(str(WEIGHTS / "model.safetensors"), str(tmp_path / "relabelled.safetensors"), orders)
    return (tmp_path / "relabelled.safetensors").read_bytes()


def test_relabelled_heads_compute_the_same_model(tmp_path):
    orders = {0: [3, 2, 1, 0], 1: [2, 0, 1, 3]}
    params, config, _ = load_gpt((WEIGHTS / "model.safetensors").read_bytes())
    ids = TEXT_IDS % config.vocab_size
    attention, logits = gpt(ids, params, config, logits=True)[:2]
    new_params, _, _ = load_gpt(relabelled_bytes(tmp_path, orders))
    new_attention, new_logits = gpt(ids, new_params, config, logits=True)[:2]
    # float32 rounding: c_proj sums the heads in another order, and BLAS blocks the permuted rows
    # differently; 16 ulp of the largest value is far below any real change (see test_torch_parity).
    assert_close(new_logits, logits, 16 * float(np.spacing(np.abs(logits).max())), "logits, relabelled against original")
    assert np.abs(new_attention - attention).max() > 0.1  # the heads did move
    for layer, order in orders.items():
        assert_close(new_attention[layer], attention[layer][order], 16 * float(np.spacing(np.float32(1))), f"layer {layer + 1}'s heads")


def test_an_order_that_is_no_permutation_is_refused():
    with pytest.raises(ValueError, match="permutation"):
        permute_heads(load_file(str(WEIGHTS / "model.safetensors")), 1, [0, 0, 1, 2], n_head=4)
