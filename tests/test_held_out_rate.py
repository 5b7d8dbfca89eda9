"""training.held_out_rate measures what it says: on at least 50 sentences of the default sentence's shape
(never the default sentence), each head's share of sentences whose verb attends most to the name, checked
against the PyTorch reference model and HF tokenizers rather than the page's numpy model and tokenizer."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tokenizers import Tokenizer  # noqa: E402
from training.chapter_claims import DEFAULT_TEXT  # noqa: E402
from training.corpus import load_corpus  # noqa: E402
from training.export import reference_model  # noqa: E402
from training.held_out_rate import corpus_vocabulary, head_rates, sentences  # noqa: E402

from conftest import WEIGHTS  # noqa: E402


def test_held_out_rates_match_the_reference(figure, corpus_dir):
    train, validation = load_corpus(corpus_dir)
    names, verbs, titles = corpus_vocabulary("\n".join(train + validation))
    assert {"Alice", "Toad"} <= set(names) and "said" in verbs and "Queen" in titles
    rates, used = head_rates(figure, sentences(names[:30], verbs, titles[:20]), 50)
    assert len(used) == 50 and DEFAULT_TEXT not in used

    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    model = reference_model(str(WEIGHTS / "model.safetensors"))
    hits = 0
    for text in used:
        name, verb = text.split(" turned to ")[1].split(",")[0].split(" and ")
        encoding = tokenizer.encode(text)
        assert encoding.tokens.count("Ġ" + name) == 1 and encoding.tokens.count("Ġ" + verb) == 1
        verb_at, name_at = encoding.tokens.index("Ġ" + verb), encoding.tokens.index("Ġ" + name)
        with torch.no_grad():
            _, _, attention = model(torch.tensor([encoding.ids]))
        from_verb = torch.stack(attention)[:, 0, :, verb_at, :].numpy()  # [n_layer, n_head, T]
        hits = hits + (from_verb.argmax(axis=-1) == name_at)
    np.testing.assert_array_equal(rates, hits / len(used))
    assert rates.max() > 0.5  # some head does find the name: the measure is not trivially zero
