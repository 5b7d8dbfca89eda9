"""build.py: it refuses any pinned piece whose hash differs from the official lock's, builds with a fresh
Python (no setuptools, no wheel, no network once .cache/ is filled), and writes a wheel pip accepts."""

import base64
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import brotli
import pytest

import build
from support.source_tree import copy_sources, run_build


@pytest.fixture(scope="module")
def pyodide_dir(tmp_path_factory):
    """A full Pyodide 0.27.7 distribution, as assembled from the pinned downloads."""
    folder = tmp_path_factory.mktemp("pyodide") / "pyodide"
    build.assemble_pyodide(folder, None)
    return folder


def test_a_distribution_from_disk_is_accepted(pyodide_dir, tmp_path):
    build.assemble_pyodide(tmp_path / "out", pyodide_dir)
    assert (tmp_path / "out" / "pyodide.asm.wasm").stat().st_size == (pyodide_dir / "pyodide.asm.wasm").stat().st_size


def test_a_changed_byte_in_a_wheel_stops_the_build(pyodide_dir, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(pyodide_dir, damaged)
    wheel = next(damaged.glob("numpy-*.whl"))
    data = bytearray(wheel.read_bytes())
    data[1000] ^= 0xFF
    wheel.write_bytes(bytes(data))
    with pytest.raises(build.BuildError, match=r"numpy-2\.0\.2-.*sha256 .* differs from pyodide-lock\.json"):
        build.assemble_pyodide(tmp_path / "out", damaged)


def test_a_missing_wheel_stops_the_build(pyodide_dir, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(pyodide_dir, damaged)
    next(damaged.glob("numpy-*.whl")).unlink()
    with pytest.raises(build.BuildError, match="numpy"):
        build.assemble_pyodide(tmp_path / "out", damaged)


def compiled_numpy(pyodide_dir, folder, monkeypatch):
    """numpy's wheel as compile_package_wheels leaves it in a copy of ``pyodide_dir`` (its own cache)."""
    shutil.copytree(pyodide_dir, folder)
    monkeypatch.setattr(build, "CACHE", folder.parent / f"{folder.name}-cache")
    build.compile_package_wheels(folder)
    return next(folder.glob("numpy-*.whl"))


def test_numpy_is_shipped_compiled_for_the_tabs_python(pyodide_dir, tmp_path, monkeypatch):
    """Every module of numpy's wheel as bytecode of the tab's CPython 3.12 (its magic number, 3531, from
    CPython 3.12's Lib/importlib/_bootstrap_external.py), unchecked hash-based (PEP 552: flags 0b01), no
    source left; every other file as it was; RECORD right for the new files; the build's lock names the
    new sha256, and a second build gives the same bytes."""
    original = next(pyodide_dir.glob("numpy-*.whl"))
    wheel = compiled_numpy(pyodide_dir, tmp_path / "a", monkeypatch)
    assert json.loads((pyodide_dir / "pyodide-lock.json").read_text())["info"]["python"].startswith("3.12.")
    magic = (3531).to_bytes(2, "little") + b"\r\n"
    with zipfile.ZipFile(original) as before, zipfile.ZipFile(wheel) as after:
        sources = {n for n in before.namelist() if n.endswith(".py")}
        assert len(sources) > 100
        assert not any(n.endswith(".py") for n in after.namelist())
        assert {n for n in after.namelist() if n.endswith(".pyc")} == {n + "c" for n in sources}
        for name in sources:
            header = after.read(name + "c")[:16]
            assert header[:4] == magic and int.from_bytes(header[4:8], "little") == 0b01, name
        record_name = next(n for n in after.namelist() if n.endswith(".dist-info/RECORD"))
        kept = set(before.namelist()) - sources - {record_name}
        assert all(after.read(n) == before.read(n) for n in kept)
        rows = [line.split(",") for line in after.read(record_name).decode().splitlines()]
        assert {row[0] for row in rows} == set(after.namelist())
        for name, digest, size in rows:
            if name != record_name:
                data = after.read(name)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert (digest, size) == (f"sha256={expected}", str(len(data))), name
    lock = json.loads((tmp_path / "a" / "pyodide-lock.json").read_text())
    build.check_against_lock(tmp_path / "a", lock)
    again = compiled_numpy(pyodide_dir, tmp_path / "b", monkeypatch)
    assert again.read_bytes() == wheel.read_bytes()


def test_numpy_is_shipped_as_a_tar_of_the_compiled_wheels_files(pyodide_dir, tmp_path, monkeypatch):
    """The compiled wheel's files, bytes and order, as regular files of a POSIX ustar archive with a
    fixed date, owner and mode, the wheel gone; the build's lock names the tar and its sha256, and
    Pyodide's own loadPackage installs numpy from it (run with Node); the same wheel, the same tar."""
    wheel = compiled_numpy(pyodide_dir, tmp_path / "a", monkeypatch)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    with zipfile.ZipFile(wheel) as source:
        expected = [(info.filename, source.read(info)) for info in source.infolist() if not info.is_dir()]
    (tar_path,) = build.package_wheels_as_tar(tmp_path / "a")
    assert not wheel.exists() and tar_path.name == wheel.name.removesuffix(".whl") + ".tar"
    assert tar_path.read_bytes()[257:263] == b"ustar\0"
    with tarfile.open(tar_path) as tar:
        members = tar.getmembers()
        assert [(m.name, tar.extractfile(m).read()) for m in members] == expected
        assert all(m.isreg() and (m.mode, m.mtime, m.uid, m.gid) == (0o644, 0, 0, 0) for m in members)
    lock = json.loads((tmp_path / "a" / "pyodide-lock.json").read_text())
    assert lock["packages"]["numpy"]["file_name"] == tar_path.name
    build.check_against_lock(tmp_path / "a", lock)
    script = ('const { loadPyodide } = require(process.argv[1] + "/pyodide.js");'
              'loadPyodide({ indexURL: process.argv[1] + "/" }).then(async (python) => {'
              ' await python.loadPackage(["numpy"], { messageCallback: () => {} });'
              ' console.log(python.runPython("import numpy; str(numpy.arange(6).reshape(2, 3).sum(axis=0).tolist())")); });')
    installed = subprocess.run(["node", "-e", script, str(tmp_path / "a")], capture_output=True, text=True, check=True)
    assert installed.stdout.strip() == "[3, 5, 7]"
    (again,) = build.package_wheels_as_tar(tmp_path / "b")
    assert again.read_bytes() == tar_path.read_bytes()


@pytest.mark.parametrize("spec, integrity", [(build.PYODIDE_NPM, build.PYODIDE_NPM_INTEGRITY), (build.ESBUILD_NPM, build.ESBUILD_NPM_INTEGRITY)])
def test_a_damaged_npm_tarball_stops_the_build(monkeypatch, tmp_path, spec, integrity):
    name, version = spec.rsplit("@", 1)
    (tmp_path / f"{name}-{version}.tgz").write_bytes(b"not the real tarball")
    monkeypatch.setattr(build, "CACHE", tmp_path)
    with pytest.raises(build.BuildError, match=f"{name}-{version}.tgz: integrity .* is not the pinned"):
        build.fetch_npm_tarball(spec, integrity)


def test_the_project_wheel_is_reproducible(tmp_path):
    """Same source, same bytes: the build id (a hash of dist/) changes only when something did."""
    first = build.build_project_wheel(tmp_path / "a")
    second = build.build_project_wheel(tmp_path / "b")
    assert build.sha256_of(tmp_path / "a" / first) == build.sha256_of(tmp_path / "b" / second)


def fresh_pythons():
    """{version: interpreter} for Python 3.11, 3.12 and 3.13 as found on PATH or in pyenv's versions
    (whose shims run only the selected version), and always the one running the tests."""
    found = {f"{sys.version_info.major}.{sys.version_info.minor}": sys.executable}
    pyenv_versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for version in ("3.11", "3.12", "3.13"):
        candidates = [shutil.which(f"python{version}"), *sorted(pyenv_versions.glob(f"{version}.*/bin/python{version}"))]
        runs = (c for c in candidates if c and subprocess.run([c, "-c", "pass"], capture_output=True).returncode == 0)
        found.setdefault(version, next(runs, None))
    return {version: str(path) for version, path in sorted(found.items()) if path}


@pytest.mark.parametrize("version", fresh_pythons())
def test_a_fresh_python_builds_the_site(tmp_path, version):
    """`python build.py` with the Python of a fresh venv (3.11: pip and setuptools 65, no wheel;
    3.12+: no setuptools), offline once .cache/ is filled, gives the same build as this one."""
    venv = tmp_path / "venv"
    subprocess.run([fresh_pythons()[version], "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    missing = subprocess.run([python, "-c", "import importlib.util as u; print(u.find_spec('wheel') is None)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert missing == "True", "this venv has the wheel package: it would not test a fresh Python"
    dist = run_build(copy_sources(tmp_path / "project"), python)
    assert build.build_folder(dist).name == build.build_folder().name  # same sources, same build id
    assert (dist / "index.html").read_text(encoding="utf-8") == (build.DIST / "index.html").read_text(encoding="utf-8")


def test_the_project_wheel_installs_with_pip(tmp_path):
    """pip, the reference installer, accepts the wheel build.py writes (RECORD hashes included)."""
    wheel = build.build_project_wheel(tmp_path / "wheel")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(tmp_path / "site"), str(tmp_path / "wheel" / wheel)], check=True)
    installed = subprocess.run([sys.executable, "-c", "import importlib.metadata as m, attention_live.figure; "
                                "print(m.version('attention-live'), attention_live.figure.__file__)"],
                               cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
                               capture_output=True, text=True, check=True).stdout.split()
    assert installed[0] == tomllib.loads((build.ROOT / "py" / "pyproject.toml").read_text())["project"]["version"]
    assert installed[1].startswith(str(tmp_path / "site"))


def test_the_test_command_runs_the_tests_it_is_given():
    root = str(build.ROOT / "tests")
    assert build.pytest_arguments(["tests/test_embed.py"]) == ["tests/test_embed.py"]
    assert build.pytest_arguments(["-x", "tests/test_links.py::test_a_link_restores_the_view_and_survives_a_reload"]) == \
        ["-x", "tests/test_links.py::test_a_link_restores_the_view_and_survives_a_reload"]
    assert build.pytest_arguments(["-k", "embed"]) == [root, "-k", "embed"]  # "embed" is an expression, not a path
    assert build.pytest_arguments([]) == [root]
    assert build.pytest_arguments(["-k", "tests"]) == [root, "-k", "tests"]  # a folder's name as an expression


def test_the_precompressed_copies_hold_the_files():
    """Every ``.br`` and ``.gz`` beside a file of dist/ decompresses (with the brotli package and the
    standard library's gzip, not the code that wrote them) to that file's bytes, and each is written
    only where it saves at least 5%: Pyodide's wasm, for one, has both, and so has the standard library's
    zip, whose entries are stored (issue 46); the project's wheel, deflated, has none."""
    copies = sorted(p for p in build.DIST.rglob("*") if p.suffix in (".br", ".gz") and p.name != "snapshot.bin.gz")
    folder = build.build_folder()
    assert {folder / "pyodide" / f"pyodide.asm.wasm{suffix}" for suffix in (".br", ".gz")} <= set(copies)
    assert {folder / "pyodide" / f"python_stdlib.zip{suffix}" for suffix in (".br", ".gz")} <= set(copies)
    assert not [path for path in copies if path.parent.name == "wheels"]  # a deflated zip: nothing to gain
    for copy in copies:
        original = copy.with_suffix("")
        data = brotli.decompress(copy.read_bytes()) if copy.suffix == ".br" else gzip.decompress(copy.read_bytes())
        assert data == original.read_bytes(), copy
        assert copy.stat().st_size <= 0.95 * original.stat().st_size, copy


@pytest.mark.parametrize("accept, encoding", [
    ("gzip, deflate, br, zstd", "br"),  # Chromium's
    ("gzip, deflate", "gzip"),
    ("br;q=0, gzip", "gzip"),
    ("BR ; q=0.5", "br"),
    ("identity", None),
    ("", None),
])
def test_serve_sends_the_encoding_the_browser_accepts(origin, accept, encoding):
    path = f"/{build.build_folder().name}/pyodide/pyodide.asm.wasm"
    request = urllib.request.Request(origin + path, headers={"Accept-Encoding": accept})
    with urllib.request.urlopen(request) as response:
        body, headers = response.read(), response.headers
    assert headers["Content-Type"] == "application/wasm" and headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Encoding"] == encoding
    suffix = {"br": ".br", "gzip": ".gz", None: ""}[encoding]
    assert body == (build.DIST / path.lstrip("/")).with_name(f"pyodide.asm.wasm{suffix}").read_bytes()


def test_serve_sends_a_file_without_a_copy_as_it_is(origin):
    (wheel,) = (build.build_folder() / "wheels").glob("*.whl")
    path = f"/{build.build_folder().name}/wheels/{wheel.name}"
    with urllib.request.urlopen(urllib.request.Request(origin + path, headers={"Accept-Encoding": "br, gzip"})) as response:
        assert response.headers["Content-Encoding"] is None and response.read() == (build.DIST / path.lstrip("/")).read_bytes()


def test_the_builds_worker_holds_the_scripts_it_imported():
    """The build's worker.js is web/'s worker.js with its importScripts call replaced by the four
    scripts it names, whole and in that order (issue 46: one request, not four in a row); the four are
    not in the build's folder."""
    source = (build.ROOT / "web" / "runtime" / "worker" / "worker.js").read_text(encoding="utf-8")
    names = ["checked-fetch.js", "wasm-guards.js", "tar.js", "startup.js"]
    call = 'importScripts("checked-fetch.js", "wasm-guards.js", "tar.js", "startup.js");'
    assert call in source
    built = (build.build_folder() / "worker.js").read_text(encoding="utf-8")
    assert "importScripts(\"" not in built
    before, after = source.split(call)
    assert built.startswith(before) and built.endswith(after.split("\n", 1)[1])
    places = [built.index((build.ROOT / "web" / "runtime" / "worker" / name).read_text(encoding="utf-8")) for name in names]
    assert places == sorted(places)
    assert not [name for name in names if (build.build_folder() / name).exists()]
