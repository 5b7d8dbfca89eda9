/* The benchmark's measures (one feature of a figure: figure.js's controllers), through the User Timing
 * API, which bench/benchmark.py reads (docs/benchmark.md):
 *
 *   attention-live:first-paint   the first view is on screen (precomputed numbers, or a text's tokens);
 *   attention-live:live          the first live attention from Python is on screen;
 *   attention-live:drawn         per edit, from the input event (or the setText call) to the DOM holding it;
 *   attention-live:update        … to the animation frame that shows it;
 *   attention-live:panels        … to the frame that shows the open panels' numbers for it ("Show the
 *                                math" and the next token need more requests to Python).
 */
import { afterPaint } from "../../lib/frames.js";

const KEEP = 1000; // measures kept before the browser's list is cleared: bounded over long use

export function createMeasures() {
  let updates = 0;
  const measure = (name, start) => performance.measure(`attention-live:${name}`, { start, end: performance.now() });
  const atNextFrame = (name, start) => requestAnimationFrame(() => measure(name, start));
  return {
    firstPaint() {
      afterPaint().then(() => performance.mark("attention-live:first-paint"));
    },
    live() {
      performance.mark("attention-live:live");
    },
    /** The edit of `inputTime` (performance.now() time; undefined: not an edit) is in the DOM. */
    drawn(inputTime) {
      if (inputTime === undefined) return;
      if (++updates % KEEP === 0) performance.clearMeasures(); // never between an edit's measures
      measure("drawn", inputTime);
      atNextFrame("update", inputTime);
    },
    /** The open panels show the numbers of the edit of `inputTime`. */
    panels(inputTime) {
      atNextFrame("panels", inputTime);
    },
    destroy() {},
  };
}
