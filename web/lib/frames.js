/* Waiting for a drawn frame where the browser may draw none.
 *
 * Browsers draw no frames for a background tab or for an iframe offscreen or inside a display:none box
 * (an LMS tab, an accordion, a figure far below the fold): requestAnimationFrame callbacks and
 * ResizeObserver notifications wait until it is shown. The figure's work and answers must not wait
 * there; only its painting may. So:
 *
 *   drawn()        frames are drawn now: the document is visible and its root element intersects
 *                  the viewport (IntersectionObserver, which browsers keep running for such frames);
 *   afterPaint()   resolves once the next frame has been drawn, or, where none is drawn, once the
 *                  tasks already queued have run (a MessageChannel message, which no browser throttles
 *                  as it throttles timers in hidden frames); FRAME_WAIT_MS without the frame that was
 *                  expected (a tab hidden meanwhile) resolves it too.
 */

const FRAME_WAIT_MS = 250;
let onScreen = true; // until the observer's first report: a top-level page is on screen

new IntersectionObserver(([entry]) => { onScreen = entry.isIntersecting; }).observe(document.documentElement);

export function drawn() {
  return document.visibilityState === "visible" && onScreen;
}

function afterQueuedTasks() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

export function afterPaint() {
  if (!drawn()) return afterQueuedTasks();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FRAME_WAIT_MS);
    requestAnimationFrame(() => afterQueuedTasks().then(() => {
      clearTimeout(timer);
      resolve();
    }));
  });
}
