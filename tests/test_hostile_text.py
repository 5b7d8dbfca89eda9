"""Text typed or pasted by a visitor, Python side: one test per kind in ../shared/cases/hostile-inputs.md
(the browser side of the same kinds is in test_hostile_page.py).

Every example goes through ``Figure.analyse``, the one path by which visitor text reaches Python, and
is checked against HF tokenizers (the reference that trained tokenizer.json): the same ids, a lossless
round trip, and a visible chip for every token.
"""

import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Tokenizer as ReferenceTokenizer

from attention_live.figure import MAX_TEXT_CHARS
from conftest import PATHOLOGICAL_TEXTS, WEIGHTS


@pytest.fixture(scope="module")
def reference():
    return ReferenceTokenizer.from_file(str(WEIGHTS / "tokenizer.json"))


def faithful(figure, reference, text):
    """Analyse ``text`` (no longer than the context) and assert what every kind needs: HF's ids, the
    text back from them, attention laws, and labels that are visible and never start with a
    combining mark (which would fuse with the chip's edge). Returns the result."""
    result = figure.analyse(text)
    assert result["text"] == text and result["tokens_dropped"] == 0 and result["chars_dropped"] == 0
    assert result["ids"] == reference.encode(text).ids
    assert reference.decode(result["ids"]) == text and figure.tokenizer.decode(result["ids"]) == text
    for label in result["labels"]:
        assert label.strip() and not unicodedata.combining(label[0]), repr(label)
    if result["ids"]:
        assert_attention_laws(result["attention"], len(result["ids"]))
    return result


def assert_attention_laws(attention, T):
    assert attention.dtype == np.float32 and attention.shape[2:] == (T, T)
    assert np.all(np.isfinite(attention))
    np.testing.assert_allclose(attention.sum(axis=-1), 1.0, atol=1e-5)
    assert np.all(attention[..., np.triu(np.ones((T, T), dtype=bool), k=1)] == 0.0)


def shown(labels):
    """The labels' text with the space sign read back as a space."""
    return "".join(labels).replace("\u2423", " ")


def test_empty_and_blank(figure, reference):
    empty = figure.analyse("")
    assert empty["ids"] == [] and empty["labels"] == [] and empty["attention"] is None
    assert faithful(figure, reference, "   ")["labels"] and shown(figure.analyse("   ")["labels"]) == "   "
    assert "".join(faithful(figure, reference, "\n")["labels"]) == "\u21b5"


@pytest.mark.parametrize("text", ["  Hello World.", *("hello" + " " * k + "world" for k in range(1, 13))])
def test_leading_and_repeated_spaces(figure, reference, text):
    assert shown(faithful(figure, reference, text)["labels"]) == text  # every space has its sign


@pytest.mark.parametrize("text, signs", [
    ("a\n\nb", "a\u21b5\u21b5b"), ("a\r\nb", "a\u240d\u21b5b"), ("\t" * 32, "\u21e5" * 32), ("a \t b", "a\u2423\u21e5\u2423b"),
])
def test_line_ends_and_tabs(figure, reference, text, signs):
    assert "".join(faithful(figure, reference, text)["labels"]) == signs


@pytest.mark.parametrize("text", ["\U0001f44d", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u4f60\u597d"])
def test_emoji_and_multi_byte_characters(figure, reference, text):
    result = faithful(figure, reference, text)
    for token_id, label in zip(result["ids"], result["labels"]):
        if "\ufffd" in reference.decode([token_id]):  # HF: this token holds part of a character
            assert "\u27e8" in label and "\ufffd" not in label, label  # its bytes, e.g. ⟨F0 9F⟩
    hex_shown = "".join(part.split("\u27e9")[0] for part in "".join(result["labels"]).split("\u27e8")[1:])
    assert hex_shown.replace(" ", "") == text.encode().hex().upper()  # this vocabulary has no multi-byte tokens


@pytest.mark.parametrize("text, mapped", [
    ("a\ud83db", "a\ufffdb"), ("\udc4d", "\ufffd"), ("\ud83d\ud83d!", "\ufffd\ufffd!"), ("x\U0001f44d\udfff", "x\U0001f44d\ufffd"),
])
def test_lone_utf_16_surrogate_from_the_browser(figure, reference, text, mapped):
    result = figure.analyse(text)  # the documented mapping: each lone surrogate becomes U+FFFD
    assert result["text"] == mapped and result["ids"] == reference.encode(mapped).ids


@pytest.mark.parametrize("text", ["a\u0000b", "\u0000" * 3 + "end", "a\x07\x1b[31m\x7fb"])
def test_control_characters(figure, reference, text):
    labels = faithful(figure, reference, text)["labels"]
    assert "\u2400" in "".join(labels) or "\u0000" not in text  # NUL's control picture
    assert shown(labels)[-1] == text[-1]  # nothing after a control character is lost


@pytest.mark.parametrize("text", ["ye\u0302\u0301u", "\u0301", "e\u0301"])
def test_decomposed_accents(figure, reference, text):
    faithful(figure, reference, text)  # kept as typed (NFC would compose the first and last), every mark visible


def test_special_token_text(figure, reference):
    text = "Hello <|endoftext|> world"
    result = faithful(figure, reference, text)
    assert reference.token_to_id("<|endoftext|>") is None and reference.get_added_tokens_decoder() == {}
    assert len(result["ids"]) > 3 and "<|endoftext|>" in shown(result["labels"])


@pytest.mark.parametrize("text", ["<img src=x onerror=alert(1)>", "Tom & Jerry", "</script><script>alert(1)</script>"])
def test_markup(figure, reference, text):
    assert shown(faithful(figure, reference, text)["labels"]) == text  # literal: no escaping, no entity


@pytest.mark.parametrize("text", PATHOLOGICAL_TEXTS.values(), ids=PATHOLOGICAL_TEXTS.keys())
def test_pathological_lengths(figure, reference, text):
    result = figure.analyse(text)
    kept = text[-MAX_TEXT_CHARS:]  # the cap is applied before BPE
    assert result["text"] == kept and result["chars_dropped"] == len(text) - MAX_TEXT_CHARS
    block_size = figure.config.block_size
    all_ids = reference.encode(kept).ids
    assert result["ids"] == all_ids[-block_size:] and result["tokens_dropped"] == max(0, len(all_ids) - block_size)
    assert_attention_laws(result["attention"], len(result["ids"]))


def test_longer_than_the_context(figure, reference):
    block_size = figure.config.block_size
    text = " Alice" * (block_size + 1)
    assert len(reference.encode(text).ids) == block_size + 1
    result = figure.analyse(text)
    assert result["tokens_dropped"] == 1 and result["ids"] == reference.encode(text).ids[1:]
    assert_attention_laws(result["attention"], block_size)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=700) | st.text(alphabet="ab \n", min_size=300, max_size=1500))
def test_numbers(figure, text):
    """Any text, including text longer than the context: finite rows that sum to 1, exactly 0 above
    the diagonal, and the same numbers for the same text twice."""
    result = figure.analyse(text)
    if not result["ids"]:
        assert result["attention"] is None
        return
    T = len(result["ids"])
    assert T <= figure.config.block_size
    assert_attention_laws(result["attention"], T)
    assert np.array_equal(figure.analyse(text)["attention"], result["attention"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_numbers_of_one_token_are_one(figure, reference, data):
    """T = 1 gives [[1.0]] in every layer and head, for any one-token text."""
    token_id = data.draw(st.integers(0, figure.config.vocab_size - 1))
    text = reference.decode([token_id])
    if reference.encode(text).ids != [token_id]:  # part of a character: no text is this token alone
        return
    attention = figure.analyse(text)["attention"]
    assert attention.shape[2:] == (1, 1) and np.all(attention == np.float32(1.0))
