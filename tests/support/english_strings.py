"""Finding English in the figure's code outside its English catalog (tests/test_catalogs.py).

Every string and template literal of web/'s scripts, read with a real JavaScript parser (tree-sitter's
JavaScript grammar: private fields, optional chaining and the rest of today's syntax), and every text
and shown attribute of its HTML pages. A string is English when it holds two words in a row
("Copy link", "of the") or is one capitalised word ("Layer"); code's own strings (selectors, event
names, URLs, key names) hold neither. A string never shown says so on its line: `// not shown`.
"""

import html.parser
import re

import tree_sitter
import tree_sitter_javascript

WORDS = re.compile(r"[A-Za-z][a-z]+['’]?[a-z]* +[a-z]{2,}")  # two words in a row: "Copy link", "the Queen" no ("Queen" capitalised second) but "of the" yes
ONE_WORD = re.compile(r"[A-Z][a-z]{2,}")  # "Layer", "Play"
CODE_WORDS = {  # one capitalised word that is code, not words: key names, constructors, MIME words, …
    "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "Enter", "Escape", "Tab", "Space", "PageUp",
    "PageDown", "Backspace", "Delete", "Shift", "Control", "Alt", "Meta", "Unidentified", "Process", "Dead",
    "Error", "TypeError", "RangeError", "AbortError", "NotAllowedError", "SecurityError", "QuotaExceededError",
    "TimeoutError", "DataCloneError", "NotFoundError", "InvalidStateError", "Object", "Array", "Float32Array",
    "Uint8Array", "Int32Array", "Blob", "Response", "Request", "Promise", "Symbol", "Range", "Content",
    "Accept", "Cache", "Encoding", "Length", "Type", "Location", "Vary", "Date", "Etag", "Origin", "Keep",
    "Python", "Pyodide", "Chromium", "Firefox", "WebKit", "Safari", "Gecko", "Android", "Mobile", "Mac",
    "Windows", "Linux", "Arial", "Helvetica", "Georgia", "Menlo", "Consolas", "Monaco", "Courier",
}
SHOWN_ATTRIBUTES = ("aria-label", "title", "alt", "placeholder", "aria-description", "aria-roledescription", "aria-valuetext")
_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


def is_english(text):
    """Whether a string's text reads as English words (WORDS, ONE_WORD) rather than code."""
    stripped = text.strip()
    if stripped == "use strict":  # a directive
        return False
    if WORDS.search(stripped):
        return True
    return bool(ONE_WORD.fullmatch(stripped)) and stripped not in CODE_WORDS


def literal_texts(node, source):
    """(text, line) of every string and template literal under `node`; a template's text without
    its ${…} parts."""
    if node.type == "string":
        yield source[node.start_byte + 1:node.end_byte - 1].decode("utf-8"), node.start_point[0]
        return
    if node.type == "template_string":
        parts = [source[child.start_byte:child.end_byte].decode("utf-8") for child in node.children if child.type == "string_fragment"]
        yield " ".join(parts), node.start_point[0]
    for child in node.children:
        yield from literal_texts(child, source)


def english_in_script(path):
    """[(line number, text)] of the English strings in the script at `path`, but on lines marked `// not shown`
    and in import or export specifiers."""
    source = path.read_bytes()
    tree = _PARSER.parse(source)
    lines = source.decode("utf-8").splitlines()
    found = []

    def walk(node):
        if node.type in ("import_statement", "export_statement") and node.child_by_field_name("source") is not None:
            return
        if node.type in ("string", "template_string"):
            for text, line in literal_texts(node, source):
                if is_english(text) and not lines[line].rstrip().endswith("// not shown"):
                    found.append((line + 1, text))
            if node.type == "string":
                return
        for child in node.children:
            walk(child)

    assert not tree.root_node.has_error, f"{path}: tree-sitter could not parse it"
    walk(tree.root_node)
    return found


class _PageText(html.parser.HTMLParser):
    """English text and shown attributes of an HTML page: text outside <script>, <style> and elements
    whose words come from the catalog (data-text); attributes SHOWN_ATTRIBUTES without a data-label."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self.skipping = [], []

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name in SHOWN_ATTRIBUTES:
            value = attributes.get(name)
            if value and is_english(value) and "data-label" not in attributes and name != "alt" or (name == "alt" and value and is_english(value) and "data-alt" not in attributes):
                self.found.append((self.getpos()[0], f"{name}={value}"))
        if tag not in self.VOID:
            self.skipping.append(tag in ("script", "style", "title") and False or tag in ("script", "style") or "data-text" in attributes or "data-initial" in attributes)

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.skipping:
            self.skipping.pop()

    def handle_data(self, data):
        if not any(self.skipping) and is_english(data):
            self.found.append((self.getpos()[0], data.strip()))


def english_in_page(path):
    """[(line number, text)] of the English words of the HTML page at `path` outside its catalog."""
    reader = _PageText()
    reader.feed(path.read_text(encoding="utf-8"))
    return reader.found
