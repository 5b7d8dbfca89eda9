"""Byte-level BPE tokenizer, pure Python, reading HF ``tokenizer.json``.

Gives exactly the ids of HF ``tokenizers`` for a tokenizer.json with a ``BPE`` model, a ``ByteLevel``
pre-tokenizer (GPT-2 split pattern, no prefix space) and a ``ByteLevel`` decoder, which is what
``training.train_tokenizer`` writes. The algorithm is GPT-2's (Radford et al. 2019; OpenAI's
``encoder.py``, explained in minGPT's ``bpe.py`` and minbpe):

1. split the text with the GPT-2 pattern (contractions, letter runs, number runs, other runs,
   white space), each piece keeping at most one leading space;
2. turn each piece into its UTF-8 bytes, one token per byte;
3. repeatedly merge the adjacent pair whose merge was learned first (lowest rank), every
   occurrence left to right, until no learned merge applies.

Python's ``re`` has no ``\\p{L}``/``\\p{N}``, so the pattern is built from the explicit classes in
``unicode_classes`` (the reference's own Unicode tables, not the running Python's).
Any tokenizer.json feature outside this subset is refused with ValueError rather than ignored.
"""

import json
import re

from attention_live.unicode_classes import LETTERS, NUMBERS, WHITE_SPACE


def bytes_to_unicode():
    """GPT-2's table from byte value (0..255) to a printable character standing for it.

    Printable Latin-1 bytes map to themselves; the other 68 (controls, space, ...) map to
    U+0100 onwards in byte order, so ``0x20`` (space) is "Ġ" and ``0x0A`` (newline) is "Ċ".
    tokenizer.json spells every token and merge in these characters.
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def _char_class(ranges):
    """Body of a regex character class matching the inclusive code point ``ranges``."""
    return "".join(f"\\U{first:08X}-\\U{last:08X}" for first, last in ranges)


_L, _N, _S = _char_class(LETTERS), _char_class(NUMBERS), _char_class(WHITE_SPACE)
GPT2_SPLIT_PATTERN = re.compile(
    rf"'s|'t|'re|'ve|'m|'ll|'d| ?[{_L}]+| ?[{_N}]+| ?[^{_S}{_L}{_N}]+|[{_S}]+(?![^{_S}])|[{_S}]+"
)


def split_text(text):
    """Split ``text`` into GPT-2 pre-tokenizer pieces; ``"".join(split_text(s)) == s``.

    Example: ``split_text("I'll say  it!")`` -> ``['I', "'ll", ' say', ' ', ' it', '!']``.
    """
    return GPT2_SPLIT_PATTERN.findall(text)


def merge_pair(ids, pair, new_id):
    """Replace every non-overlapping ``pair`` in ``ids``, left to right: ([5, 6, 5, 6], (5, 6), 9) -> [9, 9]."""
    merged = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


NO_MERGE = (float("inf"), -1)  # sorts after every learned merge's (rank, id)
CACHE_SIZE = 50_000  # pieces remembered between calls; the cache is emptied when it is full
CACHE_PIECE_CHARS = 64  # longer pieces (runs of letters without a space) are not remembered


class Tokenizer:
    """Byte-level BPE. Build with ``Tokenizer.from_file(path)`` or ``Tokenizer.from_json(text)``.

    Attributes:
        merges: dict (int, int) -> (rank, int): a learned merge of two token ids, its rank
            (0 = learned first) and the id of the merged token.
        token_bytes: list of bytes indexed by token id: what each token stands for.
    """

    def __init__(self, merges, token_bytes):
        self.merges = merges  # (int, int) -> (rank, int)
        self.token_bytes = token_bytes  # id -> bytes
        self._byte_ids = {tb[0]: i for i, tb in enumerate(token_bytes) if len(tb) == 1}  # byte value -> id
        self._cache = {}  # piece (str) -> list of ids

    @classmethod
    def from_file(cls, path):
        """Read an HF tokenizer.json from ``path`` (UTF-8). Raises ValueError if unsupported."""
        with open(path, encoding="utf-8") as f:
            return cls.from_json(f.read())

    @classmethod
    def from_json(cls, text):
        """Read an HF tokenizer.json document (str). Raises ValueError naming what is unsupported."""
        spec = json.loads(text)
        model = spec.get("model") or {}
        pre = spec.get("pre_tokenizer") or {}
        checks = {
            "model.type is BPE": model.get("type") == "BPE",
            "no added or special tokens": not spec.get("added_tokens"),
            "no normalizer": spec.get("normalizer") is None,
            "no post_processor": spec.get("post_processor") is None,
            "pre_tokenizer is ByteLevel with use_regex and no add_prefix_space":
                pre.get("type") == "ByteLevel" and pre.get("use_regex", True) and not pre.get("add_prefix_space"),
            "decoder is ByteLevel": (spec.get("decoder") or {}).get("type") == "ByteLevel",
            "no dropout, unk_token, byte_fallback, prefix/suffix or ignore_merges":
                not any(model.get(k) for k in ("dropout", "unk_token", "byte_fallback", "continuing_subword_prefix",
                                               "end_of_word_suffix", "ignore_merges")),
        }
        failed = [name for name, ok in checks.items() if not ok]
        if failed:
            raise ValueError("unsupported tokenizer.json: expected " + "; ".join(failed))

        byte_of_char = {c: b for b, c in bytes_to_unicode().items()}
        vocab = model["vocab"]  # token string -> id
        token_bytes = [b""] * len(vocab)
        for token, i in vocab.items():
            token_bytes[i] = bytes(byte_of_char[c] for c in token)
        merges = {}
        for rank, merge in enumerate(model["merges"]):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            merged = vocab.get(left + right)
            if merged is None:
                raise ValueError(f"merge {left!r} + {right!r} has no token in the vocabulary")
            merges[(vocab[left], vocab[right])] = (rank, merged)
        if sorted(len(tb) == 1 and tb[0] for tb in token_bytes if len(tb) == 1) != list(range(256)):
            raise ValueError("the vocabulary must hold a token for each of the 256 bytes")
        return cls(merges, token_bytes)

    @property
    def vocab_size(self):
        return len(self.token_bytes)

    def _encode_piece(self, piece):
        """Token ids of one pre-tokenizer piece (str), by BPE over its UTF-8 bytes."""
        ids = [self._byte_ids[b] for b in piece.encode("utf-8")]
        while len(ids) >= 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: self.merges.get(p, NO_MERGE))
            if pair not in self.merges:
                break
            ids = merge_pair(ids, pair, self.merges[pair][1])
        return ids

    def encode(self, text):
        """Token ids (list of int) of ``text`` (str), as HF ``Tokenizer.encode(text).ids``.

        Every string is encodable. Raises UnicodeEncodeError for a lone surrogate, which has no
        UTF-8 form (``attention_live.figure`` maps those to U+FFFD first).
        """
        ids = []
        for piece in split_text(text):
            cached = self._cache.get(piece)
            if cached is None:
                cached = self._encode_piece(piece)
                if len(piece) <= CACHE_PIECE_CHARS:
                    if len(self._cache) >= CACHE_SIZE:
                        self._cache.clear()
                    self._cache[piece] = cached
            ids.extend(cached)
        return ids

    def clear_cache(self):
        """Forget the pieces encoded so far (the benchmark times encoding from an empty cache)."""
        self._cache.clear()

    def decode(self, ids):
        """Text (str) of token ids; bytes that are not valid UTF-8 become U+FFFD, as HF's ByteLevel decoder."""
        return b"".join(self.token_bytes[i] for i in ids).decode("utf-8", errors="replace")
