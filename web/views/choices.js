/* The layer and head selectors: a radio group per fieldset, named by its legend.
 *
 *   fieldset#layers  legend, then label.choice[data-value="1"] > input[type=radio][name=layers][value=1] + span "1", …
 *
 * createChoices(fieldset, {config: {count}, on: {pick(n)}, messages}) → {draw(props), clear(message), destroy()}
 *   count: how many choices (n_layer or n_head); pick(n): the 1-based number chosen (click, tap, or the
 *   browser's own keyboard for radio groups: one tab stop, arrow keys); messages: a function returning
 *   the figure's current Messages (i18n/messages.js), which writes each choice's number (once, when made).
 *   props: {value: number}   the 1-based choice checked
 * The radios are named after the fieldset's id, so each group is its own.
 */
import { wholeNumbers } from "../lib/check.js";
import { element } from "../lib/dom.js";

export function createChoices(fieldset, { config, on, messages }) {
  wholeNumbers("createChoices", "config", config, ["count"]);
  const words = messages();
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  const legend = fieldset.querySelector("legend");
  const radios = []; // radios[n - 1]: the radio of choice n
  const choices = Array.from({ length: config.count }, (_, i) => {
    const label = element("label", "choice");
    label.dataset.value = String(i + 1);
    const radio = element("input");
    radio.type = "radio";
    radio.name = fieldset.id;
    radio.value = String(i + 1);
    radio.addEventListener("change", () => { if (radio.checked) on.pick(i + 1); }, { signal });
    radios.push(radio);
    label.append(radio, element("span", null, words.number(i + 1)));
    return label;
  });
  fieldset.replaceChildren(...(legend ? [legend] : []), ...choices);

  /** Check the radio of `props.value` (1-based). */
  function draw({ value }) {
    radios.forEach((radio, i) => {
      const checked = i + 1 === value;
      if (radio.checked !== checked) radio.checked = checked;
    });
  }

  /** No choice checked (the group has no message of its own: `message` is not shown). */
  function clear() {
    draw({ value: null });
  }

  /** Remove the choices and their listeners, keeping the legend. */
  function destroy() {
    listening.abort();
    fieldset.replaceChildren(...(legend ? [legend] : []));
  }

  return { draw, clear, destroy };
}
