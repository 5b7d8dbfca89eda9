/* build.json: what a build is made of (see build.py). It sits in the build's folder beside the
 * figure's scripts, so the page, the worker and every file it lists are always of one build. */
import { ShownError } from "../lib/shown.js";

const manifests = new Map(); // build folder URL -> Promise of its build.json: one download for every figure of a page

async function download(buildFolder) {
  const timeLimit = AbortSignal.timeout(30000); // 17 kB: 30 s without the whole of it is a stall
  const response = await fetch(new URL("build.json", buildFolder), { signal: timeLimit }).catch((error) => {
    throw new ShownError("runtime.manifestFailed", { reason: error.message });
  });
  if (!response.ok) throw new ShownError(response.status === 404 ? "runtime.manifestMissing" : "runtime.manifestHttp", { status: String(response.status) });
  try {
    return await response.json();
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw new ShownError("runtime.manifestFailed", { reason: error.message });
    throw new ShownError("runtime.manifestDamaged", { reason: error.message });
  }
}

/** The build.json of `buildFolder` (a URL string): downloaded once per page; a failed download is
 *  tried again on the next call. Rejects with a ShownError (lib/shown.js) whose message says what to do. */
export function fetchManifest(buildFolder) {
  if (!manifests.has(buildFolder)) {
    const manifest = download(buildFolder);
    manifests.set(buildFolder, manifest);
    manifest.catch(() => manifests.delete(buildFolder));
  }
  return manifests.get(buildFolder);
}
