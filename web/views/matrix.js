/* The matrix: the selected head's whole T × T attention, large, with token labels on both axes.
 *
 *   .matrix-box (scrolls inside itself when wider than the page)
 *     .matrix-cols      column (key) labels, one every `every` tokens when they do not all fit
 *     .matrix-rows      row (query) labels, the same; clicking one makes that token the query
 *     .matrix-cells
 *       canvas#matrix   data-rows = data-cols = T; T × T pixels, one per cell, scaled up without
 *                       smoothing: cell (i, j) is row i, column j of a regular grid over the whole canvas
 *       .row-mark       outline of the query's row;  .cell-mark  outline of the cell under the pointer;
 *       .tile-mark      the keys of the tile "Compute it as FlashAttention does" shows, in the query's row
 *   p.matrix-readout    «query» → «key» and its percentage, for the cell pointed at (else the query's row)
 *   table               the text alternative: for each query, its three largest keys with percentages;
 *                       rewritten once the reader pauses (when-paused.js: its 128 rows would cost a
 *                       layout per keystroke), aria-busy="true" until then
 *
 * createMatrix(container, {on: {pick(index), read(text)}, messages}) → {draw(props), clear(message), destroy()}
 *   pick: a row (query, 0-based) clicked or moved to; read: each keyboard read-out, for the live region;
 *   messages: a function returning the figure's current Messages (i18n/messages.js), read at each draw
 *   (the table's column heads are written once, when made).
 *   props (each group optional: a group left out keeps what is drawn):
 *     result: {attention: Float32Array [n_layer × n_head × T × T] probabilities, shape: [n_layer, n_head,
 *             T, T], ids: number[T], labels: string[T], whatIf?, knockout?, precomputed?},
 *     state: {layer, head (1-based), token (0-based)}            the head and the query drawn
 *     tile: {token, first, last} | null                         keys outlined as FlashAttention's tile
 * Keyboard (the canvas is one tab stop): Up and Down move the query, Home and End to the first and
 * last token; Left and Right move the key read out (the box scrolls to it).
 */
import { firstChangedRow, paintHeatmap } from "../draw/heatmap.js";
import { element, setHidden, setText } from "../lib/dom.js";
import { whenPaused } from "../lib/when-paused.js";
import { headOffset, keysSeen, percent, strongestKeys } from "../draw/numbers.js";
import { attentionResult } from "../lib/check.js";

const MIN_CELL = 3; // CSS px: 128 tokens still readable
const MAX_CELL = 28;
const MAX_WIDTH = 480; // CSS px the cells fill at most
export const ROW_LABELS = 96; // CSS px of the row labels' column (style.css: .matrix-rows), left out when sizing the cells
const LABEL_PX = 13; // a label needs this much room; thinner cells label every k-th token

/** CSS px per cell for T tokens in a container `width` CSS px wide (row labels included). */
export function cellSize(T, width) {
  const room = Math.min(MAX_WIDTH, width - ROW_LABELS);
  return Math.min(MAX_CELL, Math.max(MIN_CELL, Math.floor(room / Math.max(T, 1))));
}

/** With cells `cell` CSS px wide, every how many tokens an axis has a label (each needs LABEL_PX). */
export function labelEvery(cell) {
  return Math.ceil(LABEL_PX / cell);
}

/* The keys query `query` weighs in the selected head of `state`: 0..query (all under the mask-off what-if). */
function rowOf(result, state, query) {
  const offset = headOffset(result, state.layer, state.head) + query * result.ids.length;
  return result.attention.subarray(offset, offset + keysSeen(result, state, query));
}

const ROW_MESSAGES = ["matrix.rowOne", "matrix.rowTwo", "matrix.rowThree"]; // by how many keys it names

/** One query's row in the words of `messages`: "«said» attends most to «Alice» 48.6%, then «and» 18.5%,
 *  «Queen» 15.5%." (at most three keys; fewer where the row has fewer). */
export function describeRow(result, state, query, messages) {
  const row = rowOf(result, state, query);
  const top = strongestKeys(row, 3);
  if (top.length === 0) return ""; // a query past the result's tokens, for a moment while a new text is on its way
  const params = { query: result.labels[query] };
  top.forEach((j, k) => Object.assign(params, { [`key${k + 1}`]: result.labels[j], [`percent${k + 1}`]: percent(row[j], messages) }));
  return messages.text(ROW_MESSAGES[top.length - 1], params);
}

export function createMatrix(container, { on, messages }) {
  const { pick: onPick, read: onRead } = on;
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const canvas = element("canvas");
  canvas.id = "matrix";
  canvas.tabIndex = 0;
  canvas.setAttribute("role", "img");
  const rowMark = element("span", "row-mark");
  const cellMark = element("span", "cell-mark");
  cellMark.hidden = true;
  const tileMark = element("span", "tile-mark");
  tileMark.hidden = true;
  const cells = element("div", "matrix-cells");
  cells.append(canvas, rowMark, tileMark, cellMark);
  const cols = element("div", "matrix-cols");
  const rows = element("div", "matrix-rows");
  const box = element("div", "matrix-box");
  box.append(element("span", "matrix-corner"), cols, rows, cells);
  const readout = element("p", "matrix-readout");
  readout.id = "matrix-readout";
  canvas.setAttribute("aria-describedby", readout.id);
  const table = element("table");
  table.id = "matrix-table";
  const hidden = element("div", "visually-hidden"); // a table ignores the 1-px box itself
  const caption = element("caption");
  const head = element("thead");
  head.append(element("tr"));
  const words = messages();
  for (const key of ["matrix.columnQuery", "matrix.columnFirst", "matrix.columnSecond", "matrix.columnThird"]) head.firstChild.append(element("th", null, words.text(key)));
  const body = element("tbody");
  table.append(caption, head, body);
  hidden.append(table);
  const message = element("p", "panel-message");
  container.replaceChildren(box, readout, hidden);

  let shown = { result: null, layer: 0, head: 0, width: 0 }; // what the canvas and the labels hold, at which width
  let current = null; // { result, state } of the last draw
  let marked = null; // the cell read out: { query, key, byKeyboard } (a keyboard mark follows the query), or null
  let tile = null; // the FlashAttention tile outlined: { token, first, last }, or null (markTile)

  function readCell(query, key) {
    const { result, state } = current;
    const words = messages();
    const params = { query: result.labels[query], key: result.labels[key] };
    if (key >= keysSeen(result, state, query)) return words.text("matrix.cellMasked", { ...params, percent: words.percent(0, 0) });
    return words.text("matrix.cell", { ...params, percent: percent(rowOf(result, state, query)[key], words) });
  }

  /* Outline the marked cell and read it out with the numbers drawn now (called on every draw, so a
   * resting pointer or keyboard mark never shows an earlier text's or head's number). */
  function showMark() {
    const T = current.result.ids.length;
    const query = Math.min(marked.byKeyboard ? current.state.token : marked.query, T - 1);
    const key = Math.min(marked.key, T - 1);
    Object.assign(cellMark.style, { top: `${(100 * query) / T}%`, left: `${(100 * key) / T}%`, width: `${100 / T}%`, height: `${100 / T}%` });
    cellMark.hidden = false;
    readout.textContent = readCell(query, key);
  }

  function markCell(query, key, byKeyboard = false) {
    marked = { query, key, byKeyboard };
    showMark();
  }

  function unmarkCell() {
    cellMark.hidden = true;
    marked = null;
    if (current && current.result.ids.length > 0) readout.textContent = describeRow(current.result, current.state, current.state.token, messages());
  }

  function cellAt(event) {
    const T = current.result.ids.length;
    const rect = canvas.getBoundingClientRect();
    const clamp = (v) => Math.min(T - 1, Math.max(0, Math.floor(v)));
    return [clamp(((event.clientY - rect.top) / rect.height) * T), clamp(((event.clientX - rect.left) / rect.width) * T)];
  }

  canvas.addEventListener("pointermove", (event) => { if (current?.result.ids.length) markCell(...cellAt(event)); }, { signal });
  canvas.addEventListener("pointerleave", unmarkCell, { signal });
  canvas.addEventListener("click", (event) => { if (current?.result.ids.length) onPick(cellAt(event)[0]); }, { signal });
  rows.addEventListener("click", (event) => {
    const label = event.target.closest("[data-index]");
    if (label) onPick(Number(label.dataset.index));
  }, { signal });
  canvas.addEventListener("keydown", (event) => {
    if (!current?.result.ids.length) return;
    const T = current.result.ids.length;
    const query = current.state.token;
    const moves = { ArrowUp: query - 1, ArrowDown: query + 1, Home: 0, End: T - 1 };
    if (event.key in moves) {
      event.preventDefault();
      onPick(Math.min(T - 1, Math.max(0, moves[event.key])));
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      const from = marked?.byKeyboard ? marked.key : query;
      markCell(query, Math.min(T - 1, Math.max(0, from + (event.key === "ArrowLeft" ? -1 : 1))), true);
      cellMark.scrollIntoView({ block: "nearest", inline: "nearest" }); // a long text's matrix scrolls in its box
      onRead(readout.textContent);
    }
  }, { signal });
  canvas.addEventListener("blur", unmarkCell, { signal });
  let width = 0; // the container's width in CSS px, as the ResizeObserver last reported it (read, not measured, per draw)
  const resizes = new ResizeObserver(([entry]) => {
    if (entry.contentRect.width === width) return;
    width = entry.contentRect.width;
    if (current && width > 0) paint(current.result, current.state);
  });
  resizes.observe(container);

  /* Row and column labels, one every `every` tokens; spans are reused, and each writes only what
   * changed (a new text, or a new place when the cell size changed): typing rewrites one or two. Each
   * axis keeps one record per label, {span, index (its token), place (CSS px along the axis)}. */
  const labels = { rows: [], cols: [] };

  function drawLabels(result, cell) {
    const T = result.ids.length;
    const every = labelEvery(cell);
    for (const [axis, records, along, across] of [[rows, labels.rows, "top", "height"], [cols, labels.cols, "left", "width"]]) {
      const count = Math.ceil(T / every);
      while (records.length > count) records.pop().span.remove();
      for (let k = 0; k < count; k++) {
        const i = k * every;
        records[k] ??= { span: axis.appendChild(element("span")), index: undefined, place: undefined };
        const record = records[k];
        const { span } = record;
        if (span.textContent !== result.labels[i]) span.textContent = result.labels[i];
        const place = i * cell + cell / 2 - LABEL_PX / 2; // centred on its own cell
        if (record.index === i && record.place === place) continue;
        Object.assign(record, { index: i, place });
        span.dataset.index = String(i);
        span.style[along] = `${place}px`;
        span.style[across] = `${LABEL_PX}px`;
      }
    }
  }

  let queryLabel = null; // the row label marked as the query's

  function markQueryLabel(token) {
    const label = labels.rows.find((record) => record.index === token)?.span ?? null;
    if (label === queryLabel) return;
    queryLabel?.classList.remove("query");
    label?.classList.add("query");
    queryLabel = label;
  }

  function drawTable(result, state) {
    const T = result.ids.length;
    const words = messages();
    setText(caption, words.text("matrix.tableCaption", { layer: state.layer, head: state.head }));
    while (body.rows.length > T) body.lastChild.remove();
    for (let i = 0; i < T; i++) {
      const tr = body.rows[i] ?? body.appendChild(element("tr"));
      while (tr.cells.length < 4) tr.append(element(tr.cells.length === 0 ? "th" : "td"));
      const row = rowOf(result, state, i);
      const top = strongestKeys(row, 3);
      setText(tr.cells[0], words.text("matrix.tableQuery", { label: result.labels[i], index: i + 1 }));
      for (let c = 0; c < 3; c++) {
        setText(tr.cells[c + 1], c < top.length ? words.text("matrix.tableKey", { label: result.labels[top[c]], percent: percent(row[top[c]], words) }) : "");
      }
    }
  }

  const tableWriter = whenPaused(table);

  function paint(result, state) {
    const T = result.ids.length;
    if (width === 0) width = container.clientWidth; // first drawn in a panel just opened
    const cell = cellSize(T, width);
    box.style.setProperty("--al-cells", `${T * cell}px`);
    canvas.dataset.rows = canvas.dataset.cols = String(T);
    if (T === 0) {
      canvas.width = canvas.height = 1;
      rows.replaceChildren();
      cols.replaceChildren();
      labels.rows.length = labels.cols.length = 0;
      queryLabel = null;
      body.replaceChildren();
      return;
    }
    const sameHead = state.layer === shown.layer && state.head === shown.head;
    const fromRow = sameHead ? firstChangedRow(shown.result, result) : 0;
    paintHeatmap(canvas, result.attention, headOffset(result, state.layer, state.head), T, fromRow);
    if (result !== shown.result || width !== shown.width) drawLabels(result, cell);
    tableWriter.later(() => drawTable(current.result, current.state));
    shown = { result, layer: state.layer, head: state.head, width };
  }

  /** Draw `props` (see above): the selected head of `result` with the query of `state` (repainted only
   *  when the result or the head changed, else the row outline moves), and the `tile`. */
  function draw(props) {
    if ("tile" in props) markTile(props.tile);
    if (props.result) drawHead(props.result, props.state);
  }

  function drawHead(result, state) {
    attentionResult("matrix", result);
    if (message.isConnected) container.replaceChildren(box, readout, hidden); // after clear()
    current = { result, state };
    placeTile();
    if (result !== shown.result || state.layer !== shown.layer || state.head !== shown.head) paint(result, state);
    const T = result.ids.length;
    const words = messages();
    setHidden(rowMark, T === 0);
    canvas.setAttribute("aria-label", T === 0 ? words.text("matrix.nameEmpty")
      : words.text("matrix.name", { layer: state.layer, head: state.head, count: T, query: result.labels[state.token] }));
    setHidden(box, T === 0);
    if (T === 0) {
      setHidden(cellMark, true);
      marked = null;
      readout.textContent = words.text("matrix.noTokens");
      return;
    }
    Object.assign(rowMark.style, { top: `${(100 * state.token) / T}%`, height: `${100 / T}%` });
    markQueryLabel(state.token);
    if (marked) showMark();
    else readout.textContent = describeRow(result, state, state.token, words);
  }

  /* Outline keys `tile.first`..`tile.last` of query `tile.token`'s row (a FlashAttention tile), or nothing for
   * null; kept, and placed again by each draw (a draw of a matrix out of view may come later: figure.js). */
  function markTile(next) {
    tile = next;
    placeTile();
  }

  function placeTile() {
    const T = current?.result.ids.length ?? 0;
    setHidden(tileMark, !tile || T === 0);
    if (tileMark.hidden) return;
    Object.assign(tileMark.style, { top: `${(100 * tile.token) / T}%`, height: `${100 / T}%`,
      left: `${(100 * tile.first) / T}%`, width: `${(100 * (tile.last - tile.first + 1)) / T}%` });
  }

  /** Show `text` instead of the matrix (the next draw of a result puts it back). */
  function clear(text) {
    tableWriter.nothingLater();
    message.textContent = text;
    container.replaceChildren(message);
  }

  /** Remove every listener added here, stop watching the container's size, drop the table's write
   *  waiting; empty the container. */
  function destroy() {
    listening.abort();
    resizes.disconnect();
    tableWriter.nothingLater();
    container.replaceChildren();
    current = null;
  }

  return { draw, clear, destroy };
}
