/* The page's side of the Python worker: request ids mapped to promises (Pyodide's web-worker pattern). */

const SILENT_MS = 45000; // while loading, this long without any message from the worker is a stall

export class PythonWorker {
  /**
   * @param {URL} url            worker script
   * @param {function} onProgress called with {stage, downloaded} while loading (see worker.js)
   */
  constructor(url, onProgress) {
    this.worker = new Worker(url);
    this.pending = new Map(); // request id -> {resolve, reject}
    this.nextId = 1;
    this.onProgress = onProgress;
    this.worker.onmessage = (event) => this.receive(event.data);
    this.name = url.pathname.split("/").pop();
    this.loading = false; // true while init() is pending
    this.worker.onerror = (event) => {
      event.preventDefault(); // said on the status line: not also an uncaught error of the page
      this.fail(`could not start ${this.name} (${event.message || "not loaded"}): `
        + "check that all of dist/ is on the server, with .js files sent as text/javascript");
    };
  }

  /** Load Pyodide, numpy, the project wheel and the model. Resolves once analyse() can be called. */
  init(base, manifest) {
    this.current = this.name; // what is loading now, for the watchdog's sentence
    this.loading = true;
    const loaded = new Promise((resolve, reject) => {
      this.readyHandlers = { resolve, reject };
      this.worker.postMessage({ type: "init", base, manifest });
    });
    this.watch();
    return loaded.finally(() => {
      this.loading = false;
      clearTimeout(this.watchdog);
    });
  }

  /* Downloads that the worker's checked fetch cannot see (importScripts, the worker script itself)
   * can stall too: a loading worker that says nothing for SILENT_MS has stalled. */
  watch() {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.fail(`nothing arrived for ${SILENT_MS / 1000} s while loading ${this.current}: `
      + "check the connection, then try again"), SILENT_MS);
  }

  /** Tokens and attention of `text` (a string, passed as data), with the heads of `knockout`
   *  ([[layer, head], ...], 1-based) knocked out and `whatIf` ({layer, head, scale, mask} or null)
   *  applied to that head. Resolves with the worker's result. */
  analyse(text, { knockout = [], whatIf = null } = {}) {
    return this.request({ type: "analyse", text, knockout, whatIf });
  }

  /** Ask Python for `type` ("explain" or "predict", see worker.js) with `fields`; resolves with its answer. */
  ask(type, fields) {
    return this.request({ ...fields, type }).then((message) => message.value);
  }

  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  /** Stop the worker (after a failed start, before a retry). */
  terminate() {
    this.worker.terminate();
  }

  receive(message) {
    if (this.loading) this.watch();
    if (message.type === "step") this.current = message.what;
    else if (message.type === "progress") this.onProgress(message);
    else if (message.type === "ready") this.readyHandlers.resolve(message);
    else if (message.type === "result" || message.type === "answer") this.settle(message.id, "resolve", message);
    else if (message.type === "error" && message.id !== undefined) this.settle(message.id, "reject", new Error(message.message));
    else if (message.type === "error") this.fail(message.message);
  }

  settle(id, how, value) {
    const handlers = this.pending.get(id);
    this.pending.delete(id);
    if (handlers) handlers[how](value);
  }

  fail(message) {
    if (this.readyHandlers) this.readyHandlers.reject(new Error(message));
    for (const id of [...this.pending.keys()]) this.settle(id, "reject", new Error(message));
  }
}
