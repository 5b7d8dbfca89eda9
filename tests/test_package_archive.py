"""web/runtime/worker/tar.js, with which the worker writes numpy's files into Pyodide's file system, against Python's
tarfile reading the same archives: POSIX ustar, as build.py's package_wheels_as_tar writes them."""

import hashlib
import io
import json
import tarfile

import pytest

import build
from support.figure_page import browser_context

WRITE = """([hex, folder]) => {
  const bytes = new Uint8Array(hex.match(/../g)?.map((pair) => parseInt(pair, 16)) ?? []);
  const files = {}, directories = [];
  const fs = {
    mkdirTree: (path) => directories.push(path),
    writeFile: (path, data, options) => {
      files[path] = { hex: Array.from(data, (b) => b.toString(16).padStart(2, "0")).join(""), viewOfInput: data.buffer === bytes.buffer, canOwn: options.canOwn };
    },
  };
  try {
    return { written: writeTar(fs, bytes, folder), files, directories };
  } catch (error) {
    return { error: error.message, files };
  }
}"""


def ustar(members, format=tarfile.USTAR_FORMAT):
    """A tar archive (bytes) of ``members``: (name, bytes) for a file, (name, None) for a directory,
    (name, "-> target") for a symbolic link."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=format) as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            if content is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif isinstance(content, str):
                info.type, info.linkname = tarfile.SYMTYPE, content.removeprefix("-> ")
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return out.getvalue()


@pytest.fixture(scope="module")
def page(playwright):
    with browser_context(playwright) as context:
        page = context.new_page()
        page.set_content("<!doctype html><title>tar.js</title>")
        page.add_script_tag(path=str(build.ROOT / "web" / "runtime" / "worker" / "tar.js"))
        yield page


def write_tar(page, data, folder="/lib/site"):
    return page.evaluate(WRITE, [data.hex(), folder])


def test_every_file_is_written_as_pythons_tarfile_reads_it(page):
    long_name = "pkg/" + "d" * 60 + "/" + "f" * 60 + ".pyc"  # over ustar's 100 bytes: its folders go to the prefix field
    data = ustar([("pkg/", None), ("pkg/__init__.pyc", b"\x00\x01 bytecode\x00"), ("pkg/empty.typed", b""),
                  ("pkg/one-block.so", bytes(range(256)) * 2), ("pkg/sub/data.json", "é".encode() * 600), (long_name, b"long")])
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        expected = {f"/lib/site/{m.name}": tar.extractfile(m).read().hex() for m in tar.getmembers() if m.isfile()}
    assert long_name in {m.name for m in tarfile.open(fileobj=io.BytesIO(data)).getmembers()}
    result = write_tar(page, data)
    assert result["written"] == 5
    assert {path: file["hex"] for path, file in result["files"].items()} == expected
    assert all(file["viewOfInput"] and file["canOwn"] for file in result["files"].values())  # no copies
    assert set(result["directories"]) == {path.rsplit("/", 1)[0] for path in expected}


@pytest.mark.parametrize("members, format, message", [
    ([("pkg/a.pyc", b"a"), ("pkg/link", "-> a.pyc")], tarfile.USTAR_FORMAT, 'the package archive\'s "pkg/link" is not a file or a directory (type "2")'),
    ([("pkg/a.pyc", b"a")], tarfile.GNU_FORMAT, 'the package archive is not a ustar archive (at "pkg/a.pyc")'),
    ([("pkg/a.pyc", b"a"), ("../outside.pyc", b"b")], tarfile.USTAR_FORMAT, 'the package archive\'s "../outside.pyc" would be written outside /lib/site'),
    ([("pkg/a.pyc", b"a"), ("pkg/../../outside.pyc", b"b")], tarfile.USTAR_FORMAT, 'the package archive\'s "pkg/../../outside.pyc" would be written outside /lib/site'),
])
def test_an_archive_it_cannot_write_is_refused_by_name(page, members, format, message):
    result = write_tar(page, ustar(members, format))
    assert result["error"] == message


def test_an_archive_that_ends_inside_a_file_is_refused(page):
    data = ustar([("pkg/a.pyc", b"a"), ("pkg/big.so", bytes(3000))])
    result = write_tar(page, data[:2048])  # the second header, then 1,024 of its 3,000 bytes
    assert result["error"] == 'the package archive ends inside "pkg/big.so"'
    assert list(result["files"]) == ["/lib/site/pkg/a.pyc"]


def test_the_builds_numpy_is_written_file_for_file(page, origin):
    """The build's own numpy tar, as the worker gets it: each file written has the sha256 that Python's
    tarfile reads for it, and the lock file names the tar with its sha256."""
    folder = build.build_folder()
    lock = json.loads((folder / "pyodide" / "pyodide-lock.json").read_text())
    tar_path = folder / "pyodide" / lock["packages"]["numpy"]["file_name"]
    assert lock["packages"]["numpy"]["sha256"] == build.sha256_of(tar_path)
    with tarfile.open(tar_path) as tar:
        expected = {f"/site/{m.name}": hashlib.sha256(tar.extractfile(m).read()).hexdigest() for m in tar.getmembers() if m.isfile()}
    assert len(expected) > 80  # what the figure imports (issue 46), and numpy's .dist-info
    page.goto(f"{origin}/{folder.name}/build.json")  # the archive's origin, where tar.js is then added
    page.add_script_tag(path=str(build.ROOT / "web" / "runtime" / "worker" / "tar.js"))
    written = page.evaluate("""async (url) => {
        const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
        const files = [];
        const fs = { mkdirTree: () => {}, writeFile: (path, data) => files.push([path, data]) };
        writeTar(fs, bytes, "/site");
        const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
        return Object.fromEntries(await Promise.all(files.map(async ([path, data]) => [path, hex(await crypto.subtle.digest("SHA-256", data))])));
    }""", f"{origin}/{folder.name}/pyodide/{tar_path.name}")
    assert written == expected
