"""The shipped run's checkpoints (weights/checkpoints/) in CPython: each file's attention equals PyTorch's
on the same weights, each loads into the shipped Figure (the tokenizer shared) and switches back, and all
of them together stay within 25 MB; the files say their step and validation loss."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_live.figure import Figure  # noqa: E402
from conftest import WEIGHTS  # noqa: E402
from safetensors import safe_open  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from training.corpus import load_corpus  # noqa: E402
from training.train import encode_split  # noqa: E402
from training.evaluate import model_loss  # noqa: E402
from training.export import reference_model  # noqa: E402

CHECKPOINTS = sorted((WEIGHTS / "checkpoints").glob("step-*.safetensors"))
TEXTS = ('Then the Queen turned to Alice and said, "Off with her head!"', "The Rabbit took a watch out of its pocket, and looked at it.")
MEMORY_BOUND = 25 * 2**20  # bytes: every checkpoint loaded at once (issue 44)


def metadata(path):
    with safe_open(str(path), framework="numpy") as f:
        return f.metadata()


def step_of(path):
    return int(metadata(path)["step"])


@pytest.fixture(scope="module")
def loaded():
    """The shipped Figure with every checkpoint added."""
    model = Figure((WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes())
    for path in CHECKPOINTS:
        model.add_checkpoint(step_of(path), path.read_bytes())
    return model


def test_the_run_is_shipped_with_its_checkpoints():
    steps = [step_of(path) for path in CHECKPOINTS]
    shipped = metadata(WEIGHTS / "model.safetensors")
    assert 6 <= len(steps) + 1 <= 10 and steps[0] == 0
    assert steps == sorted(steps) and steps[-1] < int(shipped["step"])
    for path in CHECKPOINTS:
        assert path.name == f"step-{step_of(path):05d}.safetensors"
        assert (metadata(path)["config"], metadata(path)["tokenizer_sha256"]) == (shipped["config"], shipped["tokenizer_sha256"])


@pytest.mark.parametrize("path", CHECKPOINTS, ids=lambda path: path.stem)
def test_each_checkpoint_equals_pytorch(loaded, path):
    """attention_live's numpy forward pass on a checkpoint, switched to in a view of the shipped model,
    against training.gpt (PyTorch) on the same file."""
    reference = reference_model(str(path))
    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    view = loaded.another_view()
    for text in TEXTS:
        got = view.analyse(text, step=step_of(path))
        assert got["step"] == step_of(path)
        with torch.no_grad():
            _, _, attention = reference(torch.tensor([tokenizer.encode(text).ids]))
        want = torch.stack(attention)[:, 0].numpy()
        assert float(np.max(np.abs(got["attention"] - want))) <= 1e-5, text


def test_a_view_switches_back_to_the_shipped_model(loaded):
    fresh = Figure((WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes())
    view = loaded.another_view()
    first = step_of(CHECKPOINTS[0])
    early = view.analyse(TEXTS[0], step=first)["attention"]
    back = view.analyse(TEXTS[0])
    assert back["step"] is None
    np.testing.assert_array_equal(back["attention"], fresh.analyse(TEXTS[0])["attention"])
    assert float(np.max(np.abs(early - back["attention"]))) > 0.01  # the start differs from the end
    assert view.analyse(TEXTS[0], step=loaded.step)["step"] is None  # the shipped model's own step is the model


def test_every_checkpoint_together_stays_within_25_mb(loaded):
    arrays = {}

    def walk(tree):
        if isinstance(tree, dict):
            for value in tree.values():
                walk(value)
        elif isinstance(tree, list):
            for value in tree:
                walk(value)
        else:
            arrays[id(tree)] = tree.nbytes

    walk(loaded._model)
    for step in loaded.checkpoints:
        walk(loaded._checkpoints[step])
    assert sum(arrays.values()) <= MEMORY_BOUND, f"{sum(arrays.values()) / 2**20:.1f} MB"


def test_a_wrong_or_damaged_checkpoint_is_refused(loaded):
    path = CHECKPOINTS[1]
    data = path.read_bytes()
    with pytest.raises(ValueError, match="says it is step"):
        loaded.add_checkpoint(step_of(path) + 1, data)
    with pytest.raises(ValueError, match="damaged"):
        loaded.add_checkpoint(step_of(path), data, model_sha256="0" * 64)
    with pytest.raises(ValueError, match="not a loaded checkpoint"):
        loaded.another_view().analyse(TEXTS[0], step=step_of(path) + 1)


def test_the_recorded_validation_loss_is_the_whole_split(corpus_dir):
    """The validation in each file's metadata is training.evaluate's whole-split loss (two files checked:
    the random start and the shipped model, the model card's number)."""
    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    validation = encode_split(tokenizer, load_corpus(str(corpus_dir))[1])
    for path in (CHECKPOINTS[0], WEIGHTS / "model.safetensors"):
        recorded = float(metadata(path)["validation"])
        assert abs(model_loss(reference_model(str(path)), validation) - recorded) <= 5e-4, path.name
    assert json.loads(metadata(CHECKPOINTS[0])["config"])["n_layer"] == 2
