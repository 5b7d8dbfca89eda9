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
 * createChips(container, {on: {pick(index), preview(index | null)}, messages}) → {draw(props), clear(message),
 *   language(), destroy()}
 *   pick: a chip clicked, or moved to by the keyboard; preview: the pointer over a chip (null: left it).
 *   messages: a function returning the figure's current Messages (i18n/messages.js), read at each draw;
 *   language() writes again the words that only a new token writes (each chip's title, the empty text),
 *   and has the next draw of the weights write every percentage and name again.
 *   props (each group optional: a group left out keeps what is drawn):
 *     labels: string[T], ids: number[T]      the tokens (their chips; [] shows "Type something above…")
 *     row: Float32Array [T]                  the query's row of the selected head: weight of keys 0..T-1
 *     query: number (0-based), previewing: boolean (a hover, not the query), causal: boolean (false: the
 *                                            "causal mask off" what-if, later keys not masked)
 *     reused: number                         the first `reused` chips came from the KV cache (class "reused")
 *     tile: [first, last] | null             keys outlined as the FlashAttention tile shown (class "in-tile")
 *     asking: boolean (with row)             "Predict, then look" asks: the weights hidden (no colour, no
 *                                            percentage, names without them); a click or Enter on a chip at or
 *                                            before the query answers (pick), the arrow keys only move the focus,
 *                                            masked chips are aria-disabled, and hovering previews nothing
 *     fixed: boolean (with row)              the query cannot change (controls="none"): the arrow keys move
 *                                            the focus only, to read each chip's name, and hovering previews nothing
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

/* A chip's title: its place, its id (written without grouping: a name, not a quantity) and its label. */
function describe(label, index, id, messages) {
  const params = { index: index + 1, id: messages.number(id, 0, false), label };
  return messages.text(PARTIAL.test(label) ? "chips.titlePartial" : "chips.title", params);
}

function setAttribute(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

export function createChips(container, { on, messages }) {
  const listening = new AbortController(); // destroy() removes every listener added here
  const { signal } = listening;
  /* One record per chip, in token order: {chip, index, label, tokenId, percentText (its text changes on
   * most keystrokes), shown: what the last weights wrote (query, preview, weight, colour)}. */
  const records = [];
  const nameWriter = whenPaused(container);
  let showsEmpty = false; // the chips' own empty text is shown (not a caller's message)
  let asking = false; // the weights hidden until the reader answers (props.asking)
  let focusOnly = false; // the arrow keys move the focus, not the query (asking, or props.fixed)

  function makeRecord(index) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip";
    chip.dataset.index = String(index);
    const label = document.createElement("span");
    label.className = "label";
    const percent = document.createElement("span");
    percent.className = "percent";
    const percentText = percent.appendChild(document.createTextNode(""));
    chip.append(label, " ", percent); // the space: the visible text reads "␣Alice 48.6%", as the name does
    chip.addEventListener("click", (event) => { if (event.detail <= 1) on.pick(index); }, { signal }); // a double click picks once (its second click would ask again)
    chip.addEventListener("mouseenter", () => { if (!focusOnly) on.preview(index); }, { signal }); // no preview while the weights are hidden, or the query fixed
    chip.addEventListener("mouseleave", () => { if (!focusOnly) on.preview(null); }, { signal });
    return { chip, index, label: undefined, tokenId: undefined, percentText, shown: { query: false, preview: false, weight: undefined, colour: undefined } };
  }

  /* One chip per label, reusing the chips already there (typing changes few of them). */
  function drawTokens(labels, ids) {
    if (labels.length === 0) {
      clear(messages().text("chips.empty"));
      showsEmpty = true;
      return;
    }
    container.querySelector(".empty")?.remove();
    showsEmpty = false;
    labels.forEach((label, index) => {
      if (!records[index]) {
        records[index] = makeRecord(index);
        container.append(records[index].chip);
      }
      const record = records[index];
      if (record.tokenId !== ids[index]) { // the id decides the label
        record.tokenId = ids[index];
        record.chip.firstChild.textContent = label;
        record.label = label;
        record.chip.title = describe(label, index, ids[index], messages());
      }
    });
    while (records.length > labels.length) records.pop().chip.remove();
  }

  /* One attention row (see above). Most edits change every chip (the query's row is new); each record
   * remembers what its chip shows, and only what differs is written, since every write costs the page
   * a new style, layout or paint. */
  function drawWeights(row, query, previewing, causal, hidden) {
    const T = records.length;
    if (hidden !== asking) {
      asking = hidden;
      for (const record of records) record.shown.weight = undefined; // everything written again
    }
    const words = messages();
    const names = [];
    for (const record of records) {
      const { chip, index, shown } = record;
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
      names.push([record, weight]);
      setAttribute(chip, "aria-disabled", String(asking && weight === null)); // a masked key: no answer
      if (weight === shown.weight) continue;
      const wasMasked = shown.weight === null;
      shown.weight = weight;
      if (weight === null) {
        chip.classList.add("masked");
        chip.classList.remove("strong");
        chip.dataset.masked = "true";
        delete chip.dataset.weight;
        setColour(record, undefined);
        record.percentText.data = "";
        continue;
      }
      if (wasMasked) {
        chip.classList.remove("masked");
        delete chip.dataset.masked;
      }
      if (asking) { // not one number until the reader answers, in the colour, the text or the name
        chip.classList.remove("strong");
        setColour(record, undefined);
        delete chip.dataset.weight;
        record.percentText.data = "";
        continue;
      }
      chip.classList.toggle("strong", needsLightText(weight));
      setColour(record, weightClass(weight));
      chip.dataset.weight = String(weight);
      record.percentText.data = written(weight, words); // the same text node: no new layout object per keystroke
    }
    const writeNames = () => {
      const later = messages(); // the language when they are written
      names.forEach(([record, weight]) => setAttribute(record.chip, "aria-label", nameOf(record, weight, T, later, asking)));
    };
    if (container.contains(focusedIn(container))) {
      nameWriter.nothingLater();
      writeNames();
    } else {
      nameWriter.later(writeNames);
    }
  }

  /** Draw `props` (see above): the tokens first, then their weights, the reused chips, the tile. */
  function draw(props) {
    if (props.labels) drawTokens(props.labels, props.ids);
    if (props.row) {
      drawWeights(props.row, props.query, props.previewing ?? false, props.causal ?? true, props.asking ?? false);
      focusOnly = asking || Boolean(props.fixed);
    }
    if (props.reused !== undefined) {
      for (const { chip, index } of records) chip.classList.toggle("reused", index < props.reused);
    }
    if (props.tile !== undefined) {
      const [first, last] = props.tile ?? [];
      for (const { chip, index } of records) chip.classList.toggle("in-tile", props.tile !== null && index >= first && index <= last);
    }
  }

  /** No chips: `message` in their place (none for ""). */
  function clear(message = "") {
    records.length = 0;
    showsEmpty = false;
    nameWriter.nothingLater();
    if (!message) return container.replaceChildren();
    const empty = document.createElement("p");
    empty.className = "empty";
    empty.textContent = message;
    container.replaceChildren(empty);
  }

  function onKey(event) {
    const chip = event.target.closest?.(".chip");
    const at = records.findIndex((record) => record.chip === chip);
    if (at < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const last = records.length - 1;
    const next = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = records[Math.max(0, Math.min(last, next))];
    if (focusOnly) { // the focus moves, the query stays (Enter on a chip answers a question)
      for (const record of records) setAttribute(record.chip, "tabindex", record === target ? "0" : "-1");
    } else on.pick(target.index);
    target.chip.focus();
  }
  container.addEventListener("keydown", onKey, { signal });

  /** After a change of the figure's language: the words written only with a new token (each chip's
   *  title, the empty text); the names follow with the next draw of the weights. */
  function language() {
    const words = messages();
    for (const record of records) {
      if (record.label !== undefined) record.chip.title = describe(record.label, record.index, record.tokenId, words);
      record.shown.weight = undefined; // its percentage written again, in the new language's format, by the next draw
    }
    if (showsEmpty) container.querySelector(".empty").textContent = words.text("chips.empty");
  }

  /** Remove the chips, every listener added here and the names waiting to be written. */
  function destroy() {
    listening.abort();
    clear();
  }

  return { draw, clear, language, destroy };
}

/** A chip's accessible name (see above); `weight` null where the key is masked; `hidden`: without it
 *  ("Predict, then look" asks). */
function nameOf(record, weight, T, messages, hidden) {
  const params = { label: record.label, index: record.index + 1, count: T };
  if (weight === null) return messages.text("chips.nameMasked", params);
  if (hidden) return messages.text("chips.nameHidden", params);
  return messages.text("chips.name", { ...params, percent: written(weight, messages) });
}

/* A chip's background: the weight class `colour` (colour.js), or none (undefined: masked). */
function setColour(record, colour) {
  const { chip, shown } = record;
  if (shown.colour === colour) return;
  if (shown.colour) chip.classList.remove(shown.colour);
  if (colour) chip.classList.add(colour);
  shown.colour = colour;
}
