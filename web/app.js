/* Attention, live: the page. Starts things: holds the result and the view state (state.js), talks to
 * the Python worker, hands both to the views (views/), exposes window.attentionLive.
 *
 *   loading: default sentence drawn from precomputed numbers
 *      │ ──(worker ready, live attention drawn)──▶ ready ──(text edited)──▶ ready (newest result drawn)
 *      │                                             ▲        │
 *      └──(any load failure)──▶ error                └────────┘ while one text is computed,
 *                                                               only the newest edit waits
 */
import { createAnnouncer } from "./announcer.js";
import { createAnswers } from "./answers.js";
import { readEmbedOptions, startEmbedding } from "./embed.js";
import { exportFigure } from "./export.js";
import { PythonWorker } from "./worker-client.js";
import { createViewState } from "./state.js";
import { linkFor, readLink } from "./url-state.js";
import { drawChoices, drawTokens, drawWeights, enableChipKeys, markChoice, markReused } from "./views/chips.js";
import { drawLegend } from "./views/colour.js";
import { createHeadsGrid } from "./views/heads-grid.js";
import { createMathPanel } from "./views/math-panel.js";
import { createMatrix, describeRow } from "./views/matrix.js";
import { createNextToken } from "./views/next-token.js";
import { drawWhatIfBanner } from "./views/what-if-banner.js";
import { headOffset, keysSeen, queryText } from "./views/numbers.js";

const root = document.documentElement;
const el = {
  text: document.getElementById("text"),
  layers: document.getElementById("layers"),
  heads: document.getElementById("heads"),
  status: document.getElementById("status"),
  announcer: document.getElementById("announcer"),
  notice: document.getElementById("notice"),
  tokens: document.getElementById("tokens"),
  modelSize: document.getElementById("model-size"),
  retry: document.getElementById("retry"),
  legend: document.getElementById("legend"),
  headsPanel: document.getElementById("heads-panel"),
  headsGrid: document.getElementById("heads-grid"),
  matrixPanel: document.getElementById("matrix-panel"),
  matrix: document.getElementById("matrix-view"),
  mathPanel: document.getElementById("math-panel"),
  math: document.getElementById("math-view"),
  nextPanel: document.getElementById("next-panel"),
  next: document.getElementById("next-view"),
  whatIf: document.getElementById("what-if"),
  copyLink: document.getElementById("copy-link"),
  saveButtons: document.querySelectorAll("button[data-save]"),
  figure: document.querySelector(".figure"),
};
const PANELS = { heads: el.headsPanel, matrix: el.matrixPanel, math: el.mathPanel, next: el.nextPanel };
const page = new URL("./", document.baseURI).href; // the figure's folder: index.html and sw.js
const buildFolder = new URL("./", import.meta.url).href; // this build's files, app.js among them (see build.py)

const view = { result: null, config: null, headsGrid: null, matrix: null, math: null, next: null }; // the numbers shown, and the views made for this model
const viewState = createViewState({
  layer: 1, head: 1, token: 0, preview: null, panels: { heads: false, matrix: false, math: false, next: false },
  whatIf: { scale: true, mask: true }, knockout: [],
});
const queue = { text: "", newest: null, requested: 0, shown: 0, busy: false, waiters: [] };
const announcer = createAnnouncer(el.announcer);
let worker = null; // the PythonWorker, once it is ready
let embedding = null; // the message protocol with a host page (embed.js), once started
const embedOptions = readEmbedOptions(location.search);
let ready, readyResolve, readyReject; // a new promise for each attempt to load (see attempt)

function newReadyPromise() {
  ready = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });
  ready.catch(() => {}); // the page shows the error; callers of .ready still see the rejection
}

function setStatus(text) {
  el.status.textContent = text;
}

/* The answer to a button (Copy link, Save): on the status line, and said. */
function say(text) {
  setStatus(text);
  announcer.now(text);
}

function fail(message) {
  root.dataset.state = "error";
  setStatus(message);
  announcer.again(message); // said even when the same error comes back after "Try again"
  drawNotice(view.result);
  el.retry.hidden = false;
  readyReject(new Error(message));
  for (const waiter of queue.waiters.splice(0)) waiter.reject(new Error(message));
}

function afterPaint() {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

const hasWhatIf = (state) => !state.whatIf.scale || !state.whatIf.mask;

/** What the worker computes besides the model's attention for this state: the knocked-out heads and
 *  the what-if of the selected head ({layer, head, scale, mask}, or null). */
function whatIfsOf(state) {
  const { layer, head, whatIf: { scale, mask } } = state;
  return { knockout: state.knockout, whatIf: hasWhatIf(state) ? { layer, head, scale, mask } : null };
}

/* Ask Python for what the open panels show, when the worker is free (its live cache then holds the
 * result drawn); each answer redraws the views (answers.js drops one for an older view). */
function askPython(state) {
  if (!worker || !view.result || view.result.precomputed || view.result.ids.length === 0 || queue.busy) return;
  if (state.panels.math) answers.ask("explain", worker, view.result, state);
  if (state.panels.next) answers.ask("predict", worker, view.result, state);
}

function onAnswer(kind) {
  const state = viewState.get();
  render(state, state);
  if (kind !== "explain") return;
  if (view.result.inputTime !== undefined && state.panels.math) measureUpdate(view.result.inputTime, "math"); // input to the panel's frame
  view.result.inputTime = undefined;
}

const answers = createAnswers(() => [view.result, viewState.get()], onAnswer);

/* Every view redraws from the view state: the chips and selectors always, the panels below them
 * while open (opening one draws it). */
function render(state, previous) {
  markChoice(el.layers, state.layer);
  markChoice(el.heads, state.head);
  // a panel follows the state only when the state's panel changed: a visitor's click on a summary
  // may not have reached the state yet (its toggle event comes later)
  for (const [name, panel] of Object.entries(PANELS)) {
    if (state.panels[name] !== previous.panels[name]) panel.open = state.panels[name];
  }
  drawWhatIfBanner(el.whatIf, state);
  // the worker computes the what-ifs with the attention: a new one needs the same text again
  if (JSON.stringify(whatIfsOf(state)) !== JSON.stringify(whatIfsOf(previous)) && worker) submit(queue.text).catch(() => {});
  const waiting = !view.result || view.result.precomputed ? "Waiting for the live model…"
    : view.result.ids.length === 0 ? "No tokens: type a sentence above." : null;
  if (view.next) view.next.draw(view.result && answers.get("predict", view.result, state), view.result?.labels ?? [], state, waiting);
  if (waiting) view.math?.clear(waiting);
  const live = Boolean(view.result && !view.result.precomputed); // what-ifs need the live model (not while loading)
  view.math?.enable(live);
  view.next?.enable(live);
  const { result } = view;
  if (!result) return;
  askPython(state);
  if (state.panels.heads && view.headsGrid) view.headsGrid.draw(result, state);
  if (state.panels.matrix && view.matrix) view.matrix.draw(result, state);
  const T = result.ids.length;
  if (T === 0) return;
  markReused(el.tokens, state.panels.math && result.cache ? result.cache.reused : 0);
  const explained = answers.get("explain", result, state);
  if (state.panels.math && view.math && explained) view.math.draw(explained, result.labels, result.cache);
  const token = state.preview ?? state.token;
  const row = result.attention.subarray(headOffset(result, state.layer, state.head) + token * T).subarray(0, T);
  drawWeights(el.tokens, row, token, state.preview !== null, keysSeen(result, state, token) === token + 1);
  const source = result.precomputed ? "precomputed at build time" : "computed live in this tab";
  setStatus(`Query ${queryText(result.labels, token)} · layer ${state.layer}, head ${state.head} · ${source}`);
}
viewState.subscribe(render);
viewState.subscribe(writeLink);
viewState.subscribe(() => embedding?.changed());

/* The address's embed-origin values that are not origins (embed.js): said for as long as the page is open. */
const embedWarnings = embedOptions.rejected.map((value) => `The address's embed-origin "${value}" is not an origin (scheme://host, with :port if any, no path): the state is not sent to it.`);

/** The notice above the chips: what the figure changed in what it was given (`result`, or null
 *  before the first result is shown), the link's changes and the address's embed warnings. */
function drawNotice(result) {
  const parts = [];
  if (result?.precomputed) {
    parts.push(root.dataset.state === "error" ? "This view was computed when the figure was built."
      : "This view was computed when the figure was built; the live model is still loading.");
  }
  if (result?.charsDropped > 0) {
    parts.push(`Only the last ${Array.from(result.text).length.toLocaleString("en")} characters are used.`); // code points, as Python counts
  }
  if (result?.tokensDropped > 0) {
    const earlier = result.tokensDropped === 1 ? "1 earlier token is" : `${result.tokensDropped} earlier tokens are`;
    parts.push(`Showing the last ${result.ids.length} tokens, the model's context (block_size); ${earlier} not shown.`);
  }
  parts.push(...link.changes, ...embedWarnings); // what a link asked for that could not be shown (until the next text)
  el.notice.textContent = parts.join(" ");
  el.notice.hidden = parts.length === 0;
}

/* A query on the last token follows the typing to the new last token; any other query stays on its
 * token while the text up to it is unchanged, and otherwise moves to the last token too. The first
 * result keeps the default view's query. */
function queryAfter(previous, result, token) {
  const T = result.ids.length;
  if (T === 0) return 0;
  if (token >= T) return T - 1;
  if (previous === null) return token;
  if (token === previous.ids.length - 1) return T - 1;
  const unchanged = previous.ids.length > token
    && previous.ids.slice(0, token + 1).every((id, i) => id === result.ids[i]);
  return unchanged ? token : T - 1;
}

/* A link's view (url-state.js): read at start; its token is applied to the first live result. */
const link = { view: {}, changes: [], token: undefined, maxChars: Infinity, written: false, timer: null };
const LINK_PAUSE_MS = 200;

/** Write the view into the address (history.replaceState: no history entry per keystroke), at most
 *  once per LINK_PAUSE_MS: browsers ignore, with a warning, more than about 100 calls in 10 s. */
function writeLink() {
  if (!view.result || view.result.precomputed && !link.written || link.timer) return;
  link.timer = setTimeout(() => {
    link.timer = null;
    const text = queue.text.length > link.maxChars ? Array.from(queue.text).slice(-link.maxChars).join("") : queue.text; // what the figure uses
    const fragment = linkFor(text, viewState.get(), view.result.ids.length > 0);
    if (location.hash !== fragment) history.replaceState(history.state, "", fragment);
    link.written = true;
  }, LINK_PAUSE_MS);
}

/* A new text from the reader, the API or a host page, replacing the one shown: the link's notices go
 * and its token no longer applies; the build's precomputed view (the default sentence's) comes down. */
function textReplaced() {
  link.changes = [];
  link.token = undefined;
  if (view.result?.precomputed) forgetPrecomputed();
}

/* The first live result: the link's token, moved to the last token when the text is shorter. */
function applyLinkToken(result) {
  const { token } = link;
  link.token = undefined;
  const T = result.ids.length;
  if (token === undefined || T === 0) return;
  if (token >= T) link.changes.push(`The link asked for token ${token + 1}; the text has ${T}, so the last is selected.`);
  viewState.update({ token: Math.min(token, T - 1) });
  drawNotice(result);
}

let resultsShown = 0;

function show(result) {
  const focused = document.activeElement !== el.text && el.figure.contains(document.activeElement) ? document.activeElement : null; // the box is never removed: typing pays nothing here
  const token = queryAfter(view.result, result, viewState.get().token);
  result.seq = ++resultsShown; // explain's and predict's answers name the result they belong to
  view.result = result;
  drawTokens(el.tokens, result.labels, result.ids, pickToken, (index) => viewState.update({ preview: index }));
  drawNotice(result);
  if (result.ids.length === 0) setStatus("Empty text: type a sentence to see how its tokens attend to each other.");
  viewState.update({ token, preview: null });
  if (!result.precomputed) {
    applyLinkToken(result);
    if (choicePending && showsWhatIfsOf(result, viewState.get())) {
      choicePending = false;
      announcer.choice(summary); // a choice that waited for these numbers
    } else {
      announcer.later(summary); // once the reader pauses
    }
  }
  keepFocus(focused);
}

/* After an update removed or hid the element that had the focus (a chip of a shortened text; the
 * matrix or a strip of an emptied one), the focus goes to the query's chip, or to the text box when
 * there are no tokens: never to the page's body. */
function keepFocus(element) {
  if (!element || (document.activeElement !== element && document.activeElement !== document.body)) return;
  if (element.isConnected && element.checkVisibility()) return;
  (el.tokens.querySelector('.chip[tabindex="0"]') ?? el.text).focus({ preventScroll: true });
}

async function resolveWaiters() {
  await afterPaint();
  const done = queue.waiters.filter((w) => w.seq <= queue.shown);
  queue.waiters = queue.waiters.filter((w) => w.seq > queue.shown);
  for (const waiter of done) waiter.resolve();
}

/* Update latency, for the benchmark: from the input event to the DOM holding its result ("drawn"),
 * to the animation frame that shows it ("update"), and, with the math panel open, to the frame that
 * shows the panel's numbers for it ("math": one more request to Python). */
let updateMeasures = 0;

function measureUpdate(inputTime, name = "update") {
  if (++updateMeasures % 1000 === 0) performance.clearMeasures(); // bounded over long use
  if (name === "update") performance.measure("attention-live:drawn", { start: inputTime, end: performance.now() });
  requestAnimationFrame(() => performance.measure(`attention-live:${name}`, { start: inputTime, end: performance.now() }));
}

/* Coalescing: while one text is computed, only the newest edit waits; stale results are never drawn. */
async function pump() {
  if (queue.busy || queue.newest === null || worker === null) return;
  const { seq, text, inputTime } = queue.newest;
  queue.newest = null;
  queue.busy = true;
  try {
    const whatIfs = whatIfsOf(viewState.get());
    const result = await worker.analyse(text, whatIfs);
    Object.assign(result, whatIfs); // what the numbers are: the views repaint when it changes (heatmap.js)
    if (seq === queue.requested) {
      show(result);
      if (inputTime !== undefined) measureUpdate(inputTime);
      result.inputTime = inputTime; // for the math panel's own measure (askPython)
      queue.shown = seq;
      resolveWaiters();
    }
  } catch (error) {
    if (seq === queue.requested) {
      setStatus(`This text could not be analysed: ${error.message}`);
      queue.shown = seq;
      resolveWaiters();
    }
  } finally {
    queue.busy = false;
    if (queue.newest) pump();
    else afterPaint().then(() => askPython(viewState.get())); // once the chips are on screen, the open panels' numbers
  }
}

function submit(text, inputTime = undefined) {
  if (root.dataset.state === "error") return Promise.reject(new Error(el.status.textContent));
  queue.text = text; // the text the figure was last given: what the box holds (intoBox)
  queue.requested += 1;
  queue.newest = { seq: queue.requested, text, inputTime };
  const shown = whenShown(queue.requested);
  pump();
  return shown;
}

/** Resolves once the text of request `seq` (or a newer one) is on screen. */
function whenShown(seq) {
  return new Promise((resolve, reject) => queue.waiters.push({ seq, resolve, reject }));
}

/** `text` as a text box holds it, which is how the figure takes every text, wherever it comes from
 *  (typing, pasting, setText, a link, a message), so that state().text, the box and the chips always
 *  describe the same string: a text box turns "\r\n" and "\r" into "\n" (HTML's newline
 *  normalisation of a textarea's value), and a lone UTF-16 surrogate becomes U+FFFD (as Python's
 *  tokenizer maps it). Python itself keeps "\r": the ids and labels of a text given to Figure.analyse. */
const scratchBox = document.createElement("textarea"); // never shown
function asInBox(text) {
  scratchBox.value = typeof text.toWellFormed === "function" ? text.toWellFormed() : text;
  return scratchBox.value;
}

/** Put `text` in the text box (asInBox) and return what it holds: the figure's text from then on. */
function intoBox(text) {
  el.text.value = asInBox(text);
  return el.text.value;
}

/** The view in one sentence, for the live region: "16 tokens; layer 2, head 3: «said» attends most to
 *  «Alice» 48.6%, then …". */
function summary() {
  const { result } = view;
  const state = viewState.get();
  if (!result || result.ids.length === 0) return "No tokens: type a sentence.";
  const whatIf = hasWhatIf(state) || state.knockout.length ? " (a what-if, not the model's own numbers)" : "";
  return `${result.ids.length} tokens; layer ${state.layer}, head ${state.head}${whatIf}: ${describeRow(result, state, state.token)}`;
}

/* Whether `result` holds the numbers of `state`'s what-ifs (its knockouts and the what-if of its head). */
function showsWhatIfsOf(result, state) {
  return JSON.stringify({ knockout: result.knockout ?? [], whatIf: result.whatIf ?? null }) === JSON.stringify(whatIfsOf(state));
}

let choicePending = false; // a choice whose numbers are on their way (a what-if on a new head, a what-if toggled)

/** A choice of the reader's (token, layer, head or what-if; by click, tap, keys or select()): shown,
 *  and said once, with the numbers it shows (when they need a new result, once that has arrived). */
function choose(patch) {
  viewState.update({ ...patch, preview: null });
  if (view.result && !view.result.precomputed && !showsWhatIfsOf(view.result, viewState.get())) choicePending = true;
  else announcer.choice(summary);
}

function pickToken(index) {
  choose({ token: index });
}

/* "Copy link": the address, which holds the view (writeLink). */
async function copyLink() {
  try {
    await navigator.clipboard.writeText(location.href);
    say("Link copied: it opens this text, layer, head and token.");
  } catch {
    say("The browser did not allow copying: copy the address bar, which holds this view.");
  }
}

/* "Save PNG" and "Save SVG": the image of the view (api.exportImage), downloaded under its own name. */
async function save(format) {
  try {
    const file = await api.exportImage({ format });
    const anchor = document.createElement("a");
    anchor.href = URL.createObjectURL(file);
    anchor.download = file.name;
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(anchor.href), 60000); // the download has started well before
    say(`Saved ${file.name} (${(file.size / 1024).toFixed(0)} KB).`);
  } catch (error) {
    say(`The image could not be made: ${error.message}`);
  }
}

function toggleKnockout(layer, head) {
  const { knockout } = viewState.get();
  const on = knockout.some(([l, h]) => l === layer && h === head);
  const next = on ? knockout.filter(([l, h]) => l !== layer || h !== head) : [...knockout, [layer, head]];
  choose({ knockout: next.sort((a, b) => a[0] - b[0] || a[1] - b[1]) });
}

/* A value given to the API, as an error message shows it: NaN, Infinity, 2n as themselves, others as JSON. */
function describe(value) {
  return typeof value === "number" || typeof value === "bigint" || typeof value === "symbol" ? String(value) : JSON.stringify(value) ?? String(value);
}

function checkedNumber(value, low, high, name) {
  if (!Number.isInteger(value) || value < low || value > high) {
    throw new RangeError(`${name} must be an integer from ${low} to ${high}, got ${describe(value)}`);
  }
  return value + 0; // + 0 turns -0 into 0
}

/** {layer, head, token} of `choice` checked against the model and the text shown once the figure is
 *  ready (and the text on its way, if any, is shown); a field left out keeps the view's value. */
async function checkedChoice(choice, needsTokens = false) {
  await ready;
  if (queue.requested > queue.shown) await whenShown(queue.requested); // choose among the tokens of a text on its way
  const T = view.result ? view.result.ids.length : 0;
  if (T === 0 && needsTokens) throw new RangeError("the text has no tokens");
  const now = viewState.get();
  const layer = checkedNumber(choice.layer ?? now.layer, 1, view.config.n_layer, "layer");
  const head = checkedNumber(choice.head ?? now.head, 1, view.config.n_head, "head");
  if (T === 0 && choice.token !== undefined) throw new RangeError("token: the text has no tokens to select");
  const token = T === 0 ? 0 : checkedNumber(choice.token ?? now.token, 0, T - 1, "token");
  return { layer, head, token };
}

const api = {
  /** A Promise: resolves when data-state becomes "ready", rejects on "error" (a retry makes a new one). */
  get ready() {
    return ready;
  },
  /** Replace the text (line breaks normalised as the box does: see intoBox); resolves once the page
   *  shows its tokens and attention. */
  setText(text) {
    if (typeof text !== "string") return Promise.reject(new TypeError(`setText needs a string, got ${typeof text}`));
    textReplaced();
    return submit(intoBox(text));
  },
  /** Choose the view: layer and head 1-based as labelled, token 0-based among the shown tokens; a
   *  field left out keeps its value at the time the figure is ready. All fields are checked before
   *  any changes: a RangeError leaves the view as it was. */
  async select(choice = {}) {
    choose(await checkedChoice(choice));
    if (queue.requested > queue.shown) await whenShown(queue.requested); // a what-if on a newly selected head
    await afterPaint();
  },
  /** The math of one attention row (Figure.explain): layer and head 1-based, token 0-based (each
   *  defaults to the view's), scale and mask true unless a what-if leaves that step out. Resolves to
   *  {layer, head, token, dk, sqrt_dk, scale, mask, q, k, v, scores, scaled, weights, weights_sum,
   *  output, contributions, knockout}; rejects with a RangeError for a bad choice. */
  async explain({ layer, head, token, scale = true, mask = true } = {}) {
    const choice = await checkedChoice({ layer, head, token }, true);
    if (typeof scale !== "boolean" || typeof mask !== "boolean") throw new TypeError("scale and mask must be true or false");
    const answer = await worker.ask("explain", { ...choice, scale, mask, knockout: [] });
    const list = (values) => Array.from(values, (x) => (x === -Infinity ? null : x)); // null: masked
    const plain = Object.fromEntries(Object.entries(answer).map(([name, value]) => [name, ArrayBuffer.isView(value) ? list(value) : value]));
    return { ...plain, k: answer.k.map(list), v: answer.v.map(list) };
  },
  /** The next token after `token` (Figure.predict): {token, candidates: [{id, label, p}], next:
   *  {id, label, p, rank} | null, knockout}; `knockout` lists {layer, head} to knock out (then each
   *  candidate also has p_intact and delta). */
  async predict({ token, top = 5, knockout = [] } = {}) {
    const choice = await checkedChoice({ token }, true);
    checkedNumber(top, 1, view.config.vocab_size, "top");
    if (!Array.isArray(knockout)) throw new TypeError("knockout must be a list of {layer, head}");
    const pairs = Array.from(knockout, (pair) => [checkedNumber(pair?.layer, 1, view.config.n_layer, "knockout layer"),
      checkedNumber(pair?.head, 1, view.config.n_head, "knockout head")]); // Array.from visits holes too
    const answer = await worker.ask("predict", { token: choice.token, top, knockout: pairs });
    return { ...answer, knockout: answer.knockout.map(([l, h]) => ({ layer: l, head: h })) };
  },
  /** An image of what the figure shows (export.js): the chips, the legend and the open panels, with a
   *  caption naming the model, layer, head and query; `format` "svg" or "png" (twice the CSS pixel
   *  size, or the device pixel ratio if larger). Resolves to a File (a Blob with a name such as
   *  "attention-live-then-the-queen-l2h3.svg") once the text on its way, if any, is shown. */
  async exportImage(options = {}) {
    if (options === null || typeof options !== "object") throw new TypeError(`exportImage takes {format: "svg" | "png"}, got ${describe(options)}`);
    const { format = "png" } = options;
    if (format !== "svg" && format !== "png") throw new TypeError(`format must be "svg" or "png", got ${describe(format)}`);
    const { panels } = viewState.get();
    if (!view.result || ((panels.math || panels.next) && !worker)) await ready.catch(() => {}); // the numbers of a link's text, of the open panels
    if (queue.requested > queue.shown) await whenShown(queue.requested);
    if (!view.result) throw new Error("the figure has no text to show yet");
    const state = viewState.get();
    const { result } = view;
    const live = worker && !result.precomputed && result.ids.length > 0;
    const answer = async (kind) => (state.panels[kind === "explain" ? "math" : "next"] && live ? answers.wait(kind, worker, result, state) : null);
    const [explained, predicted] = await Promise.all([answer("explain"), answer("predict")]);
    return exportFigure({ result, state, config: view.config, explained, predicted, width: el.figure.clientWidth }, format);
  },
  /** The view on screen: weights is the selected attention row (probabilities of keys 0..T-1, the
   *  what-if row while one is on); matrix the selected head's T × T rows as drawn (row i: query i's
   *  probabilities, 0 after i); panels which views below the chips are open; whatIf and knockout the
   *  what-ifs on; reused how many positions' keys and values came from the KV cache on the last
   *  update; build the id of the build running (build.json's "build"), null until it has arrived. */
  state() {
    const now = viewState.get();
    const result = view.result;
    const T = result ? result.ids.length : 0;
    const offset = T === 0 ? 0 : headOffset(result, now.layer, now.head);
    const matrix = T === 0 ? null : result.attention.subarray(offset, offset + T * T);
    return {
      build: manifest?.build ?? null,
      text: result ? result.text : el.text.value,
      ids: result ? Array.from(result.ids) : [],
      tokens: result ? Array.from(result.labels) : [],
      layer: now.layer,
      head: now.head,
      token: T === 0 ? null : now.token,
      weights: T === 0 ? [] : Array.from(matrix.subarray(now.token * T, (now.token + 1) * T)),
      matrix: T === 0 ? [] : Array.from({ length: T }, (_, i) => Array.from(matrix.subarray(i * T, (i + 1) * T))),
      panels: { ...now.panels },
      whatIf: { ...now.whatIf },
      knockout: now.knockout.map(([layer, head]) => ({ layer, head })),
      reused: result?.cache ? result.cache.reused : 0,
    };
  },
};

function describeLoading({ stage, downloaded }) {
  const step = stage === "python" ? "Starting Python (Pyodide) and numpy" : "Loading the figure's Python package and the model";
  return `${step}… · ${(downloaded / 1e6).toFixed(1)} MB downloaded`;
}

/* Until Python runs, the default sentence is drawn from the model's numbers that
 * training/find_default_view.py stored in default_view.json (build.py puts them in build.json). */
function showPrecomputed(defaultView, config) {
  const { ids, labels, attention } = defaultView.precomputed;
  const T = ids.length;
  show({
    text: defaultView.text, ids, labels, attention: Float32Array.from(attention.flat(3)),
    shape: [config.n_layer, config.n_head, T, T], tokensDropped: 0, charsDropped: 0, precomputed: true,
  });
}

function forgetPrecomputed() {
  view.result = null; // the views keep their last drawing until the live result replaces it
  el.tokens.replaceChildren();
  el.notice.hidden = true;
}

/* After a first full visit, sw.js serves this build's files when the network is gone. data-offline
 * says how that went: "ready", or "unavailable" where no service worker can run (an http: origin
 * other than localhost, some embedded or private modes); the figure works online either way. */
async function keepForOffline(manifest) {
  try {
    if (!("serviceWorker" in navigator)) throw new Error("no service workers in this context");
    const script = new URL(`sw.js?build=${encodeURIComponent(manifest.build)}`, page);
    const registration = await navigator.serviceWorker.register(script, { scope: page });
    const worker = registration.installing ?? registration.waiting ?? registration.active;
    await new Promise((resolve, reject) => {
      const settle = () => {
        if (worker.state === "activated") resolve();
        else if (worker.state === "redundant") reject(new Error("sw.js could not store the files"));
      };
      worker.addEventListener("statechange", settle);
      settle();
    });
    root.dataset.offline = "ready";
  } catch {
    root.dataset.offline = "unavailable";
  }
}

/* Python and the model, for one attempt (see attempt): a fresh worker each time. */
async function boot(manifest) {
  worker?.terminate();
  worker = null;
  try {
    setStatus("Starting Python (Pyodide)…");
    const python = new PythonWorker(new URL("worker.js", buildFolder), (p) => setStatus(describeLoading(p)));
    try {
      await python.init(buildFolder, manifest);
    } catch (error) {
      python.terminate();
      throw error;
    }
    worker = python;
    await submit(el.text.value);
    root.dataset.state = "ready";
    performance.mark("attention-live:live");
    readyResolve();
    embedding.ready();
    keepForOffline(manifest);
  } catch (error) {
    fail(`The figure could not start: ${error.message}`);
  }
}

function httpAdvice(status) {
  return status === 404 ? "check that all of dist/ is on the server" : "the server could not send it; try again later";
}

/** build.json: what this build is made of (see build.py); it sits in the build's folder beside app.js,
 *  so the page, the worker and every file it lists are always of one build. */
async function fetchManifest() {
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

/* Draw the default view from build.json before Python runs, and wire the controls. */
async function showManifest(manifest) {
  const { config, default_view: defaultView } = manifest; // its text is already in the box (build.py put it there)
  view.config = config;
  el.modelSize.textContent = `tiny ${config.n_layer}-layer, ${config.n_head}-head`;
  drawChoices(el.layers, config.n_layer, (layer) => choose({ layer }));
  drawChoices(el.heads, config.n_head, (head) => choose({ head }));
  drawLegend(el.legend);
  view.headsGrid = createHeadsGrid(el.headsGrid, config, (layer, head) => choose({ layer, head }));
  const readOut = (text) => announcer.choice(() => text); // a keyboard read-out of one number is a choice too
  view.matrix = createMatrix(el.matrix, pickToken, readOut);
  view.math = createMathPanel(el.math, (whatIf) => choose({ whatIf }), readOut);
  view.next = createNextToken(el.next, config, toggleKnockout);
  Object.assign(link, readLink(location.hash, config, manifest.max_text_chars, asInBox), { maxChars: manifest.max_text_chars });
  const given = queue.requested > 0; // a text given before build.json arrived (setText, a message, typing) wins over the link's
  if (given) Object.assign(link, { view: { ...link.view, text: undefined, token: undefined }, changes: [] });
  const { text, layer, head, token, panels } = link.view;
  const linked = text !== undefined && intoBox(text) !== defaultView.text;
  const fresh = linked || (given && el.text.value !== defaultView.text); // no precomputed view for this text
  viewState.update({ layer: layer ?? defaultView.layer, head: head ?? defaultView.head, token: fresh ? Number.MAX_SAFE_INTEGER : defaultView.token, panels: panels ?? {} });
  link.token = token; // the link's own, applied to the first live result
  if (fresh) {
    queue.text = el.text.value; // drawn once Python has tokenized it; the precomputed view is the default sentence's
    setStatus(`Computing ${linked ? "this link's" : "this"} text… (the live model is loading)`);
    drawNotice(null);
  } else {
    queue.text = defaultView.text;
    showPrecomputed(defaultView, config);
  }
  await afterPaint();
  performance.mark("attention-live:first-paint");
}

let manifest = null; // build.json, once downloaded
let attempting = false; // one attempt at a time, however often "Try again" is clicked

/* The first attempt, and each "Try again": build.json first if it has not arrived yet, then Python. */
async function attempt() {
  if (attempting) return;
  attempting = true;
  try {
    newReadyPromise();
    root.dataset.state = "loading";
    if (document.activeElement === el.retry) el.text.focus({ preventScroll: true }); // not lost with the button
    el.retry.hidden = true;
    if (manifest === null) {
      try {
        manifest = await fetchManifest();
      } catch (error) {
        fail(`The figure could not start: ${error.message}`);
        return;
      }
      await showManifest(manifest);
    }
    await boot(manifest);
  } finally {
    attempting = false;
  }
}

function start() {
  if (window.attentionLive) return; // a second start on the same page is a no-op
  if (root.dataset.preflight === "failed") return; // preflight.js has said why the figure cannot run here
  window.attentionLive = api;
  embedding = startEmbedding(api, embedOptions);
  el.text.addEventListener("input", (event) => {
    textReplaced();
    submit(el.text.value, event.timeStamp).catch(() => {}); // after a failed start the status already says why
  });
  el.retry.addEventListener("click", attempt);
  enableChipKeys(el.tokens, pickToken);
  el.copyLink.addEventListener("click", copyLink);
  for (const button of el.saveButtons) button.addEventListener("click", () => save(button.dataset.save));
  for (const [name, panel] of Object.entries(PANELS)) {
    panel.addEventListener("toggle", () => {
      if (viewState.get().panels[name] !== panel.open) viewState.update({ panels: { [name]: panel.open } });
    });
  }
  attempt();
}

start();
