/* The what-if banner above the chips: shown whenever the figure shows something the model does not
 * compute (a step of the selected head left out, or heads knocked out), and says which. */

import { setHidden, setText } from "../lib/dom.js";

/** What the view state's what-ifs are, as one sentence ("" when there are none). */
export function whatIfText(state) {
  const parts = [];
  const head = `layer ${state.layer}, head ${state.head}`;
  if (!state.whatIf.scale) parts.push(`${head}: scores not divided by √d_k`);
  if (!state.whatIf.mask) parts.push(`${head}: no causal mask`);
  if (state.knockout.length) parts.push(`knocked out: ${state.knockout.map(([l, h]) => `layer ${l} · head ${h}`).join(", ")}`);
  return parts.length ? `What-if: not what the model computes (${parts.join("; ")}).` : "";
}

/** Show in `banner` (a <p>) what the view state's what-ifs are, or hide it when there are none. */
export function drawWhatIfBanner(banner, state) {
  const text = whatIfText(state);
  setText(banner, text);
  setHidden(banner, text === "");
}
