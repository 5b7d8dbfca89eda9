/* Attention, live: a tar archive's files written into Pyodide's file system, for worker.js.
 *
 * writeTar(fs, bytes, folder) writes every regular file of the POSIX ustar archive `bytes` (a
 * Uint8Array, as build.py's package_wheels_as_tar writes numpy's) under the absolute path `folder`,
 * with Emscripten's file system API (pyodide.FS: mkdirTree, writeFile), making directories as the
 * files need them. Each file's contents are a view of `bytes`, not a copy (MEMFS's canOwn), so
 * `bytes` must not be changed afterwards. Returns the number of files written.
 * Throws Error, naming the entry, for anything but a ustar archive of regular files and directories
 * (a link, a device), an entry that ends past the archive's end, or a path that would leave `folder`
 * (absolute, or with a ".." part): its message in English, for a console, and its message of the page's
 * catalog (key, params), which the figure shows (worker.js, lib/shown.js).
 * Source: POSIX.1-2017, pax, "ustar Interchange Format": a 512-byte header per entry (name at 0, 100
 * bytes; size at 124, octal; typeflag at 156; magic "ustar\0" at 257; prefix at 345, 155 bytes, the
 * name's leading directories), the contents padded to 512 bytes, two zero blocks at the end.
 */
"use strict";

const BLOCK = 512;
const REGULAR_FILE = new Set(["0", "\0"]); // "\0": pre-POSIX tar's regular file
const DIRECTORY = "5";

/* An Error with its words in English (`english`: a console's, and tests/test_package_archive.py's) and
 * its message of the page's catalog (`key`, `params`), which the figure shows. */
function archiveError(english, key, params) {
  const error = new Error(english);
  error.key = key;
  error.params = params;
  return error;
}

function writeTar(fs, bytes, folder) {
  const decoder = new TextDecoder();
  const field = (start, length) => {
    const raw = bytes.subarray(start, start + length);
    const end = raw.indexOf(0);
    return decoder.decode(end < 0 ? raw : raw.subarray(0, end));
  };
  const made = new Set();
  let written = 0;
  for (let header = 0; header + BLOCK <= bytes.length && bytes[header] !== 0;) {
    const prefix = field(header + 345, 155);
    const name = prefix ? `${prefix}/${field(header, 100)}` : field(header, 100);
    if (field(header + 257, 6) !== "ustar") throw archiveError(`the package archive is not a ustar archive (at "${name}")`, "worker.tar.notUstar", { name }); // not shown
    const size = parseInt(field(header + 124, 12).trim(), 8);
    const type = String.fromCharCode(bytes[header + 156]);
    const start = header + BLOCK;
    if (!Number.isSafeInteger(size) || size < 0 || start + size > bytes.length) throw archiveError(`the package archive ends inside "${name}"`, "worker.tar.endsInside", { name }); // not shown
    if (name.startsWith("/") || name.split("/").includes("..")) {
      throw archiveError(`the package archive's "${name}" would be written outside ${folder}`, "worker.tar.outside", { name, folder }); // not shown
    }
    if (REGULAR_FILE.has(type)) {
      const path = `${folder}/${name}`;
      const directory = path.slice(0, path.lastIndexOf("/"));
      if (!made.has(directory)) {
        fs.mkdirTree(directory);
        made.add(directory);
      }
      fs.writeFile(path, bytes.subarray(start, start + size), { canOwn: true });
      written += 1;
    } else if (type !== DIRECTORY) {
      throw archiveError(`the package archive's "${name}" is not a file or a directory (type "${type}")`, "worker.tar.notFile", { name, type }); // not shown
    }
    header = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return written;
}
