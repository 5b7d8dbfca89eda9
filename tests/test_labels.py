"""Chip labels: every byte visible, partial characters shown as their bytes."""

import pytest

from attention_live.labels import token_label, utf8_runs


@pytest.mark.parametrize("token_bytes, label", [
    (b" said", "\u2423said"),
    (b"\n\n", "\u21b5\u21b5"),
    (b"\r\n", "\u240d\u21b5"),
    (b"\t", "\u21e5"),
    (b"\x00", "\u2400"),
    (b"\x7f", "\u2421"),
    ("\u200d".encode(), "\u27e8U+200D\u27e9"),
    ("\u00a0".encode(), "\u27e8U+00A0\u27e9"),
    ("\u0301u".encode(), "\u25cc\u0301u"),
    ("e\u0302".encode(), "e\u0302"),
    (b"\xf0\x9f", "\u27e8F0 9F\u27e9"),
    (b"\x9f\x91\x8d", "\u27e89F 91 8D\u27e9"),
    (b"a\xe4\xbd", "a\u27e8E4 BD\u27e9"),
    (b"<img src=x>", "<img\u2423src=x>"),
    (b"&amp;", "&amp;"),
])
def test_label(token_bytes, label):
    assert token_label(token_bytes) == label


def test_utf8_runs_keep_every_byte():
    data = "a\U0001f44db".encode()[:3] + b"c\xff"
    runs = utf8_runs(data)
    assert runs == ["a", b"\xf0\x9f", "c", b"\xff"]
    assert b"".join(r.encode() if isinstance(r, str) else r for r in runs) == data
