/* What a screen reader hears: one polite live region (role="status"), written rarely. A reader who
 * types hears one summary once they pause (PAUSE_MS without an edit), never one per keystroke; a
 * reader who chooses a token, layer or head hears the new summary at once, once per choice. Nothing
 * is assertive. The status line under the controls is for the eyes (it changes on every hover).
 */

const PAUSE_MS = 500;

/** The announcer of `region` (an element with role="status"): `now(text)` says `text` at once (and
 *  cancels a pending `later`); `later(compose)` says `compose()` once PAUSE_MS have passed without
 *  another `later` or `now`. */
export function createAnnouncer(region) {
  let timer = null;
  const say = (text) => {
    if (region.textContent !== text) region.textContent = text;
  };
  return {
    now(text) {
      clearTimeout(timer);
      timer = null;
      say(text);
    },
    later(compose) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        say(compose());
      }, PAUSE_MS);
    },
  };
}
