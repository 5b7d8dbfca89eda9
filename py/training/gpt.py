"""The reference GPT in PyTorch: a GPT-2-style decoder with nanoGPT's structure and parameter names.

Follows Karpathy's nanoGPT ``model.py`` (itself after OpenAI's GPT-2 code): pre-LayerNorm blocks of
causal multi-head self-attention and a GELU MLP (tanh approximation, as GPT-2), learned positions,
LayerNorm eps 1e-5, and an output head tied to the token embedding (Press & Wolf 2017).
Attention is written out (no fused kernel) so that its probabilities can be returned: this model is
the reference that ``attention_live.model`` (numpy, in the browser tab) is checked against.

One training-only addition: stochastic depth on layer 1's attention branch (``l1_attention_drop``,
``drop_path``). In eval mode, and whenever it is 0, the forward pass is plain GPT-2.
"""

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F


@dataclass
class GPTConfig:
    block_size: int = 128  # longest context, in tokens
    vocab_size: int = 2000  # tokens in tokenizer.json
    n_layer: int = 2  # transformer blocks
    n_head: int = 4  # attention heads per block
    n_embd: int = 120  # width of the residual stream; head size is n_embd // n_head
    dropout: float = 0.0  # training only; the exported model has none
    l1_attention_drop: float = 0.0  # training only: probability of dropping block 1's attention branch per sequence

    def to_dict(self):
        """The fields stored in the safetensors metadata (the architecture: no training-only field)."""
        return {k: v for k, v in asdict(self).items() if k not in TRAINING_ONLY}


TRAINING_ONLY = ("dropout", "l1_attention_drop")


def drop_path(x, p, training):
    """Stochastic depth for one residual branch: x (B, T, C) -> (B, T, C).

    While training, each sequence's whole branch is zeroed with probability ``p`` and a kept one is
    scaled by 1 / (1 - p), so its expected value is unchanged; in eval mode (or with p = 0) x is
    returned as it is. Per sequence, not per token, so a dropped sequence has no attention in that
    block at all. Huang et al. 2016, "Deep Networks with Stochastic Depth" (arXiv:1603.09382);
    Fan et al. 2019, "Reducing Transformer Depth on Demand with Structured Dropout" (LayerDrop,
    arXiv:1909.11556); the per-sample form of timm's ``drop_path``.
    """
    if p == 0.0 or not training:
        return x
    assert 0.0 < p < 1.0, f"drop probability must be in [0, 1), got {p}"
    keep = x.new_empty(x.size(0), 1, 1).bernoulli_(1.0 - p)  # (B, 1, 1): 1 = this sequence keeps the branch
    return x * keep / (1.0 - p)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0, f"n_embd={config.n_embd} is not a multiple of n_head={config.n_head}"
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)  # query, key, value for all heads
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        mask = torch.tril(torch.ones(config.block_size, config.block_size, dtype=torch.bool))
        self.register_buffer("mask", mask.view(1, 1, config.block_size, config.block_size), persistent=False)

    def forward(self, x):
        """x: (B, T, C) float -> (output (B, T, C), attention probabilities (B, nh, T, T))."""
        B, T, C = x.size()  # batch, sequence length, n_embd
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, nh, T, T)
        att = att.masked_fill(~self.mask[:, :, :T, :T], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = self.attn_dropout(att) @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.resid_dropout(self.c_proj(y)), att


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config, attention_drop=0.0):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=1e-5)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=1e-5)
        self.mlp = MLP(config)
        self.attention_drop = attention_drop  # training only: stochastic depth on the attention branch

    def forward(self, x):
        a, att = self.attn(self.ln_1(x))
        x = x + drop_path(a, self.attention_drop, self.training)
        x = x + self.mlp(self.ln_2(x))
        return x, att


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config, config.l1_attention_drop if i == 0 else 0.0) for i in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd, eps=1e-5),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for name, p in self.named_parameters():  # GPT-2's scaled init of the residual projections
            if name.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        """idx: (B, T) int64 token ids, T <= block_size.

        Returns (logits (B, T, vocab_size), loss or None, attention: list of n_layer tensors
        (B, n_head, T, T) of probabilities). ``loss`` is the mean cross-entropy in nats per token.
        """
        B, T = idx.size()
        assert T <= self.config.block_size, f"cannot forward T={T} tokens, block_size is {self.config.block_size}"
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)  # (T,)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))  # (B, T, C)
        attention = []
        for block in self.transformer.h:
            x, att = block(x)
            attention.append(att)
        logits = self.lm_head(self.transformer.ln_f(x))  # (B, T, vocab_size)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss, attention

    def num_parameters(self):
        """Number of distinct parameters (the tied head counted once)."""
        return sum(p.numel() for p in self.parameters())
