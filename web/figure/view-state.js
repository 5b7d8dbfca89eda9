/* The view state: what the reader is looking at, in one object with one way to change it.
 *
 *   { layer, head,          1-based, as labelled
 *     token,                0-based index of the query among the shown tokens
 *     preview,              a token previewed by hovering a chip (or null): drawn, never kept
 *     panels: { heads, matrix, math, next, stack },   which disclosures below the chips are open
 *     whatIf: { scale, mask },  false = that step of the selected head left out (a what-if)
 *     knockout: [[layer, head], ...],          heads knocked out (a what-if), 1-based
 *     flash: { open, tile, step },             "Compute it as FlashAttention does": open, keys per
 *                                              tile, the tile shown (0-based)
 *     learn: { open, step },                   "Watch it learn": open, and the training step of the
 *                                              checkpoint shown (null: the shipped model; set only while open)
 *     predict: { on, answered, guess },        "Predict, then look": on, the reader has answered for this
 *                                              query, head and text, and the token guessed (0-based, or null)
 *     controls }                               "all", "view" (the text read-only) or "none" (the view as
 *                                              given: no choices, no tools): a figure that illustrates one point
 *
 * Clicks, keys and window.attentionLive.select() all go through update(); every view redraws from
 * the state it is handed. The address's fragment is this state written out (url-state.js), and a host
 * page on another origin receives it as messages (host-messages.js). Below it, the rules that read a
 * state: what the open panels need from Python, the what-ifs, where the query goes after an edit.
 */

/** The panels below the chips, in the order they are drawn. */
export const PANEL_NAMES = ["heads", "matrix", "math", "next", "stack"];

export function createViewState(initial) {
  let state = Object.freeze({ ...initial, panels: Object.freeze({ ...initial.panels }), whatIf: Object.freeze({ ...initial.whatIf }),
    flash: Object.freeze({ ...initial.flash }), learn: Object.freeze({ ...initial.learn }), predict: Object.freeze({ ...initial.predict }) });
  const listeners = [];
  return {
    /** The current state (frozen). */
    get: () => state,
    /** Merge `patch` (panels, whatIf, flash, learn and predict merge one level deep) and tell every listener
     *  (state, previous state). A step shown opens "Watch it learn"; closing it shows the shipped model. */
    update(patch) {
      const previous = state;
      const panels = Object.freeze({ ...state.panels, ...(patch.panels ?? {}) });
      const whatIf = Object.freeze({ ...state.whatIf, ...(patch.whatIf ?? {}) });
      const flash = Object.freeze({ ...state.flash, ...(patch.flash ?? {}) });
      const learn = { ...state.learn, ...(patch.learn ?? {}) };
      const predict = Object.freeze({ ...state.predict, ...(patch.predict ?? {}) });
      if (patch.learn?.step != null) learn.open = true;
      if (!learn.open) learn.step = null;
      state = Object.freeze({ ...state, ...patch, panels, whatIf, flash, learn: Object.freeze(learn), predict });
      for (const listener of listeners) listener(state, previous);
    },
    /** Call `listener(state, previous)` after every update. */
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}

/** The answers of Python's (answers.js's kinds) that the open panels of view `state` show. */
export function answersShown(state) {
  return [...(state.panels.math ? ["explain"] : []), ...(state.panels.math && state.flash.open ? ["flash"] : []),
    ...(state.panels.next ? ["predict"] : []), ...(state.panels.stack ? ["rollout"] : [])];
}

export const hasWhatIf = (state) => !state.whatIf.scale || !state.whatIf.mask;

/** Whether the figure asks the reader to predict before it shows the weights ("Predict, then look"). */
export const asking = (state) => state.predict.on && !state.predict.answered;

/** The view state's patch that asks again (a new query, head or text): the answer forgotten. */
export const askAgain = { predict: { answered: false, guess: null } };

/** Whether `patch` on view `state` asks again once answered: another query, head or checkpoint. */
export function asksAgain(state, patch) {
  if (!state.predict.answered) return false;
  return ["layer", "head", "token"].some((name) => patch[name] !== undefined && patch[name] !== state[name])
    || (patch.learn !== undefined && (patch.learn.step ?? null) !== state.learn.step);
}

/** What the worker computes the attention of this state with, besides the text: the knocked-out heads,
 *  the what-if of the selected head ({layer, head, scale, mask}, or null) and the checkpoint (its
 *  training step, or null for the shipped model). */
export function whatIfsOf(state) {
  const { layer, head, whatIf: { scale, mask } } = state;
  return { knockout: state.knockout, whatIf: hasWhatIf(state) ? { layer, head, scale, mask } : null, step: state.learn.step };
}

/** Whether `result` holds the numbers of `state`'s what-ifs and checkpoint (whatIfsOf). */
export function showsWhatIfsOf(result, state) {
  return JSON.stringify({ knockout: result.knockout ?? [], whatIf: result.whatIf ?? null, step: result.step ?? null }) === JSON.stringify(whatIfsOf(state));
}

/** The query once `result` replaces `previous` (null: none) for a query on `token`. A query on the last
 *  token follows the typing to the new last token; any other query stays on its token while the text
 *  up to it is unchanged, and otherwise moves to the last token too. The first result keeps the
 *  default view's query. */
export function queryAfter(previous, result, token) {
  const T = result.ids.length;
  if (T === 0) return 0;
  if (token >= T) return T - 1;
  if (previous === null) return token;
  if (token === previous.ids.length - 1) return T - 1;
  const unchanged = previous.ids.length > token
    && previous.ids.slice(0, token + 1).every((id, i) => id === result.ids[i]);
  return unchanged ? token : T - 1;
}

/** `knockout` ([[layer, head], …], sorted) with the head (`layer`, `head`) knocked out, or back in if it was. */
export function toggled(knockout, layer, head) {
  const on = knockout.some(([l, h]) => l === layer && h === head);
  const next = on ? knockout.filter(([l, h]) => l !== layer || h !== head) : [...knockout, [layer, head]];
  return next.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
