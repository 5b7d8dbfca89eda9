"""Read and normalise the training corpus: eight public-domain books from Project Gutenberg.

The books are not part of this repository; every command takes ``--corpus DIR`` pointing at the
folder of ``*.txt`` files described in its ``SOURCES.md`` (see ``weights/MODEL_CARD.md``).

Normalisation maps the printed books onto what a visitor types into the figure:

* hard-wrapped lines inside a paragraph are joined with one space; paragraphs are separated by
  one blank line (``"\\n\\n"``); runs of spaces inside a line become one space;
* curly quotes become straight ones (“ ” -> ``"``, ‘ ’ and the backtick -> ``'``), the em-dash
  becomes ``--`` (the convention the ASCII books already use), the en-dash ``-``, the ellipsis ``...``;
* editorial marks are dropped: ``_italics_`` underscores and ``[Illustration…]`` lines.

Everything else (accented letters, æ, digits) is kept as it is.
"""

import re
from pathlib import Path

PUNCTUATION_MAP = str.maketrans({
    "\u201c": '"', "\u201d": '"',  # “ ”
    "\u2018": "'", "\u2019": "'", "`": "'",  # ‘ ’ `
    "\u2014": "--",  # em-dash
    "\u2013": "-",  # en-dash
    "\u2026": "...",  # ellipsis
    "_": None,  # italics markers
})
ILLUSTRATION = re.compile(r"\[Illustration[^\]]*\]", re.DOTALL)
BLANK_LINES = re.compile(r"\n[ \t]*\n+")
SPACES = re.compile(r"[ \t]+")
WRITTEN_WITHOUT_SPACES = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")  # CJK ideographs, kana, their punctuation


def join_wrapped(lines):
    """The lines of one paragraph joined into one: with a space, except where both sides are characters of
    a script written without spaces (Chinese, Japanese), where a hard wrap stands for none:
    ``join_wrapped(["said", "Alice"]) == "said Alice"``, ``join_wrapped(["他说", "你好"]) == "他说你好"``."""
    text = ""
    for line in lines:
        if line:
            joined_bare = not text or (WRITTEN_WITHOUT_SPACES.match(text[-1]) and WRITTEN_WITHOUT_SPACES.match(line[0]))
            text += ("" if joined_bare else " ") + line
    return text


def normalise(text):
    """Return ``text`` (one book, str) normalised as described in the module docstring.

    Example: ``normalise("“Oh\\ndear!”\\n\\n\\nsaid _she_")`` -> ``'"Oh dear!"\\n\\nsaid she\\n'``.
    """
    text = ILLUSTRATION.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).translate(PUNCTUATION_MAP)
    paragraphs = []
    for block in BLANK_LINES.split(text):
        paragraph = SPACES.sub(" ", join_wrapped(line.strip() for line in block.split("\n"))).strip()
        if paragraph:
            paragraphs.append(paragraph)
    return "\n\n".join(paragraphs) + "\n"


def split_book(text, validation_fraction):
    """Split one normalised book into (train, validation) at a paragraph boundary.

    The validation part is the last ``validation_fraction`` of the book's characters, moved
    forward to the next paragraph start so that no paragraph is shared by the two parts.
    """
    cut = text.find("\n\n", int(len(text) * (1.0 - validation_fraction)))
    cut = len(text) if cut < 0 else cut + 2
    return text[:cut], text[cut:]


class CorpusError(ValueError):
    """A corpus file is not UTF-8 text; the message names the file, the byte offset and what to do."""


def read_book(path):
    """The text of one corpus file (str), decoded as UTF-8 (a leading byte-order mark dropped).

    Raises CorpusError naming the file and the offset (bytes from its start) of the first byte that is
    not UTF-8.
    """
    data = Path(path).read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorpusError(f"{path} is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8 in its place, "
                          f"for example: iconv -f UTF-16 -t UTF-8 '{path}' > '{path}.utf8' && mv '{path}.utf8' '{path}'")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path} is not UTF-8: byte {e.start:,} (0x{data[e.start]:02X}) is not valid UTF-8. Save it as UTF-8 "
                          f"in its place; from Latin-1, for example: iconv -f LATIN1 -t UTF-8 '{path}' > '{path}.utf8' && "
                          f"mv '{path}.utf8' '{path}'") from None


def text_files(corpus_dir):
    """The corpus's books: the files of ``corpus_dir`` (not its subfolders) whose name ends in ``.txt`` in
    any case, sorted by name (list of Path)."""
    return sorted(path for path in Path(corpus_dir).iterdir() if path.suffix.lower() == ".txt")


def load_corpus(corpus_dir, validation_fraction=0.1):
    """Read every ``*.txt`` book in ``corpus_dir`` (sorted by name), normalise it and split it.

    Returns ``(train, validation)``: two lists of str, one entry per book, in the same order.
    Raises FileNotFoundError if the folder holds no ``.txt`` file, CorpusError if one is not UTF-8.
    """
    paths = text_files(corpus_dir)
    if not paths:
        raise FileNotFoundError(f"no *.txt files in {corpus_dir!s} (files in its subfolders are not read): "
                                "put the texts to train on there, as UTF-8 .txt files")
    train, validation = [], []
    for path in paths:
        book_train, book_validation = split_book(normalise(read_book(path)), validation_fraction)
        train.append(book_train)
        validation.append(book_validation)
    return train, validation
