/* "Watch it learn": the shipped model's training run, one checkpoint at a time, for the text in the box.
 *
 *   #learn-view
 *     .learn-controls
 *       button.learn-play      "Play" / "Pause" (aria-pressed): steps through the checkpoints from the
 *                              first (or from the one shown), one after each is drawn and has stayed DWELL_MS
 *       label + input[type=range].learn-step   0 … n-1: the checkpoint's place in training order; the
 *                              browser's own keys (arrows, Home, End, Page Up/Down); aria-valuetext names it
 *     ol.learn-ticks           the steps under the slider (aria-hidden: the slider's value text says them)
 *     p.learn-line             "step 350 of 3,250 · validation 4.68 nats/token" (role=status: said when it changes)
 *
 * createLearn(container, {checkpoints: [{step, validation}] (training order, the last the shipped
 *   model; from build.json), on: {pick(step)}, messages}) → {draw(props), destroy()}
 *   pick(step): the reader chose the checkpoint of training step `step` (a number); messages: a function
 *   returning the figure's current Messages (i18n/messages.js), read at each draw (the label and the
 *   ticks are written once, when made).
 *   props: {open: boolean (the control is open), step: number (the chosen checkpoint's step), shown: number | null (the step whose numbers
 *          are on screen; null: none yet), live: boolean (the model runs: a choice can be computed)}
 */
import { element, setHidden, setText } from "../lib/dom.js";
import { thousands } from "../draw/numbers.js";

const DWELL_MS = 1200; // how long Play shows each checkpoint once it is drawn

/** The numbers of the line of `checkpoint` of the run ending at `last`, written by `messages`:
 *  {step, last, validation}; shared with the image export, whose line has words of its own. */
export function checkpointParams(checkpoint, last, messages) {
  return { step: thousands(checkpoint.step, messages), last: thousands(last.step, messages), validation: messages.number(checkpoint.validation, 2) };
}

/** "step 350 of 3,250 · validation 4.68 nats/token" for `checkpoint` of the run ending at `last`. */
export function checkpointText(checkpoint, last, messages) {
  return messages.text(checkpoint.step === last.step ? "learn.lineTrained" : "learn.line", checkpointParams(checkpoint, last, messages));
}

export function createLearn(container, { checkpoints, on, messages }) {
  const listening = new AbortController();
  const { signal } = listening;
  const last = checkpoints.at(-1);
  const steps = checkpoints.map((checkpoint) => checkpoint.step);
  const words = messages(); // the words written once, here
  const play = element("button", "learn-play", words.text("learn.play"));
  play.type = "button";
  play.setAttribute("aria-pressed", "false");
  const slider = element("input", "learn-step");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(checkpoints.length - 1);
  slider.step = "1";
  slider.id = "learn-step";
  const label = element("label", "learn-label", words.text("learn.label"));
  label.htmlFor = slider.id;
  const ticks = element("ol", "learn-ticks");
  ticks.setAttribute("aria-hidden", "true");
  ticks.append(...steps.map((step) => element("li", null, thousands(step, words))));
  const line = element("p", "learn-line");
  line.setAttribute("role", "status");
  const controls = element("div", "learn-controls");
  controls.append(play, label, slider);
  container.replaceChildren(controls, ticks, line);
  let playing = false;
  let dwell = null; // the timer that moves Play on
  let props = { step: last.step, shown: null, live: false };

  const at = (step) => Math.max(0, steps.indexOf(step));

  function stop() {
    playing = false;
    clearTimeout(dwell);
    dwell = null;
    setText(play, messages().text("learn.play"));
    play.setAttribute("aria-pressed", "false");
  }

  slider.addEventListener("input", () => {
    stop();
    on.pick(steps[Number(slider.value)]);
  }, { signal });
  play.addEventListener("click", () => {
    if (playing) return stop();
    playing = true;
    setText(play, messages().text("learn.pause"));
    play.setAttribute("aria-pressed", "true");
    on.pick(props.step === last.step ? steps[0] : props.step); // from the start, or on from the one shown
    moveOn();
  }, { signal });

  /* While playing: once the chosen checkpoint is on screen, the next after DWELL_MS; stop at the last. */
  function moveOn() {
    if (!playing || dwell !== null || props.shown !== props.step) return;
    const next = at(props.step) + 1;
    if (next >= steps.length) return stop();
    dwell = setTimeout(() => {
      dwell = null;
      if (playing) on.pick(steps[next]);
    }, DWELL_MS);
  }

  /** Show the checkpoint of `props.step` (see above): the slider, and the line once its numbers are shown. */
  function draw(next) {
    props = { ...props, ...next };
    if (!props.open) stop();
    const index = at(props.step);
    if (slider.value !== String(index)) slider.value = String(index);
    const chosen = checkpoints[index];
    const words = messages();
    const chosenText = checkpointText(chosen, last, words);
    slider.setAttribute("aria-valuetext", chosenText);
    slider.disabled = !props.live;
    play.disabled = !props.live;
    const waiting = props.shown !== props.step;
    setText(line, !props.live ? words.text("views.waiting") : waiting ? words.text("learn.computing", { line: chosenText }) : chosenText);
    for (const [i, tick] of Array.from(ticks.children).entries()) tick.classList.toggle("chosen", i === index);
    setHidden(ticks, false);
    moveOn();
  }

  function destroy() {
    stop();
    listening.abort();
    container.replaceChildren();
  }

  return { draw, destroy, lastStep: last.step };
}
