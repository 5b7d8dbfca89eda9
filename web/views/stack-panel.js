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
 *                          (fixed layout; the columns scrolled out of the box are written once the reader
 *                          pauses or scrolls, table[aria-busy="true"] meanwhile)
 *   p.stack-reach          the sentence: which typed token reaches the query most through layer 1
 *   p.stack-caveat         what rollout leaves out
 *
 * createStackPanel(container, {messages}) → {draw(props), clear(message), destroy()}
 *   props: {stacked: Figure.rollout's answer {direct [T], rollout [T], key_mix [T][T] | null (layers
 *           above 2), layer1_mix [T][T] | null, layer, head, token}, labels: string[T]}
 *   messages: a function returning the figure's current Messages (i18n/messages.js), read at each draw.
 */
import { needsLightText, weightClass } from "../draw/colour.js";
import { percent, queryText, strongestKeys } from "../draw/numbers.js";
import { element, setText } from "../lib/dom.js";
import { whenPaused } from "../lib/when-paused.js";

/* The key of `row` (numbers of keys 0..count-1) with the largest weight (the earlier among equals). */
function strongest(row, count) {
  return strongestKeys(Array.from(row).slice(0, count), 1)[0];
}

/** What each key of `stacked`'s layer is made of ([T][T]), or null in layer 1: Â₁ in layer 2, the
 *  product of the layers below above it (Figure.rollout sends layer 2's once, as layer1_mix). */
export function keyMix(stacked) {
  return stacked.layer === 1 ? null : stacked.key_mix ?? stacked.layer1_mix;
}

/* One row's cells over the keys up to `stacked`'s query: [{label, weight, share}]. */
function cellsOf(weights, stacked, labels, messages) {
  return Array.from({ length: stacked.token + 1 }, (_, j) => ({ label: labels[j], weight: weights[j], share: percent(weights[j], messages) }));
}

/** The key-mix row for key `key` (0-based): {name, cells}, or null in layer 1 (nothing below). */
export function keyMixRow(stacked, labels, messages, key) {
  const mix = keyMix(stacked);
  return mix && { name: messages.text("stack.keyMix", { label: labels[key] }), cells: cellsOf(mix[key], stacked, labels, messages) };
}

/** The panel's words and numbers for `stacked` (Figure.rollout's answer) over the tokens `labels`, in the
 *  language of `messages`, the key-mix row for key `key` (default: the head's strongest key; no such row
 *  in layer 1): {heading, rows: [{name, cells: [{label, weight, share}]}], reach, caveat}; shared by
 *  the panel and the image export (export.js). */
export function stackText(stacked, labels, messages, key = null) {
  const { layer, head, token } = stacked;
  const count = token + 1; // keys up to the query: the rest are masked, 0 in every row
  const below = layer > 1;
  const rows = [{ name: messages.text("stack.direct"), cells: cellsOf(stacked.direct, stacked, labels, messages) },
    { name: below ? messages.text("stack.rollout", { count: layer - 1, below: layer - 1 }) : messages.text("stack.rolloutLayer1"),
      cells: cellsOf(stacked.rollout, stacked, labels, messages) }];
  const mixed = keyMixRow(stacked, labels, messages, key ?? strongest(stacked.direct, count));
  if (mixed) rows.push(mixed);
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
  const labelRow = element("tr");
  labelRow.append(element("td"));
  head.append(labelRow);
  const body = element("tbody");
  const rows = ["stack-direct", "stack-rollout", "stack-keymix"].map((className) => {
    const row = element("tr", className);
    row.append(Object.assign(element("th"), { scope: "row" }));
    return row;
  });
  table.append(head, body);
  scroll.append(table);
  const reach = element("p", "stack-reach");
  const caveat = element("p", "stack-caveat");
  container.replaceChildren(heading, scroll, reach, caveat);
  let shown = null; // {stacked, labels} drawn
  let key = null; // the key whose make-up is shown (null: none, layer 1)
  let words = null; // the Messages the words were last written with

  /* Columns scrolled out of the box are written once the reader pauses or scrolls (the table says
   * aria-busy="true" meanwhile), as the math panel's rows out of its box are: at 128 tokens an append
   * shifts every column, and writing all 129 of them on each keystroke cost 50 ms at CPU ×4. */
  const later = whenPaused(table);
  scroll.addEventListener("scroll", () => later.now(), { signal, passive: true });

  /* [first, end) of the key columns the box shows now, give or take one (fixed layout: every column is as
   * wide as the first; the offset counts from the start edge, so right-to-left pages read the same). */
  function columnsInView(count) {
    const first = labelRow.cells[1];
    if (!first) return [0, count];
    const column = first.getBoundingClientRect().width + 3; // the table's border-spacing
    const names = labelRow.cells[0].getBoundingClientRect().width + 3;
    const offset = Math.abs(scroll.scrollLeft);
    return [Math.max(0, Math.floor((offset - names) / column) - 1), Math.min(count, Math.ceil((offset + scroll.clientWidth - names) / column) + 1)];
  }

  /* Each row as long as `count` keys (cells made or removed at the end), and the table as wide. */
  function setColumns(count) {
    const width = `calc(var(--al-stack-names) + ${count} * (var(--al-stack-column) + 3px) + 3px)`; // fixed layout needs the table's width
    if (table.style.width !== width) table.style.width = width; // not shown
    while (labelRow.cells.length > count + 1) labelRow.lastChild.remove();
    while (labelRow.cells.length < count + 1) {
      const button = element("button", "stack-key");
      button.type = "button";
      button.tabIndex = -1;
      button.dataset.key = String(labelRow.cells.length - 1);
      const th = element("th");
      th.scope = "col";
      th.append(button);
      labelRow.append(th);
    }
    for (const row of rows) {
      while (row.cells.length > count + 1) row.lastChild.remove();
      while (row.cells.length < count + 1) row.append(element("td", "stack-cell"));
    }
  }

  /* Write the cells of `row` (a tr of `rows`) for the keys from..to-1 of `cells`, each text and colour
   * class only where it changed. */
  function writeCells(row, cells, from, to) {
    for (let j = from; j < to; j++) {
      const cell = row.cells[j + 1];
      const { weight, share } = cells[j];
      setText(cell, share);
      const colour = `stack-cell ${weightClass(weight)}${needsLightText(weight) ? " light" : ""}`;
      if (cell.className !== colour) cell.className = colour;
    }
  }

  /* The key buttons of keys from..to-1: their labels and names. */
  function writeKeys(labels, from, to) {
    for (let j = from; j < to; j++) {
      const button = labelRow.cells[j + 1].firstChild;
      setText(button, labels[j]);
      if (button.title !== labels[j]) button.title = labels[j]; // the whole label, where the column cuts it
      const name = words.text("stack.keyButton", { label: labels[j], index: j + 1 });
      if (button.getAttribute("aria-label") !== name) button.setAttribute("aria-label", name);
    }
  }

  /* Keys from..to-1 of `text` (stackText's) in every row. */
  function writeColumns(text, labels, from, to) {
    writeKeys(labels, from, to);
    text.rows.forEach((row, i) => writeCells(rows[i], row.cells, from, to));
  }

  /* The key-mix row for key `j` (null: no such row, layer 1), whole, and the pressed key's button, the
   * one tab stop of the buttons (the first where no key is pressed). */
  function showKey(j, write = true) {
    key = j;
    if (j !== null && write) {
      const { name, cells } = keyMixRow(shown.stacked, shown.labels, words, j); // that row alone, on a pointer's move
      setText(rows[2].cells[0], name);
      writeCells(rows[2], cells, 0, cells.length);
    }
    const buttons = labelRow.querySelectorAll("button");
    buttons.forEach((button, index) => {
      const pressed = index === j;
      if (j === null) button.removeAttribute("aria-pressed");
      else if (button.getAttribute("aria-pressed") !== String(pressed)) button.setAttribute("aria-pressed", String(pressed));
      const stop = index === (j ?? 0) ? 0 : -1;
      if (button.tabIndex !== stop) button.tabIndex = stop;
    });
  }

  head.addEventListener("keydown", (event) => {
    const buttons = [...labelRow.querySelectorAll("button")];
    const at = buttons.indexOf(event.target);
    if (at < 0) return;
    const rtl = getComputedStyle(container).direction === "rtl";
    const moves = { ArrowLeft: rtl ? 1 : -1, ArrowRight: rtl ? -1 : 1, Home: -Infinity, End: Infinity };
    if (!(event.key in moves)) return;
    event.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, at + moves[event.key]))].focus();
  }, { signal });
  head.addEventListener("focusin", (event) => {
    if (shown && keyMix(shown.stacked) && event.target.dataset.key) showKey(Number(event.target.dataset.key));
  }, { signal });
  table.addEventListener("pointerover", (event) => {
    const cell = event.target.closest?.("td, th");
    if (!shown || !keyMix(shown.stacked) || !cell || !table.contains(cell) || cell.cellIndex < 1) return;
    if (cell.cellIndex - 1 !== key) showKey(cell.cellIndex - 1);
  }, { signal });

  /** Draw `props` (see above). */
  function draw({ stacked, labels }) {
    const now = messages();
    if (shown && shown.stacked === stacked && shown.labels === labels && words === now) return; // drawn already: a render of another part of the view
    const sameQuery = shown && shown.stacked.token === stacked.token && shown.stacked.layer === stacked.layer;
    words = now;
    shown = { stacked, labels };
    const count = stacked.token + 1;
    const below = Boolean(keyMix(stacked));
    const kept = below ? (sameQuery && key !== null && key < count ? key : strongest(stacked.direct, count)) : null;
    const text = stackText(stacked, labels, words, kept);
    setText(heading, text.heading);
    const region = words.text("stack.table");
    if (scroll.getAttribute("aria-label") !== region) scroll.setAttribute("aria-label", region);
    setColumns(count);
    text.rows.forEach((row, i) => setText(rows[i].cells[0], row.name));
    const wanted = below ? rows : rows.slice(0, 2);
    if (body.rows.length !== wanted.length) body.replaceChildren(...wanted);
    const [from, to] = columnsInView(count);
    writeColumns(text, labels, from, to);
    if (from > 0 || to < count) later.later(() => writeColumns(text, labels, 0, count));
    else later.nothingLater();
    showKey(kept, false); // its row's cells: written with the others
    setText(reach, text.reach);
    setText(caveat, text.caveat);
  }

  /** Show `text` instead of the numbers. */
  function clear(text) {
    later.nothingLater();
    shown = null;
    key = null;
    heading.textContent = text;
    body.replaceChildren();
    while (labelRow.cells.length > 1) labelRow.lastChild.remove();
    reach.textContent = "";
    caveat.textContent = "";
  }

  function destroy() {
    later.nothingLater();
    listening.abort();
    container.replaceChildren();
  }

  return { draw, clear, destroy };
}
