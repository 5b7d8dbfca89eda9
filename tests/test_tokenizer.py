"""The pure-Python tokenizer gives exactly HF tokenizers' ids, and round-trips every string."""

import pytest
from hypothesis import given, settings, strategies as st
from tokenizers import Tokenizer as ReferenceTokenizer

from attention_live.tokenizer import Tokenizer, merge_pair, split_text
from conftest import WEIGHTS

EDGE_STRINGS = [
    "", " ", "   ", "\n", "\n\n", "\r\n", "a\r\nb", "a\n\nb", "\t", "\t" * 32, "a \t b",
    "  Hello World.", *("hello" + " " * k + "world" for k in range(1, 13)), " " * 200 + "a",
    "\U0001f44d", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u4f60\u597d", "\ud55c\uad6d\uc5b4 \U0001f600 emoji",
    "ye\u0302\u0301u", "\u0301", "a\x00b", "\x00" * 5, "\x7f\x1c\x1f\x85\xa0\u2028\u3000",
    "Hello <|endoftext|> world", "<img src=x onerror=alert(1)>", "Tom & Jerry",
    "I'll say it's 'they're' 'S 'LL don't", "1234567890 3.14 \u0663\u0664 \u2167", "a" * 3000,
    "\ufeffBOM", "\U0010ffff\U000e0001", "x\u1c89y",  # U+1C89: a letter only since Unicode 16
]


@pytest.fixture(scope="module")
def tokenizers():
    path = str(WEIGHTS / "tokenizer.json")
    return Tokenizer.from_file(path), ReferenceTokenizer.from_file(path)


def assert_same(tokenizers, text):
    ours, reference = tokenizers
    ids = ours.encode(text)
    assert ids == reference.encode(text).ids, f"ids differ for {text[:60]!r}"
    assert ours.decode(ids) == text
    assert reference.decode(ids) == text


@pytest.mark.parametrize("text", EDGE_STRINGS, ids=[repr(s[:20]) for s in EDGE_STRINGS])
def test_edge_strings(tokenizers, text):
    assert_same(tokenizers, text)


def test_whole_corpus_raw_and_normalised(tokenizers, corpus_dir):
    from training.corpus import load_corpus

    train, validation = load_corpus(corpus_dir)
    raw = [path.read_text(encoding="utf-8") for path in sorted(corpus_dir.glob("*.txt"))]
    assert len(raw) == 8
    for text in raw + train + validation:
        assert_same(tokenizers, text)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_fuzz_arbitrary_unicode(tokenizers, text):
    assert_same(tokenizers, text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([" ", "  ", "\n", "\t", "\r\n", "'s", "'", "a", "Alice", "1", "!", "\u00e9", "\U0001f44d", "\u200d"]),
                max_size=30).map("".join))
def test_fuzz_tricky_pieces(tokenizers, text):
    """Concatenations of the pieces the split pattern treats specially, which random text rarely hits."""
    assert_same(tokenizers, text)


def test_special_token_text_is_plain_text(tokenizers):
    ours, _ = tokenizers
    ids = ours.encode("<|endoftext|>")
    assert len(ids) > 1 and ours.decode(ids) == "<|endoftext|>"


def test_split_keeps_one_leading_space():
    assert split_text("I'll say  it!\n\n") == ["I", "'ll", " say", " ", " it", "!", "\n\n"]
    assert "".join(split_text("a  \t b")) == "a  \t b"


def test_merge_pair_is_left_to_right_and_non_overlapping():
    assert merge_pair([1, 1, 1], (1, 1), 9) == [9, 1]
    assert merge_pair([5, 6, 5, 6], (5, 6), 9) == [9, 9]


def test_lone_surrogate_has_no_utf8(tokenizers):
    ours, _ = tokenizers
    with pytest.raises(UnicodeEncodeError):
        ours.encode("a\ud83db")


def test_unsupported_tokenizer_json_is_refused():
    text = (WEIGHTS / "tokenizer.json").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="no added or special tokens"):
        Tokenizer.from_json(text.replace('"added_tokens": []', '"added_tokens": [{"id": 0, "content": "<s>"}]'))
    with pytest.raises(ValueError, match="add_prefix_space"):
        Tokenizer.from_json(text.replace('"add_prefix_space": false', '"add_prefix_space": true', 1))
