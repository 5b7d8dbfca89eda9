/* The what-if banner above the chips: shown whenever the figure shows something the model does not
 * compute (a step of the selected head left out, or heads knocked out), and says which.
 *
 * createWhatIfBanner(banner, {messages}) → {draw(props), clear(message), destroy()}   (banner: a <p>;
 *   messages: a function returning the figure's current Messages, i18n/messages.js)
 *   props: {layer, head: number (1-based), whatIf: {scale: boolean, mask: boolean} (false: that step
 *          left out of the selected head), knockout: [[layer, head], …] (1-based)}   (the view state)
 */
import { setHidden, setText } from "../lib/dom.js";

/** What the view state's what-ifs are, as one sentence in the words of `messages` ("" when there are
 *  none); shared with export.js. */
export function whatIfText(state, messages) {
  const parts = [];
  const head = { layer: state.layer, head: state.head };
  if (!state.whatIf.scale) parts.push(messages.text("banner.notDivided", head));
  if (!state.whatIf.mask) parts.push(messages.text("banner.noMask", head));
  if (state.knockout.length) {
    const heads = state.knockout.map(([layer, h]) => messages.text("banner.head", { layer, head: h }));
    parts.push(messages.text("banner.knockedOut", { heads: heads.join(messages.text("banner.headSeparator")) }));
  }
  return parts.length ? messages.text("banner.whatIf", { parts: parts.join(messages.text("banner.partSeparator")) }) : "";
}

export function createWhatIfBanner(banner, { messages }) {
  /** Show `text` in the banner, or hide it for "". */
  function clear(text = "") {
    setText(banner, text);
    setHidden(banner, text === "");
  }

  return {
    /** Say what the what-ifs of `state` (see above) are, or hide the banner when there are none. */
    draw: (state) => clear(whatIfText(state, messages())),
    clear,
    destroy: () => clear(""),
  };
}
