/* Attention, live: the service worker that keeps the figure working offline after one full visit.
 *
 * offline.js registers it as sw.js?build=<id> once the figure is live (id: build.json's "build"). Every
 * file of a build except index.html lives in the folder <id>/ (see build.py), so its URL names its
 * build and its content never changes.
 *   install   download every file of that build (its build.json's "files") but the checkpoints of
 *             "Watch it learn" (its "checkpoints": a reader may never ask for one), check each against the
 *             sha256 listed there, and store them with index.html in one Cache Storage cache, named
 *             after this worker's scope and the build; if any of it fails (a quota too small, in a
 *             private window or on a full disk), delete what was stored, so no half-written cache stays.
 *             Then, where the quota allows, Python's memory snapshot unzipped as well (25 MB), for the
 *             Python worker to start from on later visits (startup.js, storedCopy);
 *   activate  delete this scope's caches of other builds, and take control of open pages;
 *   fetch     index.html: the network first (never from the HTTP cache: a new deployment is seen at once), the
 *             stored copy when the network fails, for every address that serves it (the folder, index.html,
 *             with any query; a fragment never reaches a service worker). A file of this build: left to the browser while the
 *             network answers (a response from a service worker loses V8's compiled-code cache for
 *             pyodide.asm.wasm: measured 0.3-0.6 s more per warm start), the stored copy when the
 *             browser is offline or index.html could not be fetched. A checkpoint (weights/checkpoints/):
 *             the stored copy if a reader has watched it before, else the network's, then stored, so that
 *             what a reader has watched works offline too.
 * Lifecycle and Cache API: W3C Service Workers, https://www.w3.org/TR/service-workers/
 */
"use strict";

const build = new URL(self.location.href).searchParams.get("build");
const buildFolder = new URL(`${build}/`, self.registration.scope).href;
const cachePrefix = `attention-live ${self.registration.scope} `;
const cacheName = cachePrefix + build;

function sha256Hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether `bytes` (ArrayBuffer) are what build.json lists as `expected` ({bytes, sha256}). */
async function asListed(bytes, expected) {
  return bytes.byteLength === expected.bytes && sha256Hex(await crypto.subtle.digest("SHA-256", bytes)) === expected.sha256;
}

/** Download `path` of this build and check it against `expected` ({bytes, sha256}); a Response to store. */
async function checkedCopy(path, expected) {
  const response = await fetch(new URL(path, buildFolder), { cache: "force-cache" }); // a build's files never change
  const bytes = await response.arrayBuffer();
  if (!response.ok || !(await asListed(bytes, expected))) {
    throw new Error(`${path} of build ${build} is not the file build.json lists: not stored`); // not shown
  }
  return new Response(bytes, { status: 200, statusText: "OK", headers: response.headers });
}

async function storeBuild() {
  try {
    await storeFiles();
  } catch (error) {
    await caches.delete(cacheName);
    throw error;
  }
}

/* Each file is stored as soon as it has been checked; every download and store settles before
 * storeBuild deletes a cache that any of them failed (a store still running could write after it). */
async function storeFiles() {
  const manifest = await (await fetch(new URL("build.json", buildFolder), { cache: "force-cache" })).json();
  const page = await fetch(self.registration.scope, { cache: "no-store" }); // see fromNetwork
  if (!page.ok || !(await page.clone().text()).includes(`"${build}/page.js"`)) {
    throw new Error(`index.html is not build ${build}'s: the page will register the newer one`); // not shown
  }
  const cache = await caches.open(cacheName);
  const onRequest = new Set((manifest.checkpoints ?? []).map((checkpoint) => checkpoint.path).filter((path) => path !== manifest.model)); // the last is the model itself
  const stored = await Promise.allSettled(Object.entries(manifest.files).filter(([path]) => !onRequest.has(path)).map(async ([path, expected]) => {
    await cache.put(new URL(path, buildFolder), await checkedCopy(path, expected));
  }));
  const failed = stored.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  await cache.put(new URL("build.json", buildFolder), new Response(JSON.stringify(manifest), { headers: { "Content-Type": "application/json" } }));
  await cache.put(self.registration.scope, page); // last: a cache with the page holds the whole build
  await storeUnzippedSnapshot(cache, manifest);
}

/* Python's memory snapshot as Python reads it (build.json's "snapshot_unzipped": key, bytes, sha256),
 * unzipped from the stored gzip file and checked. Best effort: where it cannot be stored (the quota),
 * the worker unzips the gzip file on each visit, as before. */
async function storeUnzippedSnapshot(cache, manifest) {
  const entry = manifest.snapshot_unzipped;
  try {
    const gzipped = await cache.match(new URL(manifest.snapshot, buildFolder));
    const bytes = await new Response(gzipped.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    if (!(await asListed(bytes, entry))) return;
    await cache.put(new URL(entry.key, buildFolder), new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
  } catch {
    // the gzip file stays, and serves
  }
}

async function dropOtherBuilds() {
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(cachePrefix) && name !== cacheName).map((name) => caches.delete(name)));
  await self.clients.claim();
}

async function storedThenNetwork(request) {
  const stored = await caches.match(request, { cacheName, ignoreSearch: true }); // caches.open would make an empty cache
  return stored ?? fetch(request);
}

/* index.html (3 kB) is always downloaded whole: a 304 answered from a Last-Modified in seconds can
 * take a deployment made within the same second as the old one's for unchanged. Other requests
 * outside the build's folder are revalidated. */
function fromNetwork(request) {
  return request.mode === "navigate" ? fetch(request.url, { cache: "no-store", credentials: "same-origin" })
    : fetch(new Request(request, { cache: "no-cache" }));
}

/* What the store holds for `request`: the page itself under the scope's address, whichever address of it
 * was asked for ("…/", "…/index.html", with a query); anything else under its own. */
function storedKey(request) {
  const url = new URL(request.url);
  const page = url.origin + url.pathname;
  return page === self.registration.scope || page === self.registration.scope + "index.html" ? self.registration.scope : request;
}

let networkFailed = false; // the last request for index.html got no answer: serve the build from the store

async function networkThenStored(request) {
  try {
    const response = await fromNetwork(request);
    networkFailed = false;
    return response;
  } catch (error) {
    networkFailed = true;
    const stored = await caches.match(storedKey(request), { cacheName, ignoreSearch: true }); // the figure's own files only
    if (stored) return stored;
    throw error;
  }
}

/* A checkpoint of "Watch it learn": stored once fetched (the worker checks its bytes against build.json
 * as it reads them, and a build's files never change), then served from the store. */
async function storedOrKept(request) {
  if (!(await caches.has(cacheName))) return fetch(request); // no copy of this build (yet): nothing to add to
  const cache = await caches.open(cacheName);
  const stored = await cache.match(request, { ignoreSearch: true });
  if (stored) return stored;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone()).catch(() => {}); // a full quota: served, not kept
  return response;
}

self.addEventListener("install", (event) => event.waitUntil(storeBuild().then(() => self.skipWaiting())));
self.addEventListener("activate", (event) => event.waitUntil(dropOtherBuilds()));
self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (!request.url.startsWith(buildFolder)) event.respondWith(networkThenStored(request));
  else if (request.url.startsWith(`${buildFolder}weights/checkpoints/`)) event.respondWith(storedOrKept(request));
  else if (networkFailed || !self.navigator.onLine) event.respondWith(storedThenNetwork(request));
});
