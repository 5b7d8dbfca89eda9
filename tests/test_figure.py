"""What the page receives for a text: tokens, labels and attention, cut to the model's context."""

import hashlib

import numpy as np
import pytest
from tokenizers import Tokenizer as ReferenceTokenizer

from attention_live.figure import Figure
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


def test_another_view_shares_the_model_but_not_the_cache(figure):
    """Two views of one model, used in turn, each equal a fresh Figure's run of its own text, and one
    view's edits never touch the other's cache (each reuses its own previous text's keys and values)."""
    files = (WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes()
    first = Figure(*files)
    second = first.another_view()
    assert second.params is first.params and second.tokenizer is first.tokenizer
    texts = ("Alice was beginning to get very tired", "The Rabbit took a watch out of its pocket")
    for view, text in zip((first, second), texts):
        view.analyse(text)
    for view, text in zip((first, second), texts):
        result = view.analyse(text + ",")
        assert result["cache"]["reused"] == len(Figure(*files).analyse(text)["ids"]), text  # only the comma's row is computed
        want = Figure(*files).analyse(text + ",")["attention"]
        assert float(np.max(np.abs(result["attention"] - want))) <= 1e-5, text


def test_precomputed_default_view_is_the_models(figure):
    """The numbers the page draws before Python starts are the model's, to 6 decimals, and the view is
    the chapter's: its layer-2 head with most of «said»'s weight on «Alice», its layer-1 head whose
    largest weight from «said» is smallest, both numbered as the chapter numbers them."""
    import json

    from training.chapter_claims import CHAPTER_HEADS

    view = json.loads((WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    result = figure.analyse(view["text"])
    assert view["precomputed"]["ids"] == result["ids"] and view["precomputed"]["labels"] == result["labels"]
    np.testing.assert_allclose(np.array(view["precomputed"]["attention"]), result["attention"], atol=1e-6)
    labels = result["labels"]
    said = result["attention"][:, :, labels.index("\u2423said"), :]  # [n_layer, n_head, T]
    alice, and_, queen = (labels.index(w) for w in ("\u2423Alice", "\u2423and", "\u2423Queen"))
    assert (view["token"], view["key"]) == (labels.index("\u2423said"), alice)
    assert (view["layer"], view["head"]) == CHAPTER_HEADS["focused"]
    row = said[view["layer"] - 1, view["head"] - 1]
    assert int(said[view["layer"] - 1, :, alice].argmax()) == view["head"] - 1
    np.testing.assert_allclose([view["said"][k] for k in ("alice", "and", "queen", "largest")],
                               [row[alice], row[and_], row[queen], row.max()], atol=1e-6)
    diffuse = view["diffuse"]
    assert (diffuse["layer"], diffuse["head"]) == CHAPTER_HEADS["diffuse"]
    assert abs(diffuse["largest"] - said[0, diffuse["head"] - 1].max()) <= 1e-6
    assert diffuse["largest"] == pytest.approx(said[0].max(axis=-1).min())


def test_one_changed_byte_in_the_model_is_caught():
    model = (WEIGHTS / "model.safetensors").read_bytes()
    tokenizer = (WEIGHTS / "tokenizer.json").read_bytes()
    digest = hashlib.sha256(model).hexdigest()
    assert Figure(model, tokenizer, digest).config.n_layer >= 1
    damaged = bytearray(model)
    damaged[-7] ^= 0x40
    with pytest.raises(ValueError, match="model.safetensors is damaged"):
        Figure(bytes(damaged), tokenizer, digest)
