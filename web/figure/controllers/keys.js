/* The figure's keys stay in the figure (one feature of a figure: figure.js's controllers).
 *
 * A page may read every key typed anywhere on it: reveal.js (and Quarto's revealjs format, built on it)
 * listens to keydown on its document and lets a key through only when document.activeElement is an
 * input, a textarea or contenteditable. Inside an element's shadow root, document.activeElement is the
 * <attention-live> element itself, so without this every "h", "n", "f", "g", space or arrow typed into
 * the text box would also move the deck, make it fullscreen or open its jump-to-slide box. Each key
 * event (keydown, keypress, keyup) whose target is inside the figure goes no further than the figure's
 * root, in the bubbling phase: every handler of the figure's own (the chips' arrows, the matrix's, the
 * text box's undo) runs before, on its element inside; the page's bubbling handlers (on the host, the
 * document, the window) never see it. Keys typed outside the figure are untouched.
 *
 * Tab and Shift+Tab go on: they type nothing, and a page's focus trap (a dialog's) must still see them.
 */

const KEY_EVENTS = ["keydown", "keypress", "keyup"]; // not shown

/**
 * @param root the figure's element (its parts are inside it)
 * @returns {destroy()}
 */
export function createKeys(root) {
  const listening = new AbortController();
  const stay = (event) => {
    if (event.key === "Tab" && !event.ctrlKey && !event.altKey && !event.metaKey) return;
    event.stopPropagation();
  };
  for (const type of KEY_EVENTS) root.addEventListener(type, stay, { signal: listening.signal });
  return { destroy: () => listening.abort() };
}
