/* Attention, live: every file the worker downloads, Pyodide's own requests included, passes here
 * (installCheckedFetch replaces the worker's fetch). For each file listed in build.json's "files":
 *
 *   counted  onBytes(path, bytesSoFar) as data arrives, for the loading line;
 *   watched  a download that receives nothing for STALL_MS is aborted: a stalled connection ends in
 *            an error, and "Try again", instead of an endless wait;
 *   checked  its length and sha256 must be the ones build.py recorded, so a damaged or truncated
 *            file is named instead of failing somewhere inside Pyodide.
 *
 * Requests for other URLs pass through untouched. Hashing: Web Crypto, SubtleCrypto.digest("SHA-256").
 */
"use strict";

const STALL_MS = 30000;

function sha256Hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Download `url` (listed as `path`, with `expected` {bytes, sha256}) and return a Response of the checked bytes. */
async function checkedDownload(networkFetch, url, path, expected, onBytes) {
  const controller = new AbortController();
  let stalled = false;
  let timer = 0;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { stalled = true; controller.abort(); }, STALL_MS);
  };
  let response;
  const chunks = [];
  let loaded = 0;
  watch();
  try {
    response = await networkFetch(url, { signal: controller.signal });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      watch();
      chunks.push(value);
      loaded += value.length;
      onBytes(path, loaded);
    }
  } catch (error) {
    const why = stalled ? `no data for ${STALL_MS / 1000} s` : error.message;
    const fix = !response || response.ok ? "check the connection, then try again"
      : response.status === 404 ? "check that all of dist/ is on the server" : "the server could not send it; try again later";
    throw new Error(`${path} could not be downloaded (${why}): ${fix}`);
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  const digest = sha256Hex(await crypto.subtle.digest("SHA-256", bytes));
  if (loaded !== expected.bytes || digest !== expected.sha256) {
    const what = loaded === expected.bytes ? "its sha256 differs from build.json's"
      : `${loaded.toLocaleString("en")} bytes, not the ${expected.bytes.toLocaleString("en")} build.json lists`;
    throw new Error(`${path} is damaged (${what}): reload the page; if this persists, copy dist/ to the ` +
      "server again, byte for byte (no line-ending or encoding conversion)");
  }
  return new Response(bytes, { status: 200, statusText: "OK", headers: response.headers });
}

/**
 * Route the worker's fetch of the files in `files` ({path: {bytes, sha256}}, paths relative to
 * `base`, the page's folder URL) through checkedDownload. Returns the list that collects every
 * download failure (Error objects, each naming its file), newest last.
 */
function installCheckedFetch(base, files, onBytes) {
  const networkFetch = self.fetch.bind(self);
  const failures = [];
  self.fetch = async (resource, options) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), base);
    const path = url.href.startsWith(base) ? url.href.slice(base.length).split(/[?#]/)[0] : "";
    if (!Object.hasOwn(files, path)) return networkFetch(resource, options);
    try {
      return await checkedDownload(networkFetch, url, path, files[path], onBytes);
    } catch (error) {
      failures.push(error);
      throw error;
    }
  };
  return failures;
}
