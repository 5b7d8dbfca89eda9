/* The status line, the notice and what a screen reader hears (one feature of a figure: figure.js's
 * controllers).
 *
 * The status line, under the controls, is for the eyes: the view on screen in one sentence, a loading
 * step, an error, or the answer to a button. The notice, above the chips, says what the figure changed
 * in what it was given. The live region (lib/announcer.js) is for the ears and is written rarely. This
 * controller is the only writer of the three; the core calls it.
 *
 * Their words are kept as what they mean (lib/shown.js: a message of the catalog and its params, or a
 * function of the figure's Messages) and written in the figure's language (options.messages(), read
 * each time) when shown; language() writes the line and the notice again in a new language.
 */
import { english } from "../../i18n/language.js";
import { createAnnouncer } from "../../lib/announcer.js";
import { setHidden, setText } from "../../lib/dom.js";
import { shown } from "../../lib/shown.js";
import { BOX_MAX_CHARS } from "../text-box.js";
import { bitsText, entropyAt, queryText } from "../../draw/numbers.js";

/** The parts of the view state that decide what the figure shows, as one string (the pointer's preview,
 *  the panels and the FlashAttention part's tile left out): equal strings, the same view. */
const viewOf = (state) => JSON.stringify([state.layer, state.head, state.token, state.whatIf, state.knockout]);

/** "focus 1.61 of 3.17 bits": the entropy of query `token`'s row in the selected head (Python's, with
 *  the analysis: focus.row_entropy), null where the result has none. */
function focusText(messages, result, state, token) {
  const bits = entropyAt(result, state.layer, state.head, token);
  if (bits === null) return null;
  return messages.text("status.focus", { bits: messages.number(Math.abs(bits), 2), of: bitsText(result.entropyEven[token], messages) });
}

/** The status line for the view on screen: the query, the head, its focus and where its numbers come
 *  from, each a phrase of its own, separated as the language separates them ("status.separator"). */
function viewText(messages, result, state, token, where) {
  const source = result.precomputed ? messages.text("status.precomputed")
    : messages.text("status.live", { where: messages.has(where) ? messages.text(where) : where });
  const parts = [messages.text("status.query", { query: queryText(result.labels, token, messages) }),
    messages.text("status.head", { layer: state.layer, head: state.head }), focusText(messages, result, state, token), source];
  return parts.filter((part) => part !== null).join(messages.text("status.separator"));
}

/** The notice's sentences for `result` and `given` (see notice below), as messages (lib/shown.js). */
function noticeMessages(result, { failed, boxCut, asked, notices }) {
  const parts = [];
  if (result?.precomputed && !result.tokensOnly) parts.push({ key: failed ? "notice.precomputedFailed" : "notice.precomputedLoading" });
  if (result?.charsDropped > 0) parts.push({ key: "notice.charsDropped", params: { count: Array.from(result.text).length } }); // code points, as Python counts
  if (result?.tokensDropped > 0) parts.push({ key: "notice.tokensDropped", params: { count: result.tokensDropped, shown: result.ids.length } });
  if (boxCut) parts.push({ key: "notice.boxCut", params: { count: BOX_MAX_CHARS } });
  return [...parts, ...asked, ...notices];
}

/**
 * @param {{status: Element, notice: Element, announcer: Element}} parts  the status line, the notice, the live region
 * @param {{where?: string, messages?: () => Messages}} options  where: the message key of where live numbers
 *   are computed ("markup.inThisTab"); messages: the Messages of the language shown (the core's
 *   figure.messages, read each time; English's where none is given)
 * @returns the status of one figure, where a `message` is what lib/shown.js writes ({key, params}, an
 *   Error, a function of the Messages, or a string, shown as it is):
 *   set(message)                  the status line says `message`;
 *   say(message, result, state)   the answer to a button (Copy link, Save): on the line and said; kept
 *                                 there while the text of `result` and the view of `state` are shown;
 *   again(message)                an error: on the line, and said even when it is the same as last time;
 *   view(result, state, token)    the line for the view on screen (unless an answer is kept there);
 *   notice(result, given)         the notice for `result` (null before the first is shown): see below;
 *   language()                    the line, the answer kept there and the notice written again in the
 *                                 figure's language (said again: nothing);
 *   choice(compose), later(compose)   say compose() now or once the reader pauses (lib/announcer.js);
 *   text                          what the line says now;
 *   destroy()                     drops a sentence waiting to be said.
 */
export function createStatus({ status, notice, announcer: region }, { where = "markup.inThisTab", messages = () => english } = {}) {
  const announcer = createAnnouncer(region);
  let spoken = null; // {message, shown, view}: an answer said, kept on the line while its text and view are shown
  let line = ""; // what the line says, as a message: written again on a change of language
  let noticeShown = []; // the notice's sentences, as messages
  const write = (message) => shown(messages(), message);

  function setLine(message) {
    line = message;
    setText(status, write(message));
  }

  return {
    set(message) {
      setLine(message);
    },
    say(message, result, state) {
      setLine(message);
      announcer.now(write(message));
      spoken = { message, shown: result?.text, view: viewOf(state) };
    },
    again(message) {
      setLine(message);
      announcer.again(write(message));
    },
    /* A token previewed by the pointer shows over a kept answer, which then comes back. */
    view(result, state, token) {
      if (spoken && (spoken.shown !== result.text || spoken.view !== viewOf(state))) spoken = null;
      if (spoken && state.preview === null) return setLine(spoken.message);
      setLine((messages) => viewText(messages, result, state, token, where));
    },
    /* What the figure changed in what it was given (`result`), and the sentences `given`: {failed (the
     * figure could not start), boxCut (the box kept only the end of a longer text), asked (what a
     * link could not give), notices (the figure's own, for as long as it lives)}: asked and notices as
     * messages (lib/shown.js: {key, params}, written when shown). */
    notice(result, given) {
      noticeShown = noticeMessages(result, given);
      setText(notice, noticeShown.map(write).join(" "));
      setHidden(notice, noticeShown.length === 0);
    },
    language() {
      setText(status, write(line));
      setText(notice, noticeShown.map(write).join(" "));
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
