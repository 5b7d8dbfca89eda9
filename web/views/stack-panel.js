/* "Attention stacked on attention": what the selected query reaches in its head directly, what it
 * reaches in typed tokens once the layers below are counted (attention rollout), and what a key of
 * this layer is made of. Every number is Python's (Figure.rollout, py/attention_live/rollout.py).
 *
 *   p.stack-heading        "«said» (token 8 of 16) in layer 2, head 3"
 *   div.stack-scroll       role=region, a tab stop, scrolls sideways for long texts
 *     table.stack-table    one column per key up to the query, three rows:
 *       thead  th > button.stack-key   the key's label; pressed: the key whose make-up is shown
 *                                      (one tab stop, Left/Right/Home/End move, hovering a column shows it too)
 *       tr.stack-direct    the head's own row, as the chips show it
 *       tr.stack-rollout   through the layers below: the query's row of R = A · Â₁ (layer 1: the same row)
 *       tr.stack-keymix    what the key in focus is made of: row j of Â₁ (hidden in layer 1)
 *   p.stack-reach          the sentence: which typed token reaches the query most through layer 1
 *   p.stack-caveat         what rollout leaves out
 *
 * createStackPanel(container, {messages}) → {draw(props), clear(message), destroy()}
 *   props: {stacked: Figure.rollout's answer {direct [T], rollout [T], key_mix [T][T] | null,
 *           layer1_mix [T][T] | null, layer, head, token}, labels: string[T]}
 *   messages: a function returning the figure's current Messages (i18n/messages.js), read at each draw.
 */
import { needsLightText, weightCss } from "../draw/colour.js";
import { percent, queryText, strongestKeys } from "../draw/numbers.js";
import { element } from "../lib/dom.js";

/* The key of `row` (numbers of keys 0..count-1) with the largest weight (the earlier among equals). */
function strongest(row, count) {
  return strongestKeys(Array.from(row).slice(0, count), 1)[0];
}

/** The panel's words and numbers for `stacked` (Figure.rollout's answer) over the tokens `labels`, in the
 *  language of `messages`, the key-mix row for key `key` (default: the head's strongest key; no such row
 *  in layer 1): {heading, rows: [{name, cells: [{label, weight, share}]}], reach, caveat}; shared by
 *  the panel and the image export (export.js). */
export function stackText(stacked, labels, messages, key = null) {
  const { layer, head, token } = stacked;
  const count = token + 1; // keys up to the query: the rest are masked, 0 in every row
  const below = layer > 1;
  const cells = (weights) => Array.from({ length: count }, (_, j) => ({ label: labels[j], weight: weights[j], share: percent(weights[j], messages) }));
  const rows = [{ name: messages.text("stack.direct"), cells: cells(stacked.direct) },
    { name: below ? messages.text("stack.rollout", { count: layer - 1, below: layer - 1 }) : messages.text("stack.rolloutLayer1"), cells: cells(stacked.rollout) }];
  const shownKey = key ?? strongest(stacked.direct, count);
  if (below && stacked.key_mix) rows.push({ name: messages.text("stack.keyMix", { label: labels[shownKey] }), cells: cells(stacked.key_mix[shownKey]) });
  const top = strongest(stacked.rollout, count);
  return {
    heading: messages.text("stack.heading", { query: queryText(labels, token, messages), layer, head }),
    rows,
    reach: below ? messages.text("stack.reach", { query: labels[token], label: labels[top], share: percent(stacked.rollout[top], messages),
      direct: percent(stacked.direct[top], messages) }) : messages.text("stack.reachLayer1"),
    caveat: messages.text("stack.caveat"),
  };
}

export function createStackPanel(container, { messages }) {
  const listening = new AbortController();
  const { signal } = listening;
  const heading = element("p", "stack-heading");
  const scroll = element("div", "stack-scroll");
  scroll.tabIndex = 0; // a region that may scroll: reachable by keyboard (axe: scrollable-region-focusable)
  scroll.setAttribute("role", "region");
  const table = element("table", "stack-table");
  const head = element("thead");
  const body = element("tbody");
  table.append(head, body);
  scroll.append(table);
  const reach = element("p", "stack-reach");
  const caveat = element("p", "stack-caveat");
  container.replaceChildren(heading, scroll, reach, caveat);
  let shown = null; // {stacked, labels} drawn
  let key = null; // the key whose make-up is shown (null: the query's strongest key)
  let keyRow = null; // the key-mix row's cells, to redraw on a new key alone

  /* One row of the table: a th naming it and a td per key, coloured by its weight. */
  function tableRow(className, { name, cells }) {
    const row = element("tr", className);
    row.append(Object.assign(element("th", null, name), { scope: "row" }));
    for (const { weight, share } of cells) {
      const cell = element("td", "stack-cell", share);
      cell.style.backgroundColor = weightCss(weight); // not shown
      cell.classList.toggle("light", needsLightText(weight));
      row.append(cell);
    }
    return row;
  }

  function keyMixName(j) {
    return messages().text("stack.keyMix", { label: shown.labels[j] });
  }

  /* The key-mix row for key `j` (and the pressed key's button). */
  function showKey(j) {
    if (!shown?.stacked.key_mix || !keyRow) return;
    key = j;
    const words = messages();
    const mix = shown.stacked.key_mix[j];
    keyRow.cells[0].textContent = keyMixName(j);
    for (let i = 1; i < keyRow.cells.length; i++) {
      const weight = mix[i - 1];
      const cell = keyRow.cells[i];
      cell.textContent = percent(weight, words);
      cell.style.backgroundColor = weightCss(weight); // not shown
      cell.classList.toggle("light", needsLightText(weight));
    }
    for (const button of head.querySelectorAll("button")) {
      const pressed = Number(button.dataset.key) === j;
      button.setAttribute("aria-pressed", String(pressed));
      button.tabIndex = pressed ? 0 : -1;
    }
  }

  head.addEventListener("keydown", (event) => {
    const buttons = [...head.querySelectorAll("button")];
    const at = buttons.indexOf(event.target);
    if (at < 0) return;
    const rtl = getComputedStyle(container).direction === "rtl";
    const moves = { ArrowLeft: rtl ? 1 : -1, ArrowRight: rtl ? -1 : 1, Home: -Infinity, End: Infinity };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(buttons.length - 1, at + moves[event.key]));
    buttons[next].focus();
  }, { signal });
  head.addEventListener("focusin", (event) => { if (event.target.dataset.key) showKey(Number(event.target.dataset.key)); }, { signal });
  table.addEventListener("pointerover", (event) => {
    const cell = event.target.closest?.("td, th");
    if (!cell || !table.contains(cell) || cell.cellIndex < 1) return;
    showKey(cell.cellIndex - 1);
  }, { signal });

  /** Draw `props` (see above). */
  function draw({ stacked, labels }) {
    if (shown && shown.stacked === stacked && shown.labels === labels) return; // drawn already: a render of another part of the view
    const focusedKey = head.contains(container.getRootNode().activeElement) ? key : null; // kept on its like once drawn again
    const words = messages();
    const sameQuery = shown && shown.stacked.token === stacked.token && shown.labels.length === labels.length;
    shown = { stacked, labels };
    const { token } = stacked;
    const count = token + 1;
    const kept = sameQuery && key !== null && key < count ? key : null;
    const text = stackText(stacked, labels, words, kept);
    heading.textContent = text.heading;
    scroll.setAttribute("aria-label", words.text("stack.table"));
    const labelRow = element("tr");
    labelRow.append(element("td"));
    for (let j = 0; j < count; j++) {
      const button = element("button", "stack-key", labels[j]);
      button.type = "button";
      button.dataset.key = String(j);
      button.setAttribute("aria-label", words.text("stack.keyButton", { label: labels[j], index: j + 1 }));
      const th = element("th");
      th.scope = "col";
      th.append(button);
      labelRow.append(th);
    }
    head.replaceChildren(labelRow);
    const rows = text.rows.map((row, i) => tableRow(["stack-direct", "stack-rollout", "stack-keymix"][i], row));
    keyRow = rows[2] ?? null;
    body.replaceChildren(...rows);
    reach.textContent = text.reach;
    caveat.textContent = text.caveat;
    if (keyRow) showKey(kept ?? strongest(stacked.direct, count));
    if (focusedKey !== null) head.querySelector(`button[data-key="${Math.min(focusedKey, count - 1)}"]`)?.focus({ preventScroll: true });
    if (!keyRow) {
      key = null;
      const first = head.querySelector("button");
      if (first) first.tabIndex = 0;
      for (const button of head.querySelectorAll("button")) if (button !== first) button.tabIndex = -1;
    }
  }

  /** Show `text` instead of the numbers. */
  function clear(text) {
    shown = null;
    keyRow = null;
    heading.textContent = text;
    head.replaceChildren();
    body.replaceChildren();
    reach.textContent = "";
    caveat.textContent = "";
  }

  function destroy() {
    listening.abort();
    container.replaceChildren();
  }

  return { draw, clear, destroy, get key() { return key; } };
}
