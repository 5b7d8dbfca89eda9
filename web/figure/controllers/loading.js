/* Loading a figure (one feature of a figure: figure.js's controllers): build.json and the first paint,
 * then the page's Python (runtime/python-client.js, started or joined), with the loading line, and
 * "Try again" after a failure.
 *
 *   waiting ──(attempt)──▶ loading ──(Python ready, live attention drawn)──▶ ready
 *                             │                ▲
 *                             └──▶ error ──(Try again)
 */
import { focusedIn } from "../../lib/dom.js";

/** The loading line (a message for lib/shown.js): the step, the megabytes downloaded of the total and,
 *  once the rate is known (after 2 s), about how long is left at the rate so far, each a phrase of its
 *  own. `startedAt`: performance.now() at the start. */
function describeLoading({ stage, downloaded, total }, startedAt) {
  const seconds = (performance.now() - startedAt) / 1000;
  const left = downloaded > 0 && seconds >= 2 && downloaded < total ? (total - downloaded) / (downloaded / seconds) : null;
  return (messages) => {
    const parts = [messages.text(stage === "python" ? "loading.python" : "loading.package"),
      messages.text("loading.megabytes", { downloaded: messages.number(downloaded / 1e6, 1), total: messages.number(total / 1e6, 1) })];
    if (left !== null && left < 60) parts.push(messages.text("loading.secondsLeft", { count: Math.max(1, Math.round(left)) }));
    else if (left !== null) parts.push(messages.text("loading.minutesLeft", { count: Math.round(left / 60) }));
    return parts.join(messages.text("status.separator"));
  };
}

/**
 * @param figure   the core (figure.js): loading(), failed(message), goLive(), showManifest(manifest),
 *                 showTokens(shown), setStatus(message), manifest, text, live, result; each message
 *                 one that lib/shown.js writes ({key, params}, or a function of the figure's Messages)
 * @param parts    {retry, text}: the "Try again" button and the text box (where its focus goes)
 * @param options  {python, buildFolder, manifest}: the page's PythonClient, the build's folder URL,
 *                 () => Promise of build.json
 * @returns {attempt(), prepare(), showTokensEarly(), destroy()}
 */
export function createLoading(figure, { retry, text }, { python, buildFolder, manifest }) {
  const listening = new AbortController();
  let attempting = false;
  let preparing = null; // prepare()'s promise while build.json is on its way
  let stopProgress = () => {};

  function fail(message) {
    figure.failed(message);
    retry.hidden = false;
  }

  /* build.json and the first paint, once: resolves to false where build.json could not be had (the
   * figure then says why). `beforeDrawing(manifest)` runs as soon as it has arrived. */
  function prepare(beforeDrawing = () => {}) {
    if (figure.manifest !== null) return Promise.resolve(true);
    preparing ??= (async () => {
      let built;
      try {
        built = await manifest();
      } catch (error) {
        fail({ key: "loading.failed", params: { reason: error } });
        return false;
      } finally {
        preparing = null;
      }
      beforeDrawing(built);
      figure.showManifest(built);
      return true;
    })();
    return preparing;
  }

  /* Python and the model, for one attempt: the page's Python, started or joined. */
  async function boot(built) {
    try {
      figure.setStatus({ key: "loading.python" });
      const startedAt = performance.now();
      stopProgress = python.onProgress((p) => figure.setStatus(describeLoading(p, startedAt)));
      try {
        await python.start(buildFolder, built);
      } finally {
        stopProgress();
      }
      await figure.goLive();
    } catch (error) {
      fail({ key: "loading.failed", params: { reason: error } }); // the reason: a message of the catalog (lib/shown.js), or the error's own words
    }
  }

  /** Go live: build.json first if it has not arrived yet, then Python (the first attempt, and each "Try again"). */
  async function attempt() {
    if (attempting) return;
    attempting = true;
    try {
      figure.loading();
      if (focusedIn(retry) === retry) text.focus({ preventScroll: true }); // not lost with the button
      retry.hidden = true;
      // Python is asked for as soon as build.json is here, so that it starts (or, already running for
      // another figure, answers) while the first paint is drawn; boot() then waits for it
      const startPython = (built) => python.start(buildFolder, built).catch(() => {}); // boot() reports a failure
      if (await prepare(startPython)) await boot(figure.manifest);
    } finally {
      attempting = false;
    }
  }

  /** A figure that is not live yet, with a text of its own (no precomputed view): its tokens, drawn
   *  without attention, once the page's Python runs (started by another figure); its attention
   *  comes when it goes live. */
  async function showTokensEarly() {
    if (!(await prepare())) return;
    await python.running;
    const asked = figure.text;
    if (figure.live || figure.result || asked === "") return; // live, or the precomputed view is shown
    const shown = await python.tokenize(asked).catch(() => null);
    if (!shown || figure.live || figure.result || figure.text !== asked) return;
    figure.showTokens(shown);
  }

  retry.addEventListener("click", attempt, { signal: listening.signal });
  return {
    attempt,
    prepare,
    showTokensEarly,
    destroy() {
      listening.abort();
      stopProgress();
    },
  };
}
