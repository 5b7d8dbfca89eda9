/* Attention, live: how the worker starts Python, all of it in one closure (a classic script that
 * worker.js loads with importScripts, after checked-fetch.js, wasm-guards.js and tar.js).
 *
 *   self.startPython(base, manifest, {broadcast, reason})
 *     -> Promise of {pyodide, model, snapshot, steps}
 *
 * base is the build's folder URL and manifest its build.json; broadcast(message) reaches every page
 * that waits, reason(error) turns an error into a param of another message (worker.js). It resolves
 * with Pyodide, the model (a PyProxy of attention_live.figure.Figure), where Python's memory snapshot
 * came from ("stored", "downloaded" or "none") and the end of each loading step (ms since the epoch).
 * Called once per worker.
 *
 * The downloads come in three waves, each asked for once the one before is in, because on a phone's
 * network they share one link and what Python needs first would otherwise arrive last:
 *   1. Python's own files (Pyodide's two scripts, the wasm, the standard library, the lock file), then
 *      Python's memory snapshot where the offline copy holds it or the link is fast enough (linkRate);
 *   2. numpy's tar and the figure's wheel, written into site-packages without Pyodide's loadPackage;
 *   3. the model and the tokenizer, needed last.
 * On a fast link, or from the offline copy, wave 2 is asked for with wave 1 and wave 3 after it; on a
 * slow one, waves 2 and 3 together once wave 1 is in. Every download is
 * counted and checked (checked-fetch.js); each step ends with a performance mark for the benchmark,
 * and a failed step names its files (a message of the page's catalog: shownError, checked-fetch.js).
 * Messages sent while loading:
 *   {type: "progress", stage: "python" | "package", downloaded, total}   bytes so far, of build.json's "startup" files
 *   {type: "step", step, files}                                          a loading step begins: its kind (FAILED's
 *                                                                        names) and its files
 * Why each choice, with the measurements behind it: docs/benchmark-history.md, "The worker's
 * start-up: why it is built this way".
 */
"use strict";

self.startPython = (function () {
  const STEP = "attention-live:worker:"; // the steps' performance marks: STEP + name
  // Python's snapshot saves about this long over a plain start: fetched only where it arrives sooner.
  const SNAPSHOT_SAVES_MS = 1000;
  // numpy and the wheel are asked for with wave 1 where they would arrive within this time.
  const PACKAGES_WITH_PYTHON_MS = 1000;

  // A failed step's message, by the step's kind ("step" messages name the kind: python-client.js's watchdog)
  const FAILED = {
    python: "worker.loadFailed.python", package: "worker.loadFailed.package", model: "worker.loadFailed.model",
    figure: "worker.loadFailed.figure", checked: "worker.loadFailed.checked",
  };

  let broadcast = null; // to every page that waits
  let reason = null; // an error as a param of another message
  let checks = null; // from checked-fetch.js: the checks of every download, each failure naming its file
  const downloaded = new Map(); // path -> bytes received so far
  let total = 0; // bytes of build.json's "startup" files: what a first visit downloads
  let stage = "python";

  function progress() {
    let bytes = 0;
    for (const loaded of downloaded.values()) bytes += loaded;
    broadcast({ type: "progress", stage, downloaded: bytes, total });
  }

  /** Run one loading step, then mark its end (performance mark STEP + name). A failure names the
   *  file whose download or check failed, if one did (Pyodide often reports that as a later, vaguer
   *  error), otherwise the step's kind (FAILED) and its files (`files`). */
  async function step(name, kind, files, work) {
    broadcast({ type: "step", step: kind, files }); // the pages' watchdogs name it if nothing more arrives
    try {
      const result = await work();
      performance.mark(STEP + name);
      return result;
    } catch (error) {
      await checks.settled();
      if (checks.failures.length) throw checks.failures[0];
      throw shownError(FAILED[kind], { files, reason: reason(error) });
    }
  }

  /** The bytes of `url` (Uint8Array), through the checked fetch. */
  async function fetchBytes(url) {
    return new Uint8Array(await (await fetch(url)).arrayBuffer());
  }

  /** Download `url` into the HTTP cache (a build's files are cached for good), where Pyodide reads it
   *  when it asks; resolves once the body has arrived. */
  async function intoHttpCache(url) {
    await (await fetch(url)).arrayBuffer();
  }

  /** The bytes of the gzip file at `url`, decompressed (DecompressionStream, a web standard). */
  async function fetchGunzipped(url) {
    const response = await fetch(url);
    return new Uint8Array(await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
  }

  /* The offline copy (sw.js) is read straight from Cache Storage, not through sw.js's fetch handler,
   * which is slower. storedCopy: the stored Response for `url`, or null (none, or Cache Storage
   * refused). checkedCopy: its bytes once checked against build.json's `expected` {bytes, sha256}
   * for `path`, or null where they are not the build's (then the file is downloaded instead). */
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

  /** The bytes of the build's file `path` at `url`: the offline copy's where they pass the check,
   *  else downloaded. */
  async function storedOrFetched(url, path, expected) {
    const stored = await storedCopy(url);
    const bytes = stored && (await checkedCopy(stored, path, expected));
    if (!bytes) return fetchBytes(url);
    downloaded.set(path, bytes.length);
    return bytes;
  }

  /* The link's rate in bytes per ms, as this visit's first downloads (`probes`, their URLs) saw it:
   * their bytes on the wire over the time from each response's first byte to its last, overlaps
   * counted once (Resource Timing), so the worker's own busy pauses do not count. Infinity where the
   * snapshot is stored (`stored`) or a probe came from the HTTP cache (then the snapshot likely did
   * too); 0 where a probe failed (`probesIn` rejects). */
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

  return async function startPython(base, manifest, options) {
    ({ broadcast, reason } = options);
    total = manifest.startup.reduce((sum, path) => sum + manifest.files[path].bytes, 0);
    checks = installCheckedFetch(base, manifest.files, (path, loaded) => {
      downloaded.set(path, loaded);
      progress();
    });
    progress();
    const indexURL = new URL(manifest.pyodide, base).href;
    const url = (path) => new URL(path, base).href;
    const [pyodideJsURL, asmJsURL, wasmURL, stdlibURL, lockURL] = ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
      .map((name) => new URL(name, indexURL).href);

    // Wave 1. Pyodide's scripts go through the checked fetch first: importScripts, which then reads
    // them from the HTTP cache, would block this worker while it downloads, unseen and unchecked.
    const [pyodideJs, asmJs] = [pyodideJsURL, asmJsURL].map(fetchBytes);
    const wasm = fetch(wasmURL).then(compileEarly); // compiled while the snapshot is read (wasm-guards.js)
    const [stdlib, lock] = [stdlibURL, lockURL].map(intoHttpCache);
    const snapshotURL = url(manifest.snapshot);
    const unzipped = storedCopy(new URL(manifest.snapshot_unzipped.key, base).href);
    const stored = storedCopy(snapshotURL); // the gzip file, in the offline copy without the unzipped one (its quota)
    for (const download of [asmJs, wasm, stdlib, lock]) download.catch(() => {}); // a failure is reported where it is awaited, or by loadPyodide
    await step("pyodide.js", "python", `${manifest.pyodide}pyodide.js`, async () => {
      await pyodideJs;
      importScripts(pyodideJsURL);
    });
    await step("pyodide.asm.js", "python", `${manifest.pyodide}pyodide.asm.js`, () => asmJs); // loadPyodide's importScripts then reads it from the HTTP cache

    // The snapshot: the offline copy's unzipped one (no gunzip on this thread), else the gzip file
    // where the link brings it within SNAPSHOT_SAVES_MS, else none (sw.js stores it for the next visit).
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
      // Judged by the standard library's zip as well, which hosts send uncompressed: a compressed
      // download's time on a fast link is the browser's decoding, not the link's.
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
      progress();
    }

    // Waves 2 and 3: the packages, then the model. Where the packages come with wave 1 (a fast link, the
    // offline copy), the model is asked for once they are in, so that it downloads while Python imports
    // numpy. On a slow link both are asked for once Python's files are in: Python's start then keeps this
    // thread busy for a second or more, and a model asked for only when the packages are in would wait
    // for it while the link stood idle (0.5 s on 4G: docs/benchmark-history.md, issue 46).
    const pythonIn = Promise.allSettled([wasm, stdlib, lock, snapshot]);
    const packageFiles = (packagesNow ? Promise.resolve() : pythonIn).then(() => Promise.all(packagePaths.map((path) =>
      (storedUnzipped ? storedOrFetched(url(path), path, manifest.files[path]) : fetchBytes(url(path)))))); // no offline copy: caches.match would only delay the request
    const fetchModel = () => Promise.all([fetchBytes(url(manifest.model)), fetchBytes(url(manifest.tokenizer))]);
    const files = packagesNow ? packageFiles.then(fetchModel, fetchModel) : pythonIn.then(fetchModel);
    for (const download of [files, packageFiles]) download.catch(() => {}); // a failure is reported where it is awaited, below

    const pyodide = await step("python", "python", pythonFiles.join(", "), () => loadPyodideOrFail({ indexURL, _loadSnapshot: snapshot }));
    stage = "package";
    progress();
    const Figure = await step("package", "package", packagePaths.join(", "), async () => {
      // Into site-packages as an installer would: numpy's tar file by file (tar.js), the wheel by
      // unpackArchive. The snapshot already holds the package's modules that need no numpy; the import
      // system sees that the folder changed since (its modification time) and reads it again.
      const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]"); // not shown
      const packages = await packageFiles;
      for (const tar of packages.slice(0, -1)) writeTar(pyodide.FS, tar, sitePackages);
      pyodide.unpackArchive(packages.at(-1), "whl", { extractDir: sitePackages });
      return pyodide.pyimport("attention_live.figure").Figure;
    });
    const [modelBytes, tokenizerBytes] = await step("model", "model", `${manifest.model}, ${manifest.tokenizer}`, () => files);
    const model = await step("figure", "figure", manifest.model, () => {
      const modelPy = pyodide.toPy(modelBytes); // a Python memoryview holding a copy of the bytes
      const tokenizerPy = pyodide.toPy(tokenizerBytes);
      try {
        return Figure(modelPy, tokenizerPy, manifest.files[manifest.model].sha256);
      } finally {
        for (const proxy of [Figure, modelPy, tokenizerPy]) proxy.destroy();
      }
    });
    await step("checked", "checked", "", () => checks.allPassed());
    const steps = Object.fromEntries(performance.getEntriesByType("mark").filter((mark) => mark.name.startsWith(STEP))
      .map((mark) => [mark.name.slice(STEP.length), performance.timeOrigin + mark.startTime])); // for the pages' own timings
    return { pyodide, model, snapshot: snapshotFrom, steps };
  };
})();
