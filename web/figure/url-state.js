/* The view in the address's fragment, so that a link restores it (never sent to a server):
 *
 *   #text=Then%20the%20Queen…&layer=2&head=3&token=7&panels=heads,matrix&step=500
 *
 * URLSearchParams syntax. readLink reads it at start and on every same-document navigation, checking
 * every value against the model and saying what it changed; linkFor writes the view back (page-link.js calls
 * history.replaceState with it, so typing adds no history entries). Read: "+" and "%20" are both a
 * space (as URLSearchParams reads them). Written: a space is "%20" and "+" is "%2B", so a link
 * survives a chat or LMS that re-encodes "+" as "%2B".
 */

import { lastChars, lengthInBox } from "./text-box.js";

const PANELS = ["heads", "matrix", "math", "next"];

/* The nearest whole number from low to high for a link's value (±Infinity included), or null for one
 * that is not a number. */
function nearest(value, low, high) {
  const number = Number(value);
  if (value.trim() === "" || Number.isNaN(number)) return null;
  return Math.min(high, Math.max(low, Math.round(number)));
}

/** A text asked for by a link or by an element's attribute, as the figure takes it (`normalise`:
 *  text-box.js's asInBox), at most its last `maxChars` code points: {text, changes}, changes saying
 *  what was cut. The front of a long text is dropped before it is normalised, and its length counted
 *  by searches (lengthInBox), so that megabytes from a host cost no more than those. */
export function readText(text, maxChars, normalise = (given) => given) {
  const kept = lastChars(text, maxChars, normalise);
  if (!kept.cut) return { text: kept.text, changes: [] };
  const length = lengthInBox(text); // the whole text's, for the notice
  if (length <= maxChars) return { text: kept.text, changes: [] };
  return { text: kept.text,
    changes: [`The link's text has ${length.toLocaleString("en")} characters; only its last ${maxChars.toLocaleString("en")} are used.`] };
}

/** The view a fragment asks for. `hash` is location.hash; `config` the model's (n_layer, n_head,
 *  block_size); `maxChars` the longest text the figure uses, counted in code points after `normalise`
 *  (the text as the figure takes it: text-box.js's asInBox, line breaks as in a text box). Returns
 *  {view, changes}: view holds only the fields the link gave (text, layer, head, token 0-based, panels
 *  {name: true}, step: a training step among `config.steps`, the checkpoints listed), each made valid, and, for a token past any text's end (over block_size, 1e400
 *  included), tokenAsked, the token as the link wrote it; changes lists sentences saying what was
 *  changed and why. The token is checked against the text later, once it is tokenized (see controllers/links.js). */
export function readLink(hash, config, maxChars, normalise = (text) => text) {
  const view = {};
  const changes = [];
  const raw = hash.replace(/^#/, "");
  if (raw === "") return { view, changes };
  // URLSearchParams reads a "%" that starts no escape as it stands, and escaped bytes that are not
  // UTF-8 as U+FFFD (the URL Standard's percent-decoding): each notice says which happened.
  const escaped = raw.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"); // each stray "%" as the escape of "%"
  if (escaped !== raw) changes.push('A "%" in the link starts no percent-escape (two hex digits); it is read as a plain "%".');
  try {
    decodeURIComponent(escaped);
  } catch {
    changes.push("Part of the link was not valid percent-encoding of UTF-8; it is read with � in its place.");
  }
  const params = new URLSearchParams(raw);
  if (params.has("text")) {
    const asked = readText(params.get("text"), maxChars, normalise);
    view.text = asked.text;
    changes.push(...asked.changes);
  }
  for (const [name, high] of [["layer", config.n_layer], ["head", config.n_head]]) {
    if (!params.has(name)) continue;
    const asked = params.get(name);
    const value = nearest(asked, 1, high);
    if (value === null) changes.push(`The link's ${name} "${asked}" is not a number; ${name} 1 is shown.`);
    else if (String(value) !== asked.trim()) changes.push(`The link asked for ${name} ${asked}; this model has ${high}, so ${name} ${value} is shown.`);
    view[name] = value ?? 1;
  }
  if (params.has("token")) {
    const asked = params.get("token");
    const value = nearest(asked, 1, Number.MAX_SAFE_INTEGER);
    if (value === null) changes.push(`The link's token "${asked}" is not a number; the last token is selected.`);
    else if (Number(asked) > config.block_size) view.tokenAsked = asked.trim(); // past any text's end (1e400 too): said with the text's length
    else if (String(value) !== asked.trim()) changes.push(`The link asked for token ${asked}; tokens count from 1 in whole numbers, so token ${value} is selected.`);
    if (value !== null) view.token = value - 1; // 1-based in links, as on screen
  }
  if (params.has("panels")) {
    const names = params.get("panels").split(",").filter((name) => name !== "");
    const unknown = names.filter((name) => !PANELS.includes(name));
    if (unknown.length) changes.push(`The link names panels this figure does not have (${unknown.join(", ")}); they are left out.`);
    view.panels = Object.fromEntries(PANELS.map((name) => [name, names.includes(name)]));
  }
  if (params.has("step")) {
    const asked = params.get("step");
    const steps = config.steps ?? [];
    const step = Number(asked);
    if (asked.trim() !== "" && steps.includes(step)) view.step = step;
    else if (steps.length) changes.push(`The link asked for training step ${asked}; this model's checkpoints are steps ${steps.join(", ")}, so the trained model is shown.`);
    else changes.push(`The link asked for training step ${asked}; this model has no checkpoints of its training, so the trained model is shown.`);
  }
  return { view, changes };
}

/** readLink's view of `hash`, with `text` (a string, or undefined: the fragment's own) as its text:
 *  an element's attributes, whose text is never encoded into a fragment (readText: megabytes from a
 *  host cost one pass). */
export function readView(hash, text, config, maxChars, normalise) {
  const asked = readLink(hash, config, maxChars, normalise);
  if (text === undefined) return asked;
  const { text: shown, changes } = readText(text, maxChars, normalise);
  return { view: { ...asked.view, text: shown }, changes: [...changes, ...asked.changes] };
}

/** The fragment for `text` and the view state (token 1-based, as on screen, left out for a text
 *  without tokens; the open panels; the checkpoint's training step, unless the shipped model is shown). */
export function linkFor(text, state, hasTokens) {
  const fields = [["text", text], ["layer", state.layer], ["head", state.head]];
  if (hasTokens) fields.push(["token", state.token + 1]);
  const open = PANELS.filter((name) => state.panels[name]);
  if (open.length) fields.push(["panels", open.join(",")]);
  if (state.learn?.step != null) fields.push(["step", state.learn.step]);
  return `#${fields.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join("&")}`;
}
