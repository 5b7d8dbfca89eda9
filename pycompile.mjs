/* Attention, live: compile a Pyodide package wheel's Python sources to bytecode, with Node, for build.py.
 *
 *   node pycompile.mjs PYODIDE_DIR WHEEL OUT
 *
 * Pyodide 0.27.7's numpy wheel holds its 174 modules as .py sources, so every visit's `import numpy`
 * compiles them again in the tab (about 0.6 s of the figure's start-up on this project's machine:
 * docs/benchmark.md). OUT is WHEEL with each `name.py` replaced by `name.pyc`, compiled by Pyodide's own
 * CPython 3.12 (the tab's: bytecode is specific to a Python version), which Python imports without
 * a source (a sourceless module: PEP 3147 keeps this layout for distributions without sources).
 * The .pyc files are hash-based and unchecked (PEP 552), so the same wheel gives the same bytes;
 * tracebacks name the original paths (py_compile's dfile). The wheel's RECORD is written again for
 * the new files. Everything else (the compiled extension modules, the metadata) is copied as it is.
 * Source of the API: CPython 3.12's py_compile and zipfile; the wheel format (PEP 427, RECORD).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const [pyodideDir, wheelPath, out] = process.argv.slice(2).map((arg) => resolve(arg));
const { loadPyodide } = createRequire(import.meta.url)(`${pyodideDir}/pyodide.js`);
const python = await loadPyodide({ indexURL: `${pyodideDir}/`, env: { PYTHONHASHSEED: "0" }, stdout: () => {}, stderr: (line) => console.error(line) });
python.FS.writeFile("/tmp/in.whl", readFileSync(wheelPath));
const summary = python.runPython(`
import base64, hashlib, py_compile, zipfile

def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"

compiled = 0
with zipfile.ZipFile("/tmp/in.whl") as wheel, zipfile.ZipFile("/tmp/out.whl", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as new:
    record_name = next(name for name in wheel.namelist() if name.endswith(".dist-info/RECORD"))
    records = []
    for info in wheel.infolist():
        if info.filename == record_name:
            continue
        name, data = info.filename, wheel.read(info)
        if name.endswith(".py"):
            with open("/tmp/module.py", "wb") as source:
                source.write(data)
            py_compile.compile("/tmp/module.py", cfile="/tmp/module.pyc", dfile=name, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            name, data = name + "c", open("/tmp/module.pyc", "rb").read()
            compiled += 1
        entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        entry.external_attr = info.external_attr
        entry.compress_type = zipfile.ZIP_DEFLATED
        new.writestr(entry, data)
        records.append(record_line(name, data))
    entry = zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0))
    entry.compress_type = zipfile.ZIP_DEFLATED
    new.writestr(entry, "\\n".join(records + [f"{record_name},,"]) + "\\n")
f"{compiled} modules compiled"
`);
writeFileSync(out, python.FS.readFile("/tmp/out.whl"));
console.log(`pycompile: ${summary}, ${out}`);
