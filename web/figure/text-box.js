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

/** The length of `text` in code points once a text box holds it (asInBox): its UTF-16 units, less
 *  one for each "\r\n" (the box makes it "\n") and one for each surrogate pair. Each is found by a
 *  search before any loop, so that a long text costs a search (fast, for a browser's one-byte strings
 *  above all), and the loop over its units runs only from its first low surrogate. */
export function lengthInBox(text) {
  let length = text.length;
  for (let at = text.indexOf("\r\n"); at >= 0; at = text.indexOf("\r\n", at + 2)) length -= 1;
  const first = text.search(/[\uDC00-\uDFFF]/);
  if (first < 0) return length;
  for (let i = Math.max(first, 1); i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      const before = text.charCodeAt(i - 1);
      if (before >= 0xd800 && before <= 0xdbff) length -= 1;
    }
  }
  return length;
}

/** `text` as the box holds it (asInBox), at most its last BOX_MAX_CHARS characters (code points):
 *  {text, cut}. */
export function boxed(text) {
  return lastChars(text, BOX_MAX_CHARS);
}
