"""build.py refuses any pinned piece whose hash differs from the official lock's."""

import shutil

import pytest

import build


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
    next(damaged.glob("micropip-*.whl")).unlink()
    with pytest.raises(build.BuildError, match="micropip"):
        build.assemble_pyodide(tmp_path / "out", damaged)


def test_a_damaged_npm_tarball_stops_the_build(monkeypatch, tmp_path):
    tarball = tmp_path / f"pyodide-{build.PYODIDE_VERSION}.tgz"
    tarball.write_bytes(b"not the real tarball")
    monkeypatch.setattr(build, "CACHE", tmp_path)
    with pytest.raises(build.BuildError, match="integrity"):
        build.fetch_pyodide_core()


def test_the_project_wheel_is_reproducible(tmp_path):
    """Same source, same bytes: the build id (a hash of dist/) changes only when something did."""
    first = build.build_project_wheel(tmp_path / "a")
    second = build.build_project_wheel(tmp_path / "b")
    assert build.sha256_of(tmp_path / "a" / first) == build.sha256_of(tmp_path / "b" / second)
