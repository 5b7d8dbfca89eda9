"""Issue 46: the build ships only the Python the figure imports, found by the import audit
(import_audit.py, import_audit.mjs, build.py's trim_python), and a first visit stays under 5.5 MB.

The references are independent of the audit: the plan is checked against the worker's own requests
and the hostile-input cases; the modules the package's sources import (read with ast, not run) and
the compiled numpy modules Python loads must be shipped; the bytes are summed from the files on disk.
"""

import ast
import json
import re
import shutil
import tarfile
import zipfile

import pytest

import build
from support.figure_page import PythonWorker
from support.source_tree import copy_sources, run_build

CASES = build.ROOT.parent / "shared" / "cases" / "hostile-inputs.md"
STDLIB_ZIP = "pyodide/python_stdlib.zip"


@pytest.fixture(scope="module")
def full_python(tmp_path_factory):
    """The full Pyodide folder of a build before trim_python (numpy's whole tar, the whole standard
    library), the project wheel, and the import audit's (plan, Pyodide's report, CPython's report);
    from the build's caches, as build.build makes them."""
    folder = tmp_path_factory.mktemp("full") / "pyodide"
    build.assemble_pyodide(folder, None)
    build.compile_package_wheels(folder)
    build.package_wheels_as_tar(folder)
    wheel = folder.parent / "wheels" / build.build_project_wheel(folder.parent / "wheels")
    return folder, wheel, build.import_audit(folder, wheel, build.WEIGHTS)


def shipped():
    """The build's (dist/'s) python_stdlib.zip entries and numpy tar members: (set, set)."""
    folder = build.build_folder()
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(folder / STDLIB_ZIP) as stdlib, tarfile.open(folder / manifest["packages"][0]) as numpy:
        return set(stdlib.namelist()), {member.name for member in numpy.getmembers()}


def test_the_plan_makes_every_call_the_worker_makes():
    """Every request worker.js serves (its REQUESTS table) and every other call it makes on a Figure
    (another_view, add_checkpoint) is in the plan, with a bad argument as well as good ones."""
    worker = (build.ROOT / "web" / "runtime" / "worker" / "worker.js").read_text(encoding="utf-8")
    table = worker[worker.index("const REQUESTS = {"):]
    requests = set(re.findall(r"^  (\w+): \{ onView", table[:table.index("};")], re.M))
    assert requests == {"analyse", "explain", "flash", "predict", "rollout", "tokenize"}
    assert "model.another_view()" in worker and "model.add_checkpoint" in worker
    steps = json.loads(build.audit_plan(build.WEIGHTS).read_text())
    calls = {step["call"] for step in steps if "call" in step}
    assert calls == requests
    assert {step["call"] for step in steps if step.get("expect") == "ValueError" and "call" in step} >= requests - {"tokenize"}
    assert any(step.get("make") == "view" for step in steps)
    assert [step.get("expect") for step in steps if "checkpoint" in step].count("ValueError") >= 2
    assert any("checkpoint" in step and "expect" not in step for step in steps)


def test_the_plan_holds_every_hostile_text_of_the_cases():
    """Each example of ../shared/cases/hostile-inputs.md's "Text typed or pasted" table that is a plain
    literal is one of the plan's texts, and its long texts are as long as the table's."""
    table = CASES.read_text(encoding="utf-8").split("## Text typed or pasted by the visitor")[1].split("\n## ")[0]
    examples = [ast.literal_eval(literal) for literal in re.findall(r'`("(?:[^"\\`]|\\.)*")`', table)]
    assert len(examples) >= 15
    steps = json.loads(build.audit_plan(build.WEIGHTS).read_text())
    texts = {step["kwargs"]["text"] for step in steps if step.get("call") == "analyse"}
    assert [example for example in examples if example not in texts] == []
    assert {"a" * 20000, " " * 20000 + "a"} <= texts
    assert any(len(text) == 5000 and text.isalpha() and text.islower() for text in texts)


def test_both_pythons_end_every_step_alike(full_python):
    """Pyodide's run and CPython's run of the plan end each step the same way, as the plan expects:
    every bad argument raises ValueError; the other steps end well except where an empty text leaves
    no token to explain."""
    _, _, (plan, pyodide, cpython) = full_python
    steps = json.loads(plan.read_text())
    assert pyodide["outcomes"] == cpython["outcomes"]
    assert len(pyodide["outcomes"]) == len(steps) > 150
    for step, outcome in zip(steps, pyodide["outcomes"]):
        if "expect" in step:
            assert outcome == step["expect"], step
        elif step.get("call") in ("explain", "flash", "predict", "rollout") and outcome != "ok":
            assert outcome == "ValueError", step
    failed = [step for step, outcome in zip(steps, pyodide["outcomes"]) if "expect" not in step and outcome != "ok"]
    assert failed and all(step.get("call") in ("explain", "flash", "predict", "rollout") for step in failed)


def test_the_build_ships_exactly_what_the_audit_found(full_python):
    """dist/'s standard library is the audited modules' files and nothing else; numpy's tar is the
    audited files and its .dist-info, with a RECORD that lists what is there."""
    folder, _, (_, pyodide, cpython) = full_python
    with zipfile.ZipFile(folder / "python_stdlib.zip") as full_zip, tarfile.open(next(folder.glob("numpy-*.tar"))) as full_tar:
        stdlib_names, numpy_names = set(full_zip.namelist()), {m.name for m in full_tar.getmembers()}
    stdlib, numpy = build.audited_files(pyodide, cpython, stdlib_names, numpy_names)
    shipped_stdlib, shipped_numpy = shipped()
    assert shipped_stdlib == stdlib
    assert {name for name in shipped_numpy if ".dist-info/" not in name} == numpy
    assert {name for name in numpy_names if ".dist-info/" in name} <= shipped_numpy
    assert len(shipped_stdlib) < len(stdlib_names) / 3 and len(numpy) < len(numpy_names) / 3
    folder = build.build_folder()
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    with tarfile.open(folder / manifest["packages"][0]) as tar:
        record = next(m for m in tar.getmembers() if m.name.endswith(".dist-info/RECORD"))
        listed = {line.split(",")[0] for line in tar.extractfile(record).read().decode().splitlines()}
    assert listed == shipped_numpy


def imported_by_the_package():
    """The top-level modules that py/attention_live's tab modules import (read with ast, not run)."""
    names = set()
    for path in (build.ROOT / "py" / "attention_live").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module)
    return {name for name in names if not name.startswith(("attention_live", "numpy"))}


def test_what_the_package_imports_is_shipped(full_python):
    """Each standard-library module the package's sources import is in the shipped zip wherever Pyodide
    keeps it in its standard library's zip (a built-in, such as math, is no file there); numpy's core,
    the compiled module every array needs, and linalg's, which numpy's own import loads, are shipped;
    numpy.random, numpy.fft, numpy.f2py and numpy.testing, which nothing imports, are not."""
    folder, _, _ = full_python
    with zipfile.ZipFile(folder / "python_stdlib.zip") as full_zip:
        full = set(full_zip.namelist())
    stdlib, numpy = shipped()
    modules = imported_by_the_package()
    files = {module: {f"{module.replace('.', '/')}.py", f"{module.replace('.', '/')}/__init__.py"} & full for module in modules}
    assert {"re", "json", "hashlib", "copy", "numbers", "dataclasses"} <= {module for module, found in files.items() if found}
    assert {module: found for module, found in files.items() if not found & stdlib} == {module: set() for module, found in files.items() if not found}
    assert f"numpy/_core/_multiarray_umath{build.PYODIDE_EXTENSION}" in numpy
    assert f"numpy/linalg/_umath_linalg{build.PYODIDE_EXTENSION}" in numpy
    assert not [name for name in numpy if name.startswith(("numpy/random/", "numpy/fft/", "numpy/f2py/", "numpy/testing/"))]


def test_a_first_visit_without_the_snapshot_is_at_most_5_5_mb():
    """build.json's start-up files, the snapshot left out, in their smallest stored copies (the file,
    .br or .gz, summed here from the files on disk): at most 5,500,000 bytes (issue 46)."""
    folder = build.build_folder()
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    sizes = {}
    for name in manifest["startup"]:
        if name == manifest["snapshot"]:
            continue
        sizes[name] = min(path.stat().st_size for path in folder.glob(name + "*") if path.name in
                          {name.rsplit("/", 1)[-1] + suffix for suffix in ("", ".br", ".gz")})
    assert set(sizes) >= {"pyodide/python_stdlib.zip", "pyodide/pyodide.asm.wasm", "weights/model.safetensors"}
    assert sum(sizes.values()) <= 5_500_000, sizes
    assert sum(sizes.values()) == build.first_visit_bytes()


def test_a_python_that_misses_a_module_stops_the_build(full_python, tmp_path, monkeypatch):
    """Were the audit to leave out a module the figure imports (json's decoder here), the build's run on
    what it ships would not end as the full run did: the build stops and says so."""
    folder, wheel, _ = full_python
    copy = tmp_path / "pyodide"
    shutil.copytree(folder, copy)
    audited = build.audited_files
    monkeypatch.setattr(build, "audited_files", lambda *args: (audited(*args)[0] - {"json/decoder.py"}, audited(*args)[1]))
    with pytest.raises(build.BuildError, match="the import audit failed in Pyodide with what is shipped"):
        build.trim_python(copy, wheel, build.WEIGHTS)


def test_a_new_import_is_shipped_by_the_next_build(tmp_path):
    """A change to the package that imports a module nothing imported before (fractions, inside
    analyse) is found by the next build's audit and shipped; one that imports a module Pyodide leaves
    out of its standard library (sqlite3, a package of its own there) stops the build, naming the
    step, instead of failing in a reader's tab."""
    assert "fractions.py" not in shipped()[0]
    figure_py = "py/attention_live/figure.py"
    marker = "        self._show_step(step)\n"
    for module, builds in (("fractions", True), ("sqlite3", False)):
        folder = copy_sources(tmp_path / module)
        source = (folder / figure_py).read_text(encoding="utf-8")
        assert marker in source
        (folder / figure_py).write_text(source.replace(marker, f"        import {module}  # noqa: F401\n" + marker, 1), encoding="utf-8")
        if builds:
            dist = run_build(folder)
            (manifest,) = dist.glob("*/build.json")
            with zipfile.ZipFile(manifest.parent / STDLIB_ZIP) as stdlib:
                assert "fractions.py" in stdlib.namelist()
        else:
            with pytest.raises(AssertionError, match=r"step \d+ \(\{\"call\": \"analyse\".*ended with ModuleNotFoundError in Pyodide"):
                run_build(folder)


def test_the_tab_imports_nothing_the_audit_did_not_find(browser_page, full_python):
    """In the tab, after texts of every kind and each panel's request, every module Python has loaded
    from the standard library's zip or from numpy is one the audit found (in Pyodide or in CPython)."""
    _, _, (_, pyodide, cpython) = full_python
    page = browser_page
    for text in ("", "a\r\nb", "👨‍👩‍👧 你好", "<img src=x onerror=alert(1)>", "a" * 3000, "Then the Queen turned to Alice and said"):
        page.set_text(text)
    for call, arguments in (("explain", {"layer": 2, "head": 3, "token": 3}), ("predict", {"token": 3, "knockout": [{"layer": 1, "head": 1}]}),
                            ("flash", {"layer": 1, "head": 1, "token": 3})):
        page.page.evaluate("([call, arguments]) => window.attentionLive[call](arguments)", [call, arguments])
    loaded = PythonWorker(page.page).evaluate("""() => pyodide.runPython(`
import sys
[getattr(module, "__file__", None) or "" for module in list(sys.modules.values())]
`).toJs()""")
    found = {file for _, file in pyodide["modules"]}
    found |= {build.PYODIDE_STDLIB + name.replace(".", "/") + ending for name, _ in cpython["modules"] for ending in (".py", "/__init__.py")}
    found |= {build.PYODIDE_SITE_PACKAGES + name.replace(".", "/") + ending for name, _ in cpython["modules"]
              for ending in (".pyc", "/__init__.pyc", build.PYODIDE_EXTENSION)}
    from_shipped = [file for file in loaded if file.startswith((build.PYODIDE_STDLIB, build.PYODIDE_SITE_PACKAGES + "numpy/"))]
    assert len(from_shipped) > 100
    assert [file for file in from_shipped if file not in found] == []
