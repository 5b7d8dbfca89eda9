/* The figure's API (one feature of a figure: figure.js's controllers): the methods of
 * window.attentionLive on the standalone page and of each <attention-live> element (docs/api.md),
 * with their argument checks. Every argument is checked before anything changes: a TypeError or a
 * RangeError leaves the view as it was. Their messages are for the page's programmer, in English, never
 * shown by the figure; an error of Python's answer is written in the figure's language, as the figure
 * would show it (lib/shown.js).
 */
import { afterPaint } from "../../lib/frames.js";
import { shown } from "../../lib/shown.js";
import { entropyAt, headOffset } from "../../draw/numbers.js";
import { PANEL_NAMES } from "../view-state.js";
import { CONTROLS } from "../url-state.js";

/* A value given to the API, as an error message shows it: NaN, Infinity, 2n as themselves, others as JSON. */
function describe(value) {
  if (typeof value === "bigint") return `${value}n (a BigInt, not a number)`; // not shown
  return typeof value === "number" || typeof value === "symbol" ? String(value) : JSON.stringify(value) ?? String(value);
}

/** The `options` object of the API method `method` (undefined: none); a TypeError naming its `fields`
 *  for anything but an object (a string, a number, an array, null). */
function optionsOf(options, method, fields) {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new TypeError(`${method} takes {${fields}}, got ${describe(options)}`); // not shown
  return options;
}

function checkedNumber(value, low, high, name) {
  if (!Number.isInteger(value) || value < low || value > high) {
    throw new RangeError(`${name} must be an integer from ${low} to ${high}, got ${describe(value)}`); // not shown
  }
  return value + 0; // + 0 turns -0 into 0
}

/**
 * @param figure  the core (figure.js): ready, viewState, result, config, build, runtime, boxText,
 *                textReplaced(), intoBox(text), submit(text, inputTime), allShown(), choose(patch),
 *                ask(kind, fields), image(format)
 * @returns the API object
 */
/* state()'s rollout and layer1_mix from Figure.rollout's answer (null: not in). */
function stackedState(stacked) {
  return { rollout: stacked ? Array.from(stacked.rollout) : null,
    layer1_mix: stacked?.layer1_mix ? Array.from(stacked.layer1_mix, (row) => Array.from(row)) : null };
}

/* The open panels of select's `panels`: a list of PANEL_NAMES, as an array or comma-separated (as the
 * attribute and the link write it), every other panel closed. RangeError naming an unknown one. */
function checkedPanels(panels) {
  const names = (Array.isArray(panels) ? panels : String(panels).split(",")).map((name) => String(name).trim()).filter(Boolean);
  const unknown = names.filter((name) => !PANEL_NAMES.includes(name));
  if (unknown.length) throw new RangeError(`panels: ${unknown.join(", ")} is not one of ${PANEL_NAMES.join(", ")}`); // not shown
  return Object.fromEntries(PANEL_NAMES.map((name) => [name, names.includes(name)]));
}

export function createApi(figure) {
  /* {layer, head, token} of `choice` checked against the model and the text shown once the figure is
   * ready (and the text on its way, if any, is shown); a field left out keeps the view's value. */
  async function checkedChoice(choice, needsTokens = false) {
    await figure.ready;
    await figure.allShown(); // choose among the tokens of a text on its way
    const { result, config } = figure;
    const T = result ? result.ids.length : 0;
    if (T === 0 && needsTokens) throw new RangeError("the text has no tokens"); // not shown
    const now = figure.viewState.get();
    const layer = checkedNumber(choice.layer ?? now.layer, 1, config.n_layer, "layer");
    const head = checkedNumber(choice.head ?? now.head, 1, config.n_head, "head");
    if (T === 0 && choice.token !== undefined) throw new RangeError("token: the text has no tokens to select"); // not shown
    const token = T === 0 ? 0 : checkedNumber(choice.token ?? now.token, 0, T - 1, "token");
    if (choice.predict !== undefined && typeof choice.predict !== "boolean") throw new TypeError(`predict must be true or false, got ${describe(choice.predict)}`); // not shown
    if (choice.controls !== undefined && !CONTROLS.includes(choice.controls)) throw new RangeError(`controls must be one of ${CONTROLS.join(", ")}, got ${describe(choice.controls)}`); // not shown
    return { layer, head, token, ...(choice.panels !== undefined && { panels: checkedPanels(choice.panels) }),
      ...(choice.step !== undefined && { learn: figure.learnAt(checkedStep(choice.step)) }),
      ...(choice.predict !== undefined && { predict: { on: choice.predict, answered: false, guess: null } }),
      ...(choice.controls !== undefined && { controls: choice.controls }) };
  }

  /* select({tourIndex}): the walk shown moves to that step (0-based), given alone; RangeError where no
   * walk is shown or the index is not one of its steps. Resolves once the step's text is shown. */
  async function moveTour(choice) {
    const others = Object.keys(choice).filter((name) => name !== "tourIndex" && choice[name] !== undefined);
    if (others.length) throw new TypeError(`tourIndex is given alone, got ${others.join(", ")} too`); // not shown
    await figure.ready;
    await figure.tourLoaded;
    const walk = figure.tour;
    if (walk === null) throw new RangeError("tourIndex: no walk is shown (tour attribute, or Walk through)"); // not shown
    await figure.tourTo(checkedNumber(choice.tourIndex, 0, walk.count - 1, "tourIndex"));
    await figure.allShown();
    await afterPaint();
  }

  /* select's `step`: a training step of the listed checkpoints, or null (the shipped model). */
  function checkedStep(step) {
    const steps = figure.checkpoints.map((checkpoint) => checkpoint.step);
    if (step === null || steps.includes(step)) return step;
    if (steps.length) throw new RangeError(`step must be one of the checkpoints' steps (${steps.join(", ")}) or null, got ${describe(step)}`); // not shown
    throw new RangeError(`step: this model has no checkpoints of its training, got ${describe(step)}`); // not shown
  }

  /* Python's answer of `kind` ("explain", "flash", "predict") for `fields`. A failure that names a message
   * of the catalog (lib/shown.js: the worker's) as an Error whose message is that message, in the
   * figure's language; Python's own words as they are. */
  async function ask(kind, fields) {
    try {
      return await figure.ask(kind, fields);
    } catch (error) {
      if (!error?.key) throw error;
      throw new Error(shown(figure.messages, error), { cause: error });
    }
  }

  /* The entropy (bits) of query `token`'s row in every head of `result`: [n_layer][n_head], or null. */
  function rowEntropy(result, token) {
    if (!result?.entropy || result.ids.length === 0) return null;
    const [layers, heads] = result.shape;
    return Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => entropyAt(result, l + 1, h + 1, token)));
  }

  return {
    /** A Promise: resolves when data-state becomes "ready", rejects on "error" (a retry makes a new one). */
    get ready() {
      return figure.ready;
    },
    /** Replace the text (line breaks normalised as the box does: see text-box.js); resolves once the
     *  figure shows its tokens and attention. */
    setText(text) {
      if (typeof text !== "string") return Promise.reject(new TypeError(`setText needs a string, got ${typeof text}`)); // not shown
      figure.textReplaced();
      return figure.submit(figure.intoBox(text), performance.now()); // timed from the call, as typing is from its input event
    },
    /** Choose the view: layer and head 1-based as labelled, token 0-based among the shown tokens,
     *  panels the open ones (an array or comma-separated list of heads, matrix, math, next, stack), step the
     *  training step of a checkpoint (checkpoints(); null: the shipped model), predict true to hide the
     *  weights until the reader answers "Which earlier token will … attend to most?" (false: off),
     *  controls "all", "view" (the text read-only) or "none" (the view as given); a field left out keeps
     *  its value at the time the figure is ready. All fields are checked before any changes: a
     *  RangeError leaves the view as it was. tourIndex (0-based), given alone, moves the walk shown to
     *  that step (RangeError where no walk is shown or it has no such step). */
    async select(choice = {}) {
      if (choice?.tourIndex !== undefined) return moveTour(choice);
      figure.choose(await checkedChoice(choice));
      await figure.allShown(); // a what-if on a newly selected head
      await afterPaint();
    },
    /** The checkpoints of the model's training run that step can show: resolves to [{step, validation}]
     *  (validation: the whole validation split's loss, nats per token) in training order, the last
     *  being the shipped model; [] for a model without them. */
    async checkpoints() {
      if (figure.manifest === null) await figure.ready;
      return figure.checkpoints.map(({ step, validation }) => ({ step, validation }));
    },
    /** The math of one attention row (Figure.explain): layer and head 1-based, token 0-based (each
     *  defaults to the view's), scale and mask true unless a what-if leaves that step out. Resolves to
     *  {layer, head, token, dk, sqrt_dk, scale, mask, q, k, v, scores, scaled, weights, weights_sum,
     *  output, contributions, knockout}; rejects with a RangeError for a bad choice. */
    async explain(options) {
      const { layer, head, token, scale = true, mask = true } = optionsOf(options, "explain", "layer, head, token, scale, mask");
      const choice = await checkedChoice({ layer, head, token }, true);
      if (typeof scale !== "boolean" || typeof mask !== "boolean") throw new TypeError("scale and mask must be true or false"); // not shown
      const answer = await ask("explain", { ...choice, scale, mask, knockout: [] });
      const list = (values) => Array.from(values, (x) => (x === -Infinity ? null : x)); // null: masked
      const plain = Object.fromEntries(Object.entries(answer).map(([name, value]) => [name, ArrayBuffer.isView(value) ? list(value) : value]));
      return { ...plain, k: answer.k.map(list), v: answer.v.map(list) };
    },
    /** The selected row computed as FlashAttention does (Figure.flash): keys in tiles of `tile` (1 to
     *  block_size), layer and head 1-based, token 0-based (each defaults to the view's). Resolves to
     *  {layer, head, token, tile, steps: [{keys: [first, last], skipped, m, l, rescale, acc}], output,
     *  reference_output, max_abs_diff, scores_held, scores_plain, memory}; rejects with a RangeError
     *  for a bad choice or tile size. */
    async flash(options) {
      const { layer, head, token, tile = 16 } = optionsOf(options, "flash", "layer, head, token, tile");
      const choice = await checkedChoice({ layer, head, token }, true);
      checkedNumber(tile, 1, figure.config.block_size, "tile");
      const answer = await ask("flash", { ...choice, tile });
      return { ...answer, output: Array.from(answer.output), reference_output: Array.from(answer.reference_output),
        steps: answer.steps.map((step) => ({ ...step, acc: Array.from(step.acc) })) };
    },
    /** The next token after `token` (Figure.predict): {token, candidates: [{id, label, p}], next:
     *  {id, label, p, rank} | null, knockout}; `knockout` lists {layer, head} to knock out (then each
     *  candidate also has p_intact and delta). */
    async predict(options) {
      const { token, top = 5, knockout = [] } = optionsOf(options, "predict", "token, top, knockout");
      const choice = await checkedChoice({ token }, true);
      const { config } = figure;
      checkedNumber(top, 1, config.vocab_size, "top");
      if (!Array.isArray(knockout)) throw new TypeError("knockout must be a list of {layer, head}"); // not shown
      // Array.from visits holes too
      const pairs = Array.from(knockout, (pair) => [checkedNumber(pair?.layer, 1, config.n_layer, "knockout layer"), // not shown
        checkedNumber(pair?.head, 1, config.n_head, "knockout head")]); // not shown
      const answer = await ask("predict", { token: choice.token, top, knockout: pairs });
      return { ...answer, knockout: answer.knockout.map(([l, h]) => ({ layer: l, head: h })) };
    },
    /** An image of what the figure shows (export.js): the chips, the legend and the open panels, with a
     *  caption naming the model, layer, head and query; `format` "svg" or "png" (twice the CSS pixel
     *  size, or the device pixel ratio if larger, within the canvas limits of export.js's pngScale).
     *  Resolves to a File (a Blob with a name such as
     *  "attention-live-then-the-queen-l2h3.svg") once the text on its way, if any, is shown. */
    async exportImage(options = {}) {
      if (options === null || typeof options !== "object") throw new TypeError(`exportImage takes {format: "svg" | "png"}, got ${describe(options)}`); // not shown
      const { format = "png" } = options;
      if (format !== "svg" && format !== "png") throw new TypeError(`format must be "svg" or "png", got ${describe(format)}`); // not shown
      return (await figure.image(format)).file;
    },
    /** The view on screen: weights is the selected attention row (probabilities of keys 0..T-1, the
     *  what-if row while one is on); matrix the selected head's T × T rows as drawn (row i: query i's
     *  probabilities, 0 after i); panels which views below the chips are open; whatIf and knockout the
     *  what-ifs on; reused how many positions' keys and values came from the KV cache on the last
     *  update; build the id of the build running (build.json's "build"), null until it has arrived;
     *  runtime the Python serving the figure ({id, kind: "shared" | "dedicated", snapshot: "stored" |
     *  "downloaded" | "none", figures}), null until it runs; step the training step of the checkpoint
     *  shown (the shipped model's own when it is listed, else null); row_entropy the entropy in bits of
     *  the selected query's row in each head, [n_layer][n_head] (0: all on one key; log2(token + 1):
     *  spread evenly), null without numbers; rollout the selected query's row of attention rollout,
     *  R = A(layer, head) · Â₁ with Â₁ = ½ · mean over heads(A₁) + ½ · I (T floats: how much of its
     *  attention ends on each typed token once layer 1's mixing is counted; in layer 1, the head's own
     *  row) and layer1_mix Â₁ (T × T; null in a one-layer model), both Python's (Figure.rollout) while
     *  the stacked-attention panel is open and its numbers are in, else null; predict {on, answered}:
     *  "Predict, then look" on, and answered for this query, head and text; controls "all", "view" or
     *  "none"; tour the walk shown,
     *  {index (0-based), count}, or null (docs/tour.md). */
    state() {
      const now = figure.viewState.get();
      const { result, runtime } = figure;
      const T = result ? result.ids.length : 0;
      const numbers = T > 0 && result.attention !== null; // not while only its tokens are shown (showTokens)
      const offset = numbers ? headOffset(result, now.layer, now.head) : 0;
      const matrix = numbers ? result.attention.subarray(offset, offset + T * T) : null;
      return {
        build: figure.build,
        runtime: runtime ? { ...runtime } : null,
        text: result ? result.text : figure.boxText,
        ids: result ? Array.from(result.ids) : [],
        tokens: result ? Array.from(result.labels) : [],
        layer: now.layer,
        head: now.head,
        token: T === 0 ? null : now.token,
        weights: numbers ? Array.from(matrix.subarray(now.token * T, (now.token + 1) * T)) : [],
        matrix: numbers ? Array.from({ length: T }, (_, i) => Array.from(matrix.subarray(i * T, (i + 1) * T))) : [],
        panels: { ...now.panels },
        whatIf: { ...now.whatIf },
        knockout: now.knockout.map(([layer, head]) => ({ layer, head })),
        reused: result?.cache ? result.cache.reused : 0,
        step: now.learn.step ?? figure.checkpoints.at(-1)?.step ?? null,
        row_entropy: numbers ? rowEntropy(result, now.token) : null,
        predict: { on: now.predict.on, answered: now.predict.answered },
        controls: now.controls,
        ...stackedState(numbers && now.panels.stack ? figure.answer("rollout") : null),
        tour: figure.tour,
      };
    },
  };
}
