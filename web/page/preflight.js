/* Attention, live: checks that run before the page's modules, as a classic script, because where
 * they fail (a page opened from disk, a sandboxed iframe without allow-same-origin, scripts served
 * with the wrong MIME type) module scripts and workers are blocked before any of them can say why. */
"use strict";

(function preflight() {
  const root = document.documentElement;
  root.dataset.scripts = "running"; // hides the page's no-scripts sentence (see page.css)
  document.addEventListener("DOMContentLoaded", () => { document.getElementById("no-scripts").hidden = true; });

  function stop(problem) {
    root.dataset.state = "error";
    root.dataset.preflight = "failed";
    const show = () => { document.getElementById("status").textContent = problem; };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
    else show();
  }

  let scriptError = null; // the first error thrown while a script of the page was parsed or run
  window.addEventListener("error", (event) => { scriptError ??= event.filename ? event : null; });

  /* Module scripts run before DOMContentLoaded, and page.js defines window.attentionLive as it starts;
   * if it has not, the browser refused one of the page's modules (listed in index.html as the module
   * script and its modulepreload links): name it and why. */
  async function explainBlockedModule() {
    const folder = new URL("./", document.querySelector("script[type=module]").src).href; // the build's folder
    const name = (url) => (url.startsWith(folder) ? url.slice(folder.length) : new URL(url).pathname.split("/").pop()); // views/chips.js
    if (scriptError) {
      stop(`The page's script ${name(scriptError.filename)} is damaged (${scriptError.message}): copy dist/ to the server again.`);
      return;
    }
    const modules = document.querySelectorAll("script[type=module], link[rel=modulepreload]");
    for (const url of Array.from(modules, (element) => element.src || element.href)) {
      let response;
      try {
        response = await fetch(url, { cache: "no-cache" });
      } catch {
        stop(`The page's script ${name(url)} could not be downloaded: check the connection, then reload the page.`);
        return;
      }
      const type = (response.headers.get("Content-Type") || "").split(";")[0].trim();
      if (!response.ok) {
        stop(`The page's script ${name(url)} could not be downloaded (HTTP ${response.status}): check that all of dist/ is on the server.`);
        return;
      }
      if (!/^(text|application)\/(x-)?javascript$/.test(type)) {
        stop(`The server sent ${name(url)} ${type ? `as ${type}` : "without a Content-Type"}, but browsers run scripts only when sent as ` +
          "text/javascript: configure the server to send .js (and .mjs) files as text/javascript.");
        return;
      }
    }
    stop(`The page's scripts did not run: check that no Content-Security-Policy of the server blocks scripts ` +
      "from this origin (the figure needs script-src 'self' 'wasm-unsafe-eval').");
  }

  if (location.protocol === "file:") {
    stop("This page must be served over HTTP, not opened from disk: run \u201cpython3 build.py serve\u201d, " +
      "or put the dist/ folder on any static web server.");
  } else if (self.origin === "null") {
    stop("This page runs in a sandboxed iframe without allow-same-origin: add \u201callow-scripts " +
      "allow-same-origin\u201d to the iframe's sandbox attribute.");
  } else if (typeof WebAssembly !== "object" || typeof Worker !== "function") {
    stop("This browser cannot run the figure: it needs WebAssembly and Web Workers.");
  } else {
    document.addEventListener("DOMContentLoaded", () => {
      if (!window.attentionLive) explainBlockedModule();
    });
  }
})();
