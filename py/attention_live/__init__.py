"""Attention, live: the tokenizer and GPT forward pass that run in the visitor's browser tab.

Pure Python (standard library) plus numpy, so the same code runs in CPython and in Pyodide:

* ``tokenizer``   byte-level BPE that reads HF ``tokenizer.json`` and gives HF ``tokenizers``' ids;
* ``safetensors_numpy``   reads a ``.safetensors`` file with numpy alone;
* ``model``       the GPT-2-style forward pass in float32 numpy, returning attention probabilities
  (with the what-if switches: no √d_k, no mask, heads knocked out);
* ``kv_cache``    the keys and values of an unchanged prefix, reused on every edit;
* ``explain``     the math of one attention row and the next token, from ``model``'s functions;
* ``labels``      how a token's bytes are shown on a chip (visible spaces, honest partial bytes);
* ``figure``      what the page asks for: one text in, tokens and attention out; explain, predict.
"""
