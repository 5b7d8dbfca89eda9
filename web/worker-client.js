/* The page's side of the Python worker: request ids mapped to promises (Pyodide's web-worker pattern). */

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
    const name = url.pathname.split("/").pop();
    this.worker.onerror = (event) => this.fail(`could not start ${name} (${event.message || "not loaded"}): `
      + "check that all of dist/ is on the server, with .js files sent as text/javascript");
  }

  /** Load Pyodide, numpy, the project wheel and the model. Resolves once analyse() can be called. */
  init(base, manifest) {
    return new Promise((resolve, reject) => {
      this.readyHandlers = { resolve, reject };
      this.worker.postMessage({ type: "init", base, manifest });
    });
  }

  /** Tokens and attention of `text` (a string, passed as data). Resolves with the worker's result. */
  analyse(text) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: "analyse", id, text });
    });
  }

  /** Stop the worker (after a failed start, before a retry). */
  terminate() {
    this.worker.terminate();
  }

  receive(message) {
    if (message.type === "progress") this.onProgress(message);
    else if (message.type === "ready") this.readyHandlers.resolve(message);
    else if (message.type === "result") this.settle(message.id, "resolve", message);
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
