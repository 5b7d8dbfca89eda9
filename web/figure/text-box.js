/* How a figure takes a text: as its text box holds it, and at most BOX_MAX_CHARS characters of it. */

/** The text box keeps at most this many characters (the figure uses the last max_text_chars of them):
 *  a box holding megabytes makes every keystroke cost seconds. */
export const BOX_MAX_CHARS = 20000;

/* A high surrogate not followed by a low one, or a low one not after a high one (String.prototype
 * .isWellFormed, which older browsers lack). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` as a text box holds it, which is how the figure takes every text, wherever it comes from
 *  (typing, pasting, setText, a link, an attribute, a message), so that state().text, the box and the
 *  chips always describe the same string: a text box turns "\r\n" and "\r" into "\n" (HTML's newline
 *  normalisation of a textarea's value), and a lone UTF-16 surrogate becomes U+FFFD (as Python's
 *  tokenizer maps it). Python itself keeps "\r": the ids and labels of a text given to Figure.analyse. */
const scratchBox = document.createElement("textarea"); // never shown
export function asInBox(text) {
  scratchBox.value = wellFormed(text);
  return scratchBox.value;
}

/** `text` with each lone UTF-16 surrogate as U+FFFD (String.prototype.toWellFormed): what
 *  encodeURIComponent, which throws on a lone surrogate, can be given. */
export function wellFormed(text) {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/** Whether `text` has no lone UTF-16 surrogate. A text box keeps one that a script or an input method
 *  puts there, and encodeURIComponent (the link) throws on it. */
export function isWellFormed(text) {
  LONE_SURROGATE.lastIndex = 0;
  return !LONE_SURROGATE.test(text);
}

/** The last `count` characters (code points) of `text` once normalised (`normalise`, asInBox by
 *  default): {text, cut}, cut where the front was dropped. The front is dropped before anything else
 *  is done, so that a 40 MB text costs no more than a short one. */
export function lastChars(text, count, normalise = asInBox) {
  let start = Math.max(0, text.length - 2 * count); // UTF-16 units: at least `count` code points
  if (start > 0 && (text[start] === "\n" || /[\uDC00-\uDFFF]/.test(text[start]))) start -= 1; // never split "\r\n" or a surrogate pair
  const normal = normalise(start > 0 ? text.slice(start) : text);
  if (normal.length <= count) return { text: normal, cut: start > 0 };
  const chars = Array.from(normal);
  return chars.length <= count ? { text: normal, cut: start > 0 } : { text: chars.slice(-count).join(""), cut: true };
}

/** `text` as the box holds it (asInBox), at most its last BOX_MAX_CHARS characters (code points):
 *  {text, cut}. */
export function boxed(text) {
  return lastChars(text, BOX_MAX_CHARS);
}
