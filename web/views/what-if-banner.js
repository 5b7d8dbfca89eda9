/* The what-if banner above the chips: shown whenever the figure shows something the model does not
 * compute (a step of the selected head left out, or heads knocked out), and says which.
 *
 * createWhatIfBanner(banner, {}) → {draw(props), clear(message), destroy()}   (banner: a <p>)
 *   props: {layer, head: number (1-based), whatIf: {scale: boolean, mask: boolean} (false: that step
 *          left out of the selected head), knockout: [[layer, head], …] (1-based)}   (the view state)
 */
import { setHidden, setText } from "../lib/dom.js";

/** What the view state's what-ifs are, as one sentence ("" when there are none); shared with export.js. */
export function whatIfText(state) {
  const parts = [];
  const head = `layer ${state.layer}, head ${state.head}`;
  if (!state.whatIf.scale) parts.push(`${head}: scores not divided by √d_k`);
  if (!state.whatIf.mask) parts.push(`${head}: no causal mask`);
  if (state.knockout.length) parts.push(`knocked out: ${state.knockout.map(([l, h]) => `layer ${l} · head ${h}`).join(", ")}`);
  return parts.length ? `What-if: not what the model computes (${parts.join("; ")}).` : "";
}

export function createWhatIfBanner(banner) {
  /** Show `text` in the banner, or hide it for "". */
  function clear(text = "") {
    setText(banner, text);
    setHidden(banner, text === "");
  }

  return {
    /** Say what the what-ifs of `state` (see above) are, or hide the banner when there are none. */
    draw: (state) => clear(whatIfText(state)),
    clear,
    destroy: () => clear(""),
  };
}
