"""The model card ``build.py train`` writes beside a course's model (``MODEL_CARD.md``, Markdown).

Every number in it comes from the run that made the model: the corpus files (bytes and sha256), the
token counts, the recipe and its time, the losses beside the baselines (``training.evaluate``) and the
default view's attention weights (``default_view.json``'s, which the page shows).
"""

import hashlib
import re
import shlex
from datetime import datetime, timezone

from attention_live.labels import visible_char
from training.course_view import word


def table(header, rows):
    """A Markdown table from a header (list of str) and rows (lists of values, written with str; a cell's
    ``|`` escaped so that it stays one cell)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows])


def code(text):
    """``text`` as inline code that shows every character: control characters and invisible ones as the
    figure's chips show them (``labels.visible_char``), set in as many backticks as it needs
    (CommonMark: a run of backticks longer than any inside it)."""
    shown = "".join(char if char == " " else visible_char(char) for char in text)
    fence = "`" * (1 + max((len(run) for run in re.findall("`+", shown)), default=0))
    return f"{fence} {shown} {fence}" if "`" in shown else f"{fence}{shown}{fence}"


def sha256_of(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def model_card(folder, out, corpus, files, chars, vocab_size, recipe, history, losses, view, query, note, seconds, wall, machine):
    """The card's Markdown (str) for the model folder ``out``, whose model.safetensors, tokenizer.json and
    default_view.json are written in ``folder`` (they move to ``out`` with the card): ``files`` as ``course_model.corpus_files`` lists them, ``chars``
    the corpus's characters after normalisation, ``vocab_size`` the tokenizer's tokens, ``recipe`` the training.train Recipe, ``history`` its loss
    history, ``losses`` {split: {tokens, model, unigram, bigram}} (nats/token), ``view`` the default view,
    ``query``/``note`` as asked and as ``find_query`` found it, ``seconds`` of training and ``wall``
    seconds in all, on ``machine`` (a description)."""
    labels = view["precomputed"]["labels"]
    query_label = labels[view["token"]]
    stochastic_depth = (f"stochastic depth on layer 1's attention: each sequence's attention branch in block 1 dropped with "
                        f"probability {recipe.l1_attention_drop} while training, a kept one scaled by 1/(1 − "
                        f"{recipe.l1_attention_drop}) (Huang et al. 2016; Fan et al. 2019), so that finding earlier words is "
                        "left to layer 2" if recipe.l1_attention_drop else "no stochastic depth")
    return "\n".join([
        f"# Model card: the figure's model trained on “{out.name}”",
        "",
        f"Written by `python3 build.py train` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC. A 2-layer, 4-head GPT-2-style "
        "decoder of the same size as the shipped model (`weights/MODEL_CARD.md`, \"Architecture\"), small enough to run in a "
        "browser tab; it exists to show what attention does, not to write good text.",
        "",
        "## Files",
        "",
        table(["file", "bytes", "sha256"], [[f"`{name}`", f"{(folder / name).stat().st_size:,}", f"`{sha256_of(folder / name)}`"]
                                            for name in ("model.safetensors", "tokenizer.json", "default_view.json")]),
        "",
        "## Corpus",
        "",
        f"From {code(str(corpus))}: {len(files)} file{'s' * (len(files) != 1)}, {chars:,} characters after normalisation "
        "(`training.corpus`: hard-wrapped lines joined, curly quotes made straight); the last 10% of each file is held "
        "out for validation.",
        "",
        table(["file", "bytes", "sha256"], [[code(f["file"]), f"{f['bytes']:,}", f"`{f['sha256']}`"] for f in files]),
        "",
        "## Tokenizer",
        "",
        f"Byte-level BPE trained on the training split (`training.train_tokenizer`): {vocab_size:,} tokens. "
        f"{losses['train']['tokens']:,} training and {losses['validation']['tokens']:,} validation tokens.",
        "",
        "## Training",
        "",
        f"{recipe.max_iters:,} steps of batch {recipe.batch_size} × 128 tokens, seed {recipe.seed}; AdamW (betas 0.9, 0.99, "
        f"weight decay {recipe.weight_decay} on matrices), learning rate warmed up over {recipe.warmup} steps to {recipe.lr} "
        f"then cosine-decayed to {recipe.min_lr}; gradient clipping at 1.0; dropout {recipe.dropout}; {stochastic_depth}. "
        "Training only: the exported model is plain GPT-2, every branch always on.",
        "",
        "The 20-batch estimates printed while training (nats/token):",
        "",
        table(["step", "train", "validation"], [[f"{h['step']:,}", f"{h['train']:.3f}", f"{h['validation']:.3f}"] for h in history]),
        "",
        f"Training time: {seconds:,.0f} s ({wall:,.0f} s for this command's last part, with export and evaluation), on {machine}.",
        "",
        "## Results",
        "",
        "Mean cross-entropy in nats per token over the whole split (`training.evaluate`, the float16 weights the page "
        "downloads), beside count models fitted on the training split:",
        "",
        table(["split", "tokens", "model", "bigram baseline", "unigram baseline"],
              [[name, f"{l['tokens']:,}", f"**{l['model']:.3f}**", f"{l['bigram']:.3f}", f"{l['unigram']:.3f}"] for name, l in losses.items()]),
        "",
        "## The default view",
        "",
        f"Sentence: {code(view['text'])}; query {code(query.strip())}: token {view['token'] + 1} of {len(labels)}, «{query_label}»."
        + (f" Note: {note}." if note else ""),
        "",
        f"Layer {view['layer']}, head {view['head']}: the query's heaviest earlier tokens:",
        "",
        table(["token", "attention"], [[f"«{word(label)}»", f"{p:.1%}"] for label, p in view["focused"]]),
        "",
        f"Layer {view['diffuse']['layer']}, head {view['diffuse']['head']}: no token gets more than "
        f"{view['diffuse']['largest']:.1%} of the query's attention.",
        "",
        "The rule (`py/training/course_view.py`): the query is the token that holds the query word's last byte (a word the "
        "tokenizer splits is represented by its last piece); in layer 2, the head whose largest weight from the query on an "
        "earlier token is highest becomes head 3; in layer 1, the head whose largest weight from the query is lowest "
        "becomes head 1. Heads are relabelled, not changed: the same function, heads in another order.",
        "",
        "## Showing it",
        "",
        "```sh",
        f"python3 build.py serve --model {shlex.quote(str(out))}",
        "```",
        "",
    ])

