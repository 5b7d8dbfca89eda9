"""``build.py train`` (issue 23): one command from a course's own texts to a model the figure shows.

End to end, through the README's command, on two corpora the tests write: a few hundred KB cut from the
shared corpus (English), trained in two parts (stopped by Ctrl-C, then the same command carries on),
and a short Greek text. Each model folder is then built with ``build.py``'s ``--model``, loaded in the
page, and checked as any model folder is (``test_model_folder``: the page's attention equals CPython's
for that model); its model card's numbers are checked against the model itself (the validation loss
recomputed with PyTorch's own cross-entropy, the default view's weights with CPython's Figure). Every
bad input of the issue's part 4 stops before training, says what to do and leaves the folder as it was.
"""

import json
import os
import random
import re
import signal
import subprocess
import sys

import numpy as np
import pytest

import build
from conftest import CORPUS, ROOT
from support.figure_page import FigurePage, Watch, browser_context, serving
from support.model_folder import check_build_carries, check_first_paint_is_the_models, check_page_shows, model_figure

torch = pytest.importorskip("torch")

ENGLISH = ("Then the Queen turned to Alice and said", "said")
MODEL = ("model.safetensors", "tokenizer.json", "default_view.json", "MODEL_CARD.md")  # what build.py train writes
GREEK = ("Τότε η βασίλισσα γύρισε στην Αλίκη και είπε", "είπε")


def train_command(corpus, out, sentence, query, *options):
    return [sys.executable, str(ROOT / "build.py"), "train", "--corpus", str(corpus), "--out", str(out),
            "--sentence", sentence, "--query", query, "--threads", "1", *options]


def train(*arguments, **options):
    """Run ``build.py train`` to its end: the CompletedProcess (text output)."""
    return subprocess.run(train_command(*arguments), capture_output=True, text=True, timeout=900, **options)


def english_corpus(folder):
    """About 240 KB of the shared corpus, cut at line ends: the start of two books."""
    folder.mkdir()
    for name in ("carroll-alice-in-wonderland.txt", "grahame-wind-in-the-willows.txt"):
        text = (CORPUS / name).read_text(encoding="utf-8")
        (folder / name).write_text(text[:text.index("\n", 120_000) + 1], encoding="utf-8")
    return folder


def greek_corpus(folder):
    """A short Greek text (about 40,000 characters), written here from a few sentence patterns."""
    names = ["Αλίκη", "Νίκος", "Μαρία", "Γιάννης", "Ελένη", "Πέτρος", "Σοφία", "Δημήτρης"]
    verbs = ["είπε", "ρώτησε", "φώναξε", "απάντησε", "ψιθύρισε"]
    who = ["η βασίλισσα", "ο βασιλιάς", "ο λαγός", "η γάτα", "ο μάγος"]
    places = ["στο δάσος", "στον κήπο", "στο ποτάμι", "στο παλάτι", "στην αγορά"]
    quotes = ["«Έλα εδώ αμέσως!»", "«Πού ήσουν;»", "«Τι παράξενο πράγμα!»", "«Θα πάω σπίτι τώρα.»"]
    rng = random.Random(23)
    lines = []
    while sum(map(len, lines)) < 40_000:
        name, verb, person, place, quote = (rng.choice(xs) for xs in (names, verbs, who, places, quotes))
        lines.append(rng.choice([
            f"Τότε {person} γύρισε στην {name} και {verb}: {quote}",
            f"{name} περπατούσε {place} και είδε {person}.",
            f"«Καλημέρα», {verb} {person} στον {name}, και η μέρα ήταν ζεστή {place}.",
        ]))
    folder.mkdir()
    (folder / "ιστορίες.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    return folder


def stop_with_ctrl_c(command):
    """Start ``command`` in its own process group, wait until its progress bar shows a step, then press
    Ctrl-C as a terminal does (SIGINT to the whole group). Returns (exit status, stdout, stderr)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = ""
    while not re.search(r"training:\s+\d+%\|[^|]*\|\s*[1-9]\d*/", seen):  # tqdm's "training:   3%|▎  | 2/60"
        char = process.stderr.read(1)
        assert char, f"training ended before it could be stopped: {seen[-2000:]}"
        seen += char
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=300)
    return process.returncode, stdout, seen + stderr


def card_numbers(card):
    """From a generated MODEL_CARD.md: the model's losses {split: nats/token} and the default view's
    weights [(token, percent str)]."""
    losses = {split: float(loss) for split, loss in re.findall(r"^\| (train|validation) \| [\d,]+ \| \*\*([\d.]+)\*\* \|", card, re.M)}
    view = card[card.index("## The default view"):]
    return losses, re.findall(r"^\| «(.*)» \| ([\d.]+%) \|$", view, re.M)


def check_card(model, corpus):
    """The model card's losses are the model's (PyTorch's cross-entropy over the whole split in 128-token
    windows, float16 weights, as test_sweep recomputes them), its default-view weights CPython's, and its
    corpus table the files' own."""
    import hashlib

    from tokenizers import Tokenizer
    from torch.nn import functional as F
    from training.corpus import load_corpus
    from training.export import reference_model

    card = (model / "MODEL_CARD.md").read_text(encoding="utf-8")
    losses, weights = card_numbers(card)
    reference = reference_model(str(model / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    for split, books in zip(("train", "validation"), load_corpus(corpus)):
        ids = np.concatenate([e.ids for e in tokenizer.encode_batch(books)])
        windows = [torch.tensor(ids[s:s + 129]) for s in range(0, len(ids) - 1, 128)]
        with torch.no_grad():
            total = sum(F.cross_entropy(reference(w[None, :-1])[0][0], w[1:], reduction="sum").item() for w in windows)
        assert losses[split] == pytest.approx(total / (len(ids) - 1), abs=0.0006), split  # printed to 3 decimals
    view = json.loads((model / "default_view.json").read_text(encoding="utf-8"))
    row = model_figure(model).analyse(view["text"])["attention"][view["layer"] - 1, view["head"] - 1, view["token"]]
    labels = view["precomputed"]["labels"]
    heaviest = np.argsort(-row[:view["token"]], kind="stable")[:3]
    assert weights == [(labels[k].lstrip("\u2423"), f"{row[k]:.1%}") for k in heaviest]
    for path in sorted(corpus.glob("*.txt")):
        assert f"| `{path.name}` | {path.stat().st_size:,} | `{hashlib.sha256(path.read_bytes()).hexdigest()}` |" in card


def check_in_the_page(playwright, model, dist):
    """Build the figure with ``model`` into ``dist`` (build.py's --model) and check it live in Chromium."""
    build.build(dist=dist, model=model)
    check_build_carries(dist, model)
    with serving(build.make_server(0, directory=dist)) as origin, browser_context(playwright) as context:
        watch = Watch(origin)
        figure_page = FigurePage(watch.page(watch.context(context).new_page()))
        figure_page.open(origin + "/")
        check_page_shows(figure_page, model)
        watch.check()


@pytest.fixture(scope="module")
def english_model(tmp_path_factory, corpus_dir):
    """A model trained on english_corpus with 60 steps: stopped by Ctrl-C part-way, then carried on by the
    same command. Returns (corpus, model folder, the first run's (status, stdout, stderr), the second's)."""
    folder = tmp_path_factory.mktemp("english")
    corpus, out = english_corpus(folder / "texts"), folder / "model"
    command = train_command(corpus, out, *ENGLISH, "--steps", "60")
    stopped = stop_with_ctrl_c(command)
    carried_on = subprocess.run(command, capture_output=True, text=True, timeout=900)
    return corpus, out, stopped, carried_on


def test_ctrl_c_keeps_the_run_and_the_same_command_carries_on(english_model):
    corpus, out, (status, stdout, _), carried_on = english_model
    assert status == 130, stdout
    stopped_at = int(re.search(r"stopped at step (\d+) of 60", stdout).group(1))
    assert 0 < stopped_at < 60
    assert carried_on.returncode == 0, carried_on.stderr
    assert f"carrying on from the stopped run, at step {stopped_at} of 60" in carried_on.stdout
    assert f"next: python3 build.py serve --model {out}" in carried_on.stdout
    assert sorted(p.name for p in out.iterdir()) == ["MODEL_CARD.md", "default_view.json", "model.safetensors", "tokenizer.json"]
    history = re.findall(r"^\| ([\d,]+) \| [\d.]+ \| [\d.]+ \|$", (out / "MODEL_CARD.md").read_text(encoding="utf-8"), re.M)
    assert history == ["0", "60"]  # one history across the two parts: evaluated at the start and the end


def test_an_english_model_in_the_page(english_model, playwright, tmp_path):
    corpus, out, _, _ = english_model
    check_first_paint_is_the_models(out)
    check_card(out, corpus)
    check_in_the_page(playwright, out, tmp_path / "dist")


def test_a_greek_model_in_the_page(tmp_path, playwright):
    """Greek texts for a course taught in French: the model folder records the figure's language, and the
    page opens in it (docs/languages.md)."""
    corpus, out = greek_corpus(tmp_path / "texts"), tmp_path / "model"
    done = train(corpus, out, *GREEK, "--steps", "30", "--lang", "fr")
    assert done.returncode == 0, done.stderr
    view = json.loads((out / "default_view.json").read_text(encoding="utf-8"))
    assert view["lang"] == "fr"
    assert view["precomputed"]["labels"][view["token"]] == "␣είπε"  # a Greek tokenizer's: the word is one token
    check_first_paint_is_the_models(out)
    check_card(out, corpus)
    check_in_the_page(playwright, out, tmp_path / "dist")


def course_model(*arguments):
    """``python -m training.course_model`` (what build.py train runs), for the bad inputs that stop before training."""
    return subprocess.run([sys.executable, "-m", "training.course_model", *arguments], capture_output=True, text=True,
                          timeout=300, cwd=ROOT / "py")


def kept(out):
    """What bad input must leave as it was in ``out``: the model's files and a stopped run's record (bytes).
    (A tokenizer trained before a sentence check failed stays in out/training/, to be reused.)"""
    files = [out / name for name in MODEL] + [out / "training" / "run.json"]
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in files if p.is_file()}


def bad_input(corpus, out, sentence="Then the Queen turned to Alice and said", query="said", *options):
    """Run with bad input: the message (stderr), after checking that the run failed and left ``out``'s
    model and stopped run as they were (none, where there were none)."""
    before = kept(out)
    done = course_model("--corpus", str(corpus), "--out", str(out), "--sentence", sentence, "--query", query, *options)
    assert done.returncode == 1 and done.stderr.startswith("build.py train: "), done.stderr
    assert kept(out) == before
    return done.stderr


def test_a_language_without_a_catalog_is_refused(texts, tmp_path):
    message = bad_input(texts, tmp_path / "model", "Then the Queen turned to Alice and said", "said", "--lang", "xx")
    assert "--lang xx: the figure has no words in that language; choose one of de, en, es, fr" in message


def test_an_empty_folder(tmp_path):
    (tmp_path / "texts").mkdir()
    assert "no *.txt files in" in bad_input(tmp_path / "texts", tmp_path / "model")


def test_too_little_text_says_how_much_is_needed(tmp_path):
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "short.txt").write_text("Alice said hello. " * 100, encoding="utf-8")
    message = bad_input(tmp_path / "texts", tmp_path / "model")
    assert "holds 1,800 characters of text; training needs at least 20,000" in message  # 100 × 18, less the last space, plus a line end


def test_a_file_that_is_not_utf8_is_named_with_its_byte_offset(tmp_path):
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "fine.txt").write_text("Alice said hello. " * 2000, encoding="utf-8")
    (tmp_path / "texts" / "latin1.txt").write_bytes("Alice said: café!".encode("latin-1"))
    message = bad_input(tmp_path / "texts", tmp_path / "model")
    assert "latin1.txt is not UTF-8: byte 15 (0xE9)" in message and "iconv" in message


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    """A corpus just large enough to train on (for the sentence checks, which need its tokenizer)."""
    folder = tmp_path_factory.mktemp("texts")
    (folder / "story.txt").write_text("Then the Queen turned to Alice and said hello to the King.\n\n" * 400, encoding="utf-8")
    return folder


def test_a_sentence_without_the_query_shows_its_tokens(texts, tmp_path):
    message = bad_input(texts, tmp_path / "model", "Then the Queen turned to Alice", "said")
    assert "does not contain the query 'said'" in message and "«Then» «␣the» «␣Queen»" in message


def test_a_sentence_longer_than_block_size(texts, tmp_path):
    message = bad_input(texts, tmp_path / "model", "Alice" + " and" * 200 + " said", "said")
    count = int(re.search(r"the sentence is (\d+) tokens long; the model reads at most 128 \(block_size\)", message).group(1))
    assert count == message.count("«") > 200 and message.count("«␣and»") == 200 and message.rstrip().endswith("«␣said»")  # each token shown


def test_the_query_may_not_start_the_sentence(texts, tmp_path):
    for sentence, query in (("Then the Queen turned to Alice", "Then"), ("Whispered the Queen to Alice", "Whispered")):
        message = bad_input(texts, tmp_path / "model", sentence, query)  # "Whispered" is not in the texts: its first piece starts it
        assert f"the query '{query}' is only at the start of the sentence" in message and "Choose a later word" in message


def test_a_folder_holding_a_model_is_kept_without_force_and_on_bad_input_with_it(texts, tmp_path):
    out = tmp_path / "model"
    out.mkdir()
    for name in MODEL:
        (out / name).write_bytes(b"a model")
    assert "already holds a model: pass --force to replace it" in bad_input(texts, out)
    assert "does not contain the query" in bad_input(texts, out, "Then the Queen turned to Alice", "said", "--force")
    assert "no such folder" in bad_input(tmp_path / "nowhere", out, "Then the Queen turned to Alice", "said", "--force")
    assert all((out / name).read_bytes() == b"a model" for name in MODEL)


def test_a_stopped_run_of_other_options_is_kept_until_force(texts, tmp_path):
    out = tmp_path / "model"
    (out / "training").mkdir(parents=True)
    corpus = [{"file": "story.txt", "bytes": 0, "sha256": "0" * 64}]
    asked = {"steps": 100, "minutes": None, "seed": 1337, "l1_attention_drop": 0.9}
    (out / "training" / "run.json").write_text(json.dumps({"corpus": corpus, "asked": asked, "recipe": {}}), encoding="utf-8")
    message = bad_input(texts, out, "Then the Queen turned to Alice and said", "said", "--steps", "200")
    assert "holds a stopped run of other texts or options (texts changed: story.txt; --steps 100 then, 200 now)" in message
    assert json.loads((out / "training" / "run.json").read_text(encoding="utf-8"))["asked"] == asked  # kept


def test_a_query_the_tokenizer_splits_is_its_last_piece(texts, tmp_path):
    from attention_live.tokenizer import Tokenizer
    from training.course_view import find_query
    from training.train_tokenizer import train_tokenizer

    tokenizer = Tokenizer.from_json(train_tokenizer([(texts / "story.txt").read_text(encoding="utf-8")], 2000).to_str())
    index, note = find_query(tokenizer, 128, "Then the Queen turned to Alice and whispered", "whispered")
    labels = [tokenizer.token_bytes[i] for i in tokenizer.encode("Then the Queen turned to Alice and whispered")]
    assert len(labels) > 8 and index == len(labels) - 1  # "whispered" is not in the texts: several pieces, the last one
    assert note.startswith("the tokenizer splits 'whispered' into ") and "the query is the last" in note


def test_a_model_folder_without_a_model_is_refused_by_the_build(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "tokenizer.json").write_text("{}", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "--model", str(tmp_path / "model")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert f"--model {tmp_path / 'model'}: no model.safetensors, default_view.json there" in done.stderr


def test_minutes_become_steps_with_the_evaluations_counted():
    from training.course_model import RECIPE, steps_for_minutes

    # 0.2 s a step; an evaluation every 250 steps costs 2 splits × 20 batches × 0.2 s / 3 = 2.67 s: 0.01067 s a step
    assert steps_for_minutes(20, 0.2, RECIPE) == 5696  # 1200 s / 0.2107 s
    assert steps_for_minutes(0.001, 0.2, RECIPE) == 1  # at least one step


def test_a_hard_wrapped_chinese_text_is_joined_without_spaces():
    from training.corpus import normalise

    assert normalise("王后转向爱丽丝，\n说：你好。\n\nThe Queen\nsaid\n") == "王后转向爱丽丝，说：你好。\n\nThe Queen said\n"


def test_odd_corpus_files_are_named(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "story.txt").write_text("Alice said hello to the Queen.\n\n" * 1000, encoding="utf-8")
    (folder / "chapter.txt").mkdir()  # a folder whose name ends in .txt
    assert f"{folder / 'chapter.txt'} is not a plain file" in bad_input(folder, tmp_path / "model")
    (folder / "chapter.txt").rmdir()
    (folder / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    assert f"{folder / 'gone.txt'} is not a plain file" in bad_input(folder, tmp_path / "model")
    (folder / "gone.txt").unlink()
    (folder / "one-line.txt").write_text("Alice said hello to the Queen. " * 2000, encoding="utf-8")  # no paragraph break: nothing held out
    (folder / "story.txt").unlink()
    assert "are held out for validation (at least 1,000 are needed)" in bad_input(folder, tmp_path / "model")
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    assert "--out" in bad_input(folder, tmp_path / "a-file") and "is a file" in bad_input(folder, tmp_path / "a-file")
