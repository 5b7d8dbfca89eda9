/* "Compute it as FlashAttention does", inside "Show the math": the selected row again, keys in tiles.
 *
 *   .flash-controls    the tile size (a select, 4 to 64 keys) and First / Previous / Next / Last tile
 *   .flash-note        shown while a what-if or knockout is on: this part computes the model's own row
 *   .flash-step        the tile shown: its keys, then m (running maximum), ℓ (running sum of exp(s − m))
 *                      and the rescale factor exp(m_old − m_new); a skipped tile says the mask skips it
 *   .flash-acc         the running unnormalised output after that tile, d_k numbers (a strip)
 *   .flash-result      output = acc / ℓ beside the ordinary output, and their largest difference
 *   .flash-memory      the scores held: B instead of T for one query, B × B instead of T × T for the head
 *
 * createFlashSteps(container, {on: {change({step} | {tile, step}), read(text)}}) → {draw(props), clear(message), destroy()}
 *   change: the tile shown or the tile size asked for (the figure's view state, view-state.js: flash);
 *   read: each step's words (with props.announce), for the live region.
 *   props (each group optional: a group left out keeps what is drawn):
 *     flashed: the answer of Figure.flash: {steps: [{keys: [first, last], skipped: boolean, m, l, rescale:
 *              number, acc: Float32Array [d_k]}], output, reference_output: Float32Array [d_k], max_abs_diff,
 *              scores_held, scores_plain, tile, layer, head, token: number, memory: {query: {scores, bytes},
 *              head: {tile, scores, bytes}}, each pair [tiled, ordinary]}
 *     labels: string[T]; step: number (the tile shown, 0-based; clamped to the last); announce: boolean
 *              (say the step's words if it changed); whatIf: boolean (a what-if or knockout is on
 *              elsewhere in the figure: the note says this part ignores it)          (with flashed)
 *     enabled: boolean                             the tile size usable (false while the live model loads)
 * Every number comes from Python; this module formats and draws them. Left and Right (Home, End) on
 * the step's region move through the tiles too.
 */
import { element, setHidden, setText } from "../lib/dom.js";
import { fixed, listed, thousands } from "../draw/numbers.js";
import { paintStrip } from "../draw/strip.js";

export const TILE_SIZES = [4, 8, 16, 32, 64];
const kilobytes = (bytes) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

/** The words of one tile shown (`flashed`, `labels`, the tile's index `step`), shared with the tests:
 *  {title, lines: [m, ℓ, rescale] or the mask's sentence, acc (the strip's text alternative)}. */
export function stepText(flashed, labels, step) {
  const { steps, token } = flashed;
  const { keys: [first, last], skipped, m, l, rescale, acc } = steps[step];
  const span = first === last ? `key ${first + 1}, «${labels[first]}»` : `keys ${first + 1}–${last + 1}, «${labels[first]}» to «${labels[last]}»`;
  const title = `Tile ${step + 1} of ${steps.length}: ${span}.`;
  if (skipped) {
    return { title, lines: [`Skipped: every key of this tile comes after the query «${labels[token]}», so the causal mask hides them all; m, ℓ and the output stay as they were.`],
      acc: `Running output after tile ${step + 1}, unchanged: ${listed(acc)}` };
  }
  const lines = [
    `m = ${fixed(m)}: the largest scaled score q·k/√d_k so far.`,
    `ℓ = ${fixed(l)}: the running sum of exp(score − m).`,
    step === 0 ? "rescale = exp(m_old − m_new) = 0: nothing was summed before the first tile."
      : `rescale = exp(m_old − m_new) = ${fixed(rescale, 4)}: ℓ and the output so far were multiplied by it${rescale === 1 ? " (m did not change)" : ", since m grew"}.`,
  ];
  return { title, lines, acc: `Running output after tile ${step + 1} (not yet divided by ℓ): ${listed(acc)}` };
}

/** The closing words: {result: output = acc/ℓ against the ordinary output, memory: the scores held}. */
export function resultText(flashed) {
  const { tile, max_abs_diff: diff, memory: { query, head } } = flashed;
  const scores = (n) => `${thousands(n)} score${n === 1 ? "" : "s"}`;
  return {
    result: `output = acc / ℓ after the last tile. Largest difference from the ordinary output: ${diff.toExponential(1)} (float32 rounding: the same sum, taken tile by tile against a running maximum).`,
    memory: `Memory for this text, tiles of ${tile}: one query held ${scores(query.scores[0])} at a time (${kilobytes(query.bytes[0])}) `
      + `instead of T = ${scores(query.scores[1])} (${kilobytes(query.bytes[1])}); the whole head, in ${head.tile[0]} × ${head.tile[1]} tiles, `
      + `holds ${scores(head.scores[0])} (${kilobytes(head.bytes[0])}) instead of its T × T matrix, ${scores(head.scores[1])} (${kilobytes(head.bytes[1])}).`,
  };
}

export function createFlashSteps(container, { on }) {
  const { change: onChange, read: onRead } = on;
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const controls = element("div", "flash-controls");
  const sizeLabel = element("label", null, "Tile size ");
  const size = element("select");
  size.id = "flash-tile";
  for (const value of TILE_SIZES) size.append(new Option(`${value} keys`, String(value)));
  size.addEventListener("change", () => onChange({ tile: Number(size.value), step: 0 }), { signal });
  sizeLabel.append(size);
  const buttons = {};
  const nav = element("span", "flash-nav");
  nav.setAttribute("role", "group");
  nav.setAttribute("aria-label", "Step through the tiles");
  for (const [name, text] of [["first", "First tile"], ["previous", "Previous tile"], ["next", "Next tile"], ["last", "Last tile"]]) {
    const button = element("button", null, text);
    button.type = "button";
    button.dataset.go = name;
    nav.append(button);
    buttons[name] = button;
  }
  controls.append(sizeLabel, nav);
  const note = element("p", "flash-note", "What-ifs and knockouts do not apply here: this part computes the model's own row.");
  note.hidden = true;
  const stepBox = element("div", "flash-step");
  stepBox.tabIndex = 0;
  stepBox.setAttribute("role", "group");
  stepBox.setAttribute("aria-roledescription", "tile");
  const title = element("p", "flash-title");
  const lines = element("ul", "flash-lines");
  const accCanvas = element("canvas");
  accCanvas.setAttribute("role", "img");
  accCanvas.dataset.name = "acc";
  stepBox.append(title, lines, element("p", "gloss", "acc: the running output, Σ exp(score − m)·v over the keys so far"), accCanvas);
  const result = element("div", "flash-result");
  const flashCanvas = element("canvas");
  const plainCanvas = element("canvas");
  for (const [canvas, name] of [[flashCanvas, "flash-output"], [plainCanvas, "plain-output"]]) {
    canvas.setAttribute("role", "img");
    canvas.dataset.name = name;
  }
  const pair = element("div", "flash-pair");
  const labelled = (text, canvas) => { const figure = element("figure", "strip"); figure.append(element("figcaption", "gloss", text), canvas); return figure; };
  pair.append(labelled("output = acc / ℓ (tile by tile)", flashCanvas), labelled("output = Σ weight·v (the ordinary way)", plainCanvas));
  const resultLine = element("p");
  result.append(pair, resultLine);
  const memory = element("p", "flash-memory");
  const message = element("p", "panel-message");
  const content = element("div");
  content.append(note, controls, stepBox, result, memory);
  container.replaceChildren(message, content);

  let current = null; // { flashed, labels, step } drawn now

  function go(where) {
    if (!current) return;
    const last = current.flashed.steps.length - 1;
    const step = { first: 0, previous: current.step - 1, next: current.step + 1, last }[where];
    onChange({ step: Math.max(0, Math.min(last, step)) });
  }

  for (const button of Object.values(buttons)) button.addEventListener("click", () => go(button.dataset.go), { signal });
  stepBox.addEventListener("keydown", (event) => {
    const where = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" }[event.key];
    if (!where || !current) return;
    event.preventDefault();
    go(where);
  }, { signal });

  /** Show `text` instead of numbers (no tokens, or the live model still loading). */
  function clear(text) {
    current = null;
    setHidden(content, true);
    setText(message, text);
    setHidden(message, false);
  }

  /** Draw `props` (see above). */
  function draw(props) {
    if (props.enabled !== undefined) size.disabled = !props.enabled;
    if (props.flashed) drawStep(props.flashed, props.labels, props.step ?? 0, props.announce ?? false, props.whatIf ?? false);
  }

  /* Tile `step` of `flashed` for the tokens `labels`. */
  function drawStep(flashed, labels, step, announce, whatIf) {
    if (!(flashed.steps?.length > 0) || !Number.isInteger(step) || step < 0) {
      throw new RangeError(`flash steps: flashed.steps must hold a tile and step be a whole number ≥ 0, got ${flashed.steps?.length} tiles, step ${step}`);
    }
    setHidden(note, !whatIf);
    const clamped = Math.min(step, flashed.steps.length - 1);
    const moved = !current || current.step !== clamped || current.flashed !== flashed;
    current = { flashed, labels, step: clamped };
    setHidden(content, false);
    setHidden(message, true);
    if (size.value !== String(flashed.tile)) size.value = String(flashed.tile);
    const text = stepText(flashed, labels, clamped);
    setText(title, text.title);
    while (lines.children.length > text.lines.length) lines.lastChild.remove();
    text.lines.forEach((line, i) => setText(lines.children[i] ?? lines.appendChild(element("li")), line));
    stepBox.setAttribute("aria-label", `${text.title} Left and Right move through the tiles.`);
    const largest = (rows) => Math.max(...rows.map((row) => Math.max(...Array.from(row, Math.abs))));
    paintStrip(accCanvas, [flashed.steps[clamped].acc], largest(flashed.steps.map((s) => s.acc))); // one scale for every tile's acc
    accCanvas.setAttribute("aria-label", text.acc);
    const outputs = largest([flashed.output, flashed.reference_output]); // and one for the two outputs, side by side
    paintStrip(flashCanvas, [flashed.output], outputs);
    paintStrip(plainCanvas, [flashed.reference_output], outputs);
    flashCanvas.setAttribute("aria-label", `output, tile by tile: ${listed(flashed.output)}`);
    plainCanvas.setAttribute("aria-label", `output, the ordinary way: ${listed(flashed.reference_output)}`);
    const closing = resultText(flashed);
    setText(resultLine, closing.result);
    setText(memory, closing.memory);
    for (const [name, end] of [["first", 0], ["previous", 0], ["next", flashed.steps.length - 1], ["last", flashed.steps.length - 1]]) {
      buttons[name].setAttribute("aria-disabled", String(clamped === end)); // not disabled: a focused button keeps its focus
    }
    if (announce && moved) onRead(`${text.title} ${text.lines.join(" ")}`);
  }

  /** Remove every listener added here; empty the container. */
  function destroy() {
    listening.abort();
    current = null;
    container.replaceChildren();
  }

  clear("Waiting for the live model…");
  return { draw, clear, destroy };
}
