/* "Predict, then look" (one feature of a figure: figure.js's controllers). With it on, the figure hides
 * the selected head's weights and asks "Which earlier token will «said» attend to most?"; the reader
 * answers with a click, or Enter on a chip; then everything is shown, with a sentence comparing the
 * guess with the most attended token, and the element fires attention-live:guess. A new query, head or
 * text asks again (the core's choose and typed: view-state.js askAgain). Predict–observe–explain:
 * White & Gunstone, "Probing Understanding" (1992), ch. 3.
 *
 * While it asks (view-state.js asking): the chips show no colour and no percentage and their names no
 * share (views/chips.js), the status line names the query and the head but no number, what is said
 * is the question, and the figure's root has data-predict="asking", under which figure.css hides the legend, the
 * panels and the Save buttons (their numbers), keeping their open/closed state for when it is answered.
 *
 *   attention-live:guess   bubbling, composed, on the element; detail = {layer, head (1-based), query,
 *                          guess, top (0-based token indices), guessShare, topShare (the attention
 *                          weights of guess and top, Python's float32 numbers), correct (guess === top),
 *                          step (the training step of the model asked: "Watch it learn"'s checkpoint,
 *                          or the shipped model's; null for a model without checkpoints)}
 */
import { setHidden, setText } from "../../lib/dom.js";
import { headOffset, keysSeen, percent, queryText } from "../../draw/numbers.js";
import { asking } from "../view-state.js";

/** The row of `state`'s head for its query in `result` (the keys it sees: 0..query, or every key with the
 *  causal mask's what-if on; Python's numbers) and the token it attends to most (the first of equal
 *  weights): {row, top}. */
export function attendedMost(result, state) {
  const T = result.ids.length;
  const row = result.attention.subarray(headOffset(result, state.layer, state.head) + state.token * T).subarray(0, keysSeen(result, state, state.token));
  let top = 0;
  for (let key = 1; key < row.length; key++) if (row[key] > row[top]) top = key;
  return { row, top };
}

/**
 * @param figure  the core (figure.js): viewState, result, messages, choose(patch), say(message), changed()
 * @param parts   {predict: the figure's predict part (a <p>): the question, then the answer; tokens: the
 *                chips' group, described by the question while it is shown (a screen reader reads it on
 *                entering the chips)}
 * @param host    the element the guess event is dispatched on
 * @returns {guess(index), prompt(), statusLine(), draw(state, root), destroy()}
 */
export function createPredict(figure, { predict: part, tokens }, host) {
  /* The question and how to answer it, as a function of the Messages: "Which earlier token will «said»
   * attend to most? Click it, or …". */
  const prompt = () => (messages) => {
    const { result } = figure;
    const state = figure.viewState.get();
    return `${messages.text("predict.question", { label: result.labels[state.token] })} ${messages.text("predict.how")}`;
  };

  /* The answer's sentence for the view state's guess, as a function of the Messages. */
  const answer = () => (messages) => {
    const { result } = figure;
    const state = figure.viewState.get();
    const { row, top } = attendedMost(result, state);
    const { guess } = state.predict;
    const params = { guess: result.labels[guess], guessShare: percent(row[guess], messages), top: result.labels[top], topShare: percent(row[top], messages) };
    const again = state.controls === "none" ? "" : ` ${messages.text("predict.again")}`; // a fixed figure: nothing to choose
    return `${messages.text(guess === top ? "predict.right" : "predict.wrong", params)}${again}`;
  };

  return {
    /** The reader answered with the chip of token `index` (0-based): a key the query sees is the
     *  question's range; a masked one (its chip aria-disabled) is no answer, and nothing happens. */
    guess(index) {
      const { result } = figure;
      const state = figure.viewState.get();
      if (!result?.attention) return;
      const { row, top } = attendedMost(result, state);
      if (index >= row.length) return;
      figure.viewState.update({ predict: { answered: true, guess: index } });
      figure.say(answer());
      host.dispatchEvent(new CustomEvent("attention-live:guess", { bubbles: true, composed: true,
        detail: { layer: state.layer, head: state.head, query: state.token, guess: index, top, guessShare: row[index], topShare: row[top], correct: index === top,
          step: result.step ?? figure.checkpoints.at(-1)?.step ?? null } }));
      figure.changed();
    },

    /** The question for the view on screen and how to answer it, as a function of the Messages (what is said). */
    prompt,

    /** The status line while it asks, as a function of the Messages: the query and the head, without a
     *  number of the weights ("Query «said» (token 8 of 16) · layer 2, head 3 · weights hidden until you answer"). */
    statusLine: () => (messages) => {
      const { result } = figure;
      const state = figure.viewState.get();
      return [messages.text("status.query", { query: queryText(result.labels, state.token, messages) }),
        messages.text("status.head", { layer: state.layer, head: state.head }), messages.text("predict.hidden")].join(messages.text("status.separator"));
    },

    /** The predict part and the root's data-predict for `state` and the result shown. */
    draw(state, root) {
      const { result } = figure;
      const shown = state.predict.on && Boolean(result?.attention) && result.ids.length > 0;
      const words = figure.messages;
      if (!shown) root.removeAttribute("data-predict");
      else root.dataset.predict = asking(state) ? "asking" : "answered";
      setHidden(part, !shown);
      if (shown) tokens.setAttribute("aria-describedby", part.id);
      else tokens.removeAttribute("aria-describedby");
      if (!shown) return;
      setText(part, asking(state) ? prompt()(words) : answer()(words));
    },

    destroy() {},
  };
}
