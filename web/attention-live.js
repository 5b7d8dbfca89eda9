/* <attention-live>: the figure as a custom element, for any page of the site that hosts the build.
 *
 *   <script type="module" src="attention-live/attention-live.js"></script>
 *   <attention-live text="…" layer="2" head="3" token="8" panels="heads,math"></attention-live>
 *   <attention-live tour="chapter"></attention-live>     a walk through the chapter (or tour="walk.json": docs/tour.md)
 *
 * Attributes read like the link's fragment (url-state.js: the same names, token 1-based, the same
 * fallbacks and notices); changing one changes the view. Each element is one figure (figure.js), and
 * every figure of the page asks the page's one Python (python-client.js).
 *
 *   connected ─▶ parts drawn in its own open shadow root (figure-template.js), styled there
 *       │        (figure-styles.js, adopted): no course page's rule reaches them, none of ours leaks out
 *       │        build.json ─▶ first paint: the precomputed default view, or "Computing this text…"
 *       │        (data-state="waiting"), and its tokens once another figure has started Python
 *       │
 *       ├─ within one viewport of the screen (IntersectionObserver, as Distill's d-figure) ─▶
 *       │        Python started or joined ─▶ live ─▶ attention-live:ready
 *       │                                     │
 *       │        typing, select(), attributes ┴─▶ attention-live:change {detail: state()}, at most every CHANGE_MS
 *       │
 *   disconnected ─▶ Python drops the figure's view
 *
 * The standalone page's element (index.html: <attention-live standalone>) holds its parts already, in
 * the page's own document (built into the page, so they show before any script runs; no course theme
 * reaches a page of its own); page.js starts it with the page-level pieces. Methods and properties of
 * an element: those of window.attentionLive (figure/controllers/api.js).
 */
import FIGURE_TREE from "./figure-template.js";
import FIGURE_CSS from "./figure-styles.js";
import { AttentionFigure } from "./figure/figure.js";
import { fetchManifest } from "./runtime/manifest.js";
import { pythonFor } from "./runtime/python-client.js";
import { asInBox, wellFormed } from "./figure/text-box.js";
import { throttled } from "./lib/throttle.js";
import { readView } from "./figure/url-state.js";
import { fromTree } from "./lib/dom.js";
import { chooseLanguage } from "./i18n/language.js";

/* This build's files (see build.py), and its index.html beside that folder; null where this module has
 * no folder (a notebook's widget, loaded from a blob: URL, is given its Python: RUNTIME). */
const buildFolder = (() => {
  try {
    return new URL("./", import.meta.url).href;
  } catch {
    return null; // a URL with no path to resolve against
  }
})();
const pageFolder = buildFolder && new URL("../", buildFolder).href;
/** An element's own Python and build.json, set before it is connected, in place of its build's
 *  ({python, manifest, linkHref}: figure.js's options): how widget.js gives a notebook's element the
 *  kernel. A registered symbol, so that two bundles of this module agree on it. */
export const RUNTIME = Symbol.for("attention-live.runtime");
const ATTRIBUTES = ["text", "layer", "head", "token", "panels", "step", "predict", "controls", "tour"];
const CHANGE_MS = 200; // change events at most this often while typing: each holds the whole T × T matrix
const NEAR = "100% 0px"; // "within one viewport": the observer's margin, a screen's height above and below
let figureSheet = null; // figure.css as one constructed style sheet, adopted by every element's shadow root

/* The element's attributes but its text as a link's fragment, for readView (url-state.js), and its
 * text (undefined: none), given beside it: a text of megabytes from a host is never encoded. */
function fragmentOf(element) {
  const params = ATTRIBUTES.filter((name) => name !== "text" && element.hasAttribute(name)).map((name) => `${name}=${encodeURIComponent(wellFormed(element.getAttribute(name)))}`);
  return `#${params.join("&")}`;
}

const textOf = (element) => element.getAttribute("text") ?? undefined;

/* The language an element shows, among `available` (build.json's "languages"): its own lang attribute
 * wins (one without a catalog: English, and the notice says so); without one, the course page's
 * <html lang> where a catalog has it (its primary subtag: de-CH → de), else the model's own language
 * (`model`: a course's model trained with --lang), else English. {lang (null:
 * English), notice (a message descriptor, or null), asked (whether the course chose it: the figure's
 * link then keeps it)}. */
function languageOf(element, available, model) {
  const own = element.getAttribute("lang");
  if (own !== null && own.trim() !== "") {
    const lang = chooseLanguage([own], available);
    return { lang, asked: lang !== null, notice: lang === null ? { key: "language.noCatalog", params: { lang: own, languages: available.join(", ") } } : null };
  }
  const page = chooseLanguage([document.documentElement.lang], available);
  return { lang: page ?? chooseLanguage([model], available), asked: page !== null, notice: null };
}

/* attention-live:change, whose detail is the figure's state(), computed when a listener first reads
 * it (during the event: the state the event announces): a page with no listener pays nothing for
 * the T × T matrices it holds. */
class ChangeEvent extends Event {
  #figure;
  #state = null;

  constructor(figure) {
    super("attention-live:change", { bubbles: true, composed: true }); // composed: heard outside a component that holds the element
    this.#figure = figure;
  }

  get detail() {
    this.#state ??= this.#figure.api.state();
    return this.#state;
  }
}

export class AttentionLiveElement extends HTMLElement {
  static observedAttributes = [...ATTRIBUTES, "lang"];

  #keptView = null; // the link fragment of a figure let go (letGo), for the next one
  #pageLanguage = null; // observes the page's <html lang> while the element is on the page (a site's language switcher)

  connectedCallback() {
    if (this.hasAttribute("standalone")) return; // page.js starts it
    this.#followPageLanguage();
    if (!this.figure) this.start(this.makeFigure());
    else if (this.observer) this.observer.observe(this); // moved before it went live
    else this.figure.reconnect();
  }

  /* Out of the page: Python drops the figure's view at once. An element moved (out and back in within
   * one task) keeps its figure; one still out after that lets it go (letGo). */
  disconnectedCallback() {
    this.#pageLanguage?.disconnect();
    this.#pageLanguage = null;
    this.observer?.disconnect();
    this.figure?.disconnect();
    const { figure } = this;
    setTimeout(() => { if (!this.isConnected && this.figure === figure) this.letGo(); }, 0);
  }

  /* The figure is gone: its cleanups run (figure.js destroy), and its view is kept as a link fragment,
   * so that the element, put back later, starts a new figure on the same text, layer, head, token and
   * panels (what a link keeps; not its what-ifs). */
  letGo() {
    if (!this.figure) return;
    this.#keptView = this.figure.readerView ? { fragment: this.figure.linkFragment() } : null;
    this.figure.destroy();
    this.figure = null;
    this.observer = null;
  }

  /* An element without its own lang follows the page's <html lang> when a site's language switcher
   * changes it after load (observed, not polled): its words and numbers written again. */
  #followPageLanguage() {
    if (this.#pageLanguage) return;
    this.#pageLanguage = new MutationObserver(() => {
      if (!this.hasAttribute("lang")) this.figure?.languageChanged();
    });
    this.#pageLanguage.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  }

  attributeChangedCallback(name) {
    if (name === "lang") return this.figure?.languageChanged(); // the words again, not the view
    if (!this.figure?.canFollowLink || this.hasAttribute("standalone")) return; // before build.json, the figure's start reads them
    this.figure.followLink(fragmentOf(this), textOf(this));
  }

  /* Its parts from the template, in its own open shadow root (ids need no prefix there: a root is
   * its own scope), and its figure. */
  makeFigure(options = {}) {
    const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
    if (!figureSheet) {
      figureSheet = new CSSStyleSheet();
      figureSheet.replaceSync(FIGURE_CSS);
    }
    root.adoptedStyleSheets = [figureSheet]; // and the weight colours: figure.js
    root.replaceChildren(fromTree(FIGURE_TREE));
    return this.makeFigureOf(root.firstElementChild, {
      initialView: (config, maxChars) => {
        const kept = this.#keptView;
        this.#keptView = null;
        return kept ? readView(kept.fragment, undefined, config, maxChars, asInBox) : readView(fragmentOf(this), textOf(this), config, maxChars, asInBox);
      },
      ...options,
    });
  }

  /** The figure of `root` (inside this element, or its shadow root), with `options` replacing the
   *  element's (figure.js's AttentionFigure options). */
  makeFigureOf(root, options) {
    const figure = new AttentionFigure(root, {
      host: this, stateElements: [this], buildFolder,
      ...(this[RUNTIME] ?? {
        python: pythonFor(new URL("worker.js", buildFolder)),
        manifest: () => fetchManifest(buildFolder),
        linkHref: (fragment) => new URL(`index.html${fragment}`, pageFolder).href, // the standalone page, on this view
      }),
      chooseLanguage: (available, model) => languageOf(this, available, model),
      ...options,
    });
    this.figure = figure;
    const changes = throttled(CHANGE_MS, () => this.dispatchEvent(new ChangeEvent(figure)));
    figure.onChange(() => changes.changed());
    return figure;
  }

  /* First paint at once; Python once the figure comes within one viewport of the screen. */
  start(figure) {
    figure.setState("waiting"); // data-state: "waiting" until it comes near, then "loading", "ready" or "error"
    figure.showTokensEarly();
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.goLive();
    }, { rootMargin: NEAR });
    this.observer.observe(this);
  }

  /* Python now: the figure came near, or a script asked it for something. */
  goLive() {
    if (!this.observer) return;
    this.observer.disconnect();
    this.observer = null;
    this.figure.attempt();
  }

  get ready() { return this.live().ready; }
  setText(text) { return this.live().setText(text); }
  select(choice) { return this.live().select(choice); }
  state() { return this.api().state(); }
  explain(options) { return this.live().explain(options); }
  flash(options) { return this.live().flash(options); }
  predict(options) { return this.live().predict(options); }
  exportImage(options) { return this.live().exportImage(options); }

  /* The figure's API; an element not yet on a page makes its figure now. */
  api() {
    if (!this.figure) this.start(this.makeFigure());
    return this.figure.api;
  }

  /* The API of a figure that goes live now, if it has not yet. */
  live() {
    const api = this.api();
    this.goLive();
    return api;
  }
}

if (!customElements.get("attention-live")) customElements.define("attention-live", AttentionLiveElement);
