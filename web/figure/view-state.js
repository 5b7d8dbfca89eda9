/* The view state: what the reader is looking at, in one object with one way to change it.
 *
 *   { layer, head,          1-based, as labelled
 *     token,                0-based index of the query among the shown tokens
 *     preview,              a token previewed by hovering a chip (or null): drawn, never kept
 *     panels: { heads, matrix, math, next },   which disclosures below the chips are open
 *     whatIf: { scale, mask },  false = that step of the selected head left out (a what-if)
 *     knockout: [[layer, head], ...],          heads knocked out (a what-if), 1-based
 *     flash: { open, tile, step } }            "Compute it as FlashAttention does": open, keys per
 *                                              tile, the tile shown (0-based)
 *
 * Clicks, keys and window.attentionLive.select() all go through update(); every view redraws from
 * the state it is handed. The address's fragment is this state written out (url-state.js), and a host
 * page on another origin receives it as messages (host-messages.js).
 */

export function createViewState(initial) {
  let state = Object.freeze({ ...initial, panels: Object.freeze({ ...initial.panels }), whatIf: Object.freeze({ ...initial.whatIf }),
    flash: Object.freeze({ ...initial.flash }) });
  const listeners = [];
  return {
    /** The current state (frozen). */
    get: () => state,
    /** Merge `patch` (panels, whatIf and flash merge one level deep) and tell every listener (state, previous state). */
    update(patch) {
      const previous = state;
      const panels = Object.freeze({ ...state.panels, ...(patch.panels ?? {}) });
      const whatIf = Object.freeze({ ...state.whatIf, ...(patch.whatIf ?? {}) });
      const flash = Object.freeze({ ...state.flash, ...(patch.flash ?? {}) });
      state = Object.freeze({ ...state, ...patch, panels, whatIf, flash });
      for (const listener of listeners) listener(state, previous);
    },
    /** Call `listener(state, previous)` after every update. */
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}
