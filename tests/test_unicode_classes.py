"""The committed character classes are what the reference tokenizer uses, for every code point."""

from attention_live import unicode_classes
from tokenizers import pre_tokenizers
from training.make_unicode_classes import SURROGATES, classify


def members(ranges):
    return {cp for first, last in ranges for cp in range(first, last + 1)}


def test_classes_match_the_reference_on_every_code_point():
    split = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True).pre_tokenize_str
    committed = {"L": members(unicode_classes.LETTERS), "N": members(unicode_classes.NUMBERS),
                 "S": members(unicode_classes.WHITE_SPACE)}
    assert 0x20 in committed["S"] and ord("A") in committed["L"] and ord("7") in committed["N"]
    for code_point in range(0x110000):
        if code_point in SURROGATES:
            continue
        kind = classify(code_point, split)
        assert all((code_point in members_) == (kind == name) for name, members_ in committed.items()), hex(code_point)
