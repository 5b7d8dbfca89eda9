"""The README and the model card state the shipped model's numbers: the default view's, read from the model
(not from default_view.json, which could be stale), and the model file's sha256."""

import hashlib

from conftest import ROOT, WEIGHTS
from training.chapter_claims import check_claims


def test_readme_and_model_card_state_the_shipped_models_numbers(figure):
    claims = check_claims(figure)
    layer, head = claims["focused"]["head"].split(".")
    focused = {k: f"{claims['focused'][k]:.1%}" for k in ("alice", "and", "queen")}
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert (f"layer {layer}, head {head} (`py/training/find_default_view.py`): {focused['alice']} of its attention "
            f"lands on «Alice», {focused['and']} on «and» and {focused['queen']} on «Queen»") in readme
    assert f"no token gets more than {claims['diffuse']['largest']:.1%}" in readme
    card = (WEIGHTS / "MODEL_CARD.md").read_text(encoding="utf-8")
    rows = [line.replace("**", "") for line in card.splitlines()]
    for name, h in claims["heads"].items():
        row = f"| layer {name[0]}, head {name[2]} | " + " | ".join(f"{h[k]:.1%}" for k in ("alice", "and", "queen")) + " | "
        assert any(line.startswith(row) for line in rows), f"the model card has no row {row!r}"
    assert hashlib.sha256((WEIGHTS / "model.safetensors").read_bytes()).hexdigest() in card
