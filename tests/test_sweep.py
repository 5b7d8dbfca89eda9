"""training.sweep's selection rule picks what its docstring says, on hand-made checkpoints whose answer is
worked out by hand from the rule; and the judged numbers of a checkpoint are the ones the chapter's claims,
the held-out rate and the validation loss give for it."""

import pytest

pytest.importorskip("torch")

from training.sweep import Run, choose, choose_chapter, ended_early  # noqa: E402


def checkpoint(name, validation, alice, and_=0.05, queen=0.05, largest_l1=0.2, held_out=0.8):
    """A judged checkpoint as ``Judge.judge`` writes it (only the fields the rule reads)."""
    return {"run": {"name": name}, "validation": validation, "held_out": held_out,
            "focused": {"alice": alice, "and": and_, "queen": queen, "holds": alice >= 0.8 and alice > max(and_, queen)},
            "diffuse": {"largest": largest_l1, "holds": largest_l1 <= 0.35}}


def test_clause_1_ships_the_lowest_loss_among_eligible_checkpoints():
    records = [
        checkpoint("eligible, higher loss", 3.89, 0.90),
        checkpoint("eligible, lowest loss", 3.85, 0.81),
        checkpoint("lower loss, claim 1 missed", 3.80, 0.79),
        checkpoint("lower loss, held-out missed", 3.81, 0.95, held_out=0.69),
        checkpoint("lower loss, claim 2 missed", 3.82, 0.95, largest_l1=0.36),
        checkpoint("over the loss bound", 3.91, 0.99),
    ]
    chosen, clause = choose(records)
    assert (chosen["run"]["name"], clause) == ("eligible, lowest loss", 1)


def test_clause_2_ships_the_largest_alice_share_within_the_loss_bound():
    records = [
        checkpoint("75%, ahead", 3.88, 0.75),
        checkpoint("76% but behind «Queen»", 3.87, 0.76, queen=0.77),  # cannot hold: 0.76 + 0.77 > 1, but the rule must still rank it last
        checkpoint("78%, claim 2 missed", 3.86, 0.78, largest_l1=0.5),
        checkpoint("79%, loss too high", 3.95, 0.79),
        checkpoint("75%, ahead, lower loss", 3.84, 0.75),
    ]
    chosen, clause = choose(records)
    assert (chosen["run"]["name"], clause) == ("75%, ahead, lower loss", 2)


def test_clause_3_ships_the_lowest_loss():
    chosen, clause = choose([checkpoint("a", 3.95, 0.9), checkpoint("b", 3.93, 0.1), checkpoint("c", 3.92, 0.5, largest_l1=0.9)])
    assert (chosen["run"]["name"], clause) == ("c", 3)


def chapter_checkpoint(name, validation, alice=0.90, and_=0.01, queen=0.04, largest_l1=0.15, held_out=0.9, step=1000, entropy=0.0):
    """A judged checkpoint for issue 52's rule (its run's lever settings too)."""
    record = checkpoint(name, validation, alice, and_, queen, largest_l1, held_out)
    record["run"].update(l1_attention_drop=0.9, l2_attention_entropy=entropy)
    return {**record, "step": step}


def test_issue_52s_rule_ships_the_lowest_loss_among_checkpoints_that_meet_every_bound():
    records = [
        chapter_checkpoint("qualifies, higher loss", 3.99),
        chapter_checkpoint("qualifies at every bound's edge", 4.00, alice=0.88, and_=0.05, queen=0.05, largest_l1=0.20, held_out=0.85),
        chapter_checkpoint("qualifies, lowest loss, later", 3.97, step=3250),
        chapter_checkpoint("qualifies, lowest loss", 3.97, step=3000),
        chapter_checkpoint("87.9% on «Alice»", 3.90, alice=0.879),
        chapter_checkpoint("5.1% on «and»", 3.90, and_=0.051),
        chapter_checkpoint("5.1% on «Queen»", 3.90, queen=0.051),
        chapter_checkpoint("layer 1 at 20.1%", 3.90, largest_l1=0.201),
        chapter_checkpoint("held out 84.9%", 3.90, held_out=0.849),
        chapter_checkpoint("loss over 4.00", 4.001),
        chapter_checkpoint("entropy penalty: not the lever family", 3.80, entropy=0.05),
    ]
    chosen = choose_chapter(records)
    assert (chosen["run"]["name"], chosen["step"]) == ("qualifies, lowest loss", 3000)
    assert choose_chapter(records[4:]) is None
    edge = choose_chapter([records[1]])
    assert edge["run"]["name"] == "qualifies at every bound's edge"


def test_no_checkpoints_is_an_error():
    with pytest.raises(ValueError, match="no judged checkpoints"):
        choose([])


def test_a_judged_checkpoint_has_the_models_numbers(tmp_path, corpus_dir):
    import numpy as np
    import torch
    from tokenizers import Tokenizer
    from torch.nn import functional as F
    from training.chapter_claims import check_claims
    from training.corpus import load_corpus
    from training.export import reference_model
    from training.sweep import Judge

    from conftest import WEIGHTS

    model = reference_model(str(WEIGHTS / "model.safetensors"))  # the shipped model as a checkpoint: float16 values survive the round trip
    torch.save({"model": model.state_dict(), "config": model.config.to_dict(), "history": [{"step": 1234}]}, tmp_path / "ckpt-step01234.pt")
    judged = Judge(corpus_dir, WEIGHTS / "tokenizer.json").judge(tmp_path / "ckpt-step01234.pt")

    from attention_live.figure import Figure

    # a fresh Figure, as the judge's is: the session's one reuses the keys and values of whatever text an
    # earlier test left in its cache, which changes the last float32 bits
    fresh = Figure((WEIGHTS / "model.safetensors").read_bytes(), (WEIGHTS / "tokenizer.json").read_bytes())
    claims = check_claims(fresh)  # itself checked against PyTorch in test_chapter_claims.py
    assert judged["step"] == 1234 and judged["focused"] == claims["focused"] and judged["diffuse"] == claims["diffuse"]
    layer, head = (int(n) for n in claims["focused"]["head"].split("."))
    assert judged["held_out"] == judged["rates"][layer - 1][head - 1] and 0 < judged["held_out"] < 1
    ids = np.concatenate([e.ids for e in Tokenizer.from_file(str(WEIGHTS / "tokenizer.json")).encode_batch(load_corpus(corpus_dir)[1])])
    windows = [torch.tensor(ids[s:s + 129]) for s in range(0, len(ids) - 1, 128)]
    with torch.no_grad():  # the whole split in consecutive 128-token windows, each token's loss counted once
        total = sum(F.cross_entropy(model(w[None, :-1])[0][0], w[1:], reduction="sum").item() for w in windows)
    assert judged["validation"] == pytest.approx(total / (len(ids) - 1), abs=1e-5)
    assert not list(tmp_path.glob("*.safetensors"))  # the judge's export is removed


def test_a_run_whose_last_checkpoint_is_before_its_last_step_ended_early(tmp_path):
    run = Run(0.9, 1, 0.1, 5000, 0.0, 3000, 3000, 0.0)
    kept = [tmp_path / f"ckpt-step{step:05d}.pt" for step in range(0, 1001, 250)]
    assert ended_early(run, kept)
    assert not ended_early(run, kept + [tmp_path / "ckpt-step05000.pt"])
    assert ended_early(run, [])


def test_a_run_of_the_plan_speaks_the_recipes_vocabulary():
    """The sweep's Run and training.train's Recipe share one vocabulary: each field of a Run is the Recipe
    field of that name, given to training.train as the option of that name; and the run the rule chose is
    build.py train's recipe (course_model.RECIPE), its seed aside."""
    from dataclasses import fields, replace
    from types import SimpleNamespace

    from training.course_model import RECIPE
    from training.sweep import PLAN, run_name, train_command
    from training.train import Recipe

    assert set(Run._fields) <= {field.name for field in fields(Recipe)}
    for run in PLAN:
        recipe = Recipe(**run._asdict())
        command, _ = train_command(SimpleNamespace(runs="runs", corpus="corpus", tokenizer="tokenizer.json"), run)
        options = command[command.index("--out") + 2:command.index("--threads")]
        given = {name.removeprefix("--").replace("-", "_"): value for name, value in zip(options[::2], options[1::2])}
        assert given == {name: str(getattr(recipe, name)) for name, value in run._asdict().items() if value is not None}
    (shipped,) = [run for run in PLAN if run_name(*run) == "p0.9-until3000-seed1-dropout0.05from3000-attention0.0-5000"]
    assert Recipe(**shipped._asdict()) == replace(RECIPE, seed=1)
