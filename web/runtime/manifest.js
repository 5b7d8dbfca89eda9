/* build.json: what a build is made of (see build.py). It sits in the build's folder beside the
 * figure's scripts, so the page, the worker and every file it lists are always of one build. */

const manifests = new Map(); // build folder URL -> Promise of its build.json: one download for every figure of a page

function httpAdvice(status) {
  return status === 404 ? "check that all of dist/ is on the server" : "the server could not send it; try again later";
}

async function download(buildFolder) {
  const timeLimit = AbortSignal.timeout(30000); // 17 kB: 30 s without the whole of it is a stall
  const response = await fetch(new URL("build.json", buildFolder), { signal: timeLimit }).catch((error) => {
    throw new Error(`could not download build.json (${error.message}): check the connection, then try again`);
  });
  if (!response.ok) throw new Error(`could not download build.json (HTTP ${response.status}): ${httpAdvice(response.status)}`);
  try {
    return await response.json();
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw new Error(`could not download build.json (${error.message}): check the connection, then try again`);
    throw new Error(`build.json is damaged (${error.message}): copy dist/ to the server again`);
  }
}

/** The build.json of `buildFolder` (a URL string): downloaded once per page; a failed download is
 *  tried again on the next call. Rejects with an Error whose message says what to do. */
export function fetchManifest(buildFolder) {
  if (!manifests.has(buildFolder)) {
    const manifest = download(buildFolder);
    manifests.set(buildFolder, manifest);
    manifest.catch(() => manifests.delete(buildFolder));
  }
  return manifests.get(buildFolder);
}
