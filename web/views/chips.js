/* The chips view: one button per token. Labels are set as text content, never parsed as HTML.
 *
 *   chip:  [ ␣said ]   data-index="3"
 *          [ 41.2% ]   data-weight="0.41204833984375"   (chips at or before the query)
 *   later chips: class "masked", data-masked="true", no weight, hatched (causal attention)
 *   background: the weight on the figure's colour scale (colour.js); the percentage always in text
 *   accessible name: "«␣Alice» 48.6%, token 6 of 16" (its visible text first, WCAG 2.5.3; masked:
 *   "«␣her», token 12 of 16, masked (a later token)");
 *   aria-pressed="true" on the query
 *
 * Names while the reader types: every chip's name changes with every keystroke (the query's row is new);
 * the names are written once the reader pauses, the group aria-busy="true" meanwhile (when-paused.js),
 * unless the focus is on a chip: then at once, since a screen reader reads the focused one's name.
 *
 * Keyboard: the chips are one tab stop (the query's chip; roving tabindex); Left and Right move the
 * query one token, Home and End to the first and the last; Enter and Space select the focused chip.
 */
import { needsLightText, weightClass } from "../draw/colour.js";
import { focusedIn } from "../lib/dom.js";
import { percent as written } from "../draw/numbers.js";
import { whenPaused } from "../lib/when-paused.js";

const PARTIAL = /\u27e8[0-9A-F]{2}( [0-9A-F]{2})*\u27e9/; // ⟨C3 A9⟩: bytes of a character split across tokens

function describe(label, index, id) {
  const partial = PARTIAL.test(label) ? " · ⟨hex⟩ are UTF-8 bytes of a character that this token holds only part of" : "";
  return `token ${index + 1} (id ${id}): ${label}${partial}`;
}

function makeChip(index, onPick, onPreview) {
  const chip = document.createElement("button");
  chip.type = "button";
  chip.className = "chip";
  chip.dataset.index = String(index);
  chip.index = index;
  chip.shown = { query: false, preview: false, weight: undefined, colour: undefined }; // what drawWeights last wrote
  const label = document.createElement("span");
  label.className = "label";
  const percent = document.createElement("span");
  percent.className = "percent";
  chip.percentText = percent.appendChild(document.createTextNode("")); // its text changes on most keystrokes
  chip.append(label, " ", percent); // the space: the visible text reads "␣Alice 48.6%", as the name does
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
      chip.label = label;
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
  const T = container.children.length;
  const names = [];
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
    if (!previewing) {
      setAttribute(chip, "aria-pressed", String(index === query));
      setAttribute(chip, "tabindex", index === query ? "0" : "-1");
    }
    const weight = index > query && causal ? null : row[index]; // null: masked, a key after the query
    names.push([chip, weight]);
    if (weight === shown.weight) continue;
    const wasMasked = shown.weight === null;
    shown.weight = weight;
    if (weight === null) {
      chip.classList.add("masked");
      chip.classList.remove("strong");
      chip.dataset.masked = "true";
      delete chip.dataset.weight;
      setColour(chip, undefined);
      chip.percentText.data = "";
      continue;
    }
    if (wasMasked) {
      chip.classList.remove("masked");
      delete chip.dataset.masked;
    }
    chip.classList.toggle("strong", needsLightText(weight));
    setColour(chip, weightClass(weight));
    chip.dataset.weight = String(weight);
    chip.percentText.data = written(weight); // the same text node: no new layout object per keystroke
  }
  container.nameWriter ??= whenPaused(container);
  const writeNames = () => names.forEach(([chip, weight]) => setAttribute(chip, "aria-label", nameOf(chip, weight, T)));
  if (container.contains(focusedIn(container))) {
    container.nameWriter.nothingLater();
    writeNames();
  } else {
    container.nameWriter.later(writeNames);
  }
}

/** A chip's accessible name (see above); `weight` null where the key is masked. */
function nameOf(chip, weight, T) {
  const place = `token ${chip.index + 1} of ${T}`;
  return weight === null ? `«${chip.label}», ${place}, masked (a later token)` : `«${chip.label}» ${written(weight)}, ${place}`;
}

/* A chip's background: the weight class `colour` (colour.js), or none (undefined: masked). */
function setColour(chip, colour) {
  if (chip.shown.colour === colour) return;
  if (chip.shown.colour) chip.classList.remove(chip.shown.colour);
  if (colour) chip.classList.add(colour);
  chip.shown.colour = colour;
}

function setAttribute(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Make the chips of `container` one tab stop moved by the arrow keys (see above); `onPick(index)`. */
export function enableChipKeys(container, onPick) {
  container.addEventListener("keydown", (event) => {
    const chip = event.target.closest?.(".chip");
    if (!chip || event.altKey || event.ctrlKey || event.metaKey) return;
    const last = container.children.length - 1;
    const next = { ArrowLeft: chip.index - 1, ArrowRight: chip.index + 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = container.children[Math.max(0, Math.min(last, next))];
    onPick(target.index);
    target.focus();
  });
}

/** Fill `fieldset` (a radio group, named by its legend) with radio buttons 1..count, named after the
 *  fieldset's id; `onPick(n)` with the 1-based number chosen (click, tap, or the browser's own
 *  keyboard for radio groups: one tab stop, arrow keys). Each label carries data-value. */
export function drawChoices(fieldset, count, onPick) {
  const legend = fieldset.querySelector("legend");
  const choices = Array.from({ length: count }, (_, i) => {
    const label = document.createElement("label");
    label.className = "choice";
    label.dataset.value = String(i + 1);
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = fieldset.id;
    radio.value = String(i + 1);
    radio.addEventListener("change", () => { if (radio.checked) onPick(i + 1); });
    const text = document.createElement("span");
    text.textContent = String(i + 1);
    label.append(radio, text);
    return label;
  });
  fieldset.replaceChildren(legend, ...choices);
}

/** Check the radio button for `value` (1-based). */
export function markChoice(fieldset, value) {
  for (const radio of fieldset.querySelectorAll("input")) {
    const on = Number(radio.value) === value;
    if (radio.checked !== on) radio.checked = on;
  }
}

/** Outline the chips of keys `first`..`last` (0-based, inclusive): the tile "Compute it as FlashAttention
 *  does" shows; none when `first` is null. */
export function markTile(container, first, last) {
  for (const chip of container.children) {
    if (chip.index !== undefined) chip.classList.toggle("in-tile", first !== null && chip.index >= first && chip.index <= last);
  }
}

/** Mark quietly the first `count` chips: their keys and values came from the KV cache on the last edit. */
export function markReused(container, count) {
  for (const chip of container.children) {
    if (chip.index !== undefined) chip.classList.toggle("reused", chip.index < count);
  }
}
