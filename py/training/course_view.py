"""The default view of a course's own model: which token is the query, and which heads the figure opens on.

``build.py train`` trains a model on a course's texts and is given a sentence and a query word. This
module turns them into the figure's default view by a fixed rule, written down here and in the
model card it generates:

1. **The query token.** The first occurrence of the query in the sentence that does not start it:
   as a whole word where one exists (no letter, digit or underscore on either side), otherwise as any
   substring (scripts written without spaces, such as Chinese). The token whose bytes hold the
   occurrence's last byte is the query. A word the tokenizer splits into several tokens is thus represented by its last
   piece: the first position at which a causal model has read the whole word. Where that happens, or
   where the token holds more than the word, ``find_query`` says so.
2. **The heads.** In the last layer, the head whose largest weight from the query on an *earlier*
   token is highest (the query's weight on itself does not count) becomes head 3, as the chapter
   numbers its focused head; in layer 1, the head whose largest weight from the query (itself
   included) is lowest, the most diffuse, becomes head 1. Heads are relabelled, not changed
   (``training.relabel_heads``: the same function, heads in another order).

All weights are attention probabilities of the numpy model the page runs (``attention_live``).
"""

import re

import numpy as np

from attention_live.figure import MAX_TEXT_CHARS
from attention_live.labels import token_label
from training.chapter_claims import CHAPTER_HEADS
from training.find_default_view import precomputed
from training.relabel_heads import order_moving


class SentenceError(ValueError):
    """The sentence or query cannot make a default view; the message says why and shows the tokens."""


def shown_tokens(labels):
    """The tokens as the figure's chips show them, for messages: ``«Then» «␣the» «␣Queen»``."""
    return " ".join(f"«{label}»" for label in labels)


def find_query(tokenizer, block_size, sentence, query):
    """The query token of ``sentence`` (str) for the word ``query`` (str, white space around it ignored),
    by rule 1 of the module docstring; ``tokenizer``: the page's (``attention_live.tokenizer.Tokenizer``),
    ``block_size``: the model's context in tokens.

    Returns (index of the query token among the sentence's tokens (int, 0-based), a note (str) for a
    query that is not exactly one token, else None).
    Raises SentenceError if the sentence or query is empty, the sentence longer than the model's
    block_size tokens, or without the query anywhere but at its start (where the query's first piece
    is the first token: nothing earlier to attend to but its own pieces).
    """
    query = query.strip()
    if not sentence.strip() or not query:
        raise SentenceError("the sentence and the query must not be empty")
    if len(sentence) > MAX_TEXT_CHARS:
        raise SentenceError(f"the sentence has {len(sentence):,} characters; the figure reads at most {MAX_TEXT_CHARS:,}")
    ids = tokenizer.encode(sentence)
    labels = [token_label(tokenizer.token_bytes[i]) for i in ids]
    if len(ids) > block_size:
        raise SentenceError(f"the sentence is {len(ids)} tokens long; the model reads at most {block_size} (block_size). "
                            f"Shorten it. Its tokens: {shown_tokens(labels)}")
    ends = np.cumsum([len(tokenizer.token_bytes[i]) for i in ids])  # byte offset just after each token

    def tokens_of(match):  # the first and last token holding the match's bytes
        first_byte, last_byte = len(sentence[:match.start()].encode("utf-8")), len(sentence[:match.end()].encode("utf-8")) - 1
        return tuple(int(np.searchsorted(ends, b, side="right")) for b in (first_byte, last_byte))

    matches = list(re.finditer(rf"(?<!\w){re.escape(query)}(?!\w)", sentence)) or list(re.finditer(re.escape(query), sentence))
    if not matches:
        raise SentenceError(f"the sentence does not contain the query {query!r}. Its tokens: {shown_tokens(labels)}")
    later = [tokens_of(m) for m in matches if tokens_of(m)[0] > 0]
    if not later:
        raise SentenceError(f"the query {query!r} is only at the start of the sentence, in its first token «{labels[0]}»: "
                            f"it would have nothing earlier to attend to. Choose a later word. Its tokens: {shown_tokens(labels)}")
    first, last = later[0]
    note = None
    if last > first:
        note = (f"the tokenizer splits {query!r} into {last - first + 1} tokens, {shown_tokens(labels[first:last + 1])}: "
                f"the query is the last, «{labels[last]}», where the model has read the whole word")
    elif tokenizer.token_bytes[ids[last]].decode("utf-8", "replace").strip() != query:
        note = f"{query!r} is part of the token «{labels[last]}», which is the query"
    return last, note


def choose_heads(attention, query):
    """The heads of rule 2: ((layer, head) of the focused head, (layer, head) of the diffuse one), 0-based.

    ``attention``: float32 [n_layer, n_head, T, T] probabilities; ``query``: the query's index (>= 1).
    """
    rows = attention[:, :, query, :]  # [n_layer, n_head, T]
    focused = int(np.argmax(rows[-1, :, :query].max(axis=-1)))
    diffuse = int(np.argmin(rows[0, :, :query + 1].max(axis=-1)))
    return (attention.shape[0] - 1, focused), (0, diffuse)


def head_orders(focused, diffuse, n_head):
    """{layer (0-based): head order} for ``training.relabel_heads`` that moves the focused head to the
    chapter's head 3 of its layer and the diffuse one to head 1 of layer 1 (CHAPTER_HEADS)."""
    return {focused[0]: order_moving(focused[1], CHAPTER_HEADS["focused"][1] - 1, n_head),
            diffuse[0]: order_moving(diffuse[1], CHAPTER_HEADS["diffuse"][1] - 1, n_head)}


def word(label):
    """A chip label as prose: ``"␣Alice"`` -> ``"Alice"``."""
    return label.lstrip("\u2423") or label


def course_view(figure, sentence, query_index, about):
    """The default view (a dict, written as ``default_view.json``) of a model whose heads are already
    relabelled by ``head_orders``: the sentence, layer and head (1-based) of the focused head, the query
    (``token``, 0-based) and the key it weighs most (``key``); ``focused``: that head's weights from the
    query on its three heaviest earlier tokens ([label, probability]); ``diffuse``: layer 1, head 1 and its
    largest weight; ``precomputed``: ids, labels and every head's attention (rounded to 6 decimals) for the
    page's first paint; ``about`` (given: {"corpus", "training"}) and ``story``: the page's sentence about
    the view, with these numbers, as message descriptors of the figure's catalogs (web/i18n/<lang>.json:
    "story.course1" to "story.course3", as many as the query has earlier tokens, at most three)."""
    result = figure.analyse(sentence)
    labels, attention = result["labels"], result["attention"]
    layer, head = CHAPTER_HEADS["focused"]
    diffuse_layer, diffuse_head = CHAPTER_HEADS["diffuse"]
    row = attention[layer - 1, head - 1, query_index, :query_index]
    heaviest = [int(k) for k in np.argsort(-row, kind="stable")[:3]]
    largest = float(attention[diffuse_layer - 1, diffuse_head - 1, query_index, :query_index + 1].max())
    focused = [[labels[k], float(row[k])] for k in heaviest]
    shares = {name: {"percent": p} for name, (_, p) in zip(("first", "second", "third"), focused)}
    words = {f"{name}Label": word(label) for name, (label, _) in zip(("first", "second", "third"), focused)}
    story = {"key": f"story.course{len(focused)}", "params": {  # "story.course3": "… 40.1% of its attention lands on «x», then …"
        "layer": layer, "head": head, "query": word(labels[query_index]), **shares, **words,
        "diffuseLayer": diffuse_layer, "diffuseHead": diffuse_head, "largest": {"percent": largest}}}
    return {
        "text": sentence, "layer": layer, "head": head, "token": query_index, "key": heaviest[0],
        "focused": focused, "diffuse": {"layer": diffuse_layer, "head": diffuse_head, "largest": largest},
        "precomputed": precomputed(result),
        "about": about, "story": story,
    }
