/* Attention, live: build a Pyodide memory snapshot with Node, for build.py.
 *
 *   node snapshot.mjs PYODIDE_DIR PROJECT_WHEEL OUT
 *
 * The figure's worker restores Python from this snapshot (loadPyodide's _loadSnapshot) instead of
 * starting CPython and importing the standard library on every visit. Pyodide 0.27's snapshots hold
 * CPython and pure-Python modules only: numpy's compiled extensions are not loaded again on restore,
 * and modules that keep JavaScript objects (pyodide.*, micropip, asyncio's web loop) cannot be
 * serialised. So:
 *
 *   1. a probe instance installs numpy and PROJECT_WHEEL as the tab's worker does (tab-python.mjs), imports the figure's package
 *      and lists the standard-library modules that this pulled in (those read from python_stdlib.zip),
 *      and the package's own modules;
 *   2. a fresh instance, started with _makeSnapshot, imports exactly those standard-library modules,
 *      then, from PROJECT_WHEEL unpacked, those of the package's modules that do not need numpy (the
 *      tokenizer, with its regular expression compiled: about 80 ms of every visit's start-up in the
 *      tab); its memory is written to OUT, gzip-compressed (the worker decompresses it with
 *      DecompressionStream). The worker unpacks the same wheel before it imports the rest.
 *
 * PYTHONHASHSEED is fixed so that the same inputs give the same snapshot, and so the same build id.
 * Source of the API: Pyodide 0.27.7, src/js/pyodide.ts (loadPyodide options) and src/js/snapshot.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { installPackages, startPython } from "./tab-python.mjs";

const [pyodideDir, wheelPath, out] = process.argv.slice(2).map((arg) => resolve(arg));
const options = { env: { PYTHONHASHSEED: "0" } };
const NOT_SERIALISABLE = ["pyodide", "_pyodide", "asyncio", "js", "pyodide_js"];

const probe = await startPython(pyodideDir, options);
installPackages(probe, pyodideDir, wheelPath);
const wheelInFS = `/tmp/${basename(wheelPath)}`;
const unpack = `import site, zipfile; zipfile.ZipFile(${JSON.stringify(wheelInFS)}).extractall(site.getsitepackages()[0])`;
const [stdlib, ownModules] = probe.runPython(`
import sys
import numpy, attention_live.figure
stdlib_zip = tuple(path + "/" for path in sys.path if path.endswith(".zip"))
[" ".join(sorted(name for name, module in sys.modules.items()
                 if (getattr(module, "__file__", None) or "").startswith(stdlib_zip)
                 and name.split(".")[0] not in ${JSON.stringify(NOT_SERIALISABLE)})),
 " ".join(sorted(name for name in sys.modules if name.split(".")[0] == "attention_live"))]
`).toJs();

const python = await startPython(pyodideDir, { ...options, _makeSnapshot: true });
python.FS.writeFile(wheelInFS, readFileSync(wheelPath));
python.runPython(unpack);
const imported = python.runPython(`
import importlib
for name in ${JSON.stringify(stdlib)}.split():
    importlib.import_module(name)
imported = []
for name in ${JSON.stringify(ownModules)}.split():
    try:
        importlib.import_module(name)
        imported.append(name)
    except ModuleNotFoundError as error:  # numpy: not loaded in a snapshot (see above)
        if error.name != "numpy":
            raise
" ".join(imported)
`);
writeFileSync(out, gzipSync(python.makeMemorySnapshot(), { level: 9 }));
console.log(`snapshot: Python with ${stdlib.split(" ").length} standard-library modules and ${imported} imported, ${out}`);
