"""How focused each head's row is (focus.row_entropy, in bits) and what attention costs (the KV cache's
score counts), against computations written out here."""

import math

import numpy as np
import pytest

from attention_live.focus import even_entropy, row_entropy
from attention_live.kv_cache import cache_summary

TEXT = 'Then the Queen turned to Alice and said, "Off with her head!"'


def entropy_bits(row):
    """Shannon entropy of one probability row, in bits, with Python's math: -sum p log2 p over p > 0."""
    return -sum(p * math.log2(p) for p in map(float, row) if p > 0)


def test_row_entropy_of_the_model_equals_an_independent_computation(figure):
    result = figure.another_view().analyse(TEXT)
    attention = result["attention"]
    L, H, T, _ = attention.shape
    want = np.array([[[entropy_bits(attention[l, h, i]) for i in range(T)] for h in range(H)] for l in range(L)])
    assert result["entropy"].shape == (L, H, T) and result["entropy"].dtype == np.float32
    np.testing.assert_allclose(result["entropy"], want, atol=2e-6)
    np.testing.assert_allclose(result["entropy_even"], [math.log2(i + 1) for i in range(T)], atol=1e-6)
    assert np.all(result["entropy"] <= result["entropy_even"] + 1e-5)


def test_row_entropy_is_zero_on_one_key_and_log2_when_even():
    T = 5
    one_key = np.zeros((1, 1, T, T), np.float32)
    one_key[0, 0, np.arange(T), 0] = 1.0  # every query on key 0
    even = np.tril(np.ones((T, T), np.float32)) / np.arange(1, T + 1, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(row_entropy(one_key)[0, 0], np.zeros(T))
    np.testing.assert_allclose(row_entropy(even[None, None])[0, 0], [math.log2(i + 1) for i in range(T)], atol=1e-6)
    np.testing.assert_allclose(even_entropy(4), [0.0, 1.0, math.log2(3), 2.0], atol=1e-6)
    assert row_entropy(np.array([[[[0.5, 0.5, 0.0, 0.0]]]]))[0, 0, 0] == pytest.approx(1.0)


def counted_scores(config, T, reused):
    """Query–key scores a forward pass computes for rows reused+1..T (1-based) under the causal mask,
    counted one pair at a time: every head of every layer scores query i against keys 1..i."""
    return sum(1 for _ in range(config.n_layer) for _ in range(config.n_head)
               for i in range(reused + 1, T + 1) for _ in range(1, i + 1))


@pytest.mark.parametrize("T, reused", [(16, 0), (16, 14), (16, 16), (1, 0), (128, 127), (40, 3)])
def test_cache_summary_counts_the_scores(figure, T, reused):
    summary = cache_summary(figure.config, T, reused)
    assert summary["scores_computed"] == counted_scores(figure.config, T, reused)
    assert summary["scores_full"] == counted_scores(figure.config, T, 0)
    assert summary["tokens_doubled"] == 2 * T
    assert summary["scores_full_doubled"] == counted_scores(figure.config, 2 * T, 0)
    assert summary["heads"] == figure.config.n_layer * figure.config.n_head and summary["tokens"] == T


def test_an_appended_character_costs_a_row_not_the_whole_text(figure):
    """The live cache on typing: the summary's counts follow the rows the KV cache really computed."""
    view = figure.another_view()
    first = view.analyse(TEXT)["cache"]
    T = len(view.analyse(TEXT)["ids"])
    assert first["scores_computed"] == first["scores_full"] == counted_scores(figure.config, T, 0)
    typed = view.analyse(TEXT + " The")
    cache, T2 = typed["cache"], len(typed["ids"])
    assert cache["reused"] >= T - 1 and cache["computed"][1] == T2
    assert cache["scores_computed"] == counted_scores(figure.config, T2, cache["reused"]) < cache["scores_full"] / 4
    assert cache["scores_full_doubled"] / cache["scores_full"] == pytest.approx(4, rel=0.1)
