"""Training-side code: corpus preparation, tokenizer and model training, export.

Needs the packages in ``requirements-train.txt`` (HF ``tokenizers``, ``torch``, ``safetensors``);
nothing here runs in the browser tab.
"""
