/* Attention, live: two guards and a head start around Pyodide 0.27's wasm loading, for the Web Worker
 * (importScripts).
 *
 * 1. WebAssembly.instantiateStreaming needs the response's MIME type to be application/wasm; many
 *    hosts send .wasm as application/octet-stream. Then the bytes are instantiated from a buffer.
 * 2. Pyodide's loader reports a failed instantiation (a damaged or truncated file) only through
 *    console.warn, and its promise never settles; loadPyodideOrFail turns that report into a rejection.
 * 3. loadPyodide instantiates its wasm only once the memory snapshot is in (it sizes the memory by
 *    it); compileEarly compiles the wasm meanwhile, and instantiateStreaming then uses that module.
 *    Source: Pyodide 0.27.7, src/js/pyodide.ts (loadPyodide awaits _loadSnapshot before it creates
 *    the module) and src/js/emscripten-settings.ts (getInstantiateWasmFunc: the wasm's instantiateStreaming).
 */
"use strict";

const instantiateStreaming = WebAssembly.instantiateStreaming;
const compiledEarly = new Map(); // a wasm file's URL -> the Promise of its WebAssembly.Module

function servedAsWasm(response) {
  return (response.headers.get("Content-Type") || "").split(";")[0].trim() === "application/wasm";
}

/** Compile the wasm `response` (a Response) now, for a later instantiateStreaming of the same URL,
 *  which then instantiates this module instead of compiling the file again. Resolves when compiled. */
async function compileEarly(response) {
  const module = servedAsWasm(response) ? WebAssembly.compileStreaming(response) : response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
  compiledEarly.set(response.url, module);
  await module;
}

WebAssembly.instantiateStreaming = async (source, imports) => {
  const response = await source;
  const early = compiledEarly.get(response.url);
  if (early) {
    const module = await early;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  }
  if (servedAsWasm(response)) return instantiateStreaming(response, imports);
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
};

/** loadPyodide(options), rejecting with the cause when the wasm cannot be instantiated. */
function loadPyodideOrFail(options) {
  return new Promise((resolve, reject) => {
    const warn = console.warn;
    let failed = false;
    console.warn = (...args) => {
      warn.apply(console, args);
      if (failed) reject(new Error(String(args[0] && args[0].message ? args[0].message : args[0])));
      // Pyodide's words, matched
      failed = failed || args[0] === "wasm instantiation failed!"; // not shown
    };
    loadPyodide(options).then(resolve, reject).finally(() => { console.warn = warn; });
  });
}
