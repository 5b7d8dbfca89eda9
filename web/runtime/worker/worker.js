/* Attention, live: the worker that runs Python (Pyodide) off the pages' main threads, for every
 * figure of a page: a SharedWorker where the browser has them (then also for the same-origin iframes
 * of the figure on that page, and other tabs of this build), else a dedicated Worker per page. This
 * file is the protocol; how Python starts is startup.js. Python starts once; each figure gets its own
 * attention_live Figure view (Figure.another_view: its own KV cache and what-ifs, the model shared).
 *
 * Each connection (a SharedWorker's port, or the dedicated worker itself) speaks these messages;
 * `figure` is the figure's number, chosen by the connection (python-client.js):
 * In:   {type: "init", base, manifest}       base: the build's folder URL, manifest: its build.json;
 *                                            Python starts on the first, later ones wait for it
 *       {type, id, figure, ...arguments}     a request (REQUESTS): Figure.<type>(**arguments) on the
 *                                            figure's view; py/attention_live/figure.py's signatures are
 *                                            the contract ("tokenize" is asked of the model: no figure)
 *       {type: "forget", figure}             the figure is gone (its element removed, its page closed)
 * Out:  {type: "hello"}                      at once, on "init": this worker runs and hears the page
 *       {type: "progress", ...}, {type: "step", step, files}   while Python loads (startup.js)
 *       {type: "ready", runtime: {id, kind, snapshot, steps}}   Python runs: id made when it started,
 *                                            kind "shared" or "dedicated", snapshot where Python's memory
 *                                            snapshot came from ("stored": the offline copy's unzipped
 *                                            one, "downloaded", or "none"), steps the end of each loading
 *                                            step (ms since the epoch, for the pages' timings)
 *       {type: "runtime", figures}           to every connection, whenever the number of figures served changes
 *       {type: "result", id, text, ids, labels, tokensDropped, charsDropped, cache,
 *        attention: Float32Array, shape: [n_layer, n_head, T, T],
 *        entropy: Float32Array [n_layer × n_head × T], entropyEven: Float32Array [T]}   analyse's answer
 *                                            (arrays transferred); an analyse with a `step` first loads
 *                                            that checkpoint (build.json's "checkpoints"), once
 *       {type: "answer", id, value}          any other request's dict as plain objects, numpy arrays as
 *                                            Float32Arrays (2-d: an array of rows), None as null
 *       {type: "error", id?, key, params}    what failed, as a message of the page's catalog (this worker has
 *                                            none): its key and params (lib/shown.js), written on the page
 *       {type: "error", id?, message}        or, for Python's own exceptions, their words: one sentence,
 *                                            never a traceback
 */
"use strict";

importScripts("checked-fetch.js", "wasm-guards.js", "tar.js", "startup.js"); // startup.js: self.startPython

const KIND = typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope ? "shared" : "dedicated";
// Globals, also for the tests' and the benchmark's code run in this worker (tests/support/figure_page.py):
let pyodide = null;
let model = null; // PyProxy of attention_live.figure.Figure: the model, kept for the worker's life; figures use views of it
let started = null; // the Promise of Python's start: made by the first "init", awaited by every later one
let runtime = null; // {id, kind, snapshot, steps}, once Python runs
let build = null; // {base, manifest} of the build served: where checkpoints are fetched from
const checkpoints = new Map(); // training step -> Promise: the checkpoint fetched and loaded into the model (Figure.add_checkpoint)
const connections = new Set(); // every connection that has asked for Python: each hears the loading progress

/* To every connection: the loading progress and steps, and the number of figures served. */
function broadcast(message) {
  for (const connection of connections) connection.postMessage(message);
}

/* Start Python (startup.js), then say which Python this is: `runtime`, sent with "ready". */
async function startRuntime(base, manifest) {
  build = { base, manifest };
  const python = await self.startPython(base, manifest, { broadcast, reason });
  ({ pyodide, model } = python);
  runtime = { id: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`, kind: KIND, snapshot: python.snapshot, steps: python.steps };
}

/* Python's answers as transferable JavaScript values; each destroys the PyProxy it is given. */

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

/* Python's None arrives as undefined; the page's contract says null. (numpy arrays arrive as typed arrays.) */
function nullForNone(value) {
  if (value === undefined) return null;
  if (ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map(nullForNone);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullForNone(v)]));
  return value;
}

/* A Python dict of numbers, lists, dicts and numpy arrays as plain JavaScript objects, arrays and
 * typed arrays (None as null). */
function takePlain(proxy) {
  if (proxy === undefined || proxy === null || typeof proxy !== "object") return proxy ?? null;
  const plain = proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
  proxy.destroy();
  return nullForNone(plain);
}

/* Figure.analyse's dict as the "result" message, and what it transfers. */
function resultMessage(id, result) {
  try {
    const attention = takeArray(result.get("attention"));
    const entropy = takeArray(result.get("entropy"));
    const even = takeArray(result.get("entropy_even"));
    return [{
      type: "result", id, text: result.get("text"),
      ids: takeList(result.get("ids")), labels: takeList(result.get("labels")),
      attention: attention.data, shape: attention.shape, entropy: entropy.data, entropyEven: even.data, cache: takePlain(result.get("cache")),
      tokensDropped: result.get("tokens_dropped"), charsDropped: result.get("chars_dropped"),
    }, [attention.data.buffer, entropy.data.buffer, even.data.buffer]];
  } finally {
    result.destroy();
  }
}

/* Any other request's dict as the "answer" message. */
function answerMessage(id, value) {
  return [{ type: "answer", id, value: takePlain(value) }, []];
}

/* The requests, one row each: the Figure method of that name is called with the request's other
 * fields as keyword arguments, on the figure's own view (or on the model, for a figure that is not
 * live yet), and its value sent back as `reply` makes it. */
const REQUESTS = {
  analyse: { onView: true, reply: resultMessage },
  explain: { onView: true, reply: answerMessage },
  flash: { onView: true, reply: answerMessage },
  predict: { onView: true, reply: answerMessage },
  rollout: { onView: true, reply: answerMessage },
  tokenize: { onView: false, reply: answerMessage },
};

/* Call `figure`'s method `name` with keyword arguments ({name: value}; arrays become Python lists; a
 * field left undefined takes Python's default). */
function callFigure(figure, name, keywords) {
  const method = figure[name];
  const converted = Object.fromEntries(Object.entries(keywords).filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, Array.isArray(value) ? pyodide.toPy(value) : value]));
  try {
    return method.callKwargs(converted);
  } finally {
    method.destroy();
    for (const value of Object.values(converted)) value?.destroy?.();
  }
}

/* The figures served, per connection: figure number -> PyProxy of its Figure view. */
const figures = new Map(); // connection -> Map

function figuresServed() {
  let count = 0;
  for (const served of figures.values()) count += served.size;
  return count;
}

/* The Figure view of `number` on `connection`, made on its first request. */
function figureOf(connection, number) {
  if (!figures.has(connection)) figures.set(connection, new Map());
  const served = figures.get(connection);
  if (!served.has(number)) {
    served.set(number, model.another_view());
    broadcast({ type: "runtime", figures: figuresServed() });
  }
  return served.get(number);
}

/* The figure `number` of `connection` is gone: its view is dropped; with the connection's last figure, the
 * connection itself (its map, and its place among those that hear broadcasts) until it asks again. A page
 * that goes away forgets each of its figures (python-client.js, on pagehide), and a worker kept alive from
 * page to page (python-client.js's EXTENDED_LIFETIME) serves hundreds of pages in turn: so what it keeps
 * per page does not grow with them. */
function forget(connection, number) {
  const served = figures.get(connection);
  const view = served?.get(number);
  if (!view) return;
  view.destroy();
  served.delete(number);
  if (served.size === 0) {
    figures.delete(connection);
    connections.delete(connection);
  }
  broadcast({ type: "runtime", figures: figuresServed() });
}

/* The checkpoint of training step `step` loaded into the model, for every figure: fetched (through the
 * checked fetch: build.json lists its bytes and sha256) on its first request only, then kept. A failed
 * load is tried again on the next request. */
function checkpoint(step) {
  if (!checkpoints.has(step)) {
    const { base, manifest } = build;
    const entry = (manifest.checkpoints ?? []).find((listed) => listed.step === step);
    const loading = entry === undefined ? Promise.reject(shownError("worker.checkpointUnknown", { step: { number: step, grouping: false } }))
      : entry.path === manifest.model ? Promise.resolve() // the shipped model itself
        : fetch(new URL(entry.path, base)).then((response) => response.arrayBuffer()).then((bytes) => {
          const file = pyodide.toPy(new Uint8Array(bytes));
          const add = model.add_checkpoint;
          try {
            add(step, file, manifest.files[entry.path].sha256);
          } finally {
            add.destroy();
            file.destroy();
          }
        }, (error) => { throw shownError("worker.checkpointDownload", { step: { number: step, grouping: false }, path: entry.path, reason: reason(error) }); });
    loading.catch(() => checkpoints.delete(step));
    checkpoints.set(step, loading);
  }
  return checkpoints.get(step);
}

function sentence(error) {
  // Python errors carry a traceback: only its last line (the exception itself) is kept; Pyodide's
  // "See https://…" hints are dropped.
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  return lines.filter((line) => line.trim() && !line.startsWith("See ")).at(-1) ?? lines.at(-1); // not shown
}

/* `error` as a param of another message (its reason): the message it names ({key, params}), or its
 * words as one sentence. */
function reason(error) {
  return error && error.key ? { key: error.key, params: error.params } : sentence(error);
}

/* `error` as the "error" message's fields: {key, params} where it names a message of the page's
 * catalog (shownError, checked-fetch.js), else {message}: its words. */
function errorFields(error) {
  return error && error.key ? { key: error.key, params: error.params } : { message: sentence(error) };
}

/* Requests are answered in the order they arrive, even while one waits for a checkpoint's download:
 * a figure's explain or predict always follows the analyse it was asked after. */
let turn = Promise.resolve();
function inTurn(task) {
  const done = turn.then(task);
  turn = done.catch(() => {});
  return done;
}

/* One connection's messages: "init" joins Python's start (or learns that it runs); a request goes
 * to its figure's own view. */
function serve(connection) {
  connection.onmessage = async (event) => {
    const message = event.data;
    if (message.type !== "forget") connections.add(connection); // again, for a page that forgot its last figure and asks once more (forget)
    try {
      const { type, id, figure: number, ...keywords } = message;
      if (type === "init") {
        connection.postMessage({ type: "hello" }); // at once: the page knows that this worker runs (python-client.js)
        started ??= startRuntime(message.base, message.manifest);
        await started;
        connection.postMessage({ type: "ready", runtime });
        connection.postMessage({ type: "runtime", figures: figuresServed() });
      } else if (type === "forget") await inTurn(() => forget(connection, number));
      else if (Object.hasOwn(REQUESTS, type)) {
        const { onView, reply } = REQUESTS[type];
        await inTurn(async () => {
          if (type === "analyse" && keywords.step != null) await checkpoint(keywords.step);
          const figure = onView ? figureOf(connection, number) : model;
          connection.postMessage(...reply(id, callFigure(figure, type, keywords)));
        });
      }
    } catch (error) {
      connection.postMessage({ type: "error", id: message.id, ...errorFields(error) });
    }
  };
}

if (KIND === "shared") self.onconnect = (event) => serve(event.ports[0]);
else serve(self);
