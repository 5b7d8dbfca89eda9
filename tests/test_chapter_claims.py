"""training.chapter_claims reads the default sentence's attention right: its numbers against the PyTorch
reference model and HF tokenizers, independent of the page's numpy forward pass and tokenizer."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tokenizers import Tokenizer  # noqa: E402
from training.chapter_claims import DEFAULT_TEXT, DIFFUSE, FOCUSED, check_claims  # noqa: E402
from training.corpus import load_corpus  # noqa: E402
from training.export import reference_model  # noqa: E402

from conftest import WEIGHTS  # noqa: E402


def test_claims_are_read_from_the_models_attention(figure):
    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    encoding = tokenizer.encode(DEFAULT_TEXT)
    at = {token: i for i, token in enumerate(encoding.tokens)}  # byte-level tokens: "Ġsaid" is « said»
    with torch.no_grad():
        _, _, attention = reference_model(str(WEIGHTS / "model.safetensors"))(torch.tensor([encoding.ids]))
    said = torch.stack(attention)[:, 0, :, at["Ġsaid"], :].numpy()  # [n_layer, n_head, T]
    claims = check_claims(figure)
    for name, head in claims["heads"].items():
        row = said[int(name[0]) - 1, int(name[2]) - 1]
        expected = [row[at["ĠAlice"]], row[at["Ġand"]], row[at["ĠQueen"]], row.max()]
        worst = float(np.max(np.abs(np.array([head["alice"], head["and"], head["queen"], head["largest"]]) - expected)))
        print(f"head {name}: largest difference from torch {worst:.3g}")
        assert worst <= 1e-5
    focused, diffuse = claims["focused"], claims["diffuse"]
    assert focused["holds"] == (focused["alice"] >= FOCUSED and focused["alice"] > max(focused["and"], focused["queen"]))
    assert diffuse["holds"] == (diffuse["largest"] <= DIFFUSE)
    assert diffuse["largest"] == min(h["largest"] for n, h in claims["heads"].items() if n.startswith("1."))


# Issue 52, part 4: the chapter's three claims about the figure, on the shipped model, with the numbers of
# the rule that chose it (training.sweep.CHAPTER_RULE, weights/MODEL_CARD.md), read from the PyTorch reference
# model and HF tokenizers, and in the page itself.

def said_attention():
    """«said»'s attention in the default sentence from the PyTorch reference: float [n_layer, n_head, T], and
    {token: index} of the HF tokens."""
    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    encoding = tokenizer.encode(DEFAULT_TEXT)
    at = {token: i for i, token in enumerate(encoding.tokens)}
    with torch.no_grad():
        _, _, attention = reference_model(str(WEIGHTS / "model.safetensors"))(torch.tensor([encoding.ids]))
    return torch.stack(attention)[:, 0, :, at["Ġsaid"], :].numpy(), at


def test_claim_1_layer_2_head_3_puts_88_percent_on_alice_and_barely_glances_elsewhere():
    from training.sweep import CHAPTER_RULE

    said, at = said_attention()
    row = said[1, 2]
    print(f"layer 2, head 3: «Alice» {row[at['ĠAlice']]:.1%}, «and» {row[at['Ġand']]:.1%}, «Queen» {row[at['ĠQueen']]:.1%}")
    assert row[at["ĠAlice"]] >= CHAPTER_RULE["alice"] >= 0.88
    assert row[at["Ġand"]] <= CHAPTER_RULE["others"] and row[at["ĠQueen"]] <= CHAPTER_RULE["others"]
    assert row.argmax() == at["ĠAlice"]


def test_claim_2_layer_1_head_1_is_diffuse():
    from training.sweep import CHAPTER_RULE

    said, _ = said_attention()
    assert said[0, 0].max() <= CHAPTER_RULE["diffuse"] <= 0.20


def test_claim_1_is_no_fluke_of_one_sentence(corpus_dir):
    """The held-out rate of layer 2, head 3: on 60 sentences of the same shape, the verb's largest weight
    lands on the name in at least 85% (the reference model's attention, not the page's)."""
    from training.held_out_rate import corpus_vocabulary, sentence, sentences
    from training.sweep import CHAPTER_RULE, HELD_OUT_SENTENCES

    train, validation = load_corpus(corpus_dir)
    names, verbs, titles = corpus_vocabulary("\n".join(train + validation))
    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    model = reference_model(str(WEIGHTS / "model.safetensors"))
    hits = used = 0
    for title, name, verb, quote in sentences(names[:30], verbs, titles[:20]):
        text = sentence(title, name, verb, quote)
        tokens = tokenizer.encode(text).tokens
        if not all("Ġ" + word in tokens for word in (title, name, verb)):  # one token each, as training.held_out_rate asks
            continue
        assert text != DEFAULT_TEXT
        with torch.no_grad():
            _, _, attention = model(torch.tensor([tokenizer.encode(text).ids]))
        hits += int(attention[1][0, 2, tokens.index("Ġ" + verb)].argmax()) == tokens.index("Ġ" + name)
        used += 1
        if used == HELD_OUT_SENTENCES:
            break
    assert used == HELD_OUT_SENTENCES
    print(f"layer 2, head 3 finds the name in {hits} of {used}")
    assert hits / used >= CHAPTER_RULE["held_out"] >= 0.85


def test_the_page_opens_on_the_chapter_s_view_and_stacks_attention(browser_page):
    """The page opens on the chapter's sentence with «said» the query in layer 2, head 3 and shows the
    chapter's shares; layer 1, head 1 is diffuse; "Attention stacked on attention" says that «Alice»
    reaches «said» through layer 1, with the share the reference gives."""
    from support.rollout_reference import RolloutReference

    page = browser_page
    page.wait_for(text=DEFAULT_TEXT, layer=2, head=3, token=7)
    state = page.state()
    tokens = state["tokens"]
    alice, and_, queen = tokens.index("␣Alice"), tokens.index("␣and"), tokens.index("␣Queen")
    assert tokens[7] == "␣said"
    weights = state["weights"]
    assert weights[alice] >= 0.88 and weights[and_] <= 0.05 and weights[queen] <= 0.05
    chips = page.evaluate("() => Array.from(document.querySelectorAll('#tokens .chip .percent'), (p) => p.textContent)")
    assert chips[alice] == f"{100 * weights[alice]:.1f}%"
    page.select(layer=1, head=1)
    page.wait_for(layer=1, head=1)
    assert max(page.state()["weights"]) <= 0.20
    page.select(layer=2, head=3, token=7, panels="stack")
    page.wait_for_panel("stack")
    page.wait_until("() => window.attentionLive.state().rollout !== null")
    reference = RolloutReference(WEIGHTS)
    attention = reference.attention(DEFAULT_TEXT)
    through = reference.rollout(attention, 2, 3, 7)
    assert int(np.argmax(through)) == alice
    reach = page.evaluate("() => document.querySelector('#stack-view .stack-reach').textContent")
    assert reach == ("Counting the mixing in the layers below, the typed token that reaches «␣said» most is «␣Alice»: "
                     f"{100 * through[alice]:.1f}% of its attention ends there (directly: {100 * attention[1, 2, 7, alice]:.1f}%).")
    page.select(panels=[])
