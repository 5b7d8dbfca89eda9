/* Attention, live: the worker that runs Python (Pyodide) off the pages' main threads, for every
 * figure of a page: a SharedWorker where the browser has them (then also for the same-origin iframes
 * of the figure on that page, and other tabs of this build), else a dedicated Worker per page. Python
 * starts once; each figure gets its own attention_live Figure view (Figure.another_view: its own KV
 * cache and what-ifs, the model shared).
 *
 * Each connection (a SharedWorker's port, or the dedicated worker itself) speaks these messages;
 * `figure` is the figure's number, chosen by the connection (python-client.js):
 * Messages in:   {type: "init", base, manifest}        base is the build's folder URL, manifest its build.json;
 *                                                      Python starts on the first, later ones wait for it
 *                {type: "analyse", id, figure, text, knockout, whatIf}   the visitor's text, passed to
 *                                                      Python as data; what-ifs: knockout [[layer, head], ...]
 *                                                      1-based, whatIf {layer, head, scale, mask} or null
 *                {type: "explain", id, figure, layer, head, token, scale, mask, knockout}   Figure.explain
 *                {type: "flash", id, figure, layer, head, token, tile}                      Figure.flash
 *                {type: "predict", id, figure, token, top, knockout}                        Figure.predict
 *                {type: "forget", figure}              the figure is gone (its element removed, its page closed)
 *                {type: "tokenize", id, text}          Figure.tokenize, for a figure that is not live yet
 * Messages out:  {type: "hello"}                       at once, on "init": this worker runs and hears the page
 *                {type: "progress", stage, downloaded, total}   stage "python" | "package"; bytes so far,
 *                                                      of the total of build.json's "startup" files
 *                {type: "step", what}                  a loading step begins (what: its files)
 *                {type: "ready", runtime: {id, kind, snapshot, steps}}  Python runs: id made when it started,
 *                                                      kind "shared" or "dedicated", snapshot where Python's
 *                                                      memory snapshot came from ("stored": the offline copy's
 *                                                      unzipped one, "downloaded", or "none": started without),
 *                                                      steps the end of each loading step (ms since the
 *                                                      epoch, for the pages' timings)
 *                {type: "runtime", figures}            to every connection, whenever the number of figures
 *                                                      served changes
 *                {type: "result", id, text, ids, labels, tokensDropped, charsDropped, cache,
 *                 attention: Float32Array, shape: [n_layer, n_head, T, T]}  (attention transferred)
 *                {type: "answer", id, value}           explain's, flash's, predict's or tokenize's dict as plain objects; numpy
 *                                                      arrays as Float32Arrays (2-d: an array of rows)
 *                {type: "error", id?, message}         one sentence, never a traceback
 */
"use strict";

const KIND = typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope ? "shared" : "dedicated";
let model = null; // PyProxy of attention_live.figure.Figure: the model, kept for the worker's life; figures use views of it
let pyodide = null;
let started = null; // the Promise of Python's start: made by the first "init", awaited by every later one
let runtime = null; // {id, kind}, once Python runs
const connections = new Set(); // every connection that has asked for Python: each hears the loading progress

importScripts("checked-fetch.js", "wasm-guards.js", "tar.js");

let checks = null; // from checked-fetch.js: the checks of every download, each failure naming its file
const downloaded = new Map(); // path -> bytes received so far

/** The bytes of `url` (Uint8Array), through checked-fetch.js. */
async function fetchBytes(url) {
  return new Uint8Array(await (await fetch(url)).arrayBuffer());
}

/* The offline copy (sw.js) holds a build's files, and Python's memory snapshot unzipped as well
 * (build.json's "snapshot_unzipped": its key, bytes and sha256), so that a later visit does not gunzip
 * 25 MB on this thread before Python can start (docs/benchmark.md). The worker reads what it needs
 * early straight from Cache Storage, not through sw.js's fetch handler, which passes 13 MB on in
 * pieces, 200-360 ms slower. `storedCopy` resolves with the stored Response for `url`, or null where
 * none is stored or Cache Storage is refused; `checkedCopy` with its bytes (Uint8Array) once checked
 * against build.json's `expected` {bytes, sha256} for `path`, or null where they are not the build's
 * (then the file is downloaded, as on a first visit). */
async function storedCopy(url) {
  try {
    return (await self.caches?.match(url)) ?? null;
  } catch {
    return null;
  }
}

async function checkedCopy(response, path, expected) {
  try {
    const bytes = new Uint8Array(await response.arrayBuffer());
    await checkBytes(bytes, path, expected); // checked-fetch.js
    return bytes;
  } catch {
    return null;
  }
}

/** The bytes of the build's file `path` (Uint8Array) at `url`, listed in build.json as `expected`:
 *  the offline copy's where it holds them and they pass the check, else downloaded (fetchBytes). */
async function storedOrFetched(url, path, expected) {
  const stored = await storedCopy(url);
  const bytes = stored && (await checkedCopy(stored, path, expected));
  if (!bytes) return fetchBytes(url);
  downloaded.set(path, bytes.length);
  return bytes;
}

/** Download `url` into the HTTP cache (a build's files are cached for good), for Pyodide to read
 *  from there when it asks; resolves with nothing once the body has arrived. */
async function intoHttpCache(url) {
  await (await fetch(url)).arrayBuffer();
}

/** The bytes of the gzip file at `url`, decompressed (DecompressionStream, a web standard). */
async function fetchGunzipped(url) {
  const response = await fetch(url);
  return new Uint8Array(await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
}

let total = 0; // bytes of build.json's "startup" files: what a first visit downloads

/* To every connection: the loading progress and steps, and the number of figures served. */
function broadcast(message) {
  for (const connection of connections) connection.postMessage(message);
}

function progress(stage) {
  let bytes = 0;
  for (const loaded of downloaded.values()) bytes += loaded;
  broadcast({ type: "progress", stage, downloaded: bytes, total });
}

/* Python's memory snapshot (made by snapshot.mjs) lets Python start about SNAPSHOT_SAVES_MS sooner
 * than a plain start (measured on this project's 2-core machine: docs/benchmark.md), once its 6.3 MB
 * have arrived; over a phone's network they take several seconds. So it is used where it is stored
 * (the offline copy sw.js made on an earlier visit), or where it would arrive within that time at
 * the link's rate. linkRate judges that rate (bytes per ms; Infinity where the snapshot is stored, 0
 * where a probe failed) by the downloads that came before it (`probes`: their URLs): their bytes on the wire over
 * the time the link was carrying them, from each response's first byte to its last, overlaps counted
 * once (Resource Timing): the link's throughput as this visit has seen it, without the pauses in which
 * this worker was busy between requests, which a busy machine lengthens. Downloads from the HTTP cache
 * (transferSize 0) say the snapshot is likely there too. Otherwise Python starts without it, and the offline copy, made once the figure is live,
 * downloads it for the next visit. The judgement errs one way (bytes on the wire over a time are at
 * most what the link carries): over a link faster than the browser takes in what it receives, a
 * compressed download's time is the browser's decoding, not the link's. So the probes include the
 * standard library's zip, which hosts send as it is (a zip does not compress); measurements in
 * docs/benchmark.md. `stored` is the promise of storedCopy(the snapshot's URL);
 * `probesIn` the promise of the probes' downloads, awaited only where none is stored (a failed one:
 * no snapshot, loadPyodide reports the failure). */
const SNAPSHOT_SAVES_MS = 1000;
/* numpy and the figure's wheel are asked for with the snapshot, not after Python's files, where at
 * that rate their bytes as files (a host's compression only shortens that) take at most this long:
 * on such a link they do not hold Python back, and are in before Python is restored instead of
 * 100-170 ms after it (docs/benchmark.md). */
const PACKAGES_WITH_PYTHON_MS = 1000;

async function linkRate(stored, probesIn, probes) {
  if (await stored) return Infinity;
  if (!(await probesIn.then(() => true, () => false))) return 0;
  const timings = probes.map((url) => performance.getEntriesByName(url, "resource")[0]); // the download itself, not importScripts' read of it
  if (timings.some((timing) => !timing || timing.transferSize === 0)) return Infinity;
  let ms = 0;
  let carried = -Infinity; // the end of the time counted so far
  for (const t of [...timings].sort((a, b) => a.responseStart - b.responseStart)) {
    ms += Math.max(0, t.responseEnd - Math.max(t.responseStart, carried));
    carried = Math.max(carried, t.responseEnd);
  }
  return timings.reduce((sum, t) => sum + t.encodedBodySize, 0) / Math.max(1, ms);
}

/* Start-up, as fast as it can go (each step is timed with a performance mark, for the benchmark).
 * The downloads come in waves, each started once the one before has ended, because on a phone's
 * network they share one link, and what Python needs first would otherwise arrive last:
 *   1. Python's own files: Pyodide's two scripts, the wasm, the standard library and the lock file.
 *      Each goes through the checked fetch (counted, checked, into the HTTP cache), and Pyodide then
 *      reads it from the HTTP cache: the scripts through importScripts, which blocks this worker while
 *      it downloads (on a slow phone network, for minutes: no progress, no answer) and which the
 *      checked fetch does not see. Once the scripts, the wasm and the standard library are in,
 *      Python's memory snapshot is fetched where that is worth it (linkRate, judged by those four
 *      downloads; at once where the offline copy holds it), unless the offline copy holds it
 *      unzipped (storedCopy);
 *   2. numpy (a 13 MB tar archive, 2.3 MB with the host's Brotli) and the figure's wheel;
 *   3. the model and the tokenizer, needed last.
 * The waves are for a slow link. Where the offline copy holds the build (its unzipped snapshot is
 * stored), or the link is fast (PACKAGES_WITH_PYTHON_MS), numpy and the wheel are asked for at once,
 * and are in while Python is restored; from the offline copy they are read straight from Cache
 * Storage (storedOrFetched). The wasm is compiled as soon as it arrives (wasm-guards.js' compileEarly),
 * while the snapshot is still on its way: loadPyodide waits for the snapshot before it instantiates.
 * Python is restored from the snapshot (made at build time by snapshot.mjs) instead of started. numpy's
 * files are written into site-packages from its tar (tar.js: no unzip), the figure's wheel unpacked
 * there by Pyodide's unpackArchive; neither is loaded as a Pyodide package:
 * Pyodide's loadPackage instantiates every one of numpy's 19 extension modules (7.5 MB of wasm) before
 * Python runs, while `import numpy` and the figure need three of them (4.6 MB), which Python's import
 * then loads itself (Emscripten's dlopen, synchronous in a worker); measured in docs/benchmark.md.
 * Every download's check must have passed before the figure says it is ready. A failed download fails
 * where it is awaited, or in loadPyodide, which asks for it again. */
async function init(base, manifest) {
  let stage = "python";
  total = manifest.startup.reduce((sum, path) => sum + manifest.files[path].bytes, 0);
  checks = installCheckedFetch(base, manifest.files, (path, loaded) => {
    downloaded.set(path, loaded);
    progress(stage);
  });
  progress(stage);
  const indexURL = new URL(manifest.pyodide, base).href;
  const url = (path) => new URL(path, base).href;
  const [pyodideJsURL, asmJsURL, wasmURL, stdlibURL, lockURL] = ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
    .map((name) => new URL(name, indexURL).href);
  const [pyodideJs, asmJs] = [pyodideJsURL, asmJsURL].map(fetchBytes);
  const wasm = fetch(wasmURL).then(compileEarly); // compiled while the snapshot is read (wasm-guards.js)
  const [stdlib, lock] = [stdlibURL, lockURL].map(intoHttpCache);
  const snapshotURL = url(manifest.snapshot);
  const unzipped = storedCopy(new URL(manifest.snapshot_unzipped.key, base).href);
  const stored = storedCopy(snapshotURL); // the gzip file, in the offline copy without the unzipped one (its quota)
  for (const download of [asmJs, wasm, stdlib, lock]) download.catch(() => {}); // a failure is reported where it is awaited, or by loadPyodide
  await step("pyodide.js", `Python (${manifest.pyodide}pyodide.js)`, async () => {
    await pyodideJs;
    importScripts(pyodideJsURL);
  });
  await step("pyodide.asm.js", `Python (${manifest.pyodide}pyodide.asm.js)`, () => asmJs); // loadPyodide's importScripts then reads it from the HTTP cache
  const pythonFiles = ["pyodide.asm.js", "pyodide.asm.wasm"].map((name) => manifest.pyodide + name);
  const packagePaths = [...manifest.packages, manifest.wheel]; // numpy's tar (from the build's lock), then the figure's wheel
  const packageBytes = packagePaths.reduce((sum, path) => sum + manifest.files[path].bytes, 0);
  let snapshot;
  let snapshotFrom = "none";
  let packagesNow = true;
  const storedUnzipped = await unzipped; // known before its 25 MB are read: read and checked while Pyodide loads
  if (storedUnzipped) {
    snapshotFrom = "stored";
    snapshot = checkedCopy(storedUnzipped, manifest.snapshot_unzipped.key, manifest.snapshot_unzipped).then((bytes) => {
      if (bytes) return bytes;
      snapshotFrom = "downloaded";
      total += manifest.files[manifest.snapshot].bytes; // downloaded after all
      return fetchGunzipped(snapshotURL);
    });
    snapshot.catch(() => {}); // reported by loadPyodide
    pythonFiles.push(manifest.snapshot_unzipped.key);
  } else {
    const bytesPerMs = await linkRate(stored, Promise.all([wasm, stdlib]), [pyodideJsURL, asmJsURL, wasmURL, stdlibURL]);
    packagesNow = packageBytes / bytesPerMs <= PACKAGES_WITH_PYTHON_MS;
    if (manifest.files[manifest.snapshot].bytes / bytesPerMs <= SNAPSHOT_SAVES_MS) {
      snapshot = fetchGunzipped(snapshotURL);
      snapshot.catch(() => {}); // reported by loadPyodide
      snapshotFrom = "downloaded";
      pythonFiles.push(manifest.snapshot);
    }
  }
  if (snapshotFrom !== "downloaded") {
    total -= manifest.files[manifest.snapshot].bytes; // not downloaded on this visit
    progress(stage);
  }
  const pythonIn = Promise.allSettled([wasm, stdlib, lock, snapshot]);
  const packageFiles = (packagesNow ? Promise.resolve() : pythonIn).then(() => Promise.all(packagePaths.map((path) =>
    (storedUnzipped ? storedOrFetched(url(path), path, manifest.files[path]) : fetchBytes(url(path)))))); // no offline copy: caches.match would only delay the request
  // Asked for as soon as numpy and the wheel are in, before they are unpacked and imported (registered
  // before the step below awaits them, so this runs first): it downloads while Python imports numpy.
  const fetchModel = () => Promise.all([fetchBytes(url(manifest.model)), fetchBytes(url(manifest.tokenizer))]);
  const files = packageFiles.then(fetchModel, fetchModel);
  for (const download of [files, packageFiles]) download.catch(() => {}); // a failure is reported where it is awaited, below
  pyodide = await step("python", `Python (${pythonFiles.join(", ")})`, () => loadPyodideOrFail({ indexURL, _loadSnapshot: snapshot }));
  stage = "package";
  progress(stage);
  const Figure = await step("package", `numpy and the figure's Python package (${packagePaths.join(", ")})`, async () => {
    // Into site-packages as an installer would, without micropip or Pyodide's loadPackage (see above).
    // The snapshot already holds the package's modules that need no numpy (snapshot.mjs), imported
    // from the same wheel at build time; the import system sees that the folder changed since (its
    // modification time) and reads it again. Imported (numpy with it) while the model may still be
    // downloading.
    const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
    const packages = await packageFiles;
    for (const tar of packages.slice(0, -1)) writeTar(pyodide.FS, tar, sitePackages);
    pyodide.unpackArchive(packages.at(-1), "whl", { extractDir: sitePackages });
    return pyodide.pyimport("attention_live.figure").Figure;
  });
  const [modelBytes, tokenizerBytes] = await step("model", `the model (${manifest.model}, ${manifest.tokenizer})`, () => files);
  await step("figure", `the model in Python (attention_live.figure with ${manifest.model})`, () => {
    const modelPy = pyodide.toPy(modelBytes); // a Python memoryview holding a copy of the bytes
    const tokenizerPy = pyodide.toPy(tokenizerBytes);
    model = Figure(modelPy, tokenizerPy, manifest.files[manifest.model].sha256);
    for (const proxy of [Figure, modelPy, tokenizerPy]) proxy.destroy();
  });
  await step("checked", "the downloads", () => checks.allPassed());
  const steps = Object.fromEntries(performance.getEntriesByType("mark").filter((mark) => mark.name.startsWith(STEP))
    .map((mark) => [mark.name.slice(STEP.length), performance.timeOrigin + mark.startTime])); // for the pages' own timings
  runtime = { id: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`, kind: KIND, snapshot: snapshotFrom, steps };
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

function forget(connection, number) {
  const view = figures.get(connection)?.get(number);
  if (!view) return;
  view.destroy();
  figures.get(connection).delete(number);
  broadcast({ type: "runtime", figures: figuresServed() });
}

/* Call `figure`'s method `name` with keyword arguments ({name: value}; arrays become Python lists). */
function callFigure(figure, name, keywords) {
  const method = figure[name];
  const converted = Object.fromEntries(Object.entries(keywords).map(([key, value]) => [key, Array.isArray(value) ? pyodide.toPy(value) : value]));
  try {
    return method.callKwargs(converted);
  } finally {
    method.destroy();
    for (const value of Object.values(converted)) value?.destroy?.();
  }
}

function analyse(connection, figure, id, text, knockout, whatIf) {
  const result = callFigure(figure, "analyse", { text, knockout, what_if: whatIf && [whatIf.layer, whatIf.head, whatIf.scale, whatIf.mask] });
  try {
    const attention = takeArray(result.get("attention"));
    connection.postMessage({
      type: "result", id, text: result.get("text"),
      ids: takeList(result.get("ids")), labels: takeList(result.get("labels")),
      attention: attention.data, shape: attention.shape, cache: takePlain(result.get("cache")),
      tokensDropped: result.get("tokens_dropped"), charsDropped: result.get("chars_dropped"),
    }, [attention.data.buffer]);
  } finally {
    result.destroy();
  }
}

function answer(connection, figure, id, name, keywords) {
  connection.postMessage({ type: "answer", id, value: takePlain(callFigure(figure, name, keywords)) });
}

function sentence(error) {
  // Python errors carry a traceback: only its last line (the exception itself) is kept; Pyodide's
  // "See https://…" hints are dropped.
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  return lines.filter((line) => line.trim() && !line.startsWith("See ")).at(-1) ?? lines.at(-1);
}

const STEP = "attention-live:worker:";

/** Run one loading step, then mark its end (performance mark "attention-live:worker:<name>"). A
 *  failure says which file it was about: the file whose download or check failed, if one did (Pyodide
 *  often reports that as a later, vaguer error), otherwise the step's files (`what`). */
async function step(name, what, work) {
  broadcast({ type: "step", what }); // the pages' watchdogs name it if nothing more arrives
  try {
    const result = await work();
    performance.mark(STEP + name);
    return result;
  } catch (error) {
    await checks.settled();
    if (checks.failures.length) throw checks.failures[0];
    throw new Error(`could not load ${what}: ${sentence(error)}`);
  }
}

/* One connection's messages: "init" joins Python's start (or learns that it runs); the requests of
 * its figures go to their own views. */
function serve(connection) {
  connection.onmessage = async (event) => {
    const message = event.data;
    try {
      if (message.type === "init") {
        connection.postMessage({ type: "hello" }); // at once: the page knows that this worker runs (python-client.js)
        connections.add(connection);
        started ??= init(message.base, message.manifest);
        await started;
        connection.postMessage({ type: "ready", runtime });
        connection.postMessage({ type: "runtime", figures: figuresServed() });
      } else if (message.type === "forget") forget(connection, message.figure);
      else if (message.type === "tokenize") answer(connection, model, message.id, "tokenize", { text: message.text }); // no figure's view
      else {
        const figure = figureOf(connection, message.figure);
        if (message.type === "analyse") analyse(connection, figure, message.id, message.text, message.knockout ?? [], message.whatIf ?? null);
        else if (message.type === "explain") {
          const { layer, head, token, scale, mask, knockout } = message;
          answer(connection, figure, message.id, "explain", { layer, head, token, scale, mask, knockout });
        } else if (message.type === "flash") {
          const { layer, head, token, tile } = message;
          answer(connection, figure, message.id, "flash", { layer, head, token, tile });
        } else if (message.type === "predict") {
          const { token, top, knockout } = message;
          answer(connection, figure, message.id, "predict", { token, top, knockout });
        }
      }
    } catch (error) {
      connection.postMessage({ type: "error", id: message.id, message: sentence(error) });
    }
  };
}

if (KIND === "shared") self.onconnect = (event) => serve(event.ports[0]);
else serve(self);
