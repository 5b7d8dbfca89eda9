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
 * createMathPanel(container, {on: {whatIf({scale} | {mask}), read(text)}, messages}) → {draw(props), clear(message), destroy()}
 *   whatIf: a checkbox changed (false: that step left out); read: each keyboard read-out, for the live region;
 *   messages: a function returning the figure's current Messages (i18n/messages.js), read at each draw
 *   (the what-ifs, the glosses and the table's heads are written once, when made).
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

/** What each strip is, in the chapter's words, in those of `messages`: {q, k, v, output}. */
export function glosses(messages) {
  return { q: messages.text("math.glossQ"), k: messages.text("math.glossK"), v: messages.text("math.glossV"), output: messages.text("math.glossOutput") };
}

/** The table's column heads (key, q·k, ÷ √d_k, weight) and its foot's, in the words of `messages`;
 *  shared with the image export. */
export function tableHeads(messages) {
  return { columns: ["math.columnKey", "math.columnScore", "math.columnScaled", "math.columnWeight"].map((key) => messages.text(key)), sum: messages.text("math.sum") };
}

/** The signed numbers the strips show, from `explained`: {q: [q], k, v (T rows each), output: [output],
 *  limit: the largest magnitude among them all (one scale for the four strips)}. */
export function stripsOf(explained) {
  let limit = 0;
  for (const row of [explained.q, ...explained.k, ...explained.v, explained.output]) {
    for (const x of row) limit = Math.max(limit, Math.abs(x));
  }
  return { q: [explained.q], k: explained.k, v: explained.v, output: [explained.output], limit };
}

/** The panel's words for `explained` (see above), the tokens `labels` and `cache`, in the language of
 *  `messages`: {formula: [the formula, this head's sizes, the query], caption, rows: one per key
 *  {cells: [key, q·k, ÷√d_k, weight], masked}, sum, output, cache, strips: {q, k, v, output} text
 *  alternatives}; shared by the panel and the image export (export.js). */
export function mathText(explained, labels, cache, messages) {
  const { dk, sqrt_dk: sqrtDk, token, layer, head, scale } = explained;
  const query = labels[token];
  const [top] = strongestKeys(explained.contributions, 1);
  const root = messages.number(sqrtDk, 2);
  const masked = { scaled: messages.text("math.masked"), weight: messages.text("math.maskedWeight", { percent: messages.percent(0, 0) }) };
  return {
    formula: [messages.text("math.formula"), messages.text("math.sizes", { layer, head, dk, sqrtDk: root }), messages.text("math.query", { query })],
    caption: messages.text(scale ? "math.caption" : "math.captionNotDivided", { query, index: token + 1, sqrtDk: root }),
    rows: labels.map((label, j) => {
      const isMasked = explained.scaled[j] === -Infinity; // the mask: −∞ before the softmax
      return {
        masked: isMasked,
        cells: [messages.text(j === token ? "math.keyQuery" : "math.key", { label }), fixed(explained.scores[j], 3, messages),
          isMasked ? masked.scaled : fixed(explained.scaled[j], 3, messages), isMasked ? masked.weight : percent(explained.weights[j], messages)],
      };
    }),
    sum: percent(explained.weights_sum, messages),
    output: messages.text("math.output", { label: labels[top], percent: percent(explained.weights[top], messages) }),
    cache: describeCache(cache, messages),
    growth: describeGrowth(cache, messages),
    strips: {
      q: messages.text("math.stripQ", { query, dk, numbers: listed(explained.q, messages) }),
      k: messages.text("math.stripK", { count: labels.length, dk }),
      v: messages.text("math.stripV", { count: labels.length, dk }),
      output: messages.text("math.stripOutput", { dk, numbers: listed(explained.output, messages) }),
    },
  };
}

/* The read-out of one number of strip `name` (q, k, v, output): `label` the token of a row of k or v. */
const READ_MESSAGES = { q: "math.readQ", k: "math.readK", v: "math.readV", output: "math.readOutput" };

export function createMathPanel(container, { on, messages }) {
  const { whatIf: onWhatIf, read: onRead } = on;
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const words = messages(); // the words written once, here
  const formula = element("p", "math-formula");
  const whatIfs = element("fieldset", "what-ifs");
  whatIfs.append(element("legend", null, words.text("math.whatIfs")));
  const boxes = {};
  for (const [name, text] of [["scale", words.text("math.whatIfScale")], ["mask", words.text("math.whatIfMask")]]) {
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
  const strips = scrollBox("math-strips", words.text("math.stripsBox"));
  const gloss = glosses(words);
  const canvases = {};
  for (const name of ["q", "k", "v"]) {
    const figure = element("figure", "strip");
    const canvas = element("canvas");
    canvas.dataset.name = name;
    canvas.setAttribute("role", "img");
    figure.append(element("figcaption", "gloss", gloss[name]), canvas);
    strips.append(figure);
    canvases[name] = canvas;
  }
  const readout = element("p", "strip-readout", words.text("math.readoutHelp"));
  readout.id = "strip-readout";
  const table = element("table", "math-table");
  const caption = element("caption");
  const head = element("thead");
  head.append(element("tr"));
  const heads = tableHeads(words);
  for (const name of heads.columns) head.firstChild.append(element("th", null, name));
  const body = element("tbody");
  const foot = element("tfoot");
  const sum = element("td");
  foot.append(element("tr"));
  foot.firstChild.append(element("th", null, heads.sum), element("td"), element("td"), sum);
  table.append(caption, head, body, foot);
  const tableBox = scrollBox("math-table-box", words.text("math.tableBox"));
  tableBox.append(table);
  const rowWriter = whenPaused(table);
  tableBox.addEventListener("scroll", rowWriter.now, { signal }); // printed, when-paused.js writes every row too
  const output = element("div", "math-output");
  const outputCanvas = element("canvas");
  outputCanvas.dataset.name = "output";
  outputCanvas.setAttribute("role", "img");
  const outputText = element("p");
  output.append(element("p", "gloss", gloss.output), outputCanvas, outputText);
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
    const words = messages();
    readout.textContent = words.text(READ_MESSAGES[name], { label: current.labels[cursor.i], index: cursor.j + 1, count: rows[0].length,
      value: fixed(rows[cursor.i][cursor.j], 3, words) });
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
    readout.textContent = messages().text("math.readoutHelp");
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
      throw new TypeError(`math panel: explained has ${explained.scores?.length} scores for ${labels?.length} labels: they must agree`); // not shown
    }
    const inView = content.hidden ? null : rowsInView(tableBox, body.rows);
    current = { explained, labels };
    if (cursor.name) readCell(cursor.name, cursor.i, cursor.j); // the cell read out, with the numbers drawn now
    setHidden(content, false);
    setHidden(message, true);
    const text = mathText(explained, labels, cache, messages());
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

  clear(words.text("views.waiting"));
  return { draw, clear, destroy };
}

/** The KV cache line: what the last edit computed and reused, the query–key scores it computed against
 *  those a full recompute needs, and the memory held. */
function describeCache(cache, messages) {
  if (!cache) return "";
  const [first, last] = cache.computed ?? [];
  const key = !cache.computed ? "math.cacheNone" : first === last ? "math.cacheRow" : "math.cacheRows";
  return messages.text(key, { first, last, reused: cache.reused, computed: thousands(cache.scores_computed, messages),
    full: thousands(cache.scores_full, messages), perHead: thousands(cache.scores_per_head, messages), heads: cache.heads,
    kilobytes: messages.number(cache.bytes / 1024, 1) });
}

/** The T² hint under it: a text twice as long needs about four times the scores. */
function describeGrowth(cache, messages) {
  if (!cache || cache.tokens === 0) return "";
  return messages.text("math.growth", { tokens: thousands(cache.tokens_doubled, messages), scores: thousands(cache.scores_full_doubled, messages) });
}
