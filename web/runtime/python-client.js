/* The page's side of the Python worker (worker.js), one for every figure of the page: request ids
 * mapped to promises (Pyodide's web-worker pattern), each request tagged with the figure it is for,
 * and each figure's texts coalesced (its newest edit wins, on its own). A request's fields are the
 * keyword arguments of the Figure method it names (py/attention_live/figure.py), passed through.
 *
 *   figure A ─┐                        ┌─ SharedWorker "attention-live" (one per build, shared by this
 *   figure B ─┼─ PythonClient (page) ──┤   page, its same-origin iframes of the figure, other tabs)
 *   figure C ─┘   one per page         └─ or, without SharedWorker, a dedicated Worker for this page
 *
 * Python starts once (the first start()); every later figure only joins it. A start that failed is
 * made again from a fresh worker on the next start() ("Try again").
 *
 * A SharedWorker that the browser refuses is replaced at once by a dedicated Worker for this page,
 * with nothing said to the reader: Chromium refuses it in a frame from another site (storage
 * partitioning) with an `error` event, not an exception, and a browser could also leave it silent.
 * So until the shared worker has said something (its "hello", sent as it takes the first message),
 * an `error` event or SHARED_SILENT_MS of silence means "refused" (runtime.sharedRefused says why).
 *
 * A failure is an Error for the figure's status line: a ShownError (lib/shown.js), whose message of the
 * catalog the figure writes in its language, where this file or the worker (which has no catalog: it
 * sends {key, params}) knows what failed; else the error's own words (Python's, the browser's).
 */

import { ShownError } from "../lib/shown.js";
import { workerURL } from "./trusted-types.js";

const SILENT_MS = 45000; // while loading, this long without any message from the worker is a stall
/* How long a new SharedWorker may stay silent before it counts as refused. Its first answer needs only
 * its own small scripts (worker.js and the four it imports, about 15 kB compressed): well under a
 * second on a slow phone network; Chromium's refusal comes within 0.3 s. */
const SHARED_SILENT_MS = 8000;
/* The watchdog's sentence for what is loading: the worker's script, the notebook's kernel, or a step of
 * the worker's start (startup.js's kinds). */
const SILENT = {
  worker: "runtime.silent.worker", kernel: "runtime.silent.kernel", python: "runtime.silent.python",
  package: "runtime.silent.package", model: "runtime.silent.model", figure: "runtime.silent.figure", checked: "runtime.silent.checked",
};
/* EXTENDED_LIFETIME: every SharedWorker is asked for `extendedLifetime: true` (HTML's SharedWorkerOptions,
 * https://html.spec.whatwg.org/multipage/workers.html#dom-sharedworkeroptions-extendedlifetime; Chrome and
 * Edge 148+), which keeps the worker, and the Python in it, running for a while after the last page using it
 * has gone (about five minutes in Chromium 156: docs/benchmark-history.md, "From page to page"). Static course
 * sites (MyST, Sphinx, MkDocs, plain HTML) load a whole new page on every link: with the option, the next
 * page's figures join the Python that the page before started (its "init" is answered at once, worker.js)
 * instead of starting one again. Firefox and Safari do not read the member (a WebIDL dictionary ignores
 * members it does not define), so nothing changes there. Chromium fires `error` at a constructor whose
 * extendedLifetime differs from that of the running worker of the same URL and name, which refusedShared
 * then takes for a refusal; every page of one build asks the same (the worker's URL is in the build's
 * folder), so only a hand-made page could differ. */

export class PythonClient {
  /** @param {URL} url  the worker script (worker.js of the build's folder)
   *  @param {object} [options]
   *    openPort  () => a port to a Python that is not a worker (kernel-port.js: a notebook's kernel),
   *              used in place of the worker: postMessage(message), onmessage, terminate() */
  constructor(url, { openPort = null } = {}) {
    this.url = url;
    this.openPort = openPort;
    this.file = openPort ? null : url.pathname.split("/").pop(); // the worker's script, for the status line's sentences
    this.pending = new Map(); // request id -> {resolve, reject}
    this.nextId = 1;
    this.nextFigure = 1;
    this.progressListeners = new Set();
    this.started = null; // the Promise of the current start
    this.attempts = 0;
    this.runtime = null; // {id, kind, figures} once Python runs
    this.running = new Promise((resolve) => { this.markRunning = resolve; }); // resolves when Python first runs
    this.figures = new Set(); // the numbers of this page's figures that Python serves
    // a page going away drops its figures' views (no element is disconnected then); one that comes
    // back from the back-forward cache gets new views on its next request (worker.js makes them)
    addEventListener("pagehide", () => { for (const number of this.figures) this.port?.postMessage({ type: "forget", figure: number }); });
  }

  /** Start Python (once; again after a failed start), from `base` (the build's folder URL) and
   *  `manifest` (its build.json). Resolves with the runtime {id, kind, figures} once figures can ask. */
  start(base, manifest) {
    if (this.started && !this.failed) return this.started;
    this.connect();
    this.failed = false;
    this.current = { kind: this.openPort ? "kernel" : "worker", file: this.file }; // what is loading now, for the watchdog's sentence (SILENT)
    this.loading = true;
    this.started = new Promise((resolve, reject) => {
      this.readyHandlers = { resolve, reject };
      this.initMessage = { base, manifest };
      this.port.postMessage({ type: "init", ...this.initMessage });
    }).finally(() => {
      this.loading = false;
      clearTimeout(this.watchdog);
    });
    this.started.catch(() => { this.failed = true; });
    this.watch();
    return this.started;
  }

  /* A fresh worker: a SharedWorker where the browser has one and has not refused it on this page (its
   * name changes after a failed start, so that the retry does not join the failed Python), else a
   * dedicated Worker; with openPort, its port instead. */
  connect() {
    this.close();
    this.attempts += 1;
    if (this.openPort) return this.listenTo(this.openPort(), false);
    const name = this.attempts === 1 ? "attention-live" : `attention-live, try ${this.attempts} of ${Date.now()}`; // not shown
    const url = workerURL(this.url); // once: a refused Trusted Types policy throws here, for either kind
    let worker = null;
    if (typeof SharedWorker === "function" && !this.sharedRefused) {
      try {
        worker = new SharedWorker(url, { name, extendedLifetime: true }); // EXTENDED_LIFETIME, above
        worker.port.start();
      } catch {
        // refused here (some embedded or private modes); runtime.sharedRefused, for state(), says why
        this.sharedRefused = "exception"; // not shown
        worker = null;
      }
    }
    const shared = worker !== null;
    if (worker === null) worker = new Worker(url, { name });
    this.listenTo(worker, shared);
    worker.onerror = (event) => {
      event.preventDefault?.(); // said on the status line: not also an uncaught error of the page
      if (this.refusedShared("error event")) return; // not shown
      this.fail(event.message ? new ShownError("runtime.workerFailed", { file: this.file, reason: event.message })
        : new ShownError("runtime.workerNotLoaded", { file: this.file }));
    };
    if (this.shared) {
      this.sharedSilence = setTimeout(() => this.refusedShared(`no answer in ${SHARED_SILENT_MS / 1000} s`), SHARED_SILENT_MS); // not shown
    }
  }

  /* `worker` (a Worker, a SharedWorker, or openPort's port) becomes the current one: its messages are heard. */
  listenTo(worker, shared) {
    this.shared = shared;
    this.port = shared ? worker.port : worker;
    this.worker = worker;
    this.heard = false; // nothing has arrived from it yet
    this.port.onmessage = (event) => this.receive(event.data);
  }

  /* The current worker is a SharedWorker that has said nothing yet: it counts as refused for `why`, and
   * a dedicated worker takes its place, with the same start (true). Otherwise false. */
  refusedShared(why) {
    if (!this.shared || this.heard) return false;
    this.sharedRefused = why;
    this.attempts -= 1; // the same attempt, on another kind of worker
    this.connect();
    if (this.loading) this.port.postMessage({ type: "init", ...this.initMessage });
    return true;
  }

  /* Leave the current worker: a dedicated one stops; a shared one goes on for whoever else uses it. */
  close() {
    clearTimeout(this.sharedSilence);
    if (!this.worker) return;
    if (!this.shared) this.worker.terminate();
    else this.port.close();
    this.worker = null;
  }

  /** Call `listener({stage, downloaded, total})` on every progress message while Python loads. */
  onProgress(listener) {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** The tokens Python shows for `text` (Figure.tokenize: {text, chars_dropped, ids, labels,
   *  tokens_dropped}), for a figure that is not live: no view of its own is made. Call once running. */
  tokenize(text) {
    return this.request({ type: "tokenize", text }).then((message) => message.value);
  }

  /** A figure's own channel to Python: its own KV cache and what-ifs (worker.js), the model shared.
   *  Texts given with submit() are coalesced: while one is computed, only the newest waits, and a
   *  result reaches `onResult(result, request)` only if no newer text was submitted meanwhile (else
   *  nothing: stale results are never drawn); a failure reaches `onError(error, request)` likewise;
   *  `onIdle()` is called when the last text is done. */
  figure({ onResult, onError, onIdle }) {
    const number = this.nextFigure++;
    const client = this;
    this.figures.add(number);
    return {
      busy: false, // a text is being computed
      newest: null, // the request waiting: {seq, text, inputTime, whatIfs: () => {knockout, whatIf}}
      latest: 0, // the seq of the newest request submitted
      /** Compute `request.text` when Python is free (the newest request only). */
      submit(request) {
        this.latest = request.seq;
        this.newest = request;
        this.pump();
      },
      async pump() {
        if (this.busy || this.newest === null) return;
        const request = this.newest;
        this.newest = null;
        this.busy = true;
        try {
          request.whatIfs = request.whatIfs(); // the view's what-ifs when its computing starts
          const result = await this.analyse(request.text, request.whatIfs);
          if (request.seq === this.latest) onResult(result, request);
        } catch (error) {
          if (request.seq === this.latest) onError(error, request);
        } finally {
          this.busy = false;
          if (this.newest) this.pump();
          else onIdle();
        }
      },
      /** Tokens and attention of `text` (a string, passed as data), with the heads of `knockout`
       *  ([[layer, head], ...], 1-based) knocked out and `whatIf` ({layer, head, scale, mask} or null)
       *  applied to that head, by the checkpoint of training step `step` (null: the shipped model; the
       *  worker fetches a checkpoint on its first request): Figure.analyse. Resolves with the worker's result. */
      analyse: (text, { knockout = [], whatIf = null, step = null } = {}) => client.request({
        type: "analyse", figure: number, text, knockout, what_if: whatIf && [whatIf.layer, whatIf.head, whatIf.scale, whatIf.mask], step,
      }),
      /** Ask Python for `type` ("explain", "flash" or "predict": the Figure method) with `fields`, its
       *  keyword arguments; resolves with its answer. */
      ask: (type, fields) => client.request({ ...fields, type, figure: number }).then((message) => message.value),
      /** The figure is gone: its view in Python is dropped. */
      forget: () => {
        client.figures.delete(number);
        client.port?.postMessage({ type: "forget", figure: number });
      },
    };
  }

  /* While loading, a worker that says nothing for SILENT_MS has stalled: downloads that the worker's
   * checked fetch cannot see (importScripts, the worker script itself) can stall too. */
  watch() {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      const { kind, file, files } = this.current;
      this.fail(new ShownError(SILENT[kind], { seconds: SILENT_MS / 1000, file, files }));
    }, SILENT_MS);
  }

  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ ...message, id });
    });
  }

  receive(message) {
    if (!this.heard) {
      this.heard = true;
      clearTimeout(this.sharedSilence);
    }
    if (this.loading) this.watch();
    if (message.type === "hello") return;
    if (message.type === "step") this.current = { kind: message.step, files: message.files };
    else if (message.type === "progress") for (const listener of this.progressListeners) listener(message);
    else if (message.type === "ready") {
      const { steps, ...runtime } = message.runtime;
      markSteps(steps);
      this.runtime = { ...this.runtime, ...runtime, ...(this.sharedRefused && { sharedRefused: this.sharedRefused }) };
      this.readyHandlers.resolve(this.runtime);
      this.markRunning();
    } else if (message.type === "runtime") {
      const { type, ...news } = message;
      this.runtime = { ...this.runtime, ...news };
    }
    else if (message.type === "result" || message.type === "answer") this.settle(message.id, "resolve", message);
    else if (message.type === "error" && message.id !== undefined) this.settle(message.id, "reject", errorOf(message));
    else if (message.type === "error") this.fail(errorOf(message));
  }

  settle(id, how, value) {
    const handlers = this.pending.get(id);
    this.pending.delete(id);
    if (handlers) handlers[how](value);
  }

  /* The start (while loading) and every request waiting fail with `error`. */
  fail(error) {
    if (this.loading) {
      this.readyHandlers.reject(error);
      this.close();
    }
    for (const id of [...this.pending.keys()]) this.settle(id, "reject", error);
  }
}

/* The worker's (or the kernel's) "error" message as an Error: a ShownError where it names a message of
 * the catalog ({key, params}), else its words (Python's exception, one sentence). */
function errorOf(message) {
  return message.key ? new ShownError(message.key, message.params) : new Error(message.message);
}

/* The worker's loading steps as the page's own performance marks ("attention-live:worker:<step>", for
 * the benchmark), where they happened after this page began (a page that joins a running Python has none). */
function markSteps(steps) {
  for (const [name, at] of Object.entries(steps)) {
    const startTime = at - performance.timeOrigin;
    if (startTime >= 0 && performance.getEntriesByName(`attention-live:worker:${name}`).length === 0) {
      performance.mark(`attention-live:worker:${name}`, { startTime });
    }
  }
}

const clients = new Map(); // worker URL -> PythonClient: one per build on a page

/** The page's PythonClient for the worker script `url` (made on the first call). */
export function pythonFor(url) {
  const key = String(url);
  if (!clients.has(key)) clients.set(key, new PythonClient(new URL(url)));
  return clients.get(key);
}
