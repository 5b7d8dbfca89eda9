/* The view in the address's fragment, so that a link restores it (never sent to a server):
 *
 *   #text=Then%20the%20Queen…&layer=2&head=3&token=7&panels=heads,matrix&step=500&lang=de&predict=1&controls=view&tour=chapter
 *
 * URLSearchParams syntax. readLink reads it at start and on every same-document navigation, checking
 * every value against the model and saying what it changed (each sentence a message of the catalog,
 * {key, params}, written in the figure's language when shown: lib/shown.js); linkFor writes the view back (page-link.js calls
 * history.replaceState with it, so typing adds no history entries). Read: "+" and "%20" are both a
 * space (as URLSearchParams reads them). Written: a space is "%20" and "+" is "%2B", so a link
 * survives a chat or LMS that re-encodes "+" as "%2B".
 */

import { chooseLanguage } from "../i18n/language.js";
import { lastChars, lengthInBox } from "./text-box.js";

const PANELS = ["heads", "matrix", "math", "next", "stack"];
/** What controls a figure shows: all, the choices but a read-only text ("view"), or none: the view as
 *  given (view-state.js controls). */
export const CONTROLS = ["all", "view", "none"];
const ON = ["", "1", "true", "on"]; // predict=1; an element's bare `predict` attribute reads as ""
const OFF = ["0", "false", "off"];

/* The nearest whole number from low to high for a link's value (±Infinity included), or null for one
 * that is not a number. */
function nearest(value, low, high) {
  const number = Number(value);
  if (value.trim() === "" || Number.isNaN(number)) return null;
  return Math.min(high, Math.max(low, Math.round(number)));
}

/** A text asked for by a link or by an element's attribute, as the figure takes it (`normalise`:
 *  text-box.js's asInBox), at most its last `maxChars` code points: {text, changes}, changes saying
 *  what was cut (messages, as readLink's). The front of a long text is dropped before it is normalised, and its length counted
 *  by searches (lengthInBox), so that megabytes from a host cost no more than those. */
export function readText(text, maxChars, normalise = (given) => given) {
  const kept = lastChars(text, maxChars, normalise);
  if (!kept.cut) return { text: kept.text, changes: [] };
  const length = lengthInBox(text); // the whole text's, for the notice
  if (length <= maxChars) return { text: kept.text, changes: [] };
  return { text: kept.text, changes: [{ key: "link.textCut", params: { count: length, kept: maxChars } }] };
}

/** The view a fragment asks for. `hash` is location.hash; `config` the model's (n_layer, n_head,
 *  block_size, steps: the checkpoints' training steps, languages: the tags of the languages with a
 *  catalog, build.json's "languages"); `maxChars` the longest text the figure uses, counted in code
 *  points after `normalise` (the text as the figure takes it: text-box.js's asInBox, line breaks as in a
 *  text box). Returns {view, changes}: view holds only the fields the link gave (text, layer, head,
 *  token 0-based, panels {name: true}, step: a training step among `config.steps`, lang: the tag of the
 *  catalog for the language asked, as i18n/language.js's chooseLanguage finds it; predict: true or false,
 *  from 1/true/on or 0/false/off, "" (a bare attribute) on; controls: one of CONTROLS; tour: "chapter" or the
 *  address of a walk's JSON file, as written: controllers/tour.js reads it), each made valid,
 *  and, for a token past any text's end (over block_size, 1e400 included), tokenAsked, the token as the
 *  link wrote it; changes lists what was changed and why, as messages ({key, params}: lib/shown.js).
 *  The token is checked against the text later, once it is tokenized (see controllers/links.js). */
export function readLink(hash, config, maxChars, normalise = (text) => text) {
  const view = {};
  const changes = [];
  const raw = hash.replace(/^#/, "");
  if (raw === "") return { view, changes };
  // URLSearchParams reads a "%" that starts no escape as it stands, and escaped bytes that are not
  // UTF-8 as U+FFFD (the URL Standard's percent-decoding): each notice says which happened.
  const escaped = raw.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"); // each stray "%" as the escape of "%"
  if (escaped !== raw) changes.push({ key: "link.strayPercent" });
  try {
    decodeURIComponent(escaped);
  } catch {
    changes.push({ key: "link.notUtf8" });
  }
  const params = new URLSearchParams(raw);
  if (params.has("text")) {
    const asked = readText(params.get("text"), maxChars, normalise);
    view.text = asked.text;
    changes.push(...asked.changes);
  }
  for (const [name, high, notNumber, outOfRange] of [["layer", config.n_layer, "link.layerNotNumber", "link.layerOutOfRange"],
    ["head", config.n_head, "link.headNotNumber", "link.headOutOfRange"]]) {
    if (!params.has(name)) continue;
    const asked = params.get(name);
    const value = nearest(asked, 1, high);
    if (value === null) changes.push({ key: notNumber, params: { asked } });
    else if (String(value) !== asked.trim()) changes.push({ key: outOfRange, params: { asked, count: high, value } });
    view[name] = value ?? 1;
  }
  if (params.has("token")) {
    const asked = params.get("token");
    const value = nearest(asked, 1, Number.MAX_SAFE_INTEGER);
    if (value === null) changes.push({ key: "link.tokenNotNumber", params: { asked } });
    else if (Number(asked) > config.block_size) view.tokenAsked = asked.trim(); // past any text's end (1e400 too): said with the text's length
    else if (String(value) !== asked.trim()) changes.push({ key: "link.tokenNotWhole", params: { asked, value } });
    if (value !== null) view.token = value - 1; // 1-based in links, as on screen
  }
  if (params.has("panels")) {
    const names = params.get("panels").split(",").filter((name) => name !== "");
    const unknown = names.filter((name) => !PANELS.includes(name));
    if (unknown.length) changes.push({ key: "link.unknownPanels", params: { panels: unknown.join(", "), count: unknown.length } }); // the names as the link wrote them
    view.panels = Object.fromEntries(PANELS.map((name) => [name, names.includes(name)]));
  }
  if (params.has("step")) {
    const asked = params.get("step");
    const steps = config.steps ?? [];
    const step = Number(asked);
    if (asked.trim() !== "" && steps.includes(step)) view.step = step;
    else if (steps.length) changes.push({ key: "link.stepNotListed", params: { asked, steps: { numbers: steps, grouping: false }, count: steps.length } });
    else changes.push({ key: "link.stepNoCheckpoints", params: { asked } });
  }
  if (params.has("predict")) {
    const asked = params.get("predict");
    const value = asked.trim().toLowerCase();
    if (ON.includes(value)) view.predict = true;
    else if (OFF.includes(value)) view.predict = false;
    else changes.push({ key: "link.predictNotOnOff", params: { asked } });
  }
  if (params.has("controls")) {
    const asked = params.get("controls");
    const value = asked.trim().toLowerCase();
    if (CONTROLS.includes(value)) view.controls = value;
    else changes.push({ key: "link.controlsUnknown", params: { asked } });
  }
  if (params.has("lang")) {
    const asked = params.get("lang");
    const languages = config.languages ?? ["en"];
    const lang = chooseLanguage([asked], languages); // "de-CH" → "de"
    if (lang !== null) view.lang = lang;
    else changes.push({ key: "link.langUnknown", params: { asked, languages: { languages }, count: languages.length } });
  }
  if (params.has("tour") && params.get("tour").trim() !== "") view.tour = params.get("tour").trim(); // "chapter" or a walk's JSON file (controllers/tour.js)
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
 *  without tokens; the open panels; the checkpoint's training step, unless the shipped model is shown;
 *  the language, where the view state has one: `lang`, set where a link or the page asked for it),
 *  and `tour`, the walk shown where a link can carry it ("chapter"; null: none). */
export function linkFor(text, state, hasTokens, tour = null) {
  const fields = [["text", text], ["layer", state.layer], ["head", state.head]];
  if (hasTokens) fields.push(["token", state.token + 1]);
  const open = PANELS.filter((name) => state.panels[name]);
  if (open.length) fields.push(["panels", open.join(",")]);
  if (state.learn?.step != null) fields.push(["step", state.learn.step]);
  if (state.lang) fields.push(["lang", state.lang]);
  if (state.predict?.on) fields.push(["predict", 1]);
  if (state.controls && state.controls !== "all") fields.push(["controls", state.controls]);
  if (tour) fields.push(["tour", tour]);
  return `#${fields.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join("&")}`;
}
