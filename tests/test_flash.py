"""FlashAttention's reordering (issue 24): ``attention_live.flash`` against independent implementations.

The output, one query's and the whole head's, against PyTorch's ``scaled_dot_product_attention`` with
``is_causal=True`` on the same queries, keys and values; the steps (the running maximum m, sum ℓ,
rescale factor and unnormalised output after each tile) against a plain NumPy loop over the keys, one
at a time, in float64. Within 1e-5, for tile sizes 1, 7, 16, T and more than T, on texts the model was
not chosen on, and for a text of one token.
"""

import numpy as np
import pytest

from attention_live.flash import flash_head, flash_row

torch = pytest.importorskip("torch")

TEXTS = ("The Mole had been working very hard all the morning, spring-cleaning his little home.",
         "Mowgli sat down, laughing, and said: «I am no wolf»\nand the tiger roared.",
         "I")
TILES = (1, 7, 16, "T", "more than T")


def heads(figure, text):
    """Every (layer, head, q, k, v) of ``text`` (q, k, v float32 [T, d_k]), through the public explain()."""
    T = len(figure.analyse(text)["ids"])
    for layer in (1, 2):
        for head in (1, 2, 3, 4):
            rows = [figure.explain(layer, head, token) for token in range(T)]
            yield layer, head, np.stack([r["q"] for r in rows]), rows[0]["k"], rows[0]["v"]


def tile_size(tile, T):
    return {"T": T, "more than T": T + 5}.get(tile, tile)


def sdpa(q, k, v):
    """PyTorch's causal attention output of one head: float64 [T, d_k]."""
    out = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(x.astype(np.float64))[None, None] for x in (q, k, v)), is_causal=True)
    return out[0, 0].numpy()


def key_by_key(q, k, v, token, firsts_lasts):
    """The online softmax written as a plain loop over keys 0..token, in float64: after the keys of each
    [first, last] tile (those up to the query), (m, l, acc). The reference for the steps."""
    m, l, acc, after = -np.inf, 0.0, np.zeros(k.shape[1]), []
    for first, last in firsts_lasts:
        for j in range(first, min(last, token) + 1):
            s = float(q[token].astype(np.float64) @ k[j].astype(np.float64)) / np.sqrt(k.shape[1])
            m_new = max(m, s)
            l = l * np.exp(m - m_new) + np.exp(s - m_new)
            acc = acc * np.exp(m - m_new) + np.exp(s - m_new) * v[j].astype(np.float64)
            m = m_new
        after.append((m, l, acc.copy()))
    return after


@pytest.mark.parametrize("text", TEXTS)
def test_one_query_tile_by_tile_equals_pytorch_and_a_key_by_key_loop(figure, text):
    for layer, head, q, k, v in heads(figure, text):
        T = k.shape[0]
        reference = sdpa(q, k, v)
        for tile in TILES:
            B = tile_size(tile, T)
            for token in sorted({0, T // 2, T - 1}):
                row = flash_row(q, k, v, token, B)
                assert np.max(np.abs(row["output"] - reference[token])) <= 1e-5, (layer, head, B, token)
                steps = row["steps"]
                assert [s["keys"] for s in steps] == [[a, min(a + B, T) - 1] for a in range(0, T, B)]
                assert [s["skipped"] for s in steps] == [s["keys"][0] > token for s in steps]
                assert row["scores_held"] == max(s["keys"][1] - s["keys"][0] + 1 for s in steps if not s["skipped"]) <= B
                loop = key_by_key(q, k, v, token, [s["keys"] for s in steps])
                previous_m = -np.inf
                for step, (m, l, acc) in zip(steps, loop):
                    assert step["m"] == pytest.approx(m, abs=1e-5) and step["l"] == pytest.approx(l, rel=1e-5)
                    np.testing.assert_allclose(step["acc"], acc, rtol=1e-5, atol=1e-5)
                    if not step["skipped"]:
                        assert step["rescale"] == pytest.approx(np.exp(previous_m - m), abs=1e-6)
                    previous_m = m
                for skipped, before in zip(steps[1:], steps):  # a skipped tile repeats the step before it
                    if skipped["skipped"]:
                        assert {f: skipped[f] for f in ("m", "l", "rescale")} == {f: before[f] for f in ("m", "l", "rescale")}
                        assert np.array_equal(skipped["acc"], before["acc"])


@pytest.mark.parametrize("text", TEXTS)
def test_the_whole_head_in_tiles_equals_pytorch(figure, text):
    for layer, head, q, k, v in heads(figure, text):
        T = k.shape[0]
        reference = sdpa(q, k, v)
        for tile_q, tile_k in ((1, 1), (7, 16), (16, 7), (T, T), (T + 5, 3)):
            output, held = flash_head(q, k, v, tile_q, tile_k)
            assert np.max(np.abs(output - reference)) <= 1e-5, (layer, head, tile_q, tile_k)
            assert held == min(tile_q, T) * min(tile_k, T)


def test_figure_flash_is_the_selected_row_beside_the_ordinary_one(figure):
    text = TEXTS[0]
    T = len(figure.analyse(text)["ids"])
    answer = figure.flash(2, 3, T - 1, 16)
    ordinary = figure.explain(2, 3, T - 1)["output"]
    assert (answer["layer"], answer["head"], answer["token"], answer["tile"]) == (2, 3, T - 1, 16)
    np.testing.assert_array_equal(answer["reference_output"], ordinary)
    assert answer["max_abs_diff"] == float(np.max(np.abs(answer["output"] - ordinary))) <= 1e-5
    assert (answer["scores_held"], answer["scores_plain"]) == (16, T)
    assert [s["keys"] for s in figure.flash(2, 3, T - 1, np.int64(16))["steps"]] == [s["keys"] for s in answer["steps"]]  # a numpy integer is a tile size too
    assert answer["memory"] == {"query": {"scores": [16, T], "bytes": [16 * 4, T * 4]},  # float32 scores
                                "head": {"tile": [16, 16], "scores": [256, T * T], "bytes": [256 * 4, T * T * 4]}}


@pytest.mark.parametrize("tile", [0, 129, 2.5, "16", True])
def test_figure_flash_refuses_a_tile_size_outside_1_to_block_size(figure, tile):
    figure.analyse(TEXTS[0])
    with pytest.raises(ValueError, match="tile must be a whole number from 1 to 128"):
        figure.flash(1, 1, 0, tile)


def test_figure_flash_takes_whole_numbers_not_booleans(figure):
    figure.analyse(TEXTS[0])
    with pytest.raises(ValueError, match="layer must be a whole number from 1 to 2, got True"):
        figure.flash(True, 1, 0)
    assert figure.flash(np.int64(2), np.int64(3), np.int64(0), 4)["layer"] == 2  # numpy's integers are whole numbers
