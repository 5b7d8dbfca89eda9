/* The next token: what the model predicts after the query position, and heads knocked out.
 *
 *   ol.predictions     the top candidates, each: label, a bar as long as its probability, the
 *                      percentage, and with a knockout the change against the intact model
 *   p.actual           the token that really follows in the text: its probability and rank
 *   .knockouts         one toggle button per head (aria-pressed): knocked out = its attention output
 *                      zeroed before c_proj at every position, a what-if
 *
 * createNextToken(container, {config: {n_layer, n_head}, on: {knockout(layer, head)}, messages}) → {draw(props), clear(message), destroy()}
 *   knockout: a head's toggle pressed (1-based); messages: a function returning the figure's current
 *   Messages (i18n/messages.js), read at each draw (the toggles' words are written once, when made).
 *   props (each group optional: a group left out keeps what is drawn):
 *     predicted: the answer of Figure.predict {token (0-based), candidates: [{id, label, p, p_intact?,
 *                delta?}], next: {id, label, p, rank} | null, knockout: [[layer, head], …]} | null
 *     labels: string[T]                               the tokens (with predicted)
 *     waiting: string | null                          with predicted null: why there is none (shown
 *                                                     instead); null keeps the last prediction meanwhile
 *     knockout: [[layer, head], …]                    the heads knocked out (1-based): their toggles pressed
 *     enabled: boolean                                the toggles usable (false while the live model loads)
 * Numbers are Python's.
 */
import { percent, thousands } from "../draw/numbers.js";
import { wholeNumbers } from "../lib/check.js";
import { element } from "../lib/dom.js";

/* A candidate's probability, and with a knockout its change against the intact model in percentage points. */
function probabilityText(candidate, messages) {
  const p = percent(candidate.p, messages);
  if (candidate.delta === undefined) return p;
  const points = messages.number(Math.abs(100 * candidate.delta), 1);
  return messages.text(candidate.delta < 0 ? "next.probabilityDown" : "next.probabilityUp", { percent: p, points });
}

/** The panel's words for `predicted` (see above) and the tokens `labels` in the language of `messages`:
 *  {heading, candidates: [{label, p (probability), p_text}], actual}; shared by the panel and the image
 *  export (export.js). */
export function nextText(predicted, labels, messages) {
  return {
    heading: messages.text("next.heading", { label: labels[predicted.token], index: predicted.token + 1 }),
    candidates: predicted.candidates.map((candidate) => ({
      label: messages.text("next.candidate", { label: candidate.label }),
      p: candidate.p,
      p_text: probabilityText(candidate, messages),
    })),
    actual: predicted.next
      ? messages.text("next.actual", { label: predicted.next.label, percent: percent(predicted.next.p, messages), rank: thousands(predicted.next.rank, messages) })
      : messages.text("next.last"),
  };
}

export function createNextToken(container, { config, on, messages }) {
  wholeNumbers("createNextToken", "config", config, ["n_layer", "n_head"]);
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const heading = element("p", "next-heading");
  const list = element("ol", "predictions");
  const actual = element("p", "actual");
  const knockouts = element("fieldset", "knockouts");
  const words = messages(); // the words written once, here
  knockouts.append(element("legend", null, words.text("next.knockouts")));
  const toggles = [];
  for (let layer = 1; layer <= config.n_layer; layer++) {
    for (let head = 1; head <= config.n_head; head++) {
      const button = element("button", "knockout", words.text("next.knockout", { layer, head }));
      button.type = "button";
      Object.assign(button.dataset, { layer: String(layer), head: String(head) });
      button.setAttribute("aria-pressed", "false");
      button.addEventListener("click", () => on.knockout(layer, head), { signal });
      knockouts.append(button);
      toggles.push({ button, key: `${layer}.${head}` });
    }
  }
  container.replaceChildren(heading, list, actual, knockouts);

  /** Draw `props` (see above). */
  function draw({ predicted, labels, waiting = null, knockout, enabled }) {
    if (enabled !== undefined) {
      for (const { button } of toggles) button.disabled = !enabled;
    }
    if (knockout) {
      const knocked = new Set(knockout.map(([layer, head]) => `${layer}.${head}`));
      for (const { button, key } of toggles) button.setAttribute("aria-pressed", String(knocked.has(key)));
    }
    if (predicted) drawPredicted(predicted, labels);
    else if (waiting) clear(waiting);
  }

  /** Show `text` instead of a prediction (the knockouts stay). */
  function clear(text) {
    heading.textContent = text;
    list.replaceChildren();
    actual.textContent = "";
  }

  function drawPredicted(predicted, labels) {
    const text = nextText(predicted, labels, messages());
    heading.textContent = text.heading;
    list.replaceChildren(...text.candidates.map((candidate) => {
      const item = element("li");
      const bar = element("span", "bar");
      bar.style.width = `${(100 * candidate.p).toFixed(1)}%`; // not shown
      item.append(element("span", "candidate", candidate.label), element("span", "bar-track"), element("span", "p", candidate.p_text));
      item.children[1].append(bar);
      return item;
    }));
    actual.textContent = text.actual;
  }

  /** Remove every listener added here; empty the container. */
  function destroy() {
    listening.abort();
    container.replaceChildren();
  }

  return { draw, clear, destroy };
}
