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
import { afterPaint } from "./frames.js";
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
  linkBox: document.getElementById("link-box"),
  linkText: document.getElementById("link-text"),
  savedImage: document.getElementById("saved-image"),
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
  embedding?.changed(); // the panel's height, where no frame is drawn to tell
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
  if (box.cut) parts.push(`The text box keeps the last ${BOX_MAX_CHARS.toLocaleString("en")} characters of a longer text.`);
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

/* A link's view (url-state.js): read at start and on every same-document navigation (followLink); its
 * token is applied to the first live result of its text. `fragment` is the last one written or followed;
 * `enabled` once there is a view of the reader's to write (a live result, or a text given). */
const link = { view: {}, changes: [], token: undefined, maxChars: Infinity, enabled: false, fragment: null, timer: null };
const LINK_PAUSE_MS = 200;

/** Write the view into the address (history.replaceState: no history entry per keystroke), at most
 *  once per LINK_PAUSE_MS: browsers ignore, with a warning, more than about 100 calls in 10 s. */
function writeLink() {
  if (link.enabled && !link.timer) link.timer = setTimeout(writeLinkNow, LINK_PAUSE_MS);
}

/** Write the view into the address now: when the timer fires, and before the address is read or the
 *  page may go (Copy link, pagehide, a hidden tab), so that the last change is never lost. A text on
 *  its way is written without a token (its tokens are not known yet: a link to it selects the last). */
function writeLinkNow() {
  clearTimeout(link.timer);
  link.timer = null;
  if (!link.enabled) return;
  const text = queue.text.length > link.maxChars ? Array.from(queue.text).slice(-link.maxChars).join("") : queue.text; // what the figure uses
  const shown = queue.requested === queue.shown && view.result && !view.result.precomputed;
  const state = viewState.get();
  const fragment = shown ? linkFor(text, state, view.result.ids.length > 0)
    : linkFor(text, { ...state, token: link.token ?? 0 }, link.token !== undefined); // a link's token waits for its text
  if (location.hash !== fragment) {
    const from = location.href;
    history.replaceState(history.state, "", fragment);
    keepPendingLink(from);
  }
  link.fragment = location.hash;
  if (!el.linkBox.hidden) el.linkText.value = location.href;
}

/* A reload right after a change reloads the address the browser had when the reload began, which may
 * be older than the page's last writes (the timer's, pagehide's: the browser learns of each a moment
 * later). So each write is also kept in the tab's sessionStorage, keyed by the address it replaced,
 * for PENDING_LINK_MS; a page that starts at such an address follows the chain of writes from it to
 * the last (takePendingLink). Figures in one tab keep theirs apart: their addresses differ. */
const PENDING_LINK = "attention-live pending link from ";
const PENDING_LINK_MS = 10000;

function keepPendingLink(from) {
  try {
    const now = Date.now();
    for (let i = sessionStorage.length - 1; i >= 0; i--) { // entries older than PENDING_LINK_MS go
      const key = sessionStorage.key(i);
      if (key?.startsWith(PENDING_LINK) && !(now - JSON.parse(sessionStorage.getItem(key)).at < PENDING_LINK_MS)) sessionStorage.removeItem(key);
    }
    sessionStorage.setItem(PENDING_LINK + from, JSON.stringify({ to: location.hash, at: now }));
  } catch {
    // no storage here (a sandbox without allow-same-origin): a reload within 200 ms of a change may lose it
  }
}

function takePendingLink() {
  try {
    let href = location.href;
    for (;;) {
      const key = PENDING_LINK + href;
      const pending = JSON.parse(sessionStorage.getItem(key) ?? "null");
      sessionStorage.removeItem(key); // taken once (a chain that comes back to an address stops there)
      if (!pending || !(Date.now() - pending.at < PENDING_LINK_MS)) break;
      href = new URL(pending.to, href).href;
    }
    if (href !== location.href) history.replaceState(history.state, "", href);
  } catch {
    // no storage: the address as it is
  }
}

/** A same-document navigation (a link to this page opened in the tab that shows it, Back or Forward,
 *  a host changing only the fragment of the iframe's src): the view follows the new fragment as a
 *  fresh load would, with the same fallbacks and notices; what the fragment leaves out is the default
 *  view's. */
function followLink() {
  if (manifest === null || location.hash === link.fragment) return; // before showManifest, it reads the address itself
  clearTimeout(link.timer); // the old view is never written over the new link
  link.timer = null;
  link.fragment = location.hash;
  const { view: asked, changes } = readLink(location.hash, view.config, manifest.max_text_chars, asInBox);
  const defaults = manifest.default_view;
  const text = asked.text ?? defaults.text;
  const newText = boxed(text).text !== queue.text;
  if (newText) {
    textReplaced();
    forgetShown(); // as on a fresh load of the link, its text's own tokens are drawn once computed
    setStatus("Computing this link's text…");
  }
  Object.assign(link, { changes, token: asked.token }); // the link's own token, applied to the first live result of its text
  const panels = Object.fromEntries(Object.keys(PANELS).map((name) => [name, Boolean(asked.panels?.[name])]));
  viewState.update({ // a link carries no what-ifs or knockouts: a fresh load has none
    layer: asked.layer ?? defaults.layer, head: asked.head ?? defaults.head, panels, preview: null,
    whatIf: { scale: true, mask: true }, knockout: [],
    token: text === defaults.text ? defaults.token : Number.MAX_SAFE_INTEGER, // the last token, once its text is shown
  });
  if (newText) submit(intoBox(text)).catch(() => {}); // a failed start already says why
  else if (view.result?.ids.length) {
    viewState.update({ token: Math.min(viewState.get().token, view.result.ids.length - 1) });
    if (!view.result.precomputed) applyLinkToken(view.result);
  }
  drawNotice(view.result);
  embedding.changed(); // the notice's height, where no frame is drawn to tell
}

/* A new text from the reader, the API or a host page, replacing the one shown: the link's notices go
 * and its token no longer applies; the build's precomputed view (the default sentence's) comes down. */
function textReplaced() {
  link.changes = [];
  link.token = undefined;
  if (view.result?.precomputed) forgetShown();
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
    link.enabled = true;
    applyLinkToken(result);
    if (choicePending && showsWhatIfsOf(result, viewState.get())) {
      choicePending = false;
      announcer.choice(summary); // a choice that waited for these numbers
    } else if (readerActed) {
      announcer.later(summary); // once the reader pauses; nothing is said at load, before anyone acts
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
  link.enabled = true;
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

/* The text box keeps at most BOX_MAX_CHARS characters (the figure uses the last max_text_chars of
 * them): a box holding megabytes makes every keystroke cost seconds. `cut`: the last text given was cut. */
const BOX_MAX_CHARS = 20000;
const box = { cut: false };

/** `text` as the box holds it (asInBox), at most its last BOX_MAX_CHARS characters (code points):
 *  {text, cut}. The front is dropped before anything else is done, so that a 40 MB text costs no more
 *  than a short one. */
function boxed(text) {
  let start = Math.max(0, text.length - 2 * BOX_MAX_CHARS); // UTF-16 units: at least BOX_MAX_CHARS code points
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start])) start -= 1; // never split a surrogate pair
  const normal = asInBox(start > 0 ? text.slice(start) : text);
  if (normal.length <= BOX_MAX_CHARS) return { text: normal, cut: start > 0 };
  const chars = Array.from(normal);
  return chars.length <= BOX_MAX_CHARS ? { text: normal, cut: start > 0 } : { text: chars.slice(-BOX_MAX_CHARS).join(""), cut: true };
}

/* A paste or drop that would take the box past BOX_MAX_CHARS: the browser would lay out all of it
 * (megabytes: one task of seconds) before any input event, so the figure inserts the capped text
 * itself, where the caret is, and tells the input handler as the browser would have. */
function insertCapped(event, data) {
  const added = data?.getData("text/plain") ?? "";
  const { value, selectionStart, selectionEnd } = el.text;
  if (value.length - (selectionEnd - selectionStart) + added.length <= BOX_MAX_CHARS) return; // the browser's own insertion
  event.preventDefault();
  const before = value.slice(0, selectionStart);
  intoBox(before + added + value.slice(selectionEnd));
  const caret = Math.max(0, el.text.value.length - (value.length - selectionEnd)); // after the pasted text
  el.text.setSelectionRange(caret, caret);
  typed(event.timeStamp);
}

/* The reader changed the text in the box (typing, pasting, dropping). */
function typed(timeStamp) {
  readerActed = true;
  textReplaced();
  submit(el.text.value, timeStamp).catch(() => {}); // after a failed start the status already says why
  writeLink();
}

/** Put `text` in the text box (boxed) and return what it holds: the figure's text from then on. */
function intoBox(text) {
  const { text: kept, cut } = boxed(text);
  box.cut = cut;
  el.text.value = kept;
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

let readerActed = false; // nothing is said before the reader does something (four figures on a page: four sentences at load)
let choicePending = false; // a choice whose numbers are on their way (a what-if on a new head, a what-if toggled)

/** A choice of the reader's (token, layer, head or what-if; by click, tap, keys or select()): shown,
 *  and said once, with the numbers it shows (when they need a new result, once that has arrived). */
function choose(patch) {
  readerActed = true;
  viewState.update({ ...patch, preview: null });
  if (view.result && !view.result.precomputed && !showsWhatIfsOf(view.result, viewState.get())) choicePending = true;
  else announcer.choice(summary);
}

function pickToken(index) {
  choose({ token: index });
}

const embedded = window.parent !== window;

/* "Copy link": the address, which holds the view (written first: the last change is in it). Where
 * the clipboard is refused (an iframe without allow="clipboard-write", a browser's setting), the link
 * is shown selected, to copy by hand: inside an iframe the address bar shows the course page. */
async function copyLink() {
  writeLinkNow();
  const href = location.href;
  try {
    const policy = document.permissionsPolicy ?? document.featurePolicy; // Chromium: a refused call also logs an error
    if (policy && !policy.allowsFeature("clipboard-write")) throw new Error("the clipboard is not allowed here");
    await navigator.clipboard.writeText(href);
    el.linkBox.hidden = true;
    say("Link copied: it opens this text, layer, head and token.");
  } catch {
    el.linkBox.hidden = false;
    el.linkText.value = href;
    el.linkText.focus();
    el.linkText.select();
    embedding.changed();
    say(`${embedded ? "The course page does not let this figure use the clipboard" : "The browser did not allow copying"}: `
      + "the link is selected in the box \u201cLink to this view\u201d; copy it (Ctrl+C, \u2318C on a Mac, or long-press on a phone).");
  }
}

/* Whether the figure runs in a sandboxed frame: there, setting document.domain throws (HTML's
 * "sandboxed document.domain browsing context flag", set by any sandbox attribute). Checked only
 * in a frame, when saving: a sandbox without allow-downloads blocks the download, and no script can
 * tell whether the download was allowed. */
function inSandbox() {
  if (!embedded) return false;
  try {
    document.domain = document.domain; // eslint-disable-line no-self-assign
    return false;
  } catch {
    return true;
  }
}

/* "Save PNG" and "Save SVG": the image of the view (api.exportImage), downloaded under its own name. */
async function save(format, button) {
  try {
    const { file, note } = await makeImage({ format });
    const anchor = document.createElement("a");
    anchor.href = URL.createObjectURL(file);
    anchor.download = file.name;
    anchor.click();
    const size = `${file.name} (${(file.size / 1024).toFixed(0)} KB${note ? `; ${note}` : ""})`;
    if (inSandbox()) {
      showSavedImage(anchor.href, file.name, button);
      say(`Saving ${size}. This figure is in a sandboxed frame: unless the course page allows downloads from it, `
        + "the browser blocks the file. The image is shown under the buttons: right-click or long-press it to save it "
        + "(or press Tab to reach it and open its menu with Shift+F10).");
    } else {
      setTimeout(() => URL.revokeObjectURL(anchor.href), 60000); // the download has started well before
      say(`Saved ${size}.`);
    }
  } catch (error) {
    say(`The image could not be made: ${error.message}`);
  }
}

/* The image just saved, shown in the page (where a sandbox may have blocked its download), until closed. */
function showSavedImage(url, name, opener) {
  const [image, close] = [el.savedImage.querySelector("img"), el.savedImage.querySelector("button")];
  if (image.src.startsWith("blob:")) URL.revokeObjectURL(image.src);
  image.src = url;
  image.alt = `The saved image, ${name}: ${summary()}`;
  el.savedImage.hidden = false;
  embedding.changed();
  close.onclick = () => {
    el.savedImage.hidden = true;
    URL.revokeObjectURL(image.src);
    image.removeAttribute("src");
    opener.focus({ preventScroll: true }); // back to the Save button that showed it
    embedding.changed();
  };
}

/** The image of what the figure shows (export.js), once the text on its way is shown and the open
 *  panels' numbers are in: {file, note}; `note` says when the PNG's scale was capped. */
async function makeImage(options) {
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
   *  size, or the device pixel ratio if larger, within the canvas limits of export.js's pngScale).
   *  Resolves to a File (a Blob with a name such as
   *  "attention-live-then-the-queen-l2h3.svg") once the text on its way, if any, is shown. */
  async exportImage(options = {}) {
    return (await makeImage(options)).file;
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

/** The loading line: the step, the megabytes downloaded of the total and, once the rate is known
 *  (after 2 s), about how long is left at the rate so far. `startedAt`: performance.now() at the start. */
function describeLoading({ stage, downloaded, total }, startedAt) {
  const step = stage === "python" ? "Starting Python (Pyodide) and numpy" : "Loading the figure's Python package and the model";
  const seconds = (performance.now() - startedAt) / 1000;
  const left = downloaded > 0 && seconds >= 2 && downloaded < total ? (total - downloaded) / (downloaded / seconds) : null;
  const time = left === null ? "" : left < 60 ? ` · about ${Math.max(1, Math.round(left))} s left` : ` · about ${Math.round(left / 60)} min left`;
  return `${step}… · ${(downloaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB${time}`;
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

/* The result shown goes (the precomputed one when a text replaces it, any when a link brings a new
 * text): the views keep their last drawing until the next result replaces it. */
function forgetShown() {
  view.result = null;
  el.tokens.replaceChildren();
  el.notice.hidden = true;
}

/* After a first full visit, sw.js serves this build's files when the network is gone. data-offline
 * says how that went: "ready", or "unavailable" where no service worker can run (an http: origin
 * other than localhost, some embedded or private modes, a cross-site iframe whose browser partitions
 * or refuses storage) or the files do not fit (the storage quota, checked first, is too small: private
 * windows, full disks). A failed install is remembered for this build, so the page does not download
 * everything again on every visit only to fail again; the figure works online either way. */
const OFFLINE_FAILED = "attention-live offline copy failed for build ";
const OFFLINE_RETRY_MS = 24 * 3600 * 1000; // a failed install (a quota, a damaged file, a dropped connection) is tried again after a day
const STORE_FAILED = "sw.js could not store the files";

async function keepForOffline(manifest) {
  const remembered = OFFLINE_FAILED + manifest.build;
  try {
    if (!("serviceWorker" in navigator)) throw new Error("no service workers in this context");
    if (Date.now() - Number(localStorage.getItem(remembered) ?? -Infinity) < OFFLINE_RETRY_MS) throw new Error("this build could not be stored lately");
    const needed = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
    const { quota = Infinity, usage = 0 } = (await navigator.storage?.estimate?.()) ?? {};
    if (quota - usage < 1.2 * needed) throw new Error("not enough storage"); // never a half-written copy
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
    root.dataset.offline = "ready";
  } catch (error) {
    root.dataset.offline = "unavailable";
    if (error.message !== STORE_FAILED) return;
    try {
      localStorage.setItem(remembered, String(Date.now()));
    } catch {
      // no storage at all: nothing to remember it in
    }
  }
}

/* Python and the model, for one attempt (see attempt): a fresh worker each time. */
async function boot(manifest) {
  worker?.terminate();
  worker = null;
  try {
    setStatus("Starting Python (Pyodide)…");
    const startedAt = performance.now();
    const python = new PythonWorker(new URL("worker.js", buildFolder), (p) => setStatus(describeLoading(p, startedAt)));
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
  takePendingLink();
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
  el.text.addEventListener("paste", (event) => insertCapped(event, event.clipboardData));
  el.text.addEventListener("drop", (event) => insertCapped(event, event.dataTransfer));
  el.text.addEventListener("input", (event) => {
    if (el.text.value.length > BOX_MAX_CHARS) intoBox(el.text.value); // typed past the cap: the front goes
    else box.cut = false;
    typed(event.timeStamp);
  });
  window.addEventListener("hashchange", followLink);
  window.addEventListener("popstate", followLink);
  window.addEventListener("pagehide", writeLinkNow); // a reload or a closed tab keeps the last change
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") writeLinkNow(); });
  el.retry.addEventListener("click", attempt);
  enableChipKeys(el.tokens, pickToken);
  el.copyLink.addEventListener("click", copyLink);
  for (const button of el.saveButtons) button.addEventListener("click", () => save(button.dataset.save, button));
  for (const [name, panel] of Object.entries(PANELS)) {
    panel.addEventListener("toggle", () => {
      if (viewState.get().panels[name] !== panel.open) viewState.update({ panels: { [name]: panel.open } });
    });
  }
  attempt();
}

start();
