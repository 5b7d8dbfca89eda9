/* Attention, live: checks that run before the page's modules, as a classic script, because where
 * they fail (a page opened from disk, a sandboxed iframe without allow-same-origin, scripts served
 * with the wrong MIME type) module scripts and workers are blocked before any of them can say why.
 *
 * What it says is a message of the catalogs (web/i18n/<lang>.json, "preflight." keys), which no script
 * could fetch where it must speak (from disk, from a sandboxed frame's opaque origin): build.py writes
 * them into the page, a JSON block (WORDS: {lang: {key: message}}, English first). The language is the
 * one the address asks for (its fragment's lang), else the browser's first with a catalog, else English. */
"use strict";

(function preflight() {
  const WORDS = "attention-live-preflight"; // the id of the page's JSON block of messages
  const root = document.documentElement;

  /* The tag among `available` for the first of `asked` (language tags) that has a catalog: the tag
   * itself, else its primary subtag ("de-CH" → "de"), case ignored; null for none (i18n/language.js's
   * chooseLanguage, which this classic script cannot import). */
  function chooseLanguage(asked, available) {
    const tags = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
    for (const tag of asked) {
      if (typeof tag !== "string" || tag.trim() === "") continue;
      const lower = tag.trim().toLowerCase().replace(/_/g, "-");
      const found = tags.get(lower) || tags.get(lower.split("-")[0]);
      if (found) return found;
    }
    return null;
  }

  /* Message `key` of the page's language with each {name} filled from `params` (strings, as they are). */
  function words(key, params = {}) {
    let catalogs = {};
    try {
      catalogs = JSON.parse(document.getElementById(WORDS).textContent);
    } catch {
      // no block: the key itself shows, naming what went wrong
    }
    let asked = [];
    try {
      asked = [new URLSearchParams(location.hash.slice(1)).get("lang"), ...(navigator.languages || [])];
    } catch {
      // a fragment that is not URLSearchParams syntax: the browser's languages
    }
    const lang = chooseLanguage(asked, Object.keys(catalogs)) || "en";
    const message = (catalogs[lang] || {})[key] || (catalogs.en || {})[key] || key;
    return message.replace(/\{(\w+)\}/g, (whole, name) => (Object.prototype.hasOwnProperty.call(params, name) ? params[name] : whole));
  }
  root.dataset.scripts = "running"; // hides the page's no-scripts sentence (see page.css)
  document.addEventListener("DOMContentLoaded", () => { document.getElementById("no-scripts").hidden = true; });

  /* The figure cannot run: its status line says why (message `key` with `params`: words). */
  function stop(key, params) {
    root.dataset.state = "error";
    root.dataset.preflight = "failed";
    const show = () => { document.getElementById("status").textContent = words(key, params); };
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
      stop("preflight.scriptDamaged", { file: name(scriptError.filename), reason: scriptError.message });
      return;
    }
    const modules = document.querySelectorAll("script[type=module], link[rel=modulepreload]");
    for (const url of Array.from(modules, (element) => element.src || element.href)) {
      let response;
      try {
        response = await fetch(url, { cache: "no-cache" });
      } catch {
        stop("preflight.scriptNotDownloaded", { file: name(url) });
        return;
      }
      const type = (response.headers.get("Content-Type") || "").split(";")[0].trim();
      if (!response.ok) {
        stop("preflight.scriptMissing", { file: name(url), status: String(response.status) });
        return;
      }
      if (!/^(text|application)\/(x-)?javascript$/.test(type)) {
        stop(type ? "preflight.wrongType" : "preflight.noType", { file: name(url), type });
        return;
      }
    }
    stop("preflight.blocked");
  }

  if (location.protocol === "file:") {
    stop("preflight.fromDisk");
  } else if (self.origin === "null") {
    stop("preflight.sandboxed");
  } else if (typeof WebAssembly !== "object" || typeof Worker !== "function") {
    stop("preflight.noWasm");
  } else {
    document.addEventListener("DOMContentLoaded", () => {
      if (!window.attentionLive) explainBlockedModule();
    });
  }
})();
