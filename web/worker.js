/* Attention, live: the Web Worker that runs Python (Pyodide) off the page's main thread.
 *
 * Messages in:   {type: "init", base, manifest}        once; base is the page's folder URL, manifest build.json
 *                {type: "analyse", id, text}           the visitor's text, passed to Python as data
 * Messages out:  {type: "progress", stage, downloaded}   stage "python" | "numpy"; downloaded: bytes so far
 *                {type: "step", what}                  a loading step begins (what: its files)
 *                {type: "ready"}
 *                {type: "result", id, text, ids, labels, tokensDropped, charsDropped,
 *                 attention: Float32Array, shape: [n_layer, n_head, T, T]}  (attention transferred)
 *                {type: "error", id?, message}         one sentence, never a traceback
 */
"use strict";

let figure = null; // PyProxy of attention_live.figure.Figure, kept for the worker's life
let pyodide = null;

function post(message, transfer = []) {
  self.postMessage(message, transfer);
}

importScripts("checked-fetch.js", "wasm-guards.js");

let downloadFailures = []; // from checked-fetch.js: every failed download, each naming its file
const downloaded = new Map(); // path -> bytes received so far

/** The bytes of `url` (Uint8Array), through checked-fetch.js. */
async function fetchBytes(url) {
  return new Uint8Array(await (await fetch(url)).arrayBuffer());
}

function progress(stage) {
  let bytes = 0;
  for (const loaded of downloaded.values()) bytes += loaded;
  post({ type: "progress", stage, downloaded: bytes });
}

async function init(base, manifest) {
  let stage = "python";
  downloadFailures = installCheckedFetch(base, manifest.files, (path, loaded) => {
    downloaded.set(path, loaded);
    progress(stage);
  });
  progress(stage);
  const files = Promise.all([ // downloaded while Python starts
    fetchBytes(new URL(manifest.model, base)),
    fetchBytes(new URL(manifest.tokenizer, base)),
  ]);
  files.catch(() => {}); // a failure is reported where it is awaited, below
  const indexURL = new URL(manifest.pyodide, base).href;
  await step(`Python (${manifest.pyodide}pyodide.js)`, () => importScripts(indexURL + "pyodide.js"));
  pyodide = await step(`Python (${manifest.pyodide}pyodide.asm.js and pyodide.asm.wasm)`, () => loadPyodideOrFail({ indexURL }));
  stage = "numpy";
  progress(stage);
  await step(`${manifest.packages.join(" and ")} (wheels in ${manifest.pyodide})`, async () => {
    const errors = []; // loadPackage reports a failed download or checksum here instead of throwing
    await pyodide.loadPackage(manifest.packages, { messageCallback: () => {}, errorCallback: (e) => errors.push(e) });
    const missing = manifest.packages.filter((name) => !(name in pyodide.loadedPackages));
    if (missing.length) throw new Error(`${missing.join(", ")} not installed (a failed download, or a wheel whose sha256 differs from pyodide-lock.json): ${errors.join(" ").replace(/\s+/g, " ").trim() || "unknown error"}`);
  });
  await step(`the figure's Python package (${manifest.wheel})`, async () => {
    const micropip = pyodide.pyimport("micropip");
    try {
      await micropip.install(new URL(manifest.wheel, base).href, { deps: false });
    } finally {
      micropip.destroy();
    }
  });
  const [modelBytes, tokenizerBytes] = await step(`the model (${manifest.model}, ${manifest.tokenizer})`, () => files);
  const Figure = pyodide.pyimport("attention_live.figure").Figure;
  const modelPy = pyodide.toPy(modelBytes); // a Python memoryview holding a copy of the bytes
  const tokenizerPy = pyodide.toPy(tokenizerBytes);
  figure = Figure(modelPy, tokenizerPy, manifest.files[manifest.model].sha256);
  for (const proxy of [Figure, modelPy, tokenizerPy]) proxy.destroy();
  post({ type: "ready" });
}

function takeList(proxy) {
  const list = proxy.toJs();
  proxy.destroy();
  return list;
}

/* Attention crosses as one flat Float32Array plus its shape, copied out of wasm memory. */
function takeArray(proxy) {
  if (proxy === undefined || proxy === null) return { data: new Float32Array(0), shape: [0, 0, 0, 0] };
  const buffer = proxy.getBuffer("f32");
  const array = { data: buffer.data.slice(), shape: buffer.shape.slice() };
  buffer.release();
  proxy.destroy();
  return array;
}

function analyse(id, text) {
  const result = figure.analyse(text);
  try {
    const attention = takeArray(result.get("attention"));
    post({
      type: "result", id, text: result.get("text"),
      ids: takeList(result.get("ids")), labels: takeList(result.get("labels")),
      attention: attention.data, shape: attention.shape,
      tokensDropped: result.get("tokens_dropped"), charsDropped: result.get("chars_dropped"),
    }, [attention.data.buffer]);
  } finally {
    result.destroy();
  }
}

function sentence(error) {
  // Python errors carry a traceback: only its last line (the exception itself) is kept; Pyodide's
  // "See https://…" hints are dropped.
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  return lines.filter((line) => line.trim() && !line.startsWith("See ")).at(-1) ?? lines.at(-1);
}

/** Run one loading step; a failure says which file it was about: the file whose download failed,
 *  if one did (Pyodide often reports that as a later, vaguer error), otherwise the step's files. */
async function step(what, work) {
  post({ type: "step", what }); // the page's watchdog names it if nothing more arrives
  try {
    return await work();
  } catch (error) {
    if (downloadFailures.length) throw downloadFailures[0];
    throw new Error(`could not load ${what}: ${sentence(error)}`);
  }
}

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "init") await init(message.base, message.manifest);
    else if (message.type === "analyse") analyse(message.id, message.text);
  } catch (error) {
    post({ type: "error", id: message.id, message: sentence(error) });
  }
};
