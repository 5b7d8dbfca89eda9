/* The views' harness (view.html): one view of web/views/ made in a container like the figure's, with
 * the config and the answers of a fixture (tests/fixtures/answers/<name>.json, written by CPython's
 * Figure), converted as the worker converts Python's answers (typed arrays). No worker, no Python.
 *
 *   ?view=chips|choices|banner|heads|matrix|math|flash|next   which view
 *   &answers=queen|markup                                     which fixture (default queen)
 *   &width=390                                                the figure's width in CSS px (default: the page's)
 *   &lang=de                                                  the language of its words (default en): the
 *                                                             catalog web/i18n/<lang>.json, English's under it
 *
 * The `on` callbacks act as the figure does where the view needs an answer back (a token or head picked
 * is drawn as the new selection, a FlashAttention step moved to is drawn), and every call is recorded.
 * The view gets the figure's `messages` option: a function returning a Messages (web/i18n/messages.js)
 * of that catalog, as figure-views.js passes the figure's.
 * window.harness: {view, fixture, result, state, calls: [[name, ...args]], container, observers (the
 * ResizeObservers and IntersectionObservers made and not disconnected), messages, redraw()}; then
 * <html data-state="ready">, or "error" with the message in #error.
 */

/* Observers, counted: destroy() must disconnect those a view made (installed before the views load). */
const observers = new Set();
for (const name of ["ResizeObserver", "IntersectionObserver"]) {
  const Original = window[name];
  window[name] = class extends Original {
    observe(...args) { observers.add(this); return super.observe(...args); }
    disconnect() { observers.delete(this); return super.disconnect(); }
  };
}

/** A fixture's JSON as the page gets it from the worker: {"$float32": [...]} → Float32Array (with a
 *  shape of two dimensions, an array of rows), the strings "-Infinity", "Infinity", "NaN" in them as numbers. */
export function revive(value) {
  if (Array.isArray(value)) return value.map(revive);
  if (value === null || typeof value !== "object") return value;
  const marker = Object.keys(value).find((key) => key.startsWith("$"));
  if (!marker) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, revive(item)]));
  const Typed = { $float32: Float32Array, $float64: Float64Array, $int32: Int32Array }[marker];
  if (!Typed) throw new TypeError(`the fixture has an array of ${marker.slice(1)}: no typed array for it`);
  const flat = Typed.from(value[marker], Number);
  const shape = value.shape ?? [flat.length];
  if (shape.length === 1) return flat;
  if (shape.length !== 2) throw new TypeError(`the fixture has an array of shape [${shape}]: the worker sends at most 2-d ones`);
  return Array.from({ length: shape[0] }, (_, i) => flat.slice(i * shape[1], (i + 1) * shape[1]));
}

/* The figure's container of each view (figure.html): its tag, id, class and attributes. */
const CONTAINERS = {
  chips: ["div", { id: "tokens", class: "tokens", role: "group", "aria-label": "Tokens: choose one as the query (arrow keys, or click)" }],
  choices: ["fieldset", { id: "layers", role: "radiogroup" }],
  banner: ["p", { id: "what-if", class: "what-if", hidden: "" }],
  heads: ["div", { id: "heads-grid", class: "heads-grid" }],
  matrix: ["div", { id: "matrix-view", class: "matrix-view" }],
  math: ["div", { id: "math-view", class: "math-view" }],
  flash: ["div", { id: "flash-view", class: "flash-view" }],
  next: ["div", { id: "next-view", class: "next-view" }],
};

function containerOf(name) {
  if (!CONTAINERS[name]) throw new RangeError(`no view "${name}": one of ${Object.keys(CONTAINERS).join(", ")}`);
  const [tag, attributes] = CONTAINERS[name];
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (name === "choices") node.append(Object.assign(document.createElement("legend"), { textContent: "Layer" }));
  return node;
}

/* The Messages of language `lang`: its catalog over English's, as the figure reads them. */
async function messagesOf(lang) {
  const catalog = async (tag) => {
    const response = await fetch(`/web/i18n/${tag}.json`);
    if (!response.ok) throw new Error(`no catalog web/i18n/${tag}.json (HTTP ${response.status})`);
    return response.json();
  };
  const [{ Messages }, english] = await Promise.all([import("/web/i18n/messages.js"), catalog("en")]);
  return lang === "en" ? new Messages("en", english) : new Messages(lang, await catalog(lang), english);
}

async function main() {
  const query = new URLSearchParams(location.search);
  const name = query.get("view");
  const fixture = revive(await (await fetch(`/tests/fixtures/answers/${query.get("answers") ?? "queen"}.json`)).json());
  const [{ weightColours }, views, words] = await Promise.all([import("/web/draw/colour.js"), loadViews(), messagesOf(query.get("lang") ?? "en")]);
  const messages = () => words;
  document.adoptedStyleSheets = [weightColours()]; // the chips' colour classes, as figure.js adopts them
  if (query.has("width")) document.getElementById("frame").style.width = `${Number(query.get("width"))}px`;
  const { config, view: asked } = fixture;
  const result = { ...fixture.analyse, knockout: [], whatIf: null }; // as figure.js's onResult: the what-ifs the numbers have
  const labels = result.labels;
  const T = result.ids.length;
  const calls = [];
  const harness = { fixture, result, calls, observers, messages: words, view: null, container: containerOf(name),
    state: { layer: asked.layer, head: asked.head, token: asked.token, whatIf: { scale: true, mask: true }, knockout: [], step: 0 } };
  const record = (callback) => (...args) => { calls.push([callback, ...args]); };
  const choose = (change) => { harness.state = { ...harness.state, ...change }; harness.redraw(); };

  /* The selected query's row of the selected head, from the fixture (the chips' props). */
  const rowOf = ({ layer, head, token }) => {
    const offset = ((layer - 1) * config.n_head + (head - 1)) * T * T + token * T;
    return result.attention.subarray(offset, offset + T);
  };
  const made = {
    chips: () => views.createChips(harness.container, { on: { pick: (i) => { record("pick")(i); choose({ token: i }); }, preview: record("preview") }, messages }),
    choices: () => views.createChoices(harness.container, { config: { count: config.n_layer }, on: { pick: (n) => { record("pick")(n); choose({ layer: n }); } }, messages }),
    banner: () => views.createWhatIfBanner(harness.container, { messages }),
    heads: () => views.createHeadsGrid(harness.container, { config, on: { pick: (layer, head) => { record("pick")(layer, head); choose({ layer, head }); } }, messages }),
    matrix: () => views.createMatrix(harness.container, { on: { pick: (i) => { record("pick")(i); choose({ token: i }); }, read: record("read") }, messages }),
    math: () => views.createMathPanel(harness.container, { on: { whatIf: record("whatIf"), read: record("read") }, messages }),
    flash: () => views.createFlashSteps(harness.container, { on: { change: (change) => { record("change")(change); if (!("tile" in change)) choose(change); }, read: record("read") }, messages }),
    next: () => views.createNextToken(harness.container, { config, on: { knockout: (layer, head) => {
      record("knockout")(layer, head);
      const { knockout } = harness.state;
      const on = knockout.some(([l, h]) => l === layer && h === head);
      choose({ knockout: on ? knockout.filter(([l, h]) => l !== layer || h !== head) : [...knockout, [layer, head]] });
    } }, messages }),
  };
  let first = true;
  const drawn = {
    chips: (state) => {
      harness.view.draw({ labels, ids: result.ids }); // the same ids: no chip changes (after a clear, all come back)
      harness.view.draw({ row: rowOf(state), query: state.token, previewing: false, causal: true });
    },
    choices: (state) => harness.view.draw({ value: state.layer }),
    banner: (state) => harness.view.draw(state),
    heads: (state) => harness.view.draw({ result, state }),
    matrix: (state) => harness.view.draw({ result, state }),
    math: () => harness.view.draw({ explained: fixture.explain, labels, cache: result.cache, enabled: true }),
    flash: (state) => harness.view.draw({ flashed: fixture.flash, labels, step: state.step, announce: !first, whatIf: false, enabled: true }),
    next: (state) => harness.view.draw({ predicted: fixture.predict, labels, knockout: state.knockout, enabled: true }),
  };
  document.getElementById("figure").append(harness.container);
  harness.view = made[name]();
  harness.redraw = () => { drawn[name](harness.state); first = false; };
  window.harness = harness;
  harness.redraw();
}

/* Every view's module, after the observers are counted. */
async function loadViews() {
  const modules = await Promise.all(["chips", "choices", "what-if-banner", "heads-grid", "matrix", "math-panel", "flash-steps", "next-token"]
    .map((file) => import(`/web/views/${file}.js`)));
  return Object.assign({}, ...modules);
}

main().then(() => {
  document.documentElement.dataset.state = "ready";
}, (error) => {
  const shown = document.getElementById("error");
  shown.textContent = `${error.name}: ${error.message}`;
  shown.hidden = false;
  document.documentElement.dataset.state = "error";
});
