/* Text that nobody sees while the reader types: the matrix's table of every query's top keys, the rows
 * of the math panel's table scrolled out of its box, the panels far out of view. Writing it on every
 * keystroke would cost a layout of a hundred rows (or a panel's canvases) each time; it is written once
 * the reader pauses instead, and the element says so to screen readers with aria-busy="true" in the
 * meantime (WAI-ARIA 1.2, aria-busy: "the element is being modified and assistive technologies may
 * want to wait until the modifications are complete").
 */

/** How long the figure gets no new numbers before the reader counts as paused (ms); the link
 *  in the address waits as long (page-link.js). */
export const PAUSE_MS = 400;

/* The writers with a write waiting, all written at once before the page is printed (a print shows every
 * row of the boxes it unrolls). One listener for the page; a writer is here only while a write waits,
 * so a figure removed from the page is not kept by it. */
const waiting = new Set();
window.addEventListener("beforeprint", () => {
  for (const writer of [...waiting]) writer.now();
});

/** A writer of `element`'s text that can wait: `later(write)` runs `write` once no other `later` came
 *  for PAUSE_MS (only the latest one runs), `now()` runs the waiting one at once (a scroll shows it; the
 *  page is printed: every waiting write runs first), `nothingLater()` drops it (everything was just
 *  written). `element` has aria-busy="true" while a write waits, "false" otherwise. */
export function whenPaused(element) {
  let timer = null;
  let write = null; // the write that waits
  const busy = (value) => { // written only when it changes: later() comes on every keystroke
    if (element.getAttribute("aria-busy") !== value) element.setAttribute("aria-busy", value);
  };
  const writer = {
    later(next) {
      write = next;
      waiting.add(writer);
      busy("true");
      clearTimeout(timer);
      timer = setTimeout(writer.now, PAUSE_MS);
    },
    now() {
      if (!write) return;
      const run = write;
      writer.nothingLater();
      run();
    },
    nothingLater() {
      clearTimeout(timer);
      write = null;
      waiting.delete(writer);
      busy("false");
    },
  };
  return writer;
}

/** A writer of the view `element` (an open panel's content) that draws at once while the element is on
 *  screen or near it (within half a viewport), and otherwise waits as `whenPaused` does: until the
 *  reader pauses, the element comes into view (an IntersectionObserver, which also tells a closed
 *  panel: its content has no box), or the page is printed. `draw(write)` runs `write` or makes it
 *  the one that waits (only the latest runs); `destroy()` ends it. A panel below the fold then costs nothing
 *  per keystroke. */
export function whenSeenOrPaused(element) {
  const writer = whenPaused(element);
  let onScreen = true; // until the observer's first report, which comes with the next frame
  const observer = new IntersectionObserver((entries) => {
    onScreen = entries.at(-1).isIntersecting; // the latest, where several came at once
    if (onScreen) writer.now();
  }, { rootMargin: "50%" });
  observer.observe(element);
  return {
    draw(write) {
      if (!onScreen) return writer.later(write);
      writer.nothingLater();
      write();
    },
    /** Stop watching the element; the write waiting, if any, is dropped (the figure goes away). */
    destroy() {
      observer.disconnect();
      writer.nothingLater();
    },
  };
}
