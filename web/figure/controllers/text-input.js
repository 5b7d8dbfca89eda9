/* The text box (one feature of a figure: figure.js's controllers): typing, pasting, dropping, and undo
 * and redo (undo.js: a typed run at a time, as in a plain text box). A paste or drop that would take
 * the box past BOX_MAX_CHARS (figure/text-box.js) is capped here: the browser would lay out all of it
 * (megabytes: one task of seconds) before any input event, so the figure inserts the capped text itself,
 * where the caret is, and goes on as the browser would have.
 */
import { BOX_MAX_CHARS } from "../text-box.js";
import { createUndo } from "./undo.js";

/**
 * @param figure  the core (figure.js): intoBox(text), typed(timeStamp) (a text put in the box), edited(timeStamp)
 *                (the box changed by the browser)
 * @param box     the figure's <textarea>
 * @returns {destroy()}
 */
export function createTextInput(figure, box) {
  const listening = new AbortController();
  const { signal } = listening;

  function insertCapped(event, data) {
    const added = data?.getData("text/plain") ?? "";
    const { value, selectionStart, selectionEnd } = box;
    if (value.length - (selectionEnd - selectionStart) + added.length <= BOX_MAX_CHARS) return; // the browser's own insertion
    event.preventDefault();
    const before = history.snapshot();
    figure.intoBox(value.slice(0, selectionStart) + added + value.slice(selectionEnd));
    const caret = Math.max(0, box.value.length - (value.length - selectionEnd)); // after the pasted text
    box.setSelectionRange(caret, caret);
    history.record(before, event.type === "paste" ? "insertFromPaste" : "insertFromDrop"); // not shown
    figure.typed(event.timeStamp);
  }

  box.addEventListener("paste", (event) => insertCapped(event, event.clipboardData), { signal });
  box.addEventListener("drop", (event) => insertCapped(event, event.dataTransfer), { signal });
  box.addEventListener("input", (event) => figure.edited(event.timeStamp), { signal });
  const history = createUndo(box, signal); // after the listener above: it records the box as the figure left it
  return { destroy: () => listening.abort() };
}
