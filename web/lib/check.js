/* Checks of what a view is created with and given to draw: a wrong field fails at once, with a sentence
 * naming the view, the field and what it got, rather than later as NaN drawn or an empty canvas. The
 * sentences are for the programmer who calls a view (never shown by the figure): English. */

/** Throw a RangeError unless each of `names` in `object` (called `what` in `where`) is a whole number ≥ 1. */
export function wholeNumbers(where, what, object, names) {
  for (const name of names) {
    const value = object?.[name];
    if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`${where}: ${what}.${name} must be a whole number ≥ 1, got ${String(value)}`); // not shown
  }
}

/** Throw a TypeError unless `result` (called in `where`) holds attention as the worker sends it:
 *  attention a Float32Array [n_layer × n_head × T × T] (its `shape`), ids and labels T long. */
export function attentionResult(where, result) {
  const shape = result?.shape;
  const T = result?.ids?.length;
  if (!(result?.attention instanceof Float32Array) || !Array.isArray(shape) || shape.length !== 4) {
    throw new TypeError(`${where}: result.attention must be a Float32Array with a shape [n_layer, n_head, T, T]`); // not shown
  }
  const cells = shape.reduce((product, n) => product * n, 1);
  if (result.attention.length !== cells || shape[2] !== T || shape[3] !== T || result.labels?.length !== T) {
    const holds = `${result.attention.length} numbers for shape [${shape}], with ${T} ids and ${result.labels?.length} labels`; // not shown
    throw new TypeError(`${where}: result.attention holds ${holds}: they must agree`); // not shown
  }
}
