/* What the figure shows or says, kept as what it means until it is written: a message of the catalog
 * with its params ({key, params}: web/i18n/messages.js), written in the figure's language only when it
 * is shown, and again when the language changes. The worker, which has no catalog, reports in the same
 * form (runtime/worker/worker.js), and so do the errors of the figure's own code (ShownError).
 *
 * A param's value is written by `shown` too, so that a message can hold another (an error's reason) and
 * numbers are written in the language shown:
 *   "text"                               as it is (data: a file's name, a link's value, Python's words)
 *   12.5                                 messages.number (a `count` stays a number: it chooses the plural)
 *   {key, params}                        that message
 *   {number, digits?, grouping?}         messages.number(number, digits, grouping)
 *   {numbers: [...], digits?, grouping?} each so, separated as the language separates numbers
 *   {percent, digits?}                   messages.percent
 *   {languages: ["de", "en"]}            the languages' names in the language shown, as a list
 *   an Error                             its message of the catalog (ShownError, or the worker's), else its own words
 *   (messages) => string                 what it returns
 */

/** An error whose words are a message of the catalog: `key` and `params` (as above) are what the figure
 *  shows; its `message` is for a developer's console, where no language was chosen. */
export class ShownError extends Error {
  constructor(key, params = {}) {
    super(`${key} ${JSON.stringify(params)}`); // not shown
    this.key = key;
    this.params = params;
  }
}

/** `what` (a message as above, or a string) written with `messages` (the Messages of the language shown). */
export function shown(messages, what) {
  if (what === null || what === undefined) return "";
  if (typeof what === "string") return what;
  if (typeof what === "number") return messages.number(what);
  if (typeof what === "function") return what(messages);
  if (what instanceof Error) return what.key ? shown(messages, { key: what.key, params: what.params }) : what.message;
  if (typeof what.key === "string") return messages.text(what.key, paramsOf(messages, what.params));
  if (typeof what.number === "number") return messages.number(what.number, what.digits, what.grouping ?? true);
  if (Array.isArray(what.numbers)) {
    return what.numbers.map((x) => messages.number(x, what.digits, what.grouping ?? true)).join(messages.text("numbers.separator"));
  }
  if (typeof what.percent === "number") return messages.percent(what.percent, what.digits);
  if (Array.isArray(what.languages)) return messages.list(what.languages.map((tag) => languageName(messages, tag)));
  return String(what);
}

/* `params` with every value written by `shown`, but numbers, which messages.text writes itself (and a
 * `count` chooses the plural form). */
function paramsOf(messages, params = {}) {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, typeof value === "number" ? value : shown(messages, value)]));
}

/* The language `tag`'s name in the language shown ("German" in English, "Deutsch" in German), or the tag
 * itself where the browser has no names. */
function languageName(messages, tag) {
  try {
    return new Intl.DisplayNames([messages.locale], { type: "language" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
