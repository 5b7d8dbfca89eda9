/* The figure's views (views/), made in its parts and drawn from what the core hands them: the result
 * shown, the view state and Python's answers (answers.js). The chips, the layer and head selectors, the
 * disclosures and the what-if banner exist from the start; the views of a model's numbers are made once
 * its config is known (forModel). The views that cost most to draw wait while out of view, until the
 * reader pauses or scrolls to them (lib/when-paused.js). Every view reads the figure's current Messages
 * (i18n/messages.js) when it writes words or numbers; after a change of language, language() makes again
 * the views that wrote words only when made, and the next render writes the rest.
 */
import { createChips } from "../views/chips.js";
import { createChoices } from "../views/choices.js";
import { focusedIn, setHidden } from "../lib/dom.js";
import { drawLegend } from "../draw/colour.js";
import { createHeadsGrid } from "../views/heads-grid.js";
import { createMathPanel } from "../views/math-panel.js";
import { createFlashSteps } from "../views/flash-steps.js";
import { createMatrix } from "../views/matrix.js";
import { createNextToken } from "../views/next-token.js";
import { createLearn } from "../views/learn.js";
import { createStackPanel } from "../views/stack-panel.js";
import { createWhatIfBanner } from "../views/what-if-banner.js";
import { whenSeenOrPaused } from "../lib/when-paused.js";
import { headOffset, keysSeen } from "../draw/numbers.js";
import { asking, hasWhatIf, PANEL_NAMES } from "./view-state.js";

/**
 * @param root the figure's element (where the focus is kept)
 * @param el   the figure's parts (figure.js PARTS)
 * @param on   what the reader's acts on the views do, through the core: choose(patch) (a choice of the
 *             reader's), pickToken(index) (a chip picked: the query, or the answer to "Predict, then look"), state() and update(patch) (the view state: a preview, a panel opened),
 *             knockout(layer, head), readOut(text), learn(step) (a checkpoint chosen in "Watch it learn");
 *             and messages(): the figure's current Messages (i18n/messages.js), which every view calls
 *             when it writes (the language can change while the figure lives)
 * @returns {forModel(config, checkpoints), tokens(result), clearTokens(), render(result, state, previous, answers),
 *           answers(kinds, result, state, answers), focused(), keepFocus(element), language(), destroy()}
 */
export function createFigureViews(root, el, on) {
  const views = { chips: null, banner: null, layers: null, heads: null, headsGrid: null, matrix: null, math: null, flash: null, next: null, learn: null, stack: null, offScreen: null };
  const listening = new AbortController();
  const { signal } = listening;
  const { messages } = on;
  let model = null; // the [config, checkpoints] of the last forModel, to make its views again in another language
  let refocus = null; // after language(): where the focus was, until a render shows it again (placeOf)
  views.chips = createChips(el.tokens, { on: { pick: (index) => on.pickToken(index), preview: (index) => on.update({ preview: index }) }, messages });
  views.banner = createWhatIfBanner(el.whatIf, { messages });
  for (const name of PANEL_NAMES) { // a visitor's click on a summary, told to the view state
    const panel = el[`${name}Panel`]; // not shown
    panel.addEventListener("toggle", () => {
      if (on.state().panels[name] !== panel.open) on.update({ panels: { [name]: panel.open } });
    }, { signal });
  }
  el.flashPart.addEventListener("toggle", () => {
    if (on.state().flash.open !== el.flashPart.open) on.update({ flash: { open: el.flashPart.open } });
  }, { signal });
  el.learnPanel.addEventListener("toggle", () => { // closing it is a choice: the shipped model's numbers again
    if (on.state().learn.open !== el.learnPanel.open) on.choose({ learn: { open: el.learnPanel.open } });
  }, { signal });

  /* The next token's panel: Python's prediction for `state`, or `waiting` (why there is none). */
  function drawNext(result, state, answers, waiting) {
    views.next?.draw({ predicted: result && answers.get("predict", result, state), labels: result?.labels ?? [], knockout: state.knockout, waiting });
  }

  /* "Attention stacked on attention": Python's rollout of `state`'s query, once it has arrived. */
  function drawStack(result, state, answers) {
    const stacked = state.panels.stack && views.stack && result ? answers.get("rollout", result, state) : null;
    if (stacked) views.offScreen.stack.draw(() => views.stack.draw({ stacked, labels: result.labels }));
  }

  /* "Show the math": Python's explanation of `state`'s row, once it has arrived. */
  function drawMath(result, state, answers) {
    const explained = answers.get("explain", result, state);
    if (state.panels.math && views.math && explained) views.offScreen.math.draw(() => views.math.draw({ explained, labels: result.labels, cache: result.cache }));
  }

  /* "Compute it as FlashAttention does": the tile shown, and its keys marked on the chips and the matrix. */
  function drawFlash(result, state, previous, answers) {
    const shown = state.panels.math && state.flash.open;
    const flashed = shown ? answers.get("flash", result, state) : null;
    if (flashed) {
      views.flash.draw({ flashed, labels: result.labels, step: state.flash.step, announce: state.flash.step !== previous.flash.step,
        whatIf: hasWhatIf(state) || state.knockout.length > 0 });
    }
    const tile = flashed?.steps[Math.min(state.flash.step, flashed.steps.length - 1)].keys ?? null;
    if (shown || (previous.panels.math && previous.flash.open)) views.chips.draw({ tile }); // chips untouched while it is closed
    if (state.panels.matrix) views.matrix?.draw({ tile: tile && { token: state.token, first: tile[0], last: tile[1] } });
  }

  /* The views of the numbers of `result` (render's, once it has attention). */
  function drawModel(result, state, previous, answers) {
    if (!result?.attention) return; // nothing yet, or only its tokens
    if (state.panels.heads && views.headsGrid) views.offScreen.heads.draw(() => views.headsGrid.draw({ result, state }));
    if (state.panels.matrix && views.matrix) views.offScreen.matrix.draw(() => views.matrix.draw({ result, state }));
    const T = result.ids.length;
    if (T === 0) return;
    views.chips.draw({ reused: state.panels.math && result.cache ? result.cache.reused : 0 });
    drawMath(result, state, answers);
    drawFlash(result, state, previous, answers);
    const token = state.preview ?? state.token;
    const row = result.attention.subarray(headOffset(result, state.layer, state.head) + token * T).subarray(0, T);
    views.chips.draw({ row, query: token, previewing: state.preview !== null, causal: keysSeen(result, state, token) === token + 1, asking: asking(state),
      fixed: state.controls === "none" });
  }

  /* The views of a model (forModel's), gone: their elements, listeners, observers and waiting writes. */
  function destroyModelViews() {
    for (const view of [views.layers, views.heads, views.headsGrid, views.matrix, views.math, views.flash, views.next, views.learn, views.stack]) view?.destroy();
    for (const writer of Object.values(views.offScreen ?? {})) writer.destroy();
    Object.assign(views, { layers: null, heads: null, headsGrid: null, matrix: null, math: null, flash: null, next: null, learn: null, stack: null, offScreen: null });
  }

  /* Where `element` is in the figure, to find its like among views made again: [the id of its nearest
   * ancestor (or itself) that has one, its tag, its index among that ancestor's elements of that tag]. */
  function placeOf(element) {
    if (!element) return null;
    if (element.id) return [element.id, null, 0];
    const holder = element.parentElement?.closest("[id]");
    if (!holder || !root.contains(holder)) return null;
    const tag = element.tagName.toLowerCase();
    return [holder.id, tag, Array.prototype.indexOf.call(holder.querySelectorAll(tag), element)];
  }

  /* Focus the element at `place` (placeOf) if it is there and shown; true if the focus is there. */
  function focusPlace([id, tag, index]) {
    const holder = root.querySelector(`[id="${CSS.escape(id)}"]`); // not shown
    const element = tag === null ? holder : holder?.querySelectorAll(tag)[index];
    if (!element || element.closest("[hidden]")) return false;
    if (focusedIn(root) !== element) element.focus({ preventScroll: true });
    return focusedIn(root) === element;
  }

  /** The selectors, the legend and the views of the model of `config` ({n_layer, n_head, block_size, …}),
   *  with "Watch it learn" where its training run's `checkpoints` ([{step, validation}]) are listed. */
  function forModel(config, checkpoints) {
    destroyModelViews(); // those of an earlier call: a model before, or another language
    model = [config, checkpoints];
    views.learn = checkpoints.length > 1 ? createLearn(el.learn, { checkpoints, on: { pick: on.learn }, messages }) : null;
    setHidden(el.learnPanel, views.learn === null);
    views.layers = createChoices(el.layers, { config: { count: config.n_layer }, on: { pick: (layer) => on.choose({ layer }) }, messages });
    views.heads = createChoices(el.heads, { config: { count: config.n_head }, on: { pick: (head) => on.choose({ head }) }, messages });
    drawLegend(el.legend, messages());
    views.headsGrid = createHeadsGrid(el.headsGrid, { config, on: { pick: (layer, head) => on.choose({ layer, head }) }, messages });
    views.matrix = createMatrix(el.matrix, { on: { pick: (index) => on.pickToken(index), read: on.readOut }, messages });
    views.math = createMathPanel(el.math, { on: { whatIf: (whatIf) => on.choose({ whatIf }), read: on.readOut }, messages });
    views.flash = createFlashSteps(el.flash, { on: { change: (flash) => on.update({ flash }), read: on.readOut }, messages });
    views.next = createNextToken(el.next, { config, on: { knockout: on.knockout }, messages });
    views.stack = createStackPanel(el.stack, { messages });
    views.offScreen = { heads: whenSeenOrPaused(el.headsGrid), matrix: whenSeenOrPaused(el.matrix), math: whenSeenOrPaused(el.math), stack: whenSeenOrPaused(el.stack) };
  }

  return {
    forModel,

    /** After a change of the figure's language (on.messages() now another's): the views that write
     *  words only when made are made again (the model's, as forModel made them) and the chips' titles
     *  written again; the caller then renders everything, which writes the rest. The focus, if it was
     *  on a view made again, goes to its like (at once where it is shown, else after the next render). */
    language() {
      views.chips.language();
      if (!model) return;
      const active = focusedIn(root);
      const place = active !== el.text && root.contains(active) ? placeOf(active) : null;
      forModel(...model);
      refocus = place && !focusPlace(place) ? place : null;
    },

    /** The chips of a new result. */
    tokens(result) {
      views.chips.draw({ labels: result.labels, ids: result.ids });
    },

    /** The chips go until a new result's arrive; the focus, if it was on one, goes to the text box
     *  (never to the page's body). */
    clearTokens() {
      const focusInChips = el.tokens.contains(focusedIn(el.tokens));
      views.chips.clear();
      if (focusInChips) el.text.focus({ preventScroll: true });
    },

    /** The element of the figure that has the focus, but the text box (never removed: typing pays nothing here). */
    focused() {
      const active = focusedIn(root);
      return active !== el.text && root.contains(active) ? active : null;
    },

    /** After an update removed or hid `element`, which had the focus (a chip of a shortened text; the
     *  matrix or a strip of an emptied one), the focus goes to the query's chip, or to the text box when
     *  there are no tokens: never to the page's body. Every view hides with the `hidden` attribute
     *  (lib/dom.js), so the attribute tells without a layout (checkVisibility would force one in the
     *  middle of drawing: 7 ms of every update at CPU ×4, docs/benchmark.md). */
    keepFocus(element) {
      if (!element || (focusedIn(root) !== element && document.activeElement !== document.body)) return;
      if (element.isConnected && !element.closest("[hidden]")) return;
      (el.tokens.querySelector('.chip[tabindex="0"]') ?? el.text).focus({ preventScroll: true });
    },

    /** Every view from the view state `state` (after `previous`): the chips and selectors always, the
     *  panels below them while open (opening one draws it). */
    render(result, state, previous, answers) {
      views.layers?.draw({ value: state.layer });
      views.heads?.draw({ value: state.head });
      // a panel follows the state only when the state's panel changed: a visitor's click on a summary
      // may not have reached the state yet (its toggle event comes later)
      for (const name of PANEL_NAMES) {
        if (state.panels[name] !== previous.panels[name]) el[`${name}Panel`].open = state.panels[name]; // not shown
      }
      views.banner.draw(state);
      if (state.learn.open !== previous.learn.open && el.learnPanel.open !== state.learn.open) el.learnPanel.open = state.learn.open;
      views.learn?.draw({ open: state.learn.open, step: state.learn.step ?? views.learn.lastStep, shown: result?.attention && !result.precomputed ? (result.step ?? views.learn.lastStep) : null,
        live: Boolean(result && !result.precomputed) });
      const waiting = !result || result.precomputed ? messages().text("views.waiting")
        : result.ids.length === 0 ? messages().text("views.noTokens") : null;
      drawNext(result, state, answers, waiting);
      if (state.flash.open !== previous.flash.open && el.flashPart.open !== state.flash.open) el.flashPart.open = state.flash.open;
      if (waiting) views.math?.clear(waiting);
      if (waiting) views.flash?.clear(waiting);
      if (waiting) views.stack?.clear(waiting);
      const live = Boolean(result && !result.precomputed); // what-ifs need the live model (not while loading)
      for (const view of [views.math, views.flash, views.next]) view?.draw({ enabled: live });
      drawModel(result, state, previous, answers);
      if (result?.attention && result.ids.length > 0) drawStack(result, state, answers);
      if (refocus) focusPlace(refocus); // after language(): the focus back where it was, now that it is drawn
      refocus = null;
    },

    /** The views of the answers of `kinds` just arrived (the rest shows this view already). */
    answers(kinds, result, state, answers) {
      if (kinds.has("predict")) drawNext(result, state, answers, null);
      if (kinds.has("explain")) drawMath(result, state, answers);
      if (kinds.has("flash")) drawFlash(result, state, state, answers);
      if (kinds.has("rollout")) drawStack(result, state, answers);
    },

    destroy() {
      listening.abort();
      for (const view of [views.chips, views.banner]) view?.destroy();
      destroyModelViews(); // and their observers and waiting writes
    },
  };
}
