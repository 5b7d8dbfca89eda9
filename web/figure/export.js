/* Export: what the figure shows, as an SVG or a PNG file, for slides and handouts. Written from the view
 * state and the numbers the views draw (never from the page's pixels), with each view's own words
 * and geometry (views/), top to bottom:
 *
 *   caption     "Attention, live · 2-layer toy GPT · layer 2, head 3 · query «said» (token 8 of 16)",
 *               the checkpoint's line when "Watch it learn" shows one ("Training step 350 of 3,250 · …"),
 *               and the what-if banner's sentence when one is on
 *   chips       every token with its percentage and colour, masked ones hatched, the query outlined
 *   legend      the colour scale
 *   panels      those open on the page: all heads, the matrix, the math, the next token, attention
 *               stacked on attention
 *
 * Every word and number is written by the figure's Messages (i18n/messages.js), in its language: the
 * views' own words, and this file's (export.*), the file's name included.
 *
 * Labels are <text> in generic font families (sans-serif, monospace): no font files, no requests;
 * heatmaps and strips are PNG data inside the SVG. The PNG is that SVG drawn at twice its size (or
 * the screen's device pixel ratio, if larger), at most MAX_PNG_SIDE px on a side and MAX_PNG_PIXELS in
 * all: browsers refuse larger canvases (a phone at ratio 10 with every panel open asked for 38,000 px).
 */
import { MASKED_CSS, needsLightText, weightCss } from "../draw/colour.js";
import { paintHeatmap } from "../draw/heatmap.js";
import { glosses, mathText, stripsOf, tableHeads } from "../views/math-panel.js";
import { paintStrip, stripSize } from "../draw/strip.js";
import { ROW_LABELS, cellSize, describeRow, labelEvery } from "../views/matrix.js";
import { checkpointParams } from "../views/learn.js";
import { nextText } from "../views/next-token.js";
import { stackText } from "../views/stack-panel.js";
import { headOffset, keysSeen, percent, queryText } from "../draw/numbers.js";
import { whatIfText } from "../views/what-if-banner.js";
import { MONO, SANS, measure, pixelImage, svgDocument, tag, text, wrap } from "../lib/svg-writer.js";

const MARGIN = 16; // CSS px around the image
const INK = "#1d2330";
const MUTED = "#667085";
const QUERY = "#d97706";
const ACCENT = "rgb(37 99 235)";
const BORDER = "#d0d5dd";
const MIN_WIDTH = 600; // CSS px of the drawing: a figure narrower on screen (a phone) is drawn this wide
const CHIP_HEIGHT = 40;
const GAP = 5;
const MAX_PNG_SIDE = 8192; // device px
const MAX_PNG_PIXELS = 4096 * 4096;

/** Device px per CSS px for a PNG of a `width` × `height` CSS px drawing: `wanted`, or less so that
 *  the image stays within MAX_PNG_SIDE and MAX_PNG_PIXELS. */
export function pngScale(width, height, wanted) {
  return Math.min(wanted, MAX_PNG_SIDE / Math.max(width, height), Math.sqrt(MAX_PNG_PIXELS / (width * height)));
}

/* A section: its SVG and the height it takes, from a top edge `y`. */
const section = (svg, height) => ({ svg, height });

function caption(snapshot, width, messages) {
  const { result, state, config } = snapshot;
  const T = result.ids.length;
  const params = { layers: config.n_layer, layer: state.layer, head: state.head };
  const line = T === 0 ? messages.text("export.captionEmpty", params)
    : messages.text("export.caption", { ...params, query: queryText(result.labels, state.token, messages) });
  const lines = wrap(line, width, 15).map((words) => ({ words, colour: INK, weight: "bold" }));
  if (snapshot.checkpoint) {
    const [shown, last] = snapshot.checkpoint;
    const training = messages.text(shown.step === last.step ? "export.checkpointTrained" : "export.checkpoint", checkpointParams(shown, last, messages));
    lines.push(...wrap(training, width, 13).map((words) => ({ words, colour: INK, weight: "normal" })));
  }
  const whatIf = whatIfText(state, messages);
  if (whatIf) lines.push(...wrap(whatIf, width, 13).map((words) => ({ words, colour: "#7a2e0e", weight: "bold" })));
  return (y) => section(lines.map(({ words, colour, weight }, i) => text(MARGIN, y + 16 + i * 20, words, { size: i === 0 ? 15 : 13, fill: colour, "font-weight": weight })).join(""), lines.length * 20 + 8);
}

function chips(snapshot, width, messages) {
  const { result, state } = snapshot;
  const T = result.ids.length;
  return (top) => {
    if (T === 0) return section(text(MARGIN, top + 16, messages.text("export.noTokens"), { fill: MUTED, "font-style": "italic" }), 24);
    const { token } = state;
    const offset = headOffset(result, state.layer, state.head) + token * T;
    const causal = keysSeen(result, state, token) === token + 1;
    const reused = state.panels.math && result.cache ? result.cache.reused : 0; // as the page marks them
    const parts = [];
    let x = MARGIN;
    let y = top + 4;
    for (let j = 0; j < T; j++) {
      const label = result.labels[j];
      const w = Math.max(measure(label, 15, MONO) + 14, 46);
      if (x + w > MARGIN + width && x > MARGIN) {
        x = MARGIN;
        y += CHIP_HEIGHT + GAP;
      }
      const weight = j > token && causal ? null : result.attention[offset + j];
      const ink = weight === null ? "#98a2b3" : needsLightText(weight) ? "#fff" : "#111";
      parts.push(tag("rect", { x, y, width: w, height: CHIP_HEIGHT, rx: 5, fill: weight === null ? "url(#masked)" : weightCss(weight), stroke: BORDER, "stroke-dasharray": weight === null ? "3 2" : null }));
      parts.push(text(x + w / 2, y + 18, label, { size: 15, family: MONO, fill: ink, "text-anchor": "middle" }));
      if (weight !== null) parts.push(text(x + w / 2, y + 33, percent(weight, messages), { size: 11, fill: ink, "text-anchor": "middle" }));
      if (j < reused) parts.push(tag("rect", { x: x + 1, y: y + CHIP_HEIGHT - 4, width: w - 2, height: 3, fill: "#98a2b3" }));
      if (j === token) parts.push(tag("rect", { x: x - 3, y: y - 3, width: w + 6, height: CHIP_HEIGHT + 6, rx: 7, fill: "none", stroke: QUERY, "stroke-width": 2 }));
      x += w + GAP;
    }
    return section(parts.join(""), y + CHIP_HEIGHT + 4 - top);
  };
}

/* The legend, as the page's (colour.js drawLegend): its ends and the masked swatch placed after the
 * words as they measure (another language's may be longer). */
function legend(messages) {
  const [low, high, masked] = [messages.percent(0, 0), messages.percent(1, 0), messages.text("legend.masked")];
  const bar = MARGIN + Math.max(24, measure(low, 12) + 6);
  const swatch = bar + 150 + Math.max(46, measure(high, 12) + 12);
  return (y) => section([
    text(MARGIN, y + 14, low, { size: 12, fill: MUTED }),
    tag("rect", { x: bar, y: y + 4, width: 144, height: 12, fill: "url(#ramp)", stroke: "#98a2b3" }),
    text(bar + 150, y + 14, high, { size: 12, fill: MUTED }),
    tag("rect", { x: swatch, y: y + 4, width: 12, height: 12, fill: MASKED_CSS, stroke: "#98a2b3" }),
    text(swatch + 18, y + 14, masked, { size: 12, fill: MUTED }),
  ].join(""), 24);
}

function heading(title) {
  return (y) => section(tag("line", { x1: MARGIN, x2: "100%", y1: y + 6, y2: y + 6, stroke: "#e4e7ec" })
    + text(MARGIN, y + 26, title, { size: 14, "font-weight": "bold", fill: INK }), 36);
}

/* A T × T heatmap of one head, painted by the views' own heatmap.js on a canvas of its own. */
function heatmap(result, layer, head) {
  const canvas = document.createElement("canvas");
  paintHeatmap(canvas, result.attention, headOffset(result, layer, head), result.ids.length);
  return canvas;
}

function headsGrid(snapshot, width, messages) {
  const { result, state, config } = snapshot;
  const T = result.ids.length;
  const size = Math.min(104, Math.floor((width - (config.n_head - 1) * 8) / config.n_head));
  return (top) => {
    const parts = [];
    for (let layer = 1; layer <= config.n_layer; layer++) {
      for (let head = 1; head <= config.n_head; head++) {
        const x = MARGIN + (head - 1) * (size + 8);
        const y = top + (layer - 1) * (size + 24);
        if (T > 0) {
          parts.push(pixelImage(heatmap(result, layer, head), x, y, size, size));
          parts.push(tag("rect", { x, y: y + (state.token * size) / T, width: size, height: Math.max(size / T, 4), fill: "none", stroke: QUERY, "stroke-width": 2 }));
        }
        const selected = layer === state.layer && head === state.head;
        parts.push(tag("rect", { x: x - 2, y: y - 2, width: size + 4, height: size + 4, rx: 4, fill: "none", stroke: selected ? ACCENT : BORDER, "stroke-width": selected ? 3 : 1 }));
        parts.push(text(x + size / 2, y + size + 15, messages.text("heads.caption", { layer, head }), { size: 11, fill: INK, "text-anchor": "middle" }));
      }
    }
    return section(parts.join(""), config.n_layer * (size + 24));
  };
}

function matrix(snapshot, width, messages) {
  const { result, state } = snapshot;
  const T = result.ids.length;
  const cell = cellSize(T, width);
  const every = labelEvery(cell);
  const columns = 72; // CSS px of the column labels, as .matrix-cols
  return (top) => {
    if (T === 0) return section("", 0);
    const left = MARGIN + ROW_LABELS;
    const cells = top + columns;
    const parts = [pixelImage(heatmap(result, state.layer, state.head), left, cells, T * cell, T * cell)];
    for (let i = 0; i < T; i += every) {
      const middle = i * cell + cell / 2;
      const query = i === state.token ? { fill: QUERY, "font-weight": "bold" } : { fill: INK };
      parts.push(text(left - 4, cells + middle + 4, result.labels[i], { size: 11, family: MONO, "text-anchor": "end", ...query }));
      parts.push(text(left + middle + 4, cells - 4, result.labels[i], { size: 11, family: MONO, fill: INK, transform: `rotate(-90 ${left + middle + 4} ${cells - 4})` }));
    }
    parts.push(tag("rect", { x: left, y: cells + state.token * cell, width: T * cell, height: Math.max(cell, 2), fill: "none", stroke: QUERY, "stroke-width": 2 }));
    const lines = wrap(describeRow(result, state, state.token, messages), width, 13);
    lines.forEach((line, i) => parts.push(text(MARGIN, cells + T * cell + 20 + i * 18, line, { size: 13, fill: INK })));
    return section(parts.join(""), columns + T * cell + 10 + lines.length * 18);
  };
}

/* One strip of signed numbers (q, k, v or the output) with its gloss above it. */
function strip(rows, limit, gloss, x, y) {
  const canvas = document.createElement("canvas");
  paintStrip(canvas, rows, limit);
  const { width, height } = stripSize(rows);
  return { svg: text(x, y + 12, gloss, { size: 11, fill: MUTED }) + pixelImage(canvas, x, y + 18, width, height), width, height: 18 + height };
}

function math(snapshot, width, messages) {
  const { result, explained } = snapshot;
  return (top) => {
    if (!explained || explained.weights.length !== result.ids.length) return section(text(MARGIN, top + 14, messages.text("export.mathWaiting"), { size: 13, fill: MUTED }), 22);
    const words = mathText(explained, result.labels, result.cache, messages);
    const gloss = glosses(messages);
    const heads = tableHeads(messages);
    const parts = words.formula.map((line, i) => text(MARGIN, top + 14 + i * 18, line, { size: 13, family: MONO, fill: INK }));
    let y = top + words.formula.length * 18 + 6;
    const strips = stripsOf(explained);
    let x = MARGIN;
    let tallest = 0;
    for (const name of ["q", "k", "v"]) { // side by side, wrapped as the page wraps them
      const room = Math.max(stripSize(strips[name]).width, measure(gloss[name], 11));
      if (x > MARGIN && x + room > MARGIN + width) {
        x = MARGIN;
        y += tallest + 12;
        tallest = 0;
      }
      const drawn = strip(strips[name], strips.limit, gloss[name], x, y);
      parts.push(drawn.svg);
      x += room + 24;
      tallest = Math.max(tallest, drawn.height);
    }
    y += tallest + 12;
    const columns = [MARGIN, MARGIN + Math.min(220, width * 0.4)];
    columns.push(columns[1] + 90, columns[1] + 200, columns[1] + 290);
    const row = (cells, bold, colour) => cells.map((cell, c) => text(c === 0 ? columns[0] : columns[c + 1] - 8, y, cell,
      { size: 12, family: c === 0 ? MONO : SANS, fill: colour, "font-weight": bold ? "bold" : null, "text-anchor": c === 0 ? null : "end" })).join("");
    for (const line of wrap(words.caption, width, 12)) {
      parts.push(text(MARGIN, y + 12, line, { size: 12, fill: MUTED }));
      y += 16;
    }
    y += 16;
    parts.push(row(heads.columns, true, INK));
    for (const { cells, masked } of words.rows) {
      y += 17;
      parts.push(row(cells, false, masked ? MUTED : INK));
    }
    y += 19;
    parts.push(row([heads.sum, "", "", words.sum], true, INK));
    const output = strip(strips.output, strips.limit, gloss.output, MARGIN, y + 8);
    parts.push(output.svg);
    y += 8 + output.height + 18;
    for (const [sentence, size, fill] of [[words.output, 13, INK], [words.cache, 12, MUTED]]) {
      for (const line of wrap(sentence, width, size)) {
        parts.push(text(MARGIN, y, line, { size, fill }));
        y += size + 5;
      }
    }
    return section(parts.join(""), y - top);
  };
}

function nextToken(snapshot, width, messages) {
  const { result, predicted } = snapshot;
  return (top) => {
    if (!predicted || result.ids.length === 0) return section(text(MARGIN, top + 14, messages.text("export.nextWaiting"), { size: 13, fill: MUTED }), 22);
    const words = nextText(predicted, result.labels, messages);
    const parts = [text(MARGIN, top + 14, words.heading, { size: 13, fill: INK })];
    const bar = Math.max(40, Math.min(200, width - 330));
    words.candidates.forEach((candidate, i) => {
      const y = top + 24 + i * 20;
      parts.push(text(MARGIN, y + 12, messages.text("export.candidate", { rank: i + 1, label: candidate.label }), { size: 13, family: MONO, fill: INK }));
      parts.push(tag("rect", { x: MARGIN + 120, y: y + 2, width: bar, height: 12, rx: 2, fill: "#f2f4f7" }));
      parts.push(tag("rect", { x: MARGIN + 120, y: y + 2, width: bar * candidate.p, height: 12, rx: 2, fill: ACCENT }));
      parts.push(text(MARGIN + 130 + bar, y + 12, candidate.p_text, { size: 12, fill: INK }));
    });
    const y = top + 24 + words.candidates.length * 20 + 14;
    parts.push(text(MARGIN, y, words.actual, { size: 13, fill: INK }));
    return section(parts.join(""), y + 8 - top);
  };
}

/* "Attention stacked on attention" (views/stack-panel.js): its heading, then each of its rows as a line
 * of cells over the keys up to the query (label and share, coloured by the share), and its sentences. */
function stack(snapshot, width, messages) {
  const { result, stacked } = snapshot;
  return (top) => {
    if (!stacked || result.ids.length === 0) return section(text(MARGIN, top + 14, messages.text("export.stackWaiting"), { size: 13, fill: MUTED }), 22);
    const words = stackText(stacked, result.labels, messages);
    const parts = [text(MARGIN, top + 14, words.heading, { size: 13, fill: INK })];
    let y = top + 24;
    for (const row of words.rows) {
      parts.push(text(MARGIN, y + 12, row.name, { size: 12, "font-weight": "bold", fill: INK }));
      y += 18;
      let x = MARGIN;
      row.cells.forEach(({ label, weight, share }) => {
        const w = Math.max(measure(label, 12, MONO) + 10, 46);
        if (x + w > MARGIN + width && x > MARGIN) {
          x = MARGIN;
          y += 38;
        }
        const ink = needsLightText(weight) ? "#fff" : "#111";
        parts.push(tag("rect", { x, y, width: w, height: 34, rx: 4, fill: weightCss(weight), stroke: BORDER }));
        parts.push(text(x + w / 2, y + 14, label, { size: 12, family: MONO, fill: ink, "text-anchor": "middle" }));
        parts.push(text(x + w / 2, y + 28, share, { size: 11, fill: ink, "text-anchor": "middle" }));
        x += w + 4;
      });
      y += 42;
    }
    for (const line of [words.reach, words.caveat].flatMap((sentence) => wrap(sentence, width, 12))) {
      parts.push(text(MARGIN, y + 12, line, { size: 12, fill: INK }));
      y += 17;
    }
    return section(parts.join(""), y + 4 - top);
  };
}

/* The colour ramp as a gradient, and the hatching of masked chips. */
function definitions() {
  const stops = Array.from({ length: 11 }, (_, i) => tag("stop", { offset: `${i * 10}%`, "stop-color": weightCss(i / 10) })).join("");
  return tag("linearGradient", { id: "ramp" }, stops)
    + tag("pattern", { id: "masked", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      tag("rect", { width: 8, height: 8, fill: "#fff" }) + tag("rect", { width: 4, height: 8, fill: "#f2f4f7" }));
}

/** The SVG document (a string) of `snapshot`: {result, state, config, explained (Figure.explain's
 *  answer, or null), predicted (Figure.predict's, or null), stacked (Figure.rollout's, or null), checkpoint ([shown, last] of "Watch it
 *  learn", or null), width (CSS px of the figure on the page)}, in the words and numbers of `messages`
 *  (the figure's Messages, i18n/messages.js; default: the snapshot's `messages`, where it has them). */
export function figureSvg(snapshot, messages = snapshot.messages) {
  const { state } = snapshot;
  const width = Math.max(MIN_WIDTH, Math.round(snapshot.width)) - 2 * MARGIN; // the matrix (≤ 96 + 480 px) fits
  const sections = [caption(snapshot, width, messages), chips(snapshot, width, messages), legend(messages)];
  // each panel under its title on the page (the summaries' words: figure.html's, in the catalog)
  const panels = { heads: ["markup.heads", headsGrid], matrix: ["markup.matrix", matrix], math: ["markup.math", math], next: ["markup.next", nextToken],
    stack: ["markup.stack", stack] };
  for (const [name, [title, draw]] of Object.entries(panels)) {
    if (state.panels[name]) sections.push(heading(messages.text(title)), draw(snapshot, width, messages));
  }
  let y = MARGIN - 4;
  const body = sections.map((place) => {
    const { svg, height } = place(y);
    y += height + 8;
    return svg;
  }).join("");
  const T = snapshot.result.ids.length;
  const title = messages.text("export.title", { layer: state.layer, head: state.head });
  const description = T === 0 ? messages.text("export.noTokens")
    : messages.text("export.description", { count: T, row: describeRow(snapshot.result, state, state.token, messages) });
  return svgDocument(width + 2 * MARGIN, Math.ceil(y + MARGIN), title, description, definitions(), body);
}

/** The PNG of an SVG document `svg`, `wanted` device pixels per CSS px (capped: pngScale):
 *  {blob, scale}; `messages` (i18n/messages.js) words its error, which the figure's status shows. */
export async function svgToPng(svg, wanted, messages) {
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = pngScale(image.naturalWidth, image.naturalHeight, wanted);
    const canvas = document.createElement("canvas");
    canvas.width = Math.floor(image.naturalWidth * scale); // floor: never past the limits
    canvas.height = Math.floor(image.naturalHeight * scale);
    canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve, reject) => canvas.toBlob((png) => (png ? resolve(png) : reject(new Error(messages.text("export.pngFailed")))), "image/png"));
    return { blob, scale };
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** A short file-name slug of `text`: its first words, lower case, letters and digits joined by "-"
 *  (at most 40 characters; `none` when none are left). */
export function slug(text, none = "text") {
  const words = text.normalize("NFKD").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim().split(" ").filter(Boolean);
  let name = "";
  for (const word of words) {
    const longer = name ? `${name}-${word}` : word;
    if (longer.length > 40) break;
    name = longer;
  }
  return name || none;
}

/** The file of `snapshot` (see figureSvg) in `format` ("svg" or "png"), in the language of `messages`
 *  (the figure's Messages, i18n/messages.js: the image's words and numbers, and those of its name;
 *  default: the snapshot's `messages`):
 *  {file, note}; `file` a File (a Blob with a name such as "attention-live-then-the-queen-l2h3.png"),
 *  `note` "" or, for a PNG drawn at less than the scale it asked for, a sentence saying so. */
export async function exportFigure(snapshot, format, messages = snapshot.messages) {
  const svg = figureSvg(snapshot, messages);
  // the name's numbers in ASCII digits, whatever the language writes (a file name travels between systems)
  const { layer, head } = snapshot.state;
  const params = { text: slug(snapshot.result.text, messages.text("export.fileNoText")), layer: String(layer), head: String(head), format };
  const name = snapshot.checkpoint ? messages.text("export.fileNameStep", { ...params, step: String(snapshot.checkpoint[0].step) })
    : messages.text("export.fileName", params);
  if (format === "svg") return { file: new File([svg], name, { type: "image/svg+xml" }), note: "" };
  const wanted = Math.max(2, window.devicePixelRatio || 1);
  const { blob, scale } = await svgToPng(svg, wanted, messages);
  const note = scale < wanted ? messages.text("export.scaled", { scale: messages.number(scale, 1), wanted }) : "";
  return { file: new File([blob], name, { type: blob.type }), note };
}
