/* Attention, live: the service worker that keeps the figure working offline after one full visit.
 *
 * app.js registers it as sw.js?build=<id> once the figure is live (id: build.json's "build").
 *   install   store every file of that build (build.json's "files") in one Cache Storage cache,
 *             named after this worker's scope and the build;
 *   activate  delete this scope's caches of other builds, and take control of open pages;
 *   fetch     network first (revalidated), so a new deployment is seen at once; the stored copy
 *             only when the network fails.
 * Lifecycle and Cache API: W3C Service Workers, https://www.w3.org/TR/service-workers/
 */
"use strict";

const build = new URL(self.location.href).searchParams.get("build");
const cachePrefix = `attention-live ${self.registration.scope} `;
const cacheName = cachePrefix + build;

async function storeBuild() {
  const response = await fetch("build.json", { cache: "no-store" });
  const manifest = await response.json();
  if (manifest.build !== build) {
    throw new Error(`build.json is build ${manifest.build}, not ${build}: the page will register the newer one`);
  }
  const cache = await caches.open(cacheName);
  const paths = ["./", "build.json", ...Object.keys(manifest.files)];
  await cache.addAll(paths.map((path) => new Request(path, { cache: "no-cache" }))); // revalidated: 304s, not a second download
}

async function dropOtherBuilds() {
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(cachePrefix) && name !== cacheName).map((name) => caches.delete(name)));
  await self.clients.claim();
}

/* Revalidated with the server (a 304 costs a few bytes), so that a file the HTTP cache holds from an
 * older deployment is never taken for this one's. */
function revalidated(request) {
  return request.mode === "navigate" ? fetch(request.url, { cache: "no-cache", credentials: "same-origin" })
    : fetch(new Request(request, { cache: "no-cache" }));
}

async function networkThenCache(request) {
  try {
    return await revalidated(request);
  } catch (error) {
    const cache = await caches.open(cacheName);
    const stored = await cache.match(request, { ignoreSearch: true }); // the figure's own files only
    if (stored) return stored;
    throw error;
  }
}

self.addEventListener("install", (event) => event.waitUntil(storeBuild().then(() => self.skipWaiting())));
self.addEventListener("activate", (event) => event.waitUntil(dropOtherBuilds()));
self.addEventListener("fetch", (event) => {
  if (event.request.method === "GET" && new URL(event.request.url).origin === self.location.origin) {
    event.respondWith(networkThenCache(event.request));
  }
});
