/* Every word the figure shows or says, in one language: a message catalog (web/i18n/<lang>.json, English
 * the reference, docs/languages.md) read through a Messages object, which also writes every number in
 * that language's way (Intl.NumberFormat, Intl.PluralRules: the ECMAScript Internationalization API,
 * ECMA-402).
 *
 * A catalog maps keys to messages:
 *   "status.tokens": "{count} tokens"                          a placeholder, by name
 *   "chips.count": {"one": "{count} token", "other": "{count} tokens"}   a plural: the form that
 *                                                              Intl.PluralRules chooses for `count`
 *   "about.live": "computed live, {where}, by a …"             in markup (fill), a placeholder can be a
 *                                                              part of the figure, moved into place
 *   "flash.help": "the largest score so far <i>m</i>, …"       and a few inline tags (INLINE_TAGS)
 * A number given to a placeholder is written by `number`; a string is put in as it is (lib/shown.js
 * writes a message held as {key, params}, whose params may be messages or numbers to write). Messages are
 * text: they are never parsed as HTML (fill builds its few tags with createElement).
 */

const INLINE_TAGS = new Set(["i", "em", "code", "b", "strong", "kbd", "sub", "sup"]);
const PIECE = /\{(\w+)\}|<(\/?)([a-z]+)>/g; // a placeholder, or an inline tag's start or end
// the scripts written right to left, by their ISO 15924 codes
const RTL_SCRIPTS = new Set(["Arab", "Hebr", "Thaa", "Syrc", "Nkoo", "Adlm", "Rohg"]); // not shown
const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb"]);

const isNode = (value) => typeof Node !== "undefined" && value instanceof Node; // none in a worker

/** The writing direction of language `lang` ("ltr" or "rtl"): Intl.Locale's textInfo where the browser
 *  has it, else its likely script (Intl.Locale.maximize), else a list of right-to-left languages. */
export function directionOf(lang) {
  try {
    const locale = new Intl.Locale(lang);
    const info = locale.getTextInfo?.() ?? locale.textInfo;
    if (info?.direction) return info.direction;
    const script = locale.maximize().script;
    if (script) return RTL_SCRIPTS.has(script) ? "rtl" : "ltr";
  } catch {
    // not a language tag: the list below
  }
  return RTL_LANGUAGES.has(String(lang).split("-")[0].toLowerCase()) ? "rtl" : "ltr";
}

export class Messages {
  #catalog;
  #reference;
  #formats = new Map(); // Intl.NumberFormat by its options, made once (each costs ~0.3 ms at CPU ×4)
  #plurals = new Map(); // Intl.PluralRules by the decimals a count is written with

  /**
   * @param {string} lang       the language's tag ("en", "de"), as the catalog file is named
   * @param {object} catalog    its messages, by key
   * @param {object} reference  English's, for a key the catalog lacks (tests/test_languages.py checks
   *                            that none does); default: `catalog`
   * @param {string} dir        "ltr" or "rtl"; default: directionOf(lang), or the catalog's "$dir"
   */
  constructor(lang, catalog, reference = catalog, dir = undefined) {
    this.lang = lang;
    this.#catalog = catalog;
    this.#reference = reference;
    this.dir = dir ?? catalog.$dir ?? directionOf(lang);
  }

  /** The locale for Intl: a pseudo-language's catalog may name a real one ("$locale"). */
  get locale() { return this.#catalog.$locale ?? this.lang; }

  /** Whether the catalog has `key`. */
  has(key) { return key in this.#catalog || key in this.#reference; }

  /** The message `key` with its placeholders filled from `params` (numbers written by `number`); a
   *  plural message's form chosen by `params.count`, written with `params.countDigits` decimals where
   *  it is shown so (1.00 is "other" in English, as CLDR's rules say: "1.00 bits"). Throws for a key no catalog has: a programming error. */
  text(key, params = {}) {
    return this.#pieces(key, params).map((piece) => (typeof piece === "string" ? piece : piece.tag ? "" : String(piece))).join("");
  }

  /** Replace `node`'s children with message `key`: its text, its inline tags (INLINE_TAGS) as elements,
   *  and each placeholder whose value in `params` is a Node, that node (moved, not copied). Returns `node`. */
  fill(node, key, params = {}) {
    const stack = [document.createDocumentFragment()];
    for (const piece of this.#pieces(key, params)) {
      const top = stack[stack.length - 1];
      if (typeof piece === "string") top.append(piece);
      else if (isNode(piece)) top.append(piece);
      else if (piece.tag && !piece.end) stack.push(top.appendChild(document.createElement(piece.tag)));
      else if (piece.tag && stack.length > 1) stack.pop();
    }
    node.replaceChildren(stack[0]);
    return node;
  }

  /** `x` as the language writes a number, with a true minus sign (U+2212): `digits` decimals exactly
   *  (default: as many as it has, at most 3); `grouping` false for none (a year, a step of a run). */
  number(x, digits = undefined, grouping = true) {
    const options = digits === undefined ? { maximumFractionDigits: 3, useGrouping: grouping } : { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: grouping };
    return this.#format(options, x);
  }

  /** A share (0..1) as a percentage with `digits` decimals: 0.806 → "80.6%" (en), "80,6 %" (de, fr). */
  percent(share, digits = 1) {
    return this.#format({ style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }, share);
  }

  /** `items` (strings) as a list in the language: "a, b and c" ("conjunction") or "a, b or c". */
  list(items, type = "conjunction") {
    return new Intl.ListFormat(this.locale, { type }).format(items);
  }

  #plural(count, digits) {
    if (!this.#plurals.has(digits)) this.#plurals.set(digits, new Intl.PluralRules(this.locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
    return this.#plurals.get(digits).select(count);
  }

  #format(options, x) {
    const key = JSON.stringify(options);
    if (!this.#formats.has(key)) this.#formats.set(key, new Intl.NumberFormat(this.locale, options));
    const parts = this.#formats.get(key).formatToParts(Object.is(x, -0) ? 0 : x);
    return parts.map((part) => (part.type === "minusSign" ? "\u2212" : part.value)).join("");
  }

  #pieces(key, params) {
    let message = key in this.#catalog ? this.#catalog[key] : this.#reference[key];
    if (message === undefined) throw new Error(`no message "${key}" in the ${this.lang} catalog or English's`); // not shown
    if (typeof message === "object") message = message[this.#plural(params.count ?? 0, params.countDigits ?? 0)] ?? message.other;
    const pieces = [];
    let at = 0;
    for (const match of message.matchAll(PIECE)) {
      if (match.index > at) pieces.push(message.slice(at, match.index));
      at = match.index + match[0].length;
      if (match[1] !== undefined) pieces.push(this.#value(params[match[1]], match[0]));
      else if (INLINE_TAGS.has(match[3])) pieces.push({ tag: match[3], end: match[2] === "/" });
      else pieces.push(match[0]); // not one of ours: text
    }
    if (at < message.length) pieces.push(message.slice(at));
    return pieces;
  }

  #value(value, written) {
    if (value === undefined || value === null) return written; // left as written: a test finds it
    if (typeof value === "number") return this.number(value);
    return value;
  }
}
