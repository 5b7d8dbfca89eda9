"""training.chapter_claims reads the default sentence's attention right: its numbers against the PyTorch
reference model and HF tokenizers, independent of the page's numpy forward pass and tokenizer."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tokenizers import Tokenizer  # noqa: E402
from training.chapter_claims import DEFAULT_TEXT, DIFFUSE, FOCUSED, check_claims  # noqa: E402
from training.export import reference_model  # noqa: E402

from conftest import WEIGHTS  # noqa: E402


def test_claims_are_read_from_the_models_attention(figure):
    tokenizer = Tokenizer.from_file(str(WEIGHTS / "tokenizer.json"))
    encoding = tokenizer.encode(DEFAULT_TEXT)
    at = {token: i for i, token in enumerate(encoding.tokens)}  # byte-level tokens: "Ġsaid" is « said»
    with torch.no_grad():
        _, _, attention = reference_model(str(WEIGHTS / "model.safetensors"))(torch.tensor([encoding.ids]))
    said = torch.stack(attention)[:, 0, :, at["Ġsaid"], :].numpy()  # [n_layer, n_head, T]
    claims = check_claims(figure)
    for name, head in claims["heads"].items():
        row = said[int(name[0]) - 1, int(name[2]) - 1]
        expected = [row[at["ĠAlice"]], row[at["Ġand"]], row[at["ĠQueen"]], row.max()]
        worst = float(np.max(np.abs(np.array([head["alice"], head["and"], head["queen"], head["largest"]]) - expected)))
        print(f"head {name}: largest difference from torch {worst:.3g}")
        assert worst <= 1e-5
    focused, diffuse = claims["focused"], claims["diffuse"]
    assert focused["holds"] == (focused["alice"] >= FOCUSED and focused["alice"] > max(focused["and"], focused["queen"]))
    assert diffuse["holds"] == (diffuse["largest"] <= DIFFUSE)
    assert diffuse["largest"] == min(h["largest"] for n, h in claims["heads"].items() if n.startswith("1."))
