/* Attention, live: Python in Node as the tab's worker sets it up, for build.py's Node scripts
 * (import_audit.mjs, snapshot.mjs).
 *
 *   startPython(pyodideDir, options) -> Promise of Pyodide   loadPyodide from the build's Pyodide folder
 *   installPackages(pyodide, pyodideDir, wheelPath)           numpy and the project's wheel into site-packages
 *
 * installPackages writes numpy's files from the tar that the folder's lock names with the worker's own
 * tar reader (web/runtime/worker/tar.js) and unpacks the wheel with unpackArchive, as
 * web/runtime/worker/startup.js does: never Pyodide's loadPackage, which would import Python's tarfile,
 * a module the build does not ship. Source of the API: Pyodide 0.27.7, src/js/pyodide.ts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

globalThis.self = globalThis; // tar.js is a worker's classic script: it defines writeTar on the global scope
const tarReader = join(dirname(fileURLToPath(import.meta.url)), "web/runtime/worker/tar.js");
const writeTar = (0, eval)(`${readFileSync(tarReader, "utf8")}\nwriteTar;`);

export async function startPython(pyodideDir, options = {}) {
  const { loadPyodide } = createRequire(import.meta.url)(`${pyodideDir}/pyodide.js`);
  return loadPyodide({ indexURL: `${pyodideDir}/`, stdout: () => {}, stderr: (line) => console.error(line), ...options });
}

export function installPackages(pyodide, pyodideDir, wheelPath) {
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  const lock = JSON.parse(readFileSync(`${pyodideDir}/pyodide-lock.json`, "utf8"));
  writeTar(pyodide.FS, new Uint8Array(readFileSync(`${pyodideDir}/${lock.packages.numpy.file_name}`)), sitePackages);
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "whl", { extractDir: sitePackages });
}
