/* Heatmaps on a canvas, for the heads grid and the matrix: one pixel per cell, scaled up by CSS
 * without smoothing (image-rendering: pixelated), coloured by the figure's scale (colour.js).
 *
 *   canvas T × T pixels:  pixel (x = j, y = i) is query i's weight on key j;  j > i: masked grey
 *                         (unless the row weighs later keys: the "causal mask off" what-if)
 *
 * Causal attention makes redrawing cheap: row i depends only on tokens 0..i, so after an edit only
 * the rows from the first changed token on are painted again (an appended character: one or two).
 */
import { MASKED_PIXEL, weightPixel } from "./colour.js";

const images = new WeakMap(); // canvas -> its ImageData, kept while T stays the same

/** Index of the first token whose id differs between two results (or the shorter length): rows
 *  before it are unchanged. 0 if there is no previous result, if one of them is the build's
 *  precomputed result (numbers rounded to 6 decimals) and the other live, or if their what-ifs
 *  (knocked-out heads, a head without √d_k or mask) differ. */
export function firstChangedRow(previous, result) {
  if (!previous || Boolean(previous.precomputed) !== Boolean(result.precomputed)) return 0;
  if (String(previous.knockout ?? []) !== String(result.knockout ?? [])) return 0;
  if (JSON.stringify(previous.whatIf ?? null) !== JSON.stringify(result.whatIf ?? null)) return 0;
  const n = Math.min(previous.ids.length, result.ids.length);
  let i = 0;
  while (i < n && previous.ids[i] === result.ids[i]) i++;
  return i;
}

/** Paint rows `fromRow`..T-1 of a T × T attention matrix into `canvas`, whose bitmap is `size` ×
 *  `size` pixels (size ≥ T; cell (i, j) is pixel (j, i); a caller that keeps `size` fixed, as the
 *  heads grid does with block_size, never resizes the canvas and shows its top-left T × T by CSS).
 *  `attention`: Float32Array holding the T × T probabilities row by row from `offset`. When the
 *  size changes, the unchanged rows are copied from the last image (their new key columns are all
 *  masked: a key after the query), not recomputed. */
export function paintHeatmap(canvas, attention, offset, T, fromRow = 0, size = T) {
  let image = images.get(canvas);
  let dirtyFrom = fromRow;
  if (canvas.width !== size || canvas.height !== size || image?.width !== size) {
    const old = image;
    canvas.width = canvas.height = size;
    image = new ImageData(size, size);
    images.set(canvas, image);
    const kept = old ? Math.min(fromRow, old.width, size) : 0;
    if (kept > 0) {
      const from = new Uint32Array(old.data.buffer, old.data.byteOffset, old.width * old.width);
      const to = new Uint32Array(image.data.buffer, image.data.byteOffset, size * size);
      for (let i = 0; i < kept; i++) {
        to.set(from.subarray(i * old.width, i * old.width + Math.min(old.width, size)), i * size);
        if (size > old.width) to.fill(MASKED_PIXEL, i * size + old.width, (i + 1) * size);
      }
    }
    fromRow = kept;
    dirtyFrom = 0; // a resized canvas is blank: put every row
  }
  const pixels = new Uint32Array(image.data.buffer, image.data.byteOffset, size * size);
  for (let i = fromRow; i < T; i++) {
    const row = offset + i * T;
    for (let j = 0; j <= i; j++) pixels[i * size + j] = weightPixel(attention[row + j]);
    for (let j = i + 1; j < T; j++) pixels[i * size + j] = attention[row + j] === 0 ? MASKED_PIXEL : weightPixel(attention[row + j]);
    pixels.fill(MASKED_PIXEL, i * size + T, (i + 1) * size);
  }
  if (dirtyFrom < T) canvas.getContext("2d").putImageData(image, 0, 0, 0, dirtyFrom, size, T - dirtyFrom);
}
