/* Strips of signed numbers on a canvas (the math panel's q, k, v and output, the FlashAttention part's
 * running output, and the image export): one pixel per number, scaled up by CSS without smoothing, on
 * colour.js's diverging scale.
 *
 *   rows: [rows × columns] numbers (an array of rows, each an array or a Float32Array)
 *   canvas: columns × rows pixels; CSS: CELL_PX per cell, at least MIN_HEIGHT_PX tall
 */
import { signedPixel } from "./colour.js";

const CELL_PX = 5; // CSS px per strip cell
const MIN_HEIGHT_PX = 24; // a strip is a tab stop: at least 24 CSS px tall (one row: taller cells)

/** The CSS size of a strip of `rows` (rows × columns numbers): {width, height}. */
export function stripSize(rows) {
  return { width: (rows[0]?.length ?? 0) * CELL_PX, height: Math.max(rows.length * CELL_PX, MIN_HEIGHT_PX) };
}

/** Paint `rows` (rows × columns signed numbers) into `canvas`, one pixel per cell on colour.js's diverging
 *  scale from -limit to +limit, and size it (stripSize). */
export function paintStrip(canvas, rows, limit) {
  const height = rows.length;
  const width = rows[0]?.length ?? 0;
  if (canvas.width !== Math.max(width, 1) || canvas.height !== Math.max(height, 1)) {
    canvas.width = Math.max(width, 1);
    canvas.height = Math.max(height, 1);
    const size = stripSize(rows);
    canvas.style.width = `${size.width}px`;
    canvas.style.height = `${size.height}px`;
  }
  if (height === 0 || width === 0) return;
  const image = new ImageData(width, height);
  const pixels = new Uint32Array(image.data.buffer);
  for (let i = 0; i < height; i++) { // plain loops: a strip of 128 keys is painted on every keystroke
    const row = rows[i];
    for (let j = 0; j < width; j++) pixels[i * width + j] = signedPixel(row[j], limit);
  }
  canvas.getContext("2d").putImageData(image, 0, 0);
}
