/* What a screen reader hears: one polite live region (role="status"), written rarely. A reader who
 * types hears one summary once they pause (PAUSE_MS without an edit), never one per keystroke; a
 * reader who chooses a token, layer or head hears the new summary at once, once per choice (choices
 * made faster than PAUSE_MS apart, such as a held arrow key, are said once, after the last). Nothing is
 * assertive. The status line under the controls is for the eyes (it changes on every hover).
 */

const PAUSE_MS = 500;

/** The announcer of `region` (an element with role="status"):
 *   now(text)          says `text` at once (and cancels a pending sentence);
 *   again(text)        the same, even if `text` is what was said last (an error met again);
 *   choice(compose)    says compose() at once, unless something was said less than PAUSE_MS ago:
 *                      then once PAUSE_MS have passed without another choice;
 *   later(compose)     says compose() once PAUSE_MS have passed without another call;
 *   stop()             drops the sentence waiting, if any (its figure is gone). */
export function createAnnouncer(region) {
  let timer = null;
  let saidAt = -Infinity;
  const say = (text) => {
    clearTimeout(timer);
    timer = null;
    saidAt = performance.now();
    if (region.textContent !== text) region.textContent = text;
  };
  const after = (compose) => {
    clearTimeout(timer);
    timer = setTimeout(() => say(compose()), PAUSE_MS);
  };
  return {
    now: say,
    again(text) {
      say("");
      timer = setTimeout(() => say(text), 50); // an emptied region, then the text: a change to announce
    },
    choice(compose) {
      if (performance.now() - saidAt < PAUSE_MS) after(compose);
      else say(compose());
    },
    later: after,
    stop() {
      clearTimeout(timer);
      timer = null;
    },
  };
}
