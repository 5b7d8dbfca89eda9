/* The status line, the notice and what a screen reader hears (one feature of a figure: figure.js's
 * controllers).
 *
 * The status line, under the controls, is for the eyes: the view on screen in one sentence, a loading
 * step, an error, or the answer to a button. The notice, above the chips, says what the figure changed
 * in what it was given. The live region (lib/announcer.js) is for the ears and is written rarely. This
 * controller is the only writer of the three; the core calls it.
 */
import { createAnnouncer } from "../../lib/announcer.js";
import { setHidden, setText } from "../../lib/dom.js";
import { BOX_MAX_CHARS } from "../text-box.js";
import { bitsText, entropyAt, queryText } from "../../draw/numbers.js";

/** The parts of the view state that decide what the figure shows, as one string (the pointer's preview,
 *  the panels and the FlashAttention part's tile left out): equal strings, the same view. */
const viewOf = (state) => JSON.stringify([state.layer, state.head, state.token, state.whatIf, state.knockout]);

/**
 * @param {{status: Element, notice: Element, announcer: Element}} parts  the status line, the notice, the live region
 * @param {{where?: string}} options  where live numbers are computed ("in this tab"), as the status line says it
 * @returns the status of one figure:
 *   set(text)                     the status line says `text`;
 *   say(text, result, state)      the answer to a button (Copy link, Save): on the line and said; kept
 *                                 there while the text of `result` and the view of `state` are shown;
 *   again(text)                   an error: on the line, and said even when it is the same as last time;
 *   view(result, state, token)    the line for the view on screen (unless an answer is kept there);
 *   notice(result, given)         the notice for `result` (null before the first is shown): see below;
 *   choice(compose), later(compose)   say compose() now or once the reader pauses (lib/announcer.js);
 *   text                          what the line says now;
 *   destroy()                     drops a sentence waiting to be said.
 */
/** " · focus 1.61 of 3.17 bits": the entropy of query `token`'s row in the selected head
 *  (Python's, with the analysis: focus.row_entropy), "" where the result has none. */
function focusText(result, state, token) {
  const bits = entropyAt(result, state.layer, state.head, token);
  if (bits === null) return "";
  return ` · focus ${bitsText(bits).replace(" bits", "")} of ${bitsText(result.entropyEven[token])}`;
}

export function createStatus({ status, notice, announcer: region }, { where = "in this tab" } = {}) {
  const announcer = createAnnouncer(region);
  let spoken = null; // {text, shown, view}: an answer said, kept on the line while its text and view are shown

  return {
    set(text) {
      setText(status, text);
    },
    say(text, result, state) {
      setText(status, text);
      announcer.now(text);
      spoken = { text, shown: result?.text, view: viewOf(state) };
    },
    again(text) {
      setText(status, text);
      announcer.again(text);
    },
    /* A token previewed by the pointer shows over a kept answer, which then comes back. */
    view(result, state, token) {
      if (spoken && (spoken.shown !== result.text || spoken.view !== viewOf(state))) spoken = null;
      if (spoken && state.preview === null) return setText(status, spoken.text);
      const source = result.precomputed ? "precomputed at build time" : `computed live ${where}`;
      setText(status, `Query ${queryText(result.labels, token)} · layer ${state.layer}, head ${state.head}${focusText(result, state, token)} · ${source}`);
    },
    /* What the figure changed in what it was given (`result`), and the sentences `given`: {failed (the
     * figure could not start), boxCut (the box kept only the end of a longer text), asked (what a
     * link could not give), notices (the figure's own, for as long as it lives)}. */
    notice(result, { failed, boxCut, asked, notices }) {
      const parts = [];
      if (result?.precomputed && !result.tokensOnly) {
        parts.push(failed ? "This view was computed when the figure was built."
          : "This view was computed when the figure was built; the live model is still loading.");
      }
      if (result?.charsDropped > 0) {
        parts.push(`Only the last ${Array.from(result.text).length.toLocaleString("en")} characters are used.`); // code points, as Python counts
      }
      if (result?.tokensDropped > 0) {
        const earlier = result.tokensDropped === 1 ? "1 earlier token is" : `${result.tokensDropped} earlier tokens are`;
        parts.push(`Showing the last ${result.ids.length} tokens, the model's context (block_size); ${earlier} not shown.`);
      }
      if (boxCut) parts.push(`The text box keeps the last ${BOX_MAX_CHARS.toLocaleString("en")} characters of a longer text.`);
      parts.push(...asked, ...notices);
      setText(notice, parts.join(" "));
      setHidden(notice, parts.length === 0);
    },
    choice: (compose) => announcer.choice(compose),
    later: (compose) => announcer.later(compose),
    get text() {
      return status.textContent;
    },
    destroy() {
      announcer.stop();
    },
  };
}
