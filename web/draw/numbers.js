/* Reading the numbers Python computed, the same way in every view. A result's `attention` is a
 * Float32Array of probabilities, [n_layer, n_head, T, T] row-major (`shape`): for layer ℓ and head h
 * (1-based), row i is query i's weights on keys 0..T-1 (0 after i, the causal mask, unless the
 * result's `whatIf` turned the mask off for that head).
 */

/** Index in `result.attention` of layer `layer`, head `head`'s first cell (both 1-based). */
export function headOffset(result, layer, head) {
  const T = result.shape[3];
  return ((layer - 1) * result.shape[1] + (head - 1)) * T * T;
}

/** The entropy in bits of query `token`'s row in layer `layer`, head `head` (1-based), from the result's
 *  `entropy` (Float32Array [n_layer, n_head, T], Python's focus.row_entropy); null where it has none. */
export function entropyAt(result, layer, head, token) {
  if (!result.entropy) return null;
  const T = result.shape[3];
  return result.entropy[((layer - 1) * result.shape[1] + (head - 1)) * T + token];
}

/** How many keys query `query` weighs in the selected head of `view` ({layer, head}): keys
 *  0..query, or all T under the "causal mask off" what-if on that head. */
export function keysSeen(result, { layer, head }, query) {
  const { whatIf } = result;
  const unmasked = whatIf && !whatIf.mask && whatIf.layer === layer && whatIf.head === head;
  return unmasked ? result.ids.length : query + 1;
}

/** The keys of `row` (probabilities of keys 0..query) with the largest weights, largest first (the
 *  earlier key first among equals), at most `count`: one pass, as the matrix's table needs it for every row. */
export function strongestKeys(row, count) {
  const top = [];
  for (let j = 0; j < row.length; j++) {
    let at = top.length;
    while (at > 0 && row[j] > row[top[at - 1]]) at--;
    if (at < count) {
      top.splice(at, 0, j);
      if (top.length > count) top.pop();
    }
  }
  return top;
}

/* Writing numbers: each function takes the figure's `messages` (i18n/messages.js), which writes numbers
 * as the figure's language does (Intl.NumberFormat) and holds its words. */

/** A whole number with the language's thousands separators: 16384 → "16,384" (en), "16.384" (de). */
export function thousands(n, messages) {
  return messages.number(n, 0);
}

/** A signed number with `digits` decimals and a true minus sign: -0.5 → "−0.500" (en), "−0,500" (de). */
export function fixed(x, digits, messages) {
  return messages.number(x, digits);
}

/** Numbers as a list for a text alternative, two decimals each, separated as the language separates
 *  numbers with decimal commas: "0.12, −0.50" (en), "0,12; −0,50" (de). */
export function listed(numbers, messages) {
  return Array.from(numbers, (x) => messages.number(x, 2)).join(messages.text("numbers.separator"));
}

/** A probability as the figure writes it: "48.6%" (en), "48,6 %" (de). */
export function percent(weight, messages) {
  return messages.percent(weight, 1);
}

/** A number in exponential notation, as JavaScript's toExponential writes it, its mantissa in the
 *  language's way: 1.19e-7 → "1.2e-7" (en), "1,2e-7" (de); digits: the mantissa's decimals. */
export function exponential(x, digits, messages) {
  const [mantissa, exponent] = x.toExponential(digits).split("e");
  return messages.text("numbers.exponential", { mantissa: messages.number(Number(mantissa), digits), exponent });
}

/** An entropy in bits as the figure writes it: "1.61 bits" (a rounding -0 as 0). */
export function bitsText(bits, messages) {
  return messages.text("numbers.bits", { count: Math.abs(bits), countDigits: 2, bits: messages.number(Math.abs(bits), 2) });
}

/** The query as the figure names it: "«said» (token 8 of 16)" (1-based, as on screen). */
export function queryText(labels, token, messages) {
  return messages.text("numbers.query", { label: labels[token], index: token + 1, count: labels.length });
}
