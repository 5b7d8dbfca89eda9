/* Attention, live: checks that run before the page's modules, as a classic script, because where
 * they fail (a page opened from disk, a sandboxed iframe without allow-same-origin) module scripts
 * and workers are blocked before any of them can say why. */
"use strict";

(function preflight() {
  let problem = null;
  if (location.protocol === "file:") {
    problem = "This page must be served over HTTP, not opened from disk: run `python3 build.py serve`, " +
      "or put the dist/ folder on any static web server.";
  } else if (self.origin === "null") {
    problem = "This page runs in a sandboxed iframe without `allow-same-origin`: add `allow-scripts " +
      "allow-same-origin` to the iframe's sandbox attribute.";
  } else if (typeof WebAssembly !== "object" || typeof Worker !== "function") {
    problem = "This browser cannot run the figure: it needs WebAssembly and Web Workers.";
  }
  if (problem === null) return;
  document.documentElement.dataset.state = "error";
  document.documentElement.dataset.preflight = "failed";
  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("status").textContent = problem;
  });
})();
