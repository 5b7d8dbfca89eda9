"""The sweep behind the shipped model: train candidates, judge every checkpoint, choose by a fixed rule.

Issue 9 found that in plain runs layer-1 heads learn to find the name themselves and layer 2's
share on «Alice» fades; issue 19's lever is stochastic depth on layer 1's attention branch
(``training.train --l1-attention-drop P``); a second, tried on top of it, is a penalty on layer 2's
attention entropy (``--l2-attention-entropy W``); a third ends the first part-way through the run
(early stochastic depth, ``--l1-attention-drop-until STEP``). This script trains the runs of ``PLAN`` (each with
``--keep-checkpoints``, so every evaluation, each 250 steps, is a candidate), then judges every
checkpoint on:

* the chapter's claims (``training.chapter_claims``) on the default sentence;
* the held-out rate (``training.held_out_rate``, 60 sentences) of the layer-2 head the claims pick;
* the validation loss on the whole split (``training.evaluate.model_loss``, nats/token, with the
  float16 weights the page would download).

Each judged checkpoint is one JSON line of ``--results`` (appended as soon as it is judged, so a sweep
cut short keeps what it measured and a later call skips the runs already there). ``choose`` applies
the selection rule below; ``--report`` prints the sweep tables of ``weights/SWEEP_RECORD.md`` and the choice.

The selection rule, committed before any candidate of issue 19 was judged:

1. A checkpoint is *eligible* when it meets claim 1 (a layer-2 head gives «Alice» at least 80% of
   «said»'s attention, more than «and» and «Queen»), claim 2 (a layer-1 head gives no key more than
   35%), has validation loss at most VALIDATION_BOUND (3.90 nats/token, whole split) and its claim-1
   head finds the name in at least HELD_OUT_BOUND (70%) of the held-out sentences. Among eligible
   checkpoints, the one with the lowest validation loss is shipped.
2. If none is eligible: among checkpoints within the loss bound that meet claim 2, the one whose
   focused head gives «Alice» the largest share (with «Alice» ahead of «and» and «Queen»; ties: the
   lower validation loss); the model card then says by how much each number misses.
3. If no checkpoint is within the loss bound: the one with the lowest validation loss.

Usage (from ``py/``; two training runs at a time, one thread each, uses both cores)::

    python -m training.sweep --corpus ../../shared/corpus --tokenizer ../weights/tokenizer.json \\
        --runs ../runs/sweep --results ../weights/sweep.jsonl [--parallel 2] [--only NAME ...]
    python -m training.sweep --results ../weights/sweep.jsonl --report
"""

import argparse
import json
import os
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

import torch
from tokenizers import Tokenizer

from attention_live.figure import Figure
from training.chapter_claims import check_claims, layer_and_head
from training.corpus import load_corpus
from training.evaluate import model_loss
from training.export import export, reference_model
from training.held_out_rate import corpus_vocabulary, head_rates, sentences
from training.train import encode_split

VALIDATION_BOUND = 3.90  # nats/token on the whole validation split (bigram baseline: 4.434)
HELD_OUT_BOUND = 0.70  # least share of held-out sentences in which the claim-1 head finds the name
HELD_OUT_SENTENCES = 60


def run_name(l1_attention_drop, seed, dropout, max_iters, l2_attention_entropy=0.0, l1_attention_drop_until=None,
             dropout_from=None, attention_dropout=None):
    """A run's name from its settings (a Run's fields, in order): ``run_name(0.5, 1337, 0.1, 3000) == "p0.5-seed1337-dropout0.1-3000"``,
    ``run_name(0.5, 1, 0.0, 3000, 0.05) == "p0.5-seed1-dropout0.0-3000-entropy0.05"``,
    ``run_name(0.9, 1, 0.0, 5000, 0.0, 3500) == "p0.9-until3500-seed1-dropout0.0-5000"``,
    ``run_name(0.9, 1, 0.05, 5000, 0.0, 3000, 3000) == "p0.9-until3000-seed1-dropout0.05from3000-5000"``,
    ``run_name(0.9, 1, 0.05, 5000, 0.0, 3000, 3000, 0.0) == "p0.9-until3000-seed1-dropout0.05from3000-attention0.0-5000"``."""
    return (f"p{l1_attention_drop}" + (f"-until{l1_attention_drop_until}" if l1_attention_drop_until is not None else "")
            + f"-seed{seed}-dropout{dropout}" + (f"from{dropout_from}" if dropout_from is not None else "")
            + (f"-attention{attention_dropout}" if attention_dropout is not None else "") + f"-{max_iters}"
            + (f"-entropy{l2_attention_entropy}" if l2_attention_entropy else ""))


# One run of the plan: the training.train Recipe fields that the plan varies, under Recipe's names (each is
# also training.train's option of that name: --l1-attention-drop, --max-iters, ...); the rest of a run's
# recipe is Recipe's defaults. None: the whole run (l1_attention_drop_until, dropout_from), or --dropout's
# (attention_dropout)
Run = namedtuple("Run", "l1_attention_drop seed dropout max_iters l2_attention_entropy "
                        "l1_attention_drop_until dropout_from attention_dropout", defaults=(None, None, None))


# Runs (see Run), in the order they are trained. Why each group was added, after what the runs before it
# showed: weights/SWEEP_RECORD.md, "The plan, run by run" (the numbers below are its items)
PLAN = [(p, 1337, dropout, 3000, 0.0) for dropout in (0.0, 0.1) for p in (0.5, 0.7, 0.3, 0.9)]  # 1: issue 19's grid
PLAN += [(p, seed, dropout, 3000 if (seed, dropout) == (1, 0.0) else 1500, 0.0) for dropout in (0.0, 0.1) for seed in (1, 2)
         for p in (0.7, 0.9, 0.5, 0.3)]  # 2: the other seeds' grid runs
PLAN += [(0.5, 1337, 0.0, 3000, 0.05),  # 3: a penalty on layer 2's attention entropy; stopped at step 1,750
         (0.7, 1337, 0.0, 3000, 0.01)]  # stopped at step 1,250
PLAN += [(0.9, seed, 0.0, 5000, 0.0) for seed in (1, 1337)]  # 4: longer runs
PLAN += [(0.9, 1, 0.0, 6000, 0.0)]  # 5
PLAN += [(0.9, 1, 0.05, 5000, 0.0), (0.9, 2, 0.0, 5000, 0.0)]  # 6
PLAN += [(0.9, 1337, 0.05, 5000, 0.0)]  # 7
PLAN += [(0.9, 1, 0.0, 5000, 0.0, until) for until in (3000, 3500)]  # 8: early stochastic depth
PLAN += [(0.9, 1, dropout, 5000, 0.0, 3000, 3000) for dropout in (0.05, 0.1)]  # 9: late dropout
# 10: late dropout on the residual branches only (0.1 stopped at step 1,000)
PLAN += [(0.9, 1, dropout, 5000, 0.0, 3000, 3000, 0.0) for dropout in (0.05, 0.1)]
PLAN = [Run(*settings) for settings in PLAN]


class Judge:
    """Judges checkpoints against the corpus: holds the validation split's token ids and the held-out
    sentences, so that each checkpoint costs one export and three measurements."""

    def __init__(self, corpus, tokenizer_path):
        self.tokenizer_path = Path(tokenizer_path)
        self.tokenizer_bytes = self.tokenizer_path.read_bytes()
        train, validation = load_corpus(corpus)
        self.validation = encode_split(Tokenizer.from_file(str(tokenizer_path)), validation)
        names, verbs, titles = corpus_vocabulary("\n".join(train + validation))
        self.sentences = sentences(names[:30], verbs, titles[:20])

    def judge(self, checkpoint):
        """Measure one checkpoint (a ``training.train`` .pt file). Returns a dict, JSON-ready:
        ``step``, ``validation`` (nats/token, whole split, float16 weights), ``focused`` and
        ``diffuse`` as ``check_claims`` gives them (probabilities; ``holds``), ``held_out`` (the
        focused head's rate: share of HELD_OUT_SENTENCES sentences) and ``rates`` (every head's,
        [n_layer][n_head])."""
        weights = Path(checkpoint).with_suffix(".safetensors")
        export(checkpoint, self.tokenizer_path, weights)
        figure = Figure(weights.read_bytes(), self.tokenizer_bytes)
        claims = check_claims(figure)
        rates, used = head_rates(figure, self.sentences, HELD_OUT_SENTENCES)
        assert len(used) == HELD_OUT_SENTENCES, f"only {len(used)} held-out sentences"
        layer, head = layer_and_head(claims["focused"]["head"])
        with torch.no_grad():
            validation = model_loss(reference_model(str(weights)), self.validation)
        weights.unlink()
        step = torch.load(checkpoint, map_location="cpu", weights_only=True)["history"][-1]["step"]
        return {"step": step, "validation": round(validation, 6), "focused": claims["focused"], "diffuse": claims["diffuse"],
                "held_out": round(float(rates[layer - 1, head - 1]), 4), "rates": rates.round(4).tolist()}


def meets(record):
    """Which of the four bounds of the selection rule a judged checkpoint meets: dict of bool."""
    return {"claim 1": record["focused"]["holds"], "claim 2": record["diffuse"]["holds"],
            "validation": record["validation"] <= VALIDATION_BOUND, "held out": record["held_out"] >= HELD_OUT_BOUND}


def choose(records):
    """The checkpoint the selection rule ships (see the module docstring): one of ``records``
    (judged checkpoints, each with its ``run``), and the rule's clause that chose it (1, 2 or 3).
    Raises ValueError for no records."""
    if not records:
        raise ValueError("no judged checkpoints")
    eligible = [r for r in records if all(meets(r).values())]
    if eligible:
        return min(eligible, key=lambda r: r["validation"]), 1
    within = [r for r in records if meets(r)["validation"] and meets(r)["claim 2"]]
    if within:
        def ahead(r):
            f = r["focused"]
            return f["alice"] > max(f["and"], f["queen"])
        return max(within, key=lambda r: (ahead(r), r["focused"]["alice"], -r["validation"])), 2
    return min(records, key=lambda r: r["validation"]), 3


# Issue 52's rule (weights/MODEL_CARD.md, "Issue 52's rule: the chapter, exactly"), written before any
# checkpoint was judged by it: on the chapter's sentence, the layer-2 head relabelled as head 3 (the claim-1
# head: most of «said»'s weight on «Alice») gives «Alice» at least "alice" and «and» and «Queen» at most
# "others" each; layer 1, head 1 (relabelled: the layer-1 head whose largest weight is smallest) gives no key
# more than "diffuse"; the claim-1 head's held-out rate is at least "held_out"; validation at most "validation"
CHAPTER_RULE = {"alice": 0.88, "others": 0.05, "diffuse": 0.20, "held_out": 0.85, "validation": 4.00}


def in_lever_family(record):
    """Whether a judged checkpoint's run is of the shipped model's lever family: stochastic depth on layer
    1's attention (every run of the sweep), with or without dropout, an early end and late dropout; not
    the runs with an entropy penalty on layer 2, a lever that was not shipped."""
    return record["run"]["l1_attention_drop"] > 0 and not record["run"].get("l2_attention_entropy")


def chapter_bounds(record):
    """Which bounds of CHAPTER_RULE a judged checkpoint meets: dict of bool."""
    f, rule = record["focused"], CHAPTER_RULE
    return {"«Alice»": f["alice"] >= rule["alice"], "«and», «Queen»": max(f["and"], f["queen"]) <= rule["others"],
            "layer 1": record["diffuse"]["largest"] <= rule["diffuse"], "held out": record["held_out"] >= rule["held_out"],
            "validation": record["validation"] <= rule["validation"]}


def choose_chapter(records):
    """Issue 52's choice among ``records`` (judged checkpoints): the checkpoint of the lever family that
    meets every bound of CHAPTER_RULE with the lowest validation loss (ties: the earlier step), or None."""
    qualifying = [r for r in records if in_lever_family(r) and all(chapter_bounds(r).values())]
    return min(qualifying, key=lambda r: (r["validation"], r["step"])) if qualifying else None


def train_command(args, run):
    """The ``training.train`` command line of one run of the plan (a Run: each field is given as the
    training.train option of its name, none where it is None), and the checkpoint it writes."""
    out = Path(args.runs) / run_name(*run) / "ckpt.pt"
    recipe = [part for name, value in run._asdict().items() if value is not None for part in (f"--{name.replace('_', '-')}", str(value))]
    return [sys.executable, "-m", "training.train", "--corpus", args.corpus, "--tokenizer", args.tokenizer, "--out", str(out),
            *recipe, "--threads", "1", "--keep-checkpoints"], out


def ended_early(run, checkpoints):
    """Whether a run (a Run) stopped before its last step, from its kept checkpoints (``--keep-checkpoints``
    paths, ``ckpt-step01250.pt``, in order; one is kept at every evaluation, the last step's included)."""
    return not checkpoints or int(checkpoints[-1].stem.removeprefix("ckpt-step")) < run.max_iters


def judge_run(judge, run, out, results, every=None, rerun=None):
    """Judge every kept checkpoint of a run (a Run), appending one line per checkpoint to ``results``; a run
    whose last checkpoint comes before its last step is recorded as stopped. ``every``: only the
    checkpoints of steps that are a multiple of it (the sweep's 250, for a run evaluated more often), and
    the last; ``rerun``: a run of the plan trained again, recorded under its name with " (rerun RERUN)"."""
    checkpoints = sorted(out.parent.glob("ckpt-step*.pt"))
    stopped = ended_early(run, checkpoints)
    step_of = lambda path: int(path.stem.removeprefix("ckpt-step"))  # noqa: E731
    if every:
        checkpoints = [c for c in checkpoints if step_of(c) % every == 0 or c == checkpoints[-1]]
    for checkpoint in checkpoints:
        record = {"run": {"name": run_name(*run) + (f" (rerun {rerun})" if rerun else ""), "l1_attention_drop": run.l1_attention_drop,
                          "l1_attention_drop_until": run.l1_attention_drop_until, "seed": run.seed, "dropout": run.dropout,
                          "dropout_from": run.dropout_from, "attention_dropout": run.attention_dropout,
                          "steps": run.max_iters,  # sweep.jsonl's name for max_iters, kept for the 494 lines judged before
                          "l2_attention_entropy": run.l2_attention_entropy, "stopped": stopped},
                  **judge.judge(checkpoint)}
        with open(results, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        print(format_row(record), flush=True)


def lever(run):
    """The P column of the sweep tables: ``0.9``, or ``0.9 until 3,500`` for early stochastic depth."""
    until = run.get("l1_attention_drop_until")
    return f"{run['l1_attention_drop']}" + (f" until {until:,}" if until is not None else "")


def dropout(run):
    """The dropout column of the sweep tables: ``0.05``, or ``0.05 from 3,000`` for late dropout."""
    start, attention = run.get("dropout_from"), run.get("attention_dropout")
    return (f"{run['dropout']}" + (f" from {start:,}" if start is not None else "")
            + (f", attention weights {attention}" if attention is not None else ""))


def format_row(record):
    """One line of the sweep table (Markdown) for a judged checkpoint."""
    run, f, d = record["run"], record["focused"], record["diffuse"]
    met = ", ".join(name for name, ok in meets(record).items() if ok) or "none"
    return (f"| {lever(run)} | {run.get('l2_attention_entropy', 0.0)} | {run['seed']} | {dropout(run)} | "
            f"{run['steps']:,}{' (stopped)' if run.get('stopped') else ''} | {record['step']:,} | "
            f"{record['validation']:.3f} | {f['head']}: {f['alice']:.1%} / {f['and']:.1%} / {f['queen']:.1%} | "
            f"{d['largest']:.1%} | {record['held_out']:.0%} | {met} |")


def read_results(path):
    """The judged checkpoints of a results file (list of dicts; none if it does not exist)."""
    path = Path(path)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line] if path.exists() else []


def run_summaries(records):
    """One row per run (Markdown), in the order judged: its settings, checkpoints judged, validation
    at its last checkpoint, and the spread from step 1,000 on of its claim-1 head's share on «Alice»,
    layer 1's largest weight and the held-out rate; then how many of its checkpoints met every bound."""
    runs = {}
    for record in records:
        runs.setdefault(record["run"]["name"], []).append(record)
    lines = ["| P | entropy W | seed | dropout | steps | checkpoints | last validation | «Alice», step ≥ 1,000 | layer 1: largest | held out | all bounds met |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for checkpoints in runs.values():
        run = checkpoints[0]["run"]
        late = [r for r in checkpoints if r["step"] >= 1000] or checkpoints
        spread = lambda values, form: f"{form(min(values))}–{form(max(values))}"  # noqa: E731
        last = max(checkpoints, key=lambda r: r["step"])
        stopped = f" (stopped at {last['step']:,})" if run.get("stopped") else ""
        lines.append(f"| {lever(run)} | {run.get('l2_attention_entropy', 0.0)} | {run['seed']} | {dropout(run)} | "
                     f"{run['steps']:,}{stopped} | "
                     f"{len(checkpoints)} | {last['validation']:.3f} | "
                     f"{spread([r['focused']['alice'] for r in late], lambda x: f'{x:.1%}')} | "
                     f"{spread([r['diffuse']['largest'] for r in late], lambda x: f'{x:.1%}')} | "
                     f"{spread([r['held_out'] for r in late], lambda x: f'{x:.0%}')} | "
                     f"{sum(all(meets(r).values()) for r in checkpoints)} |")
    return lines


def report(records):
    """The sweep tables of ``weights/SWEEP_RECORD.md``: one row per run, then every judged checkpoint in
    the order judged, then the choice."""
    if not records:
        sys.exit("no judged checkpoints yet")
    print("\n".join(run_summaries(records)) + "\n")
    print("| P | entropy W | seed | dropout | steps | checkpoint | validation | claim-1 head: «Alice» / «and» / «Queen» | layer 1: largest | held out | bounds met |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for record in records:
        print(format_row(record))
    chapter = choose_chapter(records)
    print("\nIssue 52's rule chooses " + (f"{chapter['run']['name']} at step {chapter['step']}: {format_row(chapter)}" if chapter
                                          else "nothing: no checkpoint of the lever family meets every bound"))
    chosen, clause = choose(records)
    print(f"\n{len(records)} checkpoints of {len({r['run']['name'] for r in records})} runs; "
          f"clause {clause} chooses {chosen['run']['name']} at step {chosen['step']}: {format_row(chosen)}")


def sweep(args):
    """Train the plan's runs not yet in the results file, ``args.parallel`` at a time, judging each as it ends."""
    done = {r["run"]["name"] for r in read_results(args.results)}
    todo = [s for s in PLAN if run_name(*s) not in done and (not args.only or run_name(*s) in args.only)]
    print(f"{len(todo)} runs to train: {[run_name(*s) for s in todo]}", flush=True)
    judge = Judge(args.corpus, args.tokenizer)
    torch.set_num_threads(1)
    running = []
    while todo or running:
        while todo and len(running) < args.parallel:
            settings = todo.pop(0)
            command, out = train_command(args, settings)
            out.parent.mkdir(parents=True, exist_ok=True)
            log = open(out.parent / "train.log", "w", encoding="utf-8")
            running.append((settings, out, subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT), log, time.time()))
        pid, status = os.wait()  # blocks until one of the training runs ends
        entry = next(r for r in running if r[2].pid == pid)
        running.remove(entry)
        settings, out, process, log, started = entry
        log.close()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{run_name(*settings)} failed (exit {os.waitstatus_to_exitcode(status)}); see {out.parent / 'train.log'}")
        print(f"{run_name(*settings)} trained in {time.time() - started:.0f} s", flush=True)
        judge_run(judge, settings, out, args.results)


def main():
    parser = argparse.ArgumentParser(description="Issue 19's sweep: train, judge every checkpoint, choose by the rule.")
    parser.add_argument("--corpus", help="folder of the corpus books (*.txt)")
    parser.add_argument("--tokenizer", help="tokenizer.json")
    parser.add_argument("--runs", help="folder for the runs' checkpoints and logs")
    parser.add_argument("--results", required=True, help="JSON lines of judged checkpoints (appended to)")
    parser.add_argument("--parallel", type=int, default=2, help="training runs at a time (one thread each)")
    parser.add_argument("--only", nargs="*", help="train only these runs of the plan (by name)")
    parser.add_argument("--report", action="store_true", help="print the sweep table and the choice, train nothing")
    parser.add_argument("--judge", metavar="NAME", help="judge the kept checkpoints of a run of the plan trained outside a sweep, "
                                                          "or whose sweep was stopped before judging it")
    parser.add_argument("--run-out", help="with --judge: the run's --out (ckpt.pt), if not under --runs")
    parser.add_argument("--every", type=int, help="with --judge: only the checkpoints of steps that are a multiple of this, and the last")
    parser.add_argument("--rerun", metavar="LABEL", help="with --judge: a rerun of the run, recorded as 'NAME (rerun LABEL)'")
    args = parser.parse_args()
    if args.report:
        report(read_results(args.results))
    elif args.judge:
        settings = next(s for s in PLAN if run_name(*s) == args.judge)
        out = Path(args.run_out) if args.run_out else train_command(args, settings)[1]
        judge_run(Judge(args.corpus, args.tokenizer), settings, out, args.results, args.every, args.rerun)
    elif not (args.corpus and args.tokenizer and args.runs):
        parser.error("--corpus, --tokenizer and --runs are needed to train")
    else:
        sweep(args)


if __name__ == "__main__":
    main()
