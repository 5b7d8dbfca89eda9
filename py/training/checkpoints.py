"""The shipped run's checkpoints, for the figure's "Watch it learn" control: ``weights/checkpoints/``.

The shipped model's run (the model card's command, with ``--keep-checkpoints``) keeps a checkpoint
at every evaluation. This picks the steps where the chapter's story turns, by the rule below (written
before any of the run's numbers were looked at), and exports each as the page's model files are
exported (``training.export``: float16, nanoGPT's names, ``lm_head`` tied), with:

* the heads in the order of the run's last checkpoint relabelled for the chapter
  (``training.relabel_heads.chapter_orders``), the same order at every step, so that a head keeps its
  place through training: layer 2, head 3 is always the head that ends up finding «Alice»;
* ``__metadata__``: ``config`` and ``tokenizer_sha256`` as the model's, ``step`` (the training step,
  decimal) and ``validation`` (the whole validation split's mean cross-entropy in nats per token with
  the exported float16 weights, ``training.evaluate.model_loss``, as the model card's losses are measured).

The rule, in the run's evaluations (every ``--eval-interval`` steps):

1. step 0, the random start;
2. ``F``: the first evaluation at which layer 2, head 3 gives «said» more weight on «Alice» than on any
   other key of the default sentence (the head finds the name), and the evaluation before it;
3. ``H``: the first evaluation at which that head gives «Alice» at least half of «said»'s weight;
4. the middle of the first lever (stochastic depth on layer 1's attention), rounded to an evaluation;
5. the lever's last step (``--l1-attention-drop-until``), where layer 1's attention comes back on for good;
   for a run whose lever lasts to its end (no ``--l1-attention-drop-until``; issue 52's model), the run's
   last kept step, so that 4 is the middle of the steps shown;
6. 500 steps after it: what layer 1 does with its attention back (none past the last kept step);
7. the run's last step: the shipped model.

Steps named twice are kept once. The last step is the shipped model: with ``--shipped``, its file is
compared tensor by tensor with the run's last checkpoint exported this way, and if they are equal it
gets the same ``step`` and ``validation`` metadata (its tensors unchanged) instead of a second copy in
``--out``; if they differ the script stops and says by how much. Usage (from ``py/``)::

    python -m training.checkpoints --run ../runs/checkpoints/ckpt.pt --corpus ../../shared/corpus \\
        --tokenizer ../weights/tokenizer.json --out ../weights/checkpoints --shipped ../weights/model.safetensors [--report]
"""

import argparse
import hashlib
import json
import os
import tempfile

import torch
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer

from attention_live.figure import Figure
from training.chapter_claims import check_claims
from training.corpus import load_corpus
from training.evaluate import model_loss
from training.export import export, reference_model
from training.relabel_heads import chapter_orders, relabel_file
from training.train import encode_split, step_checkpoint_path

FOCUSED_HEAD, DIFFUSE_HEAD = "2.3", "1.1"  # the chapter's heads, once relabelled


def evaluated_steps(run):
    """The steps whose checkpoints ``--keep-checkpoints`` kept beside ``run`` (sorted list of int)."""
    folder, stem = os.path.split(os.path.splitext(run)[0])
    steps = []
    for name in os.listdir(folder or "."):
        if name.startswith(stem + "-step") and name.endswith(".pt"):
            steps.append(int(name[len(stem) + 5:-3]))
    return sorted(steps)


def exported(run, step, tokenizer_path, orders, out):
    """Export the checkpoint of ``step`` to ``out`` with its heads reordered by ``orders`` ({layer: order},
    0-based); returns the Figure of the file."""
    export(step_checkpoint_path(run, step), tokenizer_path, out)
    if orders:
        relabel_file(out, out, orders)
    with open(out, "rb") as model, open(tokenizer_path, "rb") as tokenizer:
        return Figure(model.read(), tokenizer.read())


def story(figure):
    """What the rule reads at one checkpoint: «said»'s weights in layer 2, head 3, and for the report the
    largest weight layer 1, head 1 (the chapter's diffuse head, once relabelled) gives any key (dict of
    floats, probabilities)."""
    claims = check_claims(figure)
    focused = claims["heads"][FOCUSED_HEAD]
    return {"alice": focused["alice"], "others": max(focused["and"], focused["queen"]), "largest": focused["largest"],
            "diffuse_largest": claims["heads"][DIFFUSE_HEAD]["largest"]}


def chosen_steps(steps, stories, lever_until):
    """The rule's steps (sorted list of int) among the evaluated ``steps``, from ``stories`` ({step: story})."""
    finds = [s for s in steps if stories[s]["alice"] >= stories[s]["largest"]]
    half = [s for s in steps if stories[s]["alice"] >= 0.5]
    chosen = {steps[0], steps[-1]}
    if finds:
        chosen |= {finds[0], steps[max(0, steps.index(finds[0]) - 1)]}
    if half:
        chosen.add(half[0])
    for target in (lever_until // 2, lever_until, lever_until + 500):
        chosen.add(min(steps, key=lambda s: abs(s - target)))
    return sorted(chosen)


def same_as_shipped(exported_path, shipped_path):
    """Raise SystemExit, saying the largest difference, unless the two files hold the same tensors."""
    a, b = load_file(exported_path), load_file(shipped_path)
    if set(a) != set(b) or any(not torch.equal(a[k], b[k]) for k in a):
        worst = max(((a[k].float() - b[k].float()).abs().max().item() for k in a if k in b), default=float("nan"))
        raise SystemExit(f"the run's last checkpoint is not the shipped model (largest difference {worst:g}): "
                         "the shipped model stays as it is, and these checkpoints are of another run")


def main():
    parser = argparse.ArgumentParser(description="Export the shipped run's checkpoints for the figure's 'Watch it learn'.")
    parser.add_argument("--run", required=True, help="the run's --out (its kept checkpoints are beside it: NAME-stepNNNNN.pt)")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--out", required=True, help="folder to write step-NNNNN.safetensors into")
    parser.add_argument("--shipped", help="the shipped model.safetensors: the run's last step, given its step and validation")
    parser.add_argument("--report", action="store_true", help="print the rule's numbers at every evaluation")
    args = parser.parse_args()
    steps = evaluated_steps(args.run)
    recipe = torch.load(step_checkpoint_path(args.run, steps[-1]), map_location="cpu", weights_only=True)["recipe"]
    with tempfile.TemporaryDirectory() as scratch:
        last = exported(args.run, steps[-1], args.tokenizer, {}, os.path.join(scratch, "last.safetensors"))
        orders = chapter_orders(check_claims(last), last.config.n_head)
        stories = {step: story(exported(args.run, step, args.tokenizer, orders, os.path.join(scratch, "s.safetensors"))) for step in steps}
    if args.report:
        for step in steps:
            s = stories[step]
            print(f"{step:5d}  L2H3 «Alice» {s['alice']:6.1%}  next {s['others']:6.1%}  largest {s['largest']:6.1%}  L1H1 largest {s['diffuse_largest']:6.1%}")
    lever_until = recipe["l1_attention_drop_until"]
    if lever_until is None:  # the lever lasts the whole run (or there is none: 0)
        lever_until = steps[-1] if recipe["l1_attention_drop"] > 0 else 0
    chosen = chosen_steps(steps, stories, lever_until)
    tokenizer = Tokenizer.from_file(args.tokenizer)
    validation = encode_split(tokenizer, load_corpus(args.corpus)[1])
    with open(args.tokenizer, "rb") as f:
        tokenizer_sha256 = hashlib.sha256(f.read()).hexdigest()
    os.makedirs(args.out, exist_ok=True)
    for step in chosen:
        out = os.path.join(args.out, f"step-{step:05d}.safetensors")
        exported(args.run, step, args.tokenizer, orders, out)
        if args.shipped and step == steps[-1]:
            same_as_shipped(out, args.shipped)
            os.replace(out, args.shipped)  # the same tensors: the shipped file, now saying its step
            out = args.shipped
        loss = model_loss(reference_model(out), validation)
        tensors = load_file(out)
        config = json.dumps(torch.load(step_checkpoint_path(args.run, step), map_location="cpu", weights_only=True)["config"])
        save_file(tensors, out, metadata={"config": config, "tokenizer_sha256": tokenizer_sha256,
                                          "step": str(step), "validation": f"{loss:.4f}"})
        os.chmod(out, 0o644)  # safetensors writes 0600: these are served
        print(f"step {step:5d}: validation {loss:.4f} nats/token, L2H3 «Alice» {stories[step]['alice']:.1%} -> {out}")


if __name__ == "__main__":
    main()
