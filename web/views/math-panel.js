/* "Show the math": one attention row of the selected head, step by step, with the model's numbers.
 *
 *   fieldset.what-ifs  two checkboxes: divide by √d_k, causal mask (unchecked = a what-if)
 *   .math-formula      Attention(Q, K, V) = softmax(QKᵀ / √d_k) V with this head's d_k and √d_k
 *   .math-strips       q (1 × d_k), keys and values (T × d_k each) as heatmaps of signed numbers
 *                      (colour.js's diverging scale); a cell's number is read out on hover or tap,
 *                      and by keyboard (each strip a tab stop, the arrow keys move a cell cursor)
 *   table.math-table   one row per key: token · q·k · ÷√d_k · weight; masked keys "−∞ → 0"
 *                      (in a box that scrolls: the rows it shows are written at once, the others once
 *                      the reader pauses or the box scrolls, aria-busy="true" until then: when-paused.js)
 *   .math-output       the output Σ weight·v (1 × d_k) and the key whose weighted value is largest
 *   .cache-line        what the KV cache did on the last edit (kv_cache.cache_summary): the rows and
 *                      query–key scores computed against a full recompute's
 *   .cache-growth      the T² hint: the scores a text twice as long would need
 *
 * createMathPanel(container, {on: {whatIf({scale} | {mask}), read(text)}}) → {draw(props), clear(message), destroy()}
 *   whatIf: a checkbox changed (false: that step left out); read: each keyboard read-out, for the live region.
 *   props (each group optional: a group left out keeps what is drawn):
 *     explained: the answer of Figure.explain: {q, output: Float32Array [d_k]; k, v: Float32Array[T] of
 *                [d_k] (an array of rows); scores, scaled (-Infinity where masked), weights,
 *                contributions: Float32Array [T]; weights_sum, sqrt_dk: number; dk, layer, head (1-based),
 *                token (0-based): number; scale, mask: boolean; knockout: [[layer, head], …]}
 *     labels: string[T]; cache: kv_cache.cache_summary {computed: [first, last] | null, reused, bytes,
 *                scores_per_head} | null                      (with explained)
 *     enabled: boolean                                    the what-ifs usable (false while the live model loads)
 * Every number comes from Python; this module only formats and draws them.
 */
import { element, setHidden, setText } from "../lib/dom.js";
import { fixed, listed, percent, strongestKeys, thousands } from "../draw/numbers.js";
import { paintStrip } from "../draw/strip.js";
import { whenPaused } from "../lib/when-paused.js";

/** The first and last index of `rows` (a table body's rows, top to bottom) that the scroll box `box`
 *  shows now, or null where it shows none (the box is not laid out: its panel closed, its content
 *  hidden). It reads the layout, so it is called before anything is written. */
function rowsInView(box, rows) {
  const view = box.getBoundingClientRect();
  if (view.height === 0 || rows.length === 0) return null;
  const firstEndingBelow = (y) => { // binary search: rows' bottoms grow down the table
    let [low, high] = [0, rows.length];
    while (low < high) {
      const middle = (low + high) >> 1;
      if (rows[middle].getBoundingClientRect().bottom <= y) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  return [firstEndingBelow(view.top), Math.min(rows.length - 1, firstEndingBelow(view.bottom))];
}

/** A box that scrolls its content (`className`), named `label`: a tab stop, so that a keyboard can scroll it. */
function scrollBox(className, label) {
  const box = element("div", className);
  box.tabIndex = 0;
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", label);
  return box;
}

/** What each strip is, in the chapter's words. */
export const GLOSSES = {
  q: "q: what the query token wants to know",
  k: "k: the label on each token's catalogue drawer",
  v: "v: what each token hands over if chosen",
  output: "output = Σ weight_j · v_j: the blend of values this head hands to the query",
};

/** The signed numbers the strips show, from `explained`: {q: [q], k, v (T rows each), output: [output],
 *  limit: the largest magnitude among them all (one scale for the four strips)}. */
export function stripsOf(explained) {
  let limit = 0;
  for (const row of [explained.q, ...explained.k, ...explained.v, explained.output]) {
    for (const x of row) limit = Math.max(limit, Math.abs(x));
  }
  return { q: [explained.q], k: explained.k, v: explained.v, output: [explained.output], limit };
}

/** The panel's words for `explained` (see above), the tokens `labels` and `cache`: {formula: [the
 *  formula, this head's sizes, the query], caption, rows: one per key {cells: [key, q·k, ÷√d_k,
 *  weight], masked}, sum, output, cache, strips: {q, k, v, output} text alternatives}; shared by the
 *  panel and the image export (export.js). */
export function mathText(explained, labels, cache) {
  const { dk, sqrt_dk: sqrtDk, token, layer, head, scale } = explained;
  const query = labels[token];
  const [top] = strongestKeys(explained.contributions, 1);
  return {
    formula: ["Attention(Q, K, V) = softmax(QKᵀ / √d_k) V", `layer ${layer}, head ${head}: d_k = ${dk}, √d_k = ${sqrtDk.toFixed(2)}`, `query «${query}»`],
    caption: `Query «${query}» (token ${token + 1}): each key's score q·k, the score divided by √d_k = ${sqrtDk.toFixed(2)}${scale ? "" : " (what-if: not divided)"}, and its weight after the softmax.`,
    rows: labels.map((label, j) => {
      const masked = explained.scaled[j] === -Infinity; // the mask: −∞ before the softmax
      return {
        masked,
        cells: [`«${label}»${j === token ? " (query)" : ""}`, fixed(explained.scores[j]),
          masked ? "−∞ (masked)" : fixed(explained.scaled[j]), masked ? "→ 0%" : percent(explained.weights[j])],
      };
    }),
    sum: percent(explained.weights_sum),
    output: `«${labels[top]}» contributed most: its weighted value is the longest (${percent(explained.weights[top])} of its v).`,
    cache: describeCache(cache),
    growth: describeGrowth(cache),
    strips: {
      q: `q of «${query}», ${dk} numbers: ${listed(explained.q)}`,
      k: `Keys of all ${labels.length} tokens, ${dk} numbers each (one row per token); the table below lists each key's score`,
      v: `Values of all ${labels.length} tokens, ${dk} numbers each (one row per token); the table below lists each key's score`,
      output: `output, ${dk} numbers: ${listed(explained.output)}`,
    },
  };
}

export function createMathPanel(container, { on }) {
  const { whatIf: onWhatIf, read: onRead } = on;
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const formula = element("p", "math-formula");
  const whatIfs = element("fieldset", "what-ifs");
  whatIfs.append(element("legend", null, "What-ifs, for this head only"));
  const boxes = {};
  for (const [name, text] of [["scale", "divide the scores by √d_k"], ["mask", "causal mask (later tokens hidden)"]]) {
    const label = element("label");
    const box = element("input");
    box.type = "checkbox";
    box.checked = true;
    box.id = `what-if-${name}`;
    box.addEventListener("change", () => onWhatIf({ [name]: box.checked }), { signal });
    label.append(box, ` ${text}`);
    whatIfs.append(label);
    boxes[name] = box;
  }
  const strips = scrollBox("math-strips", "q, k and v (scrolls)");
  const canvases = {};
  for (const name of ["q", "k", "v"]) {
    const figure = element("figure", "strip");
    const canvas = element("canvas");
    canvas.dataset.name = name;
    canvas.setAttribute("role", "img");
    figure.append(element("figcaption", "gloss", GLOSSES[name]), canvas);
    strips.append(figure);
    canvases[name] = canvas;
  }
  const readoutHelp = "Point at a cell of q, k or v, or focus a strip and use the arrow keys, to read its number.";
  const readout = element("p", "strip-readout", readoutHelp);
  readout.id = "strip-readout";
  const table = element("table", "math-table");
  const caption = element("caption");
  const head = element("thead");
  head.append(element("tr"));
  for (const name of ["key token", "q·k", "÷ √d_k", "weight"]) head.firstChild.append(element("th", null, name));
  const body = element("tbody");
  const foot = element("tfoot");
  const sum = element("td");
  foot.append(element("tr"));
  foot.firstChild.append(element("th", null, "sum"), element("td"), element("td"), sum);
  table.append(caption, head, body, foot);
  const tableBox = scrollBox("math-table-box", "Each key's score and weight (scrolls)");
  tableBox.append(table);
  const rowWriter = whenPaused(table);
  tableBox.addEventListener("scroll", rowWriter.now, { signal }); // printed, when-paused.js writes every row too
  const output = element("div", "math-output");
  const outputCanvas = element("canvas");
  outputCanvas.dataset.name = "output";
  outputCanvas.setAttribute("role", "img");
  const outputText = element("p");
  output.append(element("p", "gloss", GLOSSES.output), outputCanvas, outputText);
  const cacheLine = element("p", "cache-line");
  const growthLine = element("p", "cache-growth");
  const content = element("div");
  content.append(formula, strips, readout, tableBox, output, cacheLine, growthLine);
  const message = element("p", "panel-message");
  container.replaceChildren(whatIfs, message, content); // the what-ifs stay reachable with no numbers to show

  let current = null; // { explained, labels } drawn now, for the hover read-out

  /* The read-out: one cell's number, by pointer (hover, or a tap on a touch screen) or by keyboard
   * (each strip is a tab stop; the arrow keys move a cell cursor, Home and End along the row). */
  const cursor = { name: null, i: 0, j: 0 };
  const rowsOf = (name) => (name === "k" || name === "v" ? current.explained[name] : [current.explained[name]]);

  function readCell(name, i, j) {
    const rows = rowsOf(name);
    Object.assign(cursor, { name, i: Math.max(0, Math.min(rows.length - 1, i)), j: Math.max(0, Math.min(rows[0].length - 1, j)) });
    const who = name === "k" || name === "v" ? ` of «${current.labels[cursor.i]}»` : "";
    readout.textContent = `${name}${who}, component ${cursor.j + 1} of ${rows[0].length}: ${fixed(rows[cursor.i][cursor.j])}`;
  }

  function pointAt(event) {
    const canvas = event.target;
    if (!current) return;
    const rect = canvas.getBoundingClientRect();
    const rows = rowsOf(canvas.dataset.name);
    readCell(canvas.dataset.name, Math.floor(((event.clientY - rect.top) / rect.height) * rows.length),
      Math.floor(((event.clientX - rect.left) / rect.width) * rows[0].length));
  }

  function moveCursor(event) {
    const { name } = event.target.dataset;
    const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -Infinity], End: [0, Infinity] }[event.key];
    if (!current || !step) return;
    event.preventDefault();
    const at = cursor.name === name ? cursor : { i: 0, j: 0 };
    readCell(name, at.i + step[0], at.j + step[1]); // ±Infinity (Home, End) clamps to the row's ends
    onRead(readout.textContent);
  }

  for (const canvas of [...Object.values(canvases), outputCanvas]) {
    canvas.tabIndex = 0;
    canvas.setAttribute("aria-describedby", readout.id);
    canvas.addEventListener("pointermove", pointAt, { signal });
    canvas.addEventListener("pointerdown", pointAt, { signal });
    canvas.addEventListener("keydown", moveCursor, { signal });
    canvas.addEventListener("focus", () => { if (current && cursor.name !== canvas.dataset.name) readCell(canvas.dataset.name, 0, 0); }, { signal });
  }

  /** Show `text` instead of numbers (no tokens yet, or the live model still loading). */
  function clear(text) {
    current = null;
    cursor.name = null;
    readout.textContent = readoutHelp;
    setHidden(content, true);
    setText(message, text);
    setHidden(message, false);
  }

  /** Draw `props` (see above). */
  function draw(props) {
    if (props.enabled !== undefined) {
      for (const box of Object.values(boxes)) box.disabled = !props.enabled;
    }
    if (props.explained) drawExplained(props.explained, props.labels, props.cache);
  }

  /* `explained` for the tokens `labels`, with `cache` (kv_cache.cache_summary). */
  function drawExplained(explained, labels, cache) {
    if (explained.scores?.length !== labels?.length) {
      throw new TypeError(`math panel: explained has ${explained.scores?.length} scores for ${labels?.length} labels: they must agree`);
    }
    const inView = content.hidden ? null : rowsInView(tableBox, body.rows);
    current = { explained, labels };
    if (cursor.name) readCell(cursor.name, cursor.i, cursor.j); // the cell read out, with the numbers drawn now
    setHidden(content, false);
    setHidden(message, true);
    const text = mathText(explained, labels, cache);
    setText(formula, text.formula.join(" · "));
    boxes.scale.checked = explained.scale;
    boxes.mask.checked = explained.mask;
    const strips = stripsOf(explained);
    paintStrip(canvases.q, strips.q, strips.limit);
    paintStrip(canvases.k, strips.k, strips.limit);
    paintStrip(canvases.v, strips.v, strips.limit);
    paintStrip(outputCanvas, strips.output, strips.limit);
    for (const name of ["q", "k", "v"]) canvases[name].setAttribute("aria-label", text.strips[name]);
    outputCanvas.setAttribute("aria-label", text.strips.output);
    setText(caption, text.caption);
    while (body.rows.length > text.rows.length) body.lastChild.remove();
    const writeRow = (j) => {
      const tr = body.rows[j] ?? body.appendChild(element("tr"));
      while (tr.cells.length < 4) tr.append(element(tr.cells.length === 0 ? "th" : "td"));
      tr.classList.toggle("masked", text.rows[j].masked);
      text.rows[j].cells.forEach((cell, c) => setText(tr.cells[c], cell));
    };
    const [first, last] = inView ?? [0, text.rows.length - 1];
    const outOfView = [];
    text.rows.forEach((_, j) => (j < first || (j > last && j < body.rows.length) ? outOfView.push(j) : writeRow(j))); // new rows at once
    if (outOfView.length > 0) rowWriter.later(() => outOfView.forEach(writeRow));
    else rowWriter.nothingLater();
    setText(sum, text.sum);
    setText(outputText, text.output);
    setText(cacheLine, text.cache);
    setText(growthLine, text.growth);
  }

  /** Remove every listener added here and the rows waiting to be written; empty the container. */
  function destroy() {
    listening.abort();
    rowWriter.nothingLater();
    current = null;
    container.replaceChildren();
  }

  clear("Waiting for the live model…");
  return { draw, clear, destroy };
}

/** The KV cache line: what the last edit computed and reused, the query–key scores it computed against
 *  those a full recompute needs, and the memory held. */
function describeCache(cache) {
  if (!cache) return "";
  const [first, last] = cache.computed ?? [];
  const computed = !cache.computed ? "nothing computed" : first === last ? `computed row ${first}` : `computed rows ${first}–${last}`;
  return `KV cache: ${computed}; ${cache.reused} reused. This edit computed ${thousands(cache.scores_computed)} query–key scores; `
    + `recomputing the whole text would take ${thousands(cache.scores_full)} (${thousands(cache.scores_per_head)} per head, in each of the ${cache.heads} heads). `
    + `The cache holds ${(cache.bytes / 1024).toFixed(1)} KB (keys and values of every layer, float32).`;
}

/** The T² hint under it: a text twice as long needs about four times the scores. */
function describeGrowth(cache) {
  if (!cache || cache.tokens === 0) return "";
  return `Twice this text, ${thousands(cache.tokens_doubled)} tokens, would take ${thousands(cache.scores_full_doubled)} scores to recompute: `
    + "about four times as many, since every query is scored against every earlier key (T² grows fourfold when T doubles).";
}
