/* Attention, live: every file the worker downloads, Pyodide's own requests included, passes here
 * (installCheckedFetch replaces the worker's fetch). For each file listed in build.json's "files":
 *
 *   streamed  the caller gets the network's own Response as soon as its headers arrive, so that
 *             WebAssembly compiles pyodide.asm.wasm while it downloads and the browser keeps the
 *             compiled code for the next visit (V8 caches only streamed compiles of such responses);
 *   counted   onBytes(path, bytesSoFar) as data arrives, for the loading line;
 *   watched   when no byte has arrived on any download for STALL_MS, the downloads still open are
 *             aborted: a stalled connection ends in an error, and "Try again", instead of an endless
 *             wait. The whole load's progress is what counts: on a slow phone network a download
 *             queued behind others (a browser opens six connections to a host over HTTP/1.1) or
 *             sharing the link with them receives nothing for a long time without being stalled;
 *   checked   a copy of the body (Response.clone) is read beside the caller: its length and sha256
 *             must be the ones build.py recorded. The figure is not ready until every check has passed
 *             (checks.allPassed()), so a damaged or swapped file is named instead of being used.
 *
 * Requests for other URLs pass through untouched. Hashing: Web Crypto, SubtleCrypto.digest("SHA-256").
 * A failure names its message of the page's catalog (shownError): the worker has no catalog, the page
 * writes it in the figure's language (lib/shown.js).
 */
"use strict";

const STALL_MS = 30000;

/** An Error for the page's status line, as a message of the page's catalog: `key` and `params` (numbers
 *  as numbers, written by the page; a param may be another such message). The worker (worker.js) sends
 *  them as they are; its message is the key, for a console. Used by every worker script. */
function shownError(key, params = {}) {
  const error = new Error(key); // not shown
  error.key = key;
  error.params = params;
  return error;
}

function sha256Hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/* The download of `path` failed: its connection (`error`: the browser's, or null where no data arrived
 * on any download for STALL_MS), or its `response`'s HTTP status. */
function downloadError(path, error, response = null) {
  if (response && !response.ok) {
    return shownError(response.status === 404 ? "worker.download.missing" : "worker.download.http", { path, status: String(response.status) });
  }
  return error === null ? shownError("worker.download.stalled", { path, seconds: STALL_MS / 1000 })
    : shownError("worker.download.failed", { path, reason: error.message });
}

/** Read `body` (a ReadableStream) to its end as one Uint8Array; `onChunk(bytesSoFar)` after each chunk. */
async function readAll(body, onChunk) {
  const reader = body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onChunk(loaded);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** The length and sha256 of `bytes` against `expected` ({bytes, sha256}); throws naming `path`. */
async function checkBytes(bytes, path, expected) {
  const digest = sha256Hex(await crypto.subtle.digest("SHA-256", bytes));
  if (bytes.length === expected.bytes && digest === expected.sha256) return;
  throw bytes.length === expected.bytes ? shownError("worker.damaged.hash", { path })
    : shownError("worker.damaged.size", { path, count: bytes.length, expected: expected.bytes });
}

/** The whole load's progress: `arrived()` when any download receives headers or bytes; `watch(onStall)`
 *  calls onStall once nothing has arrived on any download for STALL_MS, and returns a function that
 *  stops watching. */
function loadProgress() {
  let lastArrival = performance.now();
  return {
    arrived() {
      lastArrival = performance.now();
    },
    watch(onStall) {
      let timer = 0;
      const check = () => {
        const silent = performance.now() - lastArrival;
        if (silent >= STALL_MS) onStall();
        else timer = setTimeout(check, STALL_MS - silent);
      };
      timer = setTimeout(check, STALL_MS);
      return () => clearTimeout(timer);
    },
  };
}

/**
 * Start downloading `url` (listed as `path`, with `expected` {bytes, sha256}), watched by `load`
 * (loadProgress). Resolves with the network's Response once its headers have arrived (rejects on an
 * HTTP error or a failed connection); `onCheck(promise)` receives the check of its body, which settles
 * once the whole body is read.
 */
async function checkedDownload(networkFetch, load, url, path, expected, onBytes, onCheck) {
  const controller = new AbortController();
  let stalled = false;
  const unwatch = load.watch(() => { stalled = true; controller.abort(); });
  const why = (error) => (stalled ? null : error); // downloadError's
  let response;
  try {
    response = await networkFetch(url, { signal: controller.signal, cache: "force-cache" }); // a build's files never change
  } catch (error) {
    unwatch();
    throw downloadError(path, why(error));
  }
  load.arrived();
  if (!response.ok) {
    unwatch();
    throw downloadError(path, null, response);
  }
  const copy = response.clone();
  onCheck((async () => {
    let bytes;
    try {
      bytes = await readAll(copy.body, (loaded) => {
        load.arrived();
        onBytes(path, loaded);
      });
    } catch (error) {
      throw downloadError(path, why(error), response);
    } finally {
      unwatch();
    }
    await checkBytes(bytes, path, expected);
  })());
  return response;
}

/**
 * Route the worker's fetch of the files in `files` ({path: {bytes, sha256}}, paths relative to
 * `base`, the build's folder URL) through checkedDownload. Returns the checks:
 *   failures      every failed download or check so far (Error objects, each naming its file), oldest first;
 *   allPassed()   resolves once every download started so far has been read and checked, rejects
 *                 with the first failure;
 *   settled()     resolves once every check started so far has settled, whatever its outcome.
 */
function installCheckedFetch(base, files, onBytes) {
  const networkFetch = self.fetch.bind(self);
  const load = loadProgress();
  const failures = [];
  const pending = [];
  const record = (promise) => {
    const recorded = promise.catch((error) => {
      failures.push(error);
      throw error;
    });
    recorded.catch(() => {}); // reported through failures, allPassed() and the caller
    pending.push(recorded);
    return recorded;
  };
  self.fetch = (resource, options) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), base);
    const path = url.href.startsWith(base) ? url.href.slice(base.length).split(/[?#]/)[0] : "";
    if (!Object.hasOwn(files, path)) return networkFetch(resource, options);
    return record(checkedDownload(networkFetch, load, url, path, files[path], onBytes, record));
  };
  return {
    failures,
    allPassed: async () => {
      await Promise.all(pending);
    },
    settled: () => Promise.allSettled(pending),
  };
}
