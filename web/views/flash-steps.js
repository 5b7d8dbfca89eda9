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
 * createFlashSteps(container, {on: {change({step} | {tile, step}), read(text)}, messages}) → {draw(props), clear(message), destroy()}
 *   change: the tile shown or the tile size asked for (the figure's view state, view-state.js: flash);
 *   read: each step's words (with props.announce), for the live region; messages: a function returning
 *   the figure's current Messages (i18n/messages.js), read at each draw (the controls' words are
 *   written once, when made).
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
import { exponential, fixed, listed, thousands } from "../draw/numbers.js";
import { paintStrip } from "../draw/strip.js";

export const TILE_SIZES = [4, 8, 16, 32, 64];
/* A size in bytes as the memory line writes it: "16 B", "2.3 KB". */
function bytesText(bytes, messages) {
  return bytes < 1024 ? messages.text("flash.bytes", { bytes }) : messages.text("flash.kilobytes", { kilobytes: messages.number(bytes / 1024, 1) });
}

/** The words of one tile shown (`flashed`, `labels`, the tile's index `step`) in the language of
 *  `messages`, shared with the tests: {title, lines: [m, ℓ, rescale] or the mask's sentence, acc (the
 *  strip's text alternative)}. */
export function stepText(flashed, labels, step, messages) {
  const { steps, token } = flashed;
  const { keys: [first, last], skipped, m, l, rescale, acc } = steps[step];
  const tile = { index: step + 1, count: steps.length };
  const title = first === last ? messages.text("flash.titleKey", { ...tile, key: first + 1, label: labels[first] })
    : messages.text("flash.titleKeys", { ...tile, first: first + 1, last: last + 1, firstLabel: labels[first], lastLabel: labels[last] });
  if (skipped) {
    return { title, lines: [messages.text("flash.skipped", { query: labels[token] })],
      acc: messages.text("flash.accUnchanged", { index: step + 1, numbers: listed(acc, messages) }) };
  }
  const lines = [
    messages.text("flash.m", { m: fixed(m, 3, messages) }),
    messages.text("flash.l", { l: fixed(l, 3, messages) }),
    step === 0 ? messages.text("flash.rescaleFirst", { rescale: 0 })
      : messages.text(rescale === 1 ? "flash.rescaleSame" : "flash.rescaleGrew", { rescale: fixed(rescale, 4, messages) }),
  ];
  return { title, lines, acc: messages.text("flash.acc", { index: step + 1, numbers: listed(acc, messages) }) };
}

/** The closing words in the language of `messages`: {result: output = acc/ℓ against the ordinary
 *  output, memory: the scores held}. */
export function resultText(flashed, messages) {
  const { tile, max_abs_diff: diff, memory: { query, head } } = flashed;
  const scores = (n) => messages.text("flash.scores", { count: n, scores: thousands(n, messages) });
  return {
    result: messages.text("flash.result", { difference: exponential(diff, 1, messages) }),
    memory: messages.text("flash.memory", { tile,
      queryScores: scores(query.scores[0]), queryBytes: bytesText(query.bytes[0], messages),
      rowScores: scores(query.scores[1]), rowBytes: bytesText(query.bytes[1], messages),
      tileRows: head.tile[0], tileColumns: head.tile[1],
      headScores: scores(head.scores[0]), headBytes: bytesText(head.bytes[0], messages),
      matrixScores: scores(head.scores[1]), matrixBytes: bytesText(head.bytes[1], messages) }),
  };
}

export function createFlashSteps(container, { on, messages }) {
  const { change: onChange, read: onRead } = on;
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const words = messages(); // the words written once, here
  const controls = element("div", "flash-controls");
  const sizeLabel = element("label", null, `${words.text("flash.tileSize")} `);
  const size = element("select");
  size.id = "flash-tile";
  for (const value of TILE_SIZES) size.append(new Option(words.text("flash.tileKeys", { count: value }), String(value)));
  size.addEventListener("change", () => onChange({ tile: Number(size.value), step: 0 }), { signal });
  sizeLabel.append(size);
  const buttons = {};
  const nav = element("span", "flash-nav");
  nav.setAttribute("role", "group");
  nav.setAttribute("aria-label", words.text("flash.nav"));
  for (const [name, key] of [["first", "flash.first"], ["previous", "flash.previous"], ["next", "flash.next"], ["last", "flash.last"]]) {
    const button = element("button", null, words.text(key));
    button.type = "button";
    button.dataset.go = name;
    nav.append(button);
    buttons[name] = button;
  }
  controls.append(sizeLabel, nav);
  const note = element("p", "flash-note", words.text("flash.note"));
  note.hidden = true;
  const stepBox = element("div", "flash-step");
  stepBox.tabIndex = 0;
  stepBox.setAttribute("role", "group");
  stepBox.setAttribute("aria-roledescription", words.text("flash.role"));
  const title = element("p", "flash-title");
  const lines = element("ul", "flash-lines");
  const accCanvas = element("canvas");
  accCanvas.setAttribute("role", "img");
  accCanvas.dataset.name = "acc";
  stepBox.append(title, lines, element("p", "gloss", words.text("flash.glossAcc")), accCanvas);
  const result = element("div", "flash-result");
  const flashCanvas = element("canvas");
  const plainCanvas = element("canvas");
  for (const [canvas, name] of [[flashCanvas, "flash-output"], [plainCanvas, "plain-output"]]) {
    canvas.setAttribute("role", "img");
    canvas.dataset.name = name;
  }
  const pair = element("div", "flash-pair");
  const labelled = (text, canvas) => { const figure = element("figure", "strip"); figure.append(element("figcaption", "gloss", text), canvas); return figure; };
  pair.append(labelled(words.text("flash.glossTiled"), flashCanvas), labelled(words.text("flash.glossPlain"), plainCanvas));
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
      throw new RangeError(`flash steps: flashed.steps must hold a tile and step be a whole number ≥ 0, got ${flashed.steps?.length} tiles, step ${step}`); // not shown
    }
    setHidden(note, !whatIf);
    const clamped = Math.min(step, flashed.steps.length - 1);
    const moved = !current || current.step !== clamped || current.flashed !== flashed;
    current = { flashed, labels, step: clamped };
    setHidden(content, false);
    setHidden(message, true);
    if (size.value !== String(flashed.tile)) size.value = String(flashed.tile);
    const words = messages();
    const text = stepText(flashed, labels, clamped, words);
    setText(title, text.title);
    while (lines.children.length > text.lines.length) lines.lastChild.remove();
    text.lines.forEach((line, i) => setText(lines.children[i] ?? lines.appendChild(element("li")), line));
    stepBox.setAttribute("aria-label", words.text("flash.stepName", { title: text.title }));
    const largest = (rows) => Math.max(...rows.map((row) => Math.max(...Array.from(row, Math.abs))));
    paintStrip(accCanvas, [flashed.steps[clamped].acc], largest(flashed.steps.map((s) => s.acc))); // one scale for every tile's acc
    accCanvas.setAttribute("aria-label", text.acc);
    const outputs = largest([flashed.output, flashed.reference_output]); // and one for the two outputs, side by side
    paintStrip(flashCanvas, [flashed.output], outputs);
    paintStrip(plainCanvas, [flashed.reference_output], outputs);
    flashCanvas.setAttribute("aria-label", words.text("flash.outputTiled", { numbers: listed(flashed.output, words) }));
    plainCanvas.setAttribute("aria-label", words.text("flash.outputPlain", { numbers: listed(flashed.reference_output, words) }));
    const closing = resultText(flashed, words);
    setText(resultLine, closing.result);
    setText(memory, closing.memory);
    for (const [name, end] of [["first", 0], ["previous", 0], ["next", flashed.steps.length - 1], ["last", flashed.steps.length - 1]]) {
      buttons[name].setAttribute("aria-disabled", String(clamped === end)); // not disabled: a focused button keeps its focus
    }
    if (announce && moved) onRead([text.title, ...text.lines].join(words.text("flash.sentenceSeparator")));
  }

  /** Remove every listener added here; empty the container. */
  function destroy() {
    listening.abort();
    current = null;
    container.replaceChildren();
  }

  clear(words.text("views.waiting"));
  return { draw, clear, destroy };
}
