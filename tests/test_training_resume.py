"""A training run stopped between two steps (Ctrl-C, ``training.train.StopOnInterrupt``) and carried on from
its checkpoint computes exactly what the run never stopped computes: the same weights, bit for bit, and the
same loss history. Its checkpoint refuses another recipe or other data."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.train import Recipe, ResumeError, train  # noqa: E402

RECIPE = Recipe(max_iters=12, batch_size=4, warmup=3, eval_interval=5, eval_batches=2, dropout=0.1, l1_attention_drop=0.5)
VOCAB = 60


@pytest.fixture(scope="module")
def splits():
    ids = np.random.default_rng(0).integers(0, VOCAB, 3000)
    return {"train": ids[:2500], "validation": ids[2500:]}


def stop_before(step):
    """A ``should_stop`` that answers True when asked before step ``step`` (it is asked once per step)."""
    asked = iter(range(10_000))
    return lambda: next(asked) == step


def test_a_run_stopped_and_carried_on_equals_the_run_never_stopped(splits, tmp_path):
    torch.set_num_threads(1)
    straight, straight_history, stopped_at = train(RECIPE, splits, VOCAB, tmp_path / "straight.pt")
    assert stopped_at is None and [h["step"] for h in straight_history] == [0, 5, 10, 12]
    for step in (3, 5, 11):  # between evaluations, at one (its loss already measured), just before the end
        out = tmp_path / f"stopped{step}.pt"
        _, history, stopped_at = train(RECIPE, splits, VOCAB, out, should_stop=stop_before(step))
        assert stopped_at == step and history[-1]["step"] <= step
        resumed, history, stopped_at = train(RECIPE, splits, VOCAB, out, resume=True)
        assert stopped_at is None
        assert [(h["step"], h["train"], h["validation"]) for h in history] == [(h["step"], h["train"], h["validation"]) for h in straight_history]
        for name, tensor in straight.state_dict().items():
            assert torch.equal(resumed.state_dict()[name], tensor), (step, name)


def test_resume_without_a_checkpoint_starts_from_the_seed(splits, tmp_path):
    a, _, _ = train(RECIPE, splits, VOCAB, tmp_path / "a.pt")
    b, _, _ = train(RECIPE, splits, VOCAB, tmp_path / "b.pt", resume=True)
    assert all(torch.equal(a.state_dict()[k], v) for k, v in b.state_dict().items())


def test_a_checkpoint_of_another_recipe_or_other_data_is_refused(splits, tmp_path):
    out = tmp_path / "run.pt"
    train(RECIPE, splits, VOCAB, out, should_stop=stop_before(2))
    other = Recipe(**{**RECIPE.__dict__, "seed": 7})
    with pytest.raises(ResumeError, match="seed 1337 \\(now 7\\)"):
        train(other, splits, VOCAB, out, resume=True)
    with pytest.raises(ResumeError, match="trained on other text"):
        train(RECIPE, {"train": splits["train"][:2000], "validation": splits["validation"]}, VOCAB, out, resume=True)
