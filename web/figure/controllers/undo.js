/* The text box's undo and redo (for the text box's controller, text-input.js): Ctrl+Z, Ctrl+Shift+Z and
 * Ctrl+Y (⌘Z and ⌘⇧Z on a Mac), and the browser's own Undo and Redo (its menus: beforeinput's
 * historyUndo and historyRedo), take back and bring back what was typed as a plain text box does: a
 * typed run at a time, and the figure follows each (the box's input event, as after any edit).
 *
 * Why the figure keeps its own history: Chromium ends the typing run it would undo in one step
 * whenever a node is removed from the document (any node, anywhere: a chip drawn again, the status
 * line's or the live region's words replaced), and the figure redraws after every keystroke, so the
 * browser's own undo took back one character at a time (measured in Chromium 156: a plain textarea on
 * a page that sets some element's textContent after each keystroke does the same).
 *
 * The runs are those of a browser's text box (Chromium's): typed characters, line breaks and deletions
 * in a row make one step while the caret stays where the last one left it; a deletion after typed
 * characters starts a new step (typing after deletions goes on with theirs); the caret moved (arrow
 * keys, Home, End, a click) or the box left ends a step; a paste, a drop, a cut, a replacement from the
 * spelling menu and an input method's whole composition are a step each. A text put in the box by the
 * figure (setText, a link, an attribute, a host page's message) forgets the history, as a plain text
 * box does when a script sets its value. At most KEPT steps are kept. A read-only box has none.
 */

const KEPT = 100; // steps kept (each holds the box's text twice: at most 2 × BOX_MAX_CHARS characters)
const TYPING = { // the input types that make runs, and which side of a run each is on
  insertText: "insert", insertLineBreak: "insert", insertParagraph: "insert",
  deleteContentBackward: "delete", deleteContentForward: "delete", deleteWordBackward: "delete", deleteWordForward: "delete",
  deleteSoftLineBackward: "delete", deleteSoftLineForward: "delete", deleteHardLineBackward: "delete", deleteHardLineForward: "delete",
};
const MOVES = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]); // keys that move the caret
const MAC = /^(mac|iphone|ipad|ipod)/i.test(navigator.userAgentData?.platform ?? navigator.platform ?? ""); // ⌘, not Ctrl

/* "undo", "redo" or null: the command of a keydown. The letter as the keyboard's layout writes it,
 * or, on a layout without Latin letters, the key where Z or Y is on a US keyboard (as browsers do). */
function commandOf(event) {
  const modifier = MAC ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
  if (!modifier || event.altKey) return null;
  const letter = /^[a-z]$/i.test(event.key) ? event.key.toLowerCase() : { KeyZ: "z", KeyY: "y" }[event.code];
  if (letter === "z") return event.shiftKey ? "redo" : "undo";
  return letter === "y" && !MAC && !event.shiftKey ? "redo" : null;
}

/**
 * @param box    the figure's <textarea>
 * @param signal an AbortSignal: its listeners go when it aborts
 * @returns {snapshot(), record(before, inputType)}: for an edit the figure makes itself in place of the
 *          browser (a paste past the box's cap, text-input.js): the box as it is ({value, start, end,
 *          direction}), and that edit recorded from `before` (a snapshot) to the box as it is now
 */
export function createUndo(box, signal) {
  const done = []; // steps: {before, after, side ("insert", "delete" or null: a step of its own), open}
  const undone = [];
  const snapshot = () => ({ value: box.value, start: box.selectionStart, end: box.selectionEnd, direction: box.selectionDirection });
  let last = snapshot(); // the box as the history last saw it
  let before = null; // the box before the edit on its way (beforeinput)
  let composing = null; // the box before an input method's composition

  const close = () => { if (done.length) done.at(-1).open = false; };

  /* A text the figure put in the box since (its value is not the last one seen): the history goes. */
  function sync() {
    if (box.value === last.value) return;
    done.length = 0;
    undone.length = 0;
    last = snapshot();
  }

  function record(from, inputType) {
    const after = snapshot();
    last = after;
    if (after.value === from.value) return; // the selection only
    const side = TYPING[inputType] ?? null;
    const top = done.at(-1);
    const caretStayed = top && top.after.value === from.value && top.after.start === from.start && top.after.end === from.end;
    if (top?.open && side && caretStayed && !(side === "delete" && top.side === "insert")) {
      Object.assign(top, { after, side });
    } else {
      done.push({ before: from, after, side, open: side !== null });
      if (done.length > KEPT) done.shift();
    }
    undone.length = 0;
  }

  /* The box shows `state`, and the figure follows, as after any edit (text-input.js's input listener). */
  function show(state, inputType) {
    box.value = state.value;
    box.setSelectionRange(state.start, state.end, state.direction);
    last = snapshot();
    box.dispatchEvent(new InputEvent("input", { inputType, bubbles: true, composed: true }));
  }

  function undo() {
    sync();
    const step = done.pop();
    if (!step) return;
    close(); // typing after an undo starts a new step
    undone.push(step);
    show(step.before, "historyUndo");
  }

  function redo() {
    sync();
    const step = undone.pop();
    if (!step) return;
    step.open = false;
    done.push(step);
    show(step.after, "historyRedo");
  }

  const options = { signal };
  box.addEventListener("keydown", (event) => {
    if (MOVES.has(event.key)) close();
    const command = commandOf(event);
    if (!command || event.isComposing || box.readOnly || box.disabled) return;
    event.preventDefault(); // never the browser's own undo, which knows only its single characters
    if (command === "undo") undo();
    else redo();
  }, options);
  box.addEventListener("beforeinput", (event) => {
    if (event.inputType === "historyUndo" || event.inputType === "historyRedo") { // the browser's menus
      event.preventDefault();
      if (event.inputType === "historyUndo") undo();
      else redo();
      return;
    }
    sync();
    if (!event.isComposing) before = snapshot();
  }, options);
  box.addEventListener("input", (event) => {
    if (event.inputType === "historyUndo" || event.inputType === "historyRedo" || event.isComposing) return; // ours (show), or a composition on its way
    const from = before ?? last;
    before = null;
    record(from, event.inputType);
  }, options);
  box.addEventListener("compositionstart", () => {
    sync();
    composing = snapshot();
  }, options);
  box.addEventListener("compositionend", () => {
    if (composing) record(composing, "insertCompositionText");
    composing = null;
  }, options);
  box.addEventListener("pointerdown", close, options); // a click places the caret
  box.addEventListener("blur", close, options);
  return {
    snapshot() {
      sync();
      return snapshot();
    },
    record,
  };
}
