/* The walk's bar (figure.html's #tour): the step's title ("step 3 of 9"), its sentence, and Back, Next and
 * "End the walk", plain buttons (Enter and Space work; Tab reaches them in that order). Back on the first
 * step and Next on the last are aria-disabled, not disabled, so that the focus stays on them. It draws what
 * it is handed (controllers/tour.js) and tells it the buttons pressed.
 */
import { setHidden, setText } from "../lib/dom.js";

/**
 * @param {Element} bar   the walk's section: #tour-title, #tour-say, #tour-back, #tour-next, #tour-end inside it
 * @param {{on: {back(), next(), end()}}} options
 * @returns {draw({on, title, text, ready, first, last}), focusNext(), holdsFocus(), destroy()}
 */
export function createTourBar(bar, { on }) {
  const find = (id) => bar.querySelector(`[id="${id}"]`);
  const [title, say, back, next, end] = ["tour-title", "tour-say", "tour-back", "tour-next", "tour-end"].map(find);
  const listening = new AbortController();
  const { signal } = listening;
  const press = (button, act) => button.addEventListener("click", () => { if (button.getAttribute("aria-disabled") !== "true") act(); }, { signal });
  press(back, on.back);
  press(next, on.next);
  press(end, on.end);

  return {
    /** The bar hidden (`on` false), or showing step `title` with `text` (`ready`: its numbers are in). */
    draw({ on: shown, title: heading = "", text = "", ready = false, first = false, last = false }) {
      setHidden(bar, !shown);
      if (!shown) return;
      setText(title, heading);
      setText(say, text);
      say.dataset.ready = String(ready);
      back.setAttribute("aria-disabled", String(first));
      next.setAttribute("aria-disabled", String(last));
    },
    focusNext() { next.focus({ preventScroll: true }); },
    /** Whether the focus is on one of the bar's buttons. */
    holdsFocus() { return [back, next, end].includes(bar.getRootNode().activeElement); },
    destroy() { listening.abort(); },
  };
}
