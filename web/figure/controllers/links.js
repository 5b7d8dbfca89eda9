/* Links (one feature of a figure: figure.js's controllers): the view a link asked for (the address's
 * fragment, an element's attributes: figure/url-state.js reads both), shown as a fresh load would, with
 * what it could not give said in the notice; and the fragment of the view on screen, for "Copy link"
 * and the address (page/page-link.js).
 */
import { asInBox, boxed, lastChars } from "../text-box.js";
import { linkFor, readView } from "../url-state.js";
import { PANEL_NAMES, whatIfsOf } from "../view-state.js";

/**
 * @param figure       the core (figure.js): viewState, manifest, config, result, text, live, newestShown, tourLink, learnAt(step),
 *                     textReplaced(), clearShown(), intoBox(text), submit(text), setStatus(message),
 *                     showNotice(), changed()
 * @param initialView  (config, maxChars) => {view, changes}: the view asked for at the start
 * @returns {changes, initial(config, maxChars, given), follow(fragment, text), fragment(), firstLive(result), forget()}
 */
export function createLinks(figure, initialView) {
  // what the asked view could not give (the notice's sentences, as messages: {key, params}, lib/shown.js),
  // and its token (0-based; applied to the first live result of its text) as the link wrote it
  // (tokenAsked: 1-based)
  const asked = { changes: [], token: undefined, tokenAsked: undefined };

  /* Show the view `view` ({text, layer, head, token, panels, step, predict, controls}: each optional, checked by readLink) as a
   * fresh load would, with `changes` in the notice; what it leaves out is the default view's. A link
   * carries no what-ifs or knockouts: a fresh load has none. */
  function show(view, changes) {
    const defaults = figure.manifest.default_view;
    const text = view.text ?? defaults.text;
    const newText = boxed(text).text !== figure.text;
    if (newText) {
      figure.textReplaced();
      figure.clearShown(); // as on a fresh load, the text's own tokens are drawn once computed
      figure.setStatus({ key: "links.computing" });
    }
    Object.assign(asked, { changes, token: view.token, tokenAsked: view.tokenAsked });
    const panels = Object.fromEntries(PANEL_NAMES.map((name) => [name, Boolean(view.panels?.[name])]));
    const whatIfsBefore = JSON.stringify(whatIfsOf(figure.viewState.get()));
    figure.viewState.update({
      layer: view.layer ?? defaults.layer, head: view.head ?? defaults.head, panels, preview: null,
      whatIf: { scale: true, mask: true }, knockout: [], learn: figure.learnAt(view.step ?? null),
      predict: { on: view.predict ?? false, answered: false, guess: null }, controls: view.controls ?? "all",
      token: text === defaults.text ? defaults.token : Number.MAX_SAFE_INTEGER, // the last token, once its text is shown
    });
    const { result } = figure;
    if (newText) figure.submit(figure.intoBox(text)).catch(() => {}); // a failed start already says why
    else {
      if (figure.live && JSON.stringify(whatIfsOf(figure.viewState.get())) !== whatIfsBefore) figure.submit(figure.text).catch(() => {}); // the model's own numbers again
      if (result?.ids.length) {
        figure.viewState.update({ token: Math.min(figure.viewState.get().token, result.ids.length - 1) });
        if (!result.precomputed) firstLive(result);
      }
    }
    figure.showNotice();
    figure.changed(); // the notice's height, where no frame is drawn to tell
  }

  /* The first live result of the asked text: its token, moved to the last token when the text is shorter. */
  function firstLive(result) {
    const { token, tokenAsked } = asked;
    Object.assign(asked, { token: undefined, tokenAsked: undefined });
    const T = result.ids.length;
    if (token === undefined || T === 0) return;
    if (token >= T) asked.changes.push({ key: "link.tokenPastEnd", params: { asked: tokenAsked ?? String(token + 1), count: T } }); // as the link wrote it
    figure.viewState.update({ token: Math.min(token, T - 1) });
    figure.showNotice();
  }

  return {
    /** The notice's sentences, as messages ({key, params}, lib/shown.js): what the asked view could not
     *  give (until the next text). */
    get changes() {
      return asked.changes;
    },
    /** The view asked for at the start, for the model of `config`; `given`: a text was given before
     *  build.json arrived (setText, a message, typing), which wins over the asked view's text and token. */
    initial(config, maxChars, given) {
      const start = initialView(config, maxChars);
      const view = given ? { ...start.view, text: undefined, token: undefined, tokenAsked: undefined } : start.view;
      Object.assign(asked, { changes: given ? [] : start.changes, token: view.token, tokenAsked: view.tokenAsked });
      return view;
    },
    /** Show the view of the link fragment `fragment` ("#text=…&layer=2&…", read as readLink reads any
     *  link), with `text` as its text where given (an element's text attribute: readView). Returns the
     *  view read (its `lang`, a language the link asked for, is the core's to show). */
    follow(fragment, text) {
      const { view, changes } = readView(fragment, text, figure.config, figure.manifest.max_text_chars, asInBox);
      show(view, changes);
      return view;
    },
    /** The fragment of the view shown (linkFor): the text the figure uses, and, once its tokens are
     *  shown, the token; a text on its way is written without one (a link to it selects the last),
     *  unless the asked view's token waits for it. */
    fragment() {
      const maxChars = figure.manifest?.max_text_chars ?? Infinity;
      const { text } = lastChars(figure.text, maxChars, (same) => same); // what the figure uses (its text is the box's already)
      const { result } = figure;
      const state = figure.viewState.get();
      return figure.newestShown && result && !result.precomputed ? linkFor(text, state, result.ids.length > 0, figure.tourLink)
        : linkFor(text, { ...state, token: asked.token ?? 0 }, asked.token !== undefined, figure.tourLink);
    },
    firstLive,
    /** A new text replaced the asked one: its notices go and its token no longer applies. */
    forget() {
      Object.assign(asked, { changes: [], token: undefined, tokenAsked: undefined });
    },
    destroy() {},
  };
}
