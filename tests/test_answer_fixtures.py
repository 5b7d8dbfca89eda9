"""The views' fixtures (tests/fixtures/answers/*.json) are what CPython's Figure answers now: written
again from the weights, each equals the committed file (numbers to float32's last bit, printing the
largest difference), so a change to the model or to an answer's shape cannot leave them stale. Run
``.venv/bin/python tests/fixtures/answers/make_answers.py`` to write them again."""

import json
import math

import pytest

from conftest import FIXTURES
from fixtures.answers import make_answers


def differences(want, got, where="$"):
    """Every place where ``got`` differs from ``want`` (JSON values): [(path, want, got)]; numbers
    compared exactly (a float32 written as a double reads back the same)."""
    if isinstance(want, dict) and isinstance(got, dict):
        if want.keys() != got.keys():
            return [(where, sorted(want), sorted(got))]
        return [d for key in want for d in differences(want[key], got[key], f"{where}.{key}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [(where, f"{len(want)} items", f"{len(got)} items")]
        return [d for i, (a, b) in enumerate(zip(want, got)) for d in differences(a, b, f"{where}[{i}]")]
    return [] if want == got and type(want) is type(got) else [(where, want, got)]


@pytest.mark.parametrize("name", sorted(make_answers.TEXTS))
def test_the_fixture_is_what_cpython_answers_now(figure, name):
    text, view = make_answers.TEXTS[name]
    committed = json.loads((FIXTURES / "answers" / f"{name}.json").read_text(encoding="utf-8"))
    now = json.loads(json.dumps(make_answers.answers(figure, text, view)))
    found = differences(committed, now)
    numeric = [abs(a - b) for _, a, b in found if isinstance(a, float) and isinstance(b, float) and math.isfinite(a - b)]
    print(f"{name}: {len(found)} differences, the largest {max(numeric, default=0):.3g}")
    assert found == [], found[:5]


def test_the_fixtures_hold_every_answer_the_views_draw():
    for name in make_answers.TEXTS:
        fixture = json.loads((FIXTURES / "answers" / f"{name}.json").read_text(encoding="utf-8"))
        assert {"text", "config", "view", "analyse", "explain", "flash", "predict"} <= fixture.keys()
        T = len(fixture["analyse"]["ids"])
        c = fixture["config"]
        assert fixture["analyse"]["shape"] == [c["n_layer"], c["n_head"], T, T]
        assert len(fixture["analyse"]["attention"]["$float32"]) == c["n_layer"] * c["n_head"] * T * T
        assert "-Infinity" in fixture["explain"]["scaled"]["$float32"], "the view's token should have later keys to mask"
