/* Trusted Types: a course page may send `Content-Security-Policy: require-trusted-types-for 'script'`.
 * The figure parses no HTML string (its markup is built node by node: lib/dom.js fromTree); its one
 * sink is the worker's script URL (new SharedWorker, new Worker), which goes through one policy,
 * named POLICY, that passes nothing but a worker.js of the page's own origin. A page that also names
 * the policies it allows (`trusted-types …`) must name this one (docs/embedding.md).
 */

import { ShownError } from "../lib/shown.js";

export const POLICY = "attention-live";
let policy = null;

/** `url` (a URL of the build's worker.js) as the worker constructors take it: a TrustedScriptURL made
 *  by the POLICY policy where the browser has Trusted Types, else its href. Throws a ShownError
 *  (lib/shown.js) saying what the page must allow where the page's policy names exclude POLICY, and a
 *  TypeError for any other URL. */
export function workerURL(url) {
  if (typeof trustedTypes === "undefined") return url.href;
  if (!policy) {
    try {
      policy = trustedTypes.createPolicy(POLICY, { createScriptURL: checkedWorker });
    } catch (error) {
      throw new ShownError("runtime.trustedTypes", { policy: POLICY, reason: error.message });
    }
  }
  return policy.createScriptURL(url.href);
}

function checkedWorker(href) {
  const url = new URL(href);
  if (url.origin !== location.origin || !url.pathname.endsWith("/worker.js")) throw new TypeError(`${POLICY} passes only the figure's worker.js, not ${href}`); // not shown
  return href;
}
