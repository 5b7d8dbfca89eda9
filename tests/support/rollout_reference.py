"""An independent float64 reference for attention rollout (issue 52): PyTorch's GPT (py/training/gpt.py)
with the shipped weights cast to float64, HF tokenizers for the ids, and the rollout of Abnar & Zuidema
(ACL 2020) written out here from its definition, none of it the page's numpy code:

    Â₁ = ½ · mean over heads(A₁) + ½ · I,        R = A₂,ₕ · Â₁   (layer 1: R = A₁,ₕ)
"""

import numpy as np
import torch
from tokenizers import Tokenizer

from training.export import reference_model


class RolloutReference:
    """The float64 model of the weights folder ``folder`` (model.safetensors, tokenizer.json)."""

    def __init__(self, folder):
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.model = reference_model(str(folder / "model.safetensors")).double()

    def attention(self, text):
        """Every head's attention of ``text``: float64 [n_layer, n_head, T, T] (the last block_size tokens)."""
        ids = self.tokenizer.encode(text).ids[-self.model.config.block_size:]
        with torch.no_grad():
            _, _, attention = self.model(torch.tensor([ids]))
        return torch.stack(attention)[:, 0].numpy()

    @staticmethod
    def layer1_mix(attention):
        """Â₁, float64 [T, T]."""
        T = attention.shape[-1]
        return 0.5 * attention[0].mean(axis=0) + 0.5 * np.eye(T)

    def rollout(self, attention, layer, head, token):
        """Row ``token`` of R for ``layer``, ``head`` (1-based), float64 [T]."""
        row = attention[layer - 1, head - 1, token]
        if layer == 1:
            return row
        mixed = self.layer1_mix(attention)
        for below in range(1, layer - 1):  # a deeper model: each layer's mixing on top of the ones below
            T = attention.shape[-1]
            mixed = (0.5 * attention[below].mean(axis=0) + 0.5 * np.eye(T)) @ mixed
        return row @ mixed
