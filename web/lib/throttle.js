/* Messages that carry the figure's whole state (its T × T attention matrices) are sent at most once
 * per interval while the view changes: the element's change events and the embedding's state messages. */

/** `send` at most once every `ms` milliseconds: call `changed()` on every change. A change after a
 *  quiet interval is sent at once (after the tasks already queued, so that a burst of changes in one
 *  task sends one message); a change within `ms` of the last send is sent when `ms` has passed, once
 *  however many came. `sent()` records a send made outside the throttle (an answer to a request), so
 *  that the next throttled one still waits `ms` after it. */
export function throttled(ms, send) {
  let timer = null;
  let sentAt = -Infinity;
  const sent = () => { sentAt = performance.now(); };
  const wait = () => Math.ceil(sentAt + ms - performance.now()); // whole ms: a timer's fraction is cut off, which would send early
  function schedule() {
    timer = setTimeout(() => {
      if (wait() > 0) return schedule(); // a send outside the throttle came meanwhile: ms after it
      timer = null;
      sent();
      send();
    }, Math.max(0, wait()));
  }
  return {
    changed() {
      if (timer === null) schedule();
    },
    sent,
  };
}
