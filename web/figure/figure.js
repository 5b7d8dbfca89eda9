/* One figure: the core of an <attention-live> element (attention-live.js), or of the standalone page's.
 * It owns the figure's parts (found inside its root), its view state (view-state.js), its queue of texts
 * for Python, the answers pipeline and the drawing of its views (views/). Every other feature is a
 * controller made with it (controllers/), the only writer of its own fields, calling the core and
 * never another controller: the API (api.js), loading and "Try again" (loading.js), links (links.js),
 * the tools (Copy link, Save: tools.js), the text box and its undo (text-input.js, undo.js), the figure's keys kept
 * from the page (keys.js), its swipes and height on a reveal.js slide (slide-deck.js), the status line, the notice and
 * what is said (status.js), the language and its words (language.js), the benchmark's measures
 * (measures.js), "Predict, then look" (predict.js) and the walk through the chapter or a course's (tour.js). The core calls its controllers
 * where it must (a result shown is said). Python is the page's (runtime/python-client.js), shared
 * by every figure; the page-level pieces (the link in the address, the messages to a host page, the
 * offline copy) are page/'s and use the members marked "for page pieces".
 *
 *   text (typed, setText, a link) ──▶ queue: only the newest waits while Python computes one
 *     ──▶ channel (its own view in Python) ──▶ result (tokens, attention, what-ifs)
 *     ──▶ render: chips, selectors, status line, open panels
 *     ──▶ answers the open panels ask for (explain, flash, predict: answers.js) ──▶ panels drawn
 *
 * Its life: waiting (first paint) → loading → ready, or error → "Try again" (controllers/loading.js);
 * destroy() when it goes: every controller's and view's cleanup, its Python view dropped.
 */
import { createAnswers } from "./answers.js";
import { exportFigure } from "./export.js";
import { afterPaint } from "../lib/frames.js";
import { answersShown, askAgain, asking, asksAgain, createViewState, hasWhatIf, PANEL_NAMES, queryAfter, showsWhatIfsOf, toggled, whatIfsOf } from "./view-state.js";
import { createFigureViews } from "./figure-views.js";
import { BOX_MAX_CHARS, boxed, isWellFormed } from "./text-box.js";
import { createApi } from "./controllers/api.js";
import { createLanguage } from "./controllers/language.js";
import { createLinks } from "./controllers/links.js";
import { createLoading } from "./controllers/loading.js";
import { createMeasures } from "./controllers/measures.js";
import { createPredict } from "./controllers/predict.js";
import { createStatus } from "./controllers/status.js";
import { createTextInput } from "./controllers/text-input.js";
import { createKeys } from "./controllers/keys.js";
import { createSlideDeck } from "./controllers/slide-deck.js";
import { createTools } from "./controllers/tools.js";
import { createTour } from "./controllers/tour.js";
import { weightColours } from "../draw/colour.js";
import { describeRow } from "../views/matrix.js";

/* The figure's parts: the id of each, in the figure's tree (its document, or its element's shadow root). */
const PARTS = {
  text: "text", layers: "layers", heads: "heads", status: "status", announcer: "announcer", notice: "notice",
  tokens: "tokens", modelSize: "model-size", computedWhere: "computed-where", modelCorpus: "model-corpus", modelTraining: "model-training", defaultStory: "default-story", retry: "retry", legend: "legend", headsPanel: "heads-panel",
  headsGrid: "heads-grid", matrixPanel: "matrix-panel", matrix: "matrix-view", mathPanel: "math-panel",
  math: "math-view", nextPanel: "next-panel", next: "next-view", learnPanel: "learn-panel", learn: "learn-view", whatIf: "what-if", copyLink: "copy-link",
  stackPanel: "stack-panel", stack: "stack-view", predict: "predict", linkBox: "link-box", linkText: "link-text", savedImage: "saved-image", flashPart: "flash-part", flash: "flash-view",
  tour: "tour", tourStart: "tour-start",
};

export class AttentionFigure {
  #root;
  #options;
  #el; // the parts, by name (PARTS)
  #view = { result: null, config: null }; // the numbers shown, and the model's config
  #views; // figure-views.js
  #queue = { text: "", requested: 0, shown: 0, waiters: [] }; // the texts given (requested) and shown, by number
  #answers;
  #answersToDraw = new Set(); // kinds of answers arrived and not yet drawn (onAnswer)
  #chipsDrawn = Promise.resolve(); // resolves once the frame that shows the newest result's chips is drawn
  #channel = null; // this figure's channel to Python, once it runs
  #manifest = null; // build.json, once downloaded
  #readerView = false; // a view of the reader's exists (a live result, or a text given)
  #box = { cut: false }; // the last text given was cut to BOX_MAX_CHARS
  #listeners = new Set();
  #resultsShown = 0;
  #gone = false; // destroy() has run
  #readerActed = false; // nothing is said before the reader does something (four figures on a page: four sentences at load)
  #choicePending = false; // a choice whose numbers are on their way (a what-if on a new head, a what-if toggled)
  #ready;
  #settle; // {resolve, reject} of #ready
  #status;
  #measures;
  #loading;
  #tools;
  #textInput;
  #keys;
  #slideDeck;
  #links;
  #language;
  #predict;
  #tour;

  /**
   * @param {Element} root        the figure's element: its parts are found inside it
   * @param {object} options
   *   host          the <attention-live> element: its events are dispatched there
   *   stateElements where data-state is set: the element (the standalone page's: its <html> first)
   *   python        the page's PythonClient (runtime/python-client.js)
   *   buildFolder   the build's folder URL (build.json, worker.js)
   *   manifest      () => Promise of the build's build.json (runtime/manifest.js)
   *   initialView   (config, maxChars) => {view, changes}: the view asked for (url-state.js's readLink
   *                 of the address, or of the element's attributes)
   *   linkHref      (fragment) => the address "Copy link" copies for the view `fragment`; null: no link to copy
   *   notices       sentences shown in the notice for as long as the figure lives
   *   chooseLanguage (languages, model) => {lang, asked, notice}: the language to show among build.json's
   *                 `languages` (lang null: English; `model`: the model's own, default_view.json's "lang"), whether the course asked for it (a link then keeps
   *                 it), and a notice descriptor or null (attention-live.js languageOf, page.js)
   *   catalog       (lang) => Promise of that language's catalog, in place of fetching it from
   *                 buildFolder (a notebook's widget: from its kernel)
   *   where         the message key of where live numbers are computed, on the status line and in the about
   *                 text (default "markup.inThisTab": "in this tab")
   */
  constructor(root, options) {
    this.#root = root;
    this.#options = options;
    const part = (id) => root.querySelector(`[id="${id}"]`);
    const tree = root.getRootNode(); // the document, or the element's shadow root
    if (!tree.adoptedStyleSheets.includes(weightColours())) tree.adoptedStyleSheets = [...tree.adoptedStyleSheets, weightColours()];
    const el = Object.fromEntries(Object.entries(PARTS).map(([name, id]) => [name, part(id)]));
    this.#el = el;
    this.#language = createLanguage(this, root, el, options);
    this.viewState = createViewState({
      layer: 1, head: 1, token: 0, preview: null, panels: Object.fromEntries(PANEL_NAMES.map((name) => [name, false])),
      whatIf: { scale: true, mask: true }, knockout: [], flash: { open: false, tile: 4, step: 0 }, // tiles of 4: the default sentence in four
      learn: { open: false, step: null }, predict: { on: false, answered: false, guess: null }, controls: "all",
      lang: null, // lang: the language a link, the element or its page asked for (null: the reader's browser's, or English)
    });
    this.#views = createFigureViews(root, el, {
      choose: (patch) => this.#readerChoose(patch), pickToken: (index) => this.#pickToken(index), state: () => this.viewState.get(), update: (patch) => this.viewState.update(patch),
      knockout: (layer, head) => this.#readerChoose({ knockout: toggled(this.viewState.get().knockout, layer, head) }),
      readOut: (text) => this.#status.choice(() => text), // a keyboard read-out of one number is a choice too
      learn: (step) => this.#readerChoose({ learn: this.learnAt(step) }),
      messages: () => this.#language.messages,
    });
    this.#answers = createAnswers(() => [this.#view.result, this.viewState.get()], (kind) => this.#onAnswer(kind));
    this.#newReady();
    this.#status = createStatus(el, { where: options.where, messages: () => this.#language.messages });
    this.#measures = createMeasures();
    this.#loading = createLoading(this, el, options);
    this.#tools = createTools(this, { ...el, saveButtons: root.querySelectorAll("button[data-save]") }, options.linkHref);
    this.#textInput = createTextInput(this, el.text);
    this.#keys = createKeys(root); // keys typed in the figure stay in it (a slide deck reads every key)
    this.#slideDeck = createSlideDeck(root, options.host ?? null);
    this.#predict = createPredict(this, el, options.host);
    this.#links = createLinks(this, options.initialView);
    this.#tour = createTour(this, el);
    this.viewState.subscribe((state, previous) => this.#render(state, previous));
    this.viewState.subscribe(() => this.changed());
    this.api = createApi(this); // for page pieces: window.attentionLive, the element's methods
  }

  /* ---- for page pieces (attention-live.js, page/) ---- */

  /** Call `listener()` whenever what the figure shows may have changed (the view, a result, an answer,
   *  a notice, a box shown); returns a function that removes it. */
  onChange(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** data-state on the figure's state elements: "waiting", "loading", "ready" or "error". */
  setState(name) { for (const element of this.#options.stateElements) element.dataset.state = name; }

  get state() { return this.#options.stateElements[0].dataset.state; }

  /** The words of the language the figure shows (i18n/messages.js): every part writes through it,
   *  reading it each time (the language can change while the figure lives). */
  get messages() { return this.#language.messages; }

  /** Show the figure in language `lang` (a tag with a catalog: build.json's "languages"; null for
   *  English), every word written again (controllers/language.js). */
  useLanguage(lang) { return this.#language.use(lang); }

  /** The language the figure shows ("en", "de", …). */
  get language() { return this.#language.messages.lang; }

  /** What asks for the figure's language changed (the element's lang attribute): chosen again. */
  languageChanged() { this.#language.changed(); }

  /** build.json, once it has arrived (null before). */
  get manifest() { return this.#manifest; }

  /** Whether a view of the reader's exists (a live result, or a text given): page-link.js writes it into links. */
  get readerView() { return this.#readerView; }

  /** Go live now (controllers/loading.js), and the tokens of its text drawn early. */
  attempt() { return this.#loading.attempt(); }

  showTokensEarly() { return this.#loading.showTokensEarly(); }

  showLinkInBox(href) { this.#tools.showLinkInBox(href); }

  /** The fragment of the view shown (controllers/links.js), for "Copy link" and the address. */
  linkFragment() { return this.#links.fragment(); }

  /** Whether followLink can show a link's view now: once build.json has arrived (before that, the
   *  figure's start reads the view asked for itself: options.initialView). */
  get canFollowLink() { return this.#manifest !== null; }

  /** Show the view of the link fragment `fragment` ("#text=…&layer=2&…", read as url-state.js's readLink
   *  reads any link: the same fallbacks, and what it changes said in the notice), with `text` as its
   *  text where given (an element's text attribute: readView), as a fresh load would: a link followed
   *  in the tab (page-link.js), an element's attributes changed (attention-live.js). Only once
   *  canFollowLink. */
  followLink(fragment, text) {
    const view = this.#links.follow(fragment, text);
    this.#language.follow(view?.lang);
    if (view) this.#tour.follow(view.tour);
  }

  /** The figure's element left the page: Python drops its view. */
  disconnect() { this.#channel?.forget(); this.#channel = null; }

  /** The figure's element is back (moved): a new view in Python, with the text shown. */
  reconnect() {
    if (this.state !== "ready" || this.#channel || this.#gone) return;
    this.#channel = this.#openChannel();
    this.submit(this.#queue.text).catch(() => {});
  }

  /** The figure is gone: every controller's and view's cleanup (listeners, observers, timers, object
   *  URLs), its Python view dropped, and its waiters told. Nothing of it runs afterwards. */
  destroy() {
    this.#gone = true;
    this.disconnect();
    for (const part of [this.#status, this.#measures, this.#loading, this.#tools, this.#textInput, this.#keys, this.#slideDeck, this.#links, this.#language, this.#predict, this.#tour, this.#views]) part.destroy();
    this.#listeners.clear();
    for (const waiter of this.#queue.waiters.splice(0)) waiter.reject(new Error("the figure is gone")); // not shown
  }

  /* ---- for its controllers (controllers/) ---- */

  /** A Promise: resolves when data-state becomes "ready", rejects on "error" (a retry makes a new one). */
  get ready() { return this.#ready; }

  get result() { return this.#view.result; }

  /** Python's answer of `kind` (answers.js) for the view on screen, or null while it is not in. */
  answer(kind) {
    const { result } = this.#view;
    return result ? this.#answers.get(kind, result, this.viewState.get()) : null;
  }

  get config() { return this.#view.config; }

  /** The checkpoints of the model's training run, [{step, validation, path}] in training order, the last
   *  the shipped model (build.json's "checkpoints"); [] for a model without them or before build.json. */
  get checkpoints() { return this.#manifest?.checkpoints ?? []; }

  get build() { return this.#manifest?.build ?? null; }

  /** The Python serving the figure (runtime/python-client.js's runtime), once it runs. */
  get runtime() { return this.#channel && this.#options.python.runtime; }

  /** The text the figure was last given, and what its text box holds. */
  get text() { return this.#queue.text; }

  get boxText() { return this.#el.text.value; }

  get live() { return this.#channel !== null; }

  changed() { for (const listener of this.#listeners) listener(); }

  /** The status line says `message` (lib/shown.js: {key, params}, an Error, a function of the Messages). */
  setStatus(message) { this.#status.set(message); }

  /** The answer to a button (Copy link, Save): on the status line, said, and kept there while the text
   *  and the view are those it answered (controllers/status.js). */
  say(message) { this.#status.say(message, this.#view.result, this.viewState.get()); }

  /** A new attempt at going live: data-state "loading" and a new ready promise. */
  loading() {
    this.#newReady();
    this.setState("loading");
  }

  /** The attempt failed with `message`: said, and every promise waiting on the figure rejected. */
  failed(message) {
    this.setState("error");
    this.#status.again(message); // said even when the same error comes back after "Try again"
    this.#drawNotice(this.#view.result);
    const error = new Error(this.#status.text); // the words on the line, for a caller's code
    this.#settle.reject(error);
    for (const waiter of this.#queue.waiters.splice(0)) waiter.reject(error);
    this.changed();
  }

  /** Python runs: this figure's channel, its text computed, then ready. */
  async goLive() {
    if (this.#gone) return; // its element left while Python started
    this.#channel = this.#openChannel();
    await this.submit(this.#el.text.value);
    this.setState("ready");
    this.#measures.live();
    this.#settle.resolve();
    this.#options.host.dispatchEvent(new CustomEvent("attention-live:ready", { bubbles: true, composed: true }));
    this.changed();
  }

  /** Ask Python for `kind` ("explain", "flash", "predict") with `fields`, on this figure's view. */
  ask(kind, fields) { return this.#channel.ask(kind, fields); }

  /** Give the figure `text` (as the box holds it): computed by Python as soon as it is free, where
   *  only the newest text waits (python-client.js). Resolves once it, or a newer one, is shown. */
  submit(text, inputTime = undefined) {
    const queue = this.#queue;
    if (this.state === "error") return Promise.reject(new Error(this.#status.text));
    queue.text = text; // the text the figure was last given: what the box holds (intoBox)
    this.#readerView = true;
    queue.requested += 1;
    const shown = this.#whenShown(queue.requested);
    this.#channel?.submit({ seq: queue.requested, text, inputTime, whatIfs: () => whatIfsOf(this.viewState.get()) });
    return shown;
  }

  /** Resolves once the newest text given is on screen (at once if it is). */
  allShown() {
    const queue = this.#queue;
    return queue.requested > queue.shown ? this.#whenShown(queue.requested) : Promise.resolve();
  }

  /** Put `text` in the text box (boxed) and return what it holds: the figure's text from then on. */
  intoBox(text) {
    const { text: kept, cut } = boxed(text);
    this.#box.cut = cut;
    this.#el.text.value = kept;
    return this.#el.text.value;
  }

  /** The browser changed the text box (typing, a paste or drop it inserted itself). */
  edited(timeStamp) {
    const { value } = this.#el.text;
    if (value.length > BOX_MAX_CHARS || !isWellFormed(value)) this.intoBox(value); // past the cap (the front goes) or a lone surrogate (U+FFFD)
    else this.#box.cut = false;
    this.typed(timeStamp);
  }

  /** The reader put a new text in the box (typing, pasting, dropping). */
  typed(timeStamp) {
    this.#readerActed = true;
    this.textReplaced();
    this.submit(this.#el.text.value, timeStamp).catch(() => {}); // after a failed start the status already says why
    this.changed();
  }

  /** A new text from the reader, the API or a host page, replacing the one shown: the asked view's
   *  notices go and its token no longer applies; the build's precomputed view (the default sentence's)
   *  comes down. */
  textReplaced() {
    this.#links.forget();
    if (this.viewState.get().predict.answered) this.viewState.update(askAgain); // a new text asks again
    if (this.#view.result?.precomputed) this.clearShown();
  }

  /** A choice of the reader's (token, layer, head or what-if; by click, tap, keys or select()): shown,
   *  and said once, with the numbers it shows (when they need a new result, once that has arrived).
   *  New what-ifs need the text computed again (the worker computes them with the attention). */
  choose(patch) {
    this.#readerActed = true;
    const now = this.viewState.get();
    const before = JSON.stringify(whatIfsOf(now));
    this.viewState.update({ ...patch, ...(asksAgain(now, patch) ? askAgain : {}), preview: null }); // a new query, head or checkpoint asks again
    if (this.#channel && JSON.stringify(whatIfsOf(this.viewState.get())) !== before) this.submit(this.#queue.text).catch(() => {});
    const { result } = this.#view;
    if (result && !result.precomputed && !showsWhatIfsOf(result, this.viewState.get())) this.#choicePending = true;
    else this.#status.choice(() => this.summary());
  }

  /** A walk's step (controllers/tour.js): the view-state `patch` and, where the step has one, its `text`,
   *  shown as a reader's choice would be, but nothing said: the step's own sentence is, once its numbers
   *  are in (announce). Resolves once the text and what-ifs of the step are shown. */
  showStep(patch, text, byReader = true) {
    if (byReader) this.#readerActed = true; // a walk on from the start says nothing at load
    const now = this.viewState.get();
    const before = JSON.stringify(whatIfsOf(now));
    const newText = text !== undefined && boxed(text).text !== this.#queue.text;
    if (newText) this.textReplaced();
    this.viewState.update({ ...patch, ...(asksAgain(now, patch) ? askAgain : {}), preview: null });
    this.#choicePending = false;
    if (newText) return this.submit(this.intoBox(text)).catch(() => {});
    if (this.#channel && JSON.stringify(whatIfsOf(this.viewState.get())) !== before) return this.submit(this.#queue.text).catch(() => {});
    return this.allShown().catch(() => {});
  }

  /** Say `text` in the live region once the reader pauses (a walk's sentence: controllers/tour.js). */
  announce(text) { this.#status.later(() => text); }

  /** The walk shown: {index (0-based), count}, or null (controllers/tour.js). */
  get tour() { return this.#tour.state; }

  /** The walk shown as a link carries it ("chapter"), or null: none shown, or a course's (its file's
   *  address is the course page's, not the link's). */
  get tourLink() { return this.#tour.link; }

  /** A Promise that settles once the walk asked for (the attribute's, a link's) is loaded or could not be. */
  get tourLoaded() { return this.#tour.loaded; }

  /** Show step `index` of the walk shown (0-based; the API checks it); resolves once its text is shown. */
  tourTo(index) { return this.#tour.moveTo(index); }

  /** The view in one sentence, for the live region: "16 tokens; layer 2, head 3: «said» attends most to
   *  «Alice» 92.8%, then …". */
  summary() {
    const { result } = this.#view;
    const state = this.viewState.get();
    const { messages } = this;
    if (!result || result.ids.length === 0) return messages.text("figure.noTokens");
    if (asking(state) && result.attention) return this.#predict.prompt()(messages);
    const whatIf = hasWhatIf(state) || state.knockout.length;
    return messages.text(whatIf ? "figure.summaryWhatIf" : "figure.summary", {
      count: result.ids.length, layer: state.layer, head: state.head, row: describeRow(result, state, state.token, messages) });
  }

  /** The image of what the figure shows (export.js) as `format` ("svg" or "png"), once the text on its
   *  way is shown and the open panels' numbers are in: {file, note}; `note` says when the PNG's scale
   *  was capped. */
  async image(format) {
    const { panels } = this.viewState.get();
    if (!this.#view.result?.attention || ((panels.math || panels.next) && !this.#channel)) await this.#ready.catch(() => {}); // the numbers of a link's text, of the open panels
    await this.allShown();
    if (!this.#view.result) throw new Error("the figure has no text to show yet"); // not shown
    const state = this.viewState.get();
    const { result, config } = this.#view;
    const live = this.#channel && !result.precomputed && result.ids.length > 0;
    const answer = async (kind) => (state.panels[kind === "explain" ? "math" : "next"] && live ? this.#answers.wait(kind, this.#channel, result, state) : null);
    const stackedAnswer = async () => (state.panels.stack && live ? this.#answers.wait("rollout", this.#channel, result, state) : null);
    const [explained, predicted, stacked] = await Promise.all([answer("explain"), answer("predict"), stackedAnswer()]);
    const shown = this.checkpoints.find((checkpoint) => checkpoint.step === state.learn.step);
    const checkpoint = shown ? [shown, this.checkpoints.at(-1)] : null; // the checkpoint's line, unless the shipped model is shown
    return exportFigure({ result, state, config, explained, predicted, stacked, checkpoint, width: this.#root.clientWidth, messages: this.messages }, format);
  }

  /** The words of a new language (controllers/language.js has written the markup's and the about
   *  text): every view, the status line and the notice written again; the numbers shown stay. */
  wordsChanged() {
    const { result } = this.#view;
    const state = this.viewState.get();
    this.#views.language();
    if (result) this.#views.tokens(result);
    this.#render(state, state);
    this.#views.answers(new Set(answersShown(state)), result, state, this.#answers);
    this.#status.language();
    this.#tools.language();
    this.#drawNotice(result);
    this.changed();
  }

  /** The notice drawn again for the result shown (what a link could not give has changed). */
  showNotice() { this.#drawNotice(this.#view.result); }

  get newestShown() { return this.#queue.requested === this.#queue.shown; } // the newest text given is the one shown

  /** Its text's tokens from the running Python (runtime's tokenize), drawn without attention before the
   *  figure goes live (controllers/loading.js showTokensEarly). */
  showTokens(shown) {
    this.#show({ text: shown.text, ids: shown.ids, labels: shown.labels, tokensDropped: shown.tokens_dropped,
      charsDropped: shown.chars_dropped, attention: null, precomputed: true, tokensOnly: true });
    this.setStatus({ key: "figure.tokensOnly" });
  }

  /* ---- the core's own ---- */

  #newReady() {
    this.#ready = new Promise((resolve, reject) => { this.#settle = { resolve, reject }; });
    this.#ready.catch(() => {}); // the figure shows the error; callers of .ready still see the rejection
  }

  #whenShown(seq) { return new Promise((resolve, reject) => this.#queue.waiters.push({ seq, resolve, reject })); }

  /* Ask Python for what the open panels show, when it is free (its live cache then holds the result
   * drawn); each answer redraws the views (answers.js drops one for an older view). */
  #askPython(state) {
    const { result } = this.#view;
    if (!this.#channel || !result || result.precomputed || result.ids.length === 0 || this.#channel.busy) return;
    for (const kind of answersShown(state)) this.#answers.ask(kind, this.#channel, result, state);
  }

  /* An answer of `kind` for the view on screen (null: a request failed). Drawn once the frame that
   * shows the chips of its result has been drawn, and together with the open panels' other answers
   * on their way (the worker answers them one after another): the chips' frame does not wait for the
   * panels, and the panels take one frame more, not one per answer (at CPU ×4 a frame of this figure
   * with its panels open costs 25–35 ms: docs/benchmark.md). */
  #onAnswer(kind) {
    if (kind) this.#answersToDraw.add(kind);
    const state = this.viewState.get();
    const { result } = this.#view;
    if (!result || !this.#answers.onTheirWay(answersShown(state), result, state)) this.#chipsDrawn.then(() => this.#drawAnswers());
  }

  /* The views of the answers arrived since the last drawn (the rest shows this view already). */
  #drawAnswers() {
    if (!this.#view.result) this.#answersToDraw.clear(); // no view to draw them for (a new start)
    if (this.#answersToDraw.size === 0) return;
    const state = this.viewState.get();
    this.#views.answers(this.#answersToDraw, this.#view.result, state, this.#answers);
    this.#answersToDraw.clear();
    this.changed(); // the panel's height, where no frame is drawn to tell
    this.#measurePanels(this.#view.result, state);
  }

  /* Once the open panels show the numbers of the edit that made `result`: its "panels" measure (with
   * no panel of Python's answers open, the chips' frame). Measured once per edit. */
  #measurePanels(result, state) {
    if (result.inputTime === undefined || !answersShown(state).every((kind) => this.#answers.get(kind, result, state))) return;
    this.#measures.panels(result.inputTime);
    result.inputTime = undefined;
  }

  /* Every view redraws from the view state (figure-views.js); Python is asked first for what the open
   * panels need, so that it computes while this thread draws. */
  #render(state, previous) {
    const { result } = this.#view;
    if (result?.attention) this.#askPython(state);
    this.#views.render(result, state, previous, this.#answers);
    if (result?.attention && result.ids.length > 0) {
      if (asking(state)) this.#status.set(this.#predict.statusLine()); // no share before the reader answers
      else this.#status.view(result, state, state.preview ?? state.token);
    }
    this.#predict.draw(state, this.#root);
    if (state.controls !== previous.controls) this.#drawControls(state); // the markup is "all"'s
  }

  /* A chip picked (a click, Enter): the query, or while the figure asks, the reader's answer. */
  #pickToken(index) {
    if (asking(this.viewState.get())) this.#predict.guess(index);
    else this.#readerChoose({ token: index });
  }

  /* A choice made on the figure's own views: none with controls="none" (the view as given; the API and a
   * host page's messages still choose). */
  #readerChoose(patch) {
    if (this.viewState.get().controls !== "none") this.choose(patch);
  }

  /* controls (view-state.js): the root's data-controls, under which figure.css hides the controls, and the
   * text box read-only unless all controls are on. */
  #drawControls(state) {
    if (state.controls === "all") this.#root.removeAttribute("data-controls");
    else this.#root.dataset.controls = state.controls;
    this.#el.text.readOnly = state.controls !== "all";
    const label = this.#root.querySelector(".text-label"); // "Type a sentence", or that it is fixed
    const key = state.controls === "all" ? "markup.textLabel" : "markup.textLabelFixed";
    if (label.dataset.text !== key) {
      label.dataset.text = key; // written again in another language (i18n/language.js applyMessages)
      label.textContent = this.messages.text(key);
    }
  }

  #drawNotice(result) { // the notice above the chips, for `result` (null before the first result is shown)
    const notices = [...(this.#options.notices ?? []), ...this.#language.notices, ...this.#tour.notices];
    this.#status.notice(result, { failed: this.state === "error", boxCut: this.#box.cut, asked: this.#links.changes, notices });
  }

  #show(result) {
    const view = this.#view;
    const focused = this.#views.focused();
    const token = queryAfter(view.result, result, this.viewState.get().token);
    result.seq = ++this.#resultsShown; // explain's and predict's answers name the result they belong to
    view.result = result;
    this.#views.tokens(result);
    this.#drawNotice(result);
    if (result.ids.length === 0) this.setStatus({ key: "figure.emptyText" });
    this.viewState.update({ token, preview: null });
    if (!result.precomputed) {
      this.#readerView = true;
      this.#links.firstLive(result);
      const summary = () => this.summary();
      if (this.#choicePending && showsWhatIfsOf(result, this.viewState.get())) {
        this.#choicePending = false;
        this.#status.choice(summary); // a choice that waited for these numbers
      } else if (this.#readerActed) {
        this.#status.later(summary); // once the reader pauses; nothing is said at load, before anyone acts
      }
    }
    this.#views.keepFocus(focused);
  }

  async #resolveWaiters() {
    await afterPaint();
    const queue = this.#queue;
    const done = queue.waiters.filter((w) => w.seq <= queue.shown);
    queue.waiters = queue.waiters.filter((w) => w.seq > queue.shown);
    for (const waiter of done) waiter.resolve();
  }

  /* The channel's answer to the newest text (python-client.js: stale results are never delivered). */
  #onResult(result, { seq, inputTime, whatIfs }) {
    Object.assign(result, whatIfs); // what the numbers are: the views repaint when it changes (heatmap.js)
    this.#show(result);
    this.#chipsDrawn = afterPaint();
    this.#measures.drawn(inputTime);
    result.inputTime = inputTime; // for the open panels' own measure, once their answers are drawn
    this.#measurePanels(result, this.viewState.get());
    this.#queue.shown = seq;
    this.#resolveWaiters();
  }

  #onError(error, { seq, whatIfs }) {
    const shown = this.#view.result?.step ?? null;
    if ((whatIfs?.step ?? null) !== shown) { // a checkpoint that could not be loaded: the control goes back to the one shown
      this.viewState.update({ learn: this.checkpoints.length ? { step: shown } : { open: false } });
      this.say({ key: "figure.checkpointFailed", params: { step: { number: whatIfs.step, grouping: false }, reason: error } }); // kept on the line, and said
    } else this.setStatus({ key: "figure.analysisFailed", params: { reason: error } });
    this.#queue.shown = seq;
    this.#resolveWaiters();
  }

  /* Python is free again: the open panels' numbers, asked at once, so that Python computes them while
   * this thread draws the chips (asked after the chips' frame, they came a round trip later:
   * docs/benchmark.md). */
  #onIdle() {
    this.#askPython(this.viewState.get());
    this.changed();
  }

  /** The "Watch it learn" state that shows the checkpoint of training step `step` (a listed step, or
   *  null: the shipped model, the control closed): the last checkpoint is the shipped model itself. */
  learnAt(step) {
    if (step === null) return { open: false, step: null };
    return { open: true, step: step === this.checkpoints.at(-1)?.step ? null : step };
  }

  /** The result shown goes (the precomputed one when a text replaces it, any when a link brings a new
   *  text): the views keep their last drawing until the next result replaces it. */
  clearShown() {
    this.#view.result = null;
    this.#views.clearTokens();
    this.#el.notice.hidden = true;
  }

  /** Draw the default view from build.json (`manifest`) before Python runs, and the controls and views
   *  for its model (controllers/loading.js, once build.json has arrived). */
  showManifest(manifest) {
    const el = this.#el;
    const view = this.#view;
    this.#manifest = manifest;
    const { config, default_view: defaultView } = manifest; // its text is already in the box (build.py put it there)
    view.config = { ...config, steps: (manifest.checkpoints ?? []).map((checkpoint) => checkpoint.step), languages: manifest.languages ?? [REFERENCE] }; // steps, languages: what a link may ask for (url-state.js)
    this.#language.writeAbout();
    this.#views.forModel(config, this.checkpoints);
    const given = this.#queue.requested > 0; // a text given before build.json arrived (setText, a message, typing)
    const { text, layer, head, panels, step, lang, predict, controls, tour } = this.#links.initial(view.config, manifest.max_text_chars, given);
    this.#language.choose(lang);
    const linked = text !== undefined && this.intoBox(text) !== defaultView.text;
    const fresh = linked || (given && el.text.value !== defaultView.text); // no precomputed view for this text
    this.viewState.update({ layer: layer ?? defaultView.layer, head: head ?? defaultView.head, token: fresh ? Number.MAX_SAFE_INTEGER : defaultView.token, panels: panels ?? {},
      learn: this.learnAt(step ?? null), predict: { on: predict ?? false, answered: false, guess: null }, controls: controls ?? "all" });
    if (fresh) {
      this.#queue.text = el.text.value; // drawn once Python has tokenized it; the precomputed view is the default sentence's
      this.setStatus({ key: linked ? "figure.computingLink" : "figure.computingText" });
      this.#drawNotice(null);
    } else {
      this.#queue.text = defaultView.text;
      const { ids, labels, attention, entropy, entropy_even: even } = defaultView.precomputed; // training/find_default_view.py stored them (build.py puts them in build.json)
      this.#show({ text: defaultView.text, ids, labels, attention: Float32Array.from(attention.flat(3)),
        entropy: entropy && Float32Array.from(entropy.flat(2)), entropyEven: even && Float32Array.from(even),
        shape: [config.n_layer, config.n_head, ids.length, ids.length], tokensDropped: 0, charsDropped: 0, precomputed: true });
    }
    this.#tour.ask(tour); // the walk asked for, from its first step (the chapter's: the button's)
    this.#measures.firstPaint(); // Python starts meanwhile
  }

  #openChannel() {
    return this.#options.python.figure({ onResult: (...a) => this.#onResult(...a), onError: (...a) => this.#onError(...a), onIdle: () => this.#onIdle() });
  }
}
