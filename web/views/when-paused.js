/* Text that nobody sees while the reader types: the matrix's table of every query's top keys, the rows
 * of the math panel's table scrolled out of its box. Writing it on every keystroke would cost a layout
 * of a hundred rows each time; it is written once the reader pauses instead, and the element says so
 * to screen readers with aria-busy="true" in the meantime (WAI-ARIA 1.2, aria-busy: "the element is
 * being modified and assistive technologies may want to wait until the modifications are complete").
 */

/** How long the figure gets no new numbers before the reader counts as paused (ms); the link
 *  in the address waits as long (page-link.js). */
export const PAUSE_MS = 400;

/** A writer of `element`'s text that can wait: `later(write)` runs `write` once no other `later` came
 *  for PAUSE_MS (only the latest one runs), `now()` runs the waiting one at once (a scroll shows it, the
 *  page is printed), `nothingLater()` drops it (everything was just written). `element` has
 *  aria-busy="true" while a write waits, "false" otherwise. */
export function whenPaused(element) {
  let timer = null;
  let waiting = null;
  const busy = (value) => { // written only when it changes: later() comes on every keystroke
    if (element.getAttribute("aria-busy") !== value) element.setAttribute("aria-busy", value);
  };
  const done = () => {
    clearTimeout(timer);
    waiting = null;
    busy("false");
  };
  const now = () => {
    if (!waiting) return;
    const write = waiting;
    done();
    write();
  };
  return {
    later(write) {
      waiting = write;
      busy("true");
      clearTimeout(timer);
      timer = setTimeout(now, PAUSE_MS);
    },
    now,
    nothingLater: done,
  };
}
