/* The walks through the figure (docs/tour.md): the chapter's own, and a course's, read from a JSON file
 * and checked here. A walk is a list of steps; each step is a view (what the figure shows) and its words,
 * written with the live numbers of the text in the box: every number is one Python computed (the
 * result's attention and entropy, the answers of the open panels: answers.js); this module only picks
 * (the largest weight of a row) and formats.
 *
 *   step = { view: { text?, layer?, head?, token? (0-based), panels: [names], whatIf: {scale, mask}, flash: {open} },
 *            words(reading) => a message ({key, params}: lib/shown.js) or null while its numbers are on their way }
 *
 * `reading` (see readingOf) is what a step's words read: the result shown, the view state, Python's answers.
 */
import { ShownError } from "../lib/shown.js";
import { bitsText, entropyAt, headOffset, keysSeen } from "../draw/numbers.js";
import { PANEL_NAMES, showsWhatIfsOf } from "./view-state.js";

/** The most steps a course's walk may have. */
export const MAX_STEPS = 100;
const VIEW_FIELDS = ["text", "layer", "head", "token", "panels", "whatIf"];
const PLACEHOLDERS = "{share:…}, {top}, {entropy}, {query}"; // the placeholders a course's words may use, as the error lists them
const PLACEHOLDER = /\{([^{}]*)\}/g; // a {…} in a course's words

/** What a step's words read: `result` (the result shown), `state` (the view state), `answer(kind)` (Python's
 *  answer of that kind for this view, answers.js: null while not in), `messages` (the figure's language),
 *  `book` (whether the text is the chapter's own sentence). */
export function readingOf(figure) {
  const defaultText = figure.manifest?.default_view?.text;
  const result = figure.result;
  return { result, state: figure.viewState.get(), answer: (kind) => figure.answer(kind), messages: figure.messages,
    book: result !== null && result.text === defaultText };
}

/* The selected row of `reading` (the query's weights in its layer and head, the what-if's while one is on):
 * {row (Float32Array T), query, T}, or null without numbers. */
function rowOf({ result, state }) {
  if (!result?.attention || result.ids.length === 0) return null;
  const T = result.ids.length;
  const query = Math.min(state.token, T - 1);
  const start = headOffset(result, state.layer, state.head) + query * T;
  return { row: result.attention.subarray(start, start + T), query, T };
}

/* The index of the largest of `values` among indices from..to-1 (the first among equals), or null. */
function largest(values, from, to) {
  let best = null;
  for (let i = from; i < to; i++) if (best === null || values[i] > values[best]) best = i;
  return best;
}

const label = (result, index) => result.labels[index];
const share = (x) => ({ percent: x, digits: 1 });

/* The numbers every step may name: the query, its top key (among the keys it sees) and that key's share,
 * the row's entropy and an even spread's. */
function basics(reading) {
  const selected = rowOf(reading);
  if (!selected) return null;
  const { result, state, messages } = reading;
  const { row, query } = selected;
  const top = largest(row, 0, keysSeen(result, state, query));
  const bits = entropyAt(result, state.layer, state.head, query);
  return { selected, top, params: { layer: state.layer, head: state.head, query: label(result, query), top: label(result, top), share: share(row[top]),
    entropy: bits === null ? "" : bitsText(bits, messages), even: result.entropyEven ? bitsText(result.entropyEven[query], messages) : "" } };
}

/* Whether the result shown holds the numbers of the view state: live, the newest, with its what-ifs. */
const live = (reading) => reading.result !== null && !reading.result.precomputed && showsWhatIfsOf(reading.result, reading.state);

const variant = (reading, name) => `tour.chapter.${name}.${reading.book ? "book" : "yours"}`;

/* The chapter's steps (its claims, in order), each {name, view, words}; `defaultView` is build.json's
 * default_view (layer, head, token, text; its diffuse head), `config` the model's. */
export function chapterSteps(config, defaultView) {
  const focused = { layer: defaultView.layer, head: defaultView.head };
  const diffuse = { layer: defaultView.diffuse?.layer ?? 1, head: defaultView.diffuse?.head ?? 1 };
  const upper = { layer: Math.max(2, focused.layer), head: focused.layer >= 2 ? focused.head : 1 }; // a layer that reads mixed vectors
  const steps = [
    { name: "focused", view: { ...focused },
      words: (reading) => { const b = basics(reading); return b && { key: variant(reading, "focused"), params: b.params }; } },
    { name: "diffuse", view: { ...diffuse },
      words: (reading) => { const b = basics(reading); return b && { key: variant(reading, "diffuse"), params: b.params }; } },
    { name: "heads", view: { ...focused, panels: ["heads"] }, words: headsWords },
    ...(config.n_layer >= 2 ? [{ name: "stack", view: { ...upper, panels: ["stack"] }, words: stackWords }] : []),
    { name: "mask", view: { ...focused, panels: ["matrix"], whatIf: { mask: false } }, words: maskWords },
    { name: "scale", view: { ...focused, whatIf: { scale: false } },
      words: (reading) => { const b = live(reading) && basics(reading); return b && { key: variant(reading, "scale"), params: b.params }; } },
    { name: "next", view: { ...focused, panels: ["next"] }, words: nextWords },
    { name: "cache", view: { ...focused, panels: ["math"] }, words: cacheWords },
    { name: "flash", view: { ...focused, panels: ["math"], flash: { open: true } }, words: flashWords },
  ];
  return steps.map((step) => ({ ...step, chapter: true, tokenOf: (reading) => (reading.book ? defaultView.token : null) }));
}

/* The heads of the selected layer, each with the key it gives «query» most. */
function headsWords(reading) {
  const b = basics(reading);
  if (!b) return null;
  const { result, state, messages } = reading;
  const { query, T } = b.selected;
  const opinions = Array.from({ length: result.shape[1] }, (_, h) => {
    const start = headOffset(result, state.layer, h + 1) + query * T;
    const row = result.attention.subarray(start, start + T);
    const top = largest(row, 0, keysSeen(result, { layer: state.layer, head: h + 1 }, query));
    return messages.text("tour.opinion", { head: h + 1, top: label(result, top), share: messages.percent(row[top], 1) });
  });
  return { key: variant(reading, "heads"), params: { ...b.params, opinions: messages.list(opinions) } };
}

/* Attention stacked on attention: where the query's attention ends among the typed tokens (Python's rollout). */
function stackWords(reading) {
  const b = live(reading) && basics(reading);
  const stacked = b && reading.answer("rollout");
  if (!stacked) return null;
  const top = largest(stacked.rollout, 0, stacked.rollout.length);
  return { key: variant(reading, "stack"), params: { ...b.params, top: label(reading.result, top), share: share(stacked.rollout[top]), direct: share(stacked.direct[top]) } };
}

/* The mask taken away: the later token the query now looks at most. */
function maskWords(reading) {
  const b = live(reading) && basics(reading);
  if (!b) return null;
  const { row, query, T } = b.selected;
  if (query === T - 1) return { key: "tour.chapter.mask.last", params: b.params };
  const later = largest(row, query + 1, T);
  return { key: variant(reading, "mask"), params: { ...b.params, later: label(reading.result, later), laterShare: share(row[later]) } };
}

/* The next token: Python's most likely one after the query. */
function nextWords(reading) {
  const b = live(reading) && basics(reading);
  const predicted = b && reading.answer("predict");
  if (!predicted) return null;
  const [first] = predicted.candidates;
  return { key: variant(reading, "next"), params: { ...b.params, next: first.label, nextShare: share(first.p) } };
}

/* The KV cache: what the last update reused and computed, and what a text twice as long would take (Python's
 * cache summary, as the math panel's lines). */
function cacheWords(reading) {
  const b = live(reading) && basics(reading);
  const { cache } = reading.result ?? {};
  if (!b || !cache) return null;
  return { key: variant(reading, "cache"), params: { ...b.params, count: cache.reused, reused: cache.reused, tokens: cache.tokens,
    computed: { number: cache.scores_computed, digits: 0 }, full: { number: cache.scores_full, digits: 0 },
    doubled: { number: cache.tokens_doubled, digits: 0 }, fullDoubled: { number: cache.scores_full_doubled, digits: 0 } } };
}

/* FlashAttention: the tile size, and the scores held at once against the ordinary row's (Python's flash answer). */
function flashWords(reading) {
  const b = live(reading) && basics(reading);
  const flashed = b && reading.answer("flash");
  if (!flashed) return null;
  return { key: variant(reading, "flash"), params: { ...b.params, tile: flashed.tile, held: flashed.scores_held, plain: flashed.scores_plain } };
}

/* ---- a course's walk ---- */

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const wrong = (step, key, params = {}) => new ShownError(key, { step, ...params });

/** The steps of a course's walk, `json` (its file, parsed), checked against the model of `config`
 *  ({n_layer, n_head, block_size}). Throws a ShownError (lib/shown.js) whose message names the step
 *  (1-based) and the field that is wrong. Each step: {view: {text?, layer?, head?, token? (0-based), panels,
 *  whatIf}, say: {lang: words}}. */
export function checkWalk(json, config) {
  if (!isObject(json) || !Array.isArray(json.steps) || json.steps.length === 0) throw new ShownError("tour.noSteps");
  if (json.steps.length > MAX_STEPS) throw new ShownError("tour.tooManySteps", { count: json.steps.length, most: MAX_STEPS });
  return json.steps.map((step, i) => {
    const n = i + 1;
    if (!isObject(step)) throw wrong(n, "tour.stepNotObject");
    const given = step.view ?? {};
    if (!isObject(given)) throw wrong(n, "tour.viewNotObject");
    const unknown = Object.keys(given).find((field) => !VIEW_FIELDS.includes(field));
    if (unknown !== undefined) throw wrong(n, "tour.viewField", { field: unknown });
    const view = {};
    if (given.text !== undefined) {
      if (typeof given.text !== "string") throw wrong(n, "tour.text");
      view.text = given.text;
    }
    for (const [field, high] of [["layer", config.n_layer], ["head", config.n_head], ["token", config.block_size]]) {
      if (given[field] === undefined) continue;
      if (!Number.isInteger(given[field]) || given[field] < 1 || given[field] > high) throw wrong(n, `tour.${field}`, { count: high });
      view[field] = field === "token" ? given[field] - 1 : given[field]; // 1-based in the file, as in attributes
    }
    if (given.panels !== undefined) {
      const names = typeof given.panels === "string" ? given.panels.split(",").map((name) => name.trim()).filter(Boolean) : given.panels;
      if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) throw wrong(n, "tour.panels", { known: PANEL_NAMES.join(", ") });
      const unknownPanel = names.find((name) => !PANEL_NAMES.includes(name));
      if (unknownPanel !== undefined) throw wrong(n, "tour.panelUnknown", { panel: unknownPanel, known: PANEL_NAMES.join(", ") });
      view.panels = names;
    }
    if (given.whatIf !== undefined) {
      const { whatIf } = given;
      if (!isObject(whatIf) || Object.keys(whatIf).some((field) => !["scale", "mask"].includes(field))
        || Object.values(whatIf).some((value) => typeof value !== "boolean")) throw wrong(n, "tour.whatIf");
      view.whatIf = { ...whatIf };
    }
    if (!isObject(step.say) || Object.keys(step.say).length === 0) throw wrong(n, "tour.sayMissing");
    for (const [lang, words] of Object.entries(step.say)) {
      if (typeof words !== "string" || words.trim() === "") throw wrong(n, "tour.sayNotText", { lang });
      for (const [placeholder, inside] of words.matchAll(PLACEHOLDER)) {
        if (!["top", "entropy", "query"].includes(inside) && !/^share:./su.test(inside)) throw wrong(n, "tour.placeholder", { lang, placeholder, known: PLACEHOLDERS });
      }
    }
    return { view, say: { ...step.say }, tokenOf: () => view.token ?? null,
      words: (reading) => courseWords(step.say, reading) };
  });
}

/** The words of a course's step in the figure's language: its own tag, else one of the same language
 *  ("de-CH" for "de"), else English, else the first given. */
export function wordsIn(say, lang) {
  const tags = Object.keys(say);
  const primary = (tag) => tag.toLowerCase().split(/[-_]/)[0];
  const tag = tags.find((t) => t.toLowerCase() === lang.toLowerCase()) ?? tags.find((t) => primary(t) === primary(lang))
    ?? tags.find((t) => primary(t) === "en") ?? tags[0];
  return say[tag];
}

/* A course step's words with its placeholders filled from the view on screen: {share:LABEL} the query's
 * share on the token labelled LABEL (as its chip, or without its leading ␣), {top} the key it attends to
 * most with its share, {entropy} its row's entropy, {query} the query. A function of the Messages (lib/shown.js). */
function courseWords(say, reading) {
  const b = basics(reading);
  if (!b || !showsWhatIfsOf(reading.result, reading.state)) return null;
  const { result, messages } = reading;
  const { row, query } = b.selected;
  const seen = keysSeen(result, reading.state, query);
  const plain = (text) => text.replace(/^␣/u, "").trim();
  return () => wordsIn(say, messages.lang).replace(PLACEHOLDER, (whole, inside) => {
    if (inside === "top") return messages.text("tour.top", { label: label(result, b.top), share: messages.percent(row[b.top], 1) });
    if (inside === "entropy") return b.params.entropy;
    if (inside === "query") return label(result, query);
    const wanted = inside.slice("share:".length);
    const matches = result.labels.map((l, i) => (i < seen && (l === wanted || plain(l) === plain(wanted)) ? i : null)).filter((i) => i !== null);
    if (matches.length === 0) return messages.text("tour.noToken", { label: wanted });
    return messages.percent(row[matches.at(-1)], 1); // the nearest one the query sees
  });
}
