"""A copy of the project's sources in a temporary folder, built there by build.py as a new user would.

The copy shares the project's ``.cache/`` (pinned downloads and snapshots), so building it needs no
network; everything else (``SOURCES``: the build's scripts, ``web/``, ``py/``, ``weights/``) is copied,
so a test may change any of it.
"""

import os
import shutil
import subprocess
import sys

import build

SOURCES = ("build.py", "snapshot.mjs", "pycompile.mjs", "import_audit.py", "import_audit.mjs", "tab-python.mjs", "requirements-audit.txt",
           "web", "py", "weights")


def copy_sources(folder):
    """Copy the sources into ``folder`` (created); returns it."""
    folder.mkdir(parents=True)
    for name in SOURCES:
        source = build.ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, folder / name)
    (folder / ".cache").symlink_to(build.CACHE, target_is_directory=True)
    return folder


def run_build(folder, python=sys.executable, command="build"):
    """``python build.py COMMAND`` in ``folder`` ("build", or "release": dist/ and its zip), offline
    (pip and npm may not reach a registry); returns ``folder / "dist"``. Fails with build.py's output
    if it exits non-zero."""
    environment = {**os.environ, "PIP_NO_INDEX": "1", "npm_config_offline": "true", "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([str(python), "build.py", command], cwd=folder, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return folder / "dist"
