/* The next token: what the model predicts after the query position, and heads knocked out.
 *
 *   ol.predictions     the top candidates, each: label, a bar as long as its probability, the
 *                      percentage, and with a knockout the change against the intact model
 *   p.actual           the token that really follows in the text: its probability and rank
 *   .knockouts         one toggle button per head (aria-pressed): knocked out = its attention output
 *                      zeroed before c_proj at every position, a what-if
 *
 * Input: `predicted`, the answer of Figure.predict ({token, candidates: [{id, label, p, p_intact?,
 * delta?}], next: {id, label, p, rank} | null, knockout}), and the view state. Numbers are Python's.
 */
import { percent, thousands } from "../draw/numbers.js";
import { element } from "../lib/dom.js";

const points = (delta) => `${delta < 0 ? "−" : "+"}${Math.abs(100 * delta).toFixed(1)} pts`;

/** The panel's words for `predicted` (see above) and the tokens `labels`: {heading, candidates: [{label,
 *  p (probability), p_text}], actual}; shared by the panel and the image export (export.js). */
export function nextText(predicted, labels) {
  return {
    heading: `After «${labels[predicted.token]}» (token ${predicted.token + 1}) the model expects:`,
    candidates: predicted.candidates.map((candidate) => ({
      label: `«${candidate.label}»`,
      p: candidate.p,
      p_text: percent(candidate.p) + (candidate.delta === undefined ? "" : ` (${points(candidate.delta)} against the intact model)`),
    })),
    actual: predicted.next
      ? `In the text, «${predicted.next.label}» follows: ${percent(predicted.next.p)}, rank ${thousands(predicted.next.rank)}.`
      : "This is the last token: nothing follows it in the text yet.",
  };
}

export function createNextToken(container, config, onKnockout) {
  const heading = element("p", "next-heading");
  const list = element("ol", "predictions");
  const actual = element("p", "actual");
  const knockouts = element("fieldset", "knockouts");
  knockouts.append(element("legend", null, "Knock out heads (a what-if): a knocked-out head hands nothing over"));
  const toggles = [];
  for (let layer = 1; layer <= config.n_layer; layer++) {
    for (let head = 1; head <= config.n_head; head++) {
      const button = element("button", "knockout", `layer ${layer} · head ${head}`);
      button.type = "button";
      Object.assign(button.dataset, { layer: String(layer), head: String(head) });
      button.setAttribute("aria-pressed", "false");
      button.addEventListener("click", () => onKnockout(layer, head));
      knockouts.append(button);
      toggles.push(button);
    }
  }
  container.replaceChildren(heading, list, actual, knockouts);

  /** Draw `predicted` for the tokens `labels`, with the knocked-out heads of `state`; with no
   *  prediction, `waiting` says why (the last prediction stays while a new one is on its way). */
  function draw(predicted, labels, state, waiting = null) {
    const knocked = new Set(state.knockout.map(([layer, head]) => `${layer}.${head}`));
    for (const button of toggles) button.setAttribute("aria-pressed", String(knocked.has(`${button.dataset.layer}.${button.dataset.head}`)));
    if (!predicted) {
      if (waiting) {
        heading.textContent = waiting;
        list.replaceChildren();
        actual.textContent = "";
      }
      return;
    }
    const text = nextText(predicted, labels);
    heading.textContent = text.heading;
    list.replaceChildren(...text.candidates.map((candidate) => {
      const item = element("li");
      const bar = element("span", "bar");
      bar.style.width = `${(100 * candidate.p).toFixed(1)}%`;
      item.append(element("span", "candidate", candidate.label), element("span", "bar-track"), element("span", "p", candidate.p_text));
      item.children[1].append(bar);
      return item;
    }));
    actual.textContent = text.actual;
  }

  /** Let the knockout toggles be used (false while the live model is not there to compute them). */
  function enable(on) {
    for (const button of toggles) button.disabled = !on;
  }

  return { draw, enable };
}
