/* The standalone page's offline copy (sw.js), registered once its figure is live. */

/* After a first full visit, sw.js serves this build's files when the network is gone. data-offline
 * says how that went: "ready", or "unavailable" where no service worker can run (an http: origin
 * other than localhost, some embedded or private modes, a cross-site iframe whose browser partitions
 * or refuses storage) or the files do not fit (the storage quota, checked first, is too small: private
 * windows, full disks). A failed install is remembered for this build, so the page does not download
 * everything again on every visit only to fail again; the figure works online either way. `page` is
 * the folder of index.html and sw.js (the service worker's scope). Nothing here is shown: its errors
 * only decide data-offline, and their words stay English. */
const OFFLINE_FAILED = "attention-live offline copy failed for build "; // not shown
const OFFLINE_RETRY_MS = 24 * 3600 * 1000; // a failed install (a quota, a damaged file, a dropped connection) is tried again after a day
const STORE_FAILED = "sw.js could not store the files"; // not shown

export async function keepForOffline(manifest, page) {
  const remembered = OFFLINE_FAILED + manifest.build;
  try {
    if (!("serviceWorker" in navigator)) throw new Error("no service workers in this context"); // not shown
    if (Date.now() - Number(localStorage.getItem(remembered) ?? -Infinity) < OFFLINE_RETRY_MS) throw new Error("this build could not be stored lately"); // not shown
    const onRequest = new Set((manifest.checkpoints ?? []).map((checkpoint) => checkpoint.path).filter((path) => path !== manifest.model)); // not stored by sw.js's install (the last checkpoint is the model itself)
    const needed = Object.entries(manifest.files).filter(([path]) => !onRequest.has(path)).reduce((sum, [, file]) => sum + file.bytes, 0);
    const { quota = Infinity, usage = 0 } = (await navigator.storage?.estimate?.()) ?? {};
    // never a half-written copy
    if (quota - usage < 1.2 * needed) throw new Error("not enough storage"); // not shown
    const script = new URL(`sw.js?build=${encodeURIComponent(manifest.build)}`, page);
    const registration = await navigator.serviceWorker.register(script, { scope: page });
    const worker = registration.installing ?? registration.waiting ?? registration.active;
    await new Promise((resolve, reject) => {
      const settle = () => {
        if (worker.state === "activated") resolve();
        else if (worker.state === "redundant") reject(new Error(STORE_FAILED)); // sw.js has deleted what it had stored
      };
      worker.addEventListener("statechange", settle);
      settle();
    });
    document.documentElement.dataset.offline = "ready";
  } catch (error) {
    document.documentElement.dataset.offline = "unavailable";
    if (error.message !== STORE_FAILED) return;
    try {
      localStorage.setItem(remembered, String(Date.now()));
    } catch {
      // no storage at all: nothing to remember it in
    }
  }
}
