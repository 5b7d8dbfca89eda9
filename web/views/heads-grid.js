/* The heads grid: every layer × head at once, each a small heatmap that is also a button.
 *
 *   #heads-grid
 *     button.thumb  data-layer="1" data-head="2" aria-pressed   (1-based, as labelled)
 *       canvas      one pixel per cell: row i = query i, column j = key j (colour.js; masked in grey);
 *                   block_size × block_size, of which its frame shows the top-left T × T
 *       span.row    outline of the selected query's row
 *       span.caption "layer 1 · head 2"
 *       span.focus  how focused the selected query's row is: "1.6 bits" and a bar, its length that
 *                   entropy's share of the most the row can have (spread evenly); hidden without numbers
 *
 * createHeadsGrid(container, {config: {n_layer, n_head, block_size}, on: {pick(layer, head)}, messages})
 *   → {draw(props), clear(message), destroy()}
 *   messages: a function returning the figure's current Messages (i18n/messages.js), read at each draw
 *   (the captions are written once, when made)
 *   props: {result: {attention: Float32Array [n_layer × n_head × T × T] probabilities, shape: [n_layer,
 *          n_head, T, T], ids: number[T], labels: string[T], entropy?: Float32Array [n_layer × n_head ×
 *          T] bits, entropyEven?: Float32Array [T] bits (Python's: focus.row_entropy, even_entropy),
 *          whatIf?, knockout?, precomputed?},
 *          state: {layer, head (1-based), token (0-based)}}
 * The canvases are repainted only when the result changes, from its first changed token on
 * (heatmap.js); a new selection only moves the outlines. Keyboard: one tab stop; arrow keys move
 * between heads (Left, Right) and layers (Up, Down), Home and End to the first and last; Enter or
 * Space selects.
 */
import { element, focusedIn, setHidden, setText } from "../lib/dom.js";
import { firstChangedRow, paintHeatmap } from "../draw/heatmap.js";
import { bitsText, entropyAt, headOffset, keysSeen, percent, strongestKeys } from "../draw/numbers.js";
import { attentionResult, wholeNumbers } from "../lib/check.js";

/* One head's thumbnail: its record {button, layer, head, canvas, rowMark}. */
function makeThumb(layer, head, onPick, signal, messages) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "thumb";
  button.dataset.layer = String(layer);
  button.dataset.head = String(head);
  const canvas = document.createElement("canvas");
  const row = document.createElement("span");
  row.className = "row";
  const frame = document.createElement("span");
  frame.className = "thumb-frame";
  frame.append(canvas, row);
  const caption = document.createElement("span");
  caption.className = "caption";
  caption.textContent = messages.text("heads.caption", { layer, head });
  caption.setAttribute("aria-hidden", "true"); // the button's aria-label says it, with the weights
  const focus = element("span", "focus");
  focus.setAttribute("aria-hidden", "true"); // likewise
  const bar = element("span", "focus-bar");
  const fill = element("span");
  bar.append(fill);
  const bits = element("span", "focus-bits");
  focus.append(bits, bar);
  button.append(frame, caption, " ", focus); // the space: the caption and the mark read as two words
  button.addEventListener("click", () => onPick(layer, head), { signal });
  return { button, layer, head, canvas, rowMark: row, focus: { mark: focus, fill, bits } };
}

export function createHeadsGrid(container, { config, on, messages }) {
  wholeNumbers("createHeadsGrid", "config", config, ["n_layer", "n_head", "block_size"]);
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const thumbs = []; // one record per head, layer by layer (makeThumb)
  const words = messages();
  for (let layer = 1; layer <= config.n_layer; layer++) {
    for (let head = 1; head <= config.n_head; head++) thumbs.push(makeThumb(layer, head, on.pick, signal, words));
  }
  const buttons = thumbs.map((thumb) => thumb.button);
  const message = element("p", "panel-message");
  container.style.setProperty("--al-heads", String(config.n_head));
  container.replaceChildren(...buttons);
  container.addEventListener("keydown", (event) => {
    const at = buttons.indexOf(focusedIn(container));
    if (at < 0) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -config.n_head, ArrowDown: config.n_head }[event.key];
    let next = step === undefined ? null : at + step;
    if (event.key === "Home") next = 0;
    if (event.key === "End") next = thumbs.length - 1;
    if (next === null) return;
    event.preventDefault();
    if (next >= 0 && next < thumbs.length) {
      for (const button of buttons) button.tabIndex = -1;
      buttons[next].tabIndex = 0;
      buttons[next].focus();
    }
  }, { signal });
  let painted = null; // the result whose numbers the canvases show

  /* Each canvas is block_size × block_size pixels for good (never resized while typing); its CSS
   * size is block_size / T times its frame's, so that the frame shows exactly its top-left T × T. */
  function paint(result) {
    const T = result.ids.length;
    const fromRow = firstChangedRow(painted, result);
    const scale = `${(100 * config.block_size) / Math.max(T, 1)}%`;
    for (const thumb of thumbs) {
      const { canvas } = thumb;
      setHidden(canvas, T === 0);
      canvas.style.width = canvas.style.height = scale;
      paintHeatmap(canvas, result.attention, headOffset(result, thumb.layer, thumb.head), T, fromRow, config.block_size);
    }
    painted = result;
  }

  /** Draw `result` (see above) with the selection of `state`; repaints only for a new result. */
  function draw({ result, state }) {
    attentionResult("heads grid", result); // not shown
    if (message.isConnected) container.replaceChildren(...buttons); // after clear()
    if (result !== painted) paint(result);
    const T = result.ids.length;
    const words = messages();
    const active = focusedIn(container);
    const focused = buttons.includes(active);
    for (const thumb of thumbs) {
      const { layer, head, button } = thumb;
      const selected = layer === state.layer && head === state.head;
      button.setAttribute("aria-pressed", String(selected));
      button.tabIndex = (focused ? button === active : selected) ? 0 : -1; // one tab stop: the focused or the selected head
      const row = thumb.rowMark;
      setHidden(row, T === 0);
      const entropy = T > 0 ? entropyAt(result, layer, head, state.token) : null;
      setHidden(thumb.focus.mark, entropy === null);
      // the name begins with what the button shows (its caption, then its focus mark), as WCAG 2.5.3 asks
      let label = words.text("heads.name", { layer, head });
      if (T > 0) {
        row.style.top = `${(100 * state.token) / T}%`;
        row.style.height = `${100 / T}%`;
        const offset = headOffset(result, layer, head) + state.token * T;
        const weights = result.attention.subarray(offset, offset + keysSeen(result, thumb, state.token));
        const [key] = strongestKeys(weights, 1);
        const strongest = { layer, head, query: result.labels[state.token], key: result.labels[key], percent: percent(weights[key], words) };
        label = words.text("heads.nameRow", strongest);
        if (entropy !== null) {
          const even = result.entropyEven[state.token];
          setText(thumb.focus.bits, bitsText(entropy, words));
          thumb.focus.fill.style.width = `${even > 0 ? (100 * entropy) / even : 0}%`;
          label = words.text("heads.nameFocus", { ...strongest, bits: bitsText(entropy, words), even: bitsText(even, words) });
        }
      }
      button.setAttribute("aria-label", label);
    }
  }

  /** Show `text` instead of the thumbnails (the next draw puts them back). */
  function clear(text) {
    message.textContent = text;
    container.replaceChildren(message);
  }

  /** Remove every listener added here; empty the container. */
  function destroy() {
    listening.abort();
    container.replaceChildren();
    painted = null;
  }

  return { draw, clear, destroy };
}
