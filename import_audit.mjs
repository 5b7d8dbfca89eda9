/* Attention, live: the import audit's run in Pyodide, with Node, for build.py (see import_audit.py).
 *
 *   node import_audit.mjs PYODIDE_DIR PROJECT_WHEEL MODEL_DIR PLAN.json OUT
 *
 * Starts Python from PYODIDE_DIR as the tab's worker does without the memory snapshot, with numpy and
 * PROJECT_WHEEL installed as the worker installs them (tab-python.mjs), then makes the plan's calls
 * through Pyodide's JavaScript API as worker.js makes them (callKwargs, arrays through toPy, results
 * through getBuffer and toJs, every proxy destroyed). OUT gets, as JSON:
 *   modules   [[name, file]] of sys.modules at the end (file "" for a built-in)
 *   outcomes  each step's: "ok", or the Python exception's type name
 *   numbers   each step's answer as a sha256 of its bytes (typed arrays) and JSON (the rest): the
 *             build compares two runs' numbers to the bit
 * Source of the API: Pyodide 0.27.7, src/js/pyodide.ts (loadPyodide, unpackArchive, toPy) and
 * src/js/pyproxy.ts (callKwargs, getBuffer, toJs); PythonError's `type` (src/core/error_handling.ts).
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { installPackages, startPython } from "./tab-python.mjs";

const [pyodideDir, wheelPath, modelDir, planPath, out] = process.argv.slice(2).map((arg) => resolve(arg));
const pyodide = await startPython(pyodideDir);
installPackages(pyodide, pyodideDir, wheelPath);
const Figure = pyodide.pyimport("attention_live.figure").Figure;

/** A sha256 of `value`, a converted answer: typed arrays by their bytes, the rest as JSON. */
function digest(value) {
  const hash = createHash("sha256");
  const walk = (item) => {
    if (ArrayBuffer.isView(item)) hash.update(new Uint8Array(item.buffer, item.byteOffset, item.byteLength));
    else if (Array.isArray(item)) { hash.update("["); item.forEach(walk); hash.update("]"); }
    else if (item && typeof item === "object") for (const key of Object.keys(item).sort()) { hash.update(JSON.stringify(key)); walk(item[key]); }
    else hash.update(JSON.stringify(item ?? null));
  };
  walk(value);
  return hash.digest("hex");
}

/** Python's answer `proxy` as worker.js takes it (resultMessage, answerMessage): analyse's arrays of
 *  numbers through getBuffer, everything else through toJs; the proxy destroyed. */
function taken(name, proxy) {
  try {
    if (name !== "analyse") return proxy?.toJs?.({ dict_converter: Object.fromEntries, create_pyproxies: false }) ?? proxy ?? null;
    const answer = {};
    for (const key of ["text", "ids", "labels", "cache", "tokens_dropped", "chars_dropped", "step", "attention", "entropy", "entropy_even"]) {
      const value = proxy.get(key);
      if (value?.type === "ndarray") {
        const buffer = value.getBuffer("f32");
        answer[key] = { data: buffer.data.slice(), shape: buffer.shape.slice() };
        buffer.release();
      } else answer[key] = value?.toJs?.({ dict_converter: Object.fromEntries, create_pyproxies: false }) ?? value ?? null;
      value?.destroy?.();
    }
    return answer;
  } finally {
    proxy?.destroy?.();
  }
}

const read = (path) => pyodide.toPy(new Uint8Array(readFileSync(`${modelDir}/${path}`)));
let model = null;
let view = null;
let last = 0;
const outcomes = [];
const numbers = [];
for (const step of JSON.parse(readFileSync(planPath, "utf8"))) {
  const proxies = [];
  try {
    let answer = null;
    if (step.make === "figure") {
      proxies.push(read(step.model), read(step.tokenizer));
      model?.destroy();
      model = Figure(...proxies, step.sha256);
    } else if (step.make === "view") {
      view = model.another_view();
    } else if ("checkpoint" in step) {
      proxies.push(read(step.file));
      const add = model.add_checkpoint;
      proxies.push(add);
      add(step.checkpoint, proxies[0], step.sha256);
    } else {
      const method = (step.on === "view" ? view : model)[step.call];
      proxies.push(method);
      const kwargs = Object.fromEntries(Object.entries(step.kwargs).map(([key, value]) => {
        const given = value === "last" ? last : value;
        if (!Array.isArray(given)) return [key, given];
        const list = pyodide.toPy(given);
        proxies.push(list);
        return [key, list];
      }));
      answer = taken(step.call, method.callKwargs(kwargs));
      if (step.call === "analyse") last = Math.max(0, answer.ids.length - 1);
    }
    outcomes.push("ok");
    numbers.push(digest(answer));
  } catch (error) {
    if (!error?.type) throw error; // not Python's: the audit itself failed
    outcomes.push(error.type);
    numbers.push(null);
  } finally {
    for (const proxy of proxies) proxy.destroy();
  }
}
const modules = pyodide.runPython(`
import sys
[[name, getattr(module, "__file__", None) or ""] for name, module in sorted(sys.modules.items())]
`).toJs();
writeFileSync(out, JSON.stringify({ modules, outcomes, numbers }));
console.log(`import audit: ${modules.length} modules in Pyodide after ${outcomes.length} steps, ${out}`);
