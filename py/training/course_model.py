"""``build.py train``: one command from a course's own texts to a model folder the figure can show.

A course in another language, or built on its own book, trains the figure's model on its texts:

1. read every ``*.txt`` of ``--corpus`` (UTF-8, any language or script), normalised and split as the
   shipped model's corpus is (``training.corpus``: the last 10% of each file is held out);
2. train the byte-level BPE tokenizer (``training.train_tokenizer``, 2,000 tokens at most);
3. check the sentence and the query against it (``training.course_view.find_query``), before any long work;
4. train the GPT (``training.train``: the shipped model's architecture and recipe, stochastic depth on
   layer 1's attention included), with a progress bar; Ctrl-C stops it between two steps with its whole
   state kept in ``OUT/training/``, and the same command carries on from there;
5. export it (float16 safetensors, as the page downloads), relabel its heads and choose the default
   view (``training.course_view``: the rule is in its docstring), measure the losses beside unigram and
   bigram baselines (``training.evaluate``), and write ``model.safetensors``, ``tokenizer.json``,
   ``default_view.json`` and ``MODEL_CARD.md`` (``training.course_card``) into ``OUT``.

Usage (``build.py train`` runs it with .venv's Python, from ``py/``)::

    python -m training.course_model --corpus DIR --sentence "..." --query WORD [--out DIR]
        [--steps N | --minutes N] [--seed N] [--l1-attention-drop P] [--force]
"""

import argparse
import hashlib
import json
import os
import platform
import shlex
import shutil
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import torch
from tokenizers import Tokenizer as HFTokenizer
from tqdm import tqdm

from attention_live.figure import Figure
from attention_live.tokenizer import Tokenizer
from training.corpus import CorpusError, load_corpus, text_files
from training.course_card import model_card
from training.course_view import SentenceError, choose_heads, course_view, find_query, head_orders
from training.evaluate import bigram_loss, model_loss, unigram_loss
from training.export import export, reference_model
from training.gpt import GPT, GPTConfig
from training.relabel_heads import relabel_file
from training.train import Recipe, ResumeError, StopOnInterrupt, encode_split, get_batch, train
from training.train_tokenizer import train_tokenizer

VOCAB_SIZE = 2000  # the shipped model's: the same file budget (about 1.2 MB in float16)
# The shipped model's run (weights/MODEL_CARD.md, "Training procedure"): stochastic depth on layer 1's attention
# for its first 3,000 of 5,000 steps, then dropout 0.05 on the residual branches for the rest
RECIPE = Recipe(max_iters=5000, dropout=0.05, attention_dropout=0.0, l1_attention_drop=0.9,
                l1_attention_drop_until=3000, dropout_from=3000)
MIN_CHARS = 20_000  # least text to train on (after normalisation): about ten pages
MIN_HELD_OUT_CHARS = 1_000  # least text held out for validation: several windows of block_size tokens
MODELS = Path(__file__).resolve().parents[2] / "models"  # the repository's models/ (ignored by git): where --out defaults to
CATALOGS = Path(__file__).resolve().parents[2] / "web" / "i18n"  # the figure's words, one catalog per language (--lang)
MODEL_FILES = ("model.safetensors", "tokenizer.json", "default_view.json", "MODEL_CARD.md")


class CourseError(Exception):
    """Bad input for ``build.py train``; the message says what is wrong and what to do. Nothing is lost."""


def corpus_files(corpus):
    """The corpus's ``*.txt`` files as the model card lists them: [{"file", "bytes", "sha256"}], by name."""
    return [{"file": path.name, "bytes": path.stat().st_size, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
            for path in text_files(corpus)]


def read_corpus(corpus):
    """(train, validation) lists of str, as ``training.corpus.load_corpus`` gives them. Raises CourseError
    for a missing or empty folder, a ``*.txt`` that is not a plain file or whose name is not UTF-8, a
    file that is not UTF-8 (its name and byte offset), too little text, or too little held out."""
    folder = Path(corpus)
    if not folder.exists():
        raise CourseError(f"--corpus {corpus}: no such folder")
    if not folder.is_dir():
        raise CourseError(f"--corpus {corpus} is a file: give the folder that holds the texts (*.txt)")
    for path in [folder.resolve(), *text_files(folder)]:
        try:
            path.name.encode("utf-8")
        except UnicodeEncodeError:
            raise CourseError(f"{path!s:.200}: its name is not UTF-8; rename it") from None
        if path != folder.resolve() and not path.is_file():
            raise CourseError(f"{path} is not a plain file (a folder, a pipe or a broken link): move it out of the corpus folder")
    try:
        train_books, validation_books = load_corpus(corpus)
    except (FileNotFoundError, CorpusError) as e:
        raise CourseError(str(e)) from None
    found = sum(map(len, train_books + validation_books))
    if found < MIN_CHARS:
        raise CourseError(f"{corpus} holds {found:,} character{'s' * (found != 1)} of text; training needs at least {MIN_CHARS:,} "
                          "(about ten pages), and a model that has read a few hundred thousand learns far more")
    held_out = sum(map(len, validation_books))
    if held_out < MIN_HELD_OUT_CHARS:
        raise CourseError(f"only {held_out:,} characters of {corpus} are held out for validation (at least {MIN_HELD_OUT_CHARS:,} "
                          "are needed): the last 10% of each file is, from a paragraph break on, so separate the "
                          "paragraphs of each text with blank lines")
    return train_books, validation_books


def holds_model(out):
    """Whether ``out`` holds a model (any of MODEL_FILES): ``build.py train`` replaces one only with --force."""
    return any((out / name).exists() for name in MODEL_FILES)


def differences(before, now):
    """What differs between a stopped run's record and this command ({corpus, asked} each), in words."""
    said = []
    files = {f["file"]: f["sha256"] for f in before["corpus"]}, {f["file"]: f["sha256"] for f in now["corpus"]}
    for what, names in (("new", files[1].keys() - files[0].keys()), ("gone", files[0].keys() - files[1].keys()),
                        ("changed", {n for n in files[0].keys() & files[1].keys() if files[0][n] != files[1][n]})):
        if names:
            said.append(f"texts {what}: {', '.join(sorted(names))}")
    for name, value in before["asked"].items():
        if now["asked"][name] != value:
            said.append(f"--{name.replace('_', '-')} {value if value is not None else '(not given)'} then, "
                        f"{now['asked'][name] if now['asked'][name] is not None else '(not given)'} now")
    return "; ".join(said)


def stopped_run(work, corpus, asked, force):
    """The record (run.json) of the run stopped in ``work``, if it was started by this same command (its
    corpus and options): then the run carries on. A stopped run of other texts or options is refused
    (CourseError saying what differs), or with ``force`` dropped; returns None when there is none to carry on."""
    record = work / "run.json"
    if not record.exists():
        return None
    stopped = json.loads(record.read_text(encoding="utf-8"))
    changed = differences(stopped, {"corpus": corpus, "asked": asked})
    if not changed:
        return stopped
    if not force:
        raise CourseError(f"{work.parent} holds a stopped run of other texts or options ({changed}): give its options again to "
                          "carry it on, or add --force to drop it and start this one")
    shutil.rmtree(work)
    return None


def trained_tokenizer(work, corpus, train_books):
    """tokenizer.json (bytes) trained on ``train_books``: the one in ``work`` if it was trained on the same
    texts (``corpus``: their files), else trained now and kept there with the files' record."""
    path, record = work / "tokenizer.json", work / "tokenizer-corpus.json"
    if path.exists() and record.exists() and json.loads(record.read_text(encoding="utf-8")) == corpus:
        return path.read_bytes()
    print(f"training the tokenizer on {sum(map(len, train_books)):,} characters…", flush=True)
    work.mkdir(parents=True, exist_ok=True)
    train_tokenizer(train_books, VOCAB_SIZE).save(str(path))
    record.write_text(json.dumps(corpus) + "\n", encoding="utf-8")
    return path.read_bytes()


def seconds_per_step(splits, vocab_size, recipe, steps=5):
    """Wall time of one training step of this model on this machine (s), timed over ``steps`` steps
    after one to warm up, on a throw-away copy (the run itself starts from its seed)."""
    model = GPT(GPTConfig(vocab_size=vocab_size, dropout=recipe.dropout, l1_attention_drop=recipe.l1_attention_drop))
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.lr)
    generator = torch.Generator().manual_seed(0)
    for i in range(steps + 1):
        if i == 1:
            started = time.perf_counter()
        _, loss, _ = model(*get_batch(splits["train"], model.config.block_size, recipe.batch_size, generator))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return (time.perf_counter() - started) / steps


def steps_for_minutes(minutes, seconds, recipe):
    """How many steps fit in ``minutes`` at ``seconds`` per step, counting the evaluations (each
    ``eval_batches`` batches of both splits, a forward pass each: about a third of a step)."""
    evaluation = 2 * recipe.eval_batches * seconds / 3
    return max(1, int(minutes * 60 / (seconds + evaluation / recipe.eval_interval)))


def new_run(work, corpus, asked, splits, vocab_size):
    """The recipe of a new run from ``asked`` ({steps, minutes, seed, l1_attention_drop}): the shipped
    model's (RECIPE) with those changes, --minutes turned into steps on this machine, and the step where
    stochastic depth ends and dropout starts kept at the same share of the run. Written to
    ``work/run.json`` with the corpus's files, so that the same command carries on a stopped run."""
    recipe = replace(RECIPE, seed=asked["seed"], l1_attention_drop=asked["l1_attention_drop"])
    if asked["minutes"] is not None:
        recipe = replace(recipe, max_iters=steps_for_minutes(asked["minutes"], seconds_per_step(splits, vocab_size, recipe), recipe))
    elif asked["steps"] is not None:
        recipe = replace(recipe, max_iters=asked["steps"])
    switch = round(recipe.max_iters * RECIPE.l1_attention_drop_until / RECIPE.max_iters)
    recipe = replace(recipe, l1_attention_drop_until=switch, dropout_from=switch)
    (work / "run.json").write_text(json.dumps({"corpus": corpus, "asked": asked, "recipe": asdict(recipe)}, indent=1) + "\n", encoding="utf-8")
    return recipe


def progress_bar(recipe, checkpoint):
    """A tqdm bar over the run's steps, with its ETA and the latest losses, starting where the stopped run
    in ``checkpoint`` (if it exists) stopped; returns (bar, on_step) for ``train``."""
    done = torch.load(checkpoint, map_location="cpu", weights_only=True)["resume"]["step"] if checkpoint.exists() else 0
    if done:
        print(f"carrying on from the stopped run, at step {done:,} of {recipe.max_iters:,}", flush=True)
    bar = tqdm(total=recipe.max_iters, initial=done, unit="step", desc="training", dynamic_ncols=True, mininterval=0.5)
    shown = []

    def on_step(step, history):
        bar.update(step - bar.n)
        if history and history[-1] is not (shown[-1] if shown else None):
            shown.append(history[-1])
            h = history[-1]
            bar.set_postfix_str(f"loss {h['train']:.3f} train, {h['validation']:.3f} validation (step {h['step']:,})")

    return bar, on_step


def languages():
    """The tags of the languages the figure has a catalog for (web/i18n/<lang>.json), sorted."""
    return sorted(path.stem for path in CATALOGS.glob("*.json"))


def about_text(corpus, files, chars, recipe):
    """The page's "about" phrases for this model, what it was trained on and how, as message descriptors
    of the figure's catalogs (web/i18n/<lang>.json), so that the page says them in its language; a
    model trained without the layer-1 lever has no training phrase ("")."""
    trained_on = {"key": "about.corpus.folder", "params": {"name": Path(corpus).resolve().name, "count": len(files), "chars": chars}}
    how = {"key": "about.training.course", "params": {
        "dropped": recipe.l1_attention_drop_until, "steps": recipe.max_iters, "share": {"percent": recipe.l1_attention_drop, "digits": 0}},
    } if recipe.l1_attention_drop else ""
    return {"corpus": trained_on, "training": how}


def make_model(args):
    """Everything ``build.py train`` does (module docstring). Returns the output folder (Path), or None if
    the run was stopped (Ctrl-C: its state kept in OUT/training/). Raises CourseError for bad input,
    before anything in ``OUT`` is changed; the model's files are written there last, all four at once."""
    out = Path(args.out)
    if args.lang is not None and args.lang not in languages():
        raise CourseError(f"--lang {args.lang}: the figure has no words in that language; choose one of {', '.join(languages())} "
                          "(a new language is one catalog file: docs/languages.md)")
    if out.exists() and not out.is_dir():
        raise CourseError(f"--out {out} is a file: give a folder (it is made if missing)")
    if holds_model(out) and not args.force:
        raise CourseError(f"{out} already holds a model: pass --force to replace it, or choose another folder with --out")
    work = out / "training"
    train_books, validation_books = read_corpus(args.corpus)
    files = corpus_files(args.corpus)
    asked = {"steps": args.steps, "minutes": args.minutes, "seed": args.seed, "l1_attention_drop": args.l1_attention_drop}
    stopped = stopped_run(work, files, asked, args.force)
    tokenizer_json = trained_tokenizer(work, files, train_books)
    page_tokenizer = Tokenizer.from_json(tokenizer_json.decode("utf-8"))
    try:
        query_index, note = find_query(page_tokenizer, GPTConfig.block_size, args.sentence, args.query)
    except SentenceError as e:
        raise CourseError(f"--sentence/--query: {e}") from None
    if note:
        print(f"note: {note}", flush=True)
    hf_tokenizer = HFTokenizer.from_str(tokenizer_json.decode("utf-8"))
    splits = {"train": encode_split(hf_tokenizer, train_books), "validation": encode_split(hf_tokenizer, validation_books)}
    torch.set_num_threads(args.threads)
    recipe = Recipe(**stopped["recipe"]) if stopped else new_run(work, files, asked, splits, page_tokenizer.vocab_size)
    bar, on_step = progress_bar(recipe, work / "ckpt.pt")
    started = time.time()
    try:
        with StopOnInterrupt() as stop:
            _, history, stopped_at = train(recipe, splits, page_tokenizer.vocab_size, work / "ckpt.pt", resume=True,
                                           should_stop=stop, on_step=on_step)
    except ResumeError as e:
        raise CourseError(f"{e}: add --force to start over") from None
    finally:
        bar.close()
    if stopped_at is not None:
        print(f"stopped at step {stopped_at:,} of {recipe.max_iters:,}; {work} keeps the run: the same command carries on from there")
        return None
    print(f"trained {recipe.max_iters:,} steps; exporting and choosing the default view…", flush=True)
    staged = work / "model"  # the four files, written here first, then moved into out together
    staged.mkdir(exist_ok=True)
    model_path = staged / "model.safetensors"
    export(work / "ckpt.pt", work / "tokenizer.json", model_path)
    figure = Figure(model_path.read_bytes(), tokenizer_json)
    focused, diffuse = choose_heads(figure.analyse(args.sentence)["attention"], query_index)
    relabel_file(model_path, model_path, head_orders(focused, diffuse, figure.config.n_head))
    figure = Figure(model_path.read_bytes(), tokenizer_json)
    chars = sum(map(len, train_books + validation_books))
    view = course_view(figure, args.sentence, query_index, about_text(args.corpus, files, chars, recipe))
    if args.lang:
        view["lang"] = args.lang  # the figure's language for this model, where the page asks for none (docs/languages.md)
    with torch.no_grad():
        reference = reference_model(str(model_path))
        losses = {name: {"tokens": len(data), "model": model_loss(reference, data),
                         "unigram": unigram_loss(splits["train"], data, page_tokenizer.vocab_size),
                         "bigram": bigram_loss(splits["train"], data, page_tokenizer.vocab_size)}
                  for name, data in splits.items()}
    (staged / "tokenizer.json").write_bytes(tokenizer_json)
    (staged / "default_view.json").write_text(json.dumps(view, ensure_ascii=False) + "\n", encoding="utf-8")
    machine = f"{platform.machine()}, {torch.get_num_threads()} thread(s), {platform.system()}; Python {platform.python_version()}, PyTorch {torch.__version__}"
    (staged / "MODEL_CARD.md").write_text(model_card(
        folder=staged, out=out, corpus=args.corpus, files=files, chars=chars, vocab_size=page_tokenizer.vocab_size, recipe=recipe,
        history=history, losses=losses, view=view, query=args.query, note=note, seconds=history[-1]["seconds"],
        wall=time.time() - started, machine=machine), encoding="utf-8")
    for name in MODEL_FILES:
        (staged / name).replace(out / name)
    shutil.rmtree(work)
    return out


def main():
    parser = argparse.ArgumentParser(prog="build.py train", description="Train the figure's model on a course's own texts. "
                                     "Ctrl-C (or a closed terminal, or kill) stops training between two steps and keeps it in "
                                     "OUT/training/; the same command carries on from there (docs/training.md).")
    parser.add_argument("--corpus", required=True, help="folder of the texts to train on (*.txt, UTF-8, any language)")
    parser.add_argument("--sentence", required=True, help="the figure's default sentence")
    parser.add_argument("--query", required=True, help="the word of the sentence the figure opens on as the query")
    parser.add_argument("--out", help="folder to write the model to (default: models/<corpus folder's name>/)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--steps", type=int, help=f"training steps (default {RECIPE.max_iters:,}, about 20 minutes on 2 cores)")
    length.add_argument("--minutes", type=float, help="train for about this long instead (steps set from this machine's speed)")
    parser.add_argument("--seed", type=int, default=RECIPE.seed, help=f"random seed (default {RECIPE.seed})")
    parser.add_argument("--l1-attention-drop", type=float, default=RECIPE.l1_attention_drop, metavar="P",
                        help=f"stochastic depth on layer 1's attention while training (default {RECIPE.l1_attention_drop}, the shipped "
                             "model's: it hands finding earlier words to layer 2; 0 turns it off)")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for training (default 2)")
    parser.add_argument("--lang", help="the language the figure speaks with this model where a page asks for none "
                                       f"(a catalog of web/i18n/: {', '.join(languages())}; default: the page's, else English)")
    parser.add_argument("--force", action="store_true",
                        help="replace the model in --out, and drop a stopped run there of other texts or options")
    args = parser.parse_args()
    if args.out is None:
        args.out = str(MODELS / Path(args.corpus).resolve().name)
    args.sentence = args.sentence.replace("\r\n", "\n").replace("\r", "\n")  # as the page's text box holds it (docs/api.md)
    if (args.steps is not None and args.steps < 1) or (args.minutes is not None and args.minutes <= 0) or args.threads < 1:
        parser.error("--steps, --minutes and --threads must be positive")
    if not 0 <= args.l1_attention_drop < 1:
        parser.error("--l1-attention-drop must be at least 0 and below 1")
    try:
        out = make_model(args)
    except CourseError as e:
        sys.exit(f"build.py train: {e}")
    except KeyboardInterrupt:  # Ctrl-C before the training loop (which stops cleanly) or during the export
        print("stopped before training began or while the model was written; nothing in the folder is lost: "
              "the same command carries on", file=sys.stderr)
        sys.exit(130)
    if out is None:
        sys.exit(130)
    shown = os.path.relpath(out) if not os.path.relpath(out).startswith("..") else str(out.resolve())
    print(f"wrote {', '.join(MODEL_FILES)} to {shown}\nnext: python3 build.py serve --model {shlex.quote(shown)}")


if __name__ == "__main__":
    main()
