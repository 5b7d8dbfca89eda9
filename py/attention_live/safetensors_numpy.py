"""Read a ``.safetensors`` file with numpy alone (the format of HF ``safetensors``).

Format (https://github.com/huggingface/safetensors, "Format" in its README):

* 8 bytes: N, the header's length, unsigned 64-bit little-endian;
* N bytes: a UTF-8 JSON object mapping each tensor name to ``{"dtype", "shape", "data_offsets"}``,
  plus an optional ``"__metadata__"`` object of str -> str;
* the data: row-major little-endian tensors; ``data_offsets`` ``[begin, end)`` count bytes from the
  start of the data, and the tensors tile it exactly, without gaps or overlap.

Every rule above is checked: a damaged file raises ValueError saying what is wrong, never a
silently wrong array.
"""

import json
import struct

import numpy as np

DTYPES = {  # safetensors dtype -> numpy dtype (little-endian)
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"), "I8": np.dtype("i1"),
    "U8": np.dtype("u1"), "BOOL": np.dtype("?"),
}
MAX_HEADER_BYTES = 100_000_000  # the reference library's own limit


def load(buffer, name="model.safetensors"):
    """Parse a safetensors file held in memory.

    Args:
        buffer: the whole file (bytes, bytearray or memoryview).
        name: how to call the file in error messages.
    Returns:
        (tensors, metadata): tensors is a dict name -> read-only np.ndarray viewing ``buffer``
        (dtype as stored, shape as stored); metadata is the ``__metadata__`` dict of str -> str
        ({} when absent).
    Raises:
        ValueError: the buffer is not a well-formed safetensors file; the message names ``name``.
    """
    view = memoryview(buffer).cast("B")
    if len(view) < 8:
        raise ValueError(f"{name}: {len(view)} bytes is too short for a safetensors file")
    (header_len,) = struct.unpack("<Q", view[:8])
    if header_len > min(MAX_HEADER_BYTES, len(view) - 8):
        raise ValueError(f"{name}: header length {header_len} exceeds the file ({len(view)} bytes): truncated or not safetensors")
    try:
        header = json.loads(bytes(view[8:8 + header_len]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{name}: header is not valid UTF-8 JSON ({e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{name}: header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise ValueError(f"{name}: __metadata__ must map str to str")

    bad = [k for k, v in header.items() if not isinstance(v, dict)]
    if bad:
        raise ValueError(f"{name}: header entry {bad[0]!r} is not an object")
    data = view[8 + header_len:]
    tensors = {}
    expected_begin = 0
    for tensor_name, info in sorted(header.items(), key=lambda item: list(item[1].get("data_offsets", [0]))):
        dtype = DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ValueError(f"{name}: tensor {tensor_name!r} has unsupported dtype {info.get('dtype')!r}")
        shape = tuple(info.get("shape", ()))
        begin, end = info.get("data_offsets", (None, None))
        if begin != expected_begin:
            raise ValueError(f"{name}: tensor {tensor_name!r} starts at byte {begin}, expected {expected_begin} (data must be contiguous)")
        if end - begin != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
            raise ValueError(f"{name}: tensor {tensor_name!r} has {end - begin} bytes, shape {shape} of {info['dtype']} needs "
                             f"{int(np.prod(shape, dtype=np.int64)) * dtype.itemsize}")
        if end > len(data):
            raise ValueError(f"{name}: tensor {tensor_name!r} ends at byte {end}, past the data ({len(data)} bytes): truncated")
        tensors[tensor_name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(shape)
        expected_begin = end
    if expected_begin != len(data):
        raise ValueError(f"{name}: {len(data) - expected_begin} bytes after the last tensor")
    return tensors, metadata
