"""The notebook widget's Python (attention_live.widget): the worker's protocol answered by the kernel,
its wire format, its traitlets, and the package that pip installs.

The reference for every number is a second, independent Figure (``figure``, made for each test): the kernel's
replies must carry its values exactly, as the bytes a page reads back (float32, little-endian).
"""

import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import build
from attention_live.figure import Figure
from attention_live.widget.kernel import PROTOCOL, Kernel, to_wire

TEXT = "Then the Queen turned to Alice and said"


def read_wire(value, buffers):
    """What web/runtime/kernel-port.js's fromWire makes of the kernel's data, here with numpy: arrays from
    their bytes, the floats JSON cannot hold from their names. Written apart from to_wire, from the format."""
    if isinstance(value, list):
        return [read_wire(item, buffers) for item in value]
    if not isinstance(value, dict):
        return value
    if "$float" in value:
        return {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}[value["$float"]]
    if "$array" in value:
        return np.frombuffer(buffers[value["$array"]], dtype=np.dtype(value["dtype"]).newbyteorder("<")).reshape(value["shape"])
    return {key: read_wire(item, buffers) for key, item in value.items()}


def replies(kernel, request):
    """The kernel's replies to ``request``, each its message read back, checked to be JSON as Jupyter sends it."""
    out = []
    for content, buffers in kernel.answer(request):
        assert content["protocol"] == PROTOCOL
        json.dumps(content, allow_nan=False)  # no NaN or Infinity: browsers' JSON.parse refuses them
        out.append(read_wire(content["message"], buffers))
    return out


def shipped_figure():
    return Figure((build.WEIGHTS / "model.safetensors").read_bytes(), (build.WEIGHTS / "tokenizer.json").read_bytes())


@pytest.fixture
def kernel():
    return Kernel(shipped_figure())


@pytest.fixture
def figure():
    """The reference: a Figure of its own, with an empty KV cache (conftest's is shared by the session)."""
    return shipped_figure()


def test_the_wire_format():
    buffers = []
    wire = to_wire({"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": [np.float32(0.5), float("-inf"), float("nan")], "c": None}, buffers)
    assert wire == {"a": {"$array": 0, "dtype": "float32", "shape": [2, 3]}, "b": [0.5, {"$float": "-inf"}, {"$float": "nan"}], "c": None}
    assert buffers == [bytes.fromhex("00000000" "0000803f" "00000040" "00004040" "00008040" "0000a040")]  # 0..5 as float32, little-endian


def test_start_and_analyse(kernel, figure):
    hello, ready, runtime = replies(kernel, {"type": "init", "base": "", "manifest": {}})
    assert (hello["type"], ready["type"], ready["runtime"]["kind"], runtime) == ("hello", "ready", "kernel", {"type": "runtime", "figures": 0})
    (result,) = replies(kernel, {"type": "analyse", "id": 3, "figure": 1, "text": TEXT, "knockout": [], "what_if": None})
    want = figure.analyse(TEXT)
    assert (result["type"], result["id"], result["ids"], result["labels"], result["cache"]) == ("result", 3, want["ids"], want["labels"], want["cache"])
    assert result["shape"] == list(want["attention"].shape)
    assert np.array_equal(result["attention"], want["attention"])  # the same float32 numbers, bit for bit


def test_each_figure_has_its_own_view(kernel):
    replies(kernel, {"type": "analyse", "id": 1, "figure": 1, "text": TEXT})
    (again,) = replies(kernel, {"type": "analyse", "id": 2, "figure": 1, "text": TEXT + " to"})
    (other,) = replies(kernel, {"type": "analyse", "id": 3, "figure": 2, "text": TEXT + " to"})
    assert again["cache"]["reused"] == len(again["ids"]) - 1  # its own KV cache: only the new token computed
    assert other["cache"]["reused"] == 0  # figure 2's view starts empty
    assert replies(kernel, {"type": "forget", "figure": 2}) == [{"type": "runtime", "figures": 1}]


def test_answers_and_errors(kernel, figure):
    replies(kernel, {"type": "analyse", "id": 1, "figure": 1, "text": TEXT})
    figure.analyse(TEXT)
    (math,) = replies(kernel, {"type": "explain", "id": 2, "figure": 1, "layer": 2, "head": 3, "token": 7})
    want = figure.explain(layer=2, head=3, token=7)
    assert math["type"] == "answer" and np.array_equal(math["value"]["weights"], want["weights"]) and np.array_equal(math["value"]["k"], want["k"])
    (flash,) = replies(kernel, {"type": "flash", "id": 3, "figure": 1, "layer": 2, "head": 3, "token": 7, "tile": 2})
    assert flash["value"]["steps"][0]["m"] == figure.flash(layer=2, head=3, token=7, tile=2)["steps"][0]["m"]
    (bad,) = replies(kernel, {"type": "explain", "id": 4, "figure": 1, "layer": 9, "head": 3, "token": 7})
    assert bad["type"] == "error" and bad["id"] == 4 and "\n" not in bad["message"] and "layer" in bad["message"]
    (unknown,) = replies(kernel, {"type": "eval", "id": 5, "figure": 1})
    assert unknown == {"type": "error", "id": 5, "message": "unknown request 'eval'"}


def test_the_widget_s_values():
    from attention_live.widget import AttentionLive

    default_view = json.loads((build.WEIGHTS / "default_view.json").read_text(encoding="utf-8"))
    widget = AttentionLive()
    assert (widget.text, widget.layer, widget.head, widget.token) == (default_view["text"], default_view["layer"], default_view["head"], default_view["token"] + 1)
    assert widget._manifest["config"]["n_head"] == 4 and widget._manifest["default_view"] == default_view
    assert AttentionLive(text="Alice said").token == 0  # another text: its last token, not the default view's query
    with pytest.raises(Exception, match="layer must be 1 to 2"):
        AttentionLive(layer=3)
    with pytest.raises(Exception, match="head must be 1 to 4"):
        widget.head = 0
    shown = len(widget._figure.tokenize(widget.text)["ids"])
    widget.token = shown  # the last token, 1-based
    for outside in (shown + 1, -1):
        with pytest.raises(Exception, match=f"token must be 1 to {shown} .* not {outside}"):
            widget.token = outside
    with pytest.raises(Exception, match="panels: sideways is not one of heads, matrix, math, next"):
        widget.panels = "heads,sideways"
    widget.panels = "heads, math"
    assert (widget.token, widget.panels) == (shown, "heads, math")  # a refused value changed nothing
    english = json.loads((build.ROOT / "web" / "i18n" / "en.json").read_text(encoding="utf-8"))
    assert widget.lang == "" and widget._manifest["languages"] == ["de", "en", "es", "fr"]
    assert sorted(widget._manifest["catalogs"]) == ["de", "es", "fr"]  # English comes with widget.js
    assert set(widget._manifest["catalogs"]["de"]) == set(english)
    assert AttentionLive(lang="fr").lang == "fr"
    with pytest.raises(Exception, match='lang must be one of de, en, es, fr .* not .xx.'):
        widget.lang = "xx"
    assert widget.lang == ""
    sent = []
    widget.send = lambda content, buffers=None: sent.append((content, buffers))
    widget._answer(widget, {"protocol": PROTOCOL, "message": {"type": "tokenize", "id": 1, "text": "Alice"}}, [])
    assert [content["message"]["value"]["labels"] for content, _ in sent] == [["Alice"]]


def test_a_model_folder_without_its_files(tmp_path):
    from attention_live.widget import AttentionLive

    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="no tokenizer.json, default_view.json there"):
        AttentionLive(model=tmp_path)
    with pytest.raises(FileNotFoundError, match="nowhere does not exist"):
        AttentionLive(model=tmp_path / "nowhere")


def test_pip_builds_the_package_with_its_files(tmp_path):
    """``pip install ./py[widget]`` installs what the widget needs: its module, the shipped model; the
    tab's own wheel (build.py) leaves the widget out."""
    if not (build.NOTEBOOK_FILES / "widget.js").exists():
        build.build()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(build.ROOT / "py"), "-w", str(tmp_path)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("attention_live-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
    for name in ("widget/__init__.py", "widget/kernel.py", "widget/static/widget.js", "widget/static/model/model.safetensors",
                 "widget/static/model/tokenizer.json", "widget/static/model/default_view.json"):
        assert f"attention_live/{name}" in names, name
    assert 'Requires-Dist: anywidget>=0.9; extra == "widget"' in metadata
    tab = build.build_project_wheel(tmp_path / "tab")
    with zipfile.ZipFile(tmp_path / "tab" / tab) as archive:
        assert not [name for name in archive.namelist() if "widget" in name]
