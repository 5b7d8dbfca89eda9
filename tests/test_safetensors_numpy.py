"""The numpy safetensors reader against the reference ``safetensors`` library."""

import json
import struct

import numpy as np
import pytest
from safetensors.numpy import load_file, save

from attention_live.safetensors_numpy import load
from conftest import WEIGHTS


def test_matches_reference_on_every_dtype():
    rng = np.random.default_rng(0)
    tensors = {
        "f16": rng.standard_normal((3, 5)).astype(np.float16),
        "f32": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "f64": rng.standard_normal(7),
        "i64": rng.integers(-9, 9, (4,), dtype=np.int64),
        "u8": rng.integers(0, 255, (6,), dtype=np.uint8),
        "scalar": np.array(1.5, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }
    ours, metadata = load(save(tensors, metadata={"config": "{}", "note": "é"}))
    assert metadata == {"config": "{}", "note": "é"}
    assert set(ours) == set(tensors)
    for name, expected in tensors.items():
        assert ours[name].dtype == expected.dtype and ours[name].shape == expected.shape, name
        np.testing.assert_array_equal(ours[name], expected)


def test_matches_reference_on_the_model_file():
    path = WEIGHTS / "model.safetensors"
    ours, metadata = load(path.read_bytes())
    reference = load_file(str(path))
    assert set(ours) == set(reference) and "lm_head.weight" not in ours
    for name in reference:
        assert ours[name].dtype == np.float16
        np.testing.assert_array_equal(ours[name], reference[name])
    assert set(json.loads(metadata["config"])) == {"n_layer", "n_head", "n_embd", "block_size", "vocab_size"}


def with_header(header, data):
    encoded = json.dumps(header).encode()
    return struct.pack("<Q", len(encoded)) + encoded + data


@pytest.mark.parametrize("buffer, message", [
    (b"\x01\x02", "too short"),
    (struct.pack("<Q", 10**6) + b"{}", "exceeds the file"),
    (struct.pack("<Q", 2) + b"\xff\xfe", "not valid UTF-8 JSON"),
    (with_header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\x00" * 4), "truncated"),
    (with_header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\x00" * 4), "needs 8"),
    (with_header({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\x00" * 8), "contiguous"),
    (with_header({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\x00" * 8), "after the last tensor"),
    (with_header({"a": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 4]}}, b"\x00" * 4), "unsupported dtype"),
    (with_header({"__metadata__": {"a": 1}}, b""), "str to str"),
    (with_header({"a": [1, 2]}, b""), "not an object"),
])
def test_damaged_files_are_refused_with_a_reason(buffer, message):
    with pytest.raises(ValueError, match=message):
        load(buffer, "damaged.safetensors")


def test_truncated_model_file_names_the_file():
    data = (WEIGHTS / "model.safetensors").read_bytes()
    with pytest.raises(ValueError, match="model.safetensors: .*truncated"):
        load(data[:-100])
