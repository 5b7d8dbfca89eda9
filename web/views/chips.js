/* The chips view: one button per token. Labels are set as text content, never parsed as HTML.
 *
 *   chip:  [ ␣said ]   data-index="3"
 *          [ 41.2% ]   data-weight="0.41204833984375"   (chips at or before the query)
 *   later chips: class "masked", data-masked="true", no weight, hatched (causal attention)
 *   background: the weight on the figure's colour scale (colour.js); the percentage always in text
 */
import { needsLightText, weightCss } from "./colour.js";
import { percent as written } from "./numbers.js";

const PARTIAL = /\u27e8[0-9A-F]{2}( [0-9A-F]{2})*\u27e9/; // ⟨C3 A9⟩: bytes of a character split across tokens

function describe(label, index, id) {
  const partial = PARTIAL.test(label) ? " · ⟨hex⟩ are UTF-8 bytes of a character that this token holds only part of" : "";
  return `token ${index} (id ${id}): ${label}${partial}`;
}

function makeChip(index, onPick, onPreview) {
  const chip = document.createElement("button");
  chip.type = "button";
  chip.className = "chip";
  chip.dataset.index = String(index);
  chip.index = index;
  chip.shown = { query: false, preview: false, weight: undefined }; // what drawWeights last wrote
  const label = document.createElement("span");
  label.className = "label";
  const percent = document.createElement("span");
  percent.className = "percent";
  chip.percentText = percent.appendChild(document.createTextNode("")); // its text changes on most keystrokes
  chip.append(label, percent);
  chip.addEventListener("click", () => onPick(index));
  chip.addEventListener("mouseenter", () => onPreview(index));
  chip.addEventListener("mouseleave", () => onPreview(null));
  return chip;
}

/** Show one chip per label in `container`, reusing the chips already there (typing changes few of them);
 *  `onPick(index)` on click, `onPreview(index|null)` on hover. */
export function drawTokens(container, labels, ids, onPick, onPreview) {
  if (labels.length === 0) {
    const empty = document.createElement("p");
    empty.className = "empty";
    empty.textContent = "Type something above to see its tokens.";
    container.replaceChildren(empty);
    return;
  }
  container.querySelector(".empty")?.remove();
  const chips = container.children;
  labels.forEach((label, index) => {
    const chip = chips[index] ?? container.appendChild(makeChip(index, onPick, onPreview));
    if (chip.tokenId !== ids[index]) { // the id decides the label
      chip.tokenId = ids[index];
      chip.firstChild.textContent = label;
      chip.title = describe(label, index, ids[index]);
    }
  });
  while (chips.length > labels.length) container.lastChild.remove();
}

/** Show one attention row: `row` holds the weights (probabilities) of keys 0..T-1 for query `query`;
 *  keys after it are masked unless `causal` is false (the "causal mask off" what-if).
 *  Most edits change every chip (the query's row is new); each chip remembers what it shows, and only
 *  what differs is written, since every write costs the page a new style, layout or paint. */
export function drawWeights(container, row, query, previewing, causal = true) {
  for (const chip of container.children) {
    const { index, shown } = chip;
    if (index === undefined) continue; // the "type something" line
    const isQuery = index === query && !previewing;
    const isPreview = index === query && previewing;
    if (isQuery !== shown.query) {
      chip.classList.toggle("query", isQuery);
      shown.query = isQuery;
    }
    if (isPreview !== shown.preview) {
      chip.classList.toggle("preview", isPreview);
      shown.preview = isPreview;
    }
    if (!previewing) setAttribute(chip, "aria-pressed", String(index === query));
    const weight = index > query && causal ? null : row[index]; // null: masked, a key after the query
    if (weight === shown.weight) continue;
    const wasMasked = shown.weight === null;
    shown.weight = weight;
    if (weight === null) {
      chip.classList.add("masked");
      chip.classList.remove("strong");
      chip.dataset.masked = "true";
      delete chip.dataset.weight;
      chip.style.backgroundColor = "";
      chip.percentText.data = "";
      continue;
    }
    if (wasMasked) {
      chip.classList.remove("masked");
      delete chip.dataset.masked;
    }
    chip.classList.toggle("strong", needsLightText(weight));
    chip.style.backgroundColor = weightCss(weight);
    chip.dataset.weight = String(weight);
    chip.percentText.data = written(weight); // the same text node: no new layout object per keystroke
  }
}

function setAttribute(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Replace the buttons of a fieldset by 1..count; `onPick(n)` with the 1-based number clicked. */
export function drawChoices(fieldset, count, onPick) {
  const legend = fieldset.querySelector("legend");
  const buttons = Array.from({ length: count }, (_, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = String(i + 1);
    button.dataset.value = String(i + 1);
    button.addEventListener("click", () => onPick(i + 1));
    return button;
  });
  fieldset.replaceChildren(legend, ...buttons);
}

/** Mark the button for `value` (1-based) as pressed. */
export function markChoice(fieldset, value) {
  for (const button of fieldset.querySelectorAll("button")) {
    button.setAttribute("aria-pressed", String(Number(button.dataset.value) === value));
  }
}

/** Mark quietly the first `count` chips: their keys and values came from the KV cache on the last edit. */
export function markReused(container, count) {
  for (const chip of container.children) {
    if (chip.index !== undefined) chip.classList.toggle("reused", chip.index < count);
  }
}
