"""How a token is written on its chip: every byte visible, nothing hidden, nothing invented.

A byte-level BPE token is a run of bytes, not always whole characters. ``token_label`` turns one
token's bytes into display text:

* white space gets a visible stand-in: space ``␣``, tab ``⇥``, line feed ``↵``, carriage return ``␍``;
* C0 controls and DEL show their Unicode control picture (NUL is ``␀``); any other invisible
  character (C1 controls, format characters such as ZWJ, other spaces) shows as ``⟨U+200D⟩``;
* a combining mark at the start of a label is drawn on a dotted circle (``◌́``) so it is visible;
* bytes that are only part of a UTF-8 character show as hex in angle brackets: ``⟨F0 9F⟩``.

Labels are plain text; the page sets them as text content, never as HTML.
"""

import unicodedata

VISIBLE_WHITE_SPACE = {" ": "\u2423", "\t": "\u21e5", "\n": "\u21b5", "\r": "\u240d"}  # ␣ ⇥ ↵ ␍
DOTTED_CIRCLE = "\u25cc"  # ◌, the carrier Unicode uses to show a combining mark alone
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cn"}


def visible_char(char):
    """Display text for one character: ``"\\x00"`` -> ``"␀"``, ``"\\u200d"`` -> ``"⟨U+200D⟩"``, ``"a"`` -> ``"a"``."""
    if char in VISIBLE_WHITE_SPACE:
        return VISIBLE_WHITE_SPACE[char]
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # control pictures: ␀ ␁ …
    if code == 0x7F:
        return "\u2421"  # ␡
    if unicodedata.category(char) in INVISIBLE_CATEGORIES:
        return f"\u27e8U+{code:04X}\u27e9"
    return char


def utf8_runs(data):
    """Split bytes into decoded text (str) and runs of bytes that are no whole character (bytes).

    Example: ``utf8_runs(b"a\\xe4\\xbd")`` -> ``["a", b"\\xe4\\xbd"]``.
    """
    runs = []
    while data:
        try:
            runs.append(data.decode("utf-8"))
            break
        except UnicodeDecodeError as e:
            if e.start:
                runs.append(data[:e.start].decode("utf-8"))
            if runs and isinstance(runs[-1], bytes):
                runs[-1] += data[e.start:e.end]
            else:
                runs.append(data[e.start:e.end])
            data = data[e.end:]
    return runs


def token_label(token_bytes):
    """Display text (str) for one token's bytes: ``b" said"`` -> ``"␣said"``, ``b"\\xf0\\x9f"`` -> ``"⟨F0 9F⟩"``."""
    label = "".join(
        "\u27e8" + " ".join(f"{b:02X}" for b in run) + "\u27e9" if isinstance(run, bytes)
        else "".join(visible_char(c) for c in run)
        for run in utf8_runs(bytes(token_bytes))
    )
    if label and unicodedata.category(label[0]).startswith("M"):
        label = DOTTED_CIRCLE + label
    return label
