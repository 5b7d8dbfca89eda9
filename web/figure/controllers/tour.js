/* The walk (one feature of a figure: figure.js's controllers; docs/tour.md): "Walk through" and the
 * element's tour attribute (or a link's tour=) step through a list of views, each with its sentence
 * written with the live numbers of the text in the box. The chapter's walk is tour-steps.js's
 * chapterSteps; a course's is a JSON file (tour="walk.json", relative to the page), checked by
 * checkWalk: a broken one is said in the notice, naming the step and field, and the figure goes on
 * without a walk.
 *
 *   asked (attribute, link, "Walk through") ─▶ steps (the chapter's, or the file's, checked)
 *     ─▶ show(i): the step's view through the core (showStep: nothing said) ─▶ its numbers arrive
 *     ─▶ its sentence in the bar (views/tour-bar.js), said once by the figure's live region
 */
import { ShownError, shown } from "../../lib/shown.js";
import { createTourBar } from "../../views/tour-bar.js";
import { chapterSteps, checkWalk, readingOf } from "../tour-steps.js";
import { PANEL_NAMES } from "../view-state.js";

export const CHAPTER = "chapter";
const MAX_CHARS = 1_000_000; // the longest walk file read (a hundred steps of sentences are a few tens of KB)

/** The view-state patch of a step's `view` (tour-steps.js), with `token` (0-based, or null: the query
 *  stays): the panels it names open and the others closed, its what-ifs and no others, no knockout,
 *  the FlashAttention part as it says, the shipped model. */
function patchOf(view, token) {
  const panels = Object.fromEntries(PANEL_NAMES.map((name) => [name, (view.panels ?? []).includes(name)]));
  return { panels, whatIf: { scale: true, mask: true, ...(view.whatIf ?? {}) }, knockout: [], flash: { open: Boolean(view.flash?.open) },
    learn: { open: false }, ...(view.layer !== undefined && { layer: view.layer }), ...(view.head !== undefined && { head: view.head }),
    ...(token !== null && token !== undefined && { token }) };
}

/**
 * @param figure  the core (figure.js): config, manifest, result, viewState, messages, answer(kind),
 *                showStep(patch, text), announce(text), showNotice(), changed(), onChange(listener)
 * @param parts   {tour: the bar's section, tourStart: the "Walk through" button}
 * @returns {state, loaded, notices, ask(source), follow(source), moveTo(index), destroy()}
 */
export function createTour(figure, { tour: section, tourStart: start }) {
  const listening = new AbortController();
  const { signal } = listening;
  let asked = null; // the walk asked for: CHAPTER, a URL as written, or null (the button's walk: the chapter's)
  let steps = null; // the asked walk's steps, once loaded and checked
  let chapter = true; // whether they are the chapter's
  let on = false; // a walk is shown
  let index = 0;
  let moves = 0; // each move to a step; an older move's late work is dropped
  let said = -1; // the move whose sentence was said
  let failure = null; // the notice's sentence when the asked walk could not be had (a message: lib/shown.js)
  let tokenNote = null; // the notice's sentence when a step's token was past its text's end
  let loaded = Promise.resolve();
  let loads = 0; // each walk asked for; an older one arriving late is dropped
  let gone = false;
  const bar = createTourBar(section, { on: { back: () => move(index - 1), next: () => move(index + 1), end: () => end() } });

  /* The steps of the walk `source` (CHAPTER, or a URL relative to the page): {steps, chapter}; rejects with a
   * ShownError (lib/shown.js) saying why there are none. */
  async function load(source) {
    const { config, manifest } = figure;
    if (source === CHAPTER) return { steps: chapterSteps(config, manifest.default_view), chapter: true };
    let url;
    try {
      url = new URL(source, document.baseURI).href;
    } catch {
      throw new ShownError("tour.badAddress", { url: source });
    }
    let response;
    try {
      response = await fetch(url, { credentials: "same-origin" });
    } catch (error) {
      throw new ShownError("tour.notLoaded", { url: source, reason: error.message });
    }
    if (!response.ok) throw new ShownError("tour.notLoaded", { url: source, reason: `HTTP ${response.status}` });
    let json;
    const text = await response.text();
    if (text.length > MAX_CHARS) throw new ShownError("tour.tooLarge", { url: source, count: text.length, most: MAX_CHARS });
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ShownError("tour.notJson", { url: source, reason: error.message });
    }
    try {
      return { steps: checkWalk(json, config), chapter: false };
    } catch (error) {
      throw new ShownError("tour.broken", { url: source, reason: error });
    }
  }

  /* The walk `source` asked for (CHAPTER or a URL: shown from its first step once loaded; null: none, the
   * button then starts the chapter's). */
  function ask(source) {
    asked = source || null;
    failure = null;
    tokenNote = null;
    steps = null;
    if (on) end(false);
    start.hidden = true;
    const wanted = asked ?? CHAPTER;
    const attempt = ++loads;
    loaded = load(wanted).then((walk) => {
      if (gone || attempt !== loads) return; // another walk asked for meanwhile
      ({ steps, chapter } = walk);
      start.hidden = false;
      if (asked !== null) {
        begin(false, false);
        said = moves; // a walk on from the start is not said at load (nothing is, before the reader acts: figure.js)
      }
    }, (error) => {
      if (gone || attempt !== loads) return;
      failure = error instanceof ShownError ? error : new ShownError("tour.notLoaded", { url: wanted, reason: error }); // a ShownError, written in the figure's language
      figure.showNotice();
      figure.changed();
    });
    figure.showNotice();
    return loaded;
  }

  function begin(focus, byReader = true) {
    on = true;
    move(0, byReader);
    if (focus) bar.focusNext();
  }

  /* Show step `to` (0-based; out of the walk: nothing), its view through the core and, where it has a
   * text and a token, that token once the text is shown. */
  function move(to, byReader = true) {
    if (!on || to < 0 || to >= steps.length) return Promise.resolve();
    index = to;
    const now = ++moves;
    const step = steps[to];
    const { view } = step;
    if (tokenNote) {
      tokenNote = null;
      figure.showNotice();
    }
    const tokenNow = view.text === undefined ? step.tokenOf(readingOf(figure)) : null;
    const shown = figure.showStep(patchOf(view, tokenNow === null ? null : clampToken(tokenNow, to)), view.text, byReader);
    render();
    if (view.text === undefined || view.token === undefined) return shown;
    return shown.then(() => {
      if (now !== moves || !figure.result || figure.result.ids.length === 0) return;
      figure.viewState.update({ token: clampToken(view.token, to) });
    });
  }

  /* `token` within the text shown (its last token where it is past the end, and the notice says so). */
  function clampToken(token, at) {
    const T = figure.result?.ids.length ?? 0;
    if (T === 0 || token < T) return token;
    tokenNote = { key: "tour.tokenPastEnd", params: { step: at + 1, token: token + 1, count: T } };
    figure.showNotice();
    return T - 1;
  }

  function end(focus = true) {
    const hadFocus = bar.holdsFocus();
    on = false;
    moves += 1;
    tokenNote = null;
    render();
    figure.showNotice();
    figure.changed();
    if (focus && hadFocus && !start.hidden) start.focus({ preventScroll: true });
  }

  /* The bar for the step shown, its sentence once its numbers are in; said once per move. */
  function render() {
    if (!on) return bar.draw({ on: false });
    const { messages } = figure;
    const reading = readingOf(figure);
    const empty = reading.result !== null && reading.result.ids.length === 0; // an empty text: nothing to say but that
    const words = empty ? { key: "figure.noTokens" } : reading.result ? steps[index].words(reading) : null;
    const text = words ? shown(messages, words) : messages.text("tour.waiting");
    bar.draw({ on: true, title: messages.text(chapter ? "tour.chapterTitle" : "tour.courseTitle", { index: index + 1, count: steps.length }),
      text, ready: Boolean(words), first: index === 0, last: index === steps.length - 1 });
    if (words && said !== moves) {
      said = moves;
      const move = moves;
      setTimeout(() => { if (on && move === moves && !gone) figure.announce(text); }, 0); // after the core's own sentence of this update, which it replaces
    }
  }

  start.addEventListener("click", () => {
    if (steps) begin(true);
  }, { signal });
  const stopListening = figure.onChange(() => render());

  return {
    /** {index (0-based), count} of the walk shown, or null. */
    get state() { return on ? { index, count: steps.length } : null; },
    /** The walk shown as a link writes it: CHAPTER, or null (none, or a course's: its address is relative to its page). */
    get link() { return on && chapter ? CHAPTER : null; },
    /** A Promise: settles once the walk asked for is loaded (or could not be). */
    get loaded() { return loaded; },
    /** The notice's sentences (messages): a walk that could not be had, a step's token past its text's end. */
    get notices() { return [failure, tokenNote].filter(Boolean); },
    /** Once build.json has arrived: the walk asked for at the start (`source`: CHAPTER, a URL, or undefined). */
    ask: (source) => ask(source),
    /** A link followed or an attribute changed: its walk, if it is another than the one asked. */
    follow(source) {
      if ((source || null) !== asked) ask(source);
    },
    /** Show step `to` (0-based, checked by the caller); resolves once its text and numbers are shown. */
    moveTo: (to) => move(to),
    get count() { return on ? steps.length : 0; },
    destroy() {
      gone = true;
      listening.abort();
      stopListening();
      bar.destroy();
    },
  };
}
