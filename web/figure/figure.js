/* One figure: an object per <attention-live> element (attention-live.js) that owns its parts (found
 * inside its root), its view state (state.js), its queue of texts for Python, its views (views/) and
 * its API (the methods of window.attentionLive and of the element). Python is the page's
 * (python-client.js), shared by every figure; the page-level pieces (the link in the address, the
 * messages to a host page, the offline copy) are page.js's and attach to the standalone page's figure.
 *
 *   idle: the build's precomputed first paint (default sentence), or the text's chips once tokenized
 *      │ ──(start: Python ready, live attention drawn)──▶ ready ──(text edited)──▶ ready (newest drawn)
 *      │                                                   ▲        │
 *      └──(any load failure)──▶ error ──(Try again)──▶ …   └────────┘ while one text is computed,
 *                                                                     only the newest edit waits
 */
import { createAnnouncer } from "../lib/announcer.js";
import { createAnswers } from "./answers.js";
import { exportFigure } from "./export.js";
import { afterPaint } from "../lib/frames.js";
import { createViewState } from "./view-state.js";
import { asInBox, BOX_MAX_CHARS, boxed, isWellFormed } from "./text-box.js";
import { linkFor, readView } from "./url-state.js";
import { drawChoices, drawTokens, drawWeights, enableChipKeys, markChoice, markReused, markTile } from "../views/chips.js";
import { drawLegend, weightColours } from "../draw/colour.js";
import { focusedIn, setHidden, setText } from "../lib/dom.js";
import { createHeadsGrid } from "../views/heads-grid.js";
import { createMathPanel } from "../views/math-panel.js";
import { createFlashSteps } from "../views/flash-steps.js";
import { createMatrix, describeRow } from "../views/matrix.js";
import { createNextToken } from "../views/next-token.js";
import { drawWhatIfBanner } from "../views/what-if-banner.js";
import { whenSeenOrPaused } from "../lib/when-paused.js";
import { headOffset, keysSeen, queryText } from "../draw/numbers.js";

/* The figure's parts: the id of each, in the figure's tree (its document, or its element's shadow root). */
const PARTS = {
  text: "text", layers: "layers", heads: "heads", status: "status", announcer: "announcer", notice: "notice",
  tokens: "tokens", modelSize: "model-size", retry: "retry", legend: "legend", headsPanel: "heads-panel",
  headsGrid: "heads-grid", matrixPanel: "matrix-panel", matrix: "matrix-view", mathPanel: "math-panel",
  math: "math-view", nextPanel: "next-panel", next: "next-view", whatIf: "what-if", copyLink: "copy-link",
  linkBox: "link-box", linkText: "link-text", savedImage: "saved-image", flashPart: "flash-part", flash: "flash-view",
};
const PANEL_NAMES = ["heads", "matrix", "math", "next"];

/** The answers of Python's (answers.js's kinds) that the open panels of view `state` show. */
function answersShown(state) {
  return [...(state.panels.math ? ["explain"] : []), ...(state.panels.math && state.flash.open ? ["flash"] : []),
    ...(state.panels.next ? ["predict"] : [])];
}

const hasWhatIf = (state) => !state.whatIf.scale || !state.whatIf.mask;

/** The parts of the view state that decide what the figure shows, as one string (the pointer's preview,
 *  the panels and the FlashAttention part's tile left out): equal strings, the same view. */
const viewOf = (state) => JSON.stringify([state.layer, state.head, state.token, state.whatIf, state.knockout]);

/** What the worker computes besides the model's attention for this state: the knocked-out heads and
 *  the what-if of the selected head ({layer, head, scale, mask}, or null). */
function whatIfsOf(state) {
  const { layer, head, whatIf: { scale, mask } } = state;
  return { knockout: state.knockout, whatIf: hasWhatIf(state) ? { layer, head, scale, mask } : null };
}

/* Whether `result` holds the numbers of `state`'s what-ifs (its knockouts and the what-if of its head). */
function showsWhatIfsOf(result, state) {
  return JSON.stringify({ knockout: result.knockout ?? [], whatIf: result.whatIf ?? null }) === JSON.stringify(whatIfsOf(state));
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

/** The loading line: the step, the megabytes downloaded of the total and, once the rate is known
 *  (after 2 s), about how long is left at the rate so far. `startedAt`: performance.now() at the start. */
function describeLoading({ stage, downloaded, total }, startedAt) {
  const step = stage === "python" ? "Starting Python (Pyodide)" : "Loading numpy, the figure's Python package and the model";
  const seconds = (performance.now() - startedAt) / 1000;
  const left = downloaded > 0 && seconds >= 2 && downloaded < total ? (total - downloaded) / (downloaded / seconds) : null;
  const time = left === null ? "" : left < 60 ? ` · about ${Math.max(1, Math.round(left))} s left` : ` · about ${Math.round(left / 60)} min left`;
  return `${step}… · ${(downloaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB${time}`;
}

/* A value given to the API, as an error message shows it: NaN, Infinity, 2n as themselves, others as JSON. */
function describe(value) {
  if (typeof value === "bigint") return `${value}n (a BigInt, not a number)`;
  return typeof value === "number" || typeof value === "symbol" ? String(value) : JSON.stringify(value) ?? String(value);
}

/** The `options` object of the API method `method` (undefined: none); a TypeError naming its `fields`
 *  for anything but an object (a string, a number, an array, null). */
function optionsOf(options, method, fields) {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new TypeError(`${method} takes {${fields}}, got ${describe(options)}`);
  return options;
}

function checkedNumber(value, low, high, name) {
  if (!Number.isInteger(value) || value < low || value > high) {
    throw new RangeError(`${name} must be an integer from ${low} to ${high}, got ${describe(value)}`);
  }
  return value + 0; // + 0 turns -0 into 0
}

const embedded = window.parent !== window;

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

export class AttentionFigure {
  /**
   * @param {Element} root        the figure's element: its parts are found inside it
   * @param {object} options
   *   host          the <attention-live> element: its events are dispatched there
   *   stateElements where data-state is set: the element (the standalone page's: its <html> first)
   *   python        the page's PythonClient (python-client.js)
   *   buildFolder   the build's folder URL (build.json, worker.js)
   *   manifest      () => Promise of the build's build.json (page.js's fetchManifest)
   *   initialView   (config, maxChars) => {view, changes}: the view asked for (url-state.js's readLink
   *                 of the address, or of the element's attributes)
   *   linkHref      (fragment) => the address "Copy link" copies for the view `fragment`
   *   notices       sentences shown in the notice for as long as the figure lives
   */
  constructor(root, options) {
    this.root = root;
    this.options = options;
    this.stateElements = options.stateElements;
    const part = (id) => root.querySelector(`[id="${id}"]`);
    const tree = root.getRootNode(); // the document, or the element's shadow root
    if (!tree.adoptedStyleSheets.includes(weightColours())) tree.adoptedStyleSheets = [...tree.adoptedStyleSheets, weightColours()];
    this.el = Object.fromEntries(Object.entries(PARTS).map(([name, id]) => [name, part(id)]));
    this.el.saveButtons = root.querySelectorAll("button[data-save]");
    this.panels = { heads: this.el.headsPanel, matrix: this.el.matrixPanel, math: this.el.mathPanel, next: this.el.nextPanel };
    this.view = { result: null, config: null, headsGrid: null, matrix: null, math: null, flash: null, next: null, offScreen: null }; // the numbers shown, and the views made for this model
    this.viewState = createViewState({
      layer: 1, head: 1, token: 0, preview: null, panels: Object.fromEntries(PANEL_NAMES.map((name) => [name, false])),
      whatIf: { scale: true, mask: true }, knockout: [], flash: { open: false, tile: 4, step: 0 }, // tiles of 4: the default sentence in four
    });
    this.queue = { text: "", requested: 0, shown: 0, waiters: [] }; // the texts given (requested) and shown, by number
    this.announcer = createAnnouncer(this.el.announcer);
    this.answers = createAnswers(() => [this.view.result, this.viewState.get()], (kind) => this.onAnswer(kind));
    this.answersToDraw = new Set(); // kinds of answers arrived and not yet drawn (onAnswer)
    this.chipsDrawn = Promise.resolve(); // resolves once the frame that shows the newest result's chips is drawn
    this.channel = null; // this figure's channel to Python, once it runs
    this.manifest = null; // build.json, once downloaded
    this.asked = { changes: [], token: undefined, tokenAsked: undefined }; // what the view asked for could not give, and its token (applied to the first live result) as the link wrote it
    this.readerView = false; // a view of the reader's exists (a live result, or a text given): page.js writes it into links
    this.box = { cut: false }; // the last text given was cut to BOX_MAX_CHARS
    this.listeners = new Set();
    this.resultsShown = 0;
    this.spoken = null; // {text, shown, view}: an answer said on the status line, kept there while its text and view are shown (say)
    this.updateMeasures = 0;
    this.readerActed = false; // nothing is said before the reader does something (four figures on a page: four sentences at load)
    this.choicePending = false; // a choice whose numbers are on their way (a what-if on a new head, a what-if toggled)
    this.attempting = false;
    this.preparing = null; // prepare()'s promise while build.json is on its way
    this.newReadyPromise();
    this.viewState.subscribe((state, previous) => this.render(state, previous));
    this.viewState.subscribe((state, previous) => this.whatIfsChanged(state, previous));
    this.viewState.subscribe(() => this.changed());
    this.api = this.makeApi();
    this.wire();
  }

  /** Call `listener()` whenever what the figure shows may have changed (the view, a result, an answer,
   *  a notice, a box shown); returns a function that removes it. */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    for (const listener of this.listeners) listener();
  }

  setState(name) {
    for (const element of this.stateElements) element.dataset.state = name;
  }

  get state() {
    return this.stateElements[0].dataset.state;
  }

  newReadyPromise() {
    this.ready = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    this.ready.catch(() => {}); // the figure shows the error; callers of .ready still see the rejection
  }

  setStatus(text) {
    setText(this.el.status, text);
  }

  /* The answer to a button (Copy link, Save): on the status line, and said. It stays on the status line
   * while the text and the view are those it answered (a token previewed by the pointer shows over it,
   * then it comes back; render), so that what changes neither, such as the numbers of a knockout asked
   * for just before arriving just after, does not wipe it before it is read. */
  say(text) {
    this.setStatus(text);
    this.announcer.now(text);
    this.spoken = { text, shown: this.view.result?.text, view: viewOf(this.viewState.get()) };
  }

  /** The status line's sentence about the view on screen: the query, layer, head and where the numbers
   *  come from, unless an answer said (say) for this very view and result is kept there. */
  statusLine(result, state, token) {
    const { spoken } = this;
    if (spoken && (spoken.shown !== result.text || spoken.view !== viewOf(state))) this.spoken = null;
    if (this.spoken && state.preview === null) return this.spoken.text;
    const source = result.precomputed ? "precomputed at build time" : "computed live in this tab";
    return `Query ${queryText(result.labels, token)} · layer ${state.layer}, head ${state.head} · ${source}`;
  }

  fail(message) {
    this.setState("error");
    this.setStatus(message);
    this.announcer.again(message); // said even when the same error comes back after "Try again"
    this.drawNotice(this.view.result);
    this.el.retry.hidden = false;
    this.readyReject(new Error(message));
    for (const waiter of this.queue.waiters.splice(0)) waiter.reject(new Error(message));
    this.changed();
  }

  /* Ask Python for what the open panels show, when it is free (its live cache then holds the result
   * drawn); each answer redraws the views (answers.js drops one for an older view). */
  askPython(state) {
    const { result } = this.view;
    if (!this.channel || !result || result.precomputed || result.ids.length === 0 || this.channel.busy) return;
    for (const kind of answersShown(state)) this.answers.ask(kind, this.channel, result, state);
  }

  /* An answer of `kind` for the view on screen (null: a request failed). Drawn once the frame that
   * shows the chips of its result has been drawn, and together with the open panels' other answers
   * on their way (the worker answers them one after another): the chips' frame does not wait for the
   * panels, and the panels take one frame more, not one per answer (at CPU ×4 a frame of this figure
   * with its panels open costs 25–35 ms: docs/benchmark.md). */
  onAnswer(kind) {
    if (kind) this.answersToDraw.add(kind);
    const state = this.viewState.get();
    const { result } = this.view;
    if (!result || !this.answers.onTheirWay(answersShown(state), result, state)) this.chipsDrawn.then(() => this.drawAnswers());
  }

  /* The views of the answers arrived since the last drawn (the rest shows this view already). */
  drawAnswers() {
    if (!this.view.result) this.answersToDraw.clear(); // no view to draw them for (a new start)
    if (this.answersToDraw.size === 0) return;
    const state = this.viewState.get();
    if (this.answersToDraw.has("predict")) this.drawNext(state, null);
    if (this.answersToDraw.has("explain")) this.drawMath(state);
    if (this.answersToDraw.has("flash")) this.drawFlash(state, state);
    this.answersToDraw.clear();
    this.changed(); // the panel's height, where no frame is drawn to tell
    this.measurePanels(this.view.result, state);
  }

  /* Once the open panels show the numbers of the edit that made `result`: its "panels" measure (input
   * to that frame; with no panel of Python's answers open, the chips' frame). Measured once per edit. */
  measurePanels(result, state) {
    if (result.inputTime === undefined || !answersShown(state).every((kind) => this.answers.get(kind, result, state))) return;
    this.measureUpdate(result.inputTime, "panels");
    result.inputTime = undefined;
  }

  /* The worker computes the what-ifs (knockouts, a what-if on the selected head) with the attention:
   * new ones need the same text computed again. */
  whatIfsChanged(state, previous) {
    if (this.channel && JSON.stringify(whatIfsOf(state)) !== JSON.stringify(whatIfsOf(previous))) this.submit(this.queue.text).catch(() => {});
  }

  /* Every view redraws from the view state: the chips and selectors always, the panels below them
   * while open (opening one draws it). */
  render(state, previous) {
    const { el, view } = this;
    markChoice(el.layers, state.layer);
    markChoice(el.heads, state.head);
    // a panel follows the state only when the state's panel changed: a visitor's click on a summary
    // may not have reached the state yet (its toggle event comes later)
    for (const [name, panel] of Object.entries(this.panels)) {
      if (state.panels[name] !== previous.panels[name]) panel.open = state.panels[name];
    }
    drawWhatIfBanner(el.whatIf, state);
    const waiting = !view.result || view.result.precomputed ? "Waiting for the live model…"
      : view.result.ids.length === 0 ? "No tokens: type a sentence above." : null;
    this.drawNext(state, waiting);
    if (state.flash.open !== previous.flash.open && el.flashPart.open !== state.flash.open) el.flashPart.open = state.flash.open;
    if (waiting) view.math?.clear(waiting);
    if (waiting) view.flash?.clear(waiting);
    const live = Boolean(view.result && !view.result.precomputed); // what-ifs need the live model (not while loading)
    view.math?.enable(live);
    view.flash?.enable(live);
    view.next?.enable(live);
    const { result } = view;
    if (!result?.attention) return; // nothing yet, or only its tokens (showTokensEarly)
    this.askPython(state);
    if (state.panels.heads && view.headsGrid) view.offScreen.heads.draw(() => view.headsGrid.draw(result, state));
    if (state.panels.matrix && view.matrix) view.offScreen.matrix.draw(() => view.matrix.draw(result, state));
    const T = result.ids.length;
    if (T === 0) return;
    markReused(el.tokens, state.panels.math && result.cache ? result.cache.reused : 0);
    this.drawMath(state);
    this.drawFlash(state, previous);
    const token = state.preview ?? state.token;
    const row = result.attention.subarray(headOffset(result, state.layer, state.head) + token * T).subarray(0, T);
    drawWeights(el.tokens, row, token, state.preview !== null, keysSeen(result, state, token) === token + 1);
    this.setStatus(this.statusLine(result, state, token));
  }

  /* The next token's panel: Python's prediction for `state`, or `waiting` (why there is none). */
  drawNext(state, waiting) {
    const { result } = this.view;
    this.view.next?.draw(result && this.answers.get("predict", result, state), result?.labels ?? [], state, waiting);
  }

  /* "Show the math": Python's explanation of `state`'s row, once it has arrived. */
  drawMath(state) {
    const { result, math, offScreen } = this.view;
    const explained = this.answers.get("explain", result, state);
    if (state.panels.math && math && explained) offScreen.math.draw(() => math.draw(explained, result.labels, result.cache));
  }

  /* "Compute it as FlashAttention does": the tile shown, and its keys marked on the chips and the matrix. */
  drawFlash(state, previous) {
    const { el, view } = this;
    const shown = state.panels.math && state.flash.open;
    const flashed = shown ? this.answers.get("flash", view.result, state) : null;
    if (flashed) view.flash.draw(flashed, view.result.labels, state.flash.step, state.flash.step !== previous.flash.step, hasWhatIf(state) || state.knockout.length > 0);
    const tile = flashed?.steps[Math.min(state.flash.step, flashed.steps.length - 1)].keys ?? null;
    if (shown || (previous.panels.math && previous.flash.open)) markTile(el.tokens, tile?.[0] ?? null, tile?.[1]); // chips untouched while it is closed
    if (state.panels.matrix) view.matrix?.markTile(tile && { token: state.token, first: tile[0], last: tile[1] });
  }

  /** The notice above the chips: what the figure changed in what it was given (`result`, or null
   *  before the first result is shown), what the asked view could not give, and the figure's own notices. */
  drawNotice(result) {
    const parts = [];
    if (result?.precomputed && !result.tokensOnly) {
      parts.push(this.state === "error" ? "This view was computed when the figure was built."
        : "This view was computed when the figure was built; the live model is still loading.");
    }
    if (result?.charsDropped > 0) {
      parts.push(`Only the last ${Array.from(result.text).length.toLocaleString("en")} characters are used.`); // code points, as Python counts
    }
    if (result?.tokensDropped > 0) {
      const earlier = result.tokensDropped === 1 ? "1 earlier token is" : `${result.tokensDropped} earlier tokens are`;
      parts.push(`Showing the last ${result.ids.length} tokens, the model's context (block_size); ${earlier} not shown.`);
    }
    if (this.box.cut) parts.push(`The text box keeps the last ${BOX_MAX_CHARS.toLocaleString("en")} characters of a longer text.`);
    parts.push(...this.asked.changes, ...(this.options.notices ?? [])); // what the view asked for that could not be shown (until the next text)
    setText(this.el.notice, parts.join(" "));
    setHidden(this.el.notice, parts.length === 0);
  }

  /** The fragment of the view shown (url-state.js's linkFor): the text the figure uses, and, once its
   *  tokens are shown, the token; a text on its way is written without one (a link to it selects the
   *  last), unless the asked view's token waits for it. */
  linkFragment() {
    const { queue, view } = this;
    const maxChars = this.manifest?.max_text_chars ?? Infinity;
    const text = queue.text.length > maxChars ? Array.from(queue.text).slice(-maxChars).join("") : queue.text; // what the figure uses
    const shown = queue.requested === queue.shown && view.result && !view.result.precomputed;
    const state = this.viewState.get();
    return shown ? linkFor(text, state, view.result.ids.length > 0)
      : linkFor(text, { ...state, token: this.asked.token ?? 0 }, this.asked.token !== undefined);
  }

  /** Whether followLink can show a link's view now: once build.json has arrived (before that, the
   *  figure's start reads the view asked for itself: options.initialView). For page pieces. */
  get canFollowLink() {
    return this.manifest !== null;
  }

  /** Show the view of the link fragment `fragment` ("#text=…&layer=2&…", read as url-state.js's readLink
   *  reads any link: the same fallbacks, and what it changes said in the notice), with `text` as its
   *  text where given (an element's text attribute: readView), as a fresh load would: a link followed
   *  in the tab (page-link.js), an element's attributes changed (attention-live.js). Only once
   *  canFollowLink. For page pieces. */
  followLink(fragment, text) {
    const { view, changes } = readView(fragment, text, this.view.config, this.manifest.max_text_chars, asInBox);
    this.showView(view, changes);
  }

  /** Show the view `asked` ({text, layer, head, token, panels}: each optional, checked by readLink)
   *  as a fresh load would, with `changes` (what could not be given) in the notice; what it leaves
   *  out is the default view's. A link followed in the tab, an attribute changed. */
  showView(asked, changes) {
    const defaults = this.manifest.default_view;
    const text = asked.text ?? defaults.text;
    const newText = boxed(text).text !== this.queue.text;
    if (newText) {
      this.textReplaced();
      this.forgetShown(); // as on a fresh load, the text's own tokens are drawn once computed
      this.setStatus("Computing this link's text…");
    }
    Object.assign(this.asked, { changes, token: asked.token, tokenAsked: asked.tokenAsked }); // its own token, applied to the first live result of its text
    const panels = Object.fromEntries(PANEL_NAMES.map((name) => [name, Boolean(asked.panels?.[name])]));
    this.viewState.update({ // a link carries no what-ifs or knockouts: a fresh load has none
      layer: asked.layer ?? defaults.layer, head: asked.head ?? defaults.head, panels, preview: null,
      whatIf: { scale: true, mask: true }, knockout: [],
      token: text === defaults.text ? defaults.token : Number.MAX_SAFE_INTEGER, // the last token, once its text is shown
    });
    const { result } = this.view;
    if (newText) this.submit(this.intoBox(text)).catch(() => {}); // a failed start already says why
    else if (result?.ids.length) {
      this.viewState.update({ token: Math.min(this.viewState.get().token, result.ids.length - 1) });
      if (!result.precomputed) this.applyAskedToken(result);
    }
    this.drawNotice(this.view.result);
    this.changed(); // the notice's height, where no frame is drawn to tell
  }

  /* A new text from the reader, the API or a host page, replacing the one shown: the asked view's
   * notices go and its token no longer applies; the build's precomputed view (the default sentence's)
   * comes down. */
  textReplaced() {
    Object.assign(this.asked, { changes: [], token: undefined, tokenAsked: undefined });
    if (this.view.result?.precomputed) this.forgetShown();
  }

  /* The first live result: the asked token, moved to the last token when the text is shorter. */
  applyAskedToken(result) {
    const { token, tokenAsked } = this.asked;
    Object.assign(this.asked, { token: undefined, tokenAsked: undefined });
    const T = result.ids.length;
    if (token === undefined || T === 0) return;
    if (token >= T) this.asked.changes.push(`The link asked for token ${tokenAsked ?? token + 1}; the text has ${T}, so the last is selected.`);
    this.viewState.update({ token: Math.min(token, T - 1) });
    this.drawNotice(result);
  }

  show(result) {
    const { el, view } = this;
    const active = focusedIn(this.root);
    const focused = active !== el.text && this.root.contains(active) ? active : null; // the box is never removed: typing pays nothing here
    const token = queryAfter(view.result, result, this.viewState.get().token);
    result.seq = ++this.resultsShown; // explain's and predict's answers name the result they belong to
    view.result = result;
    drawTokens(el.tokens, result.labels, result.ids, (index) => this.pickToken(index), (index) => this.viewState.update({ preview: index }));
    this.drawNotice(result);
    if (result.ids.length === 0) this.setStatus("Empty text: type a sentence to see how its tokens attend to each other.");
    this.viewState.update({ token, preview: null });
    if (!result.precomputed) {
      this.readerView = true;
      this.applyAskedToken(result);
      const summary = () => this.summary();
      if (this.choicePending && showsWhatIfsOf(result, this.viewState.get())) {
        this.choicePending = false;
        this.announcer.choice(summary); // a choice that waited for these numbers
      } else if (this.readerActed) {
        this.announcer.later(summary); // once the reader pauses; nothing is said at load, before anyone acts
      }
    }
    this.keepFocus(focused);
  }

  /* After an update removed or hid the element that had the focus (a chip of a shortened text; the
   * matrix or a strip of an emptied one), the focus goes to the query's chip, or to the text box when
   * there are no tokens: never to the page's body. Every view hides with the `hidden` attribute
   * (dom.js), so the attribute tells without a layout (checkVisibility would force one in the middle
   * of drawing: 7 ms of every update at CPU ×4, docs/benchmark.md). */
  keepFocus(element) {
    if (!element || (focusedIn(this.root) !== element && document.activeElement !== document.body)) return;
    if (element.isConnected && !element.closest("[hidden]")) return;
    (this.el.tokens.querySelector('.chip[tabindex="0"]') ?? this.el.text).focus({ preventScroll: true });
  }

  async resolveWaiters() {
    await afterPaint();
    const { queue } = this;
    const done = queue.waiters.filter((w) => w.seq <= queue.shown);
    queue.waiters = queue.waiters.filter((w) => w.seq > queue.shown);
    for (const waiter of done) waiter.resolve();
  }

  /* Update latency, for the benchmark: from the input event (or the setText call) to the DOM holding
   * its result ("drawn"), to the animation frame that shows it ("update"), and to the frame that shows
   * the open panels' numbers for it ("panels": "Show the math" and the next token need more requests
   * to Python). */
  measureUpdate(inputTime, name = "update") {
    if (name === "update") {
      if (++this.updateMeasures % 1000 === 0) performance.clearMeasures(); // bounded over long use; never between an edit's measures
      performance.measure("attention-live:drawn", { start: inputTime, end: performance.now() });
    }
    requestAnimationFrame(() => performance.measure(`attention-live:${name}`, { start: inputTime, end: performance.now() }));
  }

  /* The channel's answer to the newest text (python-client.js: stale results are never delivered). */
  onResult(result, { seq, inputTime, whatIfs }) {
    Object.assign(result, whatIfs); // what the numbers are: the views repaint when it changes (heatmap.js)
    this.show(result);
    this.chipsDrawn = afterPaint();
    if (inputTime !== undefined) this.measureUpdate(inputTime);
    result.inputTime = inputTime; // for the open panels' own measure, once their answers are drawn
    this.measurePanels(result, this.viewState.get());
    this.queue.shown = seq;
    this.resolveWaiters();
  }

  onError(error, { seq }) {
    this.setStatus(`This text could not be analysed: ${error.message}`);
    this.queue.shown = seq;
    this.resolveWaiters();
  }

  /* Python is free again: the open panels' numbers, asked at once, so that Python computes them while
   * this thread draws the chips (asked after the chips' frame, they came a round trip later:
   * docs/benchmark.md). */
  onIdle() {
    this.askPython(this.viewState.get());
    this.changed();
  }

  /** Give the figure `text` (as the box holds it): computed by Python as soon as it is free, where
   *  only the newest text waits (python-client.js). Resolves once it, or a newer one, is shown. */
  submit(text, inputTime = undefined) {
    const { queue } = this;
    if (this.state === "error") return Promise.reject(new Error(this.el.status.textContent));
    queue.text = text; // the text the figure was last given: what the box holds (intoBox)
    this.readerView = true;
    queue.requested += 1;
    const shown = this.whenShown(queue.requested);
    this.channel?.submit({ seq: queue.requested, text, inputTime, whatIfs: () => whatIfsOf(this.viewState.get()) });
    return shown;
  }

  /** Resolves once the text of request `seq` (or a newer one) is on screen. */
  whenShown(seq) {
    return new Promise((resolve, reject) => this.queue.waiters.push({ seq, resolve, reject }));
  }

  /* A paste or drop that would take the box past BOX_MAX_CHARS: the browser would lay out all of it
   * (megabytes: one task of seconds) before any input event, so the figure inserts the capped text
   * itself, where the caret is, and tells the input handler as the browser would have. */
  insertCapped(event, data) {
    const box = this.el.text;
    const added = data?.getData("text/plain") ?? "";
    const { value, selectionStart, selectionEnd } = box;
    if (value.length - (selectionEnd - selectionStart) + added.length <= BOX_MAX_CHARS) return; // the browser's own insertion
    event.preventDefault();
    const before = value.slice(0, selectionStart);
    this.intoBox(before + added + value.slice(selectionEnd));
    const caret = Math.max(0, box.value.length - (value.length - selectionEnd)); // after the pasted text
    box.setSelectionRange(caret, caret);
    this.typed(event.timeStamp);
  }

  /* The reader changed the text in the box (typing, pasting, dropping). */
  typed(timeStamp) {
    this.readerActed = true;
    this.textReplaced();
    this.submit(this.el.text.value, timeStamp).catch(() => {}); // after a failed start the status already says why
    this.changed();
  }

  /** Put `text` in the text box (boxed) and return what it holds: the figure's text from then on. */
  intoBox(text) {
    const { text: kept, cut } = boxed(text);
    this.box.cut = cut;
    this.el.text.value = kept;
    return this.el.text.value;
  }

  /** The view in one sentence, for the live region: "16 tokens; layer 2, head 3: «said» attends most to
   *  «Alice» 80.6%, then …". */
  summary() {
    const { result } = this.view;
    const state = this.viewState.get();
    if (!result || result.ids.length === 0) return "No tokens: type a sentence.";
    const whatIf = hasWhatIf(state) || state.knockout.length ? " (a what-if, not the model's own numbers)" : "";
    return `${result.ids.length} tokens; layer ${state.layer}, head ${state.head}${whatIf}: ${describeRow(result, state, state.token)}`;
  }

  /** A choice of the reader's (token, layer, head or what-if; by click, tap, keys or select()): shown,
   *  and said once, with the numbers it shows (when they need a new result, once that has arrived). */
  choose(patch) {
    this.readerActed = true;
    this.viewState.update({ ...patch, preview: null });
    const { result } = this.view;
    if (result && !result.precomputed && !showsWhatIfsOf(result, this.viewState.get())) this.choicePending = true;
    else this.announcer.choice(() => this.summary());
  }

  pickToken(index) {
    this.choose({ token: index });
  }

  toggleKnockout(layer, head) {
    const { knockout } = this.viewState.get();
    const on = knockout.some(([l, h]) => l === layer && h === head);
    const next = on ? knockout.filter(([l, h]) => l !== layer || h !== head) : [...knockout, [layer, head]];
    this.choose({ knockout: next.sort((a, b) => a[0] - b[0] || a[1] - b[1]) });
  }

  /* "Copy link": the link to this view (options.linkHref). Where the clipboard is refused (an iframe
   * without allow="clipboard-write", a browser's setting), the link is shown selected, to copy by hand:
   * inside an iframe the address bar shows the course page. */
  async copyLink() {
    const href = this.options.linkHref(this.linkFragment());
    const { el } = this;
    try {
      const policy = document.permissionsPolicy ?? document.featurePolicy; // Chromium: a refused call also logs an error
      if (policy && !policy.allowsFeature("clipboard-write")) throw new Error("the clipboard is not allowed here");
      await navigator.clipboard.writeText(href);
      el.linkBox.hidden = true;
      this.say("Link copied: it opens this text, layer, head and token.");
    } catch {
      el.linkBox.hidden = false;
      el.linkText.value = href;
      el.linkText.focus();
      el.linkText.select();
      this.changed();
      this.say(`${embedded ? "The course page does not let this figure use the clipboard" : "The browser did not allow copying"}: `
        + "the link is selected in the box \u201cLink to this view\u201d; copy it (Ctrl+C, \u2318C on a Mac, or long-press on a phone).");
    }
  }

  /** The link box, where it is shown, holds `href` (the address, rewritten after the box was shown). */
  showLinkInBox(href) {
    if (!this.el.linkBox.hidden) this.el.linkText.value = href;
  }

  /* "Save PNG" and "Save SVG": the image of the view (exportImage), downloaded under its own name. */
  async save(format, button) {
    try {
      const { file, note } = await this.makeImage({ format });
      const anchor = document.createElement("a");
      anchor.href = URL.createObjectURL(file);
      anchor.download = file.name;
      anchor.click();
      const size = `${file.name} (${(file.size / 1024).toFixed(0)} KB${note ? `; ${note}` : ""})`;
      if (inSandbox()) {
        this.showSavedImage(anchor.href, file.name, button);
        this.say(`Saving ${size}. This figure is in a sandboxed frame: unless the course page allows downloads from it, `
          + "the browser blocks the file. The image is shown under the buttons: right-click or long-press it to save it "
          + "(or press Tab to reach it and open its menu with Shift+F10).");
      } else {
        setTimeout(() => URL.revokeObjectURL(anchor.href), 60000); // the download has started well before
        this.say(`Saved ${size}.`);
      }
    } catch (error) {
      this.say(`The image could not be made: ${error.message}`);
    }
  }

  /* The image just saved, shown in the figure (where a sandbox may have blocked its download), until closed. */
  showSavedImage(url, name, opener) {
    const { savedImage } = this.el;
    const [image, close] = [savedImage.querySelector("img"), savedImage.querySelector("button")];
    if (image.src.startsWith("blob:")) URL.revokeObjectURL(image.src);
    image.src = url;
    image.alt = `The saved image, ${name}: ${this.summary()}`;
    savedImage.hidden = false;
    this.changed();
    close.onclick = () => {
      savedImage.hidden = true;
      URL.revokeObjectURL(image.src);
      image.removeAttribute("src");
      opener.focus({ preventScroll: true }); // back to the Save button that showed it
      this.changed();
    };
  }

  /** The image of what the figure shows (export.js), once the text on its way is shown and the open
   *  panels' numbers are in: {file, note}; `note` says when the PNG's scale was capped. */
  async makeImage(options) {
    if (options === null || typeof options !== "object") throw new TypeError(`exportImage takes {format: "svg" | "png"}, got ${describe(options)}`);
    const { format = "png" } = options;
    if (format !== "svg" && format !== "png") throw new TypeError(`format must be "svg" or "png", got ${describe(format)}`);
    const { panels } = this.viewState.get();
    if (!this.view.result?.attention || ((panels.math || panels.next) && !this.channel)) await this.ready.catch(() => {}); // the numbers of a link's text, of the open panels
    if (this.queue.requested > this.queue.shown) await this.whenShown(this.queue.requested);
    if (!this.view.result) throw new Error("the figure has no text to show yet");
    const state = this.viewState.get();
    const { result, config } = this.view;
    const live = this.channel && !result.precomputed && result.ids.length > 0;
    const answer = async (kind) => (state.panels[kind === "explain" ? "math" : "next"] && live ? this.answers.wait(kind, this.channel, result, state) : null);
    const [explained, predicted] = await Promise.all([answer("explain"), answer("predict")]);
    return exportFigure({ result, state, config, explained, predicted, width: this.root.clientWidth }, format);
  }

  /** {layer, head, token} of `choice` checked against the model and the text shown once the figure is
   *  ready (and the text on its way, if any, is shown); a field left out keeps the view's value. */
  async checkedChoice(choice, needsTokens = false) {
    await this.ready;
    if (this.queue.requested > this.queue.shown) await this.whenShown(this.queue.requested); // choose among the tokens of a text on its way
    const { result, config } = this.view;
    const T = result ? result.ids.length : 0;
    if (T === 0 && needsTokens) throw new RangeError("the text has no tokens");
    const now = this.viewState.get();
    const layer = checkedNumber(choice.layer ?? now.layer, 1, config.n_layer, "layer");
    const head = checkedNumber(choice.head ?? now.head, 1, config.n_head, "head");
    if (T === 0 && choice.token !== undefined) throw new RangeError("token: the text has no tokens to select");
    const token = T === 0 ? 0 : checkedNumber(choice.token ?? now.token, 0, T - 1, "token");
    return { layer, head, token };
  }

  /* The figure's API: window.attentionLive on the standalone page, the element's own methods. */
  makeApi() {
    const figure = this;
    return {
      /** A Promise: resolves when data-state becomes "ready", rejects on "error" (a retry makes a new one). */
      get ready() {
        return figure.ready;
      },
      /** Replace the text (line breaks normalised as the box does: see text-box.js); resolves once the
       *  figure shows its tokens and attention. */
      setText(text) {
        if (typeof text !== "string") return Promise.reject(new TypeError(`setText needs a string, got ${typeof text}`));
        figure.textReplaced();
        return figure.submit(figure.intoBox(text), performance.now()); // timed from the call, as typing is from its input event
      },
      /** Choose the view: layer and head 1-based as labelled, token 0-based among the shown tokens; a
       *  field left out keeps its value at the time the figure is ready. All fields are checked before
       *  any changes: a RangeError leaves the view as it was. */
      async select(choice = {}) {
        figure.choose(await figure.checkedChoice(choice));
        if (figure.queue.requested > figure.queue.shown) await figure.whenShown(figure.queue.requested); // a what-if on a newly selected head
        await afterPaint();
      },
      /** The math of one attention row (Figure.explain): layer and head 1-based, token 0-based (each
       *  defaults to the view's), scale and mask true unless a what-if leaves that step out. Resolves to
       *  {layer, head, token, dk, sqrt_dk, scale, mask, q, k, v, scores, scaled, weights, weights_sum,
       *  output, contributions, knockout}; rejects with a RangeError for a bad choice. */
      async explain(options) {
        const { layer, head, token, scale = true, mask = true } = optionsOf(options, "explain", "layer, head, token, scale, mask");
        const choice = await figure.checkedChoice({ layer, head, token }, true);
        if (typeof scale !== "boolean" || typeof mask !== "boolean") throw new TypeError("scale and mask must be true or false");
        const answer = await figure.channel.ask("explain", { ...choice, scale, mask, knockout: [] });
        const list = (values) => Array.from(values, (x) => (x === -Infinity ? null : x)); // null: masked
        const plain = Object.fromEntries(Object.entries(answer).map(([name, value]) => [name, ArrayBuffer.isView(value) ? list(value) : value]));
        return { ...plain, k: answer.k.map(list), v: answer.v.map(list) };
      },
      /** The selected row computed as FlashAttention does (Figure.flash): keys in tiles of `tile` (1 to
       *  block_size), layer and head 1-based, token 0-based (each defaults to the view's). Resolves to
       *  {layer, head, token, tile, steps: [{keys: [first, last], skipped, m, l, rescale, acc}], output,
       *  reference_output, max_abs_diff, scores_held, scores_plain, memory}; rejects with a RangeError
       *  for a bad choice or tile size. */
      async flash(options) {
        const { layer, head, token, tile = 16 } = optionsOf(options, "flash", "layer, head, token, tile");
        const choice = await figure.checkedChoice({ layer, head, token }, true);
        checkedNumber(tile, 1, figure.view.config.block_size, "tile");
        const answer = await figure.channel.ask("flash", { ...choice, tile });
        return { ...answer, output: Array.from(answer.output), reference_output: Array.from(answer.reference_output),
          steps: answer.steps.map((step) => ({ ...step, acc: Array.from(step.acc) })) };
      },
      /** The next token after `token` (Figure.predict): {token, candidates: [{id, label, p}], next:
       *  {id, label, p, rank} | null, knockout}; `knockout` lists {layer, head} to knock out (then each
       *  candidate also has p_intact and delta). */
      async predict(options) {
        const { token, top = 5, knockout = [] } = optionsOf(options, "predict", "token, top, knockout");
        const choice = await figure.checkedChoice({ token }, true);
        const { config } = figure.view;
        checkedNumber(top, 1, config.vocab_size, "top");
        if (!Array.isArray(knockout)) throw new TypeError("knockout must be a list of {layer, head}");
        const pairs = Array.from(knockout, (pair) => [checkedNumber(pair?.layer, 1, config.n_layer, "knockout layer"),
          checkedNumber(pair?.head, 1, config.n_head, "knockout head")]); // Array.from visits holes too
        const answer = await figure.channel.ask("predict", { token: choice.token, top, knockout: pairs });
        return { ...answer, knockout: answer.knockout.map(([l, h]) => ({ layer: l, head: h })) };
      },
      /** An image of what the figure shows (export.js): the chips, the legend and the open panels, with a
       *  caption naming the model, layer, head and query; `format` "svg" or "png" (twice the CSS pixel
       *  size, or the device pixel ratio if larger, within the canvas limits of export.js's pngScale).
       *  Resolves to a File (a Blob with a name such as
       *  "attention-live-then-the-queen-l2h3.svg") once the text on its way, if any, is shown. */
      async exportImage(options = {}) {
        return (await figure.makeImage(options)).file;
      },
      /** The view on screen: weights is the selected attention row (probabilities of keys 0..T-1, the
       *  what-if row while one is on); matrix the selected head's T × T rows as drawn (row i: query i's
       *  probabilities, 0 after i); panels which views below the chips are open; whatIf and knockout the
       *  what-ifs on; reused how many positions' keys and values came from the KV cache on the last
       *  update; build the id of the build running (build.json's "build"), null until it has arrived;
       *  runtime the Python serving the figure ({id, kind: "shared" | "dedicated", snapshot: "stored" |
       *  "downloaded" | "none", figures}), null until
       *  it runs. */
      state() {
        const now = figure.viewState.get();
        const { result } = figure.view;
        const T = result ? result.ids.length : 0;
        const numbers = T > 0 && result.attention !== null; // not while only its tokens are shown (showTokensEarly)
        const offset = numbers ? headOffset(result, now.layer, now.head) : 0;
        const matrix = numbers ? result.attention.subarray(offset, offset + T * T) : null;
        const runtime = figure.channel && figure.options.python.runtime;
        return {
          build: figure.manifest?.build ?? null,
          runtime: runtime ? { ...runtime } : null,
          text: result ? result.text : figure.el.text.value,
          ids: result ? Array.from(result.ids) : [],
          tokens: result ? Array.from(result.labels) : [],
          layer: now.layer,
          head: now.head,
          token: T === 0 ? null : now.token,
          weights: numbers ? Array.from(matrix.subarray(now.token * T, (now.token + 1) * T)) : [],
          matrix: numbers ? Array.from({ length: T }, (_, i) => Array.from(matrix.subarray(i * T, (i + 1) * T))) : [],
          panels: { ...now.panels },
          whatIf: { ...now.whatIf },
          knockout: now.knockout.map(([layer, head]) => ({ layer, head })),
          reused: result?.cache ? result.cache.reused : 0,
        };
      },
    };
  }

  /* Until Python runs, the default sentence is drawn from the model's numbers that
   * training/find_default_view.py stored in default_view.json (build.py puts them in build.json). */
  showPrecomputed(defaultView, config) {
    const { ids, labels, attention } = defaultView.precomputed;
    const T = ids.length;
    this.show({
      text: defaultView.text, ids, labels, attention: Float32Array.from(attention.flat(3)),
      shape: [config.n_layer, config.n_head, T, T], tokensDropped: 0, charsDropped: 0, precomputed: true,
    });
  }

  /** A figure that is not live yet, with a text of its own (no precomputed view): its tokens, drawn
   *  without attention, once the page's Python runs (started by another figure); its attention
   *  comes when it goes live. */
  async showTokensEarly() {
    const { python } = this.options;
    if (!(await this.prepare())) return;
    await python.running;
    const { text } = this.queue;
    if (this.channel || this.view.result || text === "") return; // live, or the precomputed view is shown
    const shown = await python.tokenize(text).catch(() => null);
    if (!shown || this.channel || this.view.result || this.queue.text !== text) return;
    this.show({ text: shown.text, ids: shown.ids, labels: shown.labels, tokensDropped: shown.tokens_dropped,
      charsDropped: shown.chars_dropped, attention: null, precomputed: true, tokensOnly: true });
    this.setStatus("Its tokens; the attention is computed when the figure comes into view.");
  }

  /* The result shown goes (the precomputed one when a text replaces it, any when a link brings a new
   * text): the views keep their last drawing until the next result replaces it. */
  forgetShown() {
    const focusInChips = this.el.tokens.contains(focusedIn(this.el.tokens));
    this.view.result = null;
    this.el.tokens.replaceChildren();
    this.el.notice.hidden = true;
    if (focusInChips) this.el.text.focus({ preventScroll: true }); // the chips are gone until the new text's arrive: never the page's body (keepFocus)
  }

  /* Python and the model, for one attempt (see attempt): the page's Python, started or joined. */
  async boot(manifest) {
    this.channel = null;
    const { python } = this.options;
    try {
      this.setStatus("Starting Python (Pyodide)…");
      const startedAt = performance.now();
      const stopListening = python.onProgress((p) => this.setStatus(describeLoading(p, startedAt)));
      try {
        await python.start(this.options.buildFolder, manifest);
      } finally {
        stopListening();
      }
      this.channel = this.openChannel();
      await this.submit(this.el.text.value);
      this.setState("ready");
      performance.mark("attention-live:live");
      this.readyResolve();
      this.options.host.dispatchEvent(new CustomEvent("attention-live:ready", { bubbles: true, composed: true }));
      this.changed();
    } catch (error) {
      this.fail(`The figure could not start: ${error.message}`);
    }
  }

  /* Draw the default view from build.json before Python runs, and the controls for its model. */
  showManifest(manifest) {
    const { el } = this;
    const { config, default_view: defaultView } = manifest; // its text is already in the box (build.py put it there)
    this.view.config = config;
    el.modelSize.textContent = `tiny ${config.n_layer}-layer, ${config.n_head}-head`;
    drawChoices(el.layers, config.n_layer, (layer) => this.choose({ layer }));
    drawChoices(el.heads, config.n_head, (head) => this.choose({ head }));
    drawLegend(el.legend);
    const readOut = (text) => this.announcer.choice(() => text); // a keyboard read-out of one number is a choice too
    this.view.headsGrid = createHeadsGrid(el.headsGrid, config, (layer, head) => this.choose({ layer, head }));
    this.view.matrix = createMatrix(el.matrix, (index) => this.pickToken(index), readOut);
    this.view.math = createMathPanel(el.math, (whatIf) => this.choose({ whatIf }), readOut);
    this.view.flash = createFlashSteps(el.flash, (flash) => this.viewState.update({ flash }), readOut);
    this.view.next = createNextToken(el.next, config, (layer, head) => this.toggleKnockout(layer, head));
    // the views that cost most to draw wait while out of view, until the reader pauses or scrolls to them
    this.view.offScreen = { heads: whenSeenOrPaused(el.headsGrid), matrix: whenSeenOrPaused(el.matrix), math: whenSeenOrPaused(el.math) };
    const asked = this.options.initialView(config, manifest.max_text_chars);
    this.asked.changes = asked.changes;
    let { view } = asked;
    const given = this.queue.requested > 0; // a text given before build.json arrived (setText, a message, typing) wins over the asked view's
    if (given) {
      view = { ...view, text: undefined, token: undefined, tokenAsked: undefined };
      this.asked.changes = [];
    }
    const { text, layer, head, token, tokenAsked, panels } = view;
    const linked = text !== undefined && this.intoBox(text) !== defaultView.text;
    const fresh = linked || (given && el.text.value !== defaultView.text); // no precomputed view for this text
    this.viewState.update({ layer: layer ?? defaultView.layer, head: head ?? defaultView.head, token: fresh ? Number.MAX_SAFE_INTEGER : defaultView.token, panels: panels ?? {} });
    Object.assign(this.asked, { token, tokenAsked }); // applied to the first live result
    if (fresh) {
      this.queue.text = el.text.value; // drawn once Python has tokenized it; the precomputed view is the default sentence's
      this.setStatus(`Computing ${linked ? "this link's" : "this"} text… (the live model is loading)`);
      this.drawNotice(null);
    } else {
      this.queue.text = defaultView.text;
      this.showPrecomputed(defaultView, config);
    }
    afterPaint().then(() => performance.mark("attention-live:first-paint")); // Python starts meanwhile
  }

  /** build.json and the first paint, once: resolves to false where build.json could not be had (the
   *  figure then says why, and "Try again" tries again). `beforeDrawing(manifest)`, if given, runs as
   *  soon as build.json has arrived, before the first paint is drawn. */
  prepare(beforeDrawing = () => {}) {
    if (this.manifest !== null) return Promise.resolve(true);
    this.preparing ??= (async () => {
      try {
        this.manifest = await this.options.manifest();
      } catch (error) {
        this.fail(`The figure could not start: ${error.message}`);
        return false;
      } finally {
        this.preparing = null;
      }
      beforeDrawing(this.manifest);
      this.showManifest(this.manifest);
      return true;
    })();
    return this.preparing;
  }

  /** Go live: build.json first if it has not arrived yet, then Python (the first attempt, and each "Try again"). */
  async attempt() {
    if (this.attempting) return;
    this.attempting = true;
    const { el } = this;
    try {
      this.newReadyPromise();
      this.setState("loading");
      if (focusedIn(el.retry) === el.retry) el.text.focus({ preventScroll: true }); // not lost with the button
      el.retry.hidden = true;
      // Python is asked for as soon as build.json is here, so that it starts (or, already running for
      // another figure, answers) while the first paint is drawn; boot() then waits for it
      const startPython = (manifest) => this.options.python.start(this.options.buildFolder, manifest).catch(() => {}); // boot() reports a failure
      if (await this.prepare(startPython)) await this.boot(this.manifest);
    } finally {
      this.attempting = false;
    }
  }

  /* The figure's own controls. */
  wire() {
    const { el } = this;
    el.text.addEventListener("paste", (event) => this.insertCapped(event, event.clipboardData));
    el.text.addEventListener("drop", (event) => this.insertCapped(event, event.dataTransfer));
    el.text.addEventListener("input", (event) => {
      const { value } = el.text;
      if (value.length > BOX_MAX_CHARS || !isWellFormed(value)) this.intoBox(value); // past the cap (the front goes) or a lone surrogate (U+FFFD)
      else this.box.cut = false;
      this.typed(event.timeStamp);
    });
    el.retry.addEventListener("click", () => this.attempt());
    enableChipKeys(el.tokens, (index) => this.pickToken(index));
    el.copyLink.addEventListener("click", () => this.copyLink());
    for (const button of el.saveButtons) button.addEventListener("click", () => this.save(button.dataset.save, button));
    for (const [name, panel] of Object.entries(this.panels)) {
      panel.addEventListener("toggle", () => {
        if (this.viewState.get().panels[name] !== panel.open) this.viewState.update({ panels: { [name]: panel.open } });
      });
    }
    el.flashPart.addEventListener("toggle", () => {
      if (this.viewState.get().flash.open !== el.flashPart.open) this.viewState.update({ flash: { open: el.flashPart.open } });
    });
  }

  openChannel() {
    return this.options.python.figure({ onResult: (...a) => this.onResult(...a), onError: (...a) => this.onError(...a), onIdle: () => this.onIdle() });
  }

  /** The figure is gone (its element removed): Python drops its view. */
  disconnect() {
    this.channel?.forget();
    this.channel = null;
  }

  /** The figure is back (its element moved): a new view in Python, with the text shown. */
  reconnect() {
    if (this.state !== "ready" || this.channel) return;
    this.channel = this.openChannel();
    this.submit(this.queue.text).catch(() => {});
  }
}
