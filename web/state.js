/* The view state: what the reader is looking at, in one object with one way to change it.
 *
 *   { layer, head,          1-based, as labelled
 *     token,                0-based index of the query among the shown tokens
 *     preview,              a token previewed by hovering a chip (or null): drawn, never kept
 *     panels: { heads, matrix } }   which disclosures below the chips are open
 *
 * Clicks, keys and window.attentionLive.select() all go through update(); every view redraws from
 * the state it is handed. (The URL fragment will be this state written out.)
 */

export function createViewState(initial) {
  let state = Object.freeze({ ...initial, panels: Object.freeze({ ...initial.panels }) });
  const listeners = [];
  return {
    /** The current state (frozen). */
    get: () => state,
    /** Merge `patch` (panels merge one level deep) and tell every listener (state, previous state). */
    update(patch) {
      const previous = state;
      const panels = Object.freeze({ ...state.panels, ...(patch.panels ?? {}) });
      state = Object.freeze({ ...state, ...patch, panels });
      for (const listener of listeners) listener(state, previous);
    },
    /** Call `listener(state, previous)` after every update. */
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}
