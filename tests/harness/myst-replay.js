/* MyST's {anywidget} renderer, replayed without React (tests/test_myst_widget.py).
 *
 * It follows, step by step, myst-theme's packages/anywidget at commit
 * 6498c64bc64e0a061818a0dc88dd11d446334f79 (published on npm as @myst-theme/anywidget 1.4.1, whose
 * dist/ does the same): src/renderers.tsx (AnyWidgetRenderer) and src/models.ts (MystAnyModel). It is
 * written here from reading them, not copied:
 *
 *   the host    renderers.tsx renders one <div class="relative w-full"> per {anywidget} node; its
 *               effect (run again whenever the node changes) does, in order:
 *   import      `import(node.esm)`; then, if the host is still mounted, `mod.default` is the widget;
 *   model       a MystAnyModel over `node.model` itself (the very object of the page's AST: set writes
 *               into it);
 *   initialize  `await widget.initialize?.({model})`, its result kept as a cleanup;
 *   root        the host's class becomes "myst-anywidget" (plus the node's class); its open shadow root
 *               (attached once, reused when the node changes) gets one new <div> with the same class
 *               and style position: relative, replacing whatever the root held;
 *   css         a <link rel="stylesheet"> to node.css appended to that <div>, where the node has one;
 *   render      `await widget.render?.({model, el: that div})`, its result kept as a cleanup;
 *   errors      an import or a step that throws: the renderer shows "Failed to load anywidget module"
 *               (here: the host's data-error, and window.myst.errors);
 *   cleanup     when the node changes or the host unmounts, the effect's AbortController is aborted; its
 *               abort listener (async) awaits the render's cleanup, then the initialize's. On unmount
 *               React takes the host out of the page first, then runs the effect's cleanup (a passive
 *               effect); on a node change the host stays, the cleanup runs, then the new effect.
 *
 *   the model   get(name) reads the state; set(key, value) writes it, then dispatches a CustomEvent
 *               "change:<key>" and then "change" (detail: the value) on one EventTarget, synchronously;
 *               on(name, callback) is addEventListener (the callback gets the CustomEvent, not the
 *               model and value that Backbone passes); off, save_changes and send throw, and so does
 *               reading widget_manager. Here each attempt is recorded in window.myst.attempts first.
 *
 * The page (myst-replay.html, copied by the test to where a MyST page would be) reads the nodes, as
 * the page's AST has them once the theme has rewritten their URLs, from nodes.json beside it, mounts
 * one host per node into <article>, and says <html data-state="ready"> when every node's effect has
 * run (rendered or failed: see window.myst.mounts[i].error).
 *
 * window.myst: {nodes, mounts: [{host, node, model, el, rendered, error, cleanups}], attempts,
 *               errors, events, mount(node), change(i, node), unmount(i), set(i, key, value), settled()}
 */

const attempts = []; // [[method, model's index]] for every call of what MyST's model does not have
const errors = [];
const events = []; // [[model's index, key, value]]: each set, whose two events follow at once

class ReplayedModel {
  #state;
  #target = new EventTarget();
  #index;

  constructor(state, index) {
    this.#state = state;
    this.#index = index;
  }

  get(name) {
    return this.#state[name];
  }

  set(key, value) {
    this.#state[key] = value;
    events.push([this.#index, key, value]);
    this.#target.dispatchEvent(new CustomEvent(`change:${key}`, { detail: value }));
    this.#target.dispatchEvent(new CustomEvent("change", { detail: value }));
  }

  on(name, callback) {
    this.#target.addEventListener(name, callback);
  }

  #refuse(method) {
    attempts.push([method, this.#index]);
    throw new Error(`MyST's model has no ${method} (myst-theme packages/anywidget/src/models.ts)`);
  }

  off() { this.#refuse("off"); }
  save_changes() { this.#refuse("save_changes"); }
  send() { this.#refuse("send"); }
  get widget_manager() { return this.#refuse("widget_manager"); }
}

const article = document.querySelector("article");
const mounts = [];
let models = 0;

/* The renderer's effect for `node` on the host of `record` (a new host, or the same one when its node
 * changes): the steps of renderers.tsx's useEffect, in order; returns its cleanup (the abort). */
function effect(record, node) {
  const controller = new AbortController();
  let cleanupInitialize;
  let cleanupRender;
  record.node = node;
  record.rendered = false;
  record.error = null;
  record.host.removeAttribute("data-error");
  record.cleaned = new Promise((resolve) => {
    controller.signal.addEventListener("abort", async () => {
      try {
        await cleanupRender?.();
        await cleanupInitialize?.();
        record.cleanups += 1;
      } catch (error) {
        errors.push(`cleanup: ${error?.stack ?? error}`);
        throw error; // as in the renderer: an unhandled rejection of its abort listener
      } finally {
        resolve();
      }
    });
  });
  record.done = import(node.esm)
    .then(async (mod) => {
      const host = record.mounted ? record.host : null; // ref.current: null once unmounted
      if (!host) return;
      const widget = mod.default;
      const model = new ReplayedModel(node.model, models++);
      record.model = model;
      cleanupInitialize = await widget.initialize?.({ model });
      const className = ["myst-anywidget", node.class].filter(Boolean).join(" ");
      host.className = className;
      const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
      const el = document.createElement("div");
      el.className = className;
      el.style.position = "relative";
      root.replaceChildren(el);
      if (node.css) {
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = node.css;
        el.appendChild(link);
      }
      record.el = el;
      cleanupRender = await widget.render?.({ model, el });
      record.rendered = true;
    })
    .catch((error) => {
      record.error = String(error?.stack ?? error);
      record.host.dataset.error = String(error?.message ?? error);
      errors.push(`${node.esm}: ${record.error}`);
    });
  return () => controller.abort();
}

function mount(node) {
  const host = document.createElement("div");
  host.className = "relative w-full";
  host.id = `node-${mounts.length}`;
  article.append(host);
  const record = { host, node, model: null, el: null, mounted: true, cleanups: 0 };
  record.abort = effect(record, node);
  mounts.push(record);
  return record.done;
}

/* The node of host i changes (a new AST for the page): the old effect's cleanup, then a new effect. */
function change(i, node) {
  const record = mounts[i];
  const cleaned = record.cleaned;
  record.abort();
  record.abort = effect(record, node);
  return Promise.all([cleaned, record.done]);
}

/* Host i unmounts: out of the page, then the effect's cleanup. Resolves when the cleanup has run. */
function unmount(i) {
  const record = mounts[i];
  const cleaned = record.cleaned;
  record.host.remove();
  record.mounted = false;
  record.abort();
  return cleaned;
}

window.myst = {
  nodes: null, mounts, attempts, errors, events, mount, change, unmount,
  set: (i, key, value) => mounts[i].model.set(key, value),
  settled: () => Promise.all(mounts.map((m) => m.done)),
};
addEventListener("unhandledrejection", (event) => errors.push(`unhandled rejection: ${event.reason?.stack ?? event.reason}`));

try {
  const nodes = await (await fetch(new URL("nodes.json", location.href))).json();
  window.myst.nodes = nodes;
  await Promise.all(nodes.map(mount));
  document.documentElement.dataset.state = "ready";
} catch (error) {
  errors.push(String(error?.stack ?? error));
  document.documentElement.dataset.state = "error";
}
