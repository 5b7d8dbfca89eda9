/* Attention, live: two guards around Pyodide 0.27's wasm loading, for the Web Worker (importScripts).
 *
 * 1. WebAssembly.instantiateStreaming needs the response's MIME type to be application/wasm; many
 *    hosts send .wasm as application/octet-stream. Then the bytes are instantiated from a buffer.
 * 2. Pyodide's loader reports a failed instantiation (a damaged or truncated file) only through
 *    console.warn, and its promise never settles; loadPyodideOrFail turns that report into a rejection.
 */
"use strict";

const instantiateStreaming = WebAssembly.instantiateStreaming;

WebAssembly.instantiateStreaming = async (source, imports) => {
  const response = await source;
  const type = (response.headers.get("Content-Type") || "").split(";")[0].trim();
  if (type === "application/wasm") return instantiateStreaming(response, imports);
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
      failed = failed || args[0] === "wasm instantiation failed!";
    };
    loadPyodide(options).then(resolve, reject).finally(() => { console.warn = warn; });
  });
}
