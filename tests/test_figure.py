"""What the page receives for a text: tokens, labels and attention, cut to the model's context."""

import hashlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Tokenizer as ReferenceTokenizer

from attention_live.figure import MAX_TEXT_CHARS, Figure
from conftest import WEIGHTS


@pytest.fixture(scope="module")
def reference():
    return ReferenceTokenizer.from_file(str(WEIGHTS / "tokenizer.json"))


def test_short_text(figure, reference):
    text = 'Then the Queen turned to Alice and said, "Off with her head!"'
    result = figure.analyse(text)
    assert result["ids"] == reference.encode(text).ids
    assert result["tokens_dropped"] == 0 and result["chars_dropped"] == 0
    T = len(result["ids"])
    assert result["attention"].shape == (figure.config.n_layer, figure.config.n_head, T, T)
    assert "".join(result["labels"]).replace("\u2423", " ") == text


def test_text_longer_than_the_context_keeps_its_last_block_size_tokens(figure, reference):
    text = "Alice was beginning to get very tired of sitting by her sister on the bank. " * 20
    result = figure.analyse(text)
    all_ids = reference.encode(text).ids
    block_size = figure.config.block_size
    assert result["ids"] == all_ids[-block_size:]
    assert result["tokens_dropped"] == len(all_ids) - block_size
    assert result["attention"].shape[2:] == (block_size, block_size)


def test_only_the_last_characters_are_tokenized(figure, reference):
    text = "x" * 10 + "a" * (MAX_TEXT_CHARS + 5)
    result = figure.analyse(text)
    assert result["chars_dropped"] == 15 and result["text"] == "a" * MAX_TEXT_CHARS
    assert result["ids"] == reference.encode("a" * MAX_TEXT_CHARS).ids[-figure.config.block_size:]


def test_empty_text(figure):
    result = figure.analyse("")
    assert result["ids"] == [] and result["labels"] == [] and result["attention"] is None


def test_lone_surrogate_becomes_replacement_character(figure, reference):
    result = figure.analyse("a\ud83db")
    assert result["text"] == "a\ufffdb"
    assert result["ids"] == reference.encode("a\ufffdb").ids


def test_one_token_gives_one(figure):
    result = figure.analyse("A")
    assert np.all(result["attention"] == np.float32(1.0))


def test_tokenizer_that_does_not_match_the_model_is_refused():
    model = (WEIGHTS / "model.safetensors").read_bytes()
    tokenizer = (WEIGHTS / "tokenizer.json").read_bytes()
    assert hashlib.sha256(tokenizer).hexdigest() in model[:4096].decode("latin-1")
    with pytest.raises(ValueError, match="does not match"):
        Figure(model, tokenizer + b" ")


def test_edits_reuse_the_cache_and_match_a_fresh_run(figure):
    """Append, edit near the start, shorten, repeat: each view equals a fresh Figure's full run."""
    files = (WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes()
    base = "Alice was beginning to get very tired of sitting by her sister on the bank"
    texts = [base, base + ",", base + ", and", "Then" + base[5:], base[:20], base[:20], base * 3, base * 3 + "!"]
    for text in texts:
        got = figure.analyse(text)["attention"]
        want = Figure(*files).analyse(text)["attention"]
        assert got.shape == want.shape
        assert float(np.max(np.abs(got - want))) <= 1e-5, text
    np.testing.assert_array_equal(figure.analyse(texts[-1])["attention"], got)


def test_precomputed_default_view_is_the_models(figure):
    """The numbers the page draws before Python starts are the model's, to 6 decimals."""
    import json

    view = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    result = figure.analyse(view["text"])
    assert view["precomputed"]["ids"] == result["ids"] and view["precomputed"]["labels"] == result["labels"]
    np.testing.assert_allclose(np.array(view["precomputed"]["attention"]), result["attention"], atol=1e-6)
    said_to_alice = result["attention"][:, :, view["token"], view["key"]]
    assert said_to_alice[view["layer"] - 1, view["head"] - 1] == said_to_alice.max()
    assert abs(said_to_alice.max() - view["weight"]) <= 5e-5


def test_one_changed_byte_in_the_model_is_caught():
    model = (WEIGHTS / "model.safetensors").read_bytes()
    tokenizer = (WEIGHTS / "tokenizer.json").read_bytes()
    digest = hashlib.sha256(model).hexdigest()
    assert Figure(model, tokenizer, digest).config.n_layer >= 1
    damaged = bytearray(model)
    damaged[-7] ^= 0x40
    with pytest.raises(ValueError, match="model.safetensors is damaged"):
        Figure(bytes(damaged), tokenizer, digest)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=700) | st.text(alphabet="ab \n", min_size=300, max_size=1500))
def test_attention_of_any_text_is_finite_causal_and_normalised(figure, text):
    """Arbitrary text, including text longer than the context."""
    attention = figure.analyse(text)["attention"]
    if attention is None:
        assert figure.analyse(text)["ids"] == []
        return
    T = attention.shape[-1]
    assert attention.dtype == np.float32 and T <= figure.config.block_size
    assert np.all(np.isfinite(attention))
    np.testing.assert_allclose(attention.sum(axis=-1), 1.0, atol=1e-5)
    assert np.all(attention[..., np.triu(np.ones((T, T), dtype=bool), k=1)] == 0.0)
    assert np.all(attention[..., 0, 0] == 1.0)  # the first token can only attend to itself
